//! The one fold of a recorded run: its records in, a [`Trajectory`] out. The CLI's
//! `/replay` and "Decisions" block, the run list, the desktop's Tasks panel and the
//! auditor's timeline all read a run through it.
//!
//! **Invariant:** [`Fold::push`] matches every [`Message`] variant without a catch-all,
//! so a new message kind does not compile until the fold says where it goes (or that it
//! goes nowhere); what arrives after the run's `TaskClosed` is kept, counted as late, and
//! never changes how the run ended or what it cost.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::record::Record;
use crate::bus::Envelope;
use crate::contracts::{
    self as c, ConfirmationDecision, ConfirmationRequest, Gradient, LlmCall, Loss, MacroState,
    Message, PrevDirective, RequestId, Role, SubTaskId, TaskId, TerminalDirective,
};

/// How a run ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// The task has not closed: it is still running, or the process died mid-task.
    #[default]
    Open,
    /// GGS accepted R4b's verdict (D = 0).
    Accepted,
    /// GGS delivered within the convergence threshold (D ≤ δ).
    Success,
    /// GGS abandoned the task and delivered a graceful failure.
    Abandoned,
    /// The user cancelled the task.
    Cancelled,
    /// R1's conversational fast path answered; no plan ran.
    Answered,
    /// The recording stopped before the task ended: the writer shut down, or the task
    /// id was submitted again while this run was still open.
    Unfinished,
}

impl RunStatus {
    /// The status's lowercase name, as the CLI and the UI show it.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Open => "open",
            RunStatus::Accepted => "accepted",
            RunStatus::Success => "success",
            RunStatus::Abandoned => "abandoned",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Answered => "answered",
            RunStatus::Unfinished => "unfinished",
        }
    }
}

impl From<TerminalDirective> for RunStatus {
    fn from(value: TerminalDirective) -> Self {
        match value {
            TerminalDirective::Accept => RunStatus::Accepted,
            TerminalDirective::Success => RunStatus::Success,
            TerminalDirective::Abandon => RunStatus::Abandoned,
        }
    }
}

/// Model usage of one role within a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RoleUsage {
    /// The role that made the calls.
    pub role: Role,
    /// Model calls made.
    pub calls: u64,
    /// Prompt tokens over those calls.
    pub prompt_tokens: u64,
    /// Completion tokens over those calls.
    pub completion_tokens: u64,
    /// Summed call time; parallel calls overlap, so this can exceed the run's duration.
    pub elapsed_ms: u64,
    /// Calls that ended in an error.
    pub errors: u64,
}

/// Cost of a run: model calls per role, and tool calls.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Usage {
    /// In role order: R1, R2, R3, R4a, R4b, then the rest.
    pub role_stats: Vec<RoleUsage>,
    /// Prompt and completion tokens over every role.
    pub total_tokens: u64,
    /// Tool calls made.
    pub tool_call_count: u64,
    /// Summed tool-call time, in milliseconds; parallel calls overlap.
    pub tool_elapsed_ms: u64,
}

impl Usage {
    /// Counts one recorded model call.
    pub fn record_llm_call(&mut self, call: &LlmCall) {
        self.record_llm(
            call.role,
            call.prompt_tokens,
            call.completion_tokens,
            call.elapsed_ms,
            call.error.is_some(),
        );
    }

    /// Counts one model call by its parts; `failed` counts it as an error too.
    pub fn record_llm(
        &mut self,
        role: Role,
        prompt_tokens: u64,
        completion_tokens: u64,
        elapsed_ms: u64,
        failed: bool,
    ) {
        let idx = match self.role_stats.binary_search_by(|s| s.role.cmp(&role)) {
            Ok(idx) => idx,
            Err(idx) => {
                let fresh = RoleUsage {
                    role,
                    calls: 0,
                    prompt_tokens: 0,
                    completion_tokens: 0,
                    elapsed_ms: 0,
                    errors: 0,
                };
                self.role_stats.insert(idx, fresh);
                idx
            }
        };
        let stats = &mut self.role_stats[idx];
        stats.calls += 1;
        stats.prompt_tokens += prompt_tokens;
        stats.completion_tokens += completion_tokens;
        stats.elapsed_ms += elapsed_ms;
        stats.errors += u64::from(failed);
        self.total_tokens += prompt_tokens + completion_tokens;
    }

