//! R1 Perceiver: carries the user's signal into the system with full fidelity. Consumes
//! `TaskSubmitted` (raw input + the session history the entry point keeps) and publishes
//! exactly one of:
//! - a `TaskSpec` to R2 — its `task_id` is the runtime's and its `raw_input` is the
//!   submitted text, both set by code; the model writes only the intent and constraints;
//! - a `ChatReply` to the user — the conversational fast path (greetings, thanks, small
//!   talk, questions about artoo itself), answered in one model call.
//!
//! The parts: `vocabulary` holds the word lists; `route` the pure rules (the code
//! pre-filter, the first step on a request, what to do with a perception, the checks a
//! perception must pass); `state` the conversation of each task, driven by its events;
//! `schema` the `Perception` the model fills; `prompt` the two prompts and their user
//! turns; `arithmetic` the sums code works out for the prompt; this file the wiring.
//!
//! **The fast path.** A code pre-filter ([`route`]) decides first:
//! [`Route::Chat`] when the whole input is a greeting or a question about artoo from a
//! fixed list (then one free-text call answers it); [`Route::NeedsTools`] when the input
//! names files, folders, paths, URLs, apps, an action verb or anything that changes over
//! time (weather, news, prices, "today"); otherwise [`Route::Undecided`]. On the normal
//! path R1 makes one structured call ([`Perception`]) whose `kind` lets the model
//! recognise paraphrased small talk — but a `NeedsTools` input can never become a chat
//! reply: code overrides the model. Words are matched as whole words, so "brunch" does
//! not contain "run"; and a question is never taken for chat because it is short ("what's
//! the weather today" needs tools).
//!
//! **Clarification.** Only when the model finds no reasonable interpretation: a
//! `ClarificationRequest` to the user, at most `budgets.clarification_rounds` rounds,
//! each numbered from 1. The user's `ClarificationAnswer` comes back as a reply to it. An
//! empty answer or none within the clarification timeout means "proceed" — with the
//! interpretation the model already gave, so no extra call. After the last round the
//! model is told it may not ask again. An empty TaskSpec is never published: the intent
//! is required, and if the model fails altogether the user's own words (and any answers
//! they gave) become the intent.
//!
//! **The shape.** The decisions live in `state` as plain state — a task submitted, a
//! model call's result, the user's answer or its deadline in; what to publish, the
//! answer's deadline and the next model call out — and this file wires it to the bus: it
//! runs each model call the state asks for as a job of its task, and a job only returns
//! what the model said; it publishes nothing. A task whose registry entry closed hears
//! nothing more, even before its `TaskClosed` arrives.
//!
//! **Invariant:** one task yields at most one `TaskSpec` or `ChatReply` (and nothing at
//! all once it is closed or cancelled), and R1 never writes `task_id` or `raw_input` from
//! model output.

mod prompt;
mod route;
mod schema;
mod state;
mod vocabulary;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use self::prompt::{
    Clarification, HISTORY_SUMMARY_CHARS, HISTORY_TURNS, PERCEIVE_MAX_TOKENS, chat_request,
    chat_system, perceive_system, perception_request,
};
pub use self::route::{
    Opening, Route, Verdict, constraints_of, dropped_time_words, is_iso8601, opening, route,
    verdict,
};
pub use self::schema::{Kind, PerceivedConstraints, Perception};
use self::state::{Call, Done, Intake, Timer};
use crate::actor::{Actor, Cx, Runner};
use crate::bus::{Bus, Envelope};
pub use crate::calc::computed_lines;
use crate::config::Config;
use crate::contracts::{Message, Role, TaskClosed, TaskId, TaskSubmitted};
use crate::lifecycle::Registry;
use crate::llm::{CallCtx, Llm, LlmError, RoleLlm};
use crate::roles::preamble::{machine_facts, preamble};

/// R1 wired to the bus.
pub struct Perceiver(Runner<Perceive>);

