//! The writer: a tap reader that records each run's envelopes in a file of its own.
//!
//! [`Recorder`] is the pure part (envelopes in, buffered records out, no IO); the
//! [`TaskLogWriter`] task feeds it from the tap and writes its buffers to disk on the
//! blocking pool at run end, [`FLUSH_INTERVAL`] after a line is buffered, when a buffer
//! grows large, and on [`TaskLogHandle::flush`]/[`TaskLogHandle::close`].

use std::collections::{HashMap, VecDeque};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

use super::record::{Cut, Gap, Record};
use super::{file_safe_id, tasks_dir};
use crate::bus::{Bus, DEFAULT_TAP_CAPACITY, Envelope, Tap, TapEvent};
use crate::clock::SharedClock;
use crate::contracts::{Message, TaskId};

/// Lines reach the disk at most this long after they were published (plus the write).
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(500);
/// A run whose buffer grows past this is written at once rather than at the next tick.
const FLUSH_BYTES: usize = 256 * 1024;
/// Ended runs remembered so that their stragglers land in the right file.
const COMMAND_CAPACITY: usize = 16;
/// Name of the writer's tap in bus statistics.
const TAP_NAME: &str = "tasklog";

/// The writer task has stopped (bus closed, or closed through a handle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the task log writer has stopped")]
pub struct WriterStopped;

enum Command {
    Flush(oneshot::Sender<()>),
    Close(oneshot::Sender<()>),
}

/// Control of a running [`TaskLogWriter`]. Cheap to clone.
#[derive(Clone)]
pub struct TaskLogHandle {
    commands: mpsc::Sender<Command>,
    dir: PathBuf,
}

impl TaskLogHandle {
    /// Returns once everything published before the call is written (the CLI calls this
    /// after a FinalResult, before it reads the run back for the "Decisions" block).
    pub async fn flush(&self) -> Result<(), WriterStopped> {
        self.command(Command::Flush).await
    }

    /// Writes everything published so far, ends still-open runs as `unfinished`, syncs
    /// the files and stops the writer.
    pub async fn close(&self) -> Result<(), WriterStopped> {
        self.command(Command::Close).await
    }

    /// The directory the run files go to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    async fn command(&self, make: fn(oneshot::Sender<()>) -> Command) -> Result<(), WriterStopped> {
        let (tx, rx) = oneshot::channel();
        self.commands
            .send(make(tx))
            .await
            .map_err(|_| WriterStopped)?;
        rx.await.map_err(|_| WriterStopped)
    }
}

/// The writer task. Spawn [`TaskLogWriter::run`] on the runtime's task tracker; keep
/// the [`TaskLogHandle`] for flush and shutdown.
pub struct TaskLogWriter {
    tap: Tap,
    recorder: Recorder,
    commands: mpsc::Receiver<Command>,
}

impl TaskLogWriter {
    /// A writer for the runs seen on `tap`, into `dir` (usually [`tasks_dir`]). `clock`
    /// stamps the lines that no envelope carries (gaps, shutdown). At most `runs_kept`
    /// written ended runs stay in memory (`Limits::task_runs_kept`).
    pub fn new(
        tap: Tap,
        dir: impl Into<PathBuf>,
        clock: SharedClock,
        runs_kept: usize,
    ) -> (Self, TaskLogHandle) {
        let dir = dir.into();
        let (tx, rx) = mpsc::channel(COMMAND_CAPACITY);
        let writer = TaskLogWriter {
            tap,
            recorder: Recorder::new(dir.clone(), clock, runs_kept),
            commands: rx,
        };
        (writer, TaskLogHandle { commands: tx, dir })
    }

    /// A writer on its own tap of `bus`, writing to `<data_dir>/tasks`. Create it before
    /// the first task is submitted: a tap sees only what is published after it exists.
    pub fn on_bus(
        bus: &Bus,
        data_dir: &Path,
        clock: SharedClock,
        runs_kept: usize,
    ) -> (Self, TaskLogHandle) {
        Self::new(
            bus.tap(TAP_NAME, DEFAULT_TAP_CAPACITY),
            tasks_dir(data_dir),
            clock,
            runs_kept,
        )
    }

