//! R3 Executor: carries out the sub-tasks the dispatcher releases, with tools, and
//! reports each attempt to R4a as evidence.
//!
//! - Consumes `SubTask` from the dispatcher (its `Role::Executor` inbox), a
//!   `SubTaskClosed` R4a publishes when it closed a sub-task on its own, and
//!   `TaskClosed`. Each sub-task runs in its own worker ([`worker`]), so a slow one
//!   never holds up another.
//! - A worker runs attempts. An attempt is a tool loop of at most
//!   `Config.budgets.executor_max_steps` model turns; each turn is one schema-constrained
//!   next step ([`step`]: call one tool with its input, or finish with a status, the
//!   output as data and a summary; the schema, written from the toolbox's specs, in
//!   [`schema`]). Every call goes through the [`Toolbox`] with the
//!   sub-task's `blocked_tools`, `blocked_targets` and `confirm_tools`, and its result —
//!   not the model's prose — is shown on the next turn ([`prompt`]). The code holds the
//!   model to Law 0 ([`worker`]'s honesty rules).
//! - Each attempt ends in an `ExecutionResult` request to R4a with the attempt number
//!   and the attempt's tool-call records. A `CorrectionSignal` reply starts the next
//!   attempt with what was wrong, what to do and the calls to avoid in its prompt; a
//!   `SubTaskClosed` reply ends the worker; the dispatcher hears that close on the bus.
//! - `TaskClosed` (or the task's token) stops every worker of the task at once — its
//!   model calls and tool processes are dropped — and nothing of the task starts or is
//!   published afterwards.
//!
//! The decisions of which worker starts, which stops and which end the dispatcher must
//! hear of live in [`state`] as plain state; this module keeps the workers' abort handles
//! and spawns them.
//!
//! **Invariant:** every sub-task the executor starts is reported to the dispatcher
//! exactly once — with R4a's close, or a failed close of its own when R4a cannot answer
//! — unless its task closed first, and then nothing more is published for it.

mod finish;
pub mod prompt;
mod review;
mod schema;
mod state;
pub mod step;
pub mod worker;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::AbortHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use self::state::Workers;
use self::worker::Worker;
use crate::actor::{Actor, Cx, Runner};
use crate::bus::{Bus, BusHandle, Envelope};
use crate::clock::SharedClock;
use crate::config::Config;
use crate::contracts::{Message, Role, SubTask, SubTaskId, TaskClosed, TaskId};
use crate::laws::ConfirmationBroker;
use crate::lifecycle::Registry;
use crate::llm::{Instructions, Llm, LlmError, OutputSchema, RoleLlm};
use crate::tools::{TaskCalls, ToolContext, ToolSpec, Toolbox, places};

/// What every worker shares.
pub(crate) struct Shared {
    bus: BusHandle,
    /// Where a task's person time is kept: an attempt's bound runs on the task's time.
    registry: Registry,
    llm: RoleLlm,
    toolbox: Toolbox,
    /// The tools offered to the model on this platform, in priority order.
    specs: Vec<ToolSpec>,
    /// `specs` as prompt text.
    tools_text: String,
    /// The step schema for exactly those tools.
    schema: OutputSchema,
    broker: ConfirmationBroker,
    config: Arc<Config>,
    clock: SharedClock,
    max_steps: u32,
    time_budget: Duration,
    reply_grace: Duration,
}

/// R3 wired to the bus.
pub struct Executor(Runner<Execute>);

/// R3's wiring: its decisions, the workers' abort handles, and what workers share.
struct Execute {
    shared: Arc<Shared>,
    registry: Registry,
    state: Workers,
    aborts: HashMap<SubTaskId, AbortHandle>,
    /// What each open task's sub-tasks learned about calls (failures are not retried
    /// unchanged across attempts and replans).
    calls: HashMap<TaskId, TaskCalls>,
}

/// R3's fixed instructions with `toolbox`: those of a step and those of the finish (the
/// same words, each with its own output), for preparing the model before the first task.
pub fn instructions(toolbox: &Toolbox) -> [Instructions; 2] {
    let specs = toolbox.offered_specs();
    let system = prompt::system_prompt(&crate::roles::preamble::preamble_with_tools(
        &crate::tools::tool_list(&specs),
    ));
    [
        Instructions::structured(
            Role::Executor,
            system.clone(),
            Arc::new(schema::output_schema(&specs)),
        ),
        Instructions::structured(
            Role::Executor,
            system,
            OutputSchema::of::<step::FinishStep>(),
        ),
    ]
}

impl Executor {
    /// Subscribes now, so nothing addressed to the executor after this call is missed.
    /// Builds its own toolbox (the standard chain) and Law 1 broker.
    pub fn new(
        config: Arc<Config>,
        bus: &Bus,
        llm: &Llm,
        registry: Registry,
        clock: SharedClock,
    ) -> Result<Executor, LlmError> {
        let handle = bus.handle(Role::Executor);
        let toolbox = Toolbox::standard();
        let specs = toolbox.offered_specs();
        let shared = Shared {
            llm: llm.for_role(handle.clone())?,
            broker: ConfirmationBroker::from_config(handle.clone(), clock.clone(), &config)
                .with_answer_windows(registry.clone()),
            bus: handle,
            registry: registry.clone(),
            tools_text: crate::tools::tool_list(&specs),
            schema: schema::output_schema(&specs),
            specs,
            toolbox,
            max_steps: config.budgets.executor_max_steps,
            time_budget: config.longest_task_budget(),
            reply_grace: worker::reply_grace(
                config
                    .llm
                    .call_timeout_secs
                    .map_or(crate::llm::pace::CALL_CEILING, Duration::from_secs),
            ),
            config,
            clock,
        };
        let execute = Execute {
            shared: Arc::new(shared),
            registry: registry.clone(),
            state: Workers::default(),
            aborts: HashMap::new(),
            calls: HashMap::new(),
        };
        Ok(Executor(Runner::new(
            execute,
            bus,
            Role::Executor,
            registry,
        )))
    }

