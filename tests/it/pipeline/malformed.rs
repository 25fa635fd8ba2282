//! Prose where a role's JSON should be: the model layer re-asks once, then the role
//! degrades honestly, and the task still ends in exactly one FinalResult.

use artoo::contracts::{Message, MessageKind, Role, SubTaskStatus, TaskId, TerminalDirective};
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{Sub, call, finish, merge, plan, task, verdicts};
use super::{Stage, final_result, mentions};

const CRITERION: &str = "the output states the number of files";
const TASK_CRITERION: &str = "the answer gives the number of files";
const PROSE: &str = "Sure! I think everything looks fine here, nothing to add.";

/// A one-sub-task task whose `broken` role answers prose twice; no role gets a second
/// round (the script is not cycled, so a replan finds R2's script spent).
fn script(broken: Role) -> Script {
    let prose = || [Step::reply(PROSE), Step::reply(PROSE)];
    let mut script = Script::new()
        .role(Role::Perceiver, [Step::reply(task("Count the files"))])
        .role(
            Role::Planner,
            [Step::reply(plan(
                &[TASK_CRITERION],
                &[Sub::new(1, "Count the files", &[CRITERION])],
            ))],
        );
    script = if broken == Role::Executor {
        script.role(Role::Executor, prose())
    } else {
        script.role(
            Role::Executor,
            [
                Step::reply(call("shell", json!({"command": "ls -1 | wc -l"}))),
                Step::reply(finish("completed", "1", "1 file.")),
            ],
        )
    };
    script = if broken == Role::AgentValidator {
        script.role(Role::AgentValidator, prose())
    } else {
        script.role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(
                CRITERION,
                true,
                "wc -l printed 1",
            )]))],
        )
    };
    if broken == Role::MetaValidator {
        script.role(Role::MetaValidator, prose())
    } else {
        script.role(
            Role::MetaValidator,
            [Step::reply(merge(
                json!({"files": 1}),
                &[(TASK_CRITERION, true, "files: 1")],
                "1 file.",
            ))],
        )
    }
}

/// Runs the task with `broken` answering prose; checks the re-ask and the one ending.
async fn run_broken(broken: Role) -> (Stage, TaskId) {
    let mut stage = Stage::configured(script(broken), |c| {
        c.llm.max_attempts = 1;
    })
    .await;
    std::fs::write(stage.workspace.join("a.txt"), "x").expect("write");
    let (task, end) = stage.run("how many files are in my workspace?").await;
    let result = final_result(&end).clone();
    stage.settle().await;
    let asked = stage.server.requests_from(broken);
    assert_eq!(asked.len(), 2, "{broken}: one ask and one re-ask");
    assert!(
        mentions(&asked[1], PROSE),
        "{broken}: the re-ask quotes the bad reply"
    );
    assert_eq!(
        result.directive,
        TerminalDirective::Abandon,
        "{broken}: {result:?}"
    );
    assert!(result.output.is_null(), "{broken}: no output is invented");
    assert!(!result.next_moves.is_empty());
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    let kinds = stage.kinds(&task);
    let end_at = kinds
        .iter()
        .position(|k| *k == MessageKind::FinalResult)
        .expect("final");
    assert!(
        kinds[end_at + 1..]
            .iter()
            .all(|k| matches!(k, MessageKind::Megram | MessageKind::TaskClosed)),
        "nothing of the task after its end but the memory write and its close: {:?}",
        &kinds[end_at + 1..]
    );
    assert_eq!(stage.count(&task, MessageKind::TaskClosed), 1, "one close");
    (stage, task)
}

fn outcome_status(stage: &Stage, task: &TaskId) -> SubTaskStatus {
    let outcomes = stage.of(task, MessageKind::SubTaskOutcome);
    assert_eq!(outcomes.len(), 1);
    match &outcomes[0].message {
        Message::SubTaskOutcome(o) => o.status,
        _ => unreachable!(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prose_from_r3_is_re_asked_once_then_the_attempt_fails_without_a_tool_call() {
    let (stage, task) = run_broken(Role::Executor).await;
    assert_eq!(stage.count(&task, MessageKind::ToolCallEvent), 0);
    assert_eq!(outcome_status(&stage, &task), SubTaskStatus::Failed);
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prose_from_r4a_is_re_asked_once_then_the_subtask_fails_without_a_correction() {
    let (stage, task) = run_broken(Role::AgentValidator).await;
    assert_eq!(outcome_status(&stage, &task), SubTaskStatus::Failed);
    assert_eq!(
        stage.count(&task, MessageKind::CorrectionSignal),
        0,
        "an unusable verdict is not a reason to redo the work"
    );
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prose_from_r4b_is_re_asked_once_then_a_replan_request_not_a_success() {
    let (stage, task) = run_broken(Role::MetaValidator).await;
    assert_eq!(outcome_status(&stage, &task), SubTaskStatus::Matched);
    assert_eq!(stage.count(&task, MessageKind::ReplanRequest), 1);
    assert_eq!(stage.count(&task, MessageKind::OutcomeSummary), 0);
    stage.stop().await;
}
