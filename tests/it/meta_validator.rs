//! R4b over a real bus with its model scripted over real HTTP. The test plays R2
//! (manifests), R4a (outcomes), the dispatcher (halts) and R7 (reads its inbox); the
//! scripted server counts R4b's model calls, so the code gate is checked by counting.

use std::sync::Arc;
use std::time::Duration;

use artoo::bus::{Envelope, Inbox};
use artoo::contracts::*;
use artoo::testkit::{Script, Step};
use chrono::Duration as ChronoDuration;
use serde_json::{Value, json};

use super::dispatcher::{Rig, call, judged, manifest, next, next_within, quiet, subtask};

fn outcome(
    s: &SubTask,
    status: SubTaskStatus,
    reason: Option<&str>,
    attempts: u32,
) -> SubTaskOutcome {
    let failed = status == SubTaskStatus::Failed;
    let criteria: Vec<CriterionVerdict> = s
        .success_criteria
        .iter()
        .map(|c| {
            let mut v = CriterionVerdict::for_criterion(
                c,
                if failed { Verdict::Fail } else { Verdict::Pass },
            );
            v.failure_class = failed.then_some(FailureClass::Environmental);
            v.evidence = "[1]".into();
            v
        })
        .collect();
    SubTaskOutcome {
        subtask_id: s.subtask_id,
        parent_task_id: s.parent_task_id.clone(),
        status,
        output: if failed {
            Value::Null
        } else {
            json!(format!("output of {}", s.intent))
        },
        failure_reason: reason.map(Into::into),
        gap_trajectory: (1..=attempts)
            .map(|attempt| GapPoint {
                attempt,
                score: if failed { 0.0 } else { 1.0 },
                unmet_criteria: vec![],
                failure_class: None,
            })
            .collect(),
        criteria_verdicts: criteria,
        tool_calls: vec![call("shell", "ls", ToolCallStatus::Ok, "a")],
    }
}

fn plan(rig: &Rig, m: &DispatchManifest) {
    rig.bus
        .handle(Role::Planner)
        .publish(Role::Dispatcher, m.clone());
}

fn report(rig: &Rig, o: &SubTaskOutcome) {
    rig.bus
        .handle(Role::AgentValidator)
        .publish(Role::MetaValidator, o.clone());
}

/// R2 publishes the task's first plan.
fn first_plan(rig: &Rig, task: &TaskId, subtasks: &[&SubTask], criteria: &[&str]) {
    plan(rig, &manifest(task, 0, subtasks, criteria));
}

/// R4a reports each sub-task matched on its first attempt.
fn matched(rig: &Rig, subtasks: &[&SubTask]) {
    for s in subtasks {
        report(rig, &outcome(s, SubTaskStatus::Matched, None, 1));
    }
}

fn halt(rig: &Rig, task: &TaskId, skipped: &[&SubTask]) {
    rig.bus.handle(Role::Dispatcher).publish(
        Role::MetaValidator,
        DispatchHalted {
            task_id: task.clone(),
            skipped: skipped.iter().map(|s| s.subtask_id).collect(),
            reason: "sequence group 1 failed".into(),
            unrun: skipped
                .iter()
                .map(|s| UnrunSubTask {
                    subtask_id: s.subtask_id,
                    success_criteria: s.success_criteria.clone(),
                    reason: String::new(),
                })
                .collect(),
        },
    );
}

/// R4b's reply.
fn merge_reply(output: Value, criteria: Vec<Value>, summary: &str) -> Step {
    Step::reply(
        json!({"combined_output": output, "criteria": criteria, "summary": summary}).to_string(),
    )
}

async fn to_ggs(inbox: &mut Inbox) -> Arc<Envelope> {
    let env = next(inbox).await;
    assert_eq!((env.from, env.to), (Role::MetaValidator, Role::Ggs));
    env
}

fn replan_of(env: &Arc<Envelope>) -> ReplanRequest {
    match &env.message {
        Message::ReplanRequest(r) => r.clone(),
        other => panic!("expected a ReplanRequest, got {:?}", other.kind()),
    }
}

struct Setup {
    rig: Rig,
    ggs: Inbox,
    task: TaskId,
    a: SubTask,
    b: SubTask,
}