    /// Runs until the bus closes or a handle calls `close`. Never panics on IO errors:
    /// they are logged and the writer carries on with the next lines.
    pub async fn run(mut self) {
        // Armed when the first line is buffered, so an idle writer never wakes up.
        let mut deadline: Option<Instant> = None;
        let mut commands_open = true;
        loop {
            tokio::select! {
                biased;
                command = self.commands.recv(), if commands_open => match command {
                    Some(Command::Flush(done)) => {
                        self.drain_tap();
                        self.write_pending().await;
                        let _ = done.send(());
                    }
                    Some(Command::Close(done)) => {
                        self.drain_tap();
                        self.shut_down().await;
                        let _ = done.send(());
                        return;
                    }
                    // Every handle is gone: keep logging until the bus closes.
                    None => commands_open = false,
                },
                event = self.tap.recv() => match event {
                    Some(event) => {
                        self.recorder.record(event);
                        if self.recorder.wants_write() {
                            // What was published with the run's end (GGS's Megram right
                            // after the FinalResult) goes out in the same write, not in a
                            // second open of the file.
                            self.drain_tap();
                            self.write_pending().await;
                        }
                    }
                    None => {
                        self.shut_down().await;
                        return;
                    }
                },
                () = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    self.write_pending().await;
                }
            }
            deadline = match deadline {
                _ if !self.recorder.has_pending() => None,
                Some(armed) => Some(armed),
                None => Some(Instant::now() + FLUSH_INTERVAL),
            };
        }
    }

    fn drain_tap(&mut self) {
        while let Some(event) = self.tap.try_recv() {
            self.recorder.record(event);
        }
    }

    async fn shut_down(&mut self) {
        self.recorder.end_open_runs();
        self.write_pending().await;
    }

    async fn write_pending(&mut self) {
        let jobs = self.recorder.take_jobs();
        if jobs.is_empty() {
            return;
        }
        match tokio::task::spawn_blocking(move || jobs.into_iter().map(run_job).collect()).await {
            Ok(outcomes) => self.recorder.apply(outcomes),
            Err(err) => tracing::error!(%err, "task log write did not complete"),
        }
    }
}

type RunKey = u64;

/// What the writer knows of one run.
struct RunState {
    task_id: TaskId,
    file_name: String,
    /// Set once the file exists.
    path: Option<PathBuf>,
    pending: Vec<u8>,
    pending_lines: usize,
    /// The task closed (or the run was cut): later traffic is late.
    ended: bool,
    /// The run ended since the last write: sync the file then.
    sync_pending: bool,
    /// An IO error was already reported for this run (later ones go to debug).
    io_failed: bool,
}

/// Lines buffered for one file.
struct WriteJob {
    key: RunKey,
    dir: PathBuf,
    file_name: String,
    path: Option<PathBuf>,
    bytes: Vec<u8>,
    lines: usize,
    sync: bool,
}

struct JobOutcome {
    key: RunKey,
    path: Option<PathBuf>,
    lines: usize,
    error: Option<io::Error>,
}

/// Turns tap events into buffered records, per run. No IO.
struct Recorder {
    dir: PathBuf,
    clock: SharedClock,
    next_key: RunKey,
    runs: HashMap<RunKey, RunState>,
    /// The latest run of each task id.
    current: HashMap<TaskId, RunKey>,
    /// Ended runs, oldest first, for eviction.
    ended: VecDeque<RunKey>,
    /// Written ended runs kept in memory; older ones are forgotten.
    runs_kept: usize,
}

impl Recorder {
    fn new(dir: PathBuf, clock: SharedClock, runs_kept: usize) -> Self {
        Self {
            dir,
            clock,
            next_key: 0,
            runs: HashMap::new(),
            current: HashMap::new(),
            ended: VecDeque::new(),
            runs_kept: runs_kept.max(1),
        }
    }

