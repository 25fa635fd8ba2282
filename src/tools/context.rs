//! What one call runs in: the sub-task's call history, its context (who asks, what is
//! forbidden, how to ask the user, which folder), how a user's path is resolved, and the
//! file-system view Law 1 reads scripts through.
//!
//! Invariant: a path from the model is resolved against the user's real home and the
//! sub-task's folder once, here; tools never guess a home of their own.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::contracts::PathEffect;
use crate::contracts::{SubTaskId, TaskId, ToolCallRecord};
use crate::laws::broker::ConfirmationBroker;
use crate::laws::classify::{self, FsView};
use crate::tools::ToolRef;

/// The calls of one sub-task so far, across its attempts, and what the sandbox refused
/// of each command. Cheap to clone; clones share.
#[derive(Clone, Debug, Default)]
pub struct CallHistory {
    records: Arc<Mutex<Vec<ToolCallRecord>>>,
    refusals: Arc<Mutex<Vec<Refusal>>>,
}

/// What the sandbox refused of one command.
type Refusal = (String, Vec<PathEffect>);

impl CallHistory {
    /// An empty history.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every record so far, in call order.
    pub fn records(&self) -> Vec<ToolCallRecord> {
        self.lock().clone()
    }

    /// How many calls were recorded.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no call was recorded.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    pub(super) fn push(&self, record: ToolCallRecord) {
        self.lock().push(record);
    }

    /// What the sandbox refused when `command` last ran in it.
    pub fn refusal_of(&self, command: &str) -> Vec<PathEffect> {
        crate::sync::lock(&self.refusals)
            .iter()
            .rev()
            .find(|(c, _)| c == command)
            .map(|(_, r)| r.clone())
            .unwrap_or_default()
    }

    pub(super) fn remember_refusal(&self, command: &str, refused: Vec<PathEffect>) {
        crate::sync::lock(&self.refusals).push((command.to_string(), refused));
    }

    /// The earlier call with exactly this tool and input, with its 1-based number.
    pub(super) fn identical(
        &self,
        tool: &ToolRef,
        input: &Value,
    ) -> Option<(usize, ToolCallRecord)> {
        self.lock()
            .iter()
            .enumerate()
            .find(|(_, r)| r.tool == *tool && r.input == *input)
            .map(|(i, r)| (i + 1, r.clone()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ToolCallRecord>> {
        crate::sync::lock(&self.records)
    }
}

/// Everything one call needs: who asks, what is forbidden, how to ask the user.
#[derive(Clone, Debug)]
pub struct ToolContext {
    /// The task the call is for.
    pub task_id: TaskId,
    /// The sub-task the call is for.
    pub subtask_id: SubTaskId,
    /// The fast-loop attempt, 1 for the first.
    pub attempt: u32,
    /// Tools the plan directive forbids (refused in code).
    pub blocked_tools: Vec<ToolRef>,
    /// Paths, queries or commands the plan directive forbids (refused in code).
    pub blocked_targets: Vec<String>,
    /// Tools of a memory Caution approach: every call of them asks the user first in
    /// this task, even when Law 1's classifier calls the action reversible.
    pub confirm_tools: Vec<ToolRef>,
    /// The calls made so far in this sub-task.
    pub history: CallHistory,
    /// Cancels the call with the task.
    pub cancel: CancellationToken,
    /// The configuration, for tool limits.
    pub config: Arc<Config>,
    /// Asks the user under Law 1.
    pub broker: ConfirmationBroker,
    /// The sub-task's request (its intent, written by the planner from the user's words
    /// before anything was read). Once the sub-task has read something, an irreversible
    /// action of a kind these words never ask for is refused in code
    /// ([`crate::laws::requested`]). `None` checks nothing.
    pub request: Option<String>,
    /// The folder the sub-task is about (the first folder its words name), if any:
    /// where relative paths to read and glob patterns without a root are taken from.
    /// New files still go to the workspace.
    pub folder: Option<PathBuf>,
}

impl ToolContext {
    /// A context for the first attempt of a sub-task: nothing blocked, no history, its own
    /// cancellation token.
    pub fn new(
        task_id: TaskId,
        subtask_id: SubTaskId,
        config: Arc<Config>,
        broker: ConfirmationBroker,
    ) -> Self {
        Self {
            task_id,
            subtask_id,
            attempt: 1,
            blocked_tools: Vec::new(),
            blocked_targets: Vec::new(),
            confirm_tools: Vec::new(),
            history: CallHistory::new(),
            cancel: CancellationToken::new(),
            config,
            broker,
            request: None,
            folder: None,
        }
    }

    /// `~`, `~/x` and relative paths resolved: home for `~`, the workspace otherwise.
    pub fn resolve_path(&self, raw: &str) -> PathBuf {
        resolve_user_path(raw, &self.config.home, &self.config.workspace)
    }

    /// Where a path to read or search is looked for when it is relative: the sub-task's
    /// folder, else the workspace.
    pub fn base_dir(&self) -> &Path {
        self.folder.as_deref().unwrap_or(&self.config.workspace)
    }

    /// A path to read or search, resolved like [`Self::resolve_path`] but relative to
    /// [`Self::base_dir`].
    pub fn resolve_read_path(&self, raw: &str) -> PathBuf {
        resolve_user_path(raw, &self.config.home, self.base_dir())
    }
}

/// Resolves a path the model wrote: `~` → home, relative → under `base`.
pub(crate) fn resolve_user_path(raw: &str, home: &Path, base: &Path) -> PathBuf {
    let raw = raw.trim();
    let path = if raw == "~" {
        home.to_path_buf()
    } else if let Some(rest) = raw.strip_prefix("~/") {
        home.join(rest)
    } else if let Some(rest) = raw.strip_prefix("$HOME/") {
        home.join(rest)
    } else if Path::new(raw).is_absolute() {
        guessed_home(raw, home).unwrap_or_else(|| PathBuf::from(raw))
    } else {
        base.join(raw.strip_prefix("./").unwrap_or(raw))
    };
    classify::text::normalize(&path)
}

/// A path under a home folder that is not this user's (`/home/user/notes`,
/// `/Users/name/Downloads` — small models write such guesses) read as the same path
/// under the real home, when the guessed home does not exist and the real one has it.
fn guessed_home(raw: &str, home: &Path) -> Option<PathBuf> {
    let rest = raw
        .strip_prefix("/home/")
        .or_else(|| raw.strip_prefix("/Users/"))?;
    let (user, below) = rest.split_once('/').unwrap_or((rest, ""));
    let guessed = Path::new(raw).ancestors().find(|a| a.ends_with(user))?;
    if user.is_empty() || guessed == home || guessed.exists() {
        return None;
    }
    let real = home.join(below);
    real.exists().then_some(real)
}

/// The real disk, as the Law 1 classifier may see it.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealFs;

/// Scripts larger than this are not read for classification (they fail closed).
const SCRIPT_READ_LIMIT: u64 = 256 * 1024;

impl FsView for RealFs {
    fn exists(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok()
    }

    fn is_dir(&self, path: &Path) -> bool {
        std::fs::metadata(path).is_ok_and(|m| m.is_dir())
    }

    fn read_script(&self, path: &Path) -> Option<String> {
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() || meta.len() > SCRIPT_READ_LIMIT {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        if bytes.contains(&0) {
            return None;
        }
        String::from_utf8(bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guessed_home_reads_as_the_real_one_only_when_the_guess_does_not_exist() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("real");
        std::fs::create_dir_all(home.join("notes")).unwrap();
        let ws = home.join("ws");
        assert_eq!(
            resolve_user_path("/home/user/notes", &home, &ws),
            home.join("notes")
        );
        assert_eq!(
            resolve_user_path("/Users/name/notes/a.txt", &home, &ws),
            PathBuf::from("/Users/name/notes/a.txt"),
            "the real home has no notes/a.txt: the path stays as written"
        );
        assert_eq!(
            resolve_user_path("/home/user/elsewhere", &home, &ws),
            PathBuf::from("/home/user/elsewhere")
        );
        assert_eq!(
            resolve_user_path("/etc/hosts", &home, &ws),
            PathBuf::from("/etc/hosts")
        );
    }
}
