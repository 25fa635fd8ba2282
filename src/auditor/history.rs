//! The query API the UI and the CLI browse the audit history with: reports (every one the
//! auditor published), events filtered by task, type, role and anomaly, a per-task
//! timeline, the calibration view, the current window, and verification.
//!
//! Everything here reads files; it works in another process while the auditor writes
//! (a line being written is skipped, never half-read).
//!
//! **Invariant:** the history is read-only: nothing in this module opens a file for
//! writing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use memchr::memmem;
use serde::{Deserialize, Serialize};

use crate::contracts::{AuditReport, AuditTrigger, ReportId, Role, TaskId};

use super::calibration::CalibrationView;
use super::event::{AnomalyKind, AuditEvent, EventKind};
use super::log::{for_each_line, for_each_line_rev};
use super::verify::{BreakKind, VerifyReport, verify};
use super::{AuditError, REPORTS_FILE, audit_dir, state};
use crate::tasklog::{RunSummary, TaskLogDir};

/// Pause before re-verifying the end of a log a live auditor is writing (its
/// checkpoint trails the log by at most one flush interval).
pub const LIVE_SETTLE: Duration = Duration::from_millis(100);
/// Re-verifications of a live log's end before it is reported unanchored.
pub const LIVE_RETRIES: usize = 10;

/// Events returned when a filter sets no limit.
pub const DEFAULT_EVENT_LIMIT: usize = 100;

/// Which anomalies an event filter asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "match", content = "kind")]
pub enum AnomalyFilter {
    /// Events with at least one anomaly.
    Any,
    /// Events with an anomaly of this kind.
    Kind(AnomalyKind),
}

/// A query over the event log. Unset fields match everything.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EventFilter {
    /// Only this task's events.
    pub task: Option<TaskId>,
    /// Only events of this kind.
    pub kind: Option<EventKind>,
    /// Sender or receiver.
    pub role: Option<Role>,
    /// Only events with anomalies.
    pub anomaly: Option<AnomalyFilter>,
    /// Only events numbered below this (paging back through history).
    pub before_seq: Option<u64>,
    /// Most recent matches to return; 0 means [`DEFAULT_EVENT_LIMIT`].
    pub limit: usize,
}

impl EventFilter {
    /// Whether `e` passes every set field.
    pub fn matches(&self, e: &AuditEvent) -> bool {
        self.task
            .as_ref()
            .is_none_or(|t| e.task_id.as_ref() == Some(t))
            && self.kind.is_none_or(|k| e.kind == k)
            && self
                .role
                .is_none_or(|r| e.from == Some(r) || e.to == Some(r))
            && match self.anomaly {
                None => true,
                Some(AnomalyFilter::Any) => !e.anomalies.is_empty(),
                Some(AnomalyFilter::Kind(k)) => e.has_anomaly(k),
            }
            && self.before_seq.is_none_or(|s| e.seq < s)
    }

    /// Byte strings a matching line must contain, so most lines are skipped unparsed.
    /// Each inner list is a set of alternatives.
    fn needles(&self) -> Vec<Vec<Vec<u8>>> {
        let quoted = |s: &str| serde_json::to_string(s).expect("strings serialise");
        let mut needles = Vec::new();
        if let Some(task) = &self.task {
            needles.push(vec![
                format!("\"task_id\":{}", quoted(task.as_str())).into_bytes(),
            ]);
        }
        if let Some(kind) = self.kind {
            needles.push(vec![format!("\"kind\":\"{}\"", kind.name()).into_bytes()]);
        }
        if let Some(role) = self.role {
            let short = quoted(role.short());
            needles.push(vec![
                format!("\"from\":{short}").into_bytes(),
                format!("\"to\":{short}").into_bytes(),
            ]);
        }
        match self.anomaly {
            Some(AnomalyFilter::Any) => needles.push(vec![b"\"anomalies\":[".to_vec()]),
            Some(AnomalyFilter::Kind(k)) => {
                needles.push(vec![format!("\"kind\":\"{}\"", k.as_str()).into_bytes()]);
            }
            None => {}
        }
        needles
    }
}

fn may_match(line: &[u8], needles: &[Vec<Vec<u8>>]) -> bool {
    needles
        .iter()
        .all(|alternatives| alternatives.iter().any(|n| memmem::find(line, n).is_some()))
}

#[derive(Clone, Copy)]
enum Order {
    NewestFirst,
    OldestFirst,
}

/// Everything the audit log says about one task, in order, beside what the recording
/// of its latest run says it did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskTimeline {
    /// The task.
    pub task_id: TaskId,
    /// Its audit events, oldest first.
    pub events: Vec<AuditEvent>,
    /// The latest recorded run of the task, read through the task log's one fold;
    /// `None` when the task logs hold no run of it (pruned, or another data dir).
    pub run: Option<RunSummary>,
    /// Anomalies found on the task's events.
    pub anomalies: usize,
}

/// Read access to the audit history of one data directory.
#[derive(Clone, Debug)]
pub struct AuditHistory {
    dir: PathBuf,
    /// The recordings of the same data dir, for what a task's run did.
    runs: TaskLogDir,
}

impl AuditHistory {
    /// The history of the data directory `data_dir` (the log lives in `<data_dir>/audit`).
    pub fn new(data_dir: &Path) -> Self {
        Self {
            dir: audit_dir(data_dir),
            runs: TaskLogDir::new(data_dir),
        }
    }

