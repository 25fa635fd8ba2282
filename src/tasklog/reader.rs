//! The reader: lists run files and loads one, tolerating what a crash or a newer version
//! leaves behind.

use std::fmt;
use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::record::{self, Record};
use super::trajectory::{Fold, RunStatus, Trajectory};
use super::{TaskLogError, file_safe_id, tasks_dir};
use crate::bus::Envelope;
use crate::contracts::TaskId;

/// The name of one run file, e.g. `20260101T000000.000Z_000000000042_task_3f9a.jsonl`.
/// Checked to be a plain file name, so a UI-supplied id cannot point outside the dir.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(try_from = "String", into = "String")]
pub struct RunId(String);

impl RunId {
    /// Accepts a plain `.jsonl` file name: not empty, no leading dot, no path separator.
    pub fn parse(name: impl Into<String>) -> Result<Self, TaskLogError> {
        let name = name.into();
        let plain = !name.is_empty()
            && !name.starts_with('.')
            && !name.contains(['/', '\\', '\0'])
            && name.ends_with(".jsonl");
        if plain {
            Ok(RunId(name))
        } else {
            Err(TaskLogError::InvalidRunId(name))
        }
    }

    /// The file name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for RunId {
    type Error = TaskLogError;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        RunId::parse(value)
    }
}

impl From<RunId> for String {
    fn from(value: RunId) -> Self {
        value.0
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One row of the run list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunSummary {
    /// The run file.
    pub run_id: RunId,
    /// The task it recorded.
    pub task_id: TaskId,
    /// The user's words; None when the submission was not recorded.
    pub raw_input: Option<String>,
    /// R1's reading of the task; None when there was no task spec.
    pub intent: Option<String>,
    /// Time of the run's first record.
    pub started_at: DateTime<Utc>,
    /// When the task closed; `None` while the run is open.
    pub ended_at: Option<DateTime<Utc>>,
    /// How the run stands or ended.
    pub status: RunStatus,
    /// Plans dispatched.
    pub rounds: u32,
    /// Replans GGS ordered.
    pub replans: u32,
    /// The loss of GGS's last decision.
    pub loss: Option<crate::contracts::Loss>,
    /// A Law 1 confirmation was asked for.
    pub law1: bool,
    /// `None` while the run is open.
    pub duration_ms: Option<u64>,
    /// Model tokens spent, prompt and completion.
    pub total_tokens: u64,
    /// The run's start was never seen.
    pub partial: bool,
    /// The file ends in a cut-off line (the process died while writing).
    pub truncated: bool,
}

impl RunSummary {
    /// The row of a run, from its fold; `None` when the fold saw no envelope.
    pub fn of(run_id: &RunId, t: &Trajectory) -> Option<RunSummary> {
        Some(RunSummary {
            run_id: run_id.clone(),
            task_id: t.task_id.clone()?,
            raw_input: t.raw_input.clone(),
            intent: t.intent().map(str::to_owned),
            started_at: t.started_at?,
            ended_at: t.ended_at,
            status: t.status,
            rounds: u32::try_from(t.plans()).unwrap_or(u32::MAX),
            replans: t.replans(),
            loss: t.decisions().last().map(|d| d.loss),
            law1: !t.law1.is_empty(),
            duration_ms: t.elapsed_ms,
            total_tokens: t.usage.total_tokens,
            partial: t.partial,
            truncated: t.truncated,
        })
    }
}

/// A line the reader could not use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SkippedLine {
    /// 1-based.
    pub line_no: usize,
    /// The line's message type or note name, when it has one (a message kind from a
    /// newer version, or a known kind with fields this version cannot read).
    pub kind: Option<String>,
    /// Why the line could not be used.
    pub reason: String,
}

/// One run file, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The file it was read from.
    pub run_id: RunId,
    /// Every line that parsed, in order.
    pub records: Vec<Record>,
    /// Every line that did not.
    pub skipped: Vec<SkippedLine>,
    /// The file ends in a cut-off line (the process died while writing).
    pub truncated: bool,
}

impl Run {
    /// Parses a run file's bytes. Never fails: unusable lines are listed in `skipped`.
    pub fn parse(run_id: RunId, bytes: &[u8]) -> Run {
        let mut run = Run {
            run_id,
            records: Vec::new(),
            skipped: Vec::new(),
            truncated: false,
        };
        for (idx, line, complete) in split_lines(bytes) {
            match parse_line(line) {
                Ok(record) => run.records.push(record),
                Err(_) if !complete => run.truncated = true,
                Err(skipped) => run.skipped.push(SkippedLine {
                    line_no: idx + 1,
                    ..skipped
                }),
            }
        }
        run
    }

