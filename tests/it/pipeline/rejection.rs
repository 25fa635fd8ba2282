//! The medium loop through the whole hierarchy: R4b rejecting outputs every sub-task
//! matched sends GGS a ReplanRequest and starts a second round, and a spent replan budget
//! ends in an honest graceful failure.

use artoo::contracts::{Message, MessageKind, ReplanDirective, Role, TerminalDirective, Verdict};
use artoo::testkit::{Script, Step};
use artoo::tools::ToolName;
use serde_json::json;

use super::replies::{
    GRACEFUL_FAILURE_REQUEST, Sub, call, finish, merge, next_moves, plan, task, verdicts,
};
use super::{Stage, final_result, mentions};

/// Rounds dispatched: R2 sends each round's manifest to R4b once.
/// One manifest envelope per round.
fn rounds(stage: &Stage, task: &artoo::contracts::TaskId) -> usize {
    stage.of(task, MessageKind::DispatchManifest).len()
}

const CRITERION: &str = "the output lists the .log files";
const TASK_CRITERION: &str = "the answer names every .log file with its size";
/// R3's own earlier call, as its next turn sees it: the attempt has run its tool.
const SHELL_CALLED: &str = r#""tool":"shell""#;
const GLOB_CALLED: &str = r#""tool":"glob""#;
const MOVES: [&str; 2] = [
    "Ask for the sizes with `ls -l` yourself.",
    "Name the folder that holds the logs.",
];

fn r4b_rejects() -> Step {
    Step::reply(merge(
        json!({"files": ["a.log"]}),
        &[(TASK_CRITERION, false, "no sizes are given")],
        "Lists a.log but gives no size.",
    ))
}

fn r4b_accepts() -> Step {
    Step::reply(merge(
        json!({"files": [{"name": "a.log", "bytes": 3}]}),
        &[(TASK_CRITERION, true, "a.log: 3 bytes")],
        "a.log, 3 bytes.",
    ))
}

/// A one-sub-task task whose rounds all match at R4a; R4b answers `r4b` in order.
fn script(r4b: impl IntoIterator<Item = Step>) -> Script {
    Script::new()
        .role(
            Role::Perceiver,
            [Step::reply(task("List the .log files with sizes"))],
        )
        .role(
            Role::Planner,
            [
                Step::reply(next_moves(&MOVES)).when(GRACEFUL_FAILURE_REQUEST),
                Step::reply(plan(
                    &[TASK_CRITERION],
                    &[Sub::new(1, "List the .log files", &[CRITERION])],
                )),
                // A replan after a rejection must change the approach (break_symmetry):
                // the same tool set again is re-asked, a new one is taken.
                Step::reply(plan(
                    &[TASK_CRITERION],
                    &[Sub::new(1, "List the .log files again", &[CRITERION])],
                )),
                Step::reply(plan(
                    &[TASK_CRITERION],
                    &[
                        Sub::new(1, "Find the .log files by pattern", &[CRITERION])
                            .tools(&["glob"]),
                    ],
                )),
            ],
        )
        .role(
            Role::Executor,
            [
                Step::reply(finish("completed", "a.log", "Listed the logs.")).when(SHELL_CALLED),
                Step::reply(call("shell", json!({ "command": "ls -1 *.log" })))
                    .when("List the .log files"),
                Step::reply(finish("completed", "a.log", "Found the logs.")).when(GLOB_CALLED),
                Step::reply(call("glob", json!({ "pattern": "*.log" })))
                    .when("Find the .log files by pattern"),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(
                CRITERION,
                true,
                "ls printed a.log",
            )]))],
        )
        .role(Role::MetaValidator, r4b)
        .cycle()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r4b_rejecting_all_matched_outputs_starts_a_second_round_not_a_success() {
    let mut stage = Stage::new(script([r4b_rejects(), r4b_accepts()])).await;
    std::fs::write(stage.workspace.join("a.log"), "abc").expect("write");
    let (task, end) = stage.run("list my log files with their sizes").await;
    let result = final_result(&end);
    stage.settle().await;

    let replans = stage.of(&task, MessageKind::ReplanRequest);
    assert_eq!(replans.len(), 1, "{}", stage.transcript().join("\n"));
    assert_eq!(replans[0].to, Role::Ggs);
    let Message::ReplanRequest(r) = &replans[0].message else {
        unreachable!()
    };
    assert!(r.failed_outcomes.is_empty(), "every sub-task had matched");
    assert_eq!(r.matched_outcomes.len(), 1);
    let verdict = r
        .task_criteria_verdicts
        .iter()
        .find(|v| v.criterion == TASK_CRITERION)
        .expect("R4b's verdict travels to GGS");
    assert_eq!(verdict.verdict, Verdict::Fail);

    assert_eq!(stage.count(&task, MessageKind::PlanDirective), 1);
    assert_eq!(
        rounds(&stage, &task),
        2,
        "{result:?}\n{}",
        stage.transcript().join("\n")
    );
    let directives = stage.of(&task, MessageKind::PlanDirective);
    let Message::PlanDirective(d) = &directives[0].message else {
        unreachable!()
    };
    assert_eq!(
        d.directive,
        ReplanDirective::BreakSymmetry,
        "a rejected whole result asks for a new approach: {d:?}"
    );
    assert!(
        d.blocked_tools.iter().any(|t| *t == ToolName::Shell),
        "{d:?}"
    );
    let r2 = stage.server.requests_from(Role::Planner);
    assert_eq!(r2.len(), 3, "a plan, a replan, one re-ask");
    assert!(
        mentions(&r2[2], "same tool set"),
        "the validator re-asked the replan that repeated the tool set"
    );
    assert_eq!(stage.llm_calls(&task, Role::MetaValidator), 2);
    assert_eq!(result.replans, 1);
    assert_ne!(result.directive, TerminalDirective::Abandon, "{result:?}");
    // The lone sub-task's output is glob's whole output copied (two lines), so the
    // accepted round's merge states it; the rejected round's merge had no sizes.
    assert_eq!(
        result.output,
        json!({"files": [{"name": "a.log", "bytes": 3}]}),
        "the result is the accepted round's, never the rejected one's"
    );
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spent_replan_budget_ends_in_an_honest_graceful_failure() {
    let mut stage = Stage::configured(script([r4b_rejects()]), |c| {
        c.budgets.max_replans = 1;
    })
    .await;
    std::fs::write(stage.workspace.join("a.log"), "abc").expect("write");
    let (task, end) = stage.run("list my log files with their sizes").await;
    let result = final_result(&end);
    stage.settle().await;
    assert_eq!(result.directive, TerminalDirective::Abandon, "{result:?}");
    assert!(
        result.output.is_null(),
        "a rejected output is not passed off"
    );
    assert_eq!(result.next_moves, MOVES, "R2's next moves reach the user");
    assert_eq!(result.replans, 1, "{result:?}");
    assert_eq!(rounds(&stage, &task), 2, "one replan, then no more rounds");
    assert_eq!(stage.count(&task, MessageKind::GracefulFailureRequest), 1);
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    let kinds = stage.kinds(&task);
    let last_final = kinds
        .iter()
        .rposition(|k| *k == MessageKind::FinalResult)
        .expect("final");
    assert!(
        !kinds[last_final..].contains(&MessageKind::SubTask),
        "nothing ran after the end"
    );
    stage.stop().await;
}