async fn setup(script: Script) -> Setup {
    let rig = Rig::new(script).await;
    let ggs = rig.bus.subscribe(Role::Ggs);
    rig.meta_validator().spawn();
    let task = TaskId::mint();
    let a = subtask(&task, 1, "list the reports", &["every report is listed"]);
    let b = subtask(&task, 2, "sum their sizes", &["a total in bytes is given"]);
    Setup {
        rig,
        ggs,
        task,
        a,
        b,
    }
}

// ---------------------------------------------------------------------------------------
// The code gate
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn any_failed_outcome_sends_a_replan_request_without_a_model_call() {
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        b,
    } = setup(Script::new()).await;
    first_plan(&rig, &task, &[&a, &b], &["a total is reported"]);
    rig.clock.advance(ChronoDuration::milliseconds(4_500));
    matched(&rig, &[&a]);
    report(
        &rig,
        &outcome(
            &b,
            SubTaskStatus::Failed,
            Some("max retries (2) reached; last issue: du failed"),
            3,
        ),
    );
    let r = replan_of(&to_ggs(&mut ggs).await);
    assert_eq!(r.task_id, task);
    assert_eq!(r.intent, "tidy the reports folder");
    assert_eq!(r.elapsed_ms, 4_500);
    assert_eq!(
        r.gap_summary,
        "1 of 2 sub-task(s) failed: max retries (2) reached; last issue: du failed"
    );
    assert_eq!(r.failed_subtasks, vec![b.subtask_id]);
    assert_eq!(r.failed_outcomes.len(), 1);
    assert_eq!(r.matched_outcomes.len(), 1);
    assert!(r.task_criteria_verdicts.is_empty());
    assert_eq!(r.correction_count, 4);
    assert_eq!(r.recommendation, Recommendation::Replan);
    assert_eq!(
        rig.calls_from(Role::MetaValidator),
        0,
        "the code gate calls no model"
    );
    quiet(&mut ggs).await;
}

#[tokio::test]
async fn halted_sub_tasks_are_not_waited_for_and_stop_acceptance() {
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        b,
    } = setup(Script::new()).await;
    let c = subtask(&task, 3, "write the summary", &["the file exists"]);
    first_plan(&rig, &task, &[&a, &b, &c], &[]);
    report(
        &rig,
        &outcome(&a, SubTaskStatus::Failed, Some("ls failed"), 1),
    );
    halt(&rig, &task, &[&b, &c]);
    let r = replan_of(&to_ggs(&mut ggs).await);
    assert_eq!(
        r.gap_summary,
        "1 of 3 sub-task(s) failed: ls failed; 2 sub-task(s) were not run (sequence group 1 failed)"
    );
    assert_eq!(r.failed_subtasks, vec![a.subtask_id]);
    assert_eq!(rig.calls_from(Role::MetaValidator), 0);
    // What did not run and the task criterion nobody judged travel to GGS, so they
    // count against D there.
    let unrun: Vec<(SubTaskId, Vec<Criterion>, String)> = r
        .unrun_subtasks
        .iter()
        .map(|u| (u.subtask_id, u.success_criteria.clone(), u.reason.clone()))
        .collect();
    assert_eq!(
        unrun,
        vec![
            (
                b.subtask_id,
                b.success_criteria.clone(),
                "sequence group 1 failed".to_string()
            ),
            (
                c.subtask_id,
                c.success_criteria.clone(),
                "sequence group 1 failed".to_string()
            ),
        ]
    );
    assert_eq!(r.unjudged_task_criteria.len(), 1, "judged on the intent");
}

#[tokio::test]
async fn a_plan_halted_before_anything_ran_is_a_replan_not_an_acceptance() {
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        b,
    } = setup(Script::new()).await;
    first_plan(&rig, &task, &[&a, &b], &[]);
    halt(&rig, &task, &[&a, &b]);
    let r = replan_of(&to_ggs(&mut ggs).await);
    assert!(
        r.gap_summary.starts_with("2 sub-task(s) were not run"),
        "{}",
        r.gap_summary
    );
    assert!(r.failed_outcomes.is_empty() && r.matched_outcomes.is_empty());
    assert_eq!(rig.calls_from(Role::MetaValidator), 0);
}

