//! Window statistics: what one report period saw, kept incrementally so a report is a
//! constant-time read however long the history, and persisted with the auditor's state.
//!
//! **Invariant:** every anomaly found in the window is either listed in its report or
//! counted in that report's "… more" line — never dropped silently.

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::bus::Envelope;
use crate::contracts::{
    AuditReport, AuditTrigger, CorrectionSignal, Decision, DecisionSource, ExecutionStatus,
    FailureClass, GapTrend, Law1Stats, Message, QueryId, ReportId, TaskId, ToolHealth, Trend,
};

use super::event::{AnomalyKind, Finding};

/// Distinct entries a report list keeps; the rest are counted.
pub const MAX_LISTED: usize = 100;

/// Distinct texts with how often each occurred, in first-seen order, bounded.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    pub entries: Vec<(String, u64)>,
    /// Occurrences of texts beyond [`MAX_LISTED`] distinct ones.
    pub unlisted: u64,
}

impl Tally {
    pub fn add(&mut self, text: &str) {
        if let Some(entry) = self.entries.iter_mut().find(|(t, _)| t == text) {
            entry.1 += 1;
        } else if self.entries.len() < MAX_LISTED {
            self.entries.push((text.to_string(), 1));
        } else {
            self.unlisted += 1;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.unlisted == 0
    }

    /// Report lines: `text`, `text (×n)`, and a closing count of unlisted ones.
    pub fn lines(&self, noun: &str) -> Vec<String> {
        let mut lines: Vec<String> = self
            .entries
            .iter()
            .map(|(text, n)| {
                if *n > 1 {
                    format!("{text} (×{n})")
                } else {
                    text.clone()
                }
            })
            .collect();
        if self.unlisted > 0 {
            lines.push(format!(
                "… and {} more {noun} not listed here (artoo audit events --anomaly)",
                self.unlisted
            ));
        }
        lines
    }
}

/// The statistics of the current report window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowStats {
    /// Where the window starts.
    pub window_start: DateTime<Utc>,
    /// Bus messages seen, audit traffic (queries and reports) excluded.
    pub messages: u64,
    /// Messages the tap lost.
    pub lost: u64,
    /// Tasks with any message in the window.
    pub tasks: HashSet<TaskId>,
    /// Fast-loop corrections in the window.
    pub total_corrections: u64,
    /// Latest ∇L trend of each task that had a GGS decision in the window.
    pub gap_trends: BTreeMap<TaskId, Trend>,
    /// Route-table violations seen.
    pub boundary_violations: Tally,
    /// Role drift alerts seen.
    pub drift_alerts: Tally,
    /// Every other finding.
    pub anomalies: Tally,
    /// Tool failures and retries.
    pub tool_health: ToolHealth,
    /// Law 1 confirmation counts.
    pub law1: Law1Stats,
}

impl WindowStats {
    /// An empty window starting at `window_start`.
    pub fn new(window_start: DateTime<Utc>) -> Self {
        Self {
            window_start,
            messages: 0,
            lost: 0,
            tasks: HashSet::new(),
            total_corrections: 0,
            gap_trends: BTreeMap::new(),
            boundary_violations: Tally::default(),
            drift_alerts: Tally::default(),
            anomalies: Tally::default(),
            tool_health: ToolHealth::default(),
            law1: Law1Stats::default(),
        }
    }

    /// Nothing but audit traffic happened: a periodic report would say nothing.
    pub fn is_empty(&self) -> bool {
        self.messages == 0
            && self.lost == 0
            && self.boundary_violations.is_empty()
            && self.drift_alerts.is_empty()
            && self.anomalies.is_empty()
    }

