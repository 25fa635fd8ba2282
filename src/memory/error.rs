//! [`MemoryError`]: every way a memory operation can fail, one variant per case a
//! caller branches on (the shell maps them to IPC codes, the CLI to messages).
//!
//! **Invariant:** an error names what it is about (the directory, the key, the id), so a
//! message is actionable without a log; nothing here depends on another memory module.

use std::path::PathBuf;

use crate::contracts::MegramId;

/// Why a memory operation failed.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error(
        "the memory store {} is in use by another artoo process (its LevelDB lock is held); \
         quit the other instance or point ARTOO_DATA_DIR at another data directory",
        dir.display()
    )]
    Locked { dir: PathBuf },
    #[error("cannot open the memory store {}: {reason}", dir.display())]
    Open { dir: PathBuf, reason: String },
    #[error(
        "the memory store {} has format version {found}; this build reads version {supported}",
        dir.display()
    )]
    Format {
        dir: PathBuf,
        found: String,
        supported: u32,
    },
    #[error("memory storage error: {0}")]
    Storage(String),
    #[error("corrupt memory record under {key}: {reason}")]
    Corrupt { key: String, reason: String },
    #[error("invalid memory entry: {0}")]
    Invalid(String),
    #[error("no memory entry {0}")]
    NotFound(MegramId),
    #[error("memory entry {0} is in the T layer, which cannot be deleted, demoted or overwritten")]
    Immutable(MegramId),
    #[error("the memory store is closed")]
    Closed,
}
