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
use crate::contracts::{SubTaskId, TaskId, ToolCallRecord, ToolCallStatus, ToolFailure, ToolName};
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

    /// Adds again the record of a call that already ran in an earlier attempt of the
    /// sub-task, shown again instead of run again: the attempt's answer rests on it as on
    /// a call of its own. Its effects and any Law 1 decision were the earlier call's and
    /// are not counted twice.
    pub fn recall(&self, mut record: ToolCallRecord) {
        record.effects.clear();
        record.confirmation = None;
        record.duration_ms = 0;
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

    /// The earlier call with exactly this tool and input that ran (or was put to the
    /// user), with its 1-based number. A call a guard refused never ran: if it comes
    /// again, the same guard answers it again, or, where what made the guard refuse has
    /// changed (a file written since), it runs. A call whose place a later call changed
    /// is no longer identical to a new one: asked again, it shows the place as it is now.
    pub(super) fn identical(
        &self,
        tool: &ToolRef,
        input: &Value,
    ) -> Option<(usize, ToolCallRecord)> {
        let records = self.lock();
        records
            .iter()
            .enumerate()
            .find(|(i, r)| {
                r.tool == *tool
                    && r.input == *input
                    && r.status != ToolCallStatus::Refused
                    && !records[i + 1..]
                        .iter()
                        .any(|later| later.changed(&r.target))
            })
            .map(|(i, r)| (i + 1, r.clone()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ToolCallRecord>> {
        crate::sync::lock(&self.records)
    }
}

/// What the sub-tasks of one task learned about calls, shared across their attempts and
/// the task's replans: every call that failed, and how many calls that could change
/// files succeeded since the task began. Cheap to clone; clones share.
///
/// The rule it serves: a call that failed is not issued again in the task while nothing
/// the task did could have changed what it saw — the same call would fail the same way,
/// and a small model otherwise spends its whole budget retrying one broken command.
/// "The same" is read after canonicalisation ([`canonical`]): blanks outside quotes do
/// not make a call new.
#[derive(Clone, Debug, Default)]
pub struct TaskCalls {
    inner: Arc<Mutex<TaskCallsInner>>,
}

#[derive(Debug, Default)]
struct TaskCallsInner {
    failed: Vec<FailedCall>,
    /// Successful calls so far that could have changed files.
    changes: u64,
    /// What the task's calls have shown of its data (column names, first-seen order).
    seen: super::Seen,
    /// What the task's successful calls did to files, in order (at most
    /// [`MAX_TASK_EFFECTS`]).
    effects: Vec<PathEffect>,
    /// Whether a call brought in text from outside this computer (see
    /// [`TaskCalls::read_untrusted`]).
    untrusted: bool,
}

/// Effects a task's memory keeps; a task that made more has its first ones.
const MAX_TASK_EFFECTS: usize = 1_000;

#[derive(Debug)]
struct FailedCall {
    tool: ToolRef,
    key: Value,
    /// The path the failure was about, when it was the path's fault (see
    /// [`path_at_fault`]): every call of the tool on that path fails the same way.
    path: Option<String>,
    error: String,
    /// [`TaskCallsInner::changes`] when it failed.
    changes: u64,
}

/// An earlier failure of the same call in this task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EarlierFailure {
    /// What the call said when it failed.
    pub error: String,
    /// The failure was the path's (missing, or a folder where a file is read), and this
    /// call names the same path with other values: not the exact call, the same fault.
    pub same_path: bool,
}

/// The phrase a reading tool's error carries when it was given a folder.
pub const A_FOLDER: &str = "is a folder";

/// The path of a typed tool's failed call when the path itself is what failed: it does
/// not exist, or it is a folder where the tool reads a file. Whatever else such a call
/// changes (a line filter, a column), it fails the same way; a small model otherwise
/// retries a folder with one filter after another.
fn path_at_fault(record: &ToolCallRecord) -> Option<String> {
    record.tool.builtin().filter(|t| *t != ToolName::Shell)?;
    let error = record.error.as_deref().unwrap_or("");
    let fault = record.failure == Some(ToolFailure::NotFound) || error.contains(A_FOLDER);
    fault.then(|| path_param(&record.input)).flatten()
}

/// The path or folder a typed call names, with its blanks trimmed.
fn path_param(input: &Value) -> Option<String> {
    let obj = input.as_object()?;
    super::lenient_param(obj, &["path", "folder"])
        .and_then(Value::as_str)
        .map(|p| p.trim().trim_end_matches('/').to_string())
        .filter(|p| !p.is_empty())
}

impl TaskCalls {
    /// An empty memory, for a new task.
    pub fn new() -> Self {
        Self::default()
    }

    /// The failure of the same call earlier in the task, if nothing that could change
    /// files succeeded since.
    pub fn failed_before(&self, tool: &ToolRef, input: &Value) -> Option<EarlierFailure> {
        let key = canonical(input);
        let path = path_param(input);
        let inner = crate::sync::lock(&self.inner);
        inner
            .failed
            .iter()
            .rev()
            .filter(|f| f.tool == *tool && f.changes == inner.changes)
            .find_map(|f| {
                let exact = f.key == key;
                let same_path = f.path.is_some() && f.path == path;
                (exact || same_path).then(|| EarlierFailure {
                    error: f.error.clone(),
                    same_path: !exact,
                })
            })
    }

    /// Takes note that a call of the task brought in text from outside this computer: a
    /// web search, a network read, a tool of an MCP server.
    pub fn note_untrusted(&self) {
        crate::sync::lock(&self.inner).untrusted = true;
    }

    /// Whether the task has read text from outside this computer. Such text may carry
    /// instructions nobody gave; no standing grant approves what the task does after it.
    pub fn read_untrusted(&self) -> bool {
        crate::sync::lock(&self.inner).untrusted
    }

    /// Takes note of the columns a table call has shown.
    pub fn saw_columns(&self, columns: &[String]) {
        let mut inner = crate::sync::lock(&self.inner);
        for column in columns {
            if !inner.seen.columns.contains(column) {
                inner.seen.columns.push(column.clone());
            }
        }
    }

    /// What the task's calls have shown of its data so far.
    pub fn seen(&self) -> super::Seen {
        crate::sync::lock(&self.inner).seen.clone()
    }

    /// Takes note of one finished call: a failure is remembered; a success of a tool
    /// that can change files makes every earlier failure worth one more try.
    pub fn note(&self, record: &ToolCallRecord) {
        let mut inner = crate::sync::lock(&self.inner);
        let failed = record.status == ToolCallStatus::Error || record.failed_exit.is_some();
        if failed {
            let error = record
                .error
                .clone()
                .or_else(|| {
                    record
                        .failed_exit
                        .map(|code| format!("exit status {code}: {}", record.output_head))
                })
                .unwrap_or_default();
            let changes = inner.changes;
            inner.failed.push(FailedCall {
                tool: record.tool.clone(),
                key: canonical(&record.input),
                path: path_at_fault(record),
                error,
                changes,
            });
        } else if record.status == ToolCallStatus::Ok && may_change_files(&record.tool) {
            inner.changes += 1;
        }
        if record.status == ToolCallStatus::Ok {
            let room = MAX_TASK_EFFECTS.saturating_sub(inner.effects.len());
            inner
                .effects
                .extend(record.effects.iter().take(room).cloned());
        }
    }

    /// What the task's successful calls have done to files so far, every sub-task's.
    pub fn effects(&self) -> Vec<PathEffect> {
        crate::sync::lock(&self.inner).effects.clone()
    }
}

/// Whether a tool's success may have changed files: every tool but the ones that only
/// read or search.
fn may_change_files(tool: &ToolRef) -> bool {
    !tool
        .builtin()
        .is_some_and(crate::contracts::ToolName::only_reads)
}

/// A call's parameters with every string's blanks outside quotes collapsed to one space
/// and trimmed, so calls that differ only in spacing compare equal.
pub fn canonical(input: &Value) -> Value {
    match input {
        Value::String(s) => Value::String(collapse_blanks(s)),
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), canonical(v))).collect())
        }
        other => other.clone(),
    }
}

