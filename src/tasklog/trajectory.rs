//! A run's trajectory rebuilt from its lines: what the CLI's `/replay`, the "Decisions"
//! block after a task and the desktop Tasks panel render.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::event::{self, Event, GgsDecision, LogLine, RunStatus, Usage};
use crate::contracts::{
    ConfirmationDecision, ConfirmationRequest, Loss, RequestId, SubTaskId, TaskId,
};

/// Everything a run decided, in order, without re-running it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Trajectory {
    pub task_id: Option<TaskId>,
    pub raw_input: Option<String>,
    /// R1's intent.
    pub intent: Option<String>,
    pub started_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
    pub status: RunStatus,
    /// From TaskSubmitted to the closing message; `None` while open.
    pub elapsed_ms: Option<u64>,
    /// The run's start was never seen.
    pub partial: bool,
    pub clarifications: Vec<ClarificationExchange>,
    /// The conversational fast path's answer.
    pub chat_reply: Option<String>,
    /// Planning rounds in order (round 0 = the first plan).
    pub rounds: Vec<Round>,
    pub law1: Vec<Law1Exchange>,
    pub graceful_failure_request: Option<event::GracefulFailureRequest>,
    pub graceful_failure: Option<event::GracefulFailure>,
    pub final_result: Option<event::FinalResult>,
    pub memory_writes: Vec<event::MemoryWrite>,
    pub cancelled: Option<String>,
    /// Per-role model usage and tool time: the run's `task_end`, or summed from its
    /// `llm_call`/`tool_call` lines when it has none.
    pub usage: Usage,
    /// Bus messages the writer lost while the run was open (`gap` lines).
    pub skipped_messages: u64,
    /// Lines that arrived after the run ended.
    pub late_lines: usize,
    /// The file ends in a cut-off line.
    pub truncated: bool,
    /// Lines that could not be read (unknown kinds, corrupt lines).
    pub unreadable_lines: usize,
}

/// One planning round: what memory said, the plan, what ran, how it was judged and what
/// GGS decided.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Round {
    pub index: u32,
    pub memory_queries: Vec<event::MemoryQuery>,
    pub plan: Option<event::Plan>,
    pub subtasks: Vec<SubtaskTrace>,
    /// R4b's verdicts on the task criteria.
    pub task_verdicts: Vec<event::CriterionVerdict>,
    pub replan: Option<event::Replan>,
    /// R4b accepted the merged output.
    pub accepted: Option<event::OutcomeSummary>,
    pub planning_failed: Option<event::PlanningFailed>,
    /// Sub-tasks of this round's plan that never ran because an earlier group failed.
    pub skipped: Vec<crate::contracts::SubTaskId>,
    /// GGS's decision on this round (D, P, Ω, L, ∇L, directive).
    pub decision: Option<GgsDecision>,
    /// The directive that sent the task back to R2 after this round.
    pub directive: Option<event::PlanDirective>,
}

impl Round {
    fn new(index: u32) -> Self {
        Self {
            index,
            memory_queries: Vec::new(),
            plan: None,
            subtasks: Vec::new(),
            task_verdicts: Vec::new(),
            replan: None,
            accepted: None,
            planning_failed: None,
            skipped: Vec::new(),
            decision: None,
            directive: None,
        }
    }

    pub fn loss(&self) -> Option<Loss> {
        self.decision.as_ref().map(|d| d.loss)
    }
}

/// One sub-task's fast loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SubtaskTrace {
    pub subtask_id: SubTaskId,
    /// `None` when its `subtask_begin` was lost to a gap.
    pub begin: Option<event::SubtaskBegin>,
    pub executions: Vec<event::Execution>,
    pub tool_calls: Vec<event::ToolCall>,
    pub corrections: Vec<event::Correction>,
    pub verdicts: Vec<event::CriterionVerdict>,
    pub end: Option<event::SubtaskEnd>,
}

impl SubtaskTrace {
    fn new(subtask_id: SubTaskId) -> Self {
        Self {
            subtask_id,
            begin: None,
            executions: Vec::new(),
            tool_calls: Vec::new(),
            corrections: Vec::new(),
            verdicts: Vec::new(),
            end: None,
        }
    }
}

/// A Law 1 confirmation and its answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Law1Exchange {
    pub request_id: RequestId,
    /// `None` when only the decision was logged.
    pub request: Option<ConfirmationRequest>,
    /// `None` while unanswered.
    pub decision: Option<ConfirmationDecision>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ClarificationExchange {
    pub round: u32,
    pub question: String,
    pub answer: Option<String>,
}

impl Trajectory {
    /// Folds a run's lines, in file order.
    pub fn from_lines(lines: &[LogLine]) -> Trajectory {
        let mut builder = Builder::default();
        for line in lines {
            builder.add(line);
        }
        builder.finish()
    }

    /// GGS's decisions in round order.
    pub fn decisions(&self) -> impl Iterator<Item = &GgsDecision> {
        self.rounds.iter().filter_map(|r| r.decision.as_ref())
    }

    /// The number of planning rounds that dispatched a plan.
    pub fn plans(&self) -> usize {
        self.rounds.iter().filter(|r| r.plan.is_some()).count()
    }
}

#[derive(Default)]
struct Builder {
    t: Trajectory,
    rounds: BTreeMap<u32, Round>,
    /// Round of each sub-task, from its `subtask_begin`.
    subtask_round: BTreeMap<SubTaskId, u32>,
    current_round: u32,
    /// Usage summed from the lines, for runs without `task_end`.
    tally: Usage,
    end: Option<event::TaskEnd>,
}

impl Builder {
    fn round(&mut self, index: u32) -> &mut Round {
        self.rounds
            .entry(index)
            .or_insert_with(|| Round::new(index))
    }

