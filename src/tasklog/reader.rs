//! The reader: lists run files and loads one, tolerating what a crash or a newer version
//! leaves behind.

use std::fmt;
use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::event::{self, Event, LogLine, RunStatus};
use super::trajectory::Trajectory;
use super::{TaskLogError, file_safe_id, tasks_dir};
use crate::contracts::TaskId;

/// The name of one run file, e.g. `20260101T000000.000Z_000000000042_task_3f9a.jsonl`.
/// Checked to be a plain file name, so a UI-supplied id cannot point outside the dir.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(try_from = "String", into = "String")]
pub struct RunId(String);

impl RunId {
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
    pub run_id: RunId,
    pub task_id: TaskId,
    pub raw_input: Option<String>,
    pub intent: Option<String>,
    pub started_at: DateTime<Utc>,
    pub status: RunStatus,
    /// Plans dispatched.
    pub rounds: u32,
    /// `None` while the run is open.
    pub duration_ms: Option<u64>,
    pub total_tokens: u64,
    /// The run's start was never seen.
    pub partial: bool,
    /// The file ends in a cut-off line (the process died while writing).
    pub truncated: bool,
}

/// A line the reader could not use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SkippedLine {
    /// 1-based.
    pub line_no: usize,
    /// The line's kind, when it was a JSON object with one (a kind from a newer version,
    /// or a known kind with fields this version cannot read).
    pub kind: Option<String>,
    pub reason: String,
}

/// One run file, parsed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Run {
    pub run_id: RunId,
    pub lines: Vec<LogLine>,
    pub skipped: Vec<SkippedLine>,
    pub truncated: bool,
}

impl Run {
    /// Parses a run file's bytes. Never fails: unusable lines are listed in `skipped`.
    pub fn parse(run_id: RunId, bytes: &[u8]) -> Run {
        let mut run = Run {
            run_id,
            lines: Vec::new(),
            skipped: Vec::new(),
            truncated: false,
        };
        for (idx, line, complete) in split_lines(bytes) {
            match parse_line(line) {
                Ok(parsed) => run.lines.push(parsed),
                Err(_) if !complete => run.truncated = true,
                Err(skipped) => run.skipped.push(SkippedLine {
                    line_no: idx + 1,
                    ..skipped
                }),
            }
        }
        run
    }