    fn shared_mut(&mut self) -> &mut Shared {
        Arc::get_mut(&mut self.0.actor_mut().shared)
            .expect("overrides are applied before the executor runs")
    }

    /// Replaces the standard chain (the runtime adds the tools of MCP servers to it);
    /// the prompt's tool list and the step schema follow.
    pub fn with_toolbox(mut self, toolbox: Toolbox) -> Self {
        let shared = self.shared_mut();
        shared.specs = toolbox.offered_specs();
        shared.schema = schema::output_schema(&shared.specs);
        shared.tools_text = crate::tools::tool_list(&shared.specs);
        shared.toolbox = toolbox;
        self
    }

    /// Overrides the time bound of one sub-task (by default the longest budget a task
    /// can get: GGS ends a task at its own budget first).
    pub fn with_time_budget(mut self, budget: Duration) -> Self {
        self.shared_mut().time_budget = budget;
        self
    }

    /// Overrides how long a worker waits for R4a beyond the budget before it fails the
    /// sub-task itself.
    pub fn with_reply_grace(mut self, grace: Duration) -> Self {
        self.shared_mut().reply_grace = grace;
        self
    }

    /// Runs [`Executor::run`] on the current tokio runtime.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(self.run())
    }

    /// Serves until the bus closes; workers still running then are aborted.
    pub async fn run(self) {
        self.0.run().await;
    }
}

impl Actor for Execute {
    type Done = (SubTaskId, worker::End);
    type Timer = ();

    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
        match &env.message {
            Message::SubTask(s) => self.start(s, cx),
            Message::SubTaskClosed(c) => {
                if let Some(stop) = self.state.closed_by_validator(c) {
                    self.stop(stop);
                }
            }
            // A reply whose requester had stopped waiting (a confirmation after its
            // timeout, a verdict after the worker ended) falls through to the inbox.
            _ if env.in_reply_to.is_some() => {
                tracing::debug!(kind = env.message.kind().name(), "late reply ignored");
            }
            other => tracing::warn!(from = %env.from, kind = other.kind().name(),
                "R3 ignores a message it has no contract for"),
        }
    }

    fn on_done(&mut self, _task: TaskId, (id, end): Self::Done, cx: &mut Cx<'_, Self>) {
        self.aborts.remove(&id);
        self.state.ended(id, end, cx.effects());
    }

    fn on_task_closed(&mut self, closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {
        // The runner already aborted the task's workers.
        for id in self.state.close(&closed.task_id) {
            self.aborts.remove(&id);
        }
        self.shared.broker.forget(&closed.task_id);
        self.calls.remove(&closed.task_id);
    }
}

impl Execute {
    fn start(&mut self, subtask: &SubTask, cx: &mut Cx<'_, Self>) {
        if !self.state.start(subtask) {
            return;
        }
        let task = &subtask.parent_task_id;
        let shared = Arc::clone(&self.shared);
        let mut ctx = ToolContext::new(
            task.clone(),
            subtask.subtask_id,
            Arc::clone(&shared.config),
            shared.broker.clone(),
        );
        ctx.blocked_tools = subtask.blocked_tools.clone();
        ctx.blocked_targets = subtask.blocked_targets.clone();
        ctx.confirm_tools = subtask.confirm_tools.clone();
        ctx.task_calls = self.calls.entry(task.clone()).or_default().clone();
        // The intent only: the context may carry what earlier sub-tasks read.
        ctx.request = Some(subtask.intent.clone());
        // A child of the task's token: cancelling the task stops the worker; stopping
        // one worker leaves the task alone.
        ctx.cancel = task_child(&self.registry, task);
        let words = format!("{}\n{}", subtask.intent, subtask.context);
        let places = places::places_in(&words, &shared.config.home, &shared.config.workspace);
        ctx.folder = places::working_folder(&places);
        let worker = Worker {
            deadline: Instant::now() + shared.time_budget,
            credited: self.registry.person_time(task).waited,
            files: review::with_checked_files(
                review::named_files(&subtask.intent, &places),
                &subtask.success_criteria,
                &shared.config.home,
            ),
            // Read once, and only for an answer that can quote a line of them.
            texts: if crate::checks::selection::may_quote_a_line(subtask.answer) {
                review::texts_of(&places, &shared.config.home)
            } else {
                Vec::new()
            },
            places: places::render(&places),
            done: std::sync::Mutex::new(Vec::new()),
            repeats: std::sync::Mutex::new(Vec::new()),
            shared,
            subtask: subtask.clone(),
            ctx,
        };
        let id = subtask.subtask_id;
        let abort = cx.spawn(task, async move { (id, worker.run().await) });
        self.aborts.insert(id, abort);
    }

    /// Stops the worker of `id` at once.
    fn stop(&mut self, id: SubTaskId) {
        if let Some(abort) = self.aborts.remove(&id) {
            abort.abort();
        }
    }
}

fn task_child(registry: &Registry, task: &TaskId) -> CancellationToken {
    registry.token(task).child_token()
}
