//! Unit tests of the drift detector: it needs a full window and a real rise, and ignores
//! a steady rate or too few opportunities.

use super::*;

fn params(window: usize) -> DetectorParams {
    DetectorParams {
        delta: 0.3,
        epsilon: 0.1,
        kill_after_worsening: 2,
        drift_window_tasks: window,
        tracked_tasks: 1024,
    }
}

fn sample(role: Role, metric: DriftMetric, hits: u64, total: u64) -> Sample {
    let mut s = Sample::default();
    s.count(role, metric, hits, total);
    s
}

#[test]
fn drift_needs_a_full_window_and_a_real_rise() {
    let mut w = DriftWindow::default();
    let mut findings = Vec::new();
    for _ in 0..3 {
        w.push(
            sample(Role::Executor, DriftMetric::Retries, 0, 2),
            6,
            &mut findings,
        );
    }
    for _ in 0..2 {
        w.push(
            sample(Role::Executor, DriftMetric::Retries, 2, 2),
            6,
            &mut findings,
        );
    }
    assert!(findings.is_empty(), "window not full yet");
    w.push(
        sample(Role::Executor, DriftMetric::Retries, 2, 2),
        6,
        &mut findings,
    );
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(
        findings[0]
            .description
            .contains("R3 retry rate rose from 0% (0/6) to 100% (6/6)"),
        "{}",
        findings[0].description
    );
    // Still high: no repeated alert while it stays up.
    w.push(
        sample(Role::Executor, DriftMetric::Retries, 2, 2),
        6,
        &mut findings,
    );
    assert_eq!(findings.len(), 1);
}

#[test]
fn a_steady_failure_rate_is_not_drift() {
    let mut w = DriftWindow::default();
    let mut findings = Vec::new();
    for _ in 0..12 {
        w.push(
            sample(Role::Planner, DriftMetric::ModelCallFailures, 1, 2),
            6,
            &mut findings,
        );
    }
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn too_few_opportunities_raise_no_alert() {
    let mut w = DriftWindow::default();
    let mut findings = Vec::new();
    for hits in [0, 0, 1, 1] {
        w.push(
            sample(Role::Executor, DriftMetric::ExecutionFailures, hits, 1),
            4,
            &mut findings,
        );
    }
    assert!(findings.is_empty(), "2 executions per half are too few");
    assert_eq!(params(4).drift_window_tasks, 4);
}

/// The detectors follow at most `tracked_tasks` tasks (`Limits::live_tasks_tracked`),
/// letting finished ones go first.
#[test]
fn the_detectors_follow_at_most_the_tracked_tasks_finished_ones_going_first() {
    use crate::bus::Envelope;
    use crate::clock::{Clock, FakeClock};
    use crate::contracts::{EnvelopeId, TaskClosed, TaskClosure};
    let mut params = params(6);
    params.tracked_tasks = 8;
    let closed = |task: &TaskId| Envelope {
        id: EnvelopeId::mint(),
        seq: 0,
        timestamp: FakeClock::at_epoch().now(),
        from: Role::User,
        to: Role::Perceiver,
        in_reply_to: None,
        task_id: Some(task.clone()),
        message: Message::TaskClosed(TaskClosed {
            task_id: task.clone(),
            end: TaskClosure::Finished,
        }),
    };
    let mut detectors = Detectors::default();
    for _ in 0..20 {
        detectors.observe(&closed(&TaskId::mint()), &params);
        assert!(
            detectors.tracked_tasks() <= 8,
            "{}",
            detectors.tracked_tasks()
        );
    }
    assert!(detectors.tracked_tasks() >= 7);
}
