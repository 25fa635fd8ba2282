//! R6 Auditor: a lateral observer whose principal is the
//! human operator. It reads every bus message through a [`Tap`], appends one
//! [`AuditEvent`] per message to a hash-chained log in `<data_dir>/audit/` (separate from
//! memory; no role is given its path), runs the anomaly detectors, keeps window
//! statistics, and publishes [`AuditReport`]s to the user — periodically for non-empty
//! windows and on demand — keeping every report for the history the UI browses.
//!
//! Files in the audit directory: `events-NNNNNN.jsonl` (the chain, rotated by size),
//! `reports.jsonl` (every published report), `state.json` (checkpoint, window, detectors,
//! calibration), `pruned.json` (where the chain starts once old segments were pruned,
//! [`retention`]), `LOCK` (one writing process per data directory). Sealed segments are
//! pruned at start and with every periodic report once `[retention]`'s age or size limit
//! is passed.
//!
//! On-demand queries come from an [`Inbox`] for [`Role::Auditor`] (lossless, unlike the
//! tap) and are answered only when the human sent them; anything else addressed to the
//! auditor is logged as a boundary violation and otherwise ignored. An on-demand report
//! covers the current window without closing it; a periodic report closes it.
//!
//! **Invariant:** the auditor holds a `Tap`, an `Inbox` and an [`AuditOutbox`] — it can
//! publish audit reports to the user and nothing else, so it cannot instruct any role.

pub(crate) mod calibration;
pub mod canonical;
pub mod detect;
pub(crate) mod event;
pub mod history;
pub mod log;
pub mod retention;
pub(crate) mod state;
pub mod verify;
pub(crate) mod window;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use crate::Config;
use crate::bus::{AuditOutbox, Bus, Envelope, Inbox, Tap, TapEvent};
use crate::clock::SharedClock;
use crate::config::GgsParams;
use crate::contracts::{AuditReport, AuditTrigger, EnvelopeId, Message, Role};
use crate::retention::Keep;

pub use calibration::{CalibrationView, task_class};
pub(crate) use detect::Detectors;
pub use detect::{DetectorParams, LAW1_PREFIX};
pub use event::{AnomalyKind, AuditEvent, EventKind, Finding};
pub use history::{AnomalyFilter, AuditHistory, EventFilter, TaskTimeline};
pub use verify::{BreakKind, BrokenLink, VerifyReport};
pub use window::WindowStats;

use log::{ChainWriter, LogFiles, Tail, recover_tail};

/// Name of the audit directory inside the data directory.
pub const AUDIT_DIR: &str = "audit";
/// Every published report, one JSON object per line.
pub const REPORTS_FILE: &str = "reports.jsonl";
/// Tap buffer of the auditor: 1.3 s of a 50 000 msg/s burst.
pub const AUDIT_TAP_CAPACITY: usize = 65_536;
/// A segment file is closed once it would grow past this.
pub const DEFAULT_SEGMENT_BYTES: u64 = 64 * 1024 * 1024;
/// Longest time an event waits in memory before it is written.
pub const DEFAULT_FLUSH_INTERVAL: Duration = Duration::from_millis(100);
/// Pending bytes that trigger a write without waiting for the interval.
const FLUSH_BYTES: usize = 1024 * 1024;
/// Tap events handled before the loop looks at queries and timers again.
const DRAIN_BATCH: usize = 1024;

/// `<data_dir>/audit`.
pub fn audit_dir(data_dir: &Path) -> PathBuf {
    data_dir.join(AUDIT_DIR)
}

/// Why the audit log could not be opened, written or read.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// A log file could not be read or written.
    #[error("audit log {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error the system gave.
        #[source]
        source: io::Error,
    },
    /// Another process audits this data directory.
    #[error(
        "another artoo process is already auditing {0}; there is one auditor per data directory"
    )]
    Locked(PathBuf),
    /// The auditor's saved state could not be read or written.
    #[error("{0}")]
    State(String),
    /// The writer task is gone (it panicked or the runtime shut down).
    #[error("the audit log writer task was lost (it panicked or the runtime shut down)")]
    WriterLost,
}