    /// Counts one tool call of `duration_ms` milliseconds.
    pub fn record_tool_call(&mut self, duration_ms: u64) {
        self.tool_call_count += 1;
        self.tool_elapsed_ms += duration_ms;
    }

    /// Model calls over all roles.
    pub fn llm_calls(&self) -> u64 {
        self.role_stats.iter().map(|s| s.calls).sum()
    }

    /// Usage of one role, if it made any call.
    pub fn role(&self, role: Role) -> Option<&RoleUsage> {
        self.role_stats.iter().find(|s| s.role == role)
    }
}

/// Everything a run did, in order, rebuilt without re-running it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Trajectory {
    /// The task; None when no record named one.
    pub task_id: Option<TaskId>,
    /// The user's words; `None` when the submission was not recorded.
    pub raw_input: Option<String>,
    /// Earlier turns of the session R1 was given.
    pub session_turns: usize,
    /// R1's reading of the task.
    pub spec: Option<c::TaskSpec>,
    /// Time of the first record; None for an empty run.
    pub started_at: Option<DateTime<Utc>>,
    /// Time of the task's close; None while open.
    pub ended_at: Option<DateTime<Utc>>,
    /// How the run stands or ended.
    pub status: RunStatus,
    /// From the first record to the task's close; `None` while open.
    pub elapsed_ms: Option<u64>,
    /// The run's submission was never recorded: it starts at the first message seen.
    pub partial: bool,
    /// R1's questions and the user's answers, in order.
    pub clarifications: Vec<ClarificationExchange>,
    /// The conversational fast path's answer.
    pub chat_reply: Option<String>,
    /// Planning rounds in order (round 0 = the first plan).
    pub rounds: Vec<Round>,
    /// Every Law 1 request and its decision, in order.
    pub law1: Vec<Law1Exchange>,
    /// GGS's request for an honest account, when it abandoned.
    pub graceful_failure_request: Option<c::GracefulFailureRequest>,
    /// R2's honest account, when one came.
    pub graceful_failure: Option<c::GracefulFailure>,
    /// The task's result; None while open, or when it ended without one.
    pub final_result: Option<c::FinalResult>,
    /// Every Megram GGS wrote for the task, in order.
    pub memory_writes: Vec<c::Megram>,
    /// Why the task was cancelled; None unless it was.
    pub cancelled: Option<String>,
    /// Model and tool cost up to the task's close.
    pub usage: Usage,
    /// Bus messages lost to tap gaps while the run was open.
    pub skipped_messages: u64,
    /// Messages recorded after the task closed.
    pub late_messages: usize,
    /// The file ends in a cut-off line.
    pub truncated: bool,
    /// Lines that could not be read (newer message kinds, corrupt lines).
    pub unreadable_lines: usize,
}

impl Trajectory {
    /// Folds a run's records, in file order.
    pub fn fold<'a>(records: impl IntoIterator<Item = &'a Record>) -> Trajectory {
        let mut fold = Fold::default();
        for record in records {
            fold.push(record);
        }
        fold.finish()
    }

    /// R1's intent.
    pub fn intent(&self) -> Option<&str> {
        self.spec.as_ref().map(|s| s.intent.as_str())
    }

    /// GGS's decisions in round order.
    pub fn decisions(&self) -> impl Iterator<Item = &GgsDecision> {
        self.rounds.iter().filter_map(|r| r.decision.as_ref())
    }

    /// The planning rounds that dispatched a plan.
    pub fn plans(&self) -> usize {
        self.rounds.iter().filter(|r| r.plan.is_some()).count()
    }

    /// Replans GGS ordered: the last decision's count.
    pub fn replans(&self) -> u32 {
        self.decisions().map(|d| d.replans).max().unwrap_or(0)
    }
}

