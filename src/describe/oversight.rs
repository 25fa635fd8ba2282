//! Lines of what watches over the work: Law 1 requests and decisions, the
//! auditor's reports, and model-call records.
//!
//! **Invariant:** a Law 1 request line always says whether the action can be undone.

use std::fmt::Write as _;

use super::spell::{seconds, snake};
use super::{DETAIL_CHARS, ITEM_CHARS};
use crate::contracts::{AuditReport, ConfirmationDecision, ConfirmationRequest, LlmCall};
use crate::text::{one_line, plural};

pub(super) fn confirmation_request(m: &ConfirmationRequest) -> String {
    format!(
        "{} {} · {}",
        m.tool,
        if m.reversible {
            "reversible"
        } else {
            "IRREVERSIBLE"
        },
        one_line(&m.command, DETAIL_CHARS)
    )
}

pub(super) fn confirmation_decision(m: &ConfirmationDecision) -> String {
    format!("{} ({})", snake(&m.decision), snake(&m.source))
}

pub(super) fn audit_report(m: &AuditReport) -> String {
    format!(
        "{} · {} · {} tasks · {} · {}",
        snake(&m.trigger),
        plural(m.anomalies.len(), "anomaly", "anomalies"),
        m.tasks_observed,
        plural(
            m.boundary_violations.len(),
            "boundary violation",
            "boundary violations"
        ),
        plural(m.drift_alerts.len(), "drift alert", "drift alerts")
    )
}

pub(super) fn llm_call(m: &LlmCall) -> String {
    let mut s = format!(
        "{} · {}+{} tok · {} s",
        m.model,
        m.prompt_tokens,
        m.completion_tokens,
        seconds(m.elapsed_ms)
    );
    if let Some(e) = &m.error {
        let _ = write!(s, " · error: {}", one_line(e, ITEM_CHARS));
    }
    s
}
