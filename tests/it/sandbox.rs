//! Law 1's second wall on Linux, for real: shell commands the classifier lets through
//! run inside the sandbox (bubblewrap + overlays), in temp dirs only. What a command
//! tries to destroy is refused and named, the files are byte-identical afterwards, new
//! files in the workspace are kept, the walls cannot be undone from inside, and a call
//! the user approves runs outside and takes effect. Without a sandbox, every unproven
//! call asks.

use artoo::tools::ToolName;
use std::path::PathBuf;
use std::sync::Arc;

use artoo::bus::Bus;
use artoo::config::SandboxSetting;
use artoo::contracts::{
    ConfirmationRequest, Decision, DecisionSource, Role, SubTaskId, TaskId, ToolCallStatus,
};
use artoo::laws::{ConfirmationBroker, ConfirmationPolicy, ConfirmationResponder};
use artoo::tools::{Shell, ToolContext, ToolOutcome, ToolResult, Toolbox};
use artoo::{Config, SystemClock};
use serde_json::json;
use tempfile::TempDir;

/// A private home with notes, a workspace inside it with a file, and a bus.
struct World {
    _dir: TempDir,
    home: PathBuf,
    ws: PathBuf,
    bus: Bus,
    config: Arc<Config>,
    task: TaskId,
    /// One broker, as the executor has: what the user denied is remembered there.
    broker: ConfirmationBroker,
}

impl World {
    fn new() -> Self {
        Self::with(|_| {})
    }

    fn with(adjust: impl FnOnce(&mut Config)) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = dir.path().join("home");
        let ws = home.join("artoo_workspace");
        std::fs::create_dir_all(&ws).expect("workspace");
        let mut config = Config::with_dirs(dir.path().join("data"), &ws);
        config.home = home.clone();
        adjust(&mut config);
        let bus = Bus::new(SystemClock::shared());
        let broker = ConfirmationBroker::from_config(
            bus.handle(Role::Executor),
            SystemClock::shared(),
            &config,
        );
        let w = Self {
            _dir: dir,
            home,
            ws,
            bus,
            config: Arc::new(config),
            task: TaskId::mint(),
            broker,
        };
        w.write("artoo_workspace/keep.txt", "precious\n");
        w.write("notes/a.txt", "note a\n");
        w.write("notes/b.txt", "note b\n");
        w.write(".bashrc", "export X=1\n");
        w
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.home.join(rel);
        std::fs::create_dir_all(p.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
        p
    }

    fn ctx(&self) -> ToolContext {
        ToolContext::new(
            self.task.clone(),
            SubTaskId::mint(),
            Arc::clone(&self.config),
            self.broker.clone(),
        )
    }

    /// Every file under the home folder with its bytes and permissions.
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>, u32)> {
        use std::os::unix::fs::PermissionsExt;
        let mut out = Vec::new();
        for e in walkdir::WalkDir::new(&self.home).sort_by_file_name() {
            let e = e.expect("walk");
            if e.file_type().is_file() {
                let meta = e.metadata().expect("meta");
                out.push((
                    e.path().to_path_buf(),
                    std::fs::read(e.path()).expect("read"),
                    meta.permissions().mode(),
                ));
            }
        }
        out
    }
}

async fn shell(ctx: &ToolContext, command: &str) -> ToolResult {
    Toolbox::standard()
        .call(ctx, &ToolName::Shell.into(), json!({ "command": command }))
        .await
}

fn assert_ok(r: &ToolResult) {
    assert!(
        matches!(r.outcome, ToolOutcome::Ok { .. }),
        "{:?}",
        r.outcome
    );
}

fn refusal(r: &ToolResult) -> &str {
    match &r.outcome {
        ToolOutcome::Refused { reason } => reason,
        other => panic!("expected a sandbox refusal, got {other:?}"),
    }
}

fn requests(responder: &ConfirmationResponder) -> Vec<ConfirmationRequest> {
    responder.requests()
}

#[tokio::test]
async fn a_proven_command_runs_in_the_sandbox_and_sees_the_world() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let r = shell(&w.ctx(), "ls -1 ~/notes && cat keep.txt && echo $TMPDIR").await;
    let ToolOutcome::Ok { output } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(output.starts_with("a.txt\nb.txt\nprecious\n"), "{output}");
    assert!(
        output.contains("artoo-sandbox-"),
        "TMPDIR is the call's own: {output}"
    );
    assert!(requests(&responder).is_empty());
}