    fn subtask(&mut self, id: SubTaskId) -> &mut SubtaskTrace {
        let index = self
            .subtask_round
            .get(&id)
            .copied()
            .unwrap_or(self.current_round);
        self.subtask_round.insert(id, index);
        let round = self.round(index);
        match round.subtasks.iter().position(|s| s.subtask_id == id) {
            Some(pos) => &mut round.subtasks[pos],
            None => {
                round.subtasks.push(SubtaskTrace::new(id));
                round.subtasks.last_mut().expect("just pushed")
            }
        }
    }

    fn add(&mut self, line: &LogLine) {
        if line.after_end {
            self.t.late_lines += 1;
        }
        match &line.event {
            Event::TaskBegin(b) => self.begin(b, line.ts),
            Event::TaskSpec(s) => {
                self.t.intent = Some(s.intent.clone());
                if self.t.raw_input.is_none() {
                    self.t.raw_input = Some(s.raw_input.clone());
                }
            }
            Event::Clarification(c) => self.t.clarifications.push(ClarificationExchange {
                round: c.round,
                question: c.question.clone(),
                answer: None,
            }),
            Event::ClarificationAnswer(a) => self.answer_clarification(&a.answer),
            Event::ChatReply(r) => self.t.chat_reply = Some(r.answer.clone()),
            Event::MemoryQuery(q) => self.round(q.round).memory_queries.push(q.clone()),
            Event::Plan(p) => {
                self.current_round = p.round;
                self.round(p.round).plan = Some(p.clone());
            }
            Event::SubtaskBegin(b) => {
                self.subtask_round.insert(b.subtask_id, b.round);
                self.subtask(b.subtask_id).begin = Some(b.clone());
            }
            Event::Execution(e) => self.subtask(e.subtask_id).executions.push(e.clone()),
            Event::ToolCall(c) => {
                if !line.after_end {
                    self.tally.record_tool_call(c.duration_ms);
                }
                self.subtask(c.subtask_id).tool_calls.push(c.clone());
            }
            Event::CriterionVerdict(v) => match v.subtask_id {
                Some(id) => self.subtask(id).verdicts.push(v.clone()),
                None => {
                    let index = v.round.unwrap_or(self.current_round);
                    self.round(index).task_verdicts.push(v.clone());
                }
            },
            Event::Correction(c) => self.subtask(c.subtask_id).corrections.push(c.clone()),
            Event::SubtaskEnd(e) => self.subtask(e.subtask_id).end = Some(e.clone()),
            Event::DispatchHalted(h) => {
                let round = self.current_round;
                self.round(round).skipped.extend(h.skipped.iter().copied());
            }
            Event::Replan(r) => self.round(r.round).replan = Some(r.clone()),
            Event::OutcomeSummary(s) => self.round(s.round).accepted = Some(s.clone()),
            Event::GgsDecision(d) => self.decision(d, line.after_end),
            Event::PlanDirective(d) => {
                self.round(d.round).directive = Some(d.clone());
                self.current_round = d.round + 1;
            }
            Event::PlanningFailed(f) => {
                self.current_round = f.round;
                self.round(f.round).planning_failed = Some(f.clone());
            }
            Event::GracefulFailureRequest(r) => self.t.graceful_failure_request = Some(r.clone()),
            Event::GracefulFailure(g) => self.t.graceful_failure = Some(g.clone()),
            Event::FinalResult(f) => {
                if self.t.final_result.is_none() {
                    self.t.final_result = Some(f.clone());
                }
            }
            Event::MemoryWrite(w) => self.t.memory_writes.push(w.clone()),
            Event::Law1Request(r) => self.law1_exchange(r.request_id).request = Some(r.clone()),
            Event::Law1Decision(d) => self.law1_exchange(d.request_id).decision = Some(d.clone()),
            Event::LlmCall(c) => {
                if !line.after_end {
                    self.tally.record_llm_call(c);
                }
            }
            Event::Cancelled(c) => {
                if self.t.cancelled.is_none() {
                    self.t.cancelled = Some(c.reason.clone());
                }
            }
            Event::Gap(g) => self.t.skipped_messages += g.skipped,
            Event::TaskEnd(e) => {
                if self.end.is_none() {
                    self.end = Some(e.clone());
                    self.t.ended_at = Some(line.ts);
                }
            }
        }
    }

    fn begin(&mut self, b: &event::TaskBegin, at: DateTime<Utc>) {
        if self.t.task_id.is_none() {
            self.t.task_id = Some(b.task_id.clone());
            self.t.raw_input = b.raw_input.clone();
            self.t.started_at = Some(at);
            self.t.partial = b.partial;
        }
    }

    /// The answer goes to the latest question still open.
    fn answer_clarification(&mut self, answer: &str) {
        if let Some(open) = self
            .t
            .clarifications
            .iter_mut()
            .rev()
            .find(|c| c.answer.is_none())
        {
            open.answer = Some(answer.to_string());
        }
    }

    /// A straggling decision (a FinalResult after a cancel, say) does not overwrite the
    /// one the run ended with.
    fn decision(&mut self, d: &GgsDecision, after_end: bool) {
        let round = self.round(d.round);
        if round.decision.is_none() || !after_end {
            round.decision = Some(d.clone());
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

    fn finish(mut self) -> Trajectory {
        let mut t = self.t;
        t.rounds = std::mem::take(&mut self.rounds).into_values().collect();
        match self.end {
            Some(end) => {
                t.status = end.status;
                t.elapsed_ms = Some(end.elapsed_ms);
                t.usage = end.usage;
            }
            None => {
                t.status = RunStatus::Open;
                t.usage = self.tally;
            }
        }
        t
    }
}