    fn record(&mut self, event: TapEvent) {
        match event {
            TapEvent::Gap { skipped } => self.record_gap(skipped),
            TapEvent::Message(env) => self.record_message(env),
        }
    }

    fn record_gap(&mut self, skipped: u64) {
        let gap = Record::Gap(Gap {
            skipped,
            at: self.clock.now(),
        });
        let mut open = 0;
        for run in self.runs.values_mut().filter(|r| !r.ended) {
            push_record(run, &gap);
            open += 1;
        }
        tracing::warn!(
            skipped,
            open_runs = open,
            "task log tap fell behind; bus messages were lost"
        );
    }

    fn record_message(&mut self, env: Arc<Envelope>) {
        // Traffic of no task (audit, operator memory edits, the Dreamer's model calls)
        // belongs to no run.
        let Some(task_id) = env.task_id.clone() else {
            return;
        };
        let key = match (&env.message, self.current.get(&task_id)) {
            (Message::TaskSubmitted(_), _) | (_, None) => self.open_run(&task_id, &env),
            (_, Some(&key)) => key,
        };
        let Some(run) = self.runs.get_mut(&key) else {
            return;
        };
        let closes = matches!(env.message, Message::TaskClosed(_)) && !run.ended;
        push_record(run, &Record::Envelope(env));
        if closes {
            run.ended = true;
            run.sync_pending = true;
            self.ended.push_back(key);
        }
    }

    /// Opens a new run (a new file) for `task_id`, cutting the run the id had if it is
    /// still open: that run will hear nothing more under this id.
    fn open_run(&mut self, task_id: &TaskId, env: &Envelope) -> RunKey {
        if let Some(old) = self.current.get(task_id).copied() {
            self.cut(old, env.timestamp);
        }
        let key = self.next_key;
        self.next_key += 1;
        let run = RunState {
            task_id: task_id.clone(),
            file_name: run_file_name(env.timestamp, env.seq, task_id),
            path: None,
            pending: Vec::new(),
            pending_lines: 0,
            ended: false,
            sync_pending: false,
            io_failed: false,
        };
        self.runs.insert(key, run);
        self.current.insert(task_id.clone(), key);
        key
    }

    /// Ends an open run without its task's close.
    fn cut(&mut self, key: RunKey, at: DateTime<Utc>) {
        let Some(run) = self.runs.get_mut(&key).filter(|r| !r.ended) else {
            return;
        };
        push_record(run, &Record::Cut(Cut { at }));
        run.ended = true;
        run.sync_pending = true;
        self.ended.push_back(key);
    }

    /// Cuts every open run (shutdown).
    fn end_open_runs(&mut self) {
        let now = self.clock.now();
        let open: Vec<RunKey> = self
            .runs
            .iter()
            .filter(|(_, r)| !r.ended)
            .map(|(&key, _)| key)
            .collect();
        for key in open {
            self.cut(key, now);
        }
    }

    fn has_pending(&self) -> bool {
        self.runs
            .values()
            .any(|r| !r.pending.is_empty() || r.sync_pending)
    }

    fn wants_write(&self) -> bool {
        self.runs
            .values()
            .any(|r| r.sync_pending || r.pending.len() >= FLUSH_BYTES)
    }

    fn take_jobs(&mut self) -> Vec<WriteJob> {
        let mut jobs = Vec::new();
        for (&key, run) in &mut self.runs {
            if run.pending.is_empty() && !run.sync_pending {
                continue;
            }
            jobs.push(WriteJob {
                key,
                dir: self.dir.clone(),
                file_name: run.file_name.clone(),
                path: run.path.clone(),
                bytes: std::mem::take(&mut run.pending),
                lines: std::mem::take(&mut run.pending_lines),
                sync: std::mem::take(&mut run.sync_pending),
            });
        }
        // Oldest runs first, so a failure report reads in order.
        jobs.sort_by_key(|j| j.key);
        jobs
    }

