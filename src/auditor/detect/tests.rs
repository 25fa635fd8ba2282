//! Unit tests of the drift detector: it needs a full window and a real rise, and ignores
//! a steady rate or too few opportunities.

use super::*;

fn params(window: usize) -> DetectorParams {
    DetectorParams {
        delta: 0.3,
        epsilon: 0.1,
        kill_after_worsening: 2,
        drift_window_tasks: window,
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
