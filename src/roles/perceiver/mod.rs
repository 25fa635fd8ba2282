//! R1 Perceiver: carries the user's signal into the system with full fidelity. Consumes
//! `TaskSubmitted` (raw input + the session history the entry point keeps) and publishes
//! exactly one of:
//! - a `TaskSpec` to R2 — its `task_id` is the runtime's and its `raw_input` is the
//!   submitted text, both set by code; the model writes only the intent and constraints;
//! - a `ChatReply` to the user — the conversational fast path (greetings, thanks, small
//!   talk, questions about artoo itself), answered in one model call.
//!
//! The parts: `vocabulary` holds the word lists; `route` the pure decisions (the code
//! pre-filter, the first step on a request, what to do with a perception, the checks a
//! perception must pass); `schema` the `Perception` the model fills; `prompt` the two
//! prompts and their user turns; `arithmetic` the sums code works out for the prompt;
//! this file the bus actor that carries those decisions out.
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
//! `ClarificationRequest` to the user through `BusHandle::request`, at most
//! `budgets.clarification_rounds` rounds. An empty answer, a timeout or a closed bus means
//! "proceed" — with the interpretation the model already gave, so no extra call. After
//! the last round the model is told it may not ask again. An empty TaskSpec is never
//! published: the intent is required, and if the model fails altogether the user's own
//! words become the intent.
//!
//! **Invariant:** one `TaskSubmitted` yields at most one `TaskSpec` or `ChatReply` (and
//! nothing at all once the task is cancelled), and R1 never writes `task_id` or
//! `raw_input` from model output.

mod arithmetic;
mod prompt;
mod route;
mod schema;
mod vocabulary;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

pub use self::arithmetic::computed_lines;
pub use self::prompt::{
    Clarification, HISTORY_SUMMARY_CHARS, HISTORY_TURNS, PERCEIVE_MAX_TOKENS, chat_request,
    chat_system, perceive_system, perception_request,
};
use self::route::fallback_intent;
pub use self::route::{
    Opening, Route, Verdict, constraints_of, dropped_time_words, is_iso8601, opening, route,
    verdict,
};
pub use self::schema::{Kind, PerceivedConstraints, Perception};
use crate::bus::{Bus, BusHandle, Envelope};
use crate::config::Config;
use crate::contracts::{
    ChatReply, ClarificationRequest, Constraints, Message, Role, TaskSpec, TaskSubmitted,
};
use crate::lifecycle::Registry;
use crate::llm::{CallCtx, Llm, LlmError, RoleLlm};
use crate::roles::preamble::{machine_facts, preamble};
use crate::roles::runner::{Actor, Cx, Runner};

/// How long R1 waits for the user's answer to a clarifying question before proceeding.
pub const CLARIFICATION_TIMEOUT: Duration = Duration::from_secs(120);

/// R1 wired to the bus.
pub struct Perceiver(Runner<Perceive>);

/// R1's reactions: one perception job per submitted task.
struct Perceive {
    shared: Arc<Shared>,
}

struct Shared {
    bus: BusHandle,
    llm: RoleLlm,
    registry: Registry,
    clarification_rounds: u32,
    clarification_timeout: Duration,
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
        let handle = bus.handle(Role::Perceiver);
        let perceive = Perceive {
            shared: Arc::new(Shared {
                llm: llm.for_role(handle.clone())?,
                bus: handle,
                registry: registry.clone(),
                clarification_rounds: config.budgets.clarification_rounds,
                clarification_timeout: CLARIFICATION_TIMEOUT,
                home: config.home.clone(),
                workspace: config.workspace.clone(),
            }),
        };
        Ok(Self(Runner::new(perceive, bus, Role::Perceiver, registry)))
    }

    /// Overrides [`CLARIFICATION_TIMEOUT`].
    pub fn with_clarification_timeout(mut self, timeout: Duration) -> Self {
        Arc::get_mut(&mut self.0.actor_mut().shared)
            .expect("the perceiver is configured before it runs")
            .clarification_timeout = timeout;
        self
    }

    /// Serves until the bus closes; perceptions still running then are dropped.
    pub async fn run(self) {
        self.0.run().await;
    }
}

impl Actor for Perceive {
    type Done = ();
    type Timer = ();

    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
        // A clarification answer is the reply to R1's own request and reaches the job
        // that asked; only a new task starts work here.
        if let Message::TaskSubmitted(submitted) = &env.message {
            let job = Arc::clone(&self.shared).perceive(submitted.clone());
            cx.spawn(&submitted.task_id, job);
        }
    }
}

/// Why perception stopped without a model answer.
enum Stop {
    Cancelled,
    Failed(LlmError),
}

