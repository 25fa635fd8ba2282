//! The per-run decision log: every key decision of a task — plans,
//! sub-tasks, model calls with full prompts, tool calls, verdicts, corrections, GGS
//! decisions (D, P, Ω, L, ∇L), directives, memory reads and writes, Law 1 requests and
//! decisions — written as JSONL from a bus tap, and read back into a [`Trajectory`] without
//! re-running anything.
//!
//! - [`TaskLogWriter`] consumes a read-only [`crate::bus::Tap`] and writes
//!   `<data_dir>/tasks/<start>_<seq>_<task_id>.jsonl`, one file per run. A run starts at
//!   `TaskSubmitted` and ends at the task's `TaskClosed` (after its result, chat answer
//!   or cancel) with a `task_end` line (status, duration, per-role model usage, tool
//!   time). Lines that
//!   arrive later go to the same file flagged `after_end: true`; a tap gap becomes a
//!   `gap` line in every open run. The line format is in [`event`].
//! - [`TaskLogDir`] lists runs newest first and loads one; [`Run::trajectory`] rebuilds
//!   the rounds, decisions, directives, memory queries, Law 1 exchanges, final result and
//!   usage. A truncated last line (crash) and unknown kinds (newer versions) are skipped
//!   and reported, never fatal.
//!
//! **Invariant:** every run gets a file of its own, created with `create_new`: a reused
//! task id never appends to, or replays, an older run,
//! and nothing the writer sees about a run is dropped without a line saying so.

pub mod event;
mod reader;
mod trajectory;
mod writer;

use std::path::{Path, PathBuf};

use crate::contracts::TaskId;

pub use event::{Event, LogLine, RoleUsage, RunStatus, Usage};
pub use reader::{Run, RunId, RunSummary, SkippedLine, TaskLogDir};
pub use trajectory::{ClarificationExchange, Law1Exchange, Round, SubtaskTrace, Trajectory};
pub use writer::{FLUSH_INTERVAL, TaskLogHandle, TaskLogWriter, WriterStopped};

/// Directory of the run files inside the data dir.
pub const TASKS_DIR: &str = "tasks";

/// `<data_dir>/tasks`.
pub fn tasks_dir(data_dir: &Path) -> PathBuf {
    data_dir.join(TASKS_DIR)
}

/// A task id as it appears in run file names: ASCII letters, digits, `_` and `-` only
/// (anything else becomes `_`), at most 64 characters. The id itself is in `task_begin`.
fn file_safe_id(task_id: &TaskId) -> String {
    const MAX_CHARS: usize = 64;
    task_id
        .as_str()
        .chars()
        .take(MAX_CHARS)
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '_' || ch == '-' {
                ch
            } else {
                '_'
            }
        })
        .collect()
}

/// Errors of the reader. The writer has none: it logs IO failures and carries on.
#[derive(Debug, thiserror::Error)]
pub enum TaskLogError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("not a run file name: {0:?}")]
    InvalidRunId(String),
}
