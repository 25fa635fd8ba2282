//! The recording of each run: every envelope of a task, as published, in a file of its
//! own, and the one fold that reads a run back into a [`Trajectory`] without re-running
//! anything.
//!
//! - [`TaskLogWriter`] consumes a read-only [`crate::bus::Tap`] and writes
//!   `<data_dir>/tasks/<start>_<seq>_<task_id>.jsonl`, one file per run, one
//!   [`Record`] per line. A run starts at `TaskSubmitted` and ends at the task's
//!   `TaskClosed` (after its result, chat answer or cancel); what arrives later goes to
//!   the same file, and the fold counts it as late. A tap gap becomes a `gap` record in
//!   every open run, and a run the writer stops hearing before its close gets a `cut`.
//! - [`TaskLogDir`] lists runs newest first and loads one; [`Run::trajectory`] folds the
//!   rounds, decisions, directives, memory recalls, Law 1 exchanges, the result and the
//!   cost, and [`Run::envelopes`] gives the desktop's Tasks panel the traffic itself. A
//!   truncated last line (crash) and unknown message types (newer versions) are skipped
//!   and reported, never fatal.
//!
//! **Invariant:** every run gets a file of its own, created with `create_new`: a reused
//! task id never appends to, or replays, an older run, and nothing the writer sees about
//! a run is dropped without a record saying so.

pub mod kinds;
mod reader;
pub(crate) mod record;
mod trajectory;
mod writer;

use std::path::{Path, PathBuf};

use crate::contracts::TaskId;

pub use reader::{Run, RunId, RunSummary, SkippedLine, TaskLogDir};
pub use record::Record;
pub use trajectory::{
    ClarificationExchange, Fold, GgsDecision, Law1Exchange, Recall, RoleUsage, Round, RunStatus,
    SubtaskTrace, Trajectory, Usage,
};
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
    /// A task-log file or the directory could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error the system gave.
        #[source]
        source: std::io::Error,
    },
    /// The name is not a plain run file name.
    #[error("not a run file name: {0:?}")]
    InvalidRunId(String),
}
