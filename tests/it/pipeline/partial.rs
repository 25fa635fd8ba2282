//! A partly run plan is never a success (Law 0). Four parallel look-ups, then "write
//! report.txt": one look-up fails, so the dispatcher halts the report and R4b's code gate
//! rejects the round. What never ran and the task criterion nobody judged count against
//! D, so GGS does not call the round a success, writes no success Megram, and the user
//! is told it was abandoned. The models' answers are the fixture
//! `tests/fixtures/llm/partial_plan.json`.

use artoo::contracts::{MegramOrigin, Message, MessageKind, Role, TerminalDirective};
use artoo::testkit::Script;

use super::{Stage, final_result, pick};

fn script() -> Script {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/llm/partial_plan.json");
    Script::from_file(path).expect("the fixture script parses")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_halted_after_one_failed_look_up_is_abandoned_not_reported_as_success() {
    // No replan budget: the first round's decision is the task's end, as with the
    // success the old distance gave it.
    let mut stage = Stage::configured(script(), |c| {
        c.budgets.max_replans = 0;
        c.budgets.max_retries = 0;
    })
    .await;
    for (name, text) in [("a", "alpha"), ("b", "bravo"), ("c", "charlie")] {
        std::fs::write(stage.workspace.join(format!("{name}.txt")), text).expect("note");
    }
    let (task, end) = stage
        .run("look up my four notes and write report.txt")
        .await;
    let result = final_result(&end);
    stage.settle().await;

    let halted = stage.all(&task, pick!(Message::DispatchHalted));
    assert_eq!(halted.len(), 1, "{}", stage.transcript().join("\n"));
    assert_eq!(halted[0].unrun.len(), 1);
    assert_eq!(
        halted[0].unrun[0].success_criteria[0].criterion,
        "report.txt holds one line per note"
    );

    let replans = stage.all(&task, pick!(Message::ReplanRequest));
    assert_eq!(replans.len(), 1);
    let r = &replans[0];
    assert_eq!(
        (r.failed_outcomes.len(), r.matched_outcomes.len()),
        (1, 3),
        "{}",
        r.gap_summary
    );
    assert_eq!(r.unrun_subtasks.len(), 1, "{r:?}");
    assert_eq!(r.unrun_subtasks[0].subtask_id, halted[0].skipped[0]);
    assert_eq!(
        r.unjudged_task_criteria
            .iter()
            .map(|c| c.criterion.as_str())
            .collect::<Vec<_>>(),
        ["report.txt lists what the four notes say"]
    );
    assert_eq!(
        stage.llm_calls(&task, Role::MetaValidator),
        0,
        "the code gate judged the round"
    );

    // 4 look-up criteria (1 failed) + the unrun report criterion + the unjudged task
    // criterion: D = 3/6, not the 1/4 of the look-ups alone.
    assert_eq!(result.directive, TerminalDirective::Abandon, "{result:?}");
    assert!((result.loss.d - 0.5).abs() < 1e-9, "{:?}", result.loss);
    assert!(result.output.is_null(), "nothing unverified is delivered");

    let writes = stage.all(&task, pick!(Message::Megram));
    assert!(
        writes
            .iter()
            .all(|w| w.megram.sigma < 0.0 || w.megram.state != MegramOrigin::Success),
        "no success Megram reinforces the failure: {writes:?}"
    );
    assert!(
        writes
            .iter()
            .any(|w| w.megram.state == MegramOrigin::Abandon && w.megram.sigma < 0.0),
        "{writes:?}"
    );
    assert!(
        !stage.workspace.join("report.txt").exists(),
        "the report was never written"
    );
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}
