//! The runtime: the whole hierarchy in one process — bus, observers (auditor, task log),
//! memory with its Dreamer, R1–R7 and the dispatcher — started in the right order and
//! driven through one small API that the CLI and the desktop shell share: submit a task,
//! cancel it, answer Law 1 requests and clarifying questions, wait for the end, and read
//! memory, audit history and task logs.
//!
//! **Invariant:** observers attach before any role can publish, so no message of any task
//! escapes the auditor or the task log; a cancelled task is closed in the registry (its
//! token cancelled) and announced with `TaskClosed` before `cancel` returns, and nothing
//! of it starts afterwards.

pub(crate) mod desk;
pub mod distiller;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use desk::{AnswerError, Desk, SESSION_TURNS, TaskEnd};
pub use distiller::LlmDistiller;

use crate::auditor::{AuditError, AuditHistory, Auditor};
use crate::bus::{Bus, BusHandle, DEFAULT_TAP_CAPACITY, Tap};
use crate::clock::{SharedClock, SystemClock};
use crate::config::Config;
use crate::contracts::{
    ApprovalScope, AuditQuery, AuditReport, ClarificationRequest, ConfirmationRequest, Decision,
    DecisionSource, Message, QueryId, RequestId, Role, SessionTurn, TaskId, TaskSubmitted,
};
use crate::ggs::Ggs;
use crate::lifecycle::Registry;
use crate::limits::Limits;
use crate::llm::{CallCtx, Instructions, Llm, LlmError, Pace, Readiness, TaskUsage};
use crate::mcp::{McpHub, McpServerStatus};
use crate::memory::{Memory, MemoryError, MemoryOperator, MemoryRole};
use crate::retention::{self, Keep};
use crate::roles::agent_validator::AgentValidator;
use crate::roles::dispatcher::Dispatcher;
use crate::roles::executor::Executor;
use crate::roles::meta_validator::MetaValidator;
use crate::roles::perceiver::Perceiver;
use crate::roles::planner::Planner;
use crate::tasklog::{self, TaskLogDir, TaskLogHandle, TaskLogWriter};
use crate::tools::Toolbox;