    /// Counts one bus message and the anomalies found on it. `epsilon` is GGS's ε: the
    /// |∇L| under which a trend is stable.
    pub fn record(&mut self, env: &Envelope, findings: &[Finding], epsilon: f64) {
        if !matches!(
            env.message,
            Message::AuditQuery(_) | Message::AuditReport(_)
        ) {
            self.messages += 1;
        }
        if let Some(task) = &env.task_id {
            // Look first: inserting would clone the id for every message.
            if !self.tasks.contains(task) {
                self.tasks.insert(task.clone());
            }
        }
        match &env.message {
            Message::CorrectionSignal(CorrectionSignal { failure_class, .. }) => {
                self.total_corrections += 1;
                match failure_class {
                    FailureClass::Environmental => self.tool_health.environmental_retries += 1,
                    FailureClass::Logical => self.tool_health.logical_retries += 1,
                }
            }
            Message::ExecutionResult(r) if r.status == ExecutionStatus::Failed => {
                self.tool_health.execution_failures += 1;
            }
            Message::PlanDirective(d) => self.trend(&d.task_id, d.grad_l, epsilon),
            Message::FinalResult(r) => self.trend(&r.task_id, r.grad_l, epsilon),
            Message::ConfirmationRequest(_) => self.law1.requests += 1,
            Message::ConfirmationDecision(d) => match (d.decision, d.source) {
                (Decision::Approve, _) => self.law1.approved += 1,
                (Decision::Trash, _) => self.law1.trashed += 1,
                (Decision::Deny, DecisionSource::Timeout) => self.law1.timed_out += 1,
                (Decision::Deny, _) => self.law1.denied += 1,
            },
            _ => {}
        }
        self.findings(findings);
    }

    /// Counts messages the tap lost, and the anomaly saying so.
    pub fn record_gap(&mut self, skipped: u64, finding: &Finding) {
        self.lost += skipped;
        self.findings(std::slice::from_ref(finding));
    }

    pub(crate) fn findings(&mut self, findings: &[Finding]) {
        for f in findings {
            match f.kind {
                AnomalyKind::BoundaryViolation => self.boundary_violations.add(&f.description),
                AnomalyKind::Drift => self.drift_alerts.add(&f.description),
                _ => self.anomalies.add(&f.to_string()),
            }
        }
    }

    fn trend(&mut self, task: &TaskId, grad_l: f64, epsilon: f64) {
        let trend = if grad_l < -epsilon {
            Trend::Improving
        } else if grad_l > epsilon {
            Trend::Worsening
        } else {
            Trend::Stable
        };
        self.gap_trends.insert(task.clone(), trend);
    }

    /// The report of this window as of `now`.
    pub fn report(
        &self,
        trigger: AuditTrigger,
        now: DateTime<Utc>,
        query_id: Option<QueryId>,
    ) -> AuditReport {
        AuditReport {
            report_id: ReportId::mint(),
            trigger,
            window_start: self.window_start,
            window_end: now,
            tasks_observed: self.tasks.len() as u64,
            total_corrections: self.total_corrections,
            gap_trends: self
                .gap_trends
                .iter()
                .map(|(task_id, trend)| GapTrend {
                    task_id: task_id.clone(),
                    trend: *trend,
                })
                .collect(),
            boundary_violations: self.boundary_violations.lines("boundary violations"),
            drift_alerts: self.drift_alerts.lines("drift alerts"),
            anomalies: self.anomalies.lines("anomalies"),
            tool_health: self.tool_health,
            law1: self.law1,
            query_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_merges_repeats_and_counts_what_it_cannot_list() {
        let mut t = Tally::default();
        t.add("a");
        t.add("a");
        for i in 0..MAX_LISTED + 5 {
            t.add(&format!("x{i}"));
        }
        let lines = t.lines("anomalies");
        assert_eq!(lines[0], "a (×2)");
        assert_eq!(lines.len(), MAX_LISTED + 1);
        assert!(lines.last().unwrap().starts_with("… and 6 more anomalies"));
    }

    #[test]
    fn a_window_with_only_a_gap_is_not_empty() {
        let mut w = WindowStats::new(chrono::DateTime::UNIX_EPOCH);
        assert!(w.is_empty());
        w.record_gap(3, &Finding::new(AnomalyKind::TapGap, "lost 3"));
        assert!(!w.is_empty());
        assert_eq!(
            w.report(AuditTrigger::Periodic, chrono::DateTime::UNIX_EPOCH, None)
                .anomalies,
            vec!["tap_gap: lost 3".to_string()]
        );
    }
}
