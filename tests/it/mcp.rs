//! MCP tools against real servers (no mocks): `@modelcontextprotocol/server-filesystem`
//! and `@modelcontextprotocol/server-everything` from npm over stdio, and the everything
//! server's Streamable HTTP mode, each in temp dirs. The npm packages are pinned in
//! package.json / package-lock.json; `scripts/setup` installs them (`npm ci`).
//!
//! Calls go through the real toolbox (every guard and the Law 1 gate) with a
//! `ConfirmationResponder` answering as the user.

use artoo::tools::ToolRef;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use artoo::Config;
use artoo::bus::Bus;
use artoo::clock::SystemClock;
use artoo::contracts::{
    ApprovalScope, Decision, DecisionSource, Message, Role, SubTaskId, TaskId, ToolCallStatus,
};
use artoo::laws::broker::{ConfirmationBroker, ConfirmationPolicy, ConfirmationResponder};
use artoo::laws::grants::GrantStore;
use artoo::mcp::{McpHub, McpServerConfig};
use artoo::tools::{ToolContext, ToolOutcome, Toolbox};
use serde_json::json;

/// A server program installed by `npm ci` (scripts/setup).
pub fn npm_server(name: &str) -> PathBuf {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("node_modules/.bin")
        .join(format!("mcp-server-{name}"));
    assert!(
        bin.exists(),
        "{} is missing: run scripts/setup (npm ci) to install the pinned MCP servers",
        bin.display()
    );
    bin
}

pub fn filesystem_server(root: &Path) -> McpServerConfig {
    McpServerConfig::stdio(
        npm_server("filesystem").to_string_lossy(),
        &[&root.to_string_lossy()],
    )
}

/// Temp dirs: data dir, workspace (the filesystem server's root) and home.
struct Dirs {
    _root: tempfile::TempDir,
    data: PathBuf,
    workspace: PathBuf,
}

impl Dirs {
    fn new() -> Dirs {
        let root = tempfile::tempdir().expect("temp dir");
        // The filesystem server resolves symlinks; compare against the real path.
        let base = root.path().canonicalize().expect("real path");
        let data = base.join("data");
        let workspace = base.join("home/artoo_workspace");
        std::fs::create_dir_all(&workspace).expect("workspace");
        Dirs {
            _root: root,
            data,
            workspace,
        }
    }

    fn config(&self, servers: &[(&str, McpServerConfig)]) -> Config {
        let mut config = Config::with_dirs(&self.data, &self.workspace);
        config.home = self.workspace.parent().expect("home").to_path_buf();
        for (name, server) in servers {
            config.mcp.servers.insert(name.to_string(), server.clone());
        }
        config
    }
}

/// A toolbox with the hub's tools, a bus, and a responder answering as the user.
struct Bench {
    bus: Bus,
    hub: McpHub,
    toolbox: Toolbox,
    config: Arc<Config>,
    /// One broker, as the executor has one: task-scope approvals live in it.
    broker: ConfirmationBroker,
    responder: ConfirmationResponder,
}

impl Bench {
    async fn start(config: Config, policy: ConfirmationPolicy) -> Bench {
        let hub = McpHub::connect(&config).await;
        let bus = Bus::new(SystemClock::shared());
        let responder = ConfirmationResponder::spawn(&bus, policy, DecisionSource::User);
        let broker = ConfirmationBroker::from_config(
            bus.handle(Role::Executor),
            SystemClock::shared(),
            &config,
        );
        Bench {
            toolbox: Toolbox::standard().extended(hub.tools()),
            hub,
            bus,
            config: Arc::new(config),
            broker,
            responder,
        }
    }

    /// A new sub-task's context (its own call history) in `task`.
    fn ctx(&self, task: &TaskId) -> ToolContext {
        ToolContext::new(
            task.clone(),
            SubTaskId::mint(),
            Arc::clone(&self.config),
            self.broker.clone(),
        )
    }

    fn tool_names(&self) -> Vec<String> {
        self.toolbox
            .specs()
            .iter()
            .map(|s| s.name.to_string())
            .collect()
    }

    async fn stop(self) {
        self.hub.close().await;
    }
}

