//! The Law 1 prompt, driven in process: the real runtime and desk, the console reading
//! answers from a reader, and the test asking as R3 would (over the bus, as `Executor`).
//!
//! **Invariant:** these tests hold the prompt to approving only an answer typed at a
//! terminal: Enter, an unclear word, the end of input, no terminal and the timeout deny.

use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::PathBuf;
use std::time::Duration;

use super::input::{Input, Interrupts};
use super::render::LineStyle;
use super::session::{self, Console, Sink, StatusLines};
use artoo::Config;
use artoo::contracts::{
    ConfirmationDecision, ConfirmationRequest, Decision, DecisionSource, Message, PathEffect,
    RequestId, Role,
};
use artoo::runtime::{Runtime, RuntimeOptions, TaskEnd};
use artoo::testkit::{Script, ScriptedServer, llm_config};
use artoo::tools::{ToolName, ToolRef};

/// The longest one exchange may take (scripted replies are instant).
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

fn script(name: &str) -> Script {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cli")
        .join(format!("{name}.json"));
    Script::from_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A reader that never yields a line: a user who does not answer.
struct Silent;

impl Read for Silent {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        loop {
            std::thread::park();
        }
    }
}

struct Desk {
    server: ScriptedServer,
    runtime: Runtime,
    _dirs: tempfile::TempDir,
}

/// A runtime whose task waits in R2 forever, so a Law 1 request can be asked of it.
async fn desk(adjust: impl FnOnce(&mut Config)) -> Desk {
    let server = ScriptedServer::start(script("planner_hangs"))
        .await
        .expect("server starts");
    let dirs = tempfile::tempdir().expect("temp dir");
    let workspace: PathBuf = dirs.path().join("home/artoo_workspace");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let mut config = Config::with_dirs(dirs.path().join("data"), &workspace);
    config.home = dirs.path().join("home");
    config.llm = llm_config(&server.base_url());
    adjust(&mut config);
    let runtime = Runtime::start(config, RuntimeOptions::default())
        .await
        .expect("the runtime starts");
    Desk {
        server,
        runtime,
        _dirs: dirs,
    }
}

fn request(task: artoo::contracts::TaskId, can_trash: bool) -> ConfirmationRequest {
    ConfirmationRequest {
        request_id: RequestId::mint(),
        task_id: task,
        subtask_id: None,
        tool: ToolName::Shell.into(),
        description: "delete 1 file".into(),
        command: "rm /tmp/artoo-cli-test/old.log".into(),
        paths: vec![PathEffect {
            path: "/tmp/artoo-cli-test/old.log".into(),
            exists: true,
            effect: "delete".into(),
        }],
        reversible: false,
        reversible_alternative: can_trash.then(|| "move it to the Trash".to_string()),
        can_trash,
        expires_at: chrono::Utc::now() + chrono::Duration::seconds(120),
        scopes: vec![artoo::contracts::ApprovalScope::Once],
        grant: None,
        effect_grant: None,
    }
}

/// Runs a task with the console reading `answers`, asks one Law 1 question as R3
/// once the task waits on R2, then cancels the task. Returns the decision that came
/// back on the bus and what the console printed.
async fn ask(
    desk: &Desk,
    answers: impl BufRead + Send + 'static,
    interactive: bool,
    can_trash: bool,
) -> (ConfirmationDecision, Vec<String>) {
    ask_with(desk, answers, interactive, |task| request(task, can_trash)).await
}

