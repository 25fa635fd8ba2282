//! Auditor contracts: the audit query, reports and events.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::ids::{QueryId, ReportId, TaskId};

/// What made the auditor write a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum AuditTrigger {
    /// The report interval elapsed.
    #[serde(rename = "periodic")]
    Periodic,
    /// The user asked for a report.
    #[serde(rename = "on-demand")]
    OnDemand,
}

/// Which way a task's loss moved at its latest round, read from ∇L against ε.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Trend {
    /// ∇L < −ε: the loss fell.
    Improving,
    /// |∇L| ≤ ε.
    Stable,
    /// ∇L > ε: the loss rose.
    Worsening,
}

/// The latest trend of one task directed or finished in the window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GapTrend {
    /// The task.
    pub task_id: TaskId,
    /// Which way its loss moved.
    pub trend: Trend,
}

/// Tool failures and retries counted over the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolHealth {
    /// Attempts the executor itself reported as failed.
    pub execution_failures: u64,
    /// Fast-loop corrections classed as environmental.
    pub environmental_retries: u64,
    /// Fast-loop corrections classed as logical.
    pub logical_retries: u64,
}

/// Law 1 confirmations seen in the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Law1Stats {
    /// Confirmation requests raised.
    pub requests: u64,
    /// Requests the user approved.
    pub approved: u64,
    /// Requests denied, by the user or because the asking side went away; time-outs are counted
    /// apart.
    pub denied: u64,
    /// Requests nobody answered in time (each one a denial).
    pub timed_out: u64,
    /// Deletions the user sent to the Trash instead.
    pub trashed: u64,
}

/// R6 → User: one report over a window of bus traffic, with its id, the window's end and
/// the Law 1 counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AuditReport {
    /// The report's id.
    pub report_id: ReportId,
    /// Why the report was written.
    pub trigger: AuditTrigger,
    /// Start of the window of bus traffic the report covers.
    pub window_start: DateTime<Utc>,
    /// End of the window.
    pub window_end: DateTime<Utc>,
    /// Tasks with any message in the window.
    pub tasks_observed: u64,
    /// Fast-loop corrections sent in the window.
    pub total_corrections: u64,
    /// One trend per task that got a directive or a final result in the window.
    pub gap_trends: Vec<GapTrend>,
    /// Messages that broke the route table, one line each.
    pub boundary_violations: Vec<String>,
    /// Roles whose failure, retry or model-error rate rose over the window, one line each.
    pub drift_alerts: Vec<String>,
    /// Every other finding, one line each.
    pub anomalies: Vec<String>,
    /// Tool failures and retries in the window.
    pub tool_health: ToolHealth,
    /// Law 1 confirmation counts for the window.
    #[serde(default)]
    pub law1: Law1Stats,
    /// Set when the report answers an on-demand query.
    #[serde(default)]
    pub query_id: Option<QueryId>,
}

/// User → R6: an on-demand report request from the human operator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AuditQuery {
    /// The id the report's answer will carry.
    pub query_id: QueryId,
}
