//! A schedule's run through the whole hierarchy: the runner starts the due run once,
//! the task carries no session history and leaves none, and its result says when it
//! was due and how many runs were missed while the app was not running.

use std::time::Duration as StdDuration;

use artoo::contracts::{
    Decision, DecisionSource, Message, MessageKind, RequestId, ScheduledRun, TaskId,
    TerminalDirective,
};
use artoo::laws::LAW1_PREFIX;
use artoo::runtime::TaskEnd;
use artoo::schedule::runner::tick;
use artoo::schedule::{Rule, Schedule, ScheduleStore};
use artoo::testkit::Script;
use chrono::{Duration, Local, Utc};

use super::law1::{decisions, delete_notes_script, notes};
use super::replies::counting_three_files;
use super::{SCENARIO_TIMEOUT, Stage, final_result};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_due_while_asleep_runs_once_and_its_result_says_what_was_missed() {
    let mut stage = Stage::new(counting_three_files(Script::new())).await;
    for f in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(stage.workspace.join(f), "x").expect("write");
    }
    let store = ScheduleStore::in_dir(&stage.runtime.config().data_dir);
    // Made 95 minutes ago to run every 30 minutes: due at +30, +60 and +90; the app was
    // not running for any of them.
    let made = Utc::now() - Duration::minutes(95);
    let schedule = store
        .add(Schedule::new(
            "how many files are in my workspace?",
            Rule::Every { minutes: 30 },
            made,
        ))
        .expect("kept");
    let task = {
        let runtime = &stage.runtime;
        let mut start = |task: &str, run| {
            runtime
                .submit_scheduled(task, run)
                .map_err(|e| e.to_string())
        };
        let started = tick(&store, &Local::now(), &mut start);
        assert_eq!(started.len(), 1);
        // Looking again at once starts nothing more.
        assert!(tick(&store, &Local::now(), &mut start).is_empty());
        started[0].task.clone().expect("started")
    };

    let end = stage.finish(&task).await;
    let result = final_result(&end).clone();
    let run = result.scheduled.clone().expect("the result names its run");
    assert_eq!(run.schedule_id, schedule.id);
    assert_eq!(run.missed, 2);
    assert_eq!(run.due_at, made + Duration::minutes(90));
    assert!(
        run.note.starts_with("Scheduled: every 30 minutes."),
        "{}",
        run.note
    );
    assert!(
        run.note
            .ends_with("2 earlier runs were missed and are not made up."),
        "{}",
        run.note
    );
    stage.settle().await;
    let submitted = stage.of(&task, MessageKind::TaskSubmitted);
    let Message::TaskSubmitted(s) = &submitted[0].message else {
        unreachable!()
    };
    assert!(s.session_history.is_empty());
    assert!(
        stage.runtime.session_history().is_empty(),
        "a schedule's run is no turn of the user's session"
    );
    let kept = store.list().expect("list");
    assert_eq!((kept[0].runs, kept[0].last_task.as_ref()), (1, Some(&task)));
    stage.stop().await;
}

