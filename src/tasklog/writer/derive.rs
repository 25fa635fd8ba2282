//! The mapping from bus messages to task-log events, one function per family of
//! messages: the task's intake, memory, planning, execution, judgement and its end.
//!
//! **Invariant:** [`derive`] matches every [`Message`] variant without a catch-all, so a
//! new message kind fails to compile until it is given a line (or an explicit "none");
//! the only state it touches is the run's round and usage counters.

use super::RunState;
use crate::contracts::{self as c, Message};
use crate::tasklog::event::{self, Event, RunStatus};

/// The events `message` adds to `run`'s log, and the status the run ends with if the
/// message ends it. A run ends at the task's `TaskClosed`, the one announcement of every
/// end, so what the end sets off before it (GGS's memory writes after its result) is
/// part of the run; the result or chat answer before it says how the run ended.
pub(super) fn derive(run: &mut RunState, message: &Message) -> (Vec<Event>, Option<RunStatus>) {
    let events: Vec<Event> = match message {
        // The budget is the config's; the run's end records the time it took.
        Message::TaskBudget(_) => vec![],
        Message::TaskSubmitted(m) => vec![task_begin(m)],
        Message::TaskSpec(m) => vec![task_spec(m)],
        Message::ClarificationRequest(m) => vec![clarification(m)],
        Message::ClarificationAnswer(m) => vec![clarification_answer(m)],
        Message::ChatReply(m) => {
            run.outcome = Some(RunStatus::Answered);
            vec![chat_reply(m)]
        }
        // The request/reply pair behind a calibration; the MemoryRecall R2 publishes
        // afterwards carries what memory said and what R2 made of it.
        Message::MemoryQuery(_) | Message::MemoryResponse(_) => vec![],
        Message::MemoryRecall(m) => vec![memory_recall(run, m)],
        Message::Megram(m) => vec![memory_write(m)],
        // R4a's close notice to R3 repeats the SubTaskOutcome, which is logged as
        // subtask_end with its verdicts.
        Message::SubTaskClosed(_) => vec![],
        Message::DispatchHalted(m) => vec![Event::DispatchHalted(m.clone())],
        Message::DispatchManifest(m) => vec![plan(run, m)],
        Message::SubTask(m) => vec![subtask_begin(run, m)],
        Message::PlanningFailed(m) => vec![planning_failed(run, m)],
        Message::ExecutionResult(m) => vec![execution(m)],
        Message::ToolCallEvent(m) => vec![tool_call(run, m)],
        Message::LlmCall(m) => {
            if !run.ended {
                run.usage.record_llm_call(m);
            }
            vec![Event::LlmCall(m.clone())]
        }
        Message::ConfirmationRequest(m) => vec![Event::Law1Request(m.clone())],
        Message::ConfirmationDecision(m) => vec![Event::Law1Decision(m.clone())],
        Message::CorrectionSignal(m) => vec![correction(m)],
        Message::SubTaskOutcome(m) => subtask_end(m),
        Message::ReplanRequest(m) => replan(run, m),
        Message::OutcomeSummary(m) => outcome_summary(run, m),
        Message::PlanDirective(m) => plan_directive(run, m),
        Message::GracefulFailureRequest(m) => vec![graceful_failure_request(m)],
        Message::GracefulFailure(m) => vec![graceful_failure(m)],
        Message::FinalResult(m) => {
            run.outcome = Some(m.directive.into());
            final_result(run, m)
        }
        Message::TaskClosed(m) => {
            let status = match &m.end {
                c::TaskClosure::Cancelled { reason } => {
                    let cancelled = event::Cancelled {
                        reason: reason.clone(),
                    };
                    return (vec![cancelled.into()], Some(RunStatus::Cancelled));
                }
                c::TaskClosure::Answered => RunStatus::Answered,
                // The result was lost to a tap gap: the run still ends here.
                c::TaskClosure::Finished => run.outcome.unwrap_or(RunStatus::Unfinished),
            };
            return (Vec::new(), Some(run.outcome.unwrap_or(status)));
        }
        // Task-less traffic; filtered out before this point.
        Message::AuditQuery(_) | Message::AuditReport(_) | Message::MemoryOperatorChange(_) => {
            vec![]
        }
    };
    (events, None)
}

// ---- intake: the submission, its spec and the clarification dialogue ----

fn task_begin(m: &c::TaskSubmitted) -> Event {
    event::TaskBegin {
        task_id: m.task_id.clone(),
        raw_input: Some(m.raw_input.clone()),
        submitted_at: Some(m.submitted_at),
        session_turns: m.session_history.len(),
        partial: false,
    }
    .into()
}

