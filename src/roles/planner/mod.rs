//! R2 Planner: the actuator of the medium loop. Consumes its inbox:
//! - `TaskSpec` from R1 → the task's first plan (round 0);
//! - `PlanDirective` from R7 → a replan of that task under the directive;
//! - `GracefulFailureRequest` from R7 (a request) → one `GracefulFailure` reply;
//! - `MemoryResponse` from R5 (replies to R2's queries) → the calibration of a round;
//! - `TaskClosed` → the task's state is dropped; nothing more is published for it.
//!
//! Every plan and replan: the Memory Calibration Protocol ([`calibration`]: one
//! `MemoryQuery` per memory group to R5, waited for at most `memory_query_timeout`, no
//! model call) → `MemoryRecall` to R7 → one model call for `{task_criteria, subtasks}`
//! ([`prompt`], answered in the shapes of [`schema`]) → the plan validator
//! ([`validator`]), re-asking at most `budgets.plan_reasks` times with the violations
//! quoted → runtime-minted `SubTaskId`s → one `DispatchManifest` to the dispatcher (R4b
//! hears it) holding every sub-task, each carrying the task's MUST NOT tools and targets
//! and the Caution tools it must confirm. No valid plan → one `PlanningFailed` to R7,
//! which abandons honestly. A directive for a task R2 does not keep fails at once the
//! same way. A graceful-failure request gets the model's next moves within
//! `graceful_reply_budget`, else an honest answer built by code.
//!
//! **The shape.** The decisions live in `state` as plain per-task state — a task's spec
//! and last plan, the round in flight (calibrating or planning) and the rounds waiting
//! their turn — driven by the messages above, the end of a model call and the deadline
//! of a memory wait; what to publish, the deadline to set and the next model call come
//! out. The manifest and the graceful failure are built by code in `compose`. This file
//! wires it all to the bus: it builds each request the state asks for (the machine's
//! facts and the places the task names are read here) and runs the call as a job of its
//! task; a job only returns what the model said (the graceful call's budget is watched
//! inside its job, so a call cut short is still recorded) and publishes nothing. Tasks
//! never wait for each other; a task whose registry entry closed hears nothing more,
//! even before its `TaskClosed` arrives.
//!
//! **Invariant:** R2 publishes nothing for a task after it was cancelled, never hangs on
//! memory (every round's wait is bounded), and every plan it dispatches passed the
//! validator.

pub mod calibration;
mod compose;
mod needed;
pub mod prompt;
pub mod schema;
mod state;
pub mod validator;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use self::prompt::PlanSummary;
use self::schema::{GracefulDraft, PlanDraft};
use self::state::{Call, Done, Drafted, Plans, Settings, Timer};
use crate::actor::{Actor, Cx, Runner};
use crate::bus::{Bus, Envelope};
use crate::clock::SharedClock;
use crate::config::Config;
use crate::contracts::{Message, PlanDirective, Role, TaskClosed, TaskId, TaskSpec};
use crate::ggs::graceful;
use crate::lifecycle::Registry;
use crate::llm::{CallCtx, ChatRequest, Llm, LlmError, RoleLlm};
use crate::roles::preamble::{machine_facts, tool_preamble};
use crate::tools::places;

/// R2 wired to the bus.
pub struct Planner(Runner<Plan>);

/// R2's wiring: its decisions, and what they need from outside.
struct Plan {
    state: Plans,
    llm: RoleLlm,
    clock: SharedClock,
    registry: Registry,
    workspace: PathBuf,
    graceful_budget: Duration,
}

impl Planner {
    /// Subscribes now, so nothing addressed to R2 after this call is missed.
    pub fn new(
        config: &Config,
        bus: &Bus,
        llm: &Llm,
        clock: SharedClock,
        registry: Registry,
    ) -> Result<Self, LlmError> {
        let limits = config.limits();
        let plan = Plan {
            state: Plans::new(Settings {
                plan_reasks: config.budgets.plan_reasks,
                max_constraints: config.memory.max_constraints,
                live_tasks: limits.live_tasks_tracked,
                memory_timeout: limits.memory_query_timeout,
                home: config.home.clone(),
                files: Arc::new(crate::checks::criteria::Disk),
            }),
            llm: llm.for_role(bus.handle(Role::Planner))?,
            clock,
            registry: registry.clone(),
            workspace: config.workspace.clone(),
            graceful_budget: limits.graceful_reply_budget,
        };
        Ok(Self(Runner::new(plan, bus, Role::Planner, registry)))
    }

    /// Overrides how long R2 waits for memory (`Limits::memory_query_timeout`).
    pub fn with_memory_timeout(mut self, timeout: Duration) -> Self {
        self.0.actor_mut().state.settings.memory_timeout = timeout;
        self
    }

    /// Overrides R2's graceful-failure budget (`Limits::graceful_reply_budget`).
    pub fn with_graceful_budget(mut self, budget: Duration) -> Self {
        self.0.actor_mut().graceful_budget = budget;
        self
    }

    /// Serves until the bus closes; model calls still running then are dropped.
    pub async fn run(self) {
        self.0.run().await;
    }
}

