//! What GGS takes from the executor's structured [`ToolCallRecord`]s: the failed inputs
//! that become `blocked_targets`, the tools that become `blocked_tools`, and whether a
//! Law 1 gate fired. Only the records' `tool`, `target`, `status`, `error` and
//! `confirmation` fields are read — no prose is ever parsed (the Go version parsed the
//! evidence strings, the format drifted, and its blocked_targets stayed empty).
//!
//! A call's target is a **failed input** of a round when the target is non-empty and
//! 1. the call did not produce output — status `error`, `denied` (Law 1) or `refused` —
//!    in any sub-task of the round, matched or not (a path that was missing stays a dead
//!    end even if a later call of the sub-task recovered); or
//! 2. the call ran, but in a `failed` sub-task whose failure was environmental (one of
//!    its failed units is classed environmental or mixed): the environment did not hold
//!    what the plan assumed at that input, so the same input will fail again.
//!
//! Targets of logically failing sub-tasks are not blocked: there the method is at fault,
//! not the input, and `blocked_tools` carries the correction.
//!
//! **Invariant:** pure functions of the outcomes; every list is deduplicated and keeps
//! first-seen order.

use std::collections::HashSet;

use super::loss::{Assessment, UnitClass, UnitSource};
use crate::contracts::{Decision, SubTaskOutcome, SubTaskStatus, ToolCallStatus};

/// One failed input: the tool and the exact target (path, query or command) it failed on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedInput {
    pub tool: String,
    pub target: String,
    /// The error, the denial, or the environmental criterion that failed.
    pub why: String,
}

/// The failed inputs of one round (see the module docs), deduplicated by target.
/// `outcomes` must be in the order `assessment` was computed over.
pub fn failed_inputs(outcomes: &[&SubTaskOutcome], assessment: &Assessment) -> Vec<FailedInput> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (idx, outcome) in outcomes.iter().enumerate() {
        let env_failure = (outcome.status == SubTaskStatus::Failed)
            .then(|| {
                assessment.failed.iter().find(|u| {
                    matches!(u.source, UnitSource::SubTaskCriterion(i) | UnitSource::SubTask(i) if i == idx)
                        && matches!(u.class, UnitClass::Environmental | UnitClass::Mixed)
                })
            })
            .flatten();
        for call in &outcome.tool_calls {
            let target = call.target.trim();
            if target.is_empty() {
                continue;
            }
            let why = match (call.status, env_failure) {
                (ToolCallStatus::Ok, None) => continue,
                (ToolCallStatus::Ok, Some(unit)) => format!("environmental: {}", unit.criterion),
                (status, _) => match &call.error {
                    Some(err) if !err.trim().is_empty() => {
                        format!("{}: {err}", status_name(status))
                    }
                    _ => status_name(status).to_string(),
                },
            };
            if seen.insert(target.to_string()) {
                out.push(FailedInput {
                    tool: call.tool.trim().to_string(),
                    target: target.to_string(),
                    why,
                });
            }
        }
    }
    out
}

/// The calls of a round that Law 1 denied (the user said no, or had already said no
/// to the same effect in this task), as failed inputs. A denial is final for the task:
/// GGS treats the denied approach as blocked and never as a reason to try the same
/// effect on another target.
pub fn denials(outcomes: &[&SubTaskOutcome]) -> Vec<FailedInput> {
    let mut seen = HashSet::new();
    outcomes
        .iter()
        .flat_map(|o| o.tool_calls.iter())
        .filter(|c| c.status == ToolCallStatus::Denied)
        .filter(|c| seen.insert(c.target.trim().to_string()))
        .map(|c| FailedInput {
            tool: c.tool.trim().to_string(),
            target: c.target.trim().to_string(),
            why: c.error.clone().unwrap_or_else(|| "denied".into()),
        })
        .collect()
}

/// Tools used by the round's failing sub-tasks; when no sub-task failed (R4b rejected the
/// merged output), every sub-task of the round produced the rejected result, so the tools
/// of all of them.
pub fn tools_of_failing(outcomes: &[&SubTaskOutcome]) -> Vec<String> {
    let any_failed = outcomes.iter().any(|o| o.status == SubTaskStatus::Failed);
    let mut seen = HashSet::new();
    outcomes
        .iter()
        .filter(|o| !any_failed || o.status == SubTaskStatus::Failed)
        .flat_map(|o| o.tool_calls.iter())
        .map(|c| c.tool.trim().to_string())
        .filter(|t| !t.is_empty() && seen.insert(t.clone()))
        .collect()
}

/// Law 1 gates that fired in a round, by the decision that came back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Law1Tally {
    pub approved: u32,
    pub denied: u32,
    pub trashed: u32,
}

impl Law1Tally {
    pub fn of<'a>(outcomes: impl IntoIterator<Item = &'a SubTaskOutcome>) -> Self {
        let mut tally = Self::default();
        for decision in outcomes
            .into_iter()
            .flat_map(|o| o.tool_calls.iter())
            .filter_map(|c| c.confirmation)
        {
            match decision {
                Decision::Approve => tally.approved += 1,
                Decision::Deny => tally.denied += 1,
                Decision::Trash => tally.trashed += 1,
            }
        }
        tally
    }

    pub fn total(&self) -> u32 {
        self.approved + self.denied + self.trashed
    }

    pub fn add(&mut self, other: Law1Tally) {
        self.approved += other.approved;
        self.denied += other.denied;
        self.trashed += other.trashed;
    }
}

fn status_name(status: ToolCallStatus) -> &'static str {
    match status {
        ToolCallStatus::Ok => "ok",
        ToolCallStatus::Error => "error",
        ToolCallStatus::Denied => "denied",
        ToolCallStatus::Refused => "refused",
    }
}
