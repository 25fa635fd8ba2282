//! The text the calibration hands on: the constraint block of the planning prompt and
//! the memory lines of each sub-task's context.
//!
//! **Invariant:** the laws are never repeated in the block (every role's system prompt
//! already opens with them), and an unavailable memory group is always named.

use super::derive::CautionGate;
use super::recall::{Answer, Group};
use crate::contracts::{ConstraintKind, ConstraintSource, RecalledConstraint};
use crate::tools::join_names;

fn bullet_list(items: &[&RecalledConstraint], kind: ConstraintKind) -> Vec<String> {
    items
        .iter()
        .filter(|c| c.kind == kind)
        .map(|c| format!("- {}", c.text))
        .collect()
}

/// The constraints for the plan request: MUST NOT, CAUTION and SHOULD PREFER items and
/// any memory group that could not be read. Empty when there is nothing to say. The
/// laws are recalled (and published with the recall) but not repeated here: every
/// role's system prompt opens with them (`roles::preamble`).
pub(super) fn prompt_block(
    fixed: &[RecalledConstraint],
    memory: &[&RecalledConstraint],
    caution: &CautionGate,
    answers: &[(Group, Answer)],
) -> String {
    let mut out = String::new();
    let blocks: Vec<&RecalledConstraint> = fixed
        .iter()
        .filter(|c| c.source != ConstraintSource::Law)
        .collect();
    let mut must_not = bullet_list(&blocks, ConstraintKind::MustNot);
    must_not.extend(bullet_list(memory, ConstraintKind::MustNot));
    if !must_not.is_empty() {
        out.push_str("MUST NOT:\n");
        out.push_str(&(must_not.join("\n") + "\n"));
    }
    let cautions = bullet_list(memory, ConstraintKind::Caution);
    if !cautions.is_empty() {
        out.push_str("CAUTION:\n");
        out.push_str(&(cautions.join("\n") + "\n"));
        if let CautionGate::Tools(tools) = caution {
            out.push_str(&format!(
                "(The executor will ask the user before each use of: {}.)\n",
                join_names(tools, ", ")
            ));
        }
    }
    let prefer = bullet_list(memory, ConstraintKind::ShouldPrefer);
    if !prefer.is_empty() {
        out.push_str("SHOULD PREFER:\n");
        out.push_str(&(prefer.join("\n") + "\n"));
    }
    for (group, answer) in answers {
        if let Answer::Unavailable(why) = answer {
            out.push_str(&format!(
                "Memory for {} / {} is unavailable ({why}): this plan is made without it.\n",
                group.space, group.entity
            ));
        }
    }
    out
}

pub(super) fn subtask_context(memory: &[&RecalledConstraint]) -> String {
    if memory.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = memory.iter().map(|c| format!("- {}", c.text)).collect();
    format!(
        "{}\n{}",
        crate::contracts::MEMORY_CONTEXT_HEADING,
        lines.join("\n")
    )
}