#[tokio::test]
async fn the_last_plan_of_the_budget_recommends_abandon() {
    let rig = Rig::with(Script::new(), |c| c.budgets.max_replans = 1).await;
    let mut ggs = rig.bus.subscribe(Role::Ggs);
    rig.meta_validator().spawn();
    let task = TaskId::mint();
    for (round, expected) in [(0, Recommendation::Replan), (1, Recommendation::Abandon)] {
        let s = subtask(&task, 1, "try", &["works"]);
        plan(&rig, &manifest(&task, round, &[&s], &[]));
        report(&rig, &outcome(&s, SubTaskStatus::Failed, Some("nope"), 1));
        let r = replan_of(&to_ggs(&mut ggs).await);
        assert_eq!(r.recommendation, expected, "round {round}");
    }
}

// ---------------------------------------------------------------------------------------
// The model's judgement
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn all_matched_outputs_are_merged_and_accepted_only_when_every_criterion_passes() {
    let merged = json!({"reports": ["q1.pdf", "q2.pdf"], "total_bytes": 4096});
    let script = Script::new().role(
        Role::MetaValidator,
        [merge_reply(
            merged.clone(),
            vec![
                judged(
                    "every report is named",
                    true,
                    "reports: q1.pdf, q2.pdf",
                    None,
                ),
                judged("a total is reported", true, "total_bytes: 4096", None),
            ],
            "Two reports, 4096 bytes in total.",
        )],
    );
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        b,
    } = setup(script).await;
    first_plan(
        &rig,
        &task,
        &[&a, &b],
        &["every report is named", "a total is reported"],
    );
    rig.clock.advance(ChronoDuration::seconds(12));
    report(&rig, &outcome(&b, SubTaskStatus::Matched, None, 2));
    matched(&rig, &[&a]);
    let env = to_ggs(&mut ggs).await;
    let Message::OutcomeSummary(s) = &env.message else {
        panic!("expected an OutcomeSummary, got {:?}", env.message.kind());
    };
    assert_eq!(s.merged_output, merged);
    assert_eq!(s.summary, "Two reports, 4096 bytes in total.");
    assert_eq!(s.intent, "tidy the reports folder");
    assert_eq!(s.elapsed_ms, 12_000);
    assert_eq!(s.task_criteria_verdicts.len(), 2);
    assert!(
        s.task_criteria_verdicts
            .iter()
            .all(|v| v.verdict == Verdict::Pass)
    );
    // Outcomes in the manifest's order.
    assert_eq!(
        s.outcomes.iter().map(|o| o.subtask_id).collect::<Vec<_>>(),
        vec![a.subtask_id, b.subtask_id]
    );
    let requests = rig.server.requests_from(Role::MetaValidator);
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].model(), Some(artoo::testkit::BRAIN_MODEL));
    let user = &requests[0].messages()[1].1;
    assert!(user.contains("Local time: "), "{user}");
    assert!(user.contains("USER'S REQUEST (verbatim): tidy up my reports folder please"));
    assert!(user.contains("1. every report is named\n2. a total is reported"));
    assert!(
        user.contains("output of list the reports") && user.contains("output of sum their sizes")
    );
    let system = &requests[0].messages()[0].1;
    assert!(
        system.contains("When the evidence is ambiguous or incomplete, it is unmet."),
        "{system}"
    );
    quiet(&mut ggs).await;
}

#[tokio::test]
async fn a_rejection_of_all_matched_outputs_is_a_replan_carrying_the_failing_task_verdicts() {
    let script = Script::new().role(
        Role::MetaValidator,
        [merge_reply(
            json!(["q1.pdf"]),
            vec![
                judged(
                    "every report is named",
                    false,
                    "only q1.pdf; q2.pdf is missing",
                    Some("logical"),
                ),
                judged("a total is reported", true, "4096", None),
            ],
            "One report.",
        )],
    );
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        b,
    } = setup(script).await;
    first_plan(
        &rig,
        &task,
        &[&a, &b],
        &["every report is named", "a total is reported"],
    );
    matched(&rig, &[&a, &b]);
    let r = replan_of(&to_ggs(&mut ggs).await);
    assert!(r.failed_outcomes.is_empty());
    assert_eq!(r.matched_outcomes.len(), 2);
    assert!(r.failed_subtasks.is_empty());
    assert_eq!(r.task_criteria_verdicts.len(), 2);
    let failing: Vec<_> = r
        .task_criteria_verdicts
        .iter()
        .filter(|v| v.failed())
        .collect();
    assert_eq!(failing.len(), 1);
    assert_eq!(failing[0].criterion, "every report is named");
    assert_eq!(failing[0].failure_class, Some(FailureClass::Logical));
    assert_eq!(failing[0].evidence, "only q1.pdf; q2.pdf is missing");
    assert!(
        r.gap_summary.contains("fails 1 of 2 task criteria"),
        "{}",
        r.gap_summary
    );
    assert_eq!(r.recommendation, Recommendation::Replan);
}

