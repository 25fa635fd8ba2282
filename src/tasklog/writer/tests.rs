//! Unit tests of the recorder: run files, partial runs, resubmission and eviction.

use super::*;
use crate::clock::{Clock, FakeClock};
use crate::contracts::{self as c, Role};
use crate::tasklog::{RunStatus, Trajectory};

/// Written ended runs the recorders under test keep.
const RUNS_KEPT: usize = 16;

fn envelope(seq: u64, message: impl Into<Message>) -> Arc<Envelope> {
    let message = message.into();
    Arc::new(Envelope {
        id: c::EnvelopeId::mint(),
        seq,
        timestamp: FakeClock::at_epoch().now(),
        from: Role::User,
        to: Role::Perceiver,
        in_reply_to: None,
        task_id: message.task_id().cloned(),
        message,
    })
}

fn submitted(task: &TaskId) -> c::TaskSubmitted {
    c::TaskSubmitted {
        task_id: task.clone(),
        raw_input: "count files".into(),
        submitted_at: FakeClock::at_epoch().now(),
        session_history: vec![],
        time_budget_ms: 120_000,
        scheduled: None,
    }
}

fn records(run: &RunState) -> Vec<Record> {
    run.pending
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// The message type of each envelope record, and `gap` or `cut` for the notes.
fn shape(run: &RunState) -> Vec<String> {
    records(run).iter().map(|r| r.name().to_string()).collect()
}

#[test]
fn file_names_sort_by_start_time_then_seq_and_carry_a_safe_task_id() {
    let t0 = FakeClock::at_epoch().now();
    let a = run_file_name(t0, 9, &TaskId::from_existing("task_abc"));
    let b = run_file_name(t0, 10, &TaskId::from_existing("task_abc"));
    let c = run_file_name(
        t0 + chrono::Duration::milliseconds(1),
        0,
        &TaskId::from_existing("../evil id"),
    );
    assert_eq!(a, "20260101T000000.000Z_000000000009_task_abc.jsonl");
    assert!(a < b && b < c, "{a} {b} {c}");
    assert!(c.ends_with("_000000000000____evil_id.jsonl"), "{c}");
    assert!(!c.contains('/'));
}

#[test]
fn a_message_of_an_unknown_task_opens_a_partial_run() {
    let mut rec = Recorder::new(
        PathBuf::from("/nonexistent"),
        FakeClock::at_epoch(),
        RUNS_KEPT,
    );
    let task = TaskId::from_existing("task_late");
    rec.record_message(envelope(3, c::TaskClosed::cancelled(task.clone(), "user")));
    let run = rec.runs.values().next().unwrap();
    assert_eq!(shape(run), ["TaskClosed"]);
    assert!(run.ended && run.sync_pending);
    let t = Trajectory::fold(&records(run));
    assert!(t.partial);
    assert_eq!(t.status, RunStatus::Cancelled);
}

#[test]
fn a_gap_is_noted_in_open_runs_only_and_late_traffic_joins_its_ended_run() {
    let mut rec = Recorder::new(
        PathBuf::from("/nonexistent"),
        FakeClock::at_epoch(),
        RUNS_KEPT,
    );
    let open = TaskId::from_existing("task_open");
    let done = TaskId::from_existing("task_done");
    rec.record_message(envelope(0, submitted(&open)));
    rec.record_message(envelope(1, submitted(&done)));
    rec.record_message(envelope(2, c::TaskClosed::cancelled(done.clone(), "user")));
    rec.record(TapEvent::Gap { skipped: 4 });
    rec.record_message(envelope(9, c::TaskClosed::cancelled(done.clone(), "again")));
    assert_eq!(shape(&rec.runs[&0]), ["TaskSubmitted", "gap"]);
    assert_eq!(
        shape(&rec.runs[&1]),
        ["TaskSubmitted", "TaskClosed", "TaskClosed"]
    );
    assert_eq!(rec.runs.len(), 2, "late traffic opens no new run");
}

#[test]
fn resubmitting_an_open_task_id_ends_the_old_run_and_opens_another_file() {
    let mut rec = Recorder::new(
        PathBuf::from("/nonexistent"),
        FakeClock::at_epoch(),
        RUNS_KEPT,
    );
    let task = TaskId::from_existing("task_again");
    rec.record_message(envelope(0, submitted(&task)));
    rec.record_message(envelope(5, submitted(&task)));
    assert_eq!(rec.runs.len(), 2);
    let first = &rec.runs[&0];
    let second = &rec.runs[&1];
    assert_ne!(first.file_name, second.file_name);
    assert_eq!(shape(first), ["TaskSubmitted", "cut"]);
    assert_eq!(
        Trajectory::fold(&records(first)).status,
        RunStatus::Unfinished
    );
    assert!(!second.ended);
    assert_eq!(rec.current[&task], 1);
}

#[test]
fn written_ended_runs_beyond_the_cap_are_forgotten_but_open_ones_are_kept() {
    let mut rec = Recorder::new(
        PathBuf::from("/nonexistent"),
        FakeClock::at_epoch(),
        RUNS_KEPT,
    );
    for i in 0..(RUNS_KEPT as u64 + 10) {
        let task = TaskId::from_existing(format!("task_{i}"));
        rec.record_message(envelope(2 * i, submitted(&task)));
        rec.record_message(envelope(2 * i + 1, c::TaskClosed::cancelled(task, "x")));
    }
    let open = TaskId::from_existing("task_open");
    rec.record_message(envelope(10_000, submitted(&open)));
    let jobs = rec.take_jobs();
    let outcomes = jobs
        .into_iter()
        .map(|j| JobOutcome {
            key: j.key,
            path: Some(PathBuf::from(j.file_name)),
            lines: j.lines,
            error: None,
        })
        .collect();
    rec.apply(outcomes);
    assert_eq!(rec.ended.len(), RUNS_KEPT);
    assert_eq!(rec.runs.len(), RUNS_KEPT + 1);
    assert!(rec.current.contains_key(&open));
    assert!(!rec.current.contains_key(&TaskId::from_existing("task_0")));
}
