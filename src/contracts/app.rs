//! Contracts of the app around the pipeline: Law 1 confirmations, clarification, cancellation,
//! the conversational fast path and observability records.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::execution::ToolCallRecord;
use super::ids::{RequestId, SubTaskId, TaskId};
use super::role::Role;
use super::tool::ToolRef;

/// What a gated action would do to one path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PathEffect {
    /// A file or folder the action would touch.
    pub path: PathBuf,
    /// Whether the path existed when the request was made.
    pub exists: bool,
    /// Plain verb: `delete`, `overwrite`, `truncate`, `move`, `chmod`, …
    pub effect: String,
}

impl PathEffect {
    /// The effect as done, for a line a person reads: `created`, `appended to`,
    /// `replaced`, `deleted`, `moved`; any other verb as it is.
    pub fn done(&self) -> &str {
        match self.effect.as_str() {
            "create" => "created",
            "append" => "appended to",
            "overwrite" => "replaced",
            "delete" => "deleted",
            "move" => "moved",
            other => other,
        }
    }
}

/// Executor → User: an irreversible action waits for this specific approval (Law 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConfirmationRequest {
    /// The id the answer must carry.
    pub request_id: RequestId,
    /// The task whose executor asks.
    pub task_id: TaskId,
    /// The sub-task that made the call; None when no sub-task did.
    pub subtask_id: Option<SubTaskId>,
    /// The tool that would run.
    pub tool: ToolRef,
    /// The effect in plain words.
    pub description: String,
    /// The exact command or action that will run if approved.
    pub command: String,
    /// Each file or folder the action touches, with what happens to it.
    pub paths: Vec<PathEffect>,
    /// Whether every effect can be undone.
    pub reversible: bool,
    /// A reversible alternative, when one exists (e.g. move to Trash).
    pub reversible_alternative: Option<String>,
    /// Deletions may be answered with "move to Trash instead".
    pub can_trash: bool,
    /// When the request is denied automatically.
    pub expires_at: DateTime<Utc>,
    /// How far an approval may reach: always `once` and `task`; `always` for a tool of
    /// an MCP server, named in `grant`, or for a class of file effects, named in
    /// `effect_grant`, once the user approved that class often enough.
    #[serde(default = "once_only")]
    pub scopes: Vec<ApprovalScope>,
    /// The exact MCP tool an `always` approval would allow from now on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<GrantSubject>,
    /// The class of file effects this request belongs to, when a standing grant may
    /// cover it: what an `always` approval would allow from now on (offered only when
    /// `scopes` holds `always`). None when a hard floor rules grants out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect_grant: Option<EffectClass>,
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
    /// The MCP server's name in the settings.
    pub server: String,
    /// The command line of a stdio server or the URL of an HTTP one.
    pub origin: String,
    /// The tool's name on that server.
    pub tool: String,
    /// SHA-256 of the tool's definition (name, description, input schema, annotations).
    pub fingerprint: String,
}

/// A kind of change to files that a grant by effect can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum FileEffect {
    /// Deleting files or folders.
    Delete,
    /// Replacing a file's content.
    Overwrite,
    /// Emptying a file.
    Truncate,
    /// Changing permissions or the owner.
    Permissions,
    /// Moving files away from where they are.
    Move,
}

/// One class of changes to files, as an "always allow" grant by effect names it: one
/// kind of change, to anything inside one folder (at any depth), optionally only to
/// files of one extension. `words` says it as the dialog and the lists show it
/// ("deleting .tmp files under ~/Downloads"); it is made from the other fields and plays
/// no part in what the class covers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EffectClass {
    /// The kind of change.
    pub effect: FileEffect,
    /// The folder, absolute.
    pub place: PathBuf,
    /// Only files with this extension (lower case, without the dot), when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension: Option<String>,
    /// The class in plain words.
    pub words: String,
}

/// The answer to a Law 1 request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Run the action as asked.
    Approve,
    /// Do not run it; the denial goes back to the model as data.
    Deny,
    /// Deletions only: move the targets to the Trash instead (reversible).
    Trash,
}

/// Who or what produced a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum DecisionSource {
    /// The user answered.
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
    /// The request this answers.
    pub request_id: RequestId,
    /// The task of the request.
    pub task_id: TaskId,
    /// What was decided.
    pub decision: Decision,
    /// Who or what decided.
    pub source: DecisionSource,
    /// How far an approval reaches; a scope the request did not offer counts as `once`.
    #[serde(default)]
    pub scope: ApprovalScope,
}

/// User → every role: the task is over. The runtime sends it once per task, for every
/// way a task ends; each role lets go of what it keeps for the task, and nothing of it
/// starts afterwards.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskClosed {
    /// The task that closed.
    pub task_id: TaskId,
    /// How it ended.
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
    Cancelled {
        /// Why, as the user or the entry point gave it.
        reason: String,
    },
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
    pub(crate) fn is_cancelled(&self) -> bool {
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
    /// The task being clarified.
    pub task_id: TaskId,
    /// The question, in the user's language.
    pub question: String,
    /// 1 for the first question, 2 for the second; there is no third.
    pub round: u32,
}

/// User → R1, the reply to a [`ClarificationRequest`]. Empty = proceed as understood.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ClarificationAnswer {
    /// The task being clarified.
    pub task_id: TaskId,
    /// The user's answer; empty means proceed as understood.
    pub answer: String,
}

/// R1 → User: the conversational fast path (greetings, questions about artoo itself).
/// Not a task result, so it is not a FinalResult (GGS is the only emitter of those).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ChatReply {
    /// The task the reply closes.
    pub task_id: TaskId,
    /// The answer, in the user's language.
    pub answer: String,
}

/// Role → Observer: one model call, in full, for the task log and the cost report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LlmCall {
    /// The task the call served; None for calls outside a task (the Dreamer, probes).
    pub task_id: Option<TaskId>,
    /// The role that made the call.
    pub role: Role,
    /// The model name the endpoint was asked for.
    pub model: String,
    /// The system prompt sent.
    pub system_prompt: String,
    /// The user prompt sent.
    pub user_prompt: String,
    /// The model's reply text; empty when the call failed.
    pub response: String,
    /// Tokens in the prompt, as the endpoint counted them.
    pub prompt_tokens: u64,
    /// Tokens in the reply, as the endpoint counted them.
    pub completion_tokens: u64,
    /// Wall time of the call, in milliseconds.
    pub elapsed_ms: u64,
    /// Why the call failed; None when it succeeded.
    #[serde(default)]
    pub error: Option<String>,
}

/// Executor → Observer: one tool call as it finishes (live pipeline, task log).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolCallEvent {
    /// The task the call belongs to.
    pub task_id: TaskId,
    /// The sub-task that made the call.
    pub subtask_id: SubTaskId,
    /// The fast-loop attempt it was made in, 1 for the first.
    pub attempt: u32,
    /// The call as the evidence records it.
    pub record: ToolCallRecord,
    /// Set when an earlier approval of wider scope let the call run without asking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted: Option<ApprovalScope>,
}