fn task_spec(m: &c::TaskSpec) -> Event {
    event::TaskSpec {
        intent: m.intent.clone(),
        scope: m.constraints.scope.clone(),
        deadline: m.constraints.deadline.clone(),
        raw_input: m.raw_input.clone(),
    }
    .into()
}

fn clarification(m: &c::ClarificationRequest) -> Event {
    event::Clarification {
        round: m.round,
        question: m.question.clone(),
    }
    .into()
}

fn clarification_answer(m: &c::ClarificationAnswer) -> Event {
    event::ClarificationAnswer {
        answer: m.answer.clone(),
    }
    .into()
}

fn chat_reply(m: &c::ChatReply) -> Event {
    event::ChatReply {
        answer: m.answer.clone(),
    }
    .into()
}

// ---- memory: what R2 recalled and what was written back ----

fn memory_recall(run: &RunState, m: &c::MemoryRecall) -> Event {
    event::MemoryQuery {
        // Recalls for a replan happen after the directive advanced the round.
        round: m.round.max(run.round),
        space: m.space.clone(),
        entity: m.entity.clone(),
        sop_count: m.sops.len(),
        action: m.potentials.action,
        attention: m.potentials.attention,
        decision: m.potentials.decision,
        constraints: m.constraints.clone(),
        sops: m.sops.clone(),
    }
    .into()
}

fn memory_write(m: &c::MegramWrite) -> Event {
    let g = &m.megram;
    event::MemoryWrite {
        megram_id: g.id,
        state: g.state,
        level: g.level,
        space: g.space.clone(),
        entity: g.entity.clone(),
        content: g.content.clone(),
        f: g.f,
        sigma: g.sigma,
        k: g.k,
    }
    .into()
}

// ---- planning: plans, their sub-tasks and failed planning ----

fn plan(run: &mut RunState, m: &c::DispatchManifest) -> Event {
    run.round = m.round;
    run.plans += 1;
    event::Plan {
        round: m.round,
        subtask_ids: m.subtask_ids.clone(),
        task_criteria: m.task_criteria.clone(),
    }
    .into()
}

fn subtask_begin(run: &RunState, m: &c::SubTask) -> Event {
    event::SubtaskBegin {
        subtask_id: m.subtask_id,
        round: run.round,
        intent: m.intent.clone(),
        sequence: m.sequence,
        criteria: m.success_criteria.clone(),
        context: m.context.clone(),
    }
    .into()
}

fn planning_failed(run: &mut RunState, m: &c::PlanningFailed) -> Event {
    run.round = run.round.max(m.round);
    event::PlanningFailed {
        round: m.round,
        reason: m.reason.clone(),
    }
    .into()
}

// ---- execution: attempts and the tool calls made in them ----

fn execution(m: &c::ExecutionResult) -> Event {
    event::Execution {
        subtask_id: m.subtask_id,
        attempt: m.attempt,
        status: m.status,
        output: m.output.clone(),
        tool_call_count: m.tool_calls.len(),
    }
    .into()
}

fn tool_call(run: &mut RunState, m: &c::ToolCallEvent) -> Event {
    if !run.ended {
        run.usage.record_tool_call(m.record.duration_ms);
    }
    let r = &m.record;
    event::ToolCall {
        subtask_id: m.subtask_id,
        attempt: m.attempt,
        tool: r.tool.clone(),
        input: r.input.clone(),
        target: r.target.clone(),
        output_head: r.output_head.clone(),
        status: r.status,
        error: r.error.clone(),
        duration_ms: r.duration_ms,
        confirmation: r.confirmation,
    }
    .into()
}

// ---- judgement: verdicts, corrections, replans and GGS directives ----

fn correction(m: &c::CorrectionSignal) -> Event {
    event::Correction {
        subtask_id: m.subtask_id,
        attempt: m.attempt_number,
        failed_criterion: m.failed_criterion.clone(),
        failure_class: m.failure_class,
        what_was_wrong: m.what_was_wrong.clone(),
        what_to_do: m.what_to_do.clone(),
        calls_to_avoid: m.calls_to_avoid.len(),
    }
    .into()
}