impl Actor for Plan {
    type Done = Done;
    type Timer = Timer;

    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
        let call = match &env.message {
            Message::TaskSpec(spec) => {
                self.state.on_spec(spec, cx.effects());
                None
            }
            Message::PlanDirective(d) => {
                self.state.on_directive(d, cx.effects());
                None
            }
            Message::GracefulFailureRequest(r) => Some(self.state.on_graceful(env.id, r)),
            // R5's answer to one of R2's queries is a reply to it.
            Message::MemoryResponse(r) if env.in_reply_to.is_some() => {
                self.state.on_memory(r, self.clock.now(), cx.effects())
            }
            other => {
                tracing::debug!(from = %env.from, kind = other.kind().name(),
                    "R2 ignores a message it has no use for");
                None
            }
        };
        self.call(call, cx);
    }

    fn on_done(&mut self, task: TaskId, done: Done, cx: &mut Cx<'_, Self>) {
        let call = self
            .state
            .on_done(&task, done, self.clock.now(), cx.effects());
        self.call(call, cx);
    }

    fn on_deadline(&mut self, task: TaskId, round: Timer, cx: &mut Cx<'_, Self>) {
        let call = self
            .state
            .memory_overdue(&task, round, self.clock.now(), cx.effects());
        self.call(call, cx);
    }

    fn on_task_closed(&mut self, closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {
        self.state.close(&closed.task_id);
    }
}

impl Plan {
    /// Makes the model call the state asks for, as a job of its task.
    fn call(&self, call: Option<Call>, cx: &mut Cx<'_, Self>) {
        let Some(call) = call else {
            return;
        };
        let task = call.task().clone();
        let token = self.registry.token(&task);
        let llm = self.llm.clone();
        let request = match call {
            Call::Plan {
                spec,
                directive,
                previous,
                constraints,
            } => self.plan_request(&spec, directive.as_ref(), previous.as_ref(), &constraints),
            Call::Reask { request, .. } => request,
            Call::Graceful {
                request_id,
                request,
                spec,
            } => {
                let chat = prompt::graceful_request(&request, spec.as_deref());
                let budget = self.graceful_budget;
                let id = task.clone();
                cx.spawn(&task, async move {
                    let outcome = graceful_moves(&llm, &id, token, budget, &chat).await;
                    Done::Graceful {
                        request_id,
                        request,
                        outcome,
                    }
                });
                return;
            }
        };
        let ctx = CallCtx::for_task(task.clone(), token);
        cx.spawn(&task, plan_call(llm, ctx, request));
    }

    /// The request of a round's first ask: the machine's facts, the places the task
    /// names, and the calibration's constraints.
    fn plan_request(
        &self,
        spec: &TaskSpec,
        directive: Option<&PlanDirective>,
        previous: Option<&PlanSummary>,
        constraints: &str,
    ) -> ChatRequest {
        let preamble = tool_preamble();
        let task_words = format!("{}\n{}", spec.intent, spec.raw_input);
        let home = &self.state.settings.home;
        let places = places::places_in(&task_words, home, &self.workspace);
        let places = places::render(&places);
        match directive {
            None => prompt::plan_request(spec, preamble, places.as_deref(), constraints),
            Some(d) => {
                prompt::replan_request(spec, d, previous, preamble, places.as_deref(), constraints)
            }
        }
        .facts_first(&machine_facts(home, &self.workspace, self.clock.now()))
    }
}

/// One plan call; it returns the request with the answer, for a re-ask to extend.
async fn plan_call(llm: RoleLlm, ctx: CallCtx, request: ChatRequest) -> Done {
    let outcome = llm
        .structured::<PlanDraft>(&ctx, &request)
        .await
        .map(|out| Drafted {
            draft: out.value,
            reply: out.reply.content,
        });
    Done::Planned { request, outcome }
}

/// The model's next moves for a graceful failure, within `budget`.
async fn graceful_moves(
    llm: &RoleLlm,
    task: &TaskId,
    token: tokio_util::sync::CancellationToken,
    budget: Duration,
    chat: &ChatRequest,
) -> Result<GracefulDraft, LlmError> {
    // A child token ends the call at the budget, so the call is still recorded.
    let stop = token.child_token();
    let ctx = CallCtx::for_task(task.clone(), stop.clone());
    let call = llm.structured_checked::<GracefulDraft, _>(&ctx, chat, |g| {
        if graceful::dedup(g.next_moves.clone()).len() < graceful::MIN_NEXT_MOVES {
            Err(format!(
                "next_moves must hold {} to {} distinct, concrete moves",
                graceful::MIN_NEXT_MOVES,
                graceful::MAX_NEXT_MOVES
            ))
        } else {
            Ok(())
        }
    });
    // The budget is watched in this job, not in a task of its own: when it ends the call
    // is cancelled and still comes back (recorded), so it is awaited to the end.
    tokio::pin!(call);
    let outcome = tokio::select! {
        outcome = &mut call => outcome,
        () = tokio::time::sleep(budget) => {
            stop.cancel();
            call.await
        }
    };
    outcome.map(|out| out.value)
}