#[tokio::test]
async fn an_unmet_criterion_without_a_cause_still_rejects() {
    // Ambiguity is the model's call; the code's part is that anything short of "met"
    // is a rejection.
    let script = Script::new().role(
        Role::MetaValidator,
        [merge_reply(
            json!("q1.pdf, q2.pdf"),
            vec![judged(
                "every report is named",
                false,
                "unclear whether q3 exists",
                None,
            )],
            "Maybe complete.",
        )],
    );
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        ..
    } = setup(script).await;
    first_plan(&rig, &task, &[&a], &["every report is named"]);
    matched(&rig, &[&a]);
    let r = replan_of(&to_ggs(&mut ggs).await);
    assert_eq!(r.task_criteria_verdicts[0].verdict, Verdict::Fail);
}

#[tokio::test]
async fn a_model_error_is_a_replan_never_a_success_or_a_hang() {
    let script = Script::new().role(Role::MetaValidator, [Step::http_error(401)]);
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        ..
    } = setup(script).await;
    first_plan(&rig, &task, &[&a], &["every report is named"]);
    matched(&rig, &[&a]);
    let r = replan_of(&to_ggs(&mut ggs).await);
    assert!(
        r.gap_summary
            .starts_with("every sub-task matched, but the meta-validator could not judge"),
        "{}",
        r.gap_summary
    );
    assert!(
        r.gap_summary.contains("refused the API key"),
        "{}",
        r.gap_summary
    );
    assert!(r.task_criteria_verdicts.is_empty());
    assert_eq!(r.matched_outcomes.len(), 1);
    assert_eq!(
        r.unjudged_task_criteria,
        vec![Criterion::new("every report is named")],
        "a criterion the model could not judge is not met"
    );
    assert!(r.unrun_subtasks.is_empty());
}

#[tokio::test]
async fn an_unparseable_verdict_after_the_reask_is_a_replan() {
    let script = Script::new().role(
        Role::MetaValidator,
        [
            Step::reply("All good, accept."),
            Step::reply("{\"summary\": \"fine\"}"),
        ],
    );
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        ..
    } = setup(script).await;
    first_plan(&rig, &task, &[&a], &["every report is named"]);
    matched(&rig, &[&a]);
    let r = replan_of(&to_ggs(&mut ggs).await);
    assert!(
        r.gap_summary.contains("could not judge"),
        "{}",
        r.gap_summary
    );
    assert_eq!(rig.calls_from(Role::MetaValidator), 2);
}

#[tokio::test]
async fn a_plan_without_task_criteria_is_judged_on_its_intent() {
    let script = Script::new().role(
        Role::MetaValidator,
        [merge_reply(
            json!("done"),
            vec![judged("x", true, "done", None)],
            "Done.",
        )],
    );
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        b,
    } = setup(script).await;
    first_plan(&rig, &task, &[&a, &b], &[]);
    matched(&rig, &[&a, &b]);
    let env = to_ggs(&mut ggs).await;
    let Message::OutcomeSummary(s) = &env.message else {
        panic!("expected acceptance");
    };
    assert_eq!(s.task_criteria_verdicts.len(), 1);
    assert_eq!(
        s.task_criteria_verdicts[0].criterion,
        "The answer does this: tidy the reports folder"
    );
    assert_eq!(rig.calls_from(Role::MetaValidator), 1);
}

