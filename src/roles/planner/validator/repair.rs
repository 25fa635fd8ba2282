//! The mend for a plan the model could not fix itself.
//!
//! **Invariant:** a repair never touches what a MUST NOT rule judges (tools beyond the
//! unavailable ones, targets, programs), so a plan rejected for one stays rejected.

use super::PlanRules;
use super::criteria::{is_blank, is_example, is_vague};
use crate::roles::planner::draft::{DraftCriterion, DraftMode, PlanDraft};
use crate::tools::ToolName;

/// A plan the model could not fix itself, mended by code where the fix cannot change
/// what the plan does: criteria that copy the example or check nothing are dropped (a
/// sub-task left without one gets a plausible criterion that its output answers its
/// intent), an empty intent takes the task's, a sub-task without tools gets the shell,
/// and tools this computer lacks are dropped. Violations of MUST NOT rules (blocked
/// tools or targets, third-party programs, a repeated tool set) are never mended: the
/// plan stays rejected.
pub fn repair(draft: &PlanDraft, task_intent: &str, rules: &PlanRules<'_>) -> PlanDraft {
    let keep = |c: &DraftCriterion| {
        !is_blank(c) && !is_vague(&c.criterion) && !is_example(&c.criterion, rules.task)
    };
    let mut out = draft.clone();
    for s in &mut out.subtasks {
        if s.intent.trim().is_empty() {
            s.intent = task_intent.trim().to_string();
        }
        s.success_criteria.retain(keep);
        if s.success_criteria.is_empty() {
            s.success_criteria.push(DraftCriterion {
                criterion: format!("the output answers: {}", s.intent.trim()),
                mode: DraftMode::Plausible,
            });
        }
        s.tools.retain(|t| t.is_available());
        if s.tools.is_empty() {
            s.tools.push(ToolName::Shell);
        }
    }
    out.task_criteria.retain(keep);
    out
}