/// One planning round: what memory said, the plan, what ran, how it was judged and what
/// GGS decided.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Round {
    /// The round number, 0 for the first plan.
    pub index: u32,
    /// What memory said for each (space, entity) group before the plan.
    pub recalls: Vec<Recall>,
    /// The round's dispatched plan; None when planning failed or the manifest was lost.
    pub plan: Option<c::DispatchManifest>,
    /// Each sub-task of the plan, in plan order.
    pub subtasks: Vec<SubtaskTrace>,
    /// R4b sent the round back, with its verdicts on the task criteria.
    pub replan: Option<c::ReplanRequest>,
    /// R4b accepted the merged output, with its verdicts on the task criteria.
    pub accepted: Option<c::OutcomeSummary>,
    /// Set when no valid plan came out of the round.
    pub planning_failed: Option<c::PlanningFailed>,
    /// Sub-tasks of the plan that never ran because an earlier group failed.
    pub skipped: Vec<SubTaskId>,
    /// GGS's decision on this round.
    pub decision: Option<GgsDecision>,
    /// The directive that sent the task back to R2 after this round.
    pub directive: Option<c::PlanDirective>,
}

impl Round {
    fn new(index: u32) -> Self {
        Self {
            index,
            recalls: Vec::new(),
            plan: None,
            subtasks: Vec::new(),
            replan: None,
            accepted: None,
            planning_failed: None,
            skipped: Vec::new(),
            decision: None,
            directive: None,
        }
    }

    /// The loss GGS computed for the round, once it decided.
    pub fn loss(&self) -> Option<Loss> {
        self.decision.as_ref().map(|d| d.loss)
    }

    /// R4b's verdicts on the task criteria, from whichever way it judged the round.
    pub fn task_verdicts(&self) -> &[c::CriterionVerdict] {
        match (&self.accepted, &self.replan) {
            (Some(a), _) => &a.task_criteria_verdicts,
            (None, Some(r)) => &r.task_criteria_verdicts,
            (None, None) => &[],
        }
    }
}

/// What memory said for one (space, entity) group, and when R2 heard it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Recall {
    /// When the recall was published.
    pub at: DateTime<Utc>,
    /// What memory said and what R2 made of it.
    pub recall: c::MemoryRecall,
}

/// One sub-task's fast loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SubtaskTrace {
    /// The sub-task.
    pub subtask_id: SubTaskId,
    /// The sub-task as the dispatcher released it (earlier outputs in its context), or
    /// as planned when it was never released; `None` when it was lost to a gap.
    pub subtask: Option<c::SubTask>,
    /// R3's own account of each attempt (a claim; the tool calls are the evidence).
    pub executions: Vec<c::ExecutionResult>,
    /// Every tool call, in the order they finished.
    pub tool_calls: Vec<c::ToolCallEvent>,
    /// R4a's corrections between attempts.
    pub corrections: Vec<c::CorrectionSignal>,
    /// R4a's close of the sub-task, with its verdicts on the last attempt.
    pub outcome: Option<c::SubTaskOutcome>,
}

impl SubtaskTrace {
    fn new(subtask_id: SubTaskId) -> Self {
        Self {
            subtask_id,
            subtask: None,
            executions: Vec::new(),
            tool_calls: Vec::new(),
            corrections: Vec::new(),
            outcome: None,
        }
    }
}

/// GGS's decision on one round: a replan directive, or the terminal result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GgsDecision {
    /// The planning round this decision judged.
    pub round: u32,
    /// The round's loss.
    pub loss: Loss,
    /// ∇L: the change in L since the previous round.
    pub grad_l: f64,
    /// What GGS decided.
    pub directive: MacroState,
    /// The directive the round ran under.
    pub prev_directive: PrevDirective,
    /// Why GGS chose the directive; a terminal result carries none.
    pub rationale: Option<String>,
    /// The trajectory label; None on a first round or in older logs.
    pub gradient: Option<Gradient>,
    /// Replans so far, this decision included.
    pub replans: u32,
}

