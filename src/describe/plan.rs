//! Lines of planning and control: the dispatch manifest, each sub-task, GGS's plan
//! directive, a planning failure, the graceful-failure exchange, the final result.
//!
//! **Invariant:** a plan directive is the only message with continuation lines — its
//! rationale and what it blocks are worth reading in full — and a GGS decision always
//! carries its macro-state.

use std::fmt::Write as _;

use super::spell::{loss_line, snake, succeeded};
use super::{DETAIL_CHARS, ITEM_CHARS, Summary};
use crate::config::GgsParams;
use crate::contracts::join_names;
use crate::contracts::{
    DispatchManifest, FinalResult, GracefulFailure, GracefulFailureRequest, MacroState,
    PlanDirective, PlanningFailed, SubTask,
};
use crate::ggs::decide::gradient_label;
use crate::text::{one_line, plural};

pub(super) fn dispatch_manifest(m: &DispatchManifest) -> String {
    format!(
        "round {} · {} · {}",
        m.round,
        plural(m.subtasks.len(), "sub-task", "sub-tasks"),
        plural(m.task_criteria.len(), "task criterion", "task criteria")
    )
}

pub(super) fn subtask(m: &SubTask) -> String {
    let mut s = format!("#{} {}", m.sequence, one_line(&m.intent, ITEM_CHARS));
    if let Some((first, rest)) = m.success_criteria.split_first() {
        let _ = write!(s, " | {}", one_line(&first.criterion, 32));
        if !rest.is_empty() {
            let _ = write!(s, " (+{})", rest.len());
        }
    }
    if !m.blocked_tools.is_empty() {
        let _ = write!(s, " · MUST NOT {}", join_names(&m.blocked_tools, ", "));
    }
    if !m.confirm_tools.is_empty() {
        let _ = write!(s, " · confirm {}", join_names(&m.confirm_tools, ", "));
    }
    s
}

/// The loss with its arrow and the directive's transition, then the rationale and any
/// blocked tools and targets as continuation lines.
pub(super) fn plan_directive(m: &PlanDirective, ggs: &GgsParams) -> Summary {
    let mut more = Vec::new();
    let gradient = m
        .gradient
        .unwrap_or_else(|| gradient_label(m.grad_l, m.loss.d, ggs));
    more.push(format!("why: {}", one_line(&m.rationale, 160)));
    if !m.blocked_tools.is_empty() || !m.blocked_targets.is_empty() {
        more.push(format!(
            "MUST NOT: tools [{}] · targets [{}]",
            join_names(&m.blocked_tools, ", "),
            one_line(&m.blocked_targets.join(", "), 100)
        ));
    }
    let line = format!(
        "{} {}→{} · {} urgency · round {}",
        loss_line(&m.loss, m.grad_l, gradient),
        snake(&m.prev_directive),
        snake(&m.directive),
        snake(&m.urgency),
        m.round
    );
    Summary {
        line,
        more,
        state: Some(MacroState::from(m.directive)),
    }
}

pub(super) fn planning_failed(m: &PlanningFailed) -> String {
    format!("round {} · {}", m.round, one_line(&m.reason, DETAIL_CHARS))
}

pub(super) fn graceful_failure_request(m: &GracefulFailureRequest) -> String {
    format!(
        "{} · {} matched",
        one_line(&m.reason, DETAIL_CHARS),
        m.matched_outputs.len()
    )
}

pub(super) fn graceful_failure(m: &GracefulFailure) -> String {
    format!(
        "{} · {}",
        plural(m.next_moves.len(), "next move", "next moves"),
        one_line(&m.accomplished, ITEM_CHARS)
    )
}

/// The outcome with its loss, the replans it took and the start of its summary.
pub(super) fn final_result(m: &FinalResult, ggs: &GgsParams) -> Summary {
    let gradient = gradient_label(m.grad_l, m.loss.d, ggs);
    let line = format!(
        "{} {} {} · {} · {}",
        if succeeded(m.directive) { "✅" } else { "❌" },
        snake(&m.directive),
        loss_line(&m.loss, m.grad_l, gradient),
        plural(m.replans as usize, "replan", "replans"),
        one_line(&m.summary, ITEM_CHARS)
    );
    Summary {
        line,
        more: Vec::new(),
        state: Some(MacroState::from(m.directive)),
    }
}