#[tokio::test]
async fn one_matched_sub_task_whose_answer_code_did_not_verify_gets_the_models_check() {
    // The plan said no shape, so code verified nothing of the task: the minimum chain
    // ends with R4b's own check, which states the answer.
    let script = Script::new().role(
        Role::MetaValidator,
        [merge_reply(
            json!("report-1.txt, report-2.txt"),
            vec![judged(
                "The answer does this: list files",
                true,
                "both reports named",
                None,
            )],
            "The reports are report-1.txt and report-2.txt.",
        )],
    );
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        ..
    } = setup(script).await;
    first_plan(&rig, &task, &[&a], &[]);
    matched(&rig, &[&a]);
    let env = to_ggs(&mut ggs).await;
    let Message::OutcomeSummary(s) = &env.message else {
        panic!("expected acceptance, got {:?}", env.message.kind());
    };
    assert_eq!(rig.calls_from(Role::MetaValidator), 1);
    // The model judged the lone sub-task's output; that output is what is delivered.
    assert_eq!(s.summary, "output of list the reports");
    assert_eq!(
        s.outcomes.iter().map(|o| o.subtask_id).collect::<Vec<_>>(),
        [a.subtask_id]
    );
    quiet(&mut ggs).await;
}

#[tokio::test]
async fn a_merge_naming_another_row_than_the_nth_asked_delivers_that_row() {
    // The round's listing is in the order asked; the merge states its first row as "the
    // second largest". Code knows the row, and the answer is that row.
    let script = Script::new().role(
        Role::MetaValidator,
        [merge_reply(
            json!("video.mp4 is the second largest file."),
            vec![judged(
                "The answer does this: name the second largest file",
                true,
                "named",
                None,
            )],
            "video.mp4",
        )],
    );
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        ..
    } = setup(script).await;
    let mut m = manifest(&task, 0, &[&a], &[]);
    let spec = m.task_spec.as_mut().expect("a spec");
    spec.raw_input = "What is the second largest file in ~/Downloads/mixed?".into();
    spec.intent = "name the second largest file".into();
    plan(&rig, &m);
    let mut o = outcome(&a, SubTaskStatus::Matched, None, 1);
    o.output = json!(
        "~/Downloads/mixed, files: 5 found\nvideo.mp4\t3.0 MB\t2026-11-30 13:08\tmp4\n\
         backup.zip\t1.5 MB\t2026-11-30 13:08\tzip\nreport.pdf\t900 KB\t2026-11-30 13:08\tpdf"
    );
    let mut listing = call(
        "list_files",
        "/h/Downloads/mixed",
        ToolCallStatus::Ok,
        o.output.as_str().expect("text"),
    );
    listing.input = json!({"folder": "/h/Downloads/mixed", "sort": "largest", "limit": 3});
    o.tool_calls = vec![listing];
    report(&rig, &o);
    let env = to_ggs(&mut ggs).await;
    let Message::OutcomeSummary(s) = &env.message else {
        panic!("expected acceptance, got {:?}", env.message.kind());
    };
    let delivered = s.merged_output.as_str().expect("text");
    assert!(
        delivered.starts_with("backup.zip is the second largest (1.5 MB")
            && !delivered.contains("video.mp4"),
        "{delivered}"
    );
    quiet(&mut ggs).await;
}

/// A one-sub-task plan for `raw_input`, whose matched outcome says `output` after
/// `calls`: what R4b sends GGS, with no model reply scripted.
async fn one_round_of(
    raw_input: &str,
    output: &str,
    calls: Vec<ToolCallRecord>,
) -> (Rig, Arc<Envelope>) {
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        ..
    } = setup(Script::new()).await;
    let mut m = manifest(&task, 0, &[&a], &[]);
    let spec = m.task_spec.as_mut().expect("a spec");
    spec.raw_input = raw_input.into();
    spec.intent = raw_input.into();
    plan(&rig, &m);
    let mut o = outcome(&a, SubTaskStatus::Matched, None, 1);
    o.output = json!(output);
    o.tool_calls = calls;
    report(&rig, &o);
    let env = to_ggs(&mut ggs).await;
    quiet(&mut ggs).await;
    (rig, env)
}