impl AuditError {
    pub(crate) fn io(path: &Path, source: io::Error) -> Self {
        AuditError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Tuning that is not user configuration (tests and benchmarks change it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditorOptions {
    /// Envelopes the auditor's tap holds before it drops (and logs a gap).
    pub tap_capacity: usize,
    /// A log segment is sealed and a new one started past this size, in bytes.
    pub max_segment_bytes: u64,
    /// How often buffered events are written to disk.
    pub flush_interval: Duration,
}

impl Default for AuditorOptions {
    fn default() -> Self {
        Self {
            tap_capacity: AUDIT_TAP_CAPACITY,
            max_segment_bytes: DEFAULT_SEGMENT_BYTES,
            flush_interval: DEFAULT_FLUSH_INTERVAL,
        }
    }
}

/// Progress of a running auditor (UI status line, benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AuditorStatus {
    /// Events chained so far (= the next event's number).
    pub events_logged: u64,
    /// Events written to disk.
    pub events_flushed: u64,
    /// Bus messages the tap lost (each loss is an anomaly in the log).
    pub messages_lost: u64,
    /// Reports sent to the user so far.
    pub reports_published: u64,
}

/// The R6 role. [`Auditor::open`] attaches it to the bus and recovers its state;
/// [`Auditor::run`] observes until cancelled or the bus closes.
pub struct Auditor {
    dir: PathBuf,
    tap: Tap,
    inbox: Inbox,
    outbox: AuditOutbox,
    clock: SharedClock,
    params: DetectorParams,
    /// ε and δ for the gradient arrow of the events' lines.
    ggs: GgsParams,
    period: Duration,
    options: AuditorOptions,
    chain: ChainWriter,
    files: Option<LogFiles>,
    window: WindowStats,
    detectors: Detectors,
    state_dirty: bool,
    last_state_write: Instant,
    status: watch::Sender<AuditorStatus>,
    retention: Keep,
}

/// Whether a flush must write the state file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StateWrite {
    /// Periodic reports and shutdown: the state must match the log.
    Now,
    /// Traffic: once the flush interval has passed since the last write.
    Due,
}

impl Auditor {
    /// Attaches to `bus` (call before roles start publishing: nothing earlier is seen)
    /// and opens the log in `config.data_dir`. Does blocking IO once.
    pub fn open(bus: &Bus, config: &Config, clock: SharedClock) -> Result<Self, AuditError> {
        Self::open_with(bus, config, clock, AuditorOptions::default())
    }

    /// Opens the auditor with non-default tuning (tests and benchmarks).
    pub fn open_with(
        bus: &Bus,
        config: &Config,
        clock: SharedClock,
        options: AuditorOptions,
    ) -> Result<Self, AuditError> {
        let tap = bus.tap("auditor", options.tap_capacity);
        let inbox = bus.subscribe(Role::Auditor);
        let dir = audit_dir(&config.data_dir);
        let io = |e| AuditError::io(&dir, e);
        let lock = LogFiles::lock(&dir)
            .map_err(io)?
            .ok_or_else(|| AuditError::Locked(dir.clone()))?;
        let tail = recover_tail(&dir).map_err(io)?;
        let now = clock.now();

        let mut recovery = tail_findings(&tail);
        let (window, detectors) = restore_state(&dir, &tail, now, &mut recovery)?;

        let files = LogFiles::open(&dir, tail.segment, lock).map_err(io)?;
        let chain = ChainWriter::new(&tail, options.max_segment_bytes);
        let (status, _) = watch::channel(AuditorStatus {
            events_logged: chain.head().next_seq,
            events_flushed: chain.head().next_seq,
            ..AuditorStatus::default()
        });
        let mut auditor = Self {
            tap,
            inbox,
            outbox: bus.audit_outbox(),
            clock,
            params: DetectorParams::from_config(config),
            ggs: config.ggs.clone(),
            period: Duration::from_secs(config.auditor.report_period_secs),
            options,
            chain,
            files: Some(files),
            window,
            detectors,
            state_dirty: true,
            last_state_write: Instant::now(),
            status,
            dir: dir.clone(),
            retention: Keep::from_days_and_mb(
                config.retention.audit_days,
                config.retention.audit_mb,
            ),
        };
        let detail = format!(
            "auditor started at event #{}; window since {}; {} tasks tracked",
            auditor.chain.head().next_seq,
            auditor.window.window_start.to_rfc3339(),
            auditor.detectors.tracked_tasks()
        );
        auditor.window.findings(&recovery);
        auditor.chain.append(AuditEvent::internal(
            EventKind::AuditorStarted,
            now,
            detail,
            recovery,
        ));
        // Record the start (and any recovery finding) before anything else happens.
        let chunks = auditor.chain.take_pending();
        let state_bytes = auditor.encode_state();
        let files = auditor.files.as_mut().ok_or(AuditError::WriterLost)?;
        files.write(&chunks).map_err(io)?;
        state::write(&auditor.dir, &state_bytes).map_err(io)?;
        auditor.state_dirty = false;
        // A prune stopped half-way (crash) is completed before anything else.
        let finished = retention::finish(&auditor.dir).map_err(io)?;
        if finished > 0 {
            tracing::info!(segments = finished, "completed an interrupted audit prune");
        }
        auditor.publish_status();
        Ok(auditor)
    }