fn ok_output(outcome: &ToolOutcome) -> &str {
    match outcome {
        ToolOutcome::Ok { output } => output,
        other => panic!("the call did not succeed: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_tools_over_stdio_join_the_chain_after_the_built_in_tools() {
    let dirs = Dirs::new();
    std::fs::write(dirs.workspace.join("notes.txt"), "milk, eggs").expect("file");
    let bench = Bench::start(
        dirs.config(&[("files", filesystem_server(&dirs.workspace))]),
        ConfirmationPolicy::script([Decision::Approve]),
    )
    .await;
    let status = bench.hub.status();
    assert!(status[0].connected, "{status:?}");
    let names = bench.tool_names();
    let first_mcp = names.iter().position(|n| n.starts_with("files.")).unwrap();
    assert_eq!(
        first_mcp,
        artoo::contracts::ToolName::CHAIN.len(),
        "after every built-in tool: {names:?}"
    );
    for tool in [
        "files.read_text_file",
        "files.write_file",
        "files.list_directory",
    ] {
        assert!(names.iter().any(|n| n == tool), "{tool} in {names:?}");
    }
    let read_only = status[0]
        .tools
        .iter()
        .find(|t| t.name.as_str() == "files.read_text_file")
        .expect("listed");
    assert!(read_only.read_only && !read_only.changed);

    let task = TaskId::mint();
    let mut observer = bench.bus.tap("test", 64);
    let path = dirs.workspace.join("notes.txt");
    let result = bench
        .toolbox
        .call(
            &bench.ctx(&task),
            &ToolRef::parse("files.read_text_file"),
            json!({"path": path, "head": null}),
        )
        .await;
    assert_eq!(ok_output(&result.outcome), "milk, eggs");
    assert_eq!(result.record.tool, ToolRef::parse("files.read_text_file"));
    assert_eq!(result.record.target, path.to_string_lossy());
    assert_eq!(
        result.record.input,
        json!({"path": path}),
        "the null left out"
    );
    // Its first call asked, with what the server says of it; approved, that definition
    // is trusted, and a read-only tool runs without asking from then on.
    assert_eq!(result.record.confirmation, Some(Decision::Approve));
    let asked = bench.responder.requests();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].description.contains("has not run this tool")
            && asked[0].description.contains("declares it read-only"),
        "{}",
        asked[0].description
    );
    assert!(asked[0].scopes.contains(&ApprovalScope::Always));
    let again = bench
        .toolbox
        .call(
            &bench.ctx(&TaskId::mint()),
            &ToolRef::parse("files.read_text_file"),
            json!({"path": path}),
        )
        .await;
    assert_eq!(ok_output(&again.outcome), "milk, eggs");
    assert_eq!(
        again.record.confirmation, None,
        "trusted read-only: no question"
    );
    assert_eq!(bench.responder.requests().len(), 1);
    // The call is on the bus as a tool-call record, like every other tool's.
    let event = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Some(artoo::bus::TapEvent::Message(env)) = observer.recv().await
                && let Message::ToolCallEvent(e) = &env.message
            {
                return e.clone();
            }
        }
    })
    .await
    .expect("a ToolCallEvent");
    assert_eq!(event.record, result.record);

    // A missing required parameter never reaches the server.
    let missing = bench
        .toolbox
        .call(
            &bench.ctx(&task),
            &ToolRef::parse("files.read_text_file"),
            json!({}),
        )
        .await;
    assert_eq!(missing.record.status, ToolCallStatus::Error);
    assert!(
        missing.for_model.contains("`path` is required"),
        "{}",
        missing.for_model
    );
    bench.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destructive_mcp_call_asks_and_a_denial_changes_nothing() {
    let dirs = Dirs::new();
    let path = dirs.workspace.join("notes.txt");
    std::fs::write(&path, "keep me").expect("file");
    let bench = Bench::start(
        dirs.config(&[("files", filesystem_server(&dirs.workspace))]),
        ConfirmationPolicy::Deny,
    )
    .await;
    let result = bench
        .toolbox
        .call(
            &bench.ctx(&TaskId::mint()),
            &ToolRef::parse("files.write_file"),
            json!({"path": path, "content": "gone"}),
        )
        .await;
    assert_eq!(result.record.status, ToolCallStatus::Denied);
    assert_eq!(result.record.confirmation, Some(Decision::Deny));
    assert!(
        result.for_model.starts_with("[LAW1]"),
        "{}",
        result.for_model
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me");
    let requests = bench.responder.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.tool, ToolRef::parse("files.write_file"));
    assert!(!request.reversible);
    assert!(
        request.command.starts_with("files.write_file {"),
        "{}",
        request.command
    );
    assert!(
        request
            .description
            .contains("does not declare it read-only"),
        "{}",
        request.description
    );
    assert_eq!(
        request.scopes,
        [
            ApprovalScope::Once,
            ApprovalScope::Task,
            ApprovalScope::Always
        ]
    );
    let grant = request.grant.as_ref().expect("always names the tool");
    assert_eq!(
        (grant.server.as_str(), grant.tool.as_str()),
        ("files", "write_file")
    );
    assert!(
        grant.origin.contains("mcp-server-filesystem"),
        "{}",
        grant.origin
    );
    bench.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_scopes_reach_exactly_as_far_as_chosen_and_grants_revoke() {
    let dirs = Dirs::new();
    let config = dirs.config(&[("files", filesystem_server(&dirs.workspace))]);
    let bench = Bench::start(
        config,
        ConfirmationPolicy::scoped_script([
            (Decision::Approve, ApprovalScope::Task),
            (Decision::Approve, ApprovalScope::Once),
            (Decision::Approve, ApprovalScope::Always),
        ]),
    )
    .await;
    let dir = |n: &str| json!({"path": dirs.workspace.join(n)});
    let task = TaskId::mint();
    // 1: asked, approved for the rest of the task.
    let first = bench
        .toolbox
        .call(
            &bench.ctx(&task),
            &ToolRef::parse("files.create_directory"),
            dir("a"),
        )
        .await;
    assert_eq!(
        first.record.status,
        ToolCallStatus::Ok,
        "{}",
        first.for_model
    );
    assert!(dirs.workspace.join("a").is_dir());
    // The same effect in another sub-task of the task: not asked again.
    let again = bench
        .toolbox
        .call(
            &bench.ctx(&task),
            &ToolRef::parse("files.create_directory"),
            dir("a"),
        )
        .await;
    assert_eq!(again.record.status, ToolCallStatus::Ok);
    assert!(
        again.for_model.contains("earlier in this task"),
        "{}",
        again.for_model
    );
    assert_eq!(bench.responder.requests().len(), 1);
    // 2: another effect asks (approved once).
    bench
        .toolbox
        .call(
            &bench.ctx(&task),
            &ToolRef::parse("files.create_directory"),
            dir("b"),
        )
        .await;
    assert_eq!(bench.responder.requests().len(), 2);
    // The task grant never reaches another task.
    let other = TaskId::mint();
    // 3: asked again in another task; approved always.
    bench
        .toolbox
        .call(
            &bench.ctx(&other),
            &ToolRef::parse("files.create_directory"),
            dir("a"),
        )
        .await;
    assert_eq!(bench.responder.requests().len(), 3);
    let grants = GrantStore::in_dir(&dirs.data);
    let listed = grants.list().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].subject.tool, "create_directory");
    // Always: this tool, any arguments, any task — and nothing else.
    let later = bench
        .toolbox
        .call(
            &bench.ctx(&TaskId::mint()),
            &ToolRef::parse("files.create_directory"),
            dir("c"),
        )
        .await;
    assert_eq!(later.record.status, ToolCallStatus::Ok);
    assert!(
        later.for_model.contains("always allows"),
        "{}",
        later.for_model
    );
    assert_eq!(bench.responder.requests().len(), 3);
    let write = bench
        .toolbox
        .call(
            &bench.ctx(&TaskId::mint()),
            &ToolRef::parse("files.write_file"),
            json!({"path": dirs.workspace.join("x.txt"), "content": "x"}),
        )
        .await;
    assert_eq!(
        write.record.status,
        ToolCallStatus::Denied,
        "the script ran out: deny"
    );
    assert_eq!(bench.responder.requests().len(), 4);
    assert!(!dirs.workspace.join("x.txt").exists());
    // Revoked: asks again (and the script's deny keeps the folder from being made).
    assert_eq!(grants.revoke_server("files").unwrap(), 1);
    let revoked = bench
        .toolbox
        .call(
            &bench.ctx(&TaskId::mint()),
            &ToolRef::parse("files.create_directory"),
            dir("d"),
        )
        .await;
    assert_eq!(revoked.record.status, ToolCallStatus::Denied);
    assert_eq!(bench.responder.requests().len(), 5);
    assert!(!dirs.workspace.join("d").exists());
    bench.stop().await;
}

