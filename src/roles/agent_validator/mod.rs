//! R4a Agent-Validator: the sensor and controller of the fast loop. It judges each of
//! R3's attempts at a sub-task against the sub-task's success criteria and either asks
//! for a correction or closes the sub-task.
//!
//! - `SubTask` from the dispatcher opens a sub-task (criteria, intent, context). If no
//!   `ExecutionResult` follows within the attempt timeout (the executor went silent), the
//!   sub-task is closed as an environmental failure, so nothing downstream waits forever.
//! - `ExecutionResult` is a request from R3. The code fails the sub-task at once, with no
//!   model call and no retry, when R3 reports `failed` or a tool call ended in an
//!   infrastructure failure (a typed timeout, cancellation, network or unavailable kind;
//!   see [`precheck`]). Otherwise one tool-tier model
//!   call judges every criterion — pass/fail, logical|environmental, evidence — under the
//!   evidence-grounding rule: `tool_calls` (structured [`ToolCallRecord`]s) are the ground
//!   truth, R3's output prose is a claim, a post-hoc `ls`/`stat` proves nothing, an empty
//!   result of a search that really ran is an answer, and a Law 1 denial is an honest
//!   environmental failure.
//! - The code, not the model, decides: matched ⇔ every criterion passed. A failed
//!   judgement gets a `CorrectionSignal` reply (what was wrong, what to do, calls to
//!   avoid) while corrections remain (`Config.budgets.max_retries`) and no Law 1 denial is
//!   involved — a denial is never retried, so the denied action is not sought another
//!   way. Otherwise the sub-task closes: a `SubTaskClosed` reply to R3 and a
//!   `SubTaskOutcome` to R4b carrying a gap-trajectory point per attempt, the final
//!   verdicts (with each criterion's mode) and the tool calls of every attempt.
//! - A model error: environmental ones (timeout, unreachable, rate limit …) fail the
//!   sub-task at once as infrastructure; a verdict still unusable after the model
//!   layer's re-ask fails it as a "scoring error" without a class. Never a hang.
//! - `TaskClosed` drops the task's sub-tasks and stops their model calls; nothing more
//!   is published for them.
//!
//! The decisions live in [`state`] as plain state; this module wires them to the bus,
//! the model and the clock.
//!
//! **Invariant:** every sub-task R4a opens is closed exactly once — one `SubTaskOutcome`
//! to R4b and a `SubTaskClosed` to R3 — unless its task closed first, and `matched` is
//! only ever set by the code when every criterion has a passing verdict.

mod judge;
mod precheck;
mod prompt;
mod schema;
mod state;

#[cfg(test)]
mod fixtures;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::actor::{Actor, Cx, Runner};
use crate::bus::{Bus, Envelope};
use crate::checks::criteria::World;
use crate::clock::SharedClock;
use crate::config::Config;
use crate::contracts::{Message, Role, SubTaskId, TaskClosed, TaskId};
use crate::lifecycle::Registry;
use crate::llm::{CallCtx, ChatRequest, Llm, LlmError, RoleLlm};
use crate::roles::preamble::{machine_facts, tool_preamble};

pub use judge::{
    MAX_CALLS_TO_AVOID, align_judgements, attempt_class, check_judgements, gap_point,
    ground_in_calls, verdicts_from,
};
pub use precheck::{ImmediateFailure, precheck};
pub use prompt::{
    CALL_OUTPUT_SHOWN, JUDGE_MAX_TOKENS, MAX_CALLS_SHOWN, MAX_CLAIM_CHARS, MAX_CONTEXT_CHARS,
    judgement_prompt, render_calls, reply_skeleton, system_prompt, today_line,
};
pub use schema::{CriterionJudgement, Judgement};
use state::{Judge, Request, Timer, Validation};

type Judged = (SubTaskId, Result<Judgement, LlmError>);

/// R4a wired to the bus.
pub struct AgentValidator(Runner<Validate>);

/// R4a's wiring: its decisions, and what they need from outside.
struct Validate {
    state: Validation,
    llm: RoleLlm,
    registry: Registry,
    clock: SharedClock,
    home: PathBuf,
    workspace: PathBuf,
}

impl AgentValidator {
    /// Subscribes now, so nothing addressed to R4a after this call is missed. An attempt
    /// the executor never reports on is closed after the longest time budget a task can
    /// get (`Config::longest_task_budget`).
    pub fn new(
        config: &Config,
        bus: &Bus,
        llm: &Llm,
        registry: Registry,
        clock: SharedClock,
    ) -> Self {
        let validate = Validate {
            state: Validation::new(config.budgets.max_retries, config.longest_task_budget())
                .in_world(World::disk(config.home.clone())),
            llm: llm
                .for_role(bus.handle(Role::AgentValidator))
                .expect("R4a runs on the tool tier"),
            registry: registry.clone(),
            clock,
            home: config.home.clone(),
            workspace: config.workspace.clone(),
        };
        Self(Runner::new(validate, bus, Role::AgentValidator, registry))
    }

    /// Overrides how long R4a waits for an attempt before closing the sub-task.
    pub fn with_attempt_timeout(mut self, timeout: Duration) -> Self {
        self.0.actor_mut().state.attempt_timeout = timeout;
        self
    }

    /// Runs [`AgentValidator::run`] on the current tokio runtime.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(self.run())
    }

    /// Serves until the bus closes; model calls still running then are aborted.
    pub async fn run(self) {
        self.0.run().await;
    }
}

impl Actor for Validate {
    type Done = Judged;
    type Timer = Timer;

    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
        let judge = match &env.message {
            Message::SubTask(s) => {
                self.state.open(s, cx.effects());
                None
            }
            Message::ExecutionResult(r) => {
                let request = Request {
                    id: env.id,
                    from: env.from,
                    result: r.clone(),
                };
                self.state
                    .on_result(request, self.clock.now(), cx.effects())
            }
            other => {
                tracing::warn!(from = %env.from, kind = other.kind().name(),
                    "R4a ignores a message it has no contract for");
                None
            }
        };
        self.call(judge, cx);
    }

    fn on_done(&mut self, _task: TaskId, (id, judged): Judged, cx: &mut Cx<'_, Self>) {
        let next = self
            .state
            .on_judged(id, judged, self.clock.now(), cx.effects());
        self.call(next, cx);
    }

    fn on_deadline(&mut self, _task: TaskId, timer: Timer, cx: &mut Cx<'_, Self>) {
        self.state.attempt_overdue(timer, cx.effects());
    }

    fn on_task_closed(&mut self, closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {
        self.state.close_task(&closed.task_id);
    }
}

impl Validate {
    /// Asks the model for the judgement the state wants, as a job of its task.
    fn call(&self, judge: Option<Judge>, cx: &mut Cx<'_, Self>) {
        let Some(judge) = judge else {
            return;
        };
        let chat = ChatRequest::new(system_prompt(tool_preamble()), judge.prompt)
            .facts_first(&machine_facts(
                &self.home,
                &self.workspace,
                self.clock.now(),
            ))
            .temperature(0.0)
            .max_tokens(JUDGE_MAX_TOKENS);
        let ctx = CallCtx::for_task(judge.task.clone(), self.registry.token(&judge.task));
        let (criteria, id) = (judge.criteria, judge.subtask);
        let llm = self.llm.clone();
        cx.spawn(&judge.task, async move {
            let judged = llm
                .structured_checked::<Judgement, _>(&ctx, &chat, |j| {
                    check_judgements(&criteria, &j.criteria)
                })
                .await
                .map(|s| s.value);
            (id, judged)
        });
    }
}