/// A Law 1 confirmation and its answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Law1Exchange {
    /// The request's id; the request and the decision are matched by it.
    pub request_id: RequestId,
    /// `None` when only the decision was recorded.
    pub request: Option<ConfirmationRequest>,
    /// `None` while unanswered.
    pub decision: Option<ConfirmationDecision>,
}

/// A question R1 asked and the user's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ClarificationExchange {
    /// 1 or 2.
    pub round: u32,
    /// R1's question.
    pub question: String,
    /// The user's answer; None while unanswered.
    pub answer: Option<String>,
}

/// The fold in progress. Feed it records in file order with [`Fold::push`].
#[derive(Default)]
pub struct Fold {
    t: Trajectory,
    rounds: BTreeMap<u32, Round>,
    /// The round each sub-task was planned in.
    subtask_round: BTreeMap<SubTaskId, u32>,
    /// The planning round in flight.
    round: u32,
    /// How the task ended (its result or chat answer), until its close ends the run.
    outcome: Option<RunStatus>,
    ended: bool,
}

impl Fold {
    /// Folds one record in; records must come in log order.
    pub fn push(&mut self, record: &Record) {
        match record {
            Record::Envelope(envelope) => self.envelope(envelope),
            Record::Gap(gap) if !self.ended => self.t.skipped_messages += gap.skipped,
            Record::Cut(cut) if !self.ended => self.end(RunStatus::Unfinished, cut.at),
            Record::Gap(_) | Record::Cut(_) => {}
        }
    }

    /// Counts lines the reader could not use.
    pub fn unreadable(&mut self, lines: usize, truncated: bool) {
        self.t.unreadable_lines += lines;
        self.t.truncated |= truncated;
    }

    /// The trajectory of everything pushed.
    pub fn finish(mut self) -> Trajectory {
        self.t.rounds = std::mem::take(&mut self.rounds).into_values().collect();
        self.t
    }