/// The two Law 1 memories meet in one gate: a denial is final for its task (the tool's
/// effect is refused without asking, whatever its arguments), and an `always` grant
/// given later in another task does not reach back into the task that denied it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denial_stays_final_for_its_task_even_after_an_always_grant() {
    let dirs = Dirs::new();
    let bench = Bench::start(
        dirs.config(&[("files", filesystem_server(&dirs.workspace))]),
        ConfirmationPolicy::scoped_script([
            (Decision::Deny, ApprovalScope::Once),
            (Decision::Approve, ApprovalScope::Always),
        ]),
    )
    .await;
    let write = |name: &str| json!({"path": dirs.workspace.join(name), "content": "x"});
    let denying = TaskId::mint();
    let first = bench
        .toolbox
        .call(
            &bench.ctx(&denying),
            &ToolRef::parse("files.write_file"),
            write("a.txt"),
        )
        .await;
    assert_eq!(first.record.status, ToolCallStatus::Denied);
    assert_eq!(bench.responder.requests().len(), 1);
    // Other arguments, same task: refused without asking.
    let second = bench
        .toolbox
        .call(
            &bench.ctx(&denying),
            &ToolRef::parse("files.write_file"),
            write("b.txt"),
        )
        .await;
    assert_eq!(second.record.status, ToolCallStatus::Denied);
    assert!(
        second.for_model.contains("already denied"),
        "{}",
        second.for_model
    );
    assert_eq!(bench.responder.requests().len(), 1);
    // Another task asks, and the user allows the tool always.
    let granted = bench
        .toolbox
        .call(
            &bench.ctx(&TaskId::mint()),
            &ToolRef::parse("files.write_file"),
            write("c.txt"),
        )
        .await;
    assert_eq!(
        granted.record.status,
        ToolCallStatus::Ok,
        "{}",
        granted.for_model
    );
    assert_eq!(bench.responder.requests().len(), 2);
    let covered = bench
        .toolbox
        .call(
            &bench.ctx(&TaskId::mint()),
            &ToolRef::parse("files.write_file"),
            write("d.txt"),
        )
        .await;
    assert_eq!(covered.record.status, ToolCallStatus::Ok);
    assert!(
        covered.for_model.contains("always allows"),
        "{}",
        covered.for_model
    );
    assert_eq!(bench.responder.requests().len(), 2);
    // Back in the task that denied it: still refused, without asking.
    let after = bench
        .toolbox
        .call(
            &bench.ctx(&denying),
            &ToolRef::parse("files.write_file"),
            write("e.txt"),
        )
        .await;
    assert_eq!(after.record.status, ToolCallStatus::Denied);
    assert_eq!(bench.responder.requests().len(), 2);
    for (name, written) in [
        ("a.txt", false),
        ("b.txt", false),
        ("c.txt", true),
        ("d.txt", true),
        ("e.txt", false),
    ] {
        assert_eq!(dirs.workspace.join(name).exists(), written, "{name}");
    }
    bench.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_server_answers_over_stdio() {
    let dirs = Dirs::new();
    let bench = Bench::start(
        dirs.config(&[(
            "everything",
            McpServerConfig::stdio(npm_server("everything").to_string_lossy(), &[]),
        )]),
        // The first call of each tool asks: echo and get-sum are approved, the rest
        // denied.
        ConfirmationPolicy::script([Decision::Approve, Decision::Approve]),
    )
    .await;
    assert!(bench.hub.status()[0].connected, "{:?}", bench.hub.status());
    let task = TaskId::mint();
    let echo = bench
        .toolbox
        .call(
            &bench.ctx(&task),
            &ToolRef::parse("everything.echo"),
            json!({"message": "hi"}),
        )
        .await;
    assert_eq!(ok_output(&echo.outcome), "Echo: hi");
    let sum = bench
        .toolbox
        .call(
            &bench.ctx(&task),
            &ToolRef::parse("everything.get-sum"),
            json!({"a": 2, "b": 40}),
        )
        .await;
    assert!(ok_output(&sum.outcome).contains("42"), "{:?}", sum.outcome);
    // Not declared read-only (a hint it gives itself): asks, and is denied.
    let toggle = bench
        .toolbox
        .call(
            &bench.ctx(&task),
            &ToolRef::parse("everything.toggle-simulated-logging"),
            json!({}),
        )
        .await;
    assert_eq!(toggle.record.status, ToolCallStatus::Denied);
    assert_eq!(bench.responder.requests().len(), 3);
    bench.stop().await;
}