impl Shared {
    async fn perceive(self: Arc<Self>, submitted: TaskSubmitted) {
        let token = self.registry.token(&submitted.task_id);
        if token.is_cancelled() {
            return;
        }
        let route = match opening(&submitted.raw_input, &submitted.session_history) {
            Opening::Empty => {
                // Nothing to carry into the system, and nothing for a model to answer.
                self.chat_reply(
                    &submitted,
                    "Your message was empty. Tell me what you would like me to do.".into(),
                );
                return;
            }
            Opening::Chat => return self.fast_path(&submitted, &token).await,
            Opening::Verbatim(intent) => {
                self.task_spec(&submitted, intent, Constraints::default(), &token);
                return;
            }
            Opening::Perceive(route) => route,
        };
        let mut clarifications: Vec<Clarification> = Vec::new();
        loop {
            let may_ask = (clarifications.len() as u32) < self.clarification_rounds;
            let perception = match self
                .perceive_once(&submitted, &clarifications, may_ask, &token)
                .await
            {
                Ok(p) => p,
                Err(Stop::Cancelled) => return,
                Err(Stop::Failed(error)) => {
                    tracing::warn!(task = %submitted.task_id, %error,
                        "no usable perception; the user's words become the intent");
                    let intent = fallback_intent(&submitted.raw_input, &clarifications);
                    self.task_spec(&submitted, intent, Constraints::default(), &token);
                    return;
                }
            };
            if token.is_cancelled() {
                return;
            }
            match verdict(route, &perception, may_ask) {
                Verdict::Reply(reply) => {
                    self.chat_reply(&submitted, reply);
                    return;
                }
                Verdict::Ask(question) => {
                    let round = clarifications.len() as u32 + 1;
                    match self.ask(&submitted, &question, round, &token).await {
                        Some(answer) => clarifications.push(Clarification { question, answer }),
                        None if token.is_cancelled() => return,
                        // Empty answer or no answer: proceed as understood.
                        None => {
                            self.publish_perceived(&submitted, perception, &token);
                            return;
                        }
                    }
                }
                Verdict::Forward => {
                    self.publish_perceived(&submitted, perception, &token);
                    return;
                }
            }
        }
    }

    async fn perceive_once(
        &self,
        submitted: &TaskSubmitted,
        clarifications: &[Clarification],
        may_ask: bool,
        token: &CancellationToken,
    ) -> Result<Perception, Stop> {
        let ctx = CallCtx::for_task(submitted.task_id.clone(), token.clone());
        let request = perception_request(submitted, clarifications, may_ask, &preamble())
            .facts_first(&self.facts(submitted));
        let raw = submitted.raw_input.clone();
        match self
            .llm
            .structured_checked::<Perception, _>(&ctx, &request, |p| p.check(&raw))
            .await
        {
            Ok(out) => Ok(out.value),
            Err(LlmError::Cancelled) => Err(Stop::Cancelled),
            Err(e) => Err(Stop::Failed(e)),
        }
    }

    async fn fast_path(&self, submitted: &TaskSubmitted, token: &CancellationToken) {
        let ctx = CallCtx::for_task(submitted.task_id.clone(), token.clone());
        let answer = match self
            .llm
            .chat(
                &ctx,
                &chat_request(submitted, &preamble()).facts_first(&self.facts(submitted)),
            )
            .await
        {
            Ok(reply) => {
                let text = reply.answer();
                if text.is_empty() {
                    "The model sent an empty answer. Please ask again.".to_string()
                } else {
                    text
                }
            }
            Err(LlmError::Cancelled) => return,
            Err(e) => format!("I could not get an answer from the model: {e}"),
        };
        if token.is_cancelled() {
            return;
        }
        self.chat_reply(submitted, answer);
    }

    /// Asks the user; `None` on an empty answer, a timeout, a closed bus or a cancel.
    async fn ask(
        &self,
        submitted: &TaskSubmitted,
        question: &str,
        round: u32,
        token: &CancellationToken,
    ) -> Option<String> {
        let pending = self.bus.request(
            Role::User,
            ClarificationRequest {
                task_id: submitted.task_id.clone(),
                question: question.to_string(),
                round,
            },
        );
        let waited = tokio::select! {
            () = token.cancelled() => return None,
            waited = tokio::time::timeout(self.clarification_timeout, pending) => waited,
        };
        match waited {
            Ok(Ok(env)) => match &env.message {
                Message::ClarificationAnswer(a) => {
                    Some(a.answer.trim().to_string()).filter(|a| !a.is_empty())
                }
                other => {
                    tracing::warn!(
                        kind = other.kind().name(),
                        "unexpected reply to a clarification"
                    );
                    None
                }
            },
            Ok(Err(_closed)) => None,
            Err(_elapsed) => {
                tracing::info!(task = %submitted.task_id, round, "no clarification in time; proceeding");
                None
            }
        }
    }

    /// The machine's facts, dated by the submit.
    fn facts(&self, submitted: &TaskSubmitted) -> String {
        machine_facts(&self.home, &self.workspace, submitted.submitted_at)
    }

    fn publish_perceived(
        &self,
        submitted: &TaskSubmitted,
        perception: Perception,
        token: &CancellationToken,
    ) {
        let constraints = constraints_of(&perception.constraints);
        self.task_spec(
            submitted,
            perception.intent.trim().to_string(),
            constraints,
            token,
        );
    }

    fn task_spec(
        &self,
        submitted: &TaskSubmitted,
        intent: String,
        constraints: Constraints,
        token: &CancellationToken,
    ) {
        if token.is_cancelled() {
            return;
        }
        self.bus.publish(
            Role::Planner,
            TaskSpec {
                task_id: submitted.task_id.clone(),
                intent,
                constraints,
                raw_input: submitted.raw_input.clone(),
            },
        );
    }

    fn chat_reply(&self, submitted: &TaskSubmitted, answer: String) {
        self.bus.publish(
            Role::User,
            ChatReply {
                task_id: submitted.task_id.clone(),
                answer,
            },
        );
    }
}