#[tokio::test]
async fn what_the_sandbox_keeps_of_a_command_is_the_calls_measured_effects() {
    let w = World::new();
    let _responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let r = shell(
        &w.ctx(),
        "mkdir -p out && printf 'a\\n' > out/one.txt && printf 'b\\n' > out/two.txt && cat keep.txt",
    )
    .await;
    assert_ok(&r);
    let mut kept: Vec<(String, PathBuf, bool)> = r
        .record
        .effects
        .iter()
        .map(|e| (e.effect.clone(), e.path.clone(), e.exists))
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            ("create".to_string(), w.ws.join("out/one.txt"), false),
            ("create".to_string(), w.ws.join("out/two.txt"), false),
        ],
        "the new files, not the folder, and nothing for the file only read"
    );
    // A command that changes nothing has no effects.
    let read = shell(&w.ctx(), "cat out/one.txt").await;
    assert_ok(&read);
    assert!(read.record.effects.is_empty(), "{:?}", read.record.effects);
}

#[tokio::test]
async fn deleting_truncating_overwriting_or_re_permissioning_existing_files_is_refused() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let before = w.snapshot();
    let ctx = w.ctx();
    // Each is spelled so that the classifier cannot see what it does (a program name
    // built at run time, code run by an interpreter): it runs in the sandbox.
    for (command, verb, path) in [
        (r#"c=rm; $c keep.txt"#, "delete", w.ws.join("keep.txt")),
        (
            r#"c=truncate; $c -s 0 keep.txt"#,
            "truncate",
            w.ws.join("keep.txt"),
        ),
        (
            r#"c=cp; $c ~/notes/b.txt ~/notes/a.txt"#,
            "overwrite",
            w.home.join("notes/a.txt"),
        ),
        (
            r#"c=chmod; $c 777 keep.txt"#,
            "change permissions",
            w.ws.join("keep.txt"),
        ),
        (
            r#"python3 -c "import shutil as s; getattr(s, 'rm' + 'tree')('../notes')""#,
            "delete",
            w.home.join("notes"),
        ),
        (
            r#"f=~/.bashrc; echo 'alias ls=x' >> "$f""#,
            "overwrite",
            w.home.join(".bashrc"),
        ),
        (
            r#"c=tee; echo new | $c ~/outside.txt"#,
            "create (outside the workspace)",
            w.home.join("outside.txt"),
        ),
    ] {
        let r = shell(&ctx, command).await;
        let reason = refusal(&r);
        let named = format!("{verb} {}", path.display());
        assert!(
            reason.contains(&named),
            "{command}: {reason}\n(expected «{named}»)"
        );
        assert!(reason.contains("\"unsandboxed\": true"), "{reason}");
        assert_eq!(r.record.status, ToolCallStatus::Refused);
    }
    assert_eq!(w.snapshot(), before, "every file is byte-identical");
    assert!(!w.home.join("outside.txt").exists());
    assert!(
        requests(&responder).is_empty(),
        "nothing asked: the sandbox held it"
    );
}

#[tokio::test]
async fn new_files_in_the_workspace_are_kept_without_asking() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let ctx = w.ctx();
    let r = shell(
        &ctx,
        "mkdir -p out/deep && printf 'x\\n' > out/deep/new.txt && c=ln; $c -s new.txt out/deep/link && python3 -c \"open('made.py.txt','w').write('y')\"",
    )
    .await;
    assert_ok(&r);
    assert_eq!(
        std::fs::read_to_string(w.ws.join("out/deep/new.txt")).unwrap(),
        "x\n"
    );
    assert_eq!(
        std::fs::read_to_string(w.ws.join("made.py.txt")).unwrap(),
        "y"
    );
    assert_eq!(
        std::fs::read_link(w.ws.join("out/deep/link")).unwrap(),
        PathBuf::from("new.txt")
    );
    // Adding to the end of a workspace file keeps what was there.
    let r = shell(&ctx, "c=echo; $c more >> keep.txt").await;
    assert_ok(&r);
    assert_eq!(
        std::fs::read_to_string(w.ws.join("keep.txt")).unwrap(),
        "precious\nmore\n"
    );
    assert!(requests(&responder).is_empty());
}