/// Answers the first Law 1 request of `task` with `decision` once `after` has passed
/// since it was seen (or never, with `None`), and waits for the task's end.
async fn answer_late(
    stage: &mut Stage,
    task: &TaskId,
    decision: Option<Decision>,
    after: StdDuration,
) -> TaskEnd {
    let limit = tokio::time::Instant::now() + SCENARIO_TIMEOUT;
    let mut seen: Option<(RequestId, tokio::time::Instant)> = None;
    while stage.runtime.running_tasks().contains(task) {
        assert!(tokio::time::Instant::now() < limit, "the task did not end");
        if seen.is_none()
            && let Some(r) = stage
                .runtime
                .open_confirmations()
                .into_iter()
                .find(|r| &r.task_id == task)
        {
            seen = Some((r.request_id, tokio::time::Instant::now()));
        }
        if let (Some((id, at)), Some(decision)) = (seen, decision)
            && at.elapsed() >= after
        {
            stage
                .runtime
                .answer_confirmation(id, decision)
                .await
                .expect("the request is still open after the task's budget");
            seen = Some((id, limit + SCENARIO_TIMEOUT));
        }
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
    let end = stage.finish(task).await;
    stage.settle().await;
    end
}

/// Approves `task`'s deletion of notes.txt three seconds after it was asked — twice the
/// task's budget — and requires that it ran and the task ended done.
async fn approved_after_three_seconds(mut stage: Stage, task: &TaskId) {
    let path = stage.workspace.join("notes.txt");
    let end = answer_late(
        &mut stage,
        task,
        Some(Decision::Approve),
        StdDuration::from_secs(3),
    )
    .await;
    let result = final_result(&end);
    assert!(!path.exists(), "the approved deletion ran");
    assert_eq!(decisions(&stage, task), [Decision::Approve]);
    assert_ne!(
        result.directive,
        TerminalDirective::Abandon,
        "{result:?}\n{}",
        stage.transcript().join("\n")
    );
    stage.stop().await;
}

/// The task's budget (1.5 s) is far shorter than a person takes to answer.
fn short_budget(c: &mut artoo::Config) {
    c.budgets.time_budget_ms = Some(1500);
}

/// Time a person is awaited is not the task's: a deletion approved three seconds after
/// it was asked, twice the task's whole budget, still runs and the task ends done. (Were
/// the budget to run while the dialog is open, the task would be abandoned at 1.5 s with
/// the request dropped.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_stops_while_a_person_is_awaited() {
    let stage = Stage::configured(delete_notes_script("rm notes.txt"), |c| {
        short_budget(c);
        c.laws.confirm_timeout_secs = 20;
    })
    .await;
    notes(&stage);
    let task = stage.runtime.submit("delete notes.txt").expect("submitted");
    approved_after_three_seconds(stage, &task).await;
}

/// The run of a schedule: its `ScheduledRun` with `window` for Law 1 answers.
fn run_with_window(window_secs: u64) -> ScheduledRun {
    ScheduledRun {
        schedule_id: "sch_000001".into(),
        due_at: Utc::now(),
        missed: 0,
        note: "Scheduled: every day at 09:00.".into(),
        answer_window_secs: window_secs,
    }
}

/// A scheduled run nobody answers: its question stays open for the schedule's window —
/// past the task's budget, short of the usual confirmation timeout — then expires as a
/// denial, and the run ends saying Law 1 kept the file. (Wrong outcomes this rejects:
/// the question dropped when the budget ran out, or left open for the usual 120 s.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scheduled_runs_question_waits_the_schedules_window_then_ends_honestly() {
    let mut stage = Stage::configured(delete_notes_script("rm notes.txt"), short_budget).await;
    let path = notes(&stage);
    let task = stage
        .runtime
        .submit_scheduled("delete notes.txt", run_with_window(4))
        .expect("submitted");
    let end = answer_late(&mut stage, &task, None, StdDuration::ZERO).await;
    let result = final_result(&end);
    assert_eq!(std::fs::read_to_string(&path).expect("kept"), "keep me");
    let requests = stage.of(&task, MessageKind::ConfirmationRequest);
    assert!(!requests.is_empty());
    for env in &requests {
        let Message::ConfirmationRequest(r) = &env.message else {
            unreachable!()
        };
        let window = (r.expires_at - env.timestamp).num_milliseconds();
        assert!(
            (3_500..=4_500).contains(&window),
            "expires after {window} ms"
        );
    }
    let sources: Vec<DecisionSource> = stage.all(&task, |m| match m {
        Message::ConfirmationDecision(d) => Some(&d.source),
        _ => None,
    });
    assert!(
        !sources.is_empty() && sources.iter().all(|s| *s == DecisionSource::Timeout),
        "{sources:?}\n{}",
        stage.transcript().join("\n")
    );
    assert!(
        result.summary.starts_with(LAW1_PREFIX),
        "{}",
        result.summary
    );
    assert!(result.scheduled.is_some());
    stage.stop().await;
}

/// Approved inside the schedule's window, after the budget: the deletion runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scheduled_runs_question_answered_late_in_its_window_is_carried_out() {
    let stage = Stage::configured(delete_notes_script("rm notes.txt"), short_budget).await;
    notes(&stage);
    let task = stage
        .runtime
        .submit_scheduled("delete notes.txt", run_with_window(30))
        .expect("submitted");
    approved_after_three_seconds(stage, &task).await;
}