/// The everything server in its Streamable HTTP mode on a free loopback port; killed
/// when dropped.
struct HttpServer {
    child: tokio::process::Child,
    url: String,
}

impl HttpServer {
    async fn start() -> HttpServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = tokio::process::Command::new(npm_server("everything"))
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the everything server starts");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the HTTP server did not listen"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        HttpServer {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_http_server_is_reached_by_its_url() {
    let mut server = HttpServer::start().await;
    let dirs = Dirs::new();
    let bench = Bench::start(
        dirs.config(&[("remote", McpServerConfig::http(&server.url))]),
        ConfirmationPolicy::Approve,
    )
    .await;
    let status = bench.hub.status();
    assert!(status[0].connected, "{status:?}");
    assert_eq!(status[0].origin, server.url);
    let echo = bench
        .toolbox
        .call(
            &bench.ctx(&TaskId::mint()),
            &ToolRef::parse("remote.echo"),
            json!({"message": "over http"}),
        )
        .await;
    assert_eq!(ok_output(&echo.outcome), "Echo: over http");
    bench.stop().await;
    let _ = server.child.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_start_is_reported_and_left_out() {
    let dirs = Dirs::new();
    let bench = Bench::start(
        dirs.config(&[
            (
                "gone",
                McpServerConfig::stdio(
                    dirs.workspace.join("no-such-program").to_string_lossy(),
                    &[],
                ),
            ),
            ("files", filesystem_server(&dirs.workspace)),
        ]),
        ConfirmationPolicy::Deny,
    )
    .await;
    let status = bench.hub.status();
    let gone = status.iter().find(|s| s.name == "gone").expect("reported");
    assert!(!gone.connected);
    assert!(
        gone.error
            .as_deref()
            .unwrap_or("")
            .contains("could not be started"),
        "{gone:?}"
    );
    assert!(status.iter().any(|s| s.name == "files" && s.connected));
    assert!(!bench.tool_names().iter().any(|n| n.starts_with("gone.")));
    bench.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_whose_tools_changed_behind_the_same_command_is_asked_about_again() {
    let dirs = Dirs::new();
    std::fs::write(dirs.workspace.join("notes.txt"), "hello").expect("file");
    // One command line; which real server it runs is chosen by a file, as an update
    // of an installed server would change what the same command serves.
    let choice = dirs.workspace.join("which");
    let script = dirs.workspace.join("server.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ \"$(cat '{choice}')\" = filesystem ]; then exec '{fs}' \"$@\"; fi\nexec '{everything}'\n",
            choice = choice.display(),
            fs = npm_server("filesystem").display(),
            everything = npm_server("everything").display(),
        ),
    )
    .expect("script");
    let server = McpServerConfig::stdio(
        "sh",
        &[&script.to_string_lossy(), &dirs.workspace.to_string_lossy()],
    );
    std::fs::write(&choice, "everything").expect("choice");
    let first = Bench::start(
        dirs.config(&[("srv", server.clone())]),
        ConfirmationPolicy::script([Decision::Approve]),
    )
    .await;
    let status = first.hub.status();
    assert!(status[0].connected, "{status:?}");
    assert!(
        status[0]
            .tools
            .iter()
            .any(|t| t.name.as_str() == "srv.echo")
    );
    assert!(
        status[0].tools.iter().all(|t| !t.changed),
        "new tools are not changed ones"
    );
    // Approving a call trusts that tool's definition, and nothing else.
    let echo = first
        .toolbox
        .call(
            &first.ctx(&TaskId::mint()),
            &ToolRef::parse("srv.echo"),
            json!({"message": "hi"}),
        )
        .await;
    assert_eq!(ok_output(&echo.outcome), "Echo: hi");
    assert_eq!(first.responder.requests().len(), 1);
    let origin = status[0].origin.clone();
    first.stop().await;
    // A call of `read_text_file` was approved when its definition was another one (as
    // an older version of the server would have left it).
    let trust_file = dirs.data.join("mcp-trust.json");
    let mut trust: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trust_file).expect("trust file"))
            .expect("json");
    assert!(trust["servers"][&origin]["echo"].is_string(), "{trust}");
    trust["servers"][&origin]["read_text_file"] = json!("an-older-definition");
    std::fs::write(&trust_file, trust.to_string()).expect("trust file");

    std::fs::write(&choice, "filesystem").expect("choice");
    let second = Bench::start(
        dirs.config(&[("srv", server.clone())]),
        ConfirmationPolicy::script([Decision::Approve]),
    )
    .await;
    let read = second.hub.status()[0]
        .tools
        .iter()
        .find(|t| t.name.as_str() == "srv.read_text_file")
        .cloned()
        .expect("the new server's tool");
    assert!(read.read_only && read.changed, "{read:?}");
    let path = dirs.workspace.join("notes.txt");
    let call = second
        .toolbox
        .call(
            &second.ctx(&TaskId::mint()),
            &ToolRef::parse("srv.read_text_file"),
            json!({"path": path}),
        )
        .await;
    assert_eq!(ok_output(&call.outcome), "hello");
    let asked = second.responder.requests();
    assert_eq!(
        asked.len(),
        1,
        "a read-only claim of a changed tool still asks"
    );
    assert!(
        asked[0].description.contains("changed"),
        "{}",
        asked[0].description
    );
    second.stop().await;

    // Approved once: that definition is trusted from now on; a tool never approved
    // still asks on its first call.
    let third = Bench::start(dirs.config(&[("srv", server)]), ConfirmationPolicy::Deny).await;
    let status = third.hub.status();
    let tools = &status[0].tools;
    assert!(tools.iter().all(|t| !t.changed), "{tools:?}");
    let again = third
        .toolbox
        .call(
            &third.ctx(&TaskId::mint()),
            &ToolRef::parse("srv.read_text_file"),
            json!({"path": path}),
        )
        .await;
    assert_eq!(ok_output(&again.outcome), "hello");
    assert!(third.responder.requests().is_empty());
    let listing = third
        .toolbox
        .call(
            &third.ctx(&TaskId::mint()),
            &ToolRef::parse("srv.list_directory"),
            json!({"path": dirs.workspace}),
        )
        .await;
    assert_eq!(listing.record.status, ToolCallStatus::Denied);
    assert_eq!(third.responder.requests().len(), 1);
    third.stop().await;
}

/// `artoo mcp …` as a user runs it: the binary with only the environment given here.
fn artoo_cli(dirs: &Dirs, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_artoo"))
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dirs.workspace.parent().expect("home"))
        .env("ARTOO_DATA_DIR", &dirs.data)
        .env("ARTOO_WORKSPACE", &dirs.workspace)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn said(output: &std::process::Output) -> String {
    assert!(
        output.status.success(),
        "status {:?}\n{}\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_cli_imports_a_claude_desktop_config_lists_its_tools_and_revokes_grants() {
    let dirs = Dirs::new();
    let config = dirs.workspace.join("claude_desktop_config.json");
    std::fs::write(
        &config,
        json!({
            "mcpServers": {
                "files": {"command": npm_server("filesystem"), "args": [&dirs.workspace]},
                "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
            }
        })
        .to_string(),
    )
    .expect("config");
    let import = said(&artoo_cli(
        &dirs,
        &["mcp", "import", &config.to_string_lossy()],
    ));
    assert!(import.contains("added 1 server(s): files"), "{import}");
    assert!(import.contains("skipped: old: a legacy SSE"), "{import}");
    let settings = std::fs::read_to_string(dirs.data.join("settings.toml")).expect("saved");
    assert!(settings.contains("[mcp.servers.files]"), "{settings}");

    let list = said(&artoo_cli(&dirs, &["mcp", "list"]));
    assert!(list.contains("files.read_text_file  [read-only]"), "{list}");
    assert!(list.contains("files.write_file  [asks]"), "{list}");

    let grants = GrantStore::in_dir(&dirs.data);
    let subject = |tool: &str| artoo::contracts::GrantSubject {
        server: "files".into(),
        origin: "o".into(),
        tool: tool.into(),
        fingerprint: "f".into(),
    };
    for tool in ["write_file", "move_file"] {
        grants
            .add(subject(tool), chrono::Utc::now())
            .expect("grant");
    }
    let listed = said(&artoo_cli(&dirs, &["mcp", "grants"]));
    assert!(listed.contains("files.write_file  (o)"), "{listed}");
    let revoked = said(&artoo_cli(&dirs, &["mcp", "revoke", "files", "write_file"]));
    assert!(revoked.contains("revoked 1 grant(s)"), "{revoked}");
    assert!(!grants.allows(&subject("write_file")));
    assert!(grants.allows(&subject("move_file")));
}
