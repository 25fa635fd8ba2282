//! Progress people can read: one plain-language line per phase of a task, written from
//! the bus envelopes by code, in the UI language. The CLI prints these lines; the desktop
//! shell sends each envelope's line to the popup with it.
//!
//! A line needs a little memory of the task — which plan is in force and where each
//! sub-task stands in it, so "Step 2 of 3" means the same thing in every line — kept
//! per task in a [`StatusBoard`] and dropped when the task ends.
//!
//! **Invariant:** a status line never shows internal labels (role codes, directive names,
//! `[LAW1]`, token counts, loss numbers): those stay in the pipeline view. Envelopes that
//! do not start a new phase (model-call records, memory writes, audits, replies that
//! close a request already described) give no line.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::bus::Envelope;
use crate::contracts::{
    ConstraintSource, Message, SubTaskId, SubTaskStatus, TaskId, ToolCallRecord, ToolCallStatus,
};
use crate::text::one_line;

mod words;

pub use words::{Words, plain_summary};

/// Longest quoted text (an intent, a path, a reason) inside a status line.
const QUOTE_CHARS: usize = 72;

/// The languages of the UI.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Simplified Chinese.
    ZhCn,
}

impl Lang {
    /// The language of a `ui.language` setting (`en`, `zh-CN`); English otherwise.
    pub fn from_tag(tag: &str) -> Lang {
        match tag {
            "zh-CN" | "zh" | "zh-Hans" => Lang::ZhCn,
            _ => Lang::En,
        }
    }

    /// The `ui.language` setting for this language: `en` or `zh-CN`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhCn => "zh-CN",
        }
    }
}

/// Where one task's plan stands: the sub-tasks of the plan in force, in plan order.
#[derive(Debug, Default)]
struct Plan {
    steps: Vec<SubTaskId>,
}

impl Plan {
    /// `(n, of)` for a sub-task of this plan, 1-based.
    fn position(&self, id: &SubTaskId) -> Option<(usize, usize)> {
        self.steps
            .iter()
            .position(|s| s == id)
            .map(|i| (i + 1, self.steps.len()))
    }
}

/// Turns envelopes into status lines, keeping per task what the lines refer to.
#[derive(Debug, Default)]
pub struct StatusBoard {
    words: Words,
    home: Option<PathBuf>,
    plans: HashMap<TaskId, Plan>,
}

impl StatusBoard {
    /// `home` is shown as `~` in paths.
    pub fn new(lang: Lang, home: Option<PathBuf>) -> Self {
        Self {
            words: Words(lang),
            home,
            plans: HashMap::new(),
        }
    }

    /// The language the lines are written in.
    pub fn lang(&self) -> Lang {
        self.words.0
    }

    /// Switches the language of the lines from now on.
    pub fn set_lang(&mut self, lang: Lang) {
        self.words = Words(lang);
    }

    /// How many tasks the board remembers (ended tasks are dropped).
    pub fn tasks(&self) -> usize {
        self.plans.len()
    }

    fn short(&self, text: &str) -> String {
        let text = match &self.home {
            Some(home) => crate::text::tilde(text, home),
            None => text.to_string(),
        };
        one_line(&text, QUOTE_CHARS)
    }

    fn step(&self, task: &TaskId, id: &SubTaskId) -> Option<(usize, usize)> {
        self.plans.get(task).and_then(|p| p.position(id))
    }

