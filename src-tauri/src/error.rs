//! The one error every command rejects with: `IpcError { code, message }`, where `code` is
//! what the UI branches on (docs/ui.md) and `message` is a sentence for the user.
//!
//! **Invariant:** every core error maps to exactly one code here, and no message carries
//! an API key (they never reach this layer: keys live in the keychain module).

use artoo::auditor::AuditError;
use artoo::config::ConfigError;
use artoo::memory::MemoryError;
use artoo::runtime::{AnswerError, RuntimeError};
use artoo::tasklog::TaskLogError;
use serde::{Deserialize, Serialize};

/// The codes the UI branches on (`IpcErrorCode` in ui/src/ipc/backend.ts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum IpcErrorCode {
    /// The request itself is wrong: an empty text, a bad id or value.
    InvalidInput,
    /// What it names does not exist, or is no longer open.
    NotFound,
    /// The action is never allowed, such as forgetting a T-layer entry.
    Forbidden,
    /// Something already running blocks it.
    Busy,
    /// The settings do not validate.
    ConfigInvalid,
    /// The system keychain cannot be used.
    KeychainUnavailable,
    /// Another app holds the global shortcut.
    HotkeyConflict,
    /// The core did not answer in time.
    Timeout,
    /// The core is not running: no model is set up yet, or it failed to start.
    Unavailable,
    /// Anything else; the message says what.
    Internal,
}

/// What a rejected command resolves to in the webview.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, specta::Type, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct IpcError {
    /// What the UI branches on.
    pub code: IpcErrorCode,
    /// A sentence for the user.
    pub message: String,
}

impl IpcError {
    /// An error with `code` and `message`.
    pub fn new(code: IpcErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// An `invalid_input` error.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(IpcErrorCode::InvalidInput, message)
    }

    /// A `not_found` error.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(IpcErrorCode::NotFound, message)
    }

    /// An `internal` error.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(IpcErrorCode::Internal, message)
    }

    /// The core is not running: no model is configured yet, or it failed to start.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(IpcErrorCode::Unavailable, message)
    }
}

/// What every command returns.
pub type IpcResult<T> = Result<T, IpcError>;

impl From<RuntimeError> for IpcError {
    fn from(e: RuntimeError) -> Self {
        let code = match &e {
            RuntimeError::EmptyTask => IpcErrorCode::InvalidInput,
            RuntimeError::UnknownTask(_) => IpcErrorCode::NotFound,
            RuntimeError::AuditTimeout(_) => IpcErrorCode::Timeout,
            RuntimeError::Stopped => IpcErrorCode::Unavailable,
            RuntimeError::Answer(a) => return IpcError::from_answer(a),
            RuntimeError::Memory(m) => return IpcError::from(m),
            RuntimeError::Audit(_) | RuntimeError::Llm(_) => IpcErrorCode::Internal,
        };
        IpcError::new(code, e.to_string())
    }
}

impl IpcError {
    fn from_answer(e: &AnswerError) -> Self {
        match e {
            // The question is no longer open (answered, expired, never asked, or its task
            // ended): the UI closes the dialog and says so.
            AnswerError::NoSuchConfirmation(_) | AnswerError::NoSuchClarification(_) => {
                IpcError::not_found(e.to_string())
            }
            AnswerError::TrashNotOffered => IpcError::invalid(e.to_string()),
        }
    }
}

impl From<&MemoryError> for IpcError {
    fn from(e: &MemoryError) -> Self {
        let text = e.to_string();
        let code = match e {
            MemoryError::Immutable(_) => IpcErrorCode::Forbidden,
            MemoryError::NotFound(_) => IpcErrorCode::NotFound,
            MemoryError::Invalid(_) => IpcErrorCode::InvalidInput,
            MemoryError::Closed | MemoryError::Locked { .. } => IpcErrorCode::Unavailable,
            MemoryError::Open { .. }
            | MemoryError::Format { .. }
            | MemoryError::Storage(_)
            | MemoryError::Corrupt { .. } => IpcErrorCode::Internal,
        };
        IpcError::new(code, text)
    }
}

impl From<MemoryError> for IpcError {
    fn from(e: MemoryError) -> Self {
        IpcError::from(&e)
    }
}

impl From<AuditError> for IpcError {
    fn from(e: AuditError) -> Self {
        IpcError::internal(format!("audit history: {e}"))
    }
}

impl From<TaskLogError> for IpcError {
    fn from(e: TaskLogError) -> Self {
        match &e {
            TaskLogError::InvalidRunId(_) => IpcError::invalid(e.to_string()),
            TaskLogError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                IpcError::not_found(e.to_string())
            }
            TaskLogError::Io { .. } => IpcError::internal(format!("task logs: {e}")),
        }
    }
}

impl From<ConfigError> for IpcError {
    fn from(e: ConfigError) -> Self {
        let code = match e {
            ConfigError::Io { .. } => IpcErrorCode::Internal,
            _ => IpcErrorCode::ConfigInvalid,
        };
        IpcError::new(code, e.to_string())
    }
}