fn subtask_end(m: &c::SubTaskOutcome) -> Vec<Event> {
    // The verdicts are those of the last fast-loop attempt.
    let attempt = m.gap_trajectory.last().map(|p| p.attempt).or_else(|| {
        u32::try_from(m.gap_trajectory.len())
            .ok()
            .filter(|n| *n > 0)
    });
    let mut events: Vec<Event> = m
        .criteria_verdicts
        .iter()
        .map(|v| verdict(Some(m.subtask_id), None, v, attempt))
        .collect();
    events.push(
        event::SubtaskEnd {
            subtask_id: m.subtask_id,
            status: m.status,
            failure_reason: m.failure_reason.clone(),
            gap_trajectory: m.gap_trajectory.clone(),
            output: m.output.clone(),
        }
        .into(),
    );
    events
}

fn replan(run: &RunState, m: &c::ReplanRequest) -> Vec<Event> {
    let mut events = task_verdicts(run.round, &m.task_criteria_verdicts);
    events.push(
        event::Replan {
            round: run.round,
            gap_summary: m.gap_summary.clone(),
            failed_subtasks: m.failed_subtasks.clone(),
            correction_count: m.correction_count,
            recommendation: Some(m.recommendation),
            elapsed_ms: m.elapsed_ms,
        }
        .into(),
    );
    events
}

fn outcome_summary(run: &RunState, m: &c::OutcomeSummary) -> Vec<Event> {
    let mut events = task_verdicts(run.round, &m.task_criteria_verdicts);
    events.push(
        event::OutcomeSummary {
            round: run.round,
            summary: m.summary.clone(),
            merged_output: m.merged_output.clone(),
            elapsed_ms: m.elapsed_ms,
        }
        .into(),
    );
    events
}

fn plan_directive(run: &mut RunState, m: &c::PlanDirective) -> Vec<Event> {
    let judged = run.round;
    // GGS numbers replans from 1; a directive without a number still means "the
    // next round".
    let next = if m.round > judged {
        m.round
    } else {
        judged + 1
    };
    run.round = next;
    run.replans = run.replans.max(next);
    vec![
        event::GgsDecision {
            round: judged,
            loss: m.loss,
            grad_l: m.grad_l,
            directive: m.directive.into(),
            prev_directive: m.prev_directive,
            rationale: Some(m.rationale.clone()),
            gradient: m.gradient,
            replans: next,
        }
        .into(),
        event::PlanDirective {
            round: judged,
            directive: m.directive,
            blocked_tools: m.blocked_tools.clone(),
            blocked_targets: m.blocked_targets.clone(),
            failed_criterion: m.failed_criterion.clone(),
            failure_class: m.failure_class,
            urgency: m.urgency,
            rationale: m.rationale.clone(),
        }
        .into(),
    ]
}

/// R4b's verdicts on the task criteria of `round`.
fn task_verdicts(round: u32, verdicts: &[c::CriterionVerdict]) -> Vec<Event> {
    verdicts
        .iter()
        .map(|v| verdict(None, Some(round), v, None))
        .collect()
}

fn verdict(
    subtask_id: Option<c::SubTaskId>,
    round: Option<u32>,
    v: &c::CriterionVerdict,
    attempt: Option<u32>,
) -> Event {
    event::CriterionVerdict {
        subtask_id,
        round,
        criterion: v.criterion.clone(),
        verdict: v.verdict,
        mode: v.mode,
        failure_class: v.failure_class,
        evidence: v.evidence.clone(),
        attempt,
    }
    .into()
}

// ---- the end: graceful failure and the final result ----

fn graceful_failure_request(m: &c::GracefulFailureRequest) -> Event {
    event::GracefulFailureRequest {
        reason: m.reason.clone(),
        failures: m.failures.clone(),
        matched_outputs: m.matched_outputs.len(),
    }
    .into()
}

fn graceful_failure(m: &c::GracefulFailure) -> Event {
    event::GracefulFailure {
        accomplished: m.accomplished.clone(),
        next_moves: m.next_moves.clone(),
    }
    .into()
}

fn final_result(run: &mut RunState, m: &c::FinalResult) -> Vec<Event> {
    run.replans = run.replans.max(m.replans);
    vec![
        // The terminal decision is logged on every path, the accept path's included:
        // the run is still open when the FinalResult arrives, so nothing is lost.
        event::GgsDecision {
            round: run.round,
            loss: m.loss,
            grad_l: m.grad_l,
            directive: m.directive.into(),
            prev_directive: m.prev_directive,
            rationale: None,
            gradient: None,
            replans: m.replans,
        }
        .into(),
        event::FinalResult {
            directive: m.directive,
            summary: m.summary.clone(),
            output: m.output.clone(),
            replans: m.replans,
            next_moves: m.next_moves.clone(),
        }
        .into(),
    ]
}
