//! Lines of a task's intake: the submission with its budget, the clarification exchange
//! and the task spec.
//!
//! **Invariant:** each excerpt of the user's words is cut to the line's limits.

use std::fmt::Write as _;

use super::{DETAIL_CHARS, ITEM_CHARS};
use crate::contracts::{ClarificationAnswer, ClarificationRequest, TaskSpec, TaskSubmitted};
use crate::text::{one_line, plural};

pub(super) fn task_submitted(m: &TaskSubmitted) -> String {
    let mut s = one_line(&m.raw_input, DETAIL_CHARS);
    if !m.session_history.is_empty() {
        let _ = write!(
            s,
            " · {} of history",
            plural(m.session_history.len(), "turn", "turns")
        );
    }
    if m.time_budget_ms > 0 {
        let _ = write!(s, " · budget {} s", m.time_budget_ms.div_ceil(1000));
    }
    s
}

pub(super) fn clarification_request(m: &ClarificationRequest) -> String {
    format!("round {}: {}", m.round, one_line(&m.question, DETAIL_CHARS))
}

/// An empty answer means "go ahead with what you have".
pub(super) fn clarification_answer(m: &ClarificationAnswer) -> String {
    if m.answer.trim().is_empty() {
        "(proceed)".into()
    } else {
        one_line(&m.answer, DETAIL_CHARS)
    }
}

pub(super) fn task_spec(m: &TaskSpec) -> String {
    let mut s = one_line(&m.intent, DETAIL_CHARS);
    if let Some(scope) = &m.constraints.scope {
        let _ = write!(s, " · scope {}", one_line(scope, ITEM_CHARS));
    }
    if let Some(deadline) = &m.constraints.deadline {
        let _ = write!(s, " · by {deadline}");
    }
    s
}
