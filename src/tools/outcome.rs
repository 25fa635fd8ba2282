//! What one tool call comes to: the tool's error, the outcome recorded as data, and the
//! result handed to the executor.
//!
//! Invariant: no outcome ends a task; a failure, a refusal and a denial are all data the
//! model and the validators read.

use super::sandbox;
use crate::contracts::{ToolCallRecord, ToolCallStatus, ToolFailure};

/// Why a tool could not do its work. Reported to the model and R4a as an `error`
/// record; never ends the task.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The call's arguments were malformed or out of range.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The tool needs macOS and this is another platform.
    #[error("{tool} is unavailable on this platform ({platform}): it needs macOS")]
    Unavailable {
        /// The tool.
        tool: super::ToolName,
        /// The platform this is, as Rust names it.
        platform: &'static str,
    },
    /// What the call named does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The system refused access to what the call named.
    #[error("{0}")]
    Forbidden(String),
    /// The call ran out of time; it and every process it started were stopped.
    #[error("timed out after {secs} s; the command and every process it started were stopped")]
    Timeout {
        /// The time limit, in seconds.
        secs: u64,
        /// What it printed before it was stopped.
        partial: String,
    },
    /// The web search could not be reached or gave no usable answer.
    #[error("search unavailable ({0}) — do not guess: report that the web could not be searched")]
    SearchUnavailable(String),
    /// The task was cancelled while the call ran.
    #[error("cancelled: the task was cancelled, so the call was stopped")]
    Cancelled,
    /// A file-system operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, e.g. `cannot read ~/notes.txt`.
        context: String,
        /// The error the system gave.
        #[source]
        source: std::io::Error,
    },
    /// The tool ran and failed (a command's error exit, a refused write).
    #[error("{0}")]
    Failed(String),
    /// The sandbox could not run the command (not installed, cannot start here).
    #[error("the sandbox cannot run it: {0}")]
    SandboxUnavailable(String),
    /// The command ran in the sandbox, which refused some of what it did.
    #[error("{}", sandbox::refusal_message(refused))]
    SandboxRefused {
        /// Each change the sandbox refused.
        refused: Vec<crate::contracts::PathEffect>,
        /// What the command printed (it ran; its refused changes were not kept).
        output: String,
    },
    /// The command ran in the sandbox and changed what Law 1 cares about: its whole layer
    /// is held, nothing of it applied, until the user answers (the gate asks).
    #[error("the command's changes are held until the user answers")]
    SandboxHeld {
        /// The held layer.
        held: Box<sandbox::Held>,
        /// What the command printed.
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

    /// The kind of this failure, for the record R4a and GGS branch on. A search that
    /// could not reach its service is `network`; an I/O error takes the kind of its
    /// `std::io::ErrorKind` where one fits; a sandbox that cannot start is `unavailable`;
    /// a sandbox refusal is `failed` (the gate reports it as a refusal anyway).
    pub fn failure(&self) -> ToolFailure {
        match self {
            ToolError::InvalidInput(_) => ToolFailure::Invalid,
            ToolError::Unavailable { .. } | ToolError::SandboxUnavailable(_) => {
                ToolFailure::Unavailable
            }
            ToolError::NotFound(_) => ToolFailure::NotFound,
            ToolError::Forbidden(_) => ToolFailure::Forbidden,
            ToolError::Timeout { .. } => ToolFailure::Timeout,
            ToolError::SearchUnavailable(_) => ToolFailure::Network,
            ToolError::Cancelled => ToolFailure::Cancelled,
            ToolError::Io { source, .. } => io_failure(source.kind()),
            ToolError::Failed(_)
            | ToolError::SandboxRefused { .. }
            | ToolError::SandboxHeld { .. } => ToolFailure::Failed,
        }
    }

    /// Output produced before the failure (a timed-out command's partial output).
    pub(super) fn partial_output(&self) -> &str {
        match self {
            ToolError::Timeout { partial, .. } => partial,
            ToolError::SandboxRefused { output, .. } | ToolError::SandboxHeld { output, .. } => {
                output
            }
            _ => "",
        }
    }
}