/// [`ask`] with the request `make` builds for the running task.
async fn ask_with(
    desk: &Desk,
    answers: impl BufRead + Send + 'static,
    interactive: bool,
    make: impl FnOnce(artoo::contracts::TaskId) -> ConfirmationRequest,
) -> (ConfirmationDecision, Vec<String>) {
    let sink = Sink::lines();
    let mut console = Console {
        style: LineStyle::plain(false),
        input: Input::from_reader(answers, interactive),
        interrupts: Interrupts::listen().expect("SIGINT listener"),
        sink: sink.clone(),
        status: StatusLines::default(),
    };
    let rt = &desk.runtime;
    let mut tap = rt.tap("test-console");
    let drive = session::run_task(rt, &mut console, &mut tap, "delete the old log");
    let executor = async {
        // R2's call (R1 makes none for a request naming what to act on).
        desk.server.wait_for_requests(1).await;
        let task = rt.running_tasks().pop().expect("the task runs");
        let reply = rt
            .bus()
            .handle(Role::Executor)
            .request(Role::User, make(task.clone()))
            .await
            .expect("an answer");
        rt.cancel(&task, "the test is done").expect("known task");
        match &reply.message {
            Message::ConfirmationDecision(d) => d.clone(),
            other => panic!("not a decision: {other:?}"),
        }
    };
    let (finished, decision) =
        tokio::time::timeout(RUN_TIMEOUT, async { tokio::join!(drive, executor) })
            .await
            .expect("the exchange ends in time");
    assert_eq!(finished.expect("the task ran").end, TaskEnd::Cancelled);
    (decision, sink.taken())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enter_alone_or_an_unclear_word_never_approves_and_y_does() {
    let desk = desk(|_| {}).await;
    let (decision, lines) = ask(&desk, Cursor::new("\nmaybe\ny\n"), true, false).await;
    assert_eq!(
        (decision.decision, decision.source),
        (Decision::Approve, DecisionSource::User)
    );
    let text = lines.join("\n");
    assert!(
        text.contains("⚠ Law 1: the executor asks to run an irreversible action with `shell`"),
        "{text}"
    );
    assert!(
        text.contains("command:    rm /tmp/artoo-cli-test/old.log"),
        "{text}"
    );
    assert!(text.contains("reversible: NO"), "{text}");
    assert_eq!(
        lines.iter().filter(|l| l.contains("Type y or n.")).count(),
        2,
        "asked again after Enter and after `maybe`: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_always_allows_exactly_the_mcp_tool_the_prompt_names() {
    use artoo::contracts::{ApprovalScope, GrantSubject};
    let desk = desk(|_| {}).await;
    let (decision, lines) = ask_with(&desk, Cursor::new("\nx\na\n"), true, |task| {
        ConfirmationRequest {
            tool: ToolRef::parse("files.write_file"),
            scopes: vec![
                ApprovalScope::Once,
                ApprovalScope::Task,
                ApprovalScope::Always,
            ],
            grant: Some(GrantSubject {
                server: "files".into(),
                origin: "mcp-server-filesystem /w".into(),
                tool: "write_file".into(),
                fingerprint: "ab".into(),
            }),
            ..request(task, false)
        }
    })
    .await;
    assert_eq!(
        (decision.decision, decision.source, decision.scope),
        (
            Decision::Approve,
            DecisionSource::User,
            ApprovalScope::Always
        )
    );
    let text = lines.join("\n");
    assert!(
        text.contains(
            "always:     would allow `write_file` of the MCP server `files` (mcp-server-filesystem /w) in every task, until revoked"
        ),
        "{text}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("Type y, s, a or n."))
            .count(),
        2,
        "Enter and `x` answer nothing: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t_moves_to_the_trash_only_when_offered() {
    let desk = desk(|_| {}).await;
    let (decision, lines) = ask(&desk, Cursor::new("t\n"), true, true).await;
    assert_eq!(decision.decision, Decision::Trash, "{lines:?}");
    // A fresh runtime: the first one's script is used up.
    let desk = self::desk(|_| {}).await;
    let (decision, lines) = ask(&desk, Cursor::new("t\nn\n"), true, false).await;
    assert_eq!(decision.decision, Decision::Deny);
    assert!(
        lines.iter().any(|l| l.contains("Type y or n.")),
        "{lines:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_terminal_a_law1_request_is_denied_and_stdin_is_not_read() {
    let desk = desk(|_| {}).await;
    let (decision, lines) = ask(&desk, Cursor::new("y\n"), false, true).await;
    assert_eq!(
        (decision.decision, decision.source),
        (Decision::Deny, DecisionSource::NonInteractive)
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("denied `rm /tmp/artoo-cli-test/old.log`")
                && l.contains("not an interactive terminal")),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("Approve?")),
        "no prompt without a terminal"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_input_at_a_law1_prompt_denies() {
    let desk = desk(|_| {}).await;
    let (decision, _) = ask(&desk, Cursor::new(""), true, false).await;
    assert_eq!(decision.decision, Decision::Deny);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_request_expires_as_a_denial_and_the_prompt_says_so() {
    let desk = desk(|c| c.laws.confirm_timeout_secs = 1).await;
    let (decision, lines) = ask(&desk, BufReader::new(Silent), true, false).await;
    assert_eq!(
        (decision.decision, decision.source),
        (Decision::Deny, DecisionSource::Timeout)
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("closed before you answered; it was denied")),
        "{lines:?}"
    );
}