    /// The status line `env` gives, if it starts a phase a person would want to know
    /// about.
    pub fn line(&mut self, env: &Envelope) -> Option<String> {
        let w = self.words;
        let line = match &env.message {
            Message::TaskSubmitted(_) => w.reading(),
            Message::ClarificationRequest(m) => w.question(&self.short(&m.question)),
            Message::ClarificationAnswer(m) if m.answer.trim().is_empty() => w.proceeding(),
            Message::ClarificationAnswer(_) => w.answered(),
            Message::ChatReply(m) => {
                self.plans.remove(&m.task_id);
                w.chat()
            }
            Message::TaskSpec(m) => w.understood(&self.short(&m.intent)),
            Message::MemoryQuery(_) => w.recalling(),
            Message::MemoryRecall(m) if m.round > 0 => return None,
            Message::MemoryRecall(m) => {
                let lessons = m
                    .constraints
                    .iter()
                    .filter(|c| c.source != ConstraintSource::Law)
                    .count();
                w.planning(lessons)
            }
            Message::DispatchManifest(m) => {
                self.plans.insert(
                    m.task_id.clone(),
                    Plan {
                        steps: m.subtask_ids().collect(),
                    },
                );
                w.plan(m.subtasks.len(), m.round)
            }
            Message::SubTask(_)
            | Message::ToolCallEvent(_)
            | Message::ExecutionResult(_)
            | Message::CorrectionSignal(_)
            | Message::SubTaskOutcome(_) => return self.step_line(env),
            Message::DispatchHalted(m) => w.halted(m.skipped.len()),
            Message::ReplanRequest(m) => w.reviewing(
                m.failed_outcomes.len(),
                m.failed_outcomes.len() + m.matched_outcomes.len(),
            ),
            Message::OutcomeSummary(_) => w.checking_whole(),
            Message::PlanDirective(m) => w.replan(m.directive, &self.short(&m.failed_criterion)),
            Message::PlanningFailed(m) => w.no_plan(&self.short(&m.reason)),
            Message::GracefulFailureRequest(_) => w.giving_up(),
            Message::FinalResult(m) => {
                self.plans.remove(&m.task_id);
                w.finished(m.directive)
            }
            Message::ConfirmationRequest(m) => w.approval(&self.short(&m.description)),
            Message::ConfirmationDecision(m) => w.decided(m.decision, m.source),
            Message::TaskClosed(m) => {
                self.plans.remove(&m.task_id);
                // A result or a chat answer already said how the task ended.
                if !m.end.is_cancelled() {
                    return None;
                }
                w.cancelled()
            }
            Message::MemoryResponse(_)
            | Message::SubTaskClosed(_)
            | Message::GracefulFailure(_)
            | Message::Megram(_)
            | Message::MemoryOperatorChange(_)
            | Message::AuditQuery(_)
            | Message::AuditReport(_)
            | Message::LlmCall(_) => return None,
        };
        Some(line)
    }

    /// The line of an envelope about one step of the plan: released, acting, checked,
    /// corrected or closed.
    fn step_line(&mut self, env: &Envelope) -> Option<String> {
        let w = self.words;
        let line = match &env.message {
            // A step starts when the dispatcher releases it to the executor.
            Message::SubTask(m) => {
                let at = self.step(&m.parent_task_id, &m.subtask_id);
                w.step_start(at, &self.short(&m.intent))
            }
            Message::ToolCallEvent(m) => {
                let at = self.step(&m.task_id, &m.subtask_id);
                let activity = self.activity(&m.record);
                match m.record.status {
                    ToolCallStatus::Ok => w.step_doing(at, &activity),
                    ToolCallStatus::Error | ToolCallStatus::Refused => w.step_snag(
                        at,
                        &activity,
                        &self.short(m.record.error.as_deref().unwrap_or_default()),
                    ),
                    ToolCallStatus::Denied => w.step_denied(at, &activity),
                }
            }
            Message::ExecutionResult(m) => {
                let at = self.step(&m.parent_task_id, &m.subtask_id);
                w.checking_step(at)
            }
            Message::CorrectionSignal(m) => {
                let at = self.step(&m.parent_task_id, &m.subtask_id);
                w.retry(
                    at,
                    &self.short(&m.what_was_wrong),
                    &self.short(&m.what_to_do),
                )
            }
            Message::SubTaskOutcome(m) => {
                let at = self.step(&m.parent_task_id, &m.subtask_id);
                match m.status {
                    SubTaskStatus::Matched => w.step_done(at),
                    SubTaskStatus::Failed => {
                        let why = m
                            .gap_trajectory
                            .last()
                            .filter(|p| !p.unmet_criteria.is_empty())
                            .map(|p| p.unmet_criteria.join("; "))
                            .or_else(|| m.failure_reason.clone())
                            .unwrap_or_default();
                        w.step_failed(at, &self.short(&why))
                    }
                }
            }
            _ => return None,
        };
        Some(line)
    }

    /// What a tool call does, in words ("listing ~/Downloads").
    fn activity(&self, record: &ToolCallRecord) -> String {
        self.words
            .activity(&record.tool, &self.short(&record.target))
    }
}

#[cfg(test)]
mod tests;