    fn apply(&mut self, outcomes: Vec<JobOutcome>) {
        for outcome in outcomes {
            let Some(run) = self.runs.get_mut(&outcome.key) else {
                continue;
            };
            if outcome.path.is_some() {
                run.path = outcome.path;
            }
            if let Some(err) = outcome.error {
                let file = run
                    .path
                    .clone()
                    .unwrap_or_else(|| self.dir.join(&run.file_name));
                if run.io_failed {
                    tracing::debug!(task_id = %run.task_id, file = %file.display(), lost_lines = outcome.lines, %err, "task log write failed again");
                } else {
                    tracing::warn!(task_id = %run.task_id, file = %file.display(), lost_lines = outcome.lines, %err, "task log write failed; these lines are lost");
                    run.io_failed = true;
                }
            }
        }
        self.evict();
    }

    /// Forgets written ended runs beyond `runs_kept`, and superseded runs at once.
    fn evict(&mut self) {
        let written = |run: &RunState| run.pending.is_empty() && !run.sync_pending;
        let mut keep = VecDeque::with_capacity(self.ended.len());
        let excess = self.ended.len().saturating_sub(self.runs_kept);
        for (idx, key) in std::mem::take(&mut self.ended).into_iter().enumerate() {
            let Some(run) = self.runs.get(&key) else {
                continue;
            };
            let superseded = self.current.get(&run.task_id) != Some(&key);
            if written(run) && (superseded || idx < excess) {
                if !superseded {
                    self.current.remove(&run.task_id);
                }
                self.runs.remove(&key);
            } else {
                keep.push_back(key);
            }
        }
        self.ended = keep;
    }
}

fn push_record(run: &mut RunState, record: &Record) {
    let start = run.pending.len();
    match serde_json::to_writer(&mut run.pending, record) {
        Ok(()) => {
            run.pending.push(b'\n');
            run.pending_lines += 1;
        }
        Err(err) => {
            run.pending.truncate(start);
            tracing::warn!(task_id = %run.task_id, %err, "task log record could not be encoded");
        }
    }
}

/// `<start, UTC, ms>_<bus seq>_<task id>.jsonl`: names sort by start time (the bus seq
/// orders runs that started in the same millisecond) and say whose run it is.
fn run_file_name(started_at: DateTime<Utc>, seq: u64, task_id: &TaskId) -> String {
    format!(
        "{}_{seq:012}_{}.jsonl",
        started_at.format("%Y%m%dT%H%M%S%.3fZ"),
        file_safe_id(task_id)
    )
}

fn run_job(job: WriteJob) -> JobOutcome {
    let mut path = job.path.clone();
    let result = (|| -> io::Result<()> {
        let mut file = match &job.path {
            Some(existing) => OpenOptions::new().append(true).open(existing)?,
            None => {
                let (file, created) = create_run_file(&job.dir, &job.file_name)?;
                path = Some(created);
                file
            }
        };
        file.write_all(&job.bytes)?;
        if job.sync {
            file.sync_data()?;
        }
        Ok(())
    })();
    JobOutcome {
        key: job.key,
        path,
        lines: job.lines,
        error: result.err(),
    }
}

/// Creates a fresh file, never opening an existing one: another process (or an earlier
/// bus in the same dir) may have used the name.
fn create_run_file(dir: &Path, name: &str) -> io::Result<(File, PathBuf)> {
    const ATTEMPTS: u32 = 100;
    fs::create_dir_all(dir)?;
    let stem = name.strip_suffix(".jsonl").unwrap_or(name);
    for n in 0..ATTEMPTS {
        let candidate = if n == 0 {
            dir.join(name)
        } else {
            dir.join(format!("{stem}-{n}.jsonl"))
        };
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(file) => return Ok((file, candidate)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{ATTEMPTS} run files named {name} already exist"),
    ))
}

#[cfg(test)]
mod tests;
