//! The messages R2 builds by code once a decision is made: the `DispatchManifest` of a
//! plan the validator accepted, and the `GracefulFailure` of an abandoned task (the
//! model's moves, or code's own when the model gave none).
//!
//! **Invariant:** every id here is minted by the runtime, and what a task accomplished is
//! quoted from its matched outputs, never written by a model.

use chrono::{DateTime, Utc};

use super::calibration::{Calibration, CautionGate};
use super::schema::{DraftCriterion, GracefulDraft, PlanDraft};
use crate::contracts::{
    AnswerShape, Criterion, DispatchManifest, GracefulFailure, GracefulFailureRequest, SubTask,
    SubTaskId, TaskSpec,
};
use crate::ggs::graceful::{self, FailureFacts};
use crate::tools::ToolRef;

/// The plan as R2 publishes it: runtime-minted ids, one manifest, its sub-tasks inside,
/// each carrying the task's MUST NOT tools and targets and the Caution tools it confirms.
pub(super) fn manifest(
    spec: &TaskSpec,
    draft: &PlanDraft,
    cal: &Calibration,
    round: u32,
    now: DateTime<Utc>,
) -> DispatchManifest {
    let confirm_tools: Vec<ToolRef> = match &cal.caution {
        CautionGate::None => Vec::new(),
        CautionGate::Tools(tools) => tools.iter().copied().map(ToolRef::from).collect(),
        CautionGate::PlanTools => draft
            .tool_set()
            .into_iter()
            .filter(|t| !cal.must_not_tools.iter().any(|b| b == t))
            .map(ToolRef::from)
            .collect(),
    };
    let criteria = |drafts: &[DraftCriterion]| -> Vec<Criterion> {
        drafts
            .iter()
            .filter(|c| !c.criterion.trim().is_empty())
            .map(DraftCriterion::to_criterion)
            .collect()
    };
    // The plan's last group delivers the answer: its sub-tasks carry the answer's shape,
    // the plan's (R2 always reads the task), or R1's when the plan names none.
    let answer = if draft.answer.is_any() {
        spec.answer
    } else {
        crate::checks::asks::settled(&spec.raw_input, draft.answer)
    };
    let last_group = draft.subtasks.iter().map(|d| d.sequence).max();
    let subtasks: Vec<SubTask> = draft
        .subtasks
        .iter()
        .map(|d| SubTask {
            subtask_id: SubTaskId::mint(),
            parent_task_id: spec.task_id.clone(),
            intent: d.intent.trim().to_string(),
            context: with_memory(&d.context, &cal.subtask_context),
            success_criteria: criteria(&d.success_criteria),
            sequence: d.sequence,
            deadline: spec.constraints.deadline.clone(),
            blocked_tools: cal.must_not_tools.clone(),
            blocked_targets: cal.must_not_targets.clone(),
            confirm_tools: confirm_tools.clone(),
            answer: if Some(d.sequence) == last_group {
                answer
            } else {
                AnswerShape::Any
            },
            request: (Some(d.sequence) == last_group && !spec.raw_input.trim().is_empty())
                .then(|| spec.raw_input.trim().to_string()),
        })
        .collect();
    DispatchManifest {
        task_id: spec.task_id.clone(),
        subtasks,
        task_spec: Some(TaskSpec {
            answer,
            ..spec.clone()
        }),
        dispatched_at: now,
        task_criteria: criteria(&draft.task_criteria),
        round,
    }
}

fn with_memory(context: &str, memory: &str) -> String {
    let context = context.trim();
    match (context.is_empty(), memory.is_empty()) {
        (_, true) => context.to_string(),
        (true, false) => memory.to_string(),
        (false, false) => format!("{context}\n\n{memory}"),
    }
}

/// The matched outputs verbatim (code) and the model's next moves.
pub(super) fn composed(request: &GracefulFailureRequest, draft: GracefulDraft) -> GracefulFailure {
    GracefulFailure {
        task_id: request.task_id.clone(),
        accomplished: graceful::accomplished(&request.intent, &request.matched_outputs, &[]),
        next_moves: graceful::dedup(draft.next_moves),
    }
}

/// The honest answer without a model: the matched outputs verbatim and moves derived
/// from the failures GGS reported.
pub(super) fn code_built(request: &GracefulFailureRequest) -> GracefulFailure {
    let criterion = request
        .failures
        .first()
        .map(String::as_str)
        .unwrap_or(request.reason.as_str());
    GracefulFailure {
        task_id: request.task_id.clone(),
        accomplished: graceful::accomplished(&request.intent, &request.matched_outputs, &[]),
        next_moves: graceful::next_moves(&FailureFacts {
            matched_outputs: &request.matched_outputs,
            failed_criterion: criterion,
            ..FailureFacts::default()
        }),
    }
}
