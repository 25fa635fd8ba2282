//! What one tool call comes to: the tool's error, the outcome recorded as data, and the
//! result handed to the executor.
//!
//! Invariant: no outcome ends a task; a failure, a refusal and a denial are all data the
//! model and the validators read.

use super::sandbox;
use crate::contracts::{ToolCallRecord, ToolCallStatus};

/// Why a tool could not do its work. Reported to the model and R4a as an `error`
/// record; never ends the task.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("invalid input: {0}")]
    InvalidInput(String),
    #[error("{tool} is unavailable on this platform ({platform}): it needs macOS")]
    Unavailable {
        tool: &'static str,
        platform: &'static str,
    },
    #[error("{0}")]
    NotFound(String),
    #[error("timed out after {secs} s; the command and every process it started were stopped")]
    Timeout { secs: u64, partial: String },
    #[error("search unavailable ({0}) — do not guess: report that the web could not be searched")]
    SearchUnavailable(String),
    #[error("cancelled: the task was cancelled, so the call was stopped")]
    Cancelled,
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Failed(String),
    /// The sandbox could not run the command (not installed, cannot start here).
    #[error("the sandbox cannot run it: {0}")]
    SandboxUnavailable(String),
    /// The command ran in the sandbox, which refused some of what it did.
    #[error("{}", sandbox::refusal_message(refused))]
    SandboxRefused {
        refused: Vec<crate::contracts::PathEffect>,
        /// What the command printed (it ran; its refused changes were not kept).
        output: String,
    },
}

impl ToolError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        ToolError::Io {
            context: context.into(),
            source,
        }
    }

    /// Output produced before the failure (a timed-out command's partial output).
    pub(super) fn partial_output(&self) -> &str {
        match self {
            ToolError::Timeout { partial, .. } => partial,
            ToolError::SandboxRefused { output, .. } => output,
            _ => "",
        }
    }
}

/// How one call ended, as data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolOutcome {
    Ok {
        output: String,
    },
    /// The tool could not do it (bad input, missing file, timeout, platform).
    Error {
        message: String,
        output: String,
    },
    /// Law 1: the user (or the timeout) said no.
    Denied {
        reason: String,
    },
    /// Refused in code before running (cancelled, blocked, duplicate, unknown tool).
    Refused {
        reason: String,
    },
}

impl ToolOutcome {
    pub fn status(&self) -> ToolCallStatus {
        match self {
            ToolOutcome::Ok { .. } => ToolCallStatus::Ok,
            ToolOutcome::Error { .. } => ToolCallStatus::Error,
            ToolOutcome::Denied { .. } => ToolCallStatus::Denied,
            ToolOutcome::Refused { .. } => ToolCallStatus::Refused,
        }
    }
}

/// What the executor gets back from one call.
#[derive(Clone, Debug)]
pub struct ToolResult {
    pub outcome: ToolOutcome,
    /// The evidence record (also published and kept in the call history).
    pub record: ToolCallRecord,
    /// What the model sees: the output cut to head + tail, or the reason.
    pub for_model: String,
}