    /// Folds the records into the run's trajectory.
    pub fn trajectory(&self) -> Trajectory {
        let mut t = Trajectory::fold(&self.records);
        t.unreadable_lines = self.skipped.len();
        t.truncated = self.truncated;
        t
    }

    /// The effects of this run that artoo's journal does not hold, so no undo can take
    /// them back, one line each: calls of MCP tools, AppleScript and Shortcuts; commands
    /// the user approved to run outside the sandbox (what they did was not observed);
    /// deletions moved to the system Trash (put back from there).
    pub fn lasting_effects(&self) -> Vec<String> {
        use crate::contracts::{Decision, Message, ToolCallStatus, ToolName};
        let mut out: Vec<String> = Vec::new();
        for env in self.envelopes() {
            let Message::ToolCallEvent(call) = &env.message else {
                continue;
            };
            let r = &call.record;
            if r.status != ToolCallStatus::Ok {
                continue;
            }
            let target = crate::text::one_line(&r.target, 120);
            let line = match (r.tool.builtin(), r.confirmation) {
                (None, _) => format!("the MCP tool {}: {target}", r.tool),
                (Some(ToolName::Applescript | ToolName::Shortcuts), _) => {
                    format!("{}: {target}", r.tool)
                }
                (Some(_), Some(Decision::Trash)) => {
                    format!("moved to the system Trash (put it back from there): {target}")
                }
                (Some(ToolName::Shell), Some(Decision::Approve)) if r.effects.is_empty() => {
                    format!("a command run outside the sandbox: {target}")
                }
                _ => continue,
            };
            if !out.contains(&line) {
                out.push(line);
            }
        }
        out
    }

    /// The run's envelopes in bus order, as they were published.
    pub fn envelopes(&self) -> Vec<Arc<Envelope>> {
        let mut envelopes: Vec<Arc<Envelope>> = self
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Envelope(e) => Some(Arc::clone(e)),
                Record::Gap(_) | Record::Cut(_) => None,
            })
            .collect();
        envelopes.sort_by_key(|e| e.seq);
        envelopes
    }
}

/// The run files under one data dir.
#[derive(Clone, Debug)]
pub struct TaskLogDir {
    dir: PathBuf,
}

impl TaskLogDir {
    /// The runs of `<data_dir>/tasks`.
    pub fn new(data_dir: &Path) -> Self {
        Self::at(tasks_dir(data_dir))
    }