    /// Prunes sealed segments past the retention limits: records the checkpoint in the
    /// chain and on disk first, then removes them (see [`retention`]).
    pub async fn prune(&mut self) -> Result<usize, AuditError> {
        let now = self.clock.now();
        let current = self.chain.segment();
        let dir = self.dir.clone();
        let limits = self.retention;
        let io = |e| AuditError::io(&self.dir, e);
        let planned = tokio::task::spawn_blocking(move || {
            retention::plan(&dir, current, now, limits).and_then(|first_kept| {
                first_kept
                    .map(|k| retention::start_of(&dir, k).map(|start| (k, start)))
                    .transpose()
            })
        })
        .await
        .map_err(|_| AuditError::WriterLost)?
        .map_err(io)?;
        let Some((first_segment, (first_seq, prev))) = planned else {
            return Ok(0);
        };
        let checkpoint = retention::PruneCheckpoint {
            first_segment,
            first_seq,
            prev,
            pruned_at: now,
        };
        let mut event = AuditEvent::internal(
            EventKind::Retention,
            now,
            format!(
                "pruned segments before {} (events #0–#{}); the log now starts at event #{first_seq}",
                log::segment_name(first_segment),
                first_seq.saturating_sub(1)
            ),
            Vec::new(),
        );
        event.digest = Some(checkpoint.digest());
        self.chain.append(event);
        self.state_dirty = true;
        // The record is on disk before the checkpoint, and both before any removal.
        self.flush(None, StateWrite::Now).await?;
        let dir = self.dir.clone();
        let removed = tokio::task::spawn_blocking(move || {
            retention::write(&dir, &checkpoint).and_then(|()| retention::finish(&dir))
        })
        .await
        .map_err(|_| AuditError::WriterLost)?
        .map_err(|e| AuditError::io(&self.dir, e))?;
        tracing::info!(segments = removed, first_seq, "audit log pruned");
        Ok(removed)
    }

    /// Progress updates of this auditor.
    pub fn status(&self) -> watch::Receiver<AuditorStatus> {
        self.status.subscribe()
    }

    /// Observes until `cancel` fires or the bus closes; then logs what is still buffered
    /// and syncs the log to disk. An IO error stops the auditor (the next start trims
    /// and reports whatever the failure left behind).
    pub async fn run(mut self, cancel: CancellationToken) -> Result<(), AuditError> {
        let mut ticker = tokio::time::interval_at(Instant::now() + self.period, self.period);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut flush_at: Option<Instant> = None;
        let mut inbox_open = true;
        loop {
            if flush_at.is_none() && self.has_unwritten() {
                flush_at = Some(Instant::now() + self.options.flush_interval);
            }
            let deadline = flush_at.unwrap_or_else(|| Instant::now() + self.period);
            let step: Result<bool, AuditError> = tokio::select! {
                biased;
                _ = cancel.cancelled() => Ok(false),
                query = self.inbox.recv(), if inbox_open => match query {
                    Some(env) => self.answer(&env).await.map(|()| true),
                    None => {
                        inbox_open = false;
                        Ok(true)
                    }
                },
                _ = ticker.tick() => self.periodic().await.map(|()| true),
                _ = tokio::time::sleep_until(deadline), if flush_at.is_some() => {
                    flush_at = None;
                    self.flush(None, StateWrite::Due).await.map(|()| true)
                }
                event = self.tap.recv() => match event {
                    Some(event) => {
                        self.take(event);
                        self.drain(DRAIN_BATCH);
                        if self.chain.pending_bytes() >= FLUSH_BYTES {
                            self.flush(None, StateWrite::Due).await.map(|()| true)
                        } else {
                            Ok(true)
                        }
                    }
                    None => Ok(false),
                },
            };
            match step {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    tracing::error!(error = %e, "the auditor stopped");
                    return Err(e);
                }
            }
        }
        // Messages published before the shutdown are still in the tap: log them too.
        self.drain(self.options.tap_capacity.saturating_mul(2));
        self.flush(None, StateWrite::Now).await?;
        let files = self.files.take().ok_or(AuditError::WriterLost)?;
        let dir = self.dir.clone();
        tokio::task::spawn_blocking(move || files.sync())
            .await
            .map_err(|_| AuditError::WriterLost)?
            .map_err(|e| AuditError::io(&dir, e))
    }