    fn envelope(&mut self, env: &Envelope) {
        if self.t.started_at.is_none() {
            self.t.started_at = Some(env.timestamp);
            self.t.task_id = env.task_id.clone();
            self.t.partial = !matches!(env.message, Message::TaskSubmitted(_));
        }
        let late = self.ended;
        self.t.late_messages += usize::from(late);
        match &env.message {
            Message::TaskSubmitted(m) => {
                self.t.raw_input = Some(m.raw_input.clone());
                self.t.session_turns = m.session_history.len();
            }
            Message::TaskSpec(m) => {
                if self.t.raw_input.is_none() {
                    self.t.raw_input = Some(m.raw_input.clone());
                }
                self.t.spec = Some(m.clone());
            }
            Message::ClarificationRequest(m) => self.t.clarifications.push(ClarificationExchange {
                round: m.round,
                question: m.question.clone(),
                answer: None,
            }),
            Message::ClarificationAnswer(m) => self.answer_clarification(&m.answer),
            Message::ChatReply(m) => {
                self.outcome = Some(RunStatus::Answered);
                self.t.chat_reply = Some(m.answer.clone());
            }
            Message::MemoryRecall(m) => self.recalled(m, env.timestamp),
            Message::Megram(m) => self.t.memory_writes.push(m.megram.clone()),
            Message::DispatchManifest(m) => {
                self.round = m.round;
                self.round_mut(m.round).plan = Some(m.clone());
                for planned in &m.subtasks {
                    self.subtask_round.insert(planned.subtask_id, m.round);
                    self.subtask(planned.subtask_id).subtask = Some(planned.clone());
                }
            }
            // The release replaces the plan's copy: it is what R3 was given.
            Message::SubTask(m) => self.subtask(m.subtask_id).subtask = Some(m.clone()),
            Message::PlanningFailed(m) => {
                self.round = self.round.max(m.round);
                self.round_mut(m.round).planning_failed = Some(m.clone());
            }
            Message::DispatchHalted(m) => {
                let index = self.round;
                self.round_mut(index).skipped.extend(&m.skipped);
            }
            Message::ExecutionResult(m) => self.subtask(m.subtask_id).executions.push(m.clone()),
            Message::ToolCallEvent(m) => {
                if !late {
                    self.t.usage.record_tool_call(m.record.duration_ms);
                }
                self.subtask(m.subtask_id).tool_calls.push(m.clone());
            }
            Message::CorrectionSignal(m) => self.subtask(m.subtask_id).corrections.push(m.clone()),
            Message::SubTaskOutcome(m) => self.subtask(m.subtask_id).outcome = Some(m.clone()),
            Message::ReplanRequest(m) => {
                let index = self.round;
                self.round_mut(index).replan = Some(m.clone());
            }
            Message::OutcomeSummary(m) => {
                let index = self.round;
                self.round_mut(index).accepted = Some(m.clone());
            }
            Message::PlanDirective(m) => self.plan_directive(m, late),
            Message::FinalResult(m) => self.final_result(m, late),
            Message::GracefulFailureRequest(m) => self.t.graceful_failure_request = Some(m.clone()),
            Message::GracefulFailure(m) => self.t.graceful_failure = Some(m.clone()),
            Message::ConfirmationRequest(m) => {
                self.law1_exchange(m.request_id).request = Some(m.clone());
            }
            Message::ConfirmationDecision(m) => {
                self.law1_exchange(m.request_id).decision = Some(m.clone());
            }
            Message::LlmCall(m) if !late => self.t.usage.record_llm_call(m),
            Message::TaskClosed(m) if !late => self.closed(m, env.timestamp),
            // A late model call or close changes nothing;
            // the request/reply pair behind a calibration is summed up by the
            // MemoryRecall R2 publishes after it; R4a's close notice to R3 repeats the
            // SubTaskOutcome; audit and operator traffic belongs to no task.
            Message::LlmCall(_)
            | Message::TaskClosed(_)
            | Message::MemoryQuery(_)
            | Message::MemoryResponse(_)
            | Message::SubTaskClosed(_)
            | Message::AuditQuery(_)
            | Message::AuditReport(_)
            | Message::MemoryOperatorChange(_) => {}
        }
    }

    /// The task's close ends the run, with the result or answer heard before it.
    fn closed(&mut self, m: &c::TaskClosed, at: DateTime<Utc>) {
        let status = match &m.end {
            c::TaskClosure::Cancelled { reason } => {
                self.t.cancelled = Some(reason.clone());
                RunStatus::Cancelled
            }
            c::TaskClosure::Answered => self.outcome.unwrap_or(RunStatus::Answered),
            // The result may have been lost to a gap: the run still ends here.
            c::TaskClosure::Finished => self.outcome.unwrap_or(RunStatus::Unfinished),
        };
        self.end(status, at);
    }

    /// What memory said before a plan; recalls for a replan come after the directive
    /// advanced the round.
    fn recalled(&mut self, m: &c::MemoryRecall, at: DateTime<Utc>) {
        let index = m.round.max(self.round);
        let recall = Recall {
            at,
            recall: m.clone(),
        };
        self.round_mut(index).recalls.push(recall);
    }

    fn end(&mut self, status: RunStatus, at: DateTime<Utc>) {
        self.ended = true;
        self.t.status = status;
        self.t.ended_at = Some(at);
        self.t.elapsed_ms = self
            .t
            .started_at
            .map(|start| u64::try_from((at - start).num_milliseconds()).unwrap_or(0));
    }

    fn round_mut(&mut self, index: u32) -> &mut Round {
        self.rounds
            .entry(index)
            .or_insert_with(|| Round::new(index))
    }

