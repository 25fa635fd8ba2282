//! The writer: a tap reader that turns bus traffic into run files.
//!
//! [`Recorder`] is the pure part (messages in, buffered lines out, no IO); the
//! [`TaskLogWriter`] task feeds it from the tap and writes its buffers to disk on the
//! blocking pool at run end, [`FLUSH_INTERVAL`] after a line is buffered, when a buffer
//! grows large, and on [`TaskLogHandle::flush`]/[`TaskLogHandle::close`].

use std::collections::{HashMap, VecDeque};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

use super::event::{self, Event, LogLine, RunStatus, TaskEnd, Usage};
use super::{file_safe_id, tasks_dir};
use crate::bus::{Bus, DEFAULT_TAP_CAPACITY, Envelope, Tap, TapEvent};
use crate::clock::SharedClock;
use crate::contracts::{self as c, Message, TaskId};

/// Lines reach the disk at most this long after they were published (plus the write).
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(500);
/// A run whose buffer grows past this is written at once rather than at the next tick.
const FLUSH_BYTES: usize = 256 * 1024;
/// Ended runs remembered so that their stragglers land in the right file.
const MAX_ENDED_RUNS: usize = 256;
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
    /// stamps the lines that no envelope carries (gaps, shutdown).
    pub fn new(tap: Tap, dir: impl Into<PathBuf>, clock: SharedClock) -> (Self, TaskLogHandle) {
        let dir = dir.into();
        let (tx, rx) = mpsc::channel(COMMAND_CAPACITY);
        let writer = TaskLogWriter {
            tap,
            recorder: Recorder::new(dir.clone(), clock),
            commands: rx,
        };
        (writer, TaskLogHandle { commands: tx, dir })
    }

    /// A writer on its own tap of `bus`, writing to `<data_dir>/tasks`. Create it before
    /// the first task is submitted: a tap sees only what is published after it exists.
    pub fn on_bus(bus: &Bus, data_dir: &Path, clock: SharedClock) -> (Self, TaskLogHandle) {
        Self::new(
            bus.tap(TAP_NAME, DEFAULT_TAP_CAPACITY),
            tasks_dir(data_dir),
            clock,
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
    started_at: DateTime<Utc>,
    pending: Vec<u8>,
    pending_lines: usize,
    usage: Usage,
    /// The planning round in flight (0 = the first plan).
    round: u32,
    plans: u32,
    replans: u32,
    skipped: u64,
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

/// Turns tap events into buffered lines, per run. No IO.
struct Recorder {
    dir: PathBuf,
    clock: SharedClock,
    next_key: RunKey,
    runs: HashMap<RunKey, RunState>,
    /// The latest run of each task id.
    current: HashMap<TaskId, RunKey>,
    /// Ended runs, oldest first, for eviction.
    ended: VecDeque<RunKey>,
}

impl Recorder {
    fn new(dir: PathBuf, clock: SharedClock) -> Self {
        Self {
            dir,
            clock,
            next_key: 0,
            runs: HashMap::new(),
            current: HashMap::new(),
            ended: VecDeque::new(),
        }
    }

    fn record(&mut self, event: TapEvent) {
        match event {
            TapEvent::Gap { skipped } => self.record_gap(skipped),
            TapEvent::Message(env) => self.record_message(&env),
        }
    }

    fn record_gap(&mut self, skipped: u64) {
        let now = self.clock.now();
        let mut open = 0;
        for run in self.runs.values_mut().filter(|r| !r.ended) {
            run.skipped += skipped;
            push_line(run, Event::Gap(event::Gap { skipped }), now, None, false);
            open += 1;
        }
        tracing::warn!(
            skipped,
            open_runs = open,
            "task log tap fell behind; bus messages were lost"
        );
    }

    fn record_message(&mut self, env: &Envelope) {
        // Traffic of no task (audit, operator memory edits, the Dreamer's model calls)
        // belongs to no run.
        let Some(task_id) = env.task_id.as_ref() else {
            return;
        };
        let key = match &env.message {
            Message::TaskSubmitted(m) => self.open_run(task_id, env, Some(m)),
            _ => match self.current.get(task_id) {
                Some(&key) => key,
                None => self.open_run(task_id, env, None),
            },
        };
        let Some(run) = self.runs.get_mut(&key) else {
            return;
        };
        let after_end = run.ended;
        let (events, closes) = derive(run, &env.message);
        for event in events {
            push_line(run, event, env.timestamp, Some(env.seq), after_end);
        }
        if let Some(status) = closes.filter(|_| !after_end) {
            end_run(run, status, env.timestamp, Some(env.seq));
            self.ended.push_back(key);
        }
    }

    /// Opens a new run (a new file) for `task_id`. Without a TaskSubmitted the run is
    /// partial: its start was never seen.
    fn open_run(
        &mut self,
        task_id: &TaskId,
        env: &Envelope,
        submitted: Option<&c::TaskSubmitted>,
    ) -> RunKey {
        if let Some(old) = self.current.get(task_id).copied()
            && let Some(run) = self.runs.get_mut(&old)
            && !run.ended
        {
            // The same id was submitted again while its previous run was open: that run
            // will hear nothing more under this id.
            end_run(run, RunStatus::Unfinished, env.timestamp, None);
            self.ended.push_back(old);
        }
        let key = self.next_key;
        self.next_key += 1;
        let mut run = RunState {
            task_id: task_id.clone(),
            file_name: run_file_name(env.timestamp, env.seq, task_id),
            path: None,
            started_at: env.timestamp,
            pending: Vec::new(),
            pending_lines: 0,
            usage: Usage::default(),
            round: 0,
            plans: 0,
            replans: 0,
            skipped: 0,
            ended: false,
            sync_pending: false,
            io_failed: false,
        };
        if submitted.is_none() {
            let begin = event::TaskBegin {
                task_id: task_id.clone(),
                raw_input: None,
                submitted_at: None,
                session_turns: 0,
                partial: true,
            };
            push_line(&mut run, begin.into(), env.timestamp, None, false);
        }
        self.runs.insert(key, run);
        self.current.insert(task_id.clone(), key);
        key
    }

    /// Ends every open run as `unfinished` (shutdown).
    fn end_open_runs(&mut self) {
        let now = self.clock.now();
        for (&key, run) in self.runs.iter_mut().filter(|(_, r)| !r.ended) {
            end_run(run, RunStatus::Unfinished, now, None);
            self.ended.push_back(key);
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

    /// Forgets written ended runs beyond [`MAX_ENDED_RUNS`], and superseded runs at once.
    fn evict(&mut self) {
        let written = |run: &RunState| run.pending.is_empty() && !run.sync_pending;
        let mut keep = VecDeque::with_capacity(self.ended.len());
        let excess = self.ended.len().saturating_sub(MAX_ENDED_RUNS);
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

/// The lines a message contributes to its run, and whether it ends the run.
fn derive(run: &mut RunState, message: &Message) -> (Vec<Event>, Option<RunStatus>) {
    let events: Vec<Event> = match message {
        // The budget is the config's; the run's end records the time it took.
        Message::TaskBudget(_) => vec![],
        Message::TaskSubmitted(m) => vec![
            event::TaskBegin {
                task_id: m.task_id.clone(),
                raw_input: Some(m.raw_input.clone()),
                submitted_at: Some(m.submitted_at),
                session_turns: m.session_history.len(),
                partial: false,
            }
            .into(),
        ],
        Message::TaskSpec(m) => vec![
            event::TaskSpec {
                intent: m.intent.clone(),
                scope: m.constraints.scope.clone(),
                deadline: m.constraints.deadline.clone(),
                raw_input: m.raw_input.clone(),
            }
            .into(),
        ],
        Message::ClarificationRequest(m) => vec![
            event::Clarification {
                round: m.round,
                question: m.question.clone(),
            }
            .into(),
        ],
        Message::ClarificationAnswer(m) => vec![
            event::ClarificationAnswer {
                answer: m.answer.clone(),
            }
            .into(),
        ],
        Message::ChatReply(m) => {
            let reply = event::ChatReply {
                answer: m.answer.clone(),
            };
            return (vec![reply.into()], Some(RunStatus::Answered));
        }
        // The request/reply pair behind a calibration; the MemoryRecall R2 publishes
        // afterwards carries what memory said and what R2 made of it.
        Message::MemoryQuery(_) | Message::MemoryResponse(_) => vec![],
        // R4a's close notice to R3 repeats the SubTaskOutcome, which is logged as
        // subtask_end with its verdicts.
        Message::SubTaskClosed(_) => vec![],
        Message::DispatchHalted(m) => vec![Event::DispatchHalted(m.clone())],
        Message::MemoryRecall(m) => vec![
            event::MemoryQuery {
                // Recalls for a replan happen after the directive advanced the round.
                round: m.round.max(run.round),
                space: m.space.clone(),
                entity: m.entity.clone(),
                sop_count: m.sops.len(),
                action: m.potentials.action,
                attention: m.potentials.attention,
                decision: m.potentials.decision,
                constraints: m.constraints.clone(),
                sops: m.sops.clone(),
            }
            .into(),
        ],
        Message::DispatchManifest(m) => {
            run.round = m.round;
            run.plans += 1;
            vec![
                event::Plan {
                    round: m.round,
                    subtask_ids: m.subtask_ids.clone(),
                    task_criteria: m.task_criteria.clone(),
                }
                .into(),
            ]
        }
        Message::SubTask(m) => vec![
            event::SubtaskBegin {
                subtask_id: m.subtask_id,
                round: run.round,
                intent: m.intent.clone(),
                sequence: m.sequence,
                criteria: m.success_criteria.clone(),
                context: m.context.clone(),
            }
            .into(),
        ],
        Message::ExecutionResult(m) => vec![
            event::Execution {
                subtask_id: m.subtask_id,
                attempt: m.attempt,
                status: m.status,
                output: m.output.clone(),
                tool_call_count: m.tool_calls.len(),
            }
            .into(),
        ],
        Message::ToolCallEvent(m) => {
            if !run.ended {
                run.usage.record_tool_call(m.record.duration_ms);
            }
            let r = &m.record;
            vec![
                event::ToolCall {
                    subtask_id: m.subtask_id,
                    attempt: m.attempt,
                    tool: r.tool.clone(),
                    input: r.input.clone(),
                    target: r.target.clone(),
                    output_head: r.output_head.clone(),
                    status: r.status,
                    error: r.error.clone(),
                    duration_ms: r.duration_ms,
                    confirmation: r.confirmation,
                }
                .into(),
            ]
        }
        Message::CorrectionSignal(m) => vec![
            event::Correction {
                subtask_id: m.subtask_id,
                attempt: m.attempt_number,
                failed_criterion: m.failed_criterion.clone(),
                failure_class: m.failure_class,
                what_was_wrong: m.what_was_wrong.clone(),
                what_to_do: m.what_to_do.clone(),
                calls_to_avoid: m.calls_to_avoid.len(),
            }
            .into(),
        ],
        Message::SubTaskOutcome(m) => {
            // The verdicts are those of the last fast-loop attempt.
            let attempt = m.gap_trajectory.last().map(|p| p.attempt).or_else(|| {
                u32::try_from(m.gap_trajectory.len())
                    .ok()
                    .filter(|n| *n > 0)
            });
            let mut events: Vec<Event> = m
                .criteria_verdicts
                .iter()
                .map(|v| verdict(Some(m.subtask_id), None, v, attempt))
                .collect();
            events.push(
                event::SubtaskEnd {
                    subtask_id: m.subtask_id,
                    status: m.status,
                    failure_reason: m.failure_reason.clone(),
                    gap_trajectory: m.gap_trajectory.clone(),
                    output: m.output.clone(),
                }
                .into(),
            );
            events
        }
        Message::ReplanRequest(m) => {
            let mut events = task_verdicts(run.round, &m.task_criteria_verdicts);
            events.push(
                event::Replan {
                    round: run.round,
                    gap_summary: m.gap_summary.clone(),
                    failed_subtasks: m.failed_subtasks.clone(),
                    correction_count: m.correction_count,
                    recommendation: Some(m.recommendation),
                    elapsed_ms: m.elapsed_ms,
                }
                .into(),
            );
            events
        }
        Message::OutcomeSummary(m) => {
            let mut events = task_verdicts(run.round, &m.task_criteria_verdicts);
            events.push(
                event::OutcomeSummary {
                    round: run.round,
                    summary: m.summary.clone(),
                    merged_output: m.merged_output.clone(),
                    elapsed_ms: m.elapsed_ms,
                }
                .into(),
            );
            events
        }
        Message::PlanDirective(m) => {
            let judged = run.round;
            // GGS numbers replans from 1; a directive without a number still means "the
            // next round".
            let next = if m.round > judged {
                m.round
            } else {
                judged + 1
            };
            run.round = next;
            run.replans = run.replans.max(next);
            vec![
                event::GgsDecision {
                    round: judged,
                    loss: m.loss,
                    grad_l: m.grad_l,
                    directive: m.directive.into(),
                    prev_directive: m.prev_directive,
                    rationale: Some(m.rationale.clone()),
                    gradient: m.gradient,
                    replans: next,
                }
                .into(),
                event::PlanDirective {
                    round: judged,
                    directive: m.directive,
                    blocked_tools: m.blocked_tools.clone(),
                    blocked_targets: m.blocked_targets.clone(),
                    failed_criterion: m.failed_criterion.clone(),
                    failure_class: m.failure_class,
                    urgency: m.urgency,
                    rationale: m.rationale.clone(),
                }
                .into(),
            ]
        }
        Message::PlanningFailed(m) => {
            run.round = run.round.max(m.round);
            vec![
                event::PlanningFailed {
                    round: m.round,
                    reason: m.reason.clone(),
                }
                .into(),
            ]
        }
        Message::GracefulFailureRequest(m) => vec![
            event::GracefulFailureRequest {
                reason: m.reason.clone(),
                failures: m.failures.clone(),
                matched_outputs: m.matched_outputs.len(),
            }
            .into(),
        ],
        Message::GracefulFailure(m) => vec![
            event::GracefulFailure {
                accomplished: m.accomplished.clone(),
                next_moves: m.next_moves.clone(),
            }
            .into(),
        ],
        Message::FinalResult(m) => {
            run.replans = run.replans.max(m.replans);
            let events = vec![
                // The terminal decision, the accept path's included (the Go version lost
                // it because R4b had closed the log first, digest §8).
                event::GgsDecision {
                    round: run.round,
                    loss: m.loss,
                    grad_l: m.grad_l,
                    directive: m.directive.into(),
                    prev_directive: m.prev_directive,
                    rationale: None,
                    gradient: None,
                    replans: m.replans,
                }
                .into(),
                event::FinalResult {
                    directive: m.directive,
                    summary: m.summary.clone(),
                    output: m.output.clone(),
                    replans: m.replans,
                    next_moves: m.next_moves.clone(),
                }
                .into(),
            ];
            return (events, Some(m.directive.into()));
        }
        Message::Megram(m) => {
            let g = &m.megram;
            vec![
                event::MemoryWrite {
                    megram_id: g.id,
                    state: g.state.clone(),
                    level: g.level,
                    space: g.space.clone(),
                    entity: g.entity.clone(),
                    content: g.content.clone(),
                    f: g.f,
                    sigma: g.sigma,
                    k: g.k,
                }
                .into(),
            ]
        }
        Message::ConfirmationRequest(m) => vec![Event::Law1Request(m.clone())],
        Message::ConfirmationDecision(m) => vec![Event::Law1Decision(m.clone())],
        Message::TaskCancelled(m) => {
            let cancelled = event::Cancelled {
                reason: m.reason.clone(),
            };
            return (vec![cancelled.into()], Some(RunStatus::Cancelled));
        }
        Message::LlmCall(m) => {
            if !run.ended {
                run.usage.record_llm_call(m);
            }
            vec![Event::LlmCall(m.clone())]
        }
        // Task-less traffic; filtered out before this point.
        Message::AuditQuery(_) | Message::AuditReport(_) | Message::MemoryOperatorChange(_) => {
            vec![]
        }
    };
    (events, None)
}

/// R4b's verdicts on the task criteria of `round`.
fn task_verdicts(round: u32, verdicts: &[c::CriterionVerdict]) -> Vec<Event> {
    verdicts
        .iter()
        .map(|v| verdict(None, Some(round), v, None))
        .collect()
}

fn verdict(
    subtask_id: Option<c::SubTaskId>,
    round: Option<u32>,
    v: &c::CriterionVerdict,
    attempt: Option<u32>,
) -> Event {
    event::CriterionVerdict {
        subtask_id,
        round,
        criterion: v.criterion.clone(),
        verdict: v.verdict,
        mode: v.mode,
        failure_class: v.failure_class,
        evidence: v.evidence.clone(),
        attempt,
    }
    .into()
}

fn push_line(
    run: &mut RunState,
    event: Event,
    ts: DateTime<Utc>,
    seq: Option<u64>,
    after_end: bool,
) {
    let line = LogLine {
        event,
        ts,
        seq,
        after_end,
    };
    let start = run.pending.len();
    match serde_json::to_writer(&mut run.pending, &line) {
        Ok(()) => {
            run.pending.push(b'\n');
            run.pending_lines += 1;
        }
        Err(err) => {
            run.pending.truncate(start);
            tracing::warn!(task_id = %run.task_id, kind = line.kind(), %err, "task log line could not be encoded");
        }
    }
}

fn end_run(run: &mut RunState, status: RunStatus, ts: DateTime<Utc>, seq: Option<u64>) {
    let end = TaskEnd {
        status,
        elapsed_ms: u64::try_from((ts - run.started_at).num_milliseconds()).unwrap_or(0),
        rounds: run.plans,
        replans: run.replans,
        usage: run.usage.clone(),
        skipped_messages: run.skipped,
    };
    push_line(run, end.into(), ts, seq, false);
    run.ended = true;
    run.sync_pending = true;
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
mod tests {
    use super::*;
    use crate::clock::{Clock, FakeClock};
    use crate::contracts::Role;

    fn envelope(seq: u64, message: impl Into<Message>) -> Envelope {
        let message = message.into();
        Envelope {
            id: c::EnvelopeId::mint(),
            seq,
            timestamp: FakeClock::at_epoch().now(),
            from: Role::User,
            to: Role::Perceiver,
            in_reply_to: None,
            task_id: message.task_id().cloned(),
            message,
        }
    }

    fn submitted(task: &TaskId) -> c::TaskSubmitted {
        c::TaskSubmitted {
            task_id: task.clone(),
            raw_input: "count files".into(),
            submitted_at: FakeClock::at_epoch().now(),
            session_history: vec![],
        }
    }

    fn lines(run: &RunState) -> Vec<serde_json::Value> {
        run.pending
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    }

    #[test]
    fn file_names_sort_by_start_time_then_seq_and_carry_a_safe_task_id() {
        let t0 = FakeClock::at_epoch().now();
        let a = run_file_name(t0, 9, &TaskId::from_existing("task_abc"));
        let b = run_file_name(t0, 10, &TaskId::from_existing("task_abc"));
        let c = run_file_name(
            t0 + chrono::Duration::milliseconds(1),
            0,
            &TaskId::from_existing("../evil id"),
        );
        assert_eq!(a, "20260101T000000.000Z_000000000009_task_abc.jsonl");
        assert!(a < b && b < c, "{a} {b} {c}");
        assert!(c.ends_with("_000000000000____evil_id.jsonl"), "{c}");
        assert!(!c.contains('/'));
    }

    #[test]
    fn a_message_of_an_unknown_task_opens_a_partial_run() {
        let mut rec = Recorder::new(PathBuf::from("/nonexistent"), FakeClock::at_epoch());
        let task = TaskId::from_existing("task_late");
        rec.record_message(&envelope(
            3,
            c::TaskCancelled {
                task_id: task.clone(),
                reason: "user".into(),
            },
        ));
        let run = rec.runs.values().next().unwrap();
        let kinds: Vec<_> = lines(run).iter().map(|l| l["kind"].clone()).collect();
        assert_eq!(kinds, ["task_begin", "cancelled", "task_end"]);
        assert_eq!(lines(run)[0]["partial"], true);
        assert_eq!(lines(run)[2]["status"], "cancelled");
    }

    #[test]
    fn resubmitting_an_open_task_id_ends_the_old_run_and_opens_another_file() {
        let mut rec = Recorder::new(PathBuf::from("/nonexistent"), FakeClock::at_epoch());
        let task = TaskId::from_existing("task_again");
        rec.record_message(&envelope(0, submitted(&task)));
        rec.record_message(&envelope(5, submitted(&task)));
        assert_eq!(rec.runs.len(), 2);
        let first = &rec.runs[&0];
        let second = &rec.runs[&1];
        assert_ne!(first.file_name, second.file_name);
        assert_eq!(lines(first).last().unwrap()["status"], "unfinished");
        assert!(!second.ended);
        assert_eq!(rec.current[&task], 1);
    }

    #[test]
    fn written_ended_runs_beyond_the_cap_are_forgotten_but_open_ones_are_kept() {
        let mut rec = Recorder::new(PathBuf::from("/nonexistent"), FakeClock::at_epoch());
        for i in 0..(MAX_ENDED_RUNS as u64 + 10) {
            let task = TaskId::from_existing(format!("task_{i}"));
            rec.record_message(&envelope(2 * i, submitted(&task)));
            rec.record_message(&envelope(
                2 * i + 1,
                c::TaskCancelled {
                    task_id: task,
                    reason: "x".into(),
                },
            ));
        }
        let open = TaskId::from_existing("task_open");
        rec.record_message(&envelope(10_000, submitted(&open)));
        let jobs = rec.take_jobs();
        let outcomes = jobs
            .into_iter()
            .map(|j| JobOutcome {
                key: j.key,
                path: Some(PathBuf::from(j.file_name)),
                lines: j.lines,
                error: None,
            })
            .collect();
        rec.apply(outcomes);
        assert_eq!(rec.ended.len(), MAX_ENDED_RUNS);
        assert_eq!(rec.runs.len(), MAX_ENDED_RUNS + 1);
        assert!(rec.current.contains_key(&open));
        assert!(!rec.current.contains_key(&TaskId::from_existing("task_0")));
    }
}