#[tokio::test]
async fn a_merged_answer_of_one_line_is_its_own_summary() {
    // The model's summary judges ("The answer is correct …"); the user reads the answer.
    let script = Script::new().role(
        Role::MetaValidator,
        [merge_reply(
            json!("Maria Keller's phone number is +49 30 5550 1234."),
            vec![judged(
                "the phone number is given",
                true,
                "+49 30 5550 1234",
                None,
            )],
            "The answer is correct and the file contains the phone number of Maria Keller.",
        )],
    );
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        b,
    } = setup(script).await;
    first_plan(&rig, &task, &[&a, &b], &["the phone number is given"]);
    matched(&rig, &[&a, &b]);
    let env = to_ggs(&mut ggs).await;
    let Message::OutcomeSummary(s) = &env.message else {
        panic!("expected an OutcomeSummary, got {:?}", env.message.kind());
    };
    assert_eq!(
        s.summary,
        "Maria Keller's phone number is +49 30 5550 1234."
    );
    assert_eq!(rig.calls_from(Role::MetaValidator), 1);
    quiet(&mut ggs).await;
}

#[tokio::test]
async fn a_change_told_as_done_that_no_call_made_is_sent_back_by_code() {
    // The file was read, never written, and the answer says the word was replaced.
    let (rig, env) = one_round_of(
        "Replace every 'colour' with 'color' in ~/docs/style.md",
        "Successfully replaced every 'colour' with 'color' in ~/docs/style.md.",
        vec![call(
            "read_file",
            "/h/docs/style.md",
            ToolCallStatus::Ok,
            "# Charts\nUse one colour per series.",
        )],
    )
    .await;
    let r = replan_of(&env);
    assert!(
        r.gap_summary.contains("\"replaced\"") && r.gap_summary.contains("no call changed"),
        "{}",
        r.gap_summary
    );
    assert_eq!(rig.calls_from(Role::MetaValidator), 0, "code sends it back");
}

#[tokio::test]
async fn a_change_claimed_only_in_the_merge_summary_is_sent_back() {
    // The outputs say the file already is as asked (what the file says, told instead of
    // a change, is sent back by code before any merge, and so is the file handed back);
    // the model's summary says the word was replaced.
    let text = "# Charts\nUse one colour per series.\nThe colour of links is blue.";
    let told = "The style guide already asks for one colour per series.\nIts links are blue.";
    let script = Script::new().role(
        Role::MetaValidator,
        [merge_reply(
            json!(told),
            vec![judged("the word is replaced", true, "[1]", None)],
            "The answer correctly replaced every 'colour' with 'color' in ~/docs/style.md.",
        )],
    );
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        b,
    } = setup(script).await;
    let request = "Replace every 'colour' with 'color' in ~/docs/style.md";
    let mut m = manifest(&task, 0, &[&a, &b], &["the word is replaced"]);
    let spec = m.task_spec.as_mut().expect("a spec");
    spec.raw_input = request.into();
    spec.intent = request.into();
    plan(&rig, &m);
    for s in [&a, &b] {
        let mut o = outcome(s, SubTaskStatus::Matched, None, 1);
        o.output = json!(told);
        o.tool_calls = vec![call(
            "read_file",
            "/h/docs/style.md",
            ToolCallStatus::Ok,
            text,
        )];
        report(&rig, &o);
    }
    let r = replan_of(&to_ggs(&mut ggs).await);
    assert!(r.gap_summary.contains("\"replaced\""), "{}", r.gap_summary);
    assert_eq!(rig.calls_from(Role::MetaValidator), 1);
    quiet(&mut ggs).await;
}