#[tokio::test]
async fn copying_into_a_new_folder_in_the_home_neither_asks_nor_is_lost() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let r = shell(&w.ctx(), "mkdir -p ~/backup && cp ~/notes/*.txt ~/backup/").await;
    assert_ok(&r);
    assert_eq!(
        std::fs::read_to_string(w.home.join("backup/a.txt")).unwrap(),
        "note a\n"
    );
    assert_eq!(
        std::fs::read_to_string(w.home.join("backup/b.txt")).unwrap(),
        "note b\n"
    );
    // Folders made on the way to a new one are kept too; nothing else beside them is.
    let r = shell(
        &w.ctx(),
        "mkdir -p ~/archive/2024/notes && cp ~/notes/a.txt ~/archive/2024/notes/ && mkdir ~/elsewhere",
    )
    .await;
    assert_ok(&r);
    assert_eq!(
        std::fs::read_to_string(w.home.join("archive/2024/notes/a.txt")).unwrap(),
        "note a\n"
    );
    assert!(w.home.join("elsewhere").is_dir());
    assert!(requests(&responder).is_empty());
}

#[tokio::test]
async fn the_command_cannot_undo_the_walls_reach_sockets_or_the_network() {
    let w = World::new();
    let _responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    let unix = w.home.join("server.sock");
    let _server = std::os::unix::net::UnixListener::bind(&unix).expect("unix listener");
    let before = w.snapshot();
    let probe = format!(
        "c=true; $c; \
         mount -o remount,rw / 2>/dev/null && echo REMOUNTED; \
         unshare -rm sh -c 'mount -o remount,rw / && echo REMOUNTED2' 2>/dev/null; \
         umount {ws} 2>/dev/null && echo UNMOUNTED; \
         v=$(cat /proc/sys/vm/swappiness); f=/proc/sys/vm/swappiness; echo $v 2>/dev/null > \"$f\" && echo SYSCTL; \
         d=/dev/tcp/127.0.0.1/{port}; (exec 3<>\"$d\") 2>/dev/null && echo NETWORK; \
         python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{unix}'); print('SOCKET')\" 2>/dev/null; \
         c=rm; $c -f {keep}; echo done",
        ws = w.ws.display(),
        unix = unix.display(),
        keep = w.ws.join("keep.txt").display(),
    );
    let r = shell(&w.ctx(), &probe).await;
    let reason = refusal(&r);
    for escaped in ["REMOUNTED", "UNMOUNTED", "NETWORK", "SOCKET", "SYSCTL"] {
        assert!(!reason.contains(escaped), "{escaped}: {reason}");
    }
    assert!(reason.contains("done"), "{reason}");
    assert_eq!(w.snapshot(), before);
}

#[tokio::test]
async fn an_approved_rerun_outside_the_sandbox_says_what_it_tried_and_takes_effect() {
    let w = World::new();
    let responder = ConfirmationResponder::spawn(
        &w.bus,
        ConfirmationPolicy::script([Decision::Approve]),
        DecisionSource::User,
    );
    let ctx = w.ctx();
    let command = "c=rm; $c keep.txt";
    let first = shell(&ctx, command).await;
    refusal(&first);
    assert!(w.ws.join("keep.txt").exists());
    let again = Toolbox::standard()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": command, "unsandboxed": true }),
        )
        .await;
    assert_ok(&again);
    assert!(!w.ws.join("keep.txt").exists(), "approved: it took effect");
    let asked = requests(&responder);
    assert_eq!(asked.len(), 1);
    let d = &asked[0].description;
    assert!(
        d.contains(&format!(
            "tried to: delete {}",
            w.ws.join("keep.txt").display()
        )),
        "{d}"
    );
    assert!(
        asked[0]
            .paths
            .iter()
            .any(|p| p.path == w.ws.join("keep.txt") && p.effect == "delete")
    );
    assert!(!asked[0].reversible);
    assert_eq!(again.record.confirmation, Some(Decision::Approve));
}

#[tokio::test]
async fn asking_to_leave_the_sandbox_before_it_refused_anything_runs_inside_it_unasked() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let ctx = w.ctx();
    // A new file: free inside the sandbox, so the flag buys nothing and asks nothing.
    let r = Toolbox::standard()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": "echo hi > fresh.txt", "unsandboxed": true }),
        )
        .await;
    assert_ok(&r);
    assert!(requests(&responder).is_empty(), "nothing to ask about");
    assert!(w.ws.join("fresh.txt").exists());
    // A destructive command with the flag still meets the sandbox first.
    let before = w.snapshot();
    let r = Toolbox::standard()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": "c=rm; $c keep.txt", "unsandboxed": true }),
        )
        .await;
    refusal(&r);
    assert!(requests(&responder).is_empty());
    assert_eq!(w.snapshot(), before);
}