    pub fn trajectory(&self) -> Trajectory {
        let mut trajectory = Trajectory::from_lines(&self.lines);
        trajectory.truncated = self.truncated;
        trajectory.unreadable_lines = self.skipped.len();
        trajectory
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

    pub fn load(&self, run_id: &RunId) -> Result<Run, TaskLogError> {
        let path = self.dir.join(run_id.as_str());
        let bytes = fs::read(&path).map_err(|source| TaskLogError::Io { path, source })?;
        Ok(Run::parse(run_id.clone(), &bytes))
    }

    /// The list row of one run, reading line by line and parsing only the lines a row
    /// needs (model calls carry whole prompts and are skipped unparsed). `None` when the
    /// file has no `task_begin` (not a run file).
    pub fn summary(&self, run_id: &RunId) -> Result<Option<RunSummary>, TaskLogError> {
        let path = self.dir.join(run_id.as_str());
        let io_err = |source| TaskLogError::Io {
            path: path.clone(),
            source,
        };
        let mut reader = BufReader::new(File::open(&path).map_err(io_err)?);
        let mut buf = Vec::new();
        let mut begin: Option<(event::TaskBegin, DateTime<Utc>)> = None;
        let mut intent = None;
        let mut end: Option<event::TaskEnd> = None;
        let mut plans = 0;
        let mut truncated = false;
        loop {
            buf.clear();
            if reader.read_until(b'\n', &mut buf).map_err(io_err)? == 0 {
                break;
            }
            let complete = buf.ends_with(b"\n");
            let line = trim_line(&buf);
            // A last line without its newline is parsed whatever its kind: that is how a
            // crash mid-write shows.
            let wanted = match event::peek_kind(line) {
                Some(_) if !complete => true,
                Some(kind) => ["task_begin", "task_spec", "plan", "task_end"].contains(&kind),
                None => !line.is_empty(),
            };
            if !wanted {
                continue;
            }
            match parse_line(line) {
                Ok(parsed) => match parsed.event {
                    Event::TaskBegin(b) if begin.is_none() => begin = Some((b, parsed.ts)),
                    Event::TaskSpec(s) => intent = Some(s.intent),
                    Event::Plan(_) => plans += 1,
                    Event::TaskEnd(e) if end.is_none() => end = Some(e),
                    _ => {}
                },
                Err(_) if !complete => truncated = true,
                Err(_) => {}
            }
        }
        let Some((begin, started_at)) = begin else {
            return Ok(None);
        };
        Ok(Some(RunSummary {
            run_id: run_id.clone(),
            task_id: begin.task_id,
            raw_input: begin.raw_input,
            intent,
            started_at,
            status: end.as_ref().map_or(RunStatus::Open, |e| e.status),
            rounds: end.as_ref().map_or(plans, |e| e.rounds),
            duration_ms: end.as_ref().map(|e| e.elapsed_ms),
            total_tokens: end.as_ref().map_or(0, |e| e.usage.total_tokens),
            partial: begin.partial,
            truncated,
        }))
    }
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

fn parse_line(line: &[u8]) -> Result<LogLine, SkippedLine> {
    serde_json::from_slice::<LogLine>(line).map_err(|err| {
        let kind = serde_json::from_slice::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.get("kind")?.as_str().map(str::to_owned));
        SkippedLine {
            line_no: 0,
            reason: match &kind {
                Some(kind) if !Event::KINDS.contains(&kind.as_str()) => {
                    format!("unknown kind {kind:?}")
                }
                _ => err.to_string(),
            },
            kind,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_plain_jsonl_file_names() {
        assert!(RunId::parse("20260101T000000.000Z_000000000001_task_a.jsonl").is_ok());
        for bad in ["../x.jsonl", "a/b.jsonl", ".hidden.jsonl", "x.json", ""] {
            assert!(RunId::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_cut_off_last_line_marks_the_run_truncated_and_a_future_kind_is_skipped() {
        let text = concat!(
            r#"{"kind":"task_begin","task_id":"task_a","raw_input":"hi","ts":"2026-01-01T00:00:00Z","seq":0}"#,
            "\n",
            r#"{"kind":"hologram","x":1,"ts":"2026-01-01T00:00:00Z"}"#,
            "\n",
            r#"{"kind":"cancelled","reason":"us"#,
        );
        let run = Run::parse(RunId::parse("a.jsonl").unwrap(), text.as_bytes());
        assert_eq!(run.lines.len(), 1);
        assert!(run.truncated);
        assert_eq!(run.skipped.len(), 1);
        assert_eq!(run.skipped[0].line_no, 2);
        assert_eq!(run.skipped[0].kind.as_deref(), Some("hologram"));
        assert!(run.skipped[0].reason.contains("unknown kind"));
    }

    #[test]
    fn a_complete_but_corrupt_middle_line_is_skipped_not_called_truncation() {
        let text = concat!(
            r#"{"kind":"task_begin","task_id":"task_a","ts":"2026-01-01T00:00:00Z"}"#,
            "\n",
            "garbage\n",
            r#"{"kind":"cancelled","reason":"user","ts":"2026-01-01T00:00:01Z"}"#,
        );
        let run = Run::parse(RunId::parse("a.jsonl").unwrap(), text.as_bytes());
        assert_eq!(
            run.lines.len(),
            2,
            "a last line without newline still counts"
        );
        assert!(!run.truncated);
        assert_eq!(run.skipped[0].line_no, 2);
        assert_eq!(run.skipped[0].kind, None);
    }
}