#[tokio::test]
async fn after_a_change_was_told_with_none_made_a_later_round_needs_one() {
    // Round 1 says "replaced" with only a read: sent back. Round 2 says nothing of a
    // change and changed nothing: sent back too (it is no result of a change task).
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        ..
    } = setup(Script::new()).await;
    let request = "Replace every 'colour' with 'color' in ~/docs/style.md";
    let text = "# Charts\nUse one colour per series.";
    for (round, output) in [(0, "Replaced every 'colour' with 'color'."), (1, text)] {
        let mut m = manifest(&task, round, &[&a], &[]);
        let spec = m.task_spec.as_mut().expect("a spec");
        spec.raw_input = request.into();
        spec.intent = request.into();
        plan(&rig, &m);
        let mut o = outcome(&a, SubTaskStatus::Matched, None, 1);
        o.output = json!(output);
        o.tool_calls = vec![call(
            "read_file",
            "/h/docs/style.md",
            ToolCallStatus::Ok,
            text,
        )];
        report(&rig, &o);
        let r = replan_of(&to_ggs(&mut ggs).await);
        let expected = if round == 0 {
            "\"replaced\""
        } else {
            "no call changed anything"
        };
        assert!(
            r.gap_summary.contains(expected),
            "round {round}: {}",
            r.gap_summary
        );
    }
    assert_eq!(
        rig.calls_from(Role::MetaValidator),
        0,
        "code sends both back"
    );
    quiet(&mut ggs).await;
}

#[tokio::test]
async fn a_path_the_user_wrote_that_no_call_touched_is_sent_back_by_code() {
    // The table was read; the JSON file the request names was never written.
    let mut read = call(
        "read_table",
        "/h/data/members.csv",
        ToolCallStatus::Ok,
        "members.csv: 3 data rows, 3 columns: name, city, joined",
    );
    read.input = json!({"path": "/h/data/members.csv", "op": "schema"});
    let (rig, env) = one_round_of(
        "Turn ~/data/members.csv into a JSON file ~/data/members.json with one object per row.",
        "name,city,joined\nAna,Porto,2024\nBo,Oslo,2025",
        vec![read],
    )
    .await;
    let r = replan_of(&env);
    assert!(
        r.gap_summary.contains("~/data/members.json")
            && !r.gap_summary.contains("~/data/members.csv"),
        "{}",
        r.gap_summary
    );
    assert_eq!(rig.calls_from(Role::MetaValidator), 0, "code sends it back");
}

// ---------------------------------------------------------------------------------------
// Rounds and cancellation
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn outcomes_of_a_superseded_round_are_ignored() {
    let script = Script::new().role(
        Role::MetaValidator,
        [merge_reply(
            json!("new"),
            vec![judged("ok", true, "new", None)],
            "New.",
        )],
    );
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        b,
    } = setup(script).await;
    first_plan(&rig, &task, &[&a, &b], &["ok"]);
    report(
        &rig,
        &outcome(&a, SubTaskStatus::Failed, Some("old failure"), 1),
    );
    // GGS replanned before b ended; the new round has one sub-task.
    let fresh = subtask(&task, 1, "fresh attempt", &["ok"]);
    plan(&rig, &manifest(&task, 1, &[&fresh], &["ok"]));
    report(&rig, &outcome(&b, SubTaskStatus::Failed, Some("stale"), 1));
    matched(&rig, &[&fresh]);
    let env = to_ggs(&mut ggs).await;
    let Message::OutcomeSummary(s) = &env.message else {
        panic!(
            "expected the new round's acceptance, got {:?}",
            env.message.kind()
        );
    };
    assert_eq!(
        s.outcomes.iter().map(|o| o.subtask_id).collect::<Vec<_>>(),
        vec![fresh.subtask_id]
    );
    quiet(&mut ggs).await;
}

#[tokio::test]
async fn a_judgement_of_a_superseded_round_is_dropped() {
    let script = Script::new().role(
        Role::MetaValidator,
        [
            merge_reply(json!("old"), vec![judged("ok", true, "old", None)], "Old.")
                .latency_ms(400),
            merge_reply(json!("new"), vec![judged("ok", true, "new", None)], "New."),
        ],
    );
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        ..
    } = setup(script).await;
    first_plan(&rig, &task, &[&a], &["ok"]);
    matched(&rig, &[&a]);
    rig.server.wait_for_requests(1).await;
    let fresh = subtask(&task, 1, "fresh", &["ok"]);
    plan(&rig, &manifest(&task, 1, &[&fresh], &["ok"]));
    matched(&rig, &[&fresh]);
    let env = to_ggs(&mut ggs).await;
    let Message::OutcomeSummary(s) = &env.message else {
        panic!("expected acceptance");
    };
    // The fresh round's lone sub-task's own output, not the superseded round's.
    assert_eq!(s.merged_output, json!("output of fresh"));
    quiet(&mut ggs).await;
}

