//! The messages R2 builds by code once a decision is made: the `DispatchManifest` of a
//! plan the validator accepted, and the `GracefulFailure` of an abandoned task (the
//! model's moves, or code's own when the model gave none).
//!
//! **Invariant:** every id here is minted by the runtime, and what a task accomplished is
//! quoted from its matched outputs, never written by a model.

use std::path::Path;

use chrono::{DateTime, Utc};

use super::calibration::{Calibration, CautionGate};
use super::schema::{DraftCriterion, GracefulDraft, PlanDraft};
use crate::checks::criteria::{self, Files};
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
    (round, now): (u32, DateTime<Utc>),
    (home, files): (&Path, &dyn Files),
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
    // A check the plan wrote stands only on the task's own words: the paths and words
    // the user wrote, and the values code computed from them.
    let said = format!("{}\n{}", spec.intent, spec.raw_input);
    let computed = crate::calc::computed_lines(&said);
    // A check on what the files hold when the work ends belongs to the task, or to the
    // one sub-task that ends it: held to a sub-task that runs before another, or beside
    // one, it would judge the files before the work on them is done.
    let criteria = |drafts: &[DraftCriterion], ends_the_work: bool| -> Vec<Criterion> {
        drafts
            .iter()
            .filter(|c| !c.criterion.trim().is_empty())
            .map(|c| {
                c.to_criterion(|check| {
                    (ends_the_work || !criteria::on_files(check))
                        && criteria::grounded(check, &said, &computed, home)
                })
            })
            .collect()
    };
    // Checks code derives from the request (a file asked for at a path) go to the one
    // sub-task that delivers the answer; with several in the last group, none can be
    // held to them alone, and R4b's merge judges the task.
    let derived = criteria::derived(&spec.raw_input, home, files);
    // The plan's last group delivers the answer: its sub-tasks carry the answer's shape,
    // the plan's (R2 always reads the task), or R1's when the plan names none.
    let answer = answer_of(draft, spec);
    let last_group = draft.subtasks.iter().map(|d| d.sequence).max();
    let deliverers = draft
        .subtasks
        .iter()
        .filter(|d| Some(d.sequence) == last_group)
        .count();
    let with_derived = |mut criteria: Vec<Criterion>, sequence: i64| {
        if deliverers == 1 && Some(sequence) == last_group {
            for (words, check) in &derived {
                if !criteria.iter().any(|c| c.check.as_ref() == Some(check)) {
                    criteria.push(Criterion::checked(words.as_str(), check.clone()));
                }
            }
        }
        criteria
    };
    let subtasks: Vec<SubTask> = draft
        .subtasks
        .iter()
        .map(|d| SubTask {
            subtask_id: SubTaskId::mint(),
            parent_task_id: spec.task_id.clone(),
            intent: d.intent.trim().to_string(),
            context: with_memory(&d.context, &cal.subtask_context),
            success_criteria: with_derived(
                criteria(
                    &d.success_criteria,
                    deliverers == 1 && Some(d.sequence) == last_group,
                ),
                d.sequence,
            ),
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
        task_criteria: criteria(&draft.task_criteria, true),
        round,
    }
}

/// The answer a plan delivers: the plan's shape (R2 always reads the task), or R1's when
/// the plan names none, settled against the request's opening ("which file …" asks for
/// an item whoever left the shape unsaid).
pub(super) fn answer_of(draft: &PlanDraft, spec: &TaskSpec) -> AnswerShape {
    let chosen = if draft.answer.is_any() {
        spec.answer
    } else {
        draft.answer
    };
    crate::checks::asks::settled(&spec.raw_input, chosen)
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