    /// The runs of exactly `dir`.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Every run file, newest first (file names sort by start time). An absent dir has
    /// no runs.
    pub fn run_ids(&self) -> Result<Vec<RunId>, TaskLogError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(TaskLogError::Io {
                    path: self.dir.clone(),
                    source,
                });
            }
        };
        let mut ids: Vec<RunId> = entries
            .filter_map(|entry| entry.ok())
            .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter_map(|name| RunId::parse(name).ok())
            .collect();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        Ok(ids)
    }

    /// The newest `limit` runs, newest first. Reads only the small lines of each file;
    /// a file that cannot be read is logged and left out rather than hiding the rest.
    pub fn list(&self, limit: usize) -> Result<Vec<RunSummary>, TaskLogError> {
        Ok(self
            .run_ids()?
            .into_iter()
            .filter_map(|id| match self.summary(&id) {
                Ok(summary) => summary,
                Err(err) => {
                    tracing::warn!(run = %id, %err, "unreadable task log left out of the list");
                    None
                }
            })
            .take(limit)
            .collect())
    }

    /// The runs of one task id, newest first.
    pub fn runs_of(&self, task_id: &TaskId) -> Result<Vec<RunSummary>, TaskLogError> {
        let name_part = format!("_{}", file_safe_id(task_id));
        Ok(self
            .run_ids()?
            .into_iter()
            // Cheap pre-filter on the name; the summary confirms the id.
            .filter(|id| id.as_str().contains(&name_part))
            .filter_map(|id| self.summary(&id).ok().flatten())
            .filter(|s| &s.task_id == task_id)
            .collect())
    }

    /// The latest run of `task_id`, loaded.
    pub fn latest_of(&self, task_id: &TaskId) -> Result<Option<Run>, TaskLogError> {
        match self.runs_of(task_id)?.into_iter().next() {
            Some(summary) => self.load(&summary.run_id).map(Some),
            None => Ok(None),
        }
    }

    /// Reads and parses one run file.
    pub fn load(&self, run_id: &RunId) -> Result<Run, TaskLogError> {
        let path = self.dir.join(run_id.as_str());
        let bytes = fs::read(&path).map_err(|source| TaskLogError::Io { path, source })?;
        Ok(Run::parse(run_id.clone(), &bytes))
    }

    /// The list row of one run. It folds only the lines a row needs, reading model
    /// calls without their prompts; `None` when the file records no envelope (not a run
    /// file, or one from a version that recorded another format).
    pub fn summary(&self, run_id: &RunId) -> Result<Option<RunSummary>, TaskLogError> {
        Ok(self.slim(run_id)?.and_then(|t| RunSummary::of(run_id, &t)))
    }

    /// The run folded from the lines a list row needs (model calls without their
    /// prompts): its status, times, cost and result, not its traffic. `None` when the file
    /// records no envelope.
    pub fn slim(&self, run_id: &RunId) -> Result<Option<Trajectory>, TaskLogError> {
        let path = self.dir.join(run_id.as_str());
        let io_err = |source| TaskLogError::Io {
            path: path.clone(),
            source,
        };
        let mut reader = BufReader::new(File::open(&path).map_err(io_err)?);
        let mut buf = Vec::new();
        let mut fold = Fold::default();
        let mut any = false;
        let mut first = true;
        loop {
            buf.clear();
            if reader.read_until(b'\n', &mut buf).map_err(io_err)? == 0 {
                break;
            }
            let complete = buf.ends_with(b"\n");
            let line = trim_line(&buf);
            if line.is_empty() {
                continue;
            }
            let kind = record::peek(line);
            let parsed = match kind {
                Some("LlmCall") if complete && !first => slim_llm_call(line),
                Some(kind) if complete && !first && !SUMMARY_KINDS.contains(&kind) => continue,
                _ => parse_line(line).ok(),
            };
            first = false;
            match parsed {
                Some(record) => {
                    any |= matches!(record, Record::Envelope(_));
                    fold.push(&record);
                }
                // A last line without its newline is how a crash mid-write shows.
                None if !complete => fold.unreadable(0, true),
                None => {}
            }
        }
        Ok(any.then(|| fold.finish()))
    }
}

/// The message types a list row is folded from (model calls aside, read slim). The
/// first record of a run is always folded too, whatever it is: it says when the run
/// started and whether its submission was seen.
const SUMMARY_KINDS: &[&str] = &[
    "TaskSubmitted",
    "TaskSpec",
    "DispatchManifest",
    "PlanDirective",
    "FinalResult",
    "ChatReply",
    "ConfirmationRequest",
    "TaskClosed",
    "gap",
    "cut",
];

/// A model call's line without its prompts and response: what a run's cost needs,
/// parsed without copying the bulky strings.
fn slim_llm_call(line: &[u8]) -> Option<Record> {
    #[derive(Deserialize)]
    struct Line {
        envelope: Slim,
    }
    #[derive(Deserialize)]
    struct Slim {
        id: crate::contracts::EnvelopeId,
        seq: u64,
        timestamp: DateTime<Utc>,
        from: crate::contracts::Role,
        to: crate::contracts::Role,
        #[serde(default)]
        task_id: Option<TaskId>,
        message: Tagged,
    }
    #[derive(Deserialize)]
    struct Tagged {
        payload: Call,
    }
    #[derive(Deserialize)]
    struct Call {
        task_id: Option<TaskId>,
        role: crate::contracts::Role,
        model: String,
        prompt_tokens: u64,
        completion_tokens: u64,
        elapsed_ms: u64,
        #[serde(default)]
        error: Option<String>,
    }
    let Line { envelope: e } = serde_json::from_slice(line).ok()?;
    let m = e.message.payload;
    let call = crate::contracts::LlmCall {
        task_id: m.task_id,
        role: m.role,
        model: m.model,
        system_prompt: String::new(),
        user_prompt: String::new(),
        response: String::new(),
        prompt_tokens: m.prompt_tokens,
        completion_tokens: m.completion_tokens,
        elapsed_ms: m.elapsed_ms,
        error: m.error,
    };
    Some(Record::Envelope(Arc::new(Envelope {
        id: e.id,
        seq: e.seq,
        timestamp: e.timestamp,
        from: e.from,
        to: e.to,
        in_reply_to: None,
        task_id: e.task_id,
        message: crate::contracts::Message::LlmCall(call),
    })))
}