#[tokio::test]
async fn a_cancelled_task_gets_nothing_from_r4b() {
    let script = Script::new().role(Role::MetaValidator, [Step::hang()]);
    let Setup {
        rig,
        mut ggs,
        task,
        a,
        b,
    } = setup(script).await;
    first_plan(&rig, &task, &[&a, &b], &["ok"]);
    matched(&rig, &[&a, &b]);
    rig.server.wait_for_requests(1).await;
    rig.cancel(&task);
    assert!(matches!(
        next(&mut ggs).await.message,
        Message::TaskClosed(_)
    ));
    quiet(&mut ggs).await;
    // Nothing of the task starts again.
    let s = subtask(&task, 1, "again", &["ok"]);
    plan(&rig, &manifest(&task, 1, &[&s], &["ok"]));
    report(&rig, &outcome(&s, SubTaskStatus::Failed, Some("x"), 1));
    quiet(&mut ggs).await;
}

/// R4b with a 360 s round timeout, GGS's inbox and a fresh task (no model calls).
async fn timed_rig() -> (Rig, Inbox, TaskId) {
    let rig = Rig::new(Script::new()).await;
    let ggs = rig.bus.subscribe(Role::Ggs);
    rig.meta_validator()
        .with_round_timeout(Duration::from_secs(360))
        .spawn();
    (rig, ggs, TaskId::mint())
}

#[tokio::test(start_paused = true)]
async fn a_round_whose_outcomes_never_come_is_given_up_with_abandon_advice() {
    let (rig, mut ggs, task) = timed_rig().await;
    let a = subtask(&task, 1, "a", &["ok"]);
    let b = subtask(&task, 1, "b", &["ok"]);
    first_plan(&rig, &task, &[&a, &b], &["ok"]);
    matched(&rig, &[&a]);
    let started = tokio::time::Instant::now();
    let env = next_within(&mut ggs, Duration::from_secs(1_000)).await;
    assert_eq!((env.from, env.to), (Role::MetaValidator, Role::Ggs));
    let r = replan_of(&env);
    assert!(started.elapsed() >= Duration::from_secs(359));
    assert_eq!(r.recommendation, Recommendation::Abandon);
    assert_eq!(r.failed_subtasks, vec![b.subtask_id]);
    assert_eq!(r.unrun_subtasks.len(), 1);
    assert_eq!(r.unrun_subtasks[0].subtask_id, b.subtask_id);
    assert_eq!(r.unjudged_task_criteria, vec![Criterion::new("ok")]);
    assert!(
        r.gap_summary
            .contains("1 of 2 sub-task(s) reported no outcome"),
        "{}",
        r.gap_summary
    );
    // A straggler after the round was given up changes nothing.
    matched(&rig, &[&b]);
    quiet(&mut ggs).await;
}

#[tokio::test(start_paused = true)]
async fn a_superseded_round_keeps_no_deadline_and_the_new_round_times_out_on_its_own() {
    let (rig, mut ggs, task) = timed_rig().await;
    let a = subtask(&task, 1, "a", &["ok"]);
    first_plan(&rig, &task, &[&a], &["ok"]);
    tokio::time::sleep(Duration::from_secs(100)).await;
    // A replan supersedes round 0 while it is still collecting.
    let b = subtask(&task, 1, "b", &["ok"]);
    let c = subtask(&task, 1, "c", &["ok"]);
    let replanned = tokio::time::Instant::now();
    plan(&rig, &manifest(&task, 1, &[&b, &c], &["ok"]));
    matched(&rig, &[&b]);
    // Round 0's deadline (360 s after it began) passes without a word.
    tokio::time::sleep(Duration::from_secs(300)).await;
    assert!(ggs.try_recv().is_none(), "the superseded round timed out");
    // Round 1 is given up at its own deadline, naming only its own missing sub-task.
    let env = next_within(&mut ggs, Duration::from_secs(1_000)).await;
    assert!(replanned.elapsed() >= Duration::from_secs(359));
    let r = replan_of(&env);
    assert_eq!(r.recommendation, Recommendation::Abandon);
    assert_eq!(r.failed_subtasks, vec![c.subtask_id]);
    quiet(&mut ggs).await;
}