    /// Handles one tap event: detectors, window, chain.
    fn take(&mut self, event: TapEvent) {
        match event {
            TapEvent::Message(env) => {
                let findings = self.detectors.observe(&env, &self.params);
                self.window.record(&env, &findings, self.params.epsilon);
                self.chain
                    .append(AuditEvent::for_envelope(&env, findings, &self.ggs));
            }
            TapEvent::Gap { skipped } => {
                let finding = Finding::new(
                    AnomalyKind::TapGap,
                    format!(
                        "the auditor's tap fell behind and lost {skipped} bus messages; detectors may have missed events in that span"
                    ),
                );
                self.detectors.gap();
                self.window.record_gap(skipped, &finding);
                self.status
                    .send_modify(|s| s.messages_lost = s.messages_lost.saturating_add(skipped));
                self.chain.append(AuditEvent::internal(
                    EventKind::TapGap,
                    self.clock.now(),
                    format!("{skipped} bus messages lost"),
                    vec![finding],
                ));
            }
        }
        self.state_dirty = true;
    }

    /// Handles up to `max` buffered tap events without waiting.
    fn drain(&mut self, max: usize) {
        for _ in 0..max {
            match self.tap.try_recv() {
                Some(event) => self.take(event),
                None => break,
            }
        }
        self.publish_status();
    }

    /// Handles buffered tap events up to and including envelope `id` (or until the tap
    /// is empty, if the tap lost it).
    fn drain_until(&mut self, id: EnvelopeId) {
        for _ in 0..self.options.tap_capacity.saturating_add(1) {
            let Some(event) = self.tap.try_recv() else {
                break;
            };
            let reached = matches!(&event, TapEvent::Message(env) if env.id == id);
            self.take(event);
            if reached {
                break;
            }
        }
        self.publish_status();
    }

    /// Answers an on-demand query from the human; ignores everything else.
    async fn answer(&mut self, env: &Arc<Envelope>) -> Result<(), AuditError> {
        let Message::AuditQuery(query) = &env.message else {
            return Ok(());
        };
        if env.from != Role::User {
            // The auditor cannot be instructed by any agent; the tap logs the attempt
            // as a boundary violation.
            return Ok(());
        }
        // Everything published before the query is already in the tap.
        self.drain_until(env.id);
        let report = self.window.report(
            AuditTrigger::OnDemand,
            self.clock.now(),
            Some(query.query_id),
        );
        // An on-demand report changes no statistic: the state need not be rewritten.
        self.report(report, Some(env.id), StateWrite::Due).await
    }

    /// Closes a non-empty window with a periodic report, and prunes past the limits.
    async fn periodic(&mut self) -> Result<(), AuditError> {
        self.drain(self.options.tap_capacity);
        self.prune().await?;
        if self.window.is_empty() {
            return Ok(());
        }
        let now = self.clock.now();
        let report = self.window.report(AuditTrigger::Periodic, now, None);
        self.window = WindowStats::new(now);
        self.state_dirty = true;
        // The closed window is persisted with its report, or a restart would report it
        // again.
        self.report(report, None, StateWrite::Now).await
    }

    /// Stores `report` in the history (with the log and state up to now), then
    /// publishes it to the user.
    async fn report(
        &mut self,
        report: AuditReport,
        reply_to: Option<EnvelopeId>,
        state: StateWrite,
    ) -> Result<(), AuditError> {
        let mut line = serde_json::to_vec(&report).expect("audit reports serialise to JSON");
        line.push(b'\n');
        self.flush(Some(line), state).await?;
        match reply_to {
            Some(query) => self.outbox.reply(query, report),
            None => self.outbox.publish(report),
        };
        self.status
            .send_modify(|s| s.reports_published = s.reports_published.saturating_add(1));
        Ok(())
    }

    fn has_unwritten(&self) -> bool {
        self.chain.pending_bytes() > 0 || self.state_dirty
    }