    /// The audit directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Up to `limit` reports, newest first.
    pub fn reports(&self, limit: usize) -> Result<Vec<AuditReport>, AuditError> {
        let mut all = self.all_reports()?;
        all.reverse();
        all.truncate(limit);
        Ok(all)
    }

    /// The report with this id; None when no report has it.
    pub fn report(&self, id: ReportId) -> Result<Option<AuditReport>, AuditError> {
        Ok(self
            .all_reports()?
            .into_iter()
            .rev()
            .find(|r| r.report_id == id))
    }

    fn all_reports(&self) -> Result<Vec<AuditReport>, AuditError> {
        let bytes = match std::fs::read(self.dir.join(REPORTS_FILE)) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(AuditError::io(&self.dir, e)),
        };
        // A line being appended right now has no newline yet: skip it.
        let complete = match memchr::memrchr(b'\n', &bytes) {
            Some(end) => &bytes[..end],
            None => return Ok(Vec::new()),
        };
        complete
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| {
                serde_json::from_slice(line).map_err(|e| {
                    AuditError::State(format!(
                        "{}: unreadable report ({e}); run `artoo audit verify`",
                        self.dir.join(REPORTS_FILE).display()
                    ))
                })
            })
            .collect()
    }

    /// The most recent events matching `filter` (at most its limit), oldest first.
    pub fn events(&self, filter: &EventFilter) -> Result<Vec<AuditEvent>, AuditError> {
        let limit = if filter.limit == 0 {
            DEFAULT_EVENT_LIMIT
        } else {
            filter.limit
        };
        let mut found = Vec::new();
        self.scan(filter, Order::NewestFirst, |event| {
            found.push(event);
            found.len() < limit
        })?;
        found.reverse();
        Ok(found)
    }

    /// Every event of `task`, in order, with a summary.
    pub fn timeline(&self, task: &TaskId) -> Result<TaskTimeline, AuditError> {
        let filter = EventFilter {
            task: Some(task.clone()),
            ..EventFilter::default()
        };
        let mut events = Vec::new();
        self.scan(&filter, Order::OldestFirst, |event| {
            events.push(event);
            true
        })?;
        let run = match self.runs.runs_of(task) {
            Ok(runs) => runs.into_iter().next(),
            Err(e) => {
                tracing::warn!(task = %task, error = %e, "the task logs cannot be read");
                None
            }
        };
        Ok(TaskTimeline {
            task_id: task.clone(),
            run,
            anomalies: events.iter().map(|e| e.anomalies.len()).sum(),
            events,
        })
    }

    /// Calls `keep` on each event matching `filter` until it returns `false`. Lines
    /// without the filter's byte patterns are skipped unparsed; a line being written is
    /// skipped.
    fn scan(
        &self,
        filter: &EventFilter,
        order: Order,
        mut keep: impl FnMut(AuditEvent) -> bool,
    ) -> Result<(), AuditError> {
        let needles = filter.needles();
        let mut error = None;
        let mut visit = |line: &[u8]| {
            if !may_match(line, &needles) {
                return true;
            }
            match serde_json::from_slice::<AuditEvent>(line) {
                Ok(event) if filter.matches(&event) => keep(event),
                Ok(_) => true,
                Err(e) => {
                    error = Some(AuditError::State(format!(
                        "unreadable event in {} ({e}); run `artoo audit verify`",
                        self.dir.display()
                    )));
                    false
                }
            }
        };
        match order {
            Order::NewestFirst => for_each_line_rev(&self.dir, visit),
            Order::OldestFirst => {
                for_each_line(&self.dir, |raw| !raw.terminated || visit(raw.bytes))
            }
        }
        .map_err(|e| AuditError::io(&self.dir, e))?;
        error.map_or(Ok(()), Err)
    }

    /// The calibration view over the whole history.
    pub fn calibration(&self) -> Result<CalibrationView, AuditError> {
        Ok(self
            .load_state()?
            .map(|s| s.detectors.calibration.view())
            .unwrap_or_default())
    }

    /// The current (not yet reported) window as an on-demand report, from the persisted
    /// statistics; `None` before the auditor ever ran. It is not added to the history.
    pub fn current_window(&self, now: DateTime<Utc>) -> Result<Option<AuditReport>, AuditError> {
        Ok(self
            .load_state()?
            .map(|s| s.window.report(AuditTrigger::OnDemand, now, None)))
    }

    /// Verifies the hash chain, the checkpoint and the stored reports. Blocks: while an
    /// auditor is writing, events it has not checkpointed yet look unanchored, so this
    /// looks again (every [`LIVE_SETTLE`], up to [`LIVE_RETRIES`] times) before saying so.
    pub fn verify(&self) -> Result<VerifyReport, AuditError> {
        let mut report = verify(&self.dir)?;
        for _ in 0..LIVE_RETRIES {
            let in_flight = report.live_writer
                && matches!(
                    report.broken.as_ref().map(|b| b.kind),
                    Some(BreakKind::Unanchored | BreakKind::CheckpointMissing)
                );
            if !in_flight {
                break;
            }
            std::thread::sleep(LIVE_SETTLE);
            report = verify(&self.dir)?;
        }
        Ok(report)
    }

    fn load_state(&self) -> Result<Option<state::State>, AuditError> {
        state::load(&self.dir)
            .map_err(|e| AuditError::State(format!("{}: {e}", self.dir.display())))
    }
}
