//! Scenarios of the whole hierarchy, one per line of issue #8's "Done when".

use std::time::{Duration, Instant};

use artoo::contracts::{Message, MessageKind, Role, TerminalDirective, ToolCallStatus};
use artoo::runtime::TaskEnd;
use artoo::testkit::{Script, ScriptedServer, Step};
use serde_json::json;

use super::replies::{Sub, call, counting_three_files, perception, plan};
use super::{Stage, final_result, pick};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_greeting_takes_the_conversational_fast_path_with_one_model_call() {
    let script = Script::new().role(
        Role::Perceiver,
        [Step::reply(
            "Hello! I'm artoo. I can find, read and write files for you.",
        )],
    );
    let mut stage = Stage::new(script).await;
    let (task, end) = stage.run("hello").await;
    assert!(
        matches!(&end, TaskEnd::Chat(a) if a.contains("I'm artoo")),
        "{end:?}"
    );
    stage.settle().await;
    assert_eq!(stage.llm_calls(&task, Role::Perceiver), 1);
    assert_eq!(
        stage.server.requests().len(),
        1,
        "no role but R1 called the model"
    );
    assert_eq!(stage.count(&task, MessageKind::TaskSpec), 0);
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 0);
    assert_eq!(
        stage
            .runtime
            .session_history()
            .last()
            .map(|t| t.input.as_str()),
        Some("hello"),
        "the exchange joins the session history"
    );
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_history_reaches_r1_with_the_next_task() {
    let script = Script::new().role(
        Role::Perceiver,
        [
            Step::reply("Hello! I'm artoo."),
            Step::reply("You said hello a moment ago."),
        ],
    );
    let mut stage = Stage::new(script).await;
    stage.run("hello").await;
    let (task, _) = stage.run("hi again").await;
    let submitted = stage.of(&task, MessageKind::TaskSubmitted);
    let artoo::contracts::Message::TaskSubmitted(s) = &submitted[0].message else {
        unreachable!()
    };
    assert_eq!(s.session_history.len(), 1);
    assert_eq!(s.session_history[0].input, "hello");
    assert_eq!(s.session_history[0].summary, "Hello! I'm artoo.");
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_endpoint_ends_in_one_honest_abandon() {
    // A port nothing listens on: every call fails at connect.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", closed.local_addr().expect("addr"));
    drop(closed);
    let server = ScriptedServer::start(Script::new()).await.expect("server");
    let mut stage = Stage::start(server, &url, |c| {
        c.llm.max_attempts = 1;
    })
    .await;
    let (task, end) = stage.run("count the files in my workspace").await;
    let result = final_result(&end);
    assert_eq!(result.directive, TerminalDirective::Abandon);
    assert!(result.output.is_null(), "an abandon carries no output");
    assert!(!result.next_moves.is_empty(), "the user gets next moves");
    stage.settle().await;
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    assert_eq!(stage.count(&task, MessageKind::PlanningFailed), 1);
    assert_eq!(
        stage.count(&task, MessageKind::DispatchManifest),
        0,
        "nothing was planned, so nothing ran"
    );
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planner_that_never_answers_validly_is_an_honest_abandon_not_a_hang() {
    let task_spec = perception("task", "Count the files in the workspace", None, None);
    let script = Script::new()
        .role(Role::Perceiver, [Step::reply(task_spec)])
        .role(Role::Planner, [Step::reply("I think you should use ls.")])
        .cycle();
    let mut stage = Stage::new(script).await;
    let (task, end) = stage.run("count the files in my workspace").await;
    let result = final_result(&end);
    assert_eq!(result.directive, TerminalDirective::Abandon);
    stage.settle().await;
    assert_eq!(stage.count(&task, MessageKind::PlanningFailed), 1);
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    assert_eq!(stage.count(&task, MessageKind::SubTask), 0);
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clarifying_question_is_answered_through_the_runtime() {
    let script = Script::new().role(
        Role::Perceiver,
        [
            Step::reply(perception(
                "clarify",
                "Tell the user about it",
                Some("What would you like to know about?"),
                None,
            )),
            Step::reply(perception(
                "chat",
                "Explain what artoo is",
                None,
                Some("artoo runs tasks on your computer with a team of model roles."),
            )),
        ],
    );
    let mut stage = Stage::new(script).await;
    let task = stage.runtime.submit("tell me about it").expect("submitted");
    let asked = stage.of(&task, MessageKind::ClarificationRequest);
    if asked.is_empty() {
        let t = task.clone();
        stage
            .until("the question", move |seen| {
                seen.iter().any(|e| {
                    e.message.kind() == MessageKind::ClarificationRequest
                        && e.task_id.as_ref() == Some(&t)
                })
            })
            .await;
    }
    stage
        .runtime
        .answer_clarification(&task, "about artoo itself")
        .await
        .expect("the question is open");
    let end = stage.finish(&task).await;
    assert!(
        matches!(&end, TaskEnd::Chat(a) if a.contains("team of model roles")),
        "{end:?}"
    );
    let second = &stage.server.requests_from(Role::Perceiver)[1];
    assert!(
        second
            .messages()
            .iter()
            .any(|(_, text)| text.contains("about artoo itself")),
        "R1's second call carries the answer"
    );
    assert!(
        stage
            .runtime
            .answer_clarification(&task, "again")
            .await
            .is_err(),
        "an answered question cannot be answered twice"
    );
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_mid_task_stops_it_and_nothing_of_it_starts_afterwards() {
    let task_spec = perception("task", "Count the files in the workspace", None, None);
    let script = Script::new()
        .role(Role::Perceiver, [Step::reply(task_spec)])
        .role(Role::Planner, [Step::hang()]);
    let mut stage = Stage::new(script).await;
    let task = stage
        .runtime
        .submit("count the files in my workspace")
        .expect("submitted");
    // R2's call hangs (R1 makes none: the request names its folder, with no history).
    stage.server.wait_for_requests(1).await;
    assert!(
        stage
            .runtime
            .cancel(&task, "the user pressed cancel")
            .expect("known task")
    );
    assert_eq!(stage.finish(&task).await, TaskEnd::Cancelled);
    assert!(
        !stage.runtime.cancel(&task, "again").expect("known task"),
        "a cancelled task cannot be cancelled again"
    );
    stage.settle().await;
    assert_nothing_after_the_cancel(&stage, &task);
    stage.stop().await;
}

/// A command no other test runs, to find its process.
const LONG_COMMAND: &str = "sleep 20.4242";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_while_r3_runs_a_tool_stops_the_command_and_nothing_of_the_task_follows() {
    const INTENT: &str = "Count the files in the workspace";
    const CRITERION: &str = "the output states the number of files";
    let script = Script::new()
        .role(
            Role::Perceiver,
            [Step::reply(perception("task", INTENT, None, None))],
        )
        .role(
            Role::Planner,
            [Step::reply(plan(
                &["the answer gives the number of files"],
                &[Sub::new(1, INTENT, &[CRITERION])],
            ))],
        )
        .role(
            Role::Executor,
            [
                Step::reply(call("shell", json!({ "command": "ls -1" }))),
                Step::reply(call("shell", json!({ "command": LONG_COMMAND }))),
            ],
        );
    let mut stage = Stage::new(script).await;
    let task = stage
        .runtime
        .submit("how many files are in my workspace?")
        .expect("submitted");
    let t = task.clone();
    stage
        .until("the first tool call", move |seen| {
            seen.iter().any(|e| {
                e.message.kind() == MessageKind::ToolCallEvent && e.task_id.as_ref() == Some(&t)
            })
        })
        .await;
    // R3 asked for the long command: wait until its process runs.
    let started = Instant::now();
    while !process_running(LONG_COMMAND) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the long command never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cancelled_at = Instant::now();
    assert!(
        stage
            .runtime
            .cancel(&task, "the user pressed cancel")
            .expect("known task")
    );
    assert_eq!(stage.finish(&task).await, TaskEnd::Cancelled);
    assert!(
        cancelled_at.elapsed() < Duration::from_secs(5),
        "the running tool held the cancel for {:?}",
        cancelled_at.elapsed()
    );
    stage.settle().await;
    assert_nothing_after_the_cancel(&stage, &task);
    let events = stage.all(&task, pick!(Message::ToolCallEvent));
    assert_eq!(events.len(), 1, "only the finished first call reported");
    assert_eq!(events[0].record.status, ToolCallStatus::Ok);
    assert_eq!(stage.count(&task, MessageKind::ExecutionResult), 0);
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 0);
    assert_eq!(stage.server.requests_from(Role::Executor).len(), 2);
    let gone = Instant::now();
    while process_running(LONG_COMMAND) {
        assert!(
            gone.elapsed() < Duration::from_secs(5),
            "the command's process outlived the cancel"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stage.stop().await;
}

/// The task's last message is its TaskClosed, and the runtime runs nothing.
fn assert_nothing_after_the_cancel(stage: &Stage, task: &artoo::contracts::TaskId) {
    let kinds = stage.kinds(task);
    let at = kinds
        .iter()
        .position(|k| *k == MessageKind::TaskClosed)
        .expect("TaskClosed on the bus");
    assert!(
        kinds[at + 1..].is_empty(),
        "nothing of the task after the cancel: {:?}",
        &kinds[at + 1..]
    );
    assert!(stage.runtime.running_tasks().is_empty());
}

/// Whether a live (not zombie) process's command line contains `command`.
fn process_running(command: &str) -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return false;
    };
    procs.flatten().any(|p| {
        let live = std::fs::read_to_string(p.path().join("stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
        });
        live && std::fs::read(p.path().join("cmdline")).is_ok_and(|raw| {
            String::from_utf8_lossy(&raw)
                .replace('\0', " ")
                .contains(command)
        })
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_subtask_happy_path_takes_exactly_the_minimum_model_calls() {
    // R1 needs no model call: the request names its folder and there is no history.
    let script = counting_three_files(Script::new());
    let mut stage = Stage::new(script).await;
    for f in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(stage.workspace.join(f), "x").expect("write");
    }
    let (task, _) = stage
        .run_to_result("how many files are in my workspace?")
        .await;
    for (role, n) in [
        (Role::Perceiver, 0),
        (Role::Planner, 1),
        (Role::Executor, 2),
        (Role::AgentValidator, 1),
        (Role::MetaValidator, 1),
    ] {
        assert_eq!(stage.llm_calls(&task, role), n, "{role}");
    }
    // One fact, one envelope: the plan is one manifest with the sub-task inside, and
    // the sub-task travels once more only as its release to R3 (R4a hears that one).
    assert_eq!(stage.count(&task, MessageKind::DispatchManifest), 1);
    assert_eq!(stage.count(&task, MessageKind::SubTask), 1);
    // The end is announced to every role once, after the result.
    let closes = stage.all(&task, pick!(Message::TaskClosed));
    assert_eq!(closes.len(), 1);
    assert_eq!(closes[0].end, artoo::contracts::TaskClosure::Finished);
    let kinds = stage.kinds(&task);
    let closed_at = kinds.iter().position(|k| *k == MessageKind::TaskClosed);
    let result_at = kinds.iter().position(|k| *k == MessageKind::FinalResult);
    assert!(closed_at > result_at, "{kinds:?}");
    stage
        .runtime
        .flush_task_log()
        .await
        .expect("the task log flushes");
    let log = stage.runtime.task_logs();
    let run = log
        .latest_of(&task)
        .expect("the task log reads")
        .expect("the run was logged");
    let summary = log
        .summary(&run.run_id)
        .expect("the summary reads")
        .expect("the run has a summary");
    assert_eq!(summary.rounds, 1, "{summary:?}");
    let trajectory = run.trajectory();
    assert_eq!(trajectory.rounds.len(), 1);
    assert_eq!(trajectory.rounds[0].subtasks.len(), 1);
    stage.stop().await;
}