    fn subtask(&mut self, id: SubTaskId) -> &mut SubtaskTrace {
        let index = *self.subtask_round.entry(id).or_insert(self.round);
        let round = self.round_mut(index);
        let at = match round.subtasks.iter().position(|s| s.subtask_id == id) {
            Some(at) => at,
            None => {
                round.subtasks.push(SubtaskTrace::new(id));
                round.subtasks.len() - 1
            }
        };
        &mut round.subtasks[at]
    }

    /// A replan: GGS's decision on the round it judged, and the move to the next.
    fn plan_directive(&mut self, m: &c::PlanDirective, late: bool) {
        let judged = self.round;
        // GGS numbers replans from 1; a directive without a number still means "the
        // next round".
        let next = if m.round > judged {
            m.round
        } else {
            judged + 1
        };
        let decision = GgsDecision {
            round: judged,
            loss: m.loss,
            grad_l: m.grad_l,
            directive: m.directive.into(),
            prev_directive: m.prev_directive,
            rationale: Some(m.rationale.clone()),
            gradient: m.gradient,
            replans: next,
        };
        self.decide(decision, late);
        self.round_mut(judged).directive = Some(m.clone());
        self.round = next;
    }

    /// The terminal decision, on every path (the accept path's included).
    fn final_result(&mut self, m: &c::FinalResult, late: bool) {
        let decision = GgsDecision {
            round: self.round,
            loss: m.loss,
            grad_l: m.grad_l,
            directive: m.directive.into(),
            prev_directive: m.prev_directive,
            rationale: None,
            gradient: None,
            replans: m.replans,
        };
        self.decide(decision, late);
        if self.t.final_result.is_none() {
            self.t.final_result = Some(m.clone());
        }
        if !late {
            self.outcome = Some(m.directive.into());
        }
    }

    /// A straggling decision (a result after a cancel, say) does not overwrite the one
    /// the run ended with.
    fn decide(&mut self, decision: GgsDecision, late: bool) {
        let round = self.round_mut(decision.round);
        if round.decision.is_none() || !late {
            round.decision = Some(decision);
        }
    }

    /// The answer goes to the latest question still open.
    fn answer_clarification(&mut self, answer: &str) {
        let mut open = self.t.clarifications.iter_mut().rev();
        if let Some(open) = open.find(|c| c.answer.is_none()) {
            open.answer = Some(answer.to_string());
        }
    }

    /// The exchange of a Law 1 request, opened by whichever half arrives first.
    fn law1_exchange(&mut self, id: RequestId) -> &mut Law1Exchange {
        let at = match self.t.law1.iter().position(|e| e.request_id == id) {
            Some(at) => at,
            None => {
                self.t.law1.push(Law1Exchange {
                    request_id: id,
                    request: None,
                    decision: None,
                });
                self.t.law1.len() - 1
            }
        };
        &mut self.t.law1[at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_keeps_roles_in_pipeline_order_and_sums_tokens() {
        let mut usage = Usage::default();
        usage.record_llm(Role::MetaValidator, 10, 5, 100, false);
        usage.record_llm(Role::Perceiver, 3, 2, 10, false);
        usage.record_llm(Role::Executor, 7, 1, 30, true);
        usage.record_llm(Role::Perceiver, 1, 1, 5, false);
        let roles: Vec<_> = usage.role_stats.iter().map(|s| s.role).collect();
        assert_eq!(
            roles,
            vec![Role::Perceiver, Role::Executor, Role::MetaValidator]
        );
        assert_eq!(usage.total_tokens, 30);
        assert_eq!(usage.llm_calls(), 4);
        let r1 = usage.role(Role::Perceiver).unwrap();
        assert_eq!((r1.calls, r1.prompt_tokens, r1.elapsed_ms), (2, 4, 15));
        assert_eq!(usage.role(Role::Executor).unwrap().errors, 1);
    }
}
