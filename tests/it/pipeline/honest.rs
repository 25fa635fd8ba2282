//! Law 0 through the whole runtime: an answer is matched only on what the tools showed,
//! and D weighs a plausible criterion by how consistently it failed across attempts.

use artoo::contracts::{
    Message, MessageKind, Role, SubTaskOutcome, SubTaskStatus, TerminalDirective,
};
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{
    GRACEFUL_FAILURE_REQUEST, Sub, call, finish, next_moves, plan_for, task, verdicts,
};
use super::{Stage, final_result, mentions};

const COUNT: &str = "the output states the number of .txt files";
const INTENT: &str = "Count the .txt files in the workspace";

fn outcome(stage: &Stage, task: &artoo::contracts::TaskId) -> SubTaskOutcome {
    let outcomes = stage.all(task, super::pick!(Message::SubTaskOutcome));
    assert_eq!(outcomes.len(), 1, "{}", stage.transcript().join("\n"));
    outcomes[0].clone()
}

/// The counting task, perceived and planned as one sub-task; each test scripts the
/// executor and the validator.
fn counting() -> Script {
    Script::new()
        .role(Role::Perceiver, [Step::reply(task(INTENT))])
        .role(
            Role::Planner,
            [Step::reply(plan_for(
                "number",
                &[],
                &[Sub::new(1, INTENT, &[COUNT])],
            ))],
        )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_count_without_a_look_or_from_a_failed_command_is_not_matched_however_the_model_judges() {
    // The validator's model passes every attempt; code decides what counts.
    let script = counting()
        .role(
            Role::Executor,
            [
                // Attempt 1: an answer with no call, claimed twice (the executor pushes
                // back once, then sends it as uncertain).
                Step::reply(finish("completed", "There are 5 .txt files.", "Counted.")),
                Step::reply(finish("completed", "There are 5 .txt files.", "Counted.")),
                // Attempt 2: a command that prints part of a listing and then fails,
                // and the same claim twice (it backs nothing, so the executor pushes back).
                Step::reply(call("shell", json!({"command": "ls -1 a.txt nothere.txt"}))),
                Step::reply(finish("completed", "There is 1 .txt file.", "Listed them.")),
                Step::reply(finish("completed", "There is 1 .txt file.", "Listed them.")),
                // Attempt 3: a listing that works.
                Step::reply(call("shell", json!({"command": "ls -1 *.txt"}))),
                Step::reply(finish(
                    "completed",
                    "There are 2 .txt files.",
                    "Listed them.",
                )),
            ],
        )
        .role(
            Role::AgentValidator,
            [
                Step::reply(verdicts(&[(COUNT, true, "the report says 5")])),
                Step::reply(verdicts(&[(COUNT, true, "the report says 1")])),
                Step::reply(verdicts(&[(COUNT, true, "ls printed 2 names")])),
            ],
        );
    let mut stage = Stage::configured(script, |c| c.budgets.max_retries = 2).await;
    for f in ["a.txt", "b.txt"] {
        std::fs::write(stage.workspace.join(f), "x").expect("write");
    }
    let (task, end) = stage.run("how many txt files are in my workspace?").await;
    let result = final_result(&end);
    stage.settle().await;

    let o = outcome(&stage, &task);
    assert_eq!(o.status, SubTaskStatus::Matched, "{o:?}");
    assert_eq!(o.gap_trajectory.len(), 3, "{:?}", o.gap_trajectory);
    assert_eq!(o.gap_trajectory[0].unmet_criteria, [COUNT], "no look");
    assert_eq!(
        o.gap_trajectory[1].unmet_criteria,
        [COUNT],
        "a failed command"
    );
    assert!(o.gap_trajectory[2].unmet_criteria.is_empty());

    let corrections = stage.all(&task, super::pick!(Message::CorrectionSignal));
    assert_eq!(corrections.len(), 2, "{}", stage.transcript().join("\n"));
    assert!(
        corrections[0].what_was_wrong.contains("5 .txt"),
        "the claim is named: {}",
        corrections[0].what_was_wrong
    );

    // The second attempt's call ran, and the validator was shown that it failed.
    let r4a = stage.server.requests_from(Role::AgentValidator);
    assert_eq!(r4a.len(), 3);
    assert!(
        mentions(&r4a[1], "FAILED with exit status 2"),
        "the judge sees the failed exit"
    );
    let second = &corrections[1];
    assert_eq!(second.attempt_number, 2);
    assert!(
        second
            .calls_to_avoid
            .iter()
            .all(|c| c.failed_exit.is_some()),
        "{:?}",
        second.calls_to_avoid
    );

    assert_ne!(result.directive, TerminalDirective::Abandon, "{result:?}");
    assert_eq!(result.output, json!("There are 2 .txt files."));
    assert!(
        !result.summary.contains("Not verified"),
        "2 is the count of the listing: {}",
        result.summary
    );
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}

const QUOTES: &str = "the output quotes the first line of notes.txt";
const FRIENDLY: &str = "the description reads as friendly";
const DESCRIBE: &str = "Describe notes.txt in one friendly sentence";

/// One sub-task with a verifiable and a plausible criterion, two attempts, no replan:
/// the verifiable one fails both times; the plausible one fails as `friendly` says.
fn describe(friendly: [bool; 2]) -> Script {
    let plan = json!({
        "subtasks": [{
            "context": "",
            "intent": DESCRIBE,
            "sequence": 1,
            "success_criteria": [
                {"criterion": QUOTES, "mode": "verifiable"},
                {"criterion": FRIENDLY, "mode": "plausible"},
            ],
            "tools": ["read_file"],
        }],
        "task_criteria": [],
    })
    .to_string();
    let read = call("read_file", json!({"path": "notes.txt"}));
    let described = finish("completed", "A note about groceries.", "Described it.");
    Script::new()
        .role(Role::Perceiver, [Step::reply(task(DESCRIBE))])
        .role(
            Role::Planner,
            [
                Step::reply(next_moves(&["Say which line to quote."]))
                    .when(GRACEFUL_FAILURE_REQUEST),
                Step::reply(plan),
            ],
        )
        .role(
            Role::Executor,
            [
                Step::reply(read.clone()),
                Step::reply(described.clone()),
                Step::reply(read),
                Step::reply(described),
            ],
        )
        .role(
            Role::AgentValidator,
            friendly.map(|met| {
                Step::reply(verdicts(&[
                    (QUOTES, false, "no line of the file is quoted"),
                    (FRIENDLY, met, "the tone of the sentence"),
                ]))
            }),
        )
}

async fn describe_d(friendly: [bool; 2]) -> (f64, SubTaskOutcome) {
    let mut stage = Stage::configured(describe(friendly), |c| {
        c.budgets.max_retries = 1;
        c.budgets.max_replans = 0;
    })
    .await;
    std::fs::write(stage.workspace.join("notes.txt"), "milk\neggs\n").expect("notes");
    let (task, end) = stage.run("describe notes.txt in a friendly way").await;
    let result = final_result(&end);
    stage.settle().await;
    assert_eq!(result.directive, TerminalDirective::Abandon, "{result:?}");
    let o = outcome(&stage, &task);
    stage.stop().await;
    (result.loss.d, o)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plausible_criterion_failing_every_attempt_weighs_more_than_one_that_varies() {
    let (consistent, o) = describe_d([false, false]).await;
    assert_eq!(o.failure_count(FRIENDLY), (2, 2));
    let (varying, o) = describe_d([true, false]).await;
    assert_eq!(o.failure_count(FRIENDLY), (1, 2));
    // Both end with the same verdicts (QUOTES and FRIENDLY unmet) and the same task
    // criterion nobody judged (R4b's code gate fired; the plan named none, so it is the
    // task's intent). The verifiable criterion and the unjudged one weigh 1 each; the
    // plausible one k/N: 2/2 when it failed both times, 1/2 when it passed once.
    // D = (1 + k/N + 1) / 3.
    assert!((consistent - 1.0).abs() < 1e-9, "{consistent}");
    assert!((varying - 2.5 / 3.0).abs() < 1e-9, "{varying}");
    assert!(consistent > varying);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_count_the_tool_did_not_print_is_not_matched_and_the_retry_reads_it_right() {
    let count = call("shell", json!({"command": "ls -1 *.txt | wc -l"}));
    let script = counting()
        .role(
            Role::Executor,
            [
                // wc prints 2; the model says 3, and again when told no result shows it.
                Step::reply(count),
                Step::reply(finish("completed", "3", "Counted.")),
                Step::reply(finish("completed", "3", "Counted.")),
                // After the correction it lists the files and counts them right.
                Step::reply(call("shell", json!({"command": "ls -1 *.txt"}))),
                Step::reply(finish("completed", "2", "Counted.")),
            ],
        )
        .role(
            Role::AgentValidator,
            [
                Step::reply(verdicts(&[(COUNT, true, "the report says 3")])),
                Step::reply(verdicts(&[(COUNT, true, "[1] printed 2")])),
            ],
        );
    let mut stage = Stage::new(script).await;
    for f in ["a.txt", "b.txt"] {
        std::fs::write(stage.workspace.join(f), "x").expect("write");
    }
    let (task, end) = stage.run("how many txt files are in my workspace?").await;
    let result = final_result(&end);
    stage.settle().await;

    let corrections = stage.all(&task, super::pick!(Message::CorrectionSignal));
    assert_eq!(corrections.len(), 1, "{}", stage.transcript().join("\n"));
    assert!(
        corrections[0].what_was_wrong.contains("states 3")
            && corrections[0].what_was_wrong.contains("printed: 2"),
        "{}",
        corrections[0].what_was_wrong
    );
    assert_ne!(result.directive, TerminalDirective::Abandon, "{result:?}");
    assert_eq!(result.output, json!("2"));
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}
