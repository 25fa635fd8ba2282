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
    /// Another process holds the store (one instance per data dir).
    #[error(
        "the memory store {} is in use by another artoo process (its LevelDB lock is held); \
         quit the other instance or point ARTOO_DATA_DIR at another data directory",
        dir.display()
    )]
    Locked {
        /// The store's directory.
        dir: PathBuf,
    },
    /// LevelDB could not open the store.
    #[error("cannot open the memory store {}: {reason}", dir.display())]
    Open {
        /// The store's directory.
        dir: PathBuf,
        /// LevelDB's message.
        reason: String,
    },
    /// The store was written by a build with another format version.
    #[error(
        "the memory store {} has format version {found}; this build reads version {supported}",
        dir.display()
    )]
    Format {
        /// The store's directory.
        dir: PathBuf,
        /// The version the store records.
        found: String,
        /// The version this build reads.
        supported: u32,
    },
    /// A LevelDB read or write failed.
    #[error("memory storage error: {0}")]
    Storage(String),
    /// A record could not be decoded.
    #[error("corrupt memory record under {key}: {reason}")]
    Corrupt {
        /// The record's key, printable.
        key: String,
        /// What was wrong with it.
        reason: String,
    },
    /// An entry breaks a rule of the store (a value out of range, an empty space or entity).
    #[error("invalid memory entry: {0}")]
    Invalid(String),
    /// No entry has this id.
    #[error("no memory entry {0}")]
    NotFound(MegramId),
    /// The entry is in the T layer; it cannot be deleted, demoted or overwritten.
    #[error("memory entry {0} is in the T layer, which cannot be deleted, demoted or overwritten")]
    Immutable(MegramId),
    /// The store has shut down.
    #[error("the memory store is closed")]
    Closed,
}