/// R1's wiring: its decisions, and what they need from outside.
struct Perceive {
    state: Intake,
    llm: RoleLlm,
    registry: Registry,
    home: PathBuf,
    workspace: PathBuf,
}

impl Perceiver {
    /// Subscribes now, so nothing addressed to R1 after this call is missed.
    pub fn new(
        config: &Config,
        bus: &Bus,
        llm: &Llm,
        registry: Registry,
    ) -> Result<Self, LlmError> {
        let perceive = Perceive {
            // The desk answers an open question "go on" at the same time; this deadline
            // is R1's own, for when no desk serves the user.
            state: Intake::new(
                config.budgets.clarification_rounds,
                config.limits().clarification_timeout,
            ),
            llm: llm.for_role(bus.handle(Role::Perceiver))?,
            registry: registry.clone(),
            home: config.home.clone(),
            workspace: config.workspace.clone(),
        };
        Ok(Self(Runner::new(perceive, bus, Role::Perceiver, registry)))
    }

    /// Overrides how long R1 waits for an answer (`Limits::clarification_timeout`).
    pub fn with_clarification_timeout(mut self, timeout: Duration) -> Self {
        self.0.actor_mut().state.clarification_timeout = timeout;
        self
    }

    /// Serves until the bus closes; model calls still running then are dropped.
    pub async fn run(self) {
        self.0.run().await;
    }
}

impl Actor for Perceive {
    type Done = Done;
    type Timer = Timer;

    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
        let call = match &env.message {
            Message::TaskSubmitted(submitted) => self.state.submit(submitted, cx.effects()),
            // The user's answer to R1's question is a reply to it.
            Message::ClarificationAnswer(answer) if env.in_reply_to.is_some() => {
                self.state.on_answer(answer, cx.effects())
            }
            other => {
                tracing::debug!(from = %env.from, kind = other.kind().name(),
                    "R1 ignores a message it has no use for");
                None
            }
        };
        self.call(call, cx);
    }

    fn on_done(&mut self, task: TaskId, done: Done, cx: &mut Cx<'_, Self>) {
        let call = self.state.on_done(&task, done, cx.effects());
        self.call(call, cx);
    }

    fn on_deadline(&mut self, task: TaskId, round: Timer, cx: &mut Cx<'_, Self>) {
        self.state.answer_overdue(&task, round, cx.effects());
    }

    fn on_task_closed(&mut self, closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {
        self.state.close(&closed.task_id);
    }
}

impl Perceive {
    /// Makes the model call the state asks for, as a job of its task.
    fn call(&self, call: Option<Call>, cx: &mut Cx<'_, Self>) {
        let Some(call) = call else {
            return;
        };
        let task = call.task().clone();
        let ctx = CallCtx::for_task(task.clone(), self.registry.token(&task));
        let llm = self.llm.clone();
        match call {
            Call::Chat { submitted } => {
                let request =
                    chat_request(&submitted, &preamble()).facts_first(&self.facts(&submitted));
                cx.spawn(&task, async move {
                    Done::Answered(llm.chat(&ctx, &request).await.map(|reply| reply.answer()))
                });
            }
            Call::Perceive {
                submitted,
                clarifications,
                may_ask,
            } => {
                let request = perception_request(&submitted, &clarifications, may_ask, &preamble())
                    .facts_first(&self.facts(&submitted));
                let raw = submitted.raw_input;
                cx.spawn(&task, async move {
                    let perceived = llm
                        .structured_checked::<Perception, _>(&ctx, &request, |p| p.check(&raw))
                        .await
                        .map(|out| out.value);
                    Done::Perceived(perceived)
                });
            }
        }
    }

    /// The machine's facts, dated by the submit.
    fn facts(&self, submitted: &TaskSubmitted) -> String {
        machine_facts(&self.home, &self.workspace, submitted.submitted_at)
    }
}
