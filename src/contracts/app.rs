//! Contracts of the app around the pipeline: Law 1 confirmations, clarification, cancellation,
//! the conversational fast path and observability records.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::execution::ToolCallRecord;
use super::ids::{RequestId, SubTaskId, TaskId};
use super::role::Role;
use crate::tools::ToolRef;

/// What a gated action would do to one path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PathEffect {
    pub path: PathBuf,
    /// Whether the path existed when the request was made.
    pub exists: bool,
    /// Plain verb: `delete`, `overwrite`, `truncate`, `move`, `chmod`, …
    pub effect: String,
}

/// Executor → User: an irreversible action waits for this specific approval (Law 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConfirmationRequest {
    pub request_id: RequestId,
    pub task_id: TaskId,
    pub subtask_id: Option<SubTaskId>,
    pub tool: ToolRef,
    /// The effect in plain words.
    pub description: String,
    /// The exact command or action that will run if approved.
    pub command: String,
    pub paths: Vec<PathEffect>,
    /// Whether every effect can be undone.
    pub reversible: bool,
    /// A reversible alternative, when one exists (e.g. move to Trash).
    pub reversible_alternative: Option<String>,
    /// Deletions may be answered with "move to Trash instead".
    pub can_trash: bool,
    /// When the request is denied automatically.
    pub expires_at: DateTime<Utc>,
    /// How far an approval may reach: always `once` and `task`; `always` only for a tool
    /// of an MCP server, named in `grant`.
    #[serde(default = "once_only")]
    pub scopes: Vec<ApprovalScope>,
    /// The exact MCP tool an `always` approval would allow from now on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<GrantSubject>,
}

fn once_only() -> Vec<ApprovalScope> {
    vec![ApprovalScope::Once]
}

/// How far one approval reaches (Law 1). Anything the user did not choose is `once`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ApprovalScope {
    /// This call only.
    #[default]
    Once,
    /// This exact effect (same tool, same command, same targets) for the rest of the task.
    Task,
    /// This exact tool of this exact MCP server, in every task, until revoked.
    Always,
}

/// One tool of one MCP server, as an `always` grant names it: the server's name, how it
/// is reached (its command line or URL) and the fingerprint of the tool's definition as
/// the user saw it. A grant applies only while all of them are the same.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GrantSubject {
    pub server: String,
    /// The command line of a stdio server or the URL of an HTTP one.
    pub origin: String,
    pub tool: String,
    /// SHA-256 of the tool's definition (name, description, input schema, annotations).
    pub fingerprint: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Approve,
    Deny,
    /// Deletions only: move the targets to the Trash instead (reversible).
    Trash,
}

/// Who or what produced a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum DecisionSource {
    User,
    /// Nobody answered in time: deny.
    Timeout,
    /// The asking side went away (UI closed, task cancelled): deny.
    Dropped,
    /// Non-interactive session: deny.
    NonInteractive,
}

/// User → Executor: the answer to one [`ConfirmationRequest`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConfirmationDecision {
    pub request_id: RequestId,
    pub task_id: TaskId,
    pub decision: Decision,
    pub source: DecisionSource,
    /// How far an approval reaches; a scope the request did not offer counts as `once`.
    #[serde(default)]
    pub scope: ApprovalScope,
}

/// User → R7: a task was submitted with this time budget. The budget bounds the whole
/// task, from submit to its `FinalResult`: GGS measures Ω's elapsed term from
/// `submitted_at`, and when the budget runs out it delivers the graceful result at once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskBudget {
    pub task_id: TaskId,
    /// The user's words, for the result if the task ends before anything else is known.
    pub raw_input: String,
    pub submitted_at: DateTime<Utc>,
    pub time_budget_ms: u64,
}

/// User → every role: the task is over. The runtime sends it once per task, for every
/// way a task ends; each role lets go of what it keeps for the task, and nothing of it
/// starts afterwards.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskClosed {
    pub task_id: TaskId,
    pub end: TaskClosure,
}

/// How a task ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TaskClosure {
    /// GGS delivered its `FinalResult` (accepted, succeeded or abandoned).
    Finished,
    /// R1 answered it as conversation, without a plan.
    Answered,
    /// The user cancelled it.
    Cancelled { reason: String },
}

impl TaskClosed {
    /// The close of a task the user cancelled.
    pub fn cancelled(task_id: TaskId, reason: impl Into<String>) -> Self {
        Self {
            task_id,
            end: TaskClosure::Cancelled {
                reason: reason.into(),
            },
        }
    }
}

impl TaskClosure {
    pub fn is_cancelled(&self) -> bool {
        matches!(self, TaskClosure::Cancelled { .. })
    }
}

impl std::fmt::Display for TaskClosure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskClosure::Finished => f.write_str("finished"),
            TaskClosure::Answered => f.write_str("answered"),
            TaskClosure::Cancelled { reason } if reason.is_empty() => f.write_str("cancelled"),
            TaskClosure::Cancelled { reason } => write!(f, "cancelled: {reason}"),
        }
    }
}

/// R1 → User: a clarifying question (at most two rounds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ClarificationRequest {
    pub task_id: TaskId,
    pub question: String,
    pub round: u32,
}

/// User → R1, the reply to a [`ClarificationRequest`]. Empty = proceed as understood.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ClarificationAnswer {
    pub task_id: TaskId,
    pub answer: String,
}

/// R1 → User: the conversational fast path (greetings, questions about artoo itself).
/// Not a task result, so it is not a FinalResult (GGS is the only emitter of those).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ChatReply {
    pub task_id: TaskId,
    pub answer: String,
}

/// Role → Observer: one model call, in full, for the task log and the cost report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LlmCall {
    pub task_id: Option<TaskId>,
    pub role: Role,
    pub model: String,
    pub system_prompt: String,
    pub user_prompt: String,
    pub response: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub elapsed_ms: u64,
    #[serde(default)]
    pub error: Option<String>,
}

/// Executor → Observer: one tool call as it finishes (live pipeline, task log).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolCallEvent {
    pub task_id: TaskId,
    pub subtask_id: SubTaskId,
    pub attempt: u32,
    pub record: ToolCallRecord,
    /// Set when an earlier approval of wider scope let the call run without asking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted: Option<ApprovalScope>,
}