#[tokio::test]
async fn a_denied_effect_is_not_asked_again_in_the_task_in_any_wording() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let ctx = w.ctx();
    let r = shell(&ctx, "rm keep.txt").await;
    assert_eq!(r.record.status, ToolCallStatus::Denied);
    assert_eq!(requests(&responder).len(), 1);
    // Another sub-task of the same task, other wordings of the same deletion.
    let mut later = w.ctx();
    later.subtask_id = SubTaskId::mint();
    for command in ["rm -f ./keep.txt", "/bin/rm -- keep.txt", "unlink keep.txt"] {
        let r = shell(&later, command).await;
        assert_eq!(r.record.status, ToolCallStatus::Denied, "{command}");
        assert!(r.for_model.contains("already denied"), "{}", r.for_model);
    }
    // Through the sandbox: refused there, and the rerun outside is not asked either.
    let sneaky = "c=rm; $c keep.txt";
    refusal(&shell(&later, sneaky).await);
    let out = Toolbox::standard()
        .call(
            &later,
            &ToolName::Shell.into(),
            json!({ "command": sneaky, "unsandboxed": true }),
        )
        .await;
    assert_eq!(out.record.status, ToolCallStatus::Denied);
    assert_eq!(
        requests(&responder).len(),
        1,
        "asked once in the whole task"
    );
    assert!(w.ws.join("keep.txt").exists());
    // Another task may ask again.
    let mut other = w.ctx();
    other.task_id = TaskId::mint();
    shell(&other, "rm keep.txt").await;
    assert_eq!(requests(&responder).len(), 2);
}

#[tokio::test]
async fn without_a_sandbox_every_unproven_call_asks_and_proven_ones_run() {
    // No bubblewrap on the children's PATH (only bash): the sandbox cannot start.
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let bin = tempfile::tempdir().expect("bin dir");
    std::os::unix::fs::symlink("/bin/bash", bin.path().join("bash")).expect("link bash");
    let shell_tool = Shell::with_env(vec![("PATH".into(), bin.path().into())]);
    let status = shell_tool.sandbox_status().await;
    assert!(!status.is_on(), "{status:?}");
    assert!(
        status.describe().contains("bubblewrap"),
        "{}",
        status.describe()
    );
    let toolbox = Toolbox::with_tools(vec![Arc::new(shell_tool)]);
    let ctx = w.ctx();
    let unproven = toolbox
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": "c=rm; /bin/$c keep.txt" }),
        )
        .await;
    assert_eq!(unproven.record.status, ToolCallStatus::Denied);
    let asked = requests(&responder);
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0]
            .description
            .contains("sandbox that would hold it is off"),
        "{}",
        asked[0].description
    );
    assert!(w.ws.join("keep.txt").exists());
    // Proven reversible: runs (unsandboxed), without asking.
    let proven = toolbox
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": "/bin/echo hello > hello.txt" }),
        )
        .await;
    assert_ok(&proven);
    assert_eq!(requests(&responder).len(), 1);
}

#[tokio::test]
async fn the_sandbox_turned_off_in_settings_makes_unproven_calls_ask() {
    let w = World::with(|c| c.tools.sandbox = SandboxSetting::Off);
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let r = shell(&w.ctx(), "c=ls; $c").await;
    assert_eq!(r.record.status, ToolCallStatus::Denied);
    assert!(
        requests(&responder)[0]
            .description
            .contains("turned off in settings")
    );
}

#[tokio::test]
async fn a_timed_out_sandboxed_command_leaves_no_process_and_keeps_nothing() {
    let w = World::new();
    let _responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let r = Toolbox::standard()
        .call(
            &w.ctx(),
            &ToolName::Shell.into(),
            json!({"command": "c=sleep; echo x > made.txt; ($c 301.25 &) ; $c 301.25", "timeout_secs": 1}),
        )
        .await;
    assert!(
        matches!(r.outcome, ToolOutcome::Error { .. }),
        "{:?}",
        r.outcome
    );
    assert!(
        !w.ws.join("made.txt").exists(),
        "a timed-out call keeps nothing"
    );
    let mut alive = true;
    for _ in 0..100 {
        alive = std::fs::read_dir("/proc")
            .expect("proc")
            .flatten()
            .any(|e| {
                std::fs::read(e.path().join("cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains("301.25"))
            });
        if !alive {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(!alive, "a sandboxed process outlived its call");
}