/// Why a runtime call failed.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The model client could not be built or a call failed.
    #[error("the model client: {0}")]
    Llm(#[from] LlmError),
    /// The memory store failed.
    #[error("memory: {0}")]
    Memory(#[from] MemoryError),
    /// The audit log failed.
    #[error("the auditor: {0}")]
    Audit(#[from] AuditError),
    /// An answer to a Law 1 request or a question was not accepted.
    #[error(transparent)]
    Answer(#[from] AnswerError),
    /// No live task has this id.
    #[error("unknown task {0}")]
    UnknownTask(TaskId),
    /// The submitted text was empty.
    #[error("the task text is empty")]
    EmptyTask,
    /// The auditor did not answer an on-demand query in time.
    #[error("the auditor did not answer within {0:?}")]
    AuditTimeout(Duration),
    /// The runtime has shut down.
    #[error("the runtime has stopped")]
    Stopped,
}

/// What the runtime is started with besides the configuration.
#[derive(Clone)]
pub struct RuntimeOptions {
    /// The clock every role reads: the system clock, or a fake one in tests.
    pub clock: SharedClock,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        Self {
            clock: SystemClock::shared(),
        }
    }
}

/// The running hierarchy. Cheap to share behind an `Arc`; every method takes `&self`.
pub struct Runtime {
    config: Arc<Config>,
    clock: SharedClock,
    bus: Bus,
    user: BusHandle,
    llm: Llm,
    limits: Limits,
    tasks: Registry,
    root: CancellationToken,
    desk: Desk,
    memory: Memory,
    operator: MemoryOperator,
    tasklog: TaskLogHandle,
    audit: AuditHistory,
    mcp: McpHub,
    /// Every role's fixed instructions (R3's with this runtime's tools).
    instructions: Vec<Instructions>,
    /// Every long-running task of the runtime: the roles, the observers, the pruner.
    /// Nothing the runtime starts is detached; shutdown waits for all of it.
    roles: TaskTracker,
}

impl Runtime {
    /// Starts everything. Must run inside a tokio runtime. The configuration must name a
    /// model endpoint for both tiers (`Config::require_llm`).
    pub async fn start(config: Config, options: RuntimeOptions) -> Result<Runtime, RuntimeError> {
        let config = Arc::new(config);
        let clock = options.clock;
        let bus = Bus::new(clock.clone());
        let root = CancellationToken::new();
        let limits = config.limits();
        let tasks = Registry::new(root.child_token(), limits.closed_tasks_remembered);
        let llm = Llm::with_pace(
            &config.llm,
            clock.clone(),
            Pace::load(&config.model_speed_file()),
        )?;

        // Observers first: from here on nothing published escapes them.
        let auditor = Auditor::open(&bus, &config, clock.clone())?;
        let (tasklog_writer, tasklog) =
            TaskLogWriter::on_bus(&bus, &config.data_dir, clock.clone(), limits.task_runs_kept);

        let distiller =
            LlmDistiller::new(llm.for_role(bus.handle(Role::Memory))?, root.child_token());
        let memory = Memory::open(&config, clock.clone(), Some(Arc::new(distiller))).await?;
        let memory_role = MemoryRole::new(memory.clone(), &bus);
        let operator = MemoryOperator::new(memory.clone(), &bus);

        let user = bus.handle(Role::User);
        let desk = Desk::new(user.clone(), tasks.clone(), llm.usage().clone());
        let user_inbox = bus.subscribe(Role::User);

        let perceiver = Perceiver::new(&config, &bus, &llm, tasks.clone())?;
        let planner = Planner::new(&config, &bus, &llm, clock.clone(), tasks.clone())?;
        let dispatcher = Dispatcher::new(&bus, tasks.clone());
        // MCP servers join R3's chain after the built-in tools; one that does not
        // connect is reported in `mcp_status` and left out.
        let mcp = McpHub::connect(&config).await;
        let toolbox = Toolbox::standard().extended(mcp.tools());
        // Every role's fixed instructions, for preparing the model (`prepare_model`).
        let mut instructions = crate::roles::instructions(&toolbox);
        instructions.push(distiller::instructions());
        let executor = Executor::new(config.clone(), &bus, &llm, tasks.clone(), clock.clone())?
            .with_toolbox(toolbox);
        let agent_validator =
            AgentValidator::new(&config, &bus, &llm, tasks.clone(), clock.clone());
        let meta_validator = MetaValidator::new(&config, &bus, &llm, tasks.clone(), clock.clone());
        let ggs = Ggs::new(&config, &bus, clock.clone(), tasks.clone());

        let audit_cancel = root.child_token();
        let roles = TaskTracker::new();
        roles.spawn(async move {
            if let Err(e) = auditor.run(audit_cancel).await {
                tracing::error!(error = %e, "the auditor stopped");
            }
        });
        roles.spawn(tasklog_writer.run());
        roles.spawn(memory_role.run());
        roles.spawn(desk.clone().run(
            user_inbox,
            limits.confirm_timeout,
            limits.clarification_timeout,
        ));
        roles.spawn(perceiver.run());
        roles.spawn(planner.run());
        roles.spawn(dispatcher.run());
        roles.spawn(executor.run());
        roles.spawn(agent_validator.run());
        roles.spawn(meta_validator.run());
        roles.spawn(ggs.run());
        roles.spawn(prune_task_logs(
            tasklog::tasks_dir(&config.data_dir),
            Keep::from_days_and_mb(
                config.retention.task_logs_days,
                config.retention.task_logs_mb,
            ),
            clock.clone(),
            root.child_token(),
        ));
        roles.spawn(prune_trash(
            crate::journal::Journal::in_data_dir(&config.data_dir),
            Keep::from_days_and_mb(config.retention.trash_days, config.retention.trash_mb),
            clock.clone(),
            root.child_token(),
        ));
        roles.close();
        tracing::info!(data_dir = %config.data_dir.display(), "runtime started");
        Ok(Runtime {
            audit: AuditHistory::new(&config.data_dir),
            config,
            clock,
            bus,
            user,
            llm,
            limits,
            tasks,
            root,
            desk,
            memory,
            operator,
            tasklog,
            mcp,
            instructions,
            roles,
        })
    }

    /// The validated configuration the runtime runs with.
    pub fn config(&self) -> &Arc<Config> {
        &self.config
    }

    /// The clock the runtime runs on.
    pub fn clock(&self) -> &SharedClock {
        &self.clock
    }

    /// The bus, for taps (live views). Publishing goes through the methods below.
    pub fn bus(&self) -> &Bus {
        &self.bus
    }

    /// A read-only view of all traffic from now on.
    pub fn tap(&self, name: &'static str) -> Tap {
        self.bus.tap(name, DEFAULT_TAP_CAPACITY)
    }

    /// Submits free text as a new task and returns its id; the session history (the
    /// last [`SESSION_TURNS`] inputs with their results) travels with it.
    pub fn submit(&self, text: &str) -> Result<TaskId, RuntimeError> {
        self.submit_as(text, None)
    }

    /// Submits the task of a schedule's run: it carries no session history (nobody is
    /// in a conversation with it), and its result carries the run's note.
    pub fn submit_scheduled(
        &self,
        text: &str,
        run: crate::contracts::ScheduledRun,
    ) -> Result<TaskId, RuntimeError> {
        self.submit_as(text, Some(run))
    }

    fn submit_as(
        &self,
        text: &str,
        scheduled: Option<crate::contracts::ScheduledRun>,
    ) -> Result<TaskId, RuntimeError> {
        if text.trim().is_empty() {
            return Err(RuntimeError::EmptyTask);
        }
        if self.bus.is_closed() {
            return Err(RuntimeError::Stopped);
        }
        let task_id = TaskId::mint();
        let session_history = if scheduled.is_some() {
            let _ = self.desk.open_unattended(&task_id, text);
            Vec::new()
        } else {
            self.desk.open_task(&task_id, text).0
        };
        // Register the token now so a cancel racing the first role still reaches it.
        let _ = self.tasks.token(&task_id);
        if let Some(window) = scheduled.as_ref().map(|r| r.answer_window_secs)
            && window > 0
        {
            // A window shorter than an answer's grace could never be answered.
            let least = self.config.limits().answer_grace + Duration::from_secs(1);
            self.tasks
                .set_answer_window(&task_id, Duration::from_secs(window).max(least));
        }
        // One envelope: R1 reads the words, GGS (a listener, served first) arms the
        // whole-task budget before any role can act on the task.
        self.user.publish(
            Role::Perceiver,
            TaskSubmitted {
                task_id: task_id.clone(),
                raw_input: text.to_string(),
                submitted_at: self.clock.now(),
                session_history,
                time_budget_ms: u64::try_from(self.task_budget().as_millis()).unwrap_or(u64::MAX),
                scheduled,
            },
        );
        Ok(task_id)
    }

    /// The time budget the next task gets: the settings' fixed one, or three times a typical
    /// task's model work at the speed measured so far ([`crate::llm::pace`]).
    pub fn task_budget(&self) -> Duration {
        self.config
            .fixed_task_budget()
            .unwrap_or_else(|| self.llm.task_budget())
    }

    /// The model's measured speed and what it means for a task, in one line for a person
    /// (the tool tier's speed: it makes most of a task's calls).
    pub fn pace_summary(&self, lang: crate::status::Lang) -> String {
        crate::llm::pace::summary(
            &self.llm.speed(crate::llm::Tier::Tool),
            self.llm.task_estimate(),
            self.task_budget(),
            lang,
        )
    }

    /// Gets the model ready for the first task: every role's instructions held in a
    /// snapshot on its server, and each tier's speed measured if it never was
    /// ([`Llm::prepare`]). `progress(done, total)` follows the instructions.
    pub async fn prepare_model(
        &self,
        progress: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> Readiness {
        let ctx = CallCtx::background(self.root.child_token());
        self.llm.prepare(&ctx, &self.instructions, progress).await
    }

    /// Waits for the task's end.
    pub async fn wait(&self, task: &TaskId) -> Result<TaskEnd, RuntimeError> {
        let mut rx = self
            .desk
            .watch(task)
            .ok_or_else(|| RuntimeError::UnknownTask(task.clone()))?;
        let end = rx
            .wait_for(Option::is_some)
            .await
            .map_err(|_| RuntimeError::Stopped)?
            .clone()
            .expect("wait_for returned a set value");
        Ok(end)
    }

    /// Cancels a task: it is closed in the registry (its token first, so nothing new
    /// starts), `TaskClosed` goes to every role, then its open Law 1 requests are denied.
    /// Returns false when it had ended.
    pub fn cancel(&self, task: &TaskId, reason: &str) -> Result<bool, RuntimeError> {
        if self.desk.watch(task).is_none() {
            return Err(RuntimeError::UnknownTask(task.clone()));
        }
        if !self.desk.is_running(task) {
            return Ok(false);
        }
        Ok(self.desk.cancel_task(task, reason))
    }

    /// Answers a Law 1 request from the user, for this call only.
    pub async fn answer_confirmation(
        &self,
        request_id: RequestId,
        decision: Decision,
    ) -> Result<(), RuntimeError> {
        self.answer_confirmation_scoped(request_id, decision, ApprovalScope::Once)
            .await
    }

    /// Answers a Law 1 request from the user; an approval reaches as far as `scope`
    /// when the request offered it (else this call only).
    pub async fn answer_confirmation_scoped(
        &self,
        request_id: RequestId,
        decision: Decision,
        scope: ApprovalScope,
    ) -> Result<(), RuntimeError> {
        self.desk
            .answer_confirmation(
                request_id,
                decision,
                DecisionSource::User,
                scope,
                self.limits.answer_grace,
            )
            .await?;
        Ok(())
    }

    /// Denies a Law 1 request because nobody can answer it (a non-interactive session).
    pub async fn deny_non_interactive(&self, request_id: RequestId) -> Result<(), RuntimeError> {
        self.desk
            .answer_confirmation(
                request_id,
                Decision::Deny,
                DecisionSource::NonInteractive,
                ApprovalScope::Once,
                self.limits.answer_grace,
            )
            .await?;
        Ok(())
    }

    /// Answers R1's clarifying question; an empty answer means "proceed as understood".
    pub async fn answer_clarification(
        &self,
        task: &TaskId,
        answer: &str,
    ) -> Result<(), RuntimeError> {
        self.desk
            .answer_clarification(task, answer, self.limits.answer_grace)
            .await?;
        Ok(())
    }

    /// Law 1 requests still waiting for an answer.
    pub fn open_confirmations(&self) -> Vec<ConfirmationRequest> {
        self.desk.open_confirmations()
    }

    /// Clarifying questions still waiting for an answer.
    pub fn open_clarifications(&self) -> Vec<ClarificationRequest> {
        self.desk.open_clarifications()
    }

    /// The tasks still running.
    pub fn running_tasks(&self) -> Vec<TaskId> {
        self.desk.running()
    }

    /// The session's turns so far, oldest first.
    pub fn session_history(&self) -> Vec<SessionTurn> {
        self.desk.history()
    }

    /// Model usage of one task so far (per role: calls, tokens, time).
    pub fn usage(&self, task: &TaskId) -> TaskUsage {
        self.llm.usage().task(task)
    }

    /// The model client, shared with the roles.
    pub fn llm(&self) -> &Llm {
        &self.llm
    }

    /// The operator API of memory (remember, forget, pin, groups).
    pub fn memory(&self) -> &MemoryOperator {
        &self.operator
    }

    /// Memory itself (potentials, Dreamer status).
    pub fn memory_store(&self) -> &Memory {
        &self.memory
    }

    /// Every configured MCP server: connected or why not, with the tools it offers.
    pub fn mcp_status(&self) -> Vec<McpServerStatus> {
        self.mcp.status()
    }

    /// The audit log's read side: events and timelines.
    pub fn audit_history(&self) -> &AuditHistory {
        &self.audit
    }

    /// The task-log directory, for listing and reading runs.
    pub fn task_logs(&self) -> TaskLogDir {
        TaskLogDir::new(&self.config.data_dir)
    }

    /// Where this runtime writes its task logs.
    pub fn task_log_dir(&self) -> PathBuf {
        self.tasklog.dir().to_path_buf()
    }

    /// Returns once everything published so far is written to the task log files, so
    /// a run that just ended reads back whole (the CLI's `/replay`).
    pub async fn flush_task_log(&self) -> Result<(), RuntimeError> {
        self.tasklog
            .flush()
            .await
            .map_err(|_| RuntimeError::Stopped)
    }

    /// Asks the auditor for an on-demand report over the current window.
    pub async fn audit_now(&self) -> Result<AuditReport, RuntimeError> {
        let pending = self.user.request(
            Role::Auditor,
            AuditQuery {
                query_id: QueryId::mint(),
            },
        );
        let timeout = self.limits.audit_query_timeout;
        match tokio::time::timeout(timeout, pending).await {
            Err(_) => Err(RuntimeError::AuditTimeout(timeout)),
            Ok(Err(_closed)) => Err(RuntimeError::Stopped),
            Ok(Ok(env)) => match &env.message {
                Message::AuditReport(report) => Ok(report.clone()),
                _ => Err(RuntimeError::Stopped),
            },
        }
    }

    /// Stops everything: running tasks are cancelled, open requests denied, the task log
    /// and memory flushed and closed.
    pub async fn shutdown(&self) {
        for task in self.desk.running() {
            let _ = self.cancel(&task, "artoo is shutting down");
        }
        self.root.cancel();
        self.bus.close();
        let drained = tokio::time::timeout(self.limits.shutdown_grace, self.roles.wait()).await;
        if drained.is_err() {
            tracing::warn!(grace = ?self.limits.shutdown_grace, "some roles did not stop in time");
        }
        self.mcp.close().await;
        let _ = self.tasklog.close().await;
        if let Err(e) = self.memory.close().await {
            tracing::warn!(error = %e, "memory did not close cleanly");
        }
    }
}

/// Prunes artoo's private trash now and every [`retention::PRUNE_PERIOD`] until
/// `cancel` (`journal::prune`).
async fn prune_trash(
    journal: crate::journal::Journal,
    limits: Keep,
    clock: SharedClock,
    cancel: CancellationToken,
) {
    loop {
        let now = clock.now();
        let at = journal.clone();
        match tokio::task::spawn_blocking(move || crate::journal::prune(&at, now, limits)).await {
            Ok(Ok(p)) if p.files > 0 => tracing::info!(
                commits = p.files,
                bytes = p.bytes,
                kept_bytes = p.kept_bytes,
                "private trash pruned"
            ),
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "cannot prune the private trash"),
            Err(e) => tracing::warn!(error = %e, "the trash pruning task failed"),
        }
        tokio::select! {
            () = cancel.cancelled() => return,
            () = tokio::time::sleep(retention::PRUNE_PERIOD) => {}
        }
    }
}

/// Prunes the task logs now and every [`retention::PRUNE_PERIOD`] until `cancel`: runs
/// older than the age limit, then the oldest until the directory fits the size limit.
async fn prune_task_logs(
    dir: PathBuf,
    limits: Keep,
    clock: SharedClock,
    cancel: CancellationToken,
) {
    loop {
        let now = clock.now();
        let at = dir.clone();
        match tokio::task::spawn_blocking(move || retention::prune_dir(&at, ".jsonl", now, limits))
            .await
        {
            Ok(Ok(p)) if p.files > 0 => tracing::info!(files = p.files, bytes = p.bytes,
                kept_bytes = p.kept_bytes, dir = %dir.display(), "task logs pruned"),
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                tracing::warn!(error = %e, dir = %dir.display(), "cannot prune task logs")
            }
            Err(e) => tracing::warn!(error = %e, "the task-log pruning task failed"),
        }
        tokio::select! {
            () = cancel.cancelled() => return,
            () = tokio::time::sleep(retention::PRUNE_PERIOD) => {}
        }
    }
}