/// Runs of blanks outside single or double quotes become one space; the ends are
/// trimmed. Quoted text is kept as written.
fn collapse_blanks(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut quote: Option<char> = None;
    let mut pending_space = false;
    for c in s.trim().chars() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c.is_whitespace() => pending_space = true,
            None => {
                if pending_space {
                    out.push(' ');
                    pending_space = false;
                }
                if c == '\'' || c == '"' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

/// Where a running call reports what it did to files (the file it wrote, what the
/// sandbox kept of a command); the toolbox moves them into the call's record, so every
/// effect of a task is data on the bus, not a claim in the model's words. Cheap to clone;
/// clones share.
#[derive(Clone, Debug, Default)]
pub struct Effects(Arc<Mutex<Vec<PathEffect>>>);

impl Effects {
    /// Notes one effect of the running call.
    pub fn note(&self, effect: PathEffect) {
        crate::sync::lock(&self.0).push(effect);
    }

    /// The effects noted since the last take.
    pub(super) fn take(&self) -> Vec<PathEffect> {
        std::mem::take(&mut *crate::sync::lock(&self.0))
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
    /// What the task's sub-tasks learned about calls (failures across attempts and
    /// replans).
    pub task_calls: TaskCalls,
    /// What the running call did to files.
    pub effects: Effects,
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
            task_calls: TaskCalls::new(),
            effects: Effects::default(),
            cancel: CancellationToken::new(),
            config,
            broker,
            request: None,
            folder: None,
        }
    }

    /// artoo's journal of changes to files, in the data dir.
    pub fn journal(&self) -> crate::journal::Journal {
        crate::journal::Journal::in_data_dir(&self.config.data_dir)
    }

    /// Journals changes this call made, for an undo of the task. A journal that cannot
    /// be written leaves the changes made; the returned line says they cannot be undone.
    pub fn journal_changes(&self, changes: &[crate::journal::Change]) -> Option<String> {
        let recorded = self.journal().record(self.task_id.as_ref(), changes);
        recorded.err().map(|e| {
            tracing::warn!(error = %e, "the journal could not be written");
            format!("(these changes could not be journaled, so they cannot be undone: {e})")
        })
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

    fn record(tool: ToolName, input: Value, status: ToolCallStatus) -> ToolCallRecord {
        ToolCallRecord {
            tool: tool.into(),
            target: String::new(),
            input,
            output_head: String::new(),
            status,
            error: (status != ToolCallStatus::Ok).then(|| "jq: error: Cannot index array".into()),
            failure: None,
            duration_ms: 1,
            confirmation: None,
            failed_exit: None,
            effects: Vec::new(),
            grant: None,
        }
    }

    use crate::contracts::ToolName;
    use serde_json::json;

    #[test]
    fn a_failed_call_is_known_again_in_any_spacing_until_something_may_have_changed_files() {
        let calls = TaskCalls::new();
        let jq = json!({"command": "jq '.items[] | .name'   data.json"});
        calls.note(&record(ToolName::Shell, jq.clone(), ToolCallStatus::Error));
        // Another sub-task's clone sees it (shared), and blanks outside quotes do not count.
        let other = calls.clone();
        let respaced = json!({"command": " jq '.items[] | .name' data.json "});
        let earlier = other
            .failed_before(&ToolName::Shell.into(), &respaced)
            .expect("the same call failed before");
        assert!(earlier.error.contains("Cannot index array"), "{earlier:?}");
        // Quoted text is part of the call: a different program is a different call.
        let changed = json!({"command": "jq '.items[]  | .name' data.json"});
        assert!(
            other
                .failed_before(&ToolName::Shell.into(), &changed)
                .is_none()
        );
        // A different tool with the same input is a different call.
        assert!(
            other
                .failed_before(&ToolName::ReadFile.into(), &jq)
                .is_none()
        );
        // A read that succeeds changes nothing …
        calls.note(&record(
            ToolName::ReadFile,
            json!({"path": "/d"}),
            ToolCallStatus::Ok,
        ));
        assert!(calls.failed_before(&ToolName::Shell.into(), &jq).is_some());
        // … a write that succeeds may have made the failed call work.
        calls.note(&record(
            ToolName::WriteFile,
            json!({"path": "/d"}),
            ToolCallStatus::Ok,
        ));
        assert!(calls.failed_before(&ToolName::Shell.into(), &jq).is_none());
    }

    #[test]
    fn a_command_that_exited_with_an_error_counts_as_failed_and_a_success_does_not() {
        let calls = TaskCalls::new();
        let mut exited = record(
            ToolName::Shell,
            json!({"command": "ls x"}),
            ToolCallStatus::Ok,
        );
        exited.failed_exit = Some(2);
        exited.output_head = "ls: cannot access 'x'".into();
        calls.note(&exited);
        let earlier = calls
            .failed_before(&ToolName::Shell.into(), &json!({"command": "ls x"}))
            .expect("an error exit is a failure");
        assert!(earlier.error.contains("exit status 2"), "{earlier:?}");
        let fine = TaskCalls::new();
        fine.note(&record(
            ToolName::Glob,
            json!({"pattern": "*.md"}),
            ToolCallStatus::Ok,
        ));
        assert!(
            fine.failed_before(&ToolName::Glob.into(), &json!({"pattern": "*.md"}))
                .is_none()
        );
    }

    #[test]
    fn a_path_that_failed_as_such_fails_every_call_of_the_tool_on_it() {
        let calls = TaskCalls::new();
        let mut folder = record(
            ToolName::ReadLines,
            json!({"path": "/h/texts", "op": "all", "text": "null"}),
            ToolCallStatus::Error,
        );
        folder.error = Some(format!("invalid input: /h/texts {A_FOLDER}; list it"));
        calls.note(&folder);
        let again = json!({"path": "/h/texts/", "op": "count", "text": "."});
        let earlier = calls
            .failed_before(&ToolName::ReadLines.into(), &again)
            .expect("the folder again, with another filter");
        assert!(earlier.same_path, "{earlier:?}");
        // A file in it, or another tool on it, is another call.
        let file = json!({"path": "/h/texts/north.txt", "op": "count"});
        assert!(
            calls
                .failed_before(&ToolName::ReadLines.into(), &file)
                .is_none()
        );
        assert!(
            calls
                .failed_before(&ToolName::ListFiles.into(), &json!({"folder": "/h/texts"}))
                .is_none()
        );
        // A missing path counts the same; a failure of another kind binds only the call.
        let mut missing = record(
            ToolName::ReadTable,
            json!({"path": "/h/a.csv", "op": "sum", "column": "x"}),
            ToolCallStatus::Error,
        );
        missing.failure = Some(ToolFailure::NotFound);
        calls.note(&missing);
        let other_op = json!({"path": "/h/a.csv", "op": "schema"});
        assert!(
            calls
                .failed_before(&ToolName::ReadTable.into(), &other_op)
                .is_some()
        );
        let mut column = record(
            ToolName::ReadTable,
            json!({"path": "/h/b.csv", "op": "sum", "column": "x"}),
            ToolCallStatus::Error,
        );
        column.failure = Some(ToolFailure::Invalid);
        calls.note(&column);
        let schema = json!({"path": "/h/b.csv", "op": "schema"});
        assert!(
            calls
                .failed_before(&ToolName::ReadTable.into(), &schema)
                .is_none()
        );
    }

    #[test]
    fn canonical_keeps_quoted_blanks_and_collapses_the_rest() {
        assert_eq!(
            collapse_blanks("  a   b\t'c  d'  \"e  f\" "),
            "a b 'c  d' \"e  f\""
        );
        assert_eq!(
            canonical(&json!({"a": ["x  y"], "n": 3})),
            json!({"a": ["x y"], "n": 3})
        );
    }
}
