//! Auditor contracts: the audit query, reports and events.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::ids::{QueryId, ReportId, TaskId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum AuditTrigger {
    #[serde(rename = "periodic")]
    Periodic,
    #[serde(rename = "on-demand")]
    OnDemand,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Trend {
    Improving,
    Stable,
    Worsening,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GapTrend {
    pub task_id: TaskId,
    pub trend: Trend,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolHealth {
    pub execution_failures: u64,
    pub environmental_retries: u64,
    pub logical_retries: u64,
}

/// Law 1 confirmations seen in the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Law1Stats {
    pub requests: u64,
    pub approved: u64,
    pub denied: u64,
    pub timed_out: u64,
    pub trashed: u64,
}

/// R6 → User: one report over a window of bus traffic, with its id, the window's end and
/// the Law 1 counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AuditReport {
    pub report_id: ReportId,
    pub trigger: AuditTrigger,
    pub window_start: DateTime<Utc>,
    pub window_end: DateTime<Utc>,
    pub tasks_observed: u64,
    pub total_corrections: u64,
    pub gap_trends: Vec<GapTrend>,
    pub boundary_violations: Vec<String>,
    pub drift_alerts: Vec<String>,
    pub anomalies: Vec<String>,
    pub tool_health: ToolHealth,
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
    pub query_id: QueryId,
}