/// Lines of a file with their index and whether they ended in a newline.
fn split_lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8], bool)> {
    let mut rest = bytes;
    let mut idx = 0;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, complete) = match rest.iter().position(|&b| b == b'\n') {
            Some(pos) => {
                let line = &rest[..pos];
                rest = &rest[pos + 1..];
                (line, true)
            }
            None => {
                let line = rest;
                rest = &[];
                (line, false)
            }
        };
        idx += 1;
        Some((idx - 1, trim_line(line), complete))
    })
    .filter(|(_, line, _)| !line.is_empty())
}

fn trim_line(line: &[u8]) -> &[u8] {
    line.trim_ascii()
}

fn parse_line(line: &[u8]) -> Result<Record, SkippedLine> {
    serde_json::from_slice::<Record>(line).map_err(|err| {
        let kind = record::peek(line).map(str::to_owned);
        let reason = match &kind {
            Some(kind)
                if crate::contracts::MessageKind::ALL
                    .iter()
                    .all(|k| k.name() != kind)
                    && !record::is_note(kind) =>
            {
                format!("unknown message type {kind:?}")
            }
            _ => err.to_string(),
        };
        SkippedLine {
            line_no: 0,
            reason,
            kind,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUBMITTED: &str = r#"{"envelope":{"id":"00000000-0000-4000-8000-000000000001","seq":0,"timestamp":"2026-01-01T00:00:00Z","from":"User","to":"R1","task_id":"task_a","message":{"type":"TaskSubmitted","payload":{"task_id":"task_a","raw_input":"hi","submitted_at":"2026-01-01T00:00:00Z","session_history":[]}}}}"#;

    #[test]
    fn run_ids_are_plain_jsonl_file_names() {
        assert!(RunId::parse("20260101T000000.000Z_000000000001_task_a.jsonl").is_ok());
        for bad in ["../x.jsonl", "a/b.jsonl", ".hidden.jsonl", "x.json", ""] {
            assert!(RunId::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_cut_off_last_line_marks_the_run_truncated_and_a_future_kind_is_skipped() {
        let text = format!(
            "{SUBMITTED}\n{}\n{}",
            r#"{"envelope":{"id":"00000000-0000-4000-8000-000000000002","seq":1,"timestamp":"2026-01-01T00:00:00Z","from":"User","to":"All","task_id":"task_a","message":{"type":"Hologram","payload":{"x":1}}}}"#,
            r#"{"envelope":{"id":"00000000-0000-4000-8000-000000000003","seq":2,"#,
        );
        let run = Run::parse(RunId::parse("a.jsonl").unwrap(), text.as_bytes());
        assert_eq!(run.records.len(), 1);
        assert!(run.truncated);
        assert_eq!(run.skipped.len(), 1);
        assert_eq!(run.skipped[0].line_no, 2);
        assert_eq!(run.skipped[0].kind.as_deref(), Some("Hologram"));
        assert!(run.skipped[0].reason.contains("unknown message type"));
        let t = run.trajectory();
        assert_eq!(t.raw_input.as_deref(), Some("hi"));
        assert!(t.truncated && !t.partial);
        assert_eq!(t.unreadable_lines, 1);
    }

    #[test]
    fn a_complete_but_corrupt_middle_line_is_skipped_not_called_truncation() {
        let text = format!(
            "{SUBMITTED}\ngarbage\n{}",
            r#"{"cut":{"at":"2026-01-01T00:00:01Z"}}"#
        );
        let run = Run::parse(RunId::parse("a.jsonl").unwrap(), text.as_bytes());
        assert_eq!(
            run.records.len(),
            2,
            "a last line without newline still counts"
        );
        assert!(!run.truncated);
        assert_eq!(run.skipped[0].line_no, 2);
        assert_eq!(run.skipped[0].kind, None);
        let t = run.trajectory();
        assert_eq!(t.status, RunStatus::Unfinished);
        assert_eq!(t.elapsed_ms, Some(1000));
    }

    #[test]
    fn a_file_in_another_format_is_not_listed_as_a_run() {
        let dir = tempfile::tempdir().unwrap();
        let logs = TaskLogDir::at(dir.path());
        let old = RunId::parse("20260101T000000.000Z_000000000000_task_old.jsonl").unwrap();
        let new = RunId::parse("20260101T000001.000Z_000000000001_task_a.jsonl").unwrap();
        std::fs::write(
            dir.path().join(old.as_str()),
            r#"{"kind":"task_begin","task_id":"task_old","ts":"2026-01-01T00:00:00Z"}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join(new.as_str()), format!("{SUBMITTED}\n")).unwrap();
        let listed = logs.list(10).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].run_id, new);
        assert_eq!(listed[0].status, RunStatus::Open);
        assert_eq!(listed[0].raw_input.as_deref(), Some("hi"));
    }
}