fn io_failure(kind: std::io::ErrorKind) -> ToolFailure {
    use std::io::ErrorKind as K;
    match kind {
        // A path whose parent is a file names nothing that exists either.
        K::NotFound | K::NotADirectory => ToolFailure::NotFound,
        K::PermissionDenied | K::ReadOnlyFilesystem => ToolFailure::Forbidden,
        K::TimedOut => ToolFailure::Timeout,
        K::ConnectionRefused
        | K::ConnectionReset
        | K::ConnectionAborted
        | K::NotConnected
        | K::AddrNotAvailable
        | K::HostUnreachable
        | K::NetworkUnreachable
        | K::NetworkDown => ToolFailure::Network,
        K::InvalidInput | K::InvalidData => ToolFailure::Invalid,
        K::Unsupported => ToolFailure::Unavailable,
        _ => ToolFailure::Failed,
    }
}

/// How one call ended, as data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolOutcome {
    /// The call did what it was asked.
    Ok {
        /// What it produced.
        output: String,
    },
    /// The tool could not do it (bad input, missing file, timeout, platform).
    Error {
        /// Why it failed.
        message: String,
        /// What it printed before failing; empty when nothing.
        output: String,
        /// The kind of failure.
        failure: ToolFailure,
    },
    /// Law 1: the user (or the timeout) said no.
    Denied {
        /// Why, as the user or the timeout gave it.
        reason: String,
    },
    /// Refused in code before running (cancelled, blocked, duplicate, unknown tool).
    Refused {
        /// What stopped it.
        reason: String,
    },
}

impl ToolOutcome {
    /// The status the evidence record carries.
    pub fn status(&self) -> ToolCallStatus {
        match self {
            ToolOutcome::Ok { .. } => ToolCallStatus::Ok,
            ToolOutcome::Error { .. } => ToolCallStatus::Error,
            ToolOutcome::Denied { .. } => ToolCallStatus::Denied,
            ToolOutcome::Refused { .. } => ToolCallStatus::Refused,
        }
    }
}

impl From<&ToolError> for ToolOutcome {
    fn from(err: &ToolError) -> Self {
        ToolOutcome::Error {
            message: err.to_string(),
            output: err.partial_output().to_string(),
            failure: err.failure(),
        }
    }
}

/// What the executor gets back from one call.
#[derive(Clone, Debug)]
pub struct ToolResult {
    /// How the call ended.
    pub outcome: ToolOutcome,
    /// The evidence record (also published and kept in the call history).
    pub record: ToolCallRecord,
    /// What the model sees: the output cut to head + tail, or the reason.
    pub for_model: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_not_found_and_a_timeout_is_infrastructure() {
        let missing = ToolError::NotFound("/Users/me/network_config.txt does not exist".into());
        assert_eq!(missing.failure(), ToolFailure::NotFound);
        assert!(!missing.failure().is_infrastructure());
        let timeout = ToolError::Timeout {
            secs: 30,
            partial: String::new(),
        };
        assert_eq!(timeout.failure(), ToolFailure::Timeout);
        assert!(timeout.failure().is_infrastructure());
        let refused = ToolError::io(
            "connecting",
            std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
        );
        assert_eq!(refused.failure(), ToolFailure::Network);
    }

    #[test]
    fn an_io_error_that_names_nothing_existing_is_not_found() {
        for kind in [
            std::io::ErrorKind::NotFound,
            std::io::ErrorKind::NotADirectory,
        ] {
            let err = ToolError::io("cannot open /h/a.txt/b", std::io::Error::from(kind));
            assert_eq!(err.failure(), ToolFailure::NotFound, "{kind:?}");
        }
        let denied = ToolError::io(
            "cannot open /h/secret",
            std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        );
        assert_eq!(
            denied.failure(),
            ToolFailure::Forbidden,
            "refused, not missing"
        );
        let other = ToolError::io(
            "cannot read /h/disk",
            std::io::Error::from(std::io::ErrorKind::Interrupted),
        );
        assert_eq!(other.failure(), ToolFailure::Failed);
    }
}
