//! One line per bus message, for every reader that shows traffic to a person: the CLI's
//! live pipeline (which only adds paint, arrows between roles and layout), the audit
//! log's timeline, and the desktop's message flow (the shell sends each envelope with its
//! line, [`DescribedEnvelope`]). The line of each message is written by one small
//! function, grouped by what the messages are about: `intake`, `memory`, `plan`,
//! `execution` and `oversight`; [`spell`] holds the spellings of numbers and enums they
//! share with the CLI's other views.
//!
//! **Invariant:** every message kind yields a non-empty summary line of data, not prose
//! (counts, states, losses, excerpts of the payload's own text), with no line break and
//! at most [`LINE_CHARS`] characters; its continuation lines keep the same bounds.

mod execution;
mod intake;
mod memory;
mod oversight;
mod plan;
pub mod spell;

use std::sync::Arc;

use serde::Serialize;

use crate::bus::Envelope;
use crate::config::GgsParams;
use crate::contracts::{MacroState, Message};
use crate::text::one_line;

/// The longest a summary line (or a continuation line) may be.
pub const LINE_CHARS: usize = 240;
/// Longest payload excerpt on a line.
const DETAIL_CHARS: usize = 96;
/// Longest excerpt of a nested item (a criterion, a constraint) on a line.
const ITEM_CHARS: usize = 48;

/// What a message says, in a line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// The essentials of the message as one line.
    pub line: String,
    /// Continuation lines for the few messages that carry a reason worth reading in full
    /// (a replan's rationale, the tools and targets it blocks).
    pub more: Vec<String>,
    /// The macro-state a GGS decision or a Megram carries.
    pub state: Option<MacroState>,
}

impl Summary {
    /// The line and its continuation lines as one line of at most `max` characters, for a
    /// record with room for a single line (the audit log).
    pub fn joined(&self, max: usize) -> String {
        let mut text = self.line.clone();
        for more in &self.more {
            text.push_str(" · ");
            text.push_str(more);
        }
        one_line(&text, max)
    }

    /// Holds the invariant whatever the message held: one line each, within bounds, and a
    /// summary line that is never empty.
    fn bounded(self) -> Self {
        let line = one_line(&self.line, LINE_CHARS);
        Self {
            line: if line.is_empty() {
                "(empty)".into()
            } else {
                line
            },
            more: self.more.iter().map(|m| one_line(m, LINE_CHARS)).collect(),
            state: self.state,
        }
    }
}

impl From<String> for Summary {
    fn from(line: String) -> Self {
        Self {
            line,
            ..Self::default()
        }
    }
}

/// The summary of one message. `ggs` supplies ε and δ for the gradient arrow of a
/// decision that does not name its gradient.
pub fn describe(message: &Message, ggs: &GgsParams) -> Summary {
    let summary = match message {
        Message::TaskSubmitted(m) => intake::task_submitted(m).into(),
        Message::ClarificationRequest(m) => intake::clarification_request(m).into(),
        Message::ClarificationAnswer(m) => intake::clarification_answer(m).into(),
        Message::ChatReply(m) => one_line(&m.answer, DETAIL_CHARS).into(),
        Message::TaskSpec(m) => intake::task_spec(m).into(),
        Message::TaskClosed(m) => one_line(&m.end.to_string(), DETAIL_CHARS).into(),
        Message::MemoryQuery(m) => format!("[{} / {}]", m.space, m.entity).into(),
        Message::MemoryResponse(m) => memory::memory_response(m).into(),
        Message::MemoryRecall(m) => memory::memory_recall(m).into(),
        Message::Megram(m) => memory::megram(m),
        Message::MemoryOperatorChange(m) => memory::operator_change(m).into(),
        Message::DispatchManifest(m) => plan::dispatch_manifest(m).into(),
        Message::SubTask(m) => plan::subtask(m).into(),
        Message::PlanDirective(m) => plan::plan_directive(m, ggs),
        Message::PlanningFailed(m) => plan::planning_failed(m).into(),
        Message::GracefulFailureRequest(m) => plan::graceful_failure_request(m).into(),
        Message::GracefulFailure(m) => plan::graceful_failure(m).into(),
        Message::FinalResult(m) => plan::final_result(m, ggs),
        Message::ToolCallEvent(m) => execution::tool_call_event(m).into(),
        Message::ExecutionResult(m) => execution::execution_result(m).into(),
        Message::CorrectionSignal(m) => execution::correction_signal(m).into(),
        Message::SubTaskOutcome(m) => execution::subtask_outcome(m).into(),
        Message::SubTaskClosed(m) => execution::subtask_closed(m).into(),
        Message::DispatchHalted(m) => execution::dispatch_halted(m).into(),
        Message::ReplanRequest(m) => execution::replan_request(m).into(),
        Message::OutcomeSummary(m) => execution::outcome_summary(m).into(),
        Message::ConfirmationRequest(m) => oversight::confirmation_request(m).into(),
        Message::ConfirmationDecision(m) => oversight::confirmation_decision(m).into(),
        Message::AuditQuery(m) => format!("on-demand · query {}", m.query_id).into(),
        Message::AuditReport(m) => oversight::audit_report(m).into(),
        Message::LlmCall(m) => oversight::llm_call(m).into(),
    };
    summary.bounded()
}

/// A bus envelope with its summary line, as the desktop shell sends it to the UI and the
/// golden transcripts keep it: the envelope's own fields, and `line`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct DescribedEnvelope {
    /// The envelope as sent, its fields flattened into this object.
    #[serde(flatten)]
    pub envelope: Arc<Envelope>,
    /// The summary line of the envelope's message (`describe`).
    pub line: String,
}

impl DescribedEnvelope {
    /// Describes `envelope`; `ggs` supplies the thresholds its summary line reads numbers against.
    pub fn new(envelope: Arc<Envelope>, ggs: &GgsParams) -> Self {
        let line = describe(&envelope.message, ggs).line;
        Self { envelope, line }
    }
}

#[cfg(test)]
mod tests;