    /// Writes pending log lines, then `report_line` (if any), then the state with its
    /// checkpoint — in that order, off the async task. The state (which grows with the
    /// window) is written at most once per flush interval unless `state` is
    /// [`StateWrite::Now`]; the checkpoint therefore trails a busy log by at most that
    /// interval.
    async fn flush(
        &mut self,
        report_line: Option<Vec<u8>>,
        state: StateWrite,
    ) -> Result<(), AuditError> {
        let write_state = self.state_dirty
            && (state == StateWrite::Now
                || self.last_state_write.elapsed() >= self.options.flush_interval);
        if self.chain.pending_bytes() == 0 && report_line.is_none() && !write_state {
            return Ok(());
        }
        let chunks = self.chain.take_pending();
        let state_bytes = write_state.then(|| self.encode_state());
        let mut files = self.files.take().ok_or(AuditError::WriterLost)?;
        let dir = self.dir.clone();
        let (files, result) = tokio::task::spawn_blocking(move || {
            let result = files
                .write(&chunks)
                .and_then(|()| match &report_line {
                    Some(line) => log::open_append(&dir.join(REPORTS_FILE))
                        .and_then(|mut f| io::Write::write_all(&mut f, line)),
                    None => Ok(()),
                })
                .and_then(|()| match &state_bytes {
                    Some(bytes) => state::write(&dir, bytes),
                    None => Ok(()),
                });
            (files, result)
        })
        .await
        .map_err(|_| AuditError::WriterLost)?;
        self.files = Some(files);
        result.map_err(|e| AuditError::io(&self.dir, e))?;
        if write_state {
            self.state_dirty = false;
            self.last_state_write = Instant::now();
        }
        let flushed = self.chain.head().next_seq;
        self.status.send_modify(|s| s.events_flushed = flushed);
        Ok(())
    }

    fn encode_state(&self) -> Vec<u8> {
        state::encode(&state::StateRef {
            version: state::STATE_VERSION,
            checkpoint: self.chain.head(),
            saved_at: self.clock.now(),
            window: &self.window,
            detectors: &self.detectors,
        })
    }

    fn publish_status(&self) {
        let logged = self.chain.head().next_seq;
        self.status.send_if_modified(|s| {
            let changed = s.events_logged != logged;
            s.events_logged = logged;
            changed
        });
    }
}

fn tail_findings(tail: &Tail) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some((bytes, digest)) = &tail.torn_bytes {
        findings.push(Finding::new(
            AnomalyKind::LogRecovery,
            format!(
                "the log ended in an unterminated line of {bytes} bytes (a write torn by a crash); it was removed (its sha256 was {digest})"
            ),
        ));
    }
    if tail.unreadable_last_line {
        findings.push(Finding::new(
            AnomalyKind::LogRecovery,
            "the last event of the log is unreadable; the chain continues from the hash of its bytes (run `artoo audit verify`)",
        ));
    }
    findings
}

fn checkpoint_findings(checkpoint: &log::Checkpoint, tail: &Tail) -> Vec<Finding> {
    let found = &tail.head;
    let text = if found.next_seq > checkpoint.next_seq {
        format!(
            "{} events follow the last checkpoint (#{}): the auditor stopped before checkpointing them, or they were appended by someone else; their statistics are not in this window",
            found.next_seq - checkpoint.next_seq,
            checkpoint.next_seq
        )
    } else if found.next_seq < checkpoint.next_seq {
        format!(
            "the log ends after {} events but the checkpoint recorded {}: events were removed",
            found.next_seq, checkpoint.next_seq
        )
    } else if found.hash != checkpoint.hash {
        "the log's last event is not the one the checkpoint recorded: its tail was rewritten"
            .to_string()
    } else {
        return Vec::new();
    };
    vec![Finding::new(AnomalyKind::LogRecovery, text)]
}

/// The window and detector state saved beside the log, or a fresh start with a finding
/// that says why (no checkpoint for a non-empty log, or an unreadable one, quarantined).
fn restore_state(
    dir: &Path,
    tail: &Tail,
    now: chrono::DateTime<chrono::Utc>,
    recovery: &mut Vec<Finding>,
) -> Result<(WindowStats, Detectors), AuditError> {
    match state::load(dir) {
        Ok(Some(saved)) => {
            recovery.extend(checkpoint_findings(&saved.checkpoint, tail));
            Ok((saved.window, saved.detectors))
        }
        Ok(None) => {
            if tail.head.next_seq > 0 {
                recovery.push(Finding::new(
                    AnomalyKind::LogRecovery,
                    format!(
                        "the log holds {} events but the checkpoint ({}) is missing; statistics start afresh",
                        tail.head.next_seq,
                        state::STATE_FILE
                    ),
                ));
            }
            Ok((WindowStats::new(now), Detectors::default()))
        }
        Err(e) => {
            let moved = state::quarantine(dir, now).map_err(|e| AuditError::io(dir, e))?;
            recovery.push(Finding::new(
                AnomalyKind::LogRecovery,
                format!("{e}; it was moved to {moved} and a new window starts"),
            ));
            Ok((WindowStats::new(now), Detectors::default()))
        }
    }
}
