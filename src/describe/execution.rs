//! Lines of the work on sub-tasks: tool calls, execution results, R4a's corrections and
//! outcomes, the closing of a fast loop, a halted dispatch, and R4b's replan request or
//! summary.
//!
//! **Invariant:** a verdict line counts the criteria that passed out of all judged, and a
//! failure names what was unmet when it is known, its reason otherwise.

use std::fmt::Write as _;

use super::ITEM_CHARS;
use super::spell::{f2, snake};
use crate::contracts::{
    CorrectionSignal, CriterionVerdict, DispatchHalted, ExecutionResult, OutcomeSummary,
    Recommendation, ReplanRequest, SubTaskClosed, SubTaskOutcome, SubTaskStatus, ToolCallEvent,
    ToolCallRecord, Verdict,
};
use crate::text::{one_line, plural};

fn tool_detail(r: &ToolCallRecord) -> String {
    let mut s = format!(
        "{} {} · {} ({} ms)",
        r.tool,
        snake(&r.status),
        one_line(&r.target, ITEM_CHARS),
        r.duration_ms
    );
    if let Some(err) = &r.error {
        let _ = write!(s, " · {}", one_line(err, ITEM_CHARS));
    }
    if let Some(decision) = r.confirmation {
        let _ = write!(s, " · Law 1: {}", snake(&decision));
    }
    s
}

fn verdicts_passed(verdicts: &[CriterionVerdict]) -> String {
    let passed = verdicts
        .iter()
        .filter(|v| v.verdict == Verdict::Pass)
        .count();
    format!("{passed}/{} criteria pass", verdicts.len())
}

pub(super) fn tool_call_event(m: &ToolCallEvent) -> String {
    // Every use of a standing grant is in the audit log, by its words (ahead of the
    // call's details, which the log may cut).
    match &m.record.grant {
        Some(grant) => format!(
            "attempt {} · allowed by the standing grant \"{grant}\" · {}",
            m.attempt,
            tool_detail(&m.record)
        ),
        None => format!("attempt {} · {}", m.attempt, tool_detail(&m.record)),
    }
}

pub(super) fn execution_result(m: &ExecutionResult) -> String {
    let mut s = format!(
        "{} · attempt {} · {}",
        snake(&m.status),
        m.attempt,
        plural(m.tool_calls.len(), "tool call", "tool calls")
    );
    let failed = m.tool_calls.iter().filter(|c| c.failed()).count();
    if failed > 0 {
        let _ = write!(s, " ({failed} failed)");
    }
    s
}

pub(super) fn correction_signal(m: &CorrectionSignal) -> String {
    format!(
        "attempt {} {} · unmet: {} · do: {}",
        m.attempt_number,
        snake(&m.failure_class),
        one_line(&m.failed_criterion, ITEM_CHARS),
        one_line(&m.what_to_do, ITEM_CHARS)
    )
}

pub(super) fn subtask_outcome(m: &SubTaskOutcome) -> String {
    match m.status {
        SubTaskStatus::Matched => format!(
            "matched · {} · {}",
            verdicts_passed(&m.criteria_verdicts),
            plural(m.gap_trajectory.len(), "attempt", "attempts")
        ),
        SubTaskStatus::Failed => failed_outcome(m),
    }
}

/// A failed outcome: its last score, and what was unmet or else why it failed.
fn failed_outcome(m: &SubTaskOutcome) -> String {
    let last = m.gap_trajectory.last();
    let mut s = format!(
        "failed · {} · score {}",
        verdicts_passed(&m.criteria_verdicts),
        last.map_or_else(|| "—".to_string(), |p| f2(p.score))
    );
    if let Some(p) = last.filter(|p| !p.unmet_criteria.is_empty()) {
        let _ = write!(
            s,
            " · unmet: {}",
            one_line(&p.unmet_criteria.join("; "), ITEM_CHARS)
        );
    } else if let Some(reason) = &m.failure_reason {
        let _ = write!(s, " · {}", one_line(reason, ITEM_CHARS));
    }
    s
}

pub(super) fn subtask_closed(m: &SubTaskClosed) -> String {
    format!("{} · fast loop closed", snake(&m.status))
}

pub(super) fn dispatch_halted(m: &DispatchHalted) -> String {
    format!(
        "{} skipped · {}",
        m.skipped.len(),
        one_line(&m.reason, ITEM_CHARS)
    )
}

pub(super) fn replan_request(m: &ReplanRequest) -> String {
    let total = m.failed_outcomes.len() + m.matched_outcomes.len();
    let mut s = format!(
        "{}/{total} failed · {}",
        m.failed_outcomes.len(),
        one_line(&m.gap_summary, ITEM_CHARS)
    );
    if !m.task_criteria_verdicts.is_empty() {
        let _ = write!(s, " · task {}", verdicts_passed(&m.task_criteria_verdicts));
    }
    if m.recommendation == Recommendation::Abandon {
        s.push_str(" · recommends abandon");
    }
    s
}

pub(super) fn outcome_summary(m: &OutcomeSummary) -> String {
    let mut s = format!("accepted · {}", one_line(&m.summary, ITEM_CHARS));
    if !m.task_criteria_verdicts.is_empty() {
        let _ = write!(s, " · task {}", verdicts_passed(&m.task_criteria_verdicts));
    }
    s
}
