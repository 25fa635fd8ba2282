//! The fast loop (R3 ⇄ R4a) and the dispatcher through the whole hierarchy: a correction
//! then a match, an infrastructure failure that is never retried, and sequence groups.

use artoo::contracts::{Message, MessageKind, Role, SubTaskStatus, TerminalDirective};
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{Sub, call, finish, judgement, merge, plan, task, verdicts};
use super::{Stage, final_result, mentions};

const COUNT: &str = "the output states the number of .txt files";
const TASK_COUNT: &str = "the answer gives the number of .txt files";
const REMEDY: &str = "Run `ls -1 *.txt | wc -l` and report the number it prints.";

fn count_task() -> [Step; 1] {
    [Step::reply(task("Count the .txt files in the workspace"))]
}

fn count_plan() -> [Step; 1] {
    [Step::reply(plan(
        &[TASK_COUNT],
        &[Sub::new(
            1,
            "Count the .txt files in the workspace",
            &[COUNT],
        )],
    ))]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_attempt_gets_a_correction_and_the_second_attempt_matches() {
    let script = Script::new()
        .role(Role::Perceiver, count_task())
        .role(Role::Planner, count_plan())
        .role(
            Role::Executor,
            [
                Step::reply(call("shell", json!({"command": "ls -1"}))),
                Step::reply(finish("completed", "a.txt b.txt", "Listed the files.")),
                Step::reply(call("shell", json!({"command": "ls -1 *.txt | wc -l"}))),
                Step::reply(finish("completed", "2", "There are 2 .txt files.")),
            ],
        )
        .role(
            Role::AgentValidator,
            [
                Step::reply(judgement(
                    &[(COUNT, false, "the output lists names, not a number")],
                    "The output is a list of names; no number was reported.",
                    REMEDY,
                )),
                Step::reply(verdicts(&[(COUNT, true, "wc -l printed 2")])),
            ],
        )
        .role(
            Role::MetaValidator,
            [Step::reply(merge(
                json!({"txt_files": 2}),
                &[(TASK_COUNT, true, "txt_files: 2")],
                "The workspace holds 2 .txt files.",
            ))],
        );
    let mut stage = Stage::new(script).await;
    for f in ["a.txt", "b.txt"] {
        std::fs::write(stage.workspace.join(f), "x").expect("write");
    }
    // Worded without a question's opening: "how many" would fix the answer's shape as a
    // number, and R3 would then send the list of names back itself, before R4a sees it.
    let (task, end) = stage.run("count the txt files in my workspace").await;
    let result = final_result(&end);
    stage.settle().await;
    assert_ne!(result.directive, TerminalDirective::Abandon, "{result:?}");
    assert_eq!(result.output, json!("2"));
    assert_eq!(result.replans, 0, "the fast loop fixed it without a replan");

    let corrections = stage.of(&task, MessageKind::CorrectionSignal);
    assert_eq!(corrections.len(), 1, "{}", stage.transcript().join("\n"));
    let Message::CorrectionSignal(c) = &corrections[0].message else {
        unreachable!()
    };
    assert_eq!(c.attempt_number, 1);
    assert_eq!(c.failed_criterion, COUNT);
    assert_eq!(c.what_to_do, REMEDY);
    assert_eq!(corrections[0].to, Role::Executor);

    let outcomes = stage.of(&task, MessageKind::SubTaskOutcome);
    assert_eq!(outcomes.len(), 1);
    let Message::SubTaskOutcome(o) = &outcomes[0].message else {
        unreachable!()
    };
    assert_eq!(o.status, SubTaskStatus::Matched);
    assert_eq!(o.gap_trajectory.len(), 2, "{:?}", o.gap_trajectory);
    assert_eq!(o.gap_trajectory[0].unmet_criteria, [COUNT]);
    assert!(o.gap_trajectory[1].unmet_criteria.is_empty());
    assert!(o.gap_trajectory[0].score < o.gap_trajectory[1].score);

    let r3 = stage.server.requests_from(Role::Executor);
    assert_eq!(r3.len(), 4);
    assert!(
        !mentions(&r3[0], REMEDY),
        "the first attempt had no correction"
    );
    assert!(
        mentions(&r3[2], REMEDY),
        "the second attempt carries what_to_do"
    );
    assert_eq!(stage.llm_calls(&task, Role::AgentValidator), 2);
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_r4a_endpoint_failing_with_500_fails_the_subtask_at_once_without_a_retry() {
    let script = Script::new()
        .role(Role::Perceiver, count_task())
        .role(Role::Planner, count_plan())
        .role(
            Role::Executor,
            [
                Step::reply(call("shell", json!({"command": "ls -1 *.txt | wc -l"}))),
                Step::reply(finish("completed", "2", "There are 2 .txt files.")),
            ],
        )
        .role(
            Role::AgentValidator,
            [
                Step::http_error(500),
                Step::http_error(500),
                Step::http_error(500),
            ],
        );
    let mut stage = Stage::configured(script, |c| {
        c.llm.max_attempts = 2;
        c.llm.retry_base_ms = 1;
    })
    .await;
    for f in ["a.txt", "b.txt"] {
        std::fs::write(stage.workspace.join(f), "x").expect("write");
    }
    let (task, end) = stage.run("how many txt files are in my workspace?").await;
    let result = final_result(&end);
    stage.settle().await;
    assert_eq!(result.directive, TerminalDirective::Abandon, "{result:?}");
    assert!(result.output.is_null());
    assert_eq!(
        stage.count(&task, MessageKind::CorrectionSignal),
        0,
        "an infrastructure failure is not retried"
    );
    let outcomes = stage.of(&task, MessageKind::SubTaskOutcome);
    let Message::SubTaskOutcome(o) = &outcomes[0].message else {
        unreachable!()
    };
    assert_eq!(o.status, SubTaskStatus::Failed);
    assert_eq!(o.gap_trajectory.len(), 1, "one attempt only");
    assert!(o.failure_reason.is_some());
    assert_eq!(
        stage.server.requests_from(Role::Executor).len(),
        2,
        "R3 ran one attempt"
    );
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}

const TXT: &str = "Count the .txt files";
const MD: &str = "Count the .md files";
const REPORT: &str = "Report both counts together";
const TXT_CRIT: &str = "the output gives the .txt count";
const MD_CRIT: &str = "the output gives the .md count";
const REPORT_CRIT: &str = "the output names both counts";
const TASK_BOTH: &str = "the answer gives both counts";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parallel_group_runs_first_and_its_outputs_reach_the_dependent_group() {
    let script = Script::new()
        .role(
            Role::Perceiver,
            [Step::reply(task(
                "Count .txt and .md files and report both",
            ))],
        )
        .role(
            Role::Planner,
            [Step::reply(plan(
                &[TASK_BOTH],
                &[
                    Sub::new(1, TXT, &[TXT_CRIT]),
                    Sub::new(1, MD, &[MD_CRIT]),
                    Sub::new(2, REPORT, &[REPORT_CRIT])
                        .context("use the counts of the earlier steps")
                        .tools(&["shell"]),
                ],
            ))],
        )
        // The report's steps first: its request also quotes the earlier outputs.
        .role(
            Role::Executor,
            [
                Step::reply(finish(
                    "completed",
                    "txt: 2, md: 1",
                    "Reported both counts from the context.",
                ))
                .when("REPORT_MARK"),
                Step::reply(call("shell", json!({"command": "echo REPORT_MARK"}))).when(REPORT),
                Step::reply(finish("completed", "TXT_TOTAL 2", "2 .txt files.")).when("TXT_MARK"),
                Step::reply(call("shell", json!({"command": "echo TXT_MARK; ls *.txt"}))).when(TXT),
                Step::reply(finish("completed", "MD_TOTAL 1", "1 .md file.")).when("MD_MARK"),
                Step::reply(call("shell", json!({"command": "echo MD_MARK; ls *.md"}))).when(MD),
            ],
        )
        .role(
            Role::AgentValidator,
            [
                Step::reply(verdicts(&[(REPORT_CRIT, true, "txt: 2, md: 1")])).when(REPORT_CRIT),
                Step::reply(verdicts(&[(TXT_CRIT, true, "ls printed 2 names")])).when(TXT_CRIT),
                Step::reply(verdicts(&[(MD_CRIT, true, "ls printed 1 name")])).when(MD_CRIT),
            ],
        )
        .role(
            Role::MetaValidator,
            [Step::reply(merge(
                json!({"txt": 2, "md": 1}),
                &[(TASK_BOTH, true, "txt 2, md 1")],
                "2 .txt files and 1 .md file.",
            ))],
        );
    let mut stage = Stage::new(script).await;
    for f in ["a.txt", "b.txt", "c.md"] {
        std::fs::write(stage.workspace.join(f), "x").expect("write");
    }
    let (task, result) = stage.run_to_result("count my txt and md files").await;
    assert_eq!(result.output, json!({"txt": 2, "md": 1}));

    // Both sub-tasks of group 1 reached R3 before any sub-task closed.
    let positions = |kind: MessageKind, to: Role| -> Vec<usize> {
        stage
            .seen
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.message.kind() == kind && e.to == to && e.task_id.as_ref() == Some(&task)
            })
            .map(|(i, _)| i)
            .collect()
    };
    let to_r3 = positions(MessageKind::SubTask, Role::Executor);
    // A sub-task is closed when R4a replies SubTaskClosed (what the dispatcher waits for);
    // its SubTaskOutcome to R4b follows and may be published after the next group starts.
    let closed = positions(MessageKind::SubTaskClosed, Role::Executor);
    assert_eq!(to_r3.len(), 3);
    assert_eq!(closed.len(), 3);
    assert!(to_r3[1] < closed[0], "group 1 ran in parallel");
    assert!(to_r3[2] > closed[1], "group 2 started after group 1 closed");

    let subtasks = stage.of(&task, MessageKind::SubTask);
    let report = subtasks
        .iter()
        .filter(|e| e.to == Role::Executor)
        .find_map(|e| match &e.message {
            Message::SubTask(s) if s.intent == REPORT => Some(s.clone()),
            _ => None,
        })
        .expect("the report sub-task was dispatched");
    assert_eq!(report.sequence, 2);
    for earlier in ["TXT_TOTAL 2", "MD_TOTAL 1"] {
        assert!(report.context.contains(earlier), "{}", report.context);
    }
    assert!(
        report
            .context
            .contains("use the counts of the earlier steps")
    );
    let r3 = stage.server.requests_from(Role::Executor);
    let report_request = r3
        .iter()
        .find(|r| mentions(r, REPORT))
        .expect("R3 was asked for the report");
    assert!(mentions(report_request, "TXT_TOTAL 2") && mentions(report_request, "MD_TOTAL 1"));
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}
