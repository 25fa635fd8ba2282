//! R1's decisions as plain state: a submitted task, the answers of R1's model calls and
//! the user's answers to its questions in; a `TaskSpec`, a `ChatReply`, a
//! `ClarificationRequest` with the deadline for its answer, and the next model call to
//! make out, through the handler's [`Effects`]. No bus, no model, no clock: the wiring in
//! `mod.rs` makes the calls, keeps the time and tells the state when a task closed.
//!
//! **Invariant:** a task the state keeps is in exactly one phase — one model call in
//! flight, or one question waiting for the user's answer — and it leaves the state the
//! moment its one `TaskSpec` or `ChatReply` goes out or it closes; so a task gets at most
//! one of them, and a closed task gets nothing.

use std::collections::HashMap;
use std::time::Duration;

use super::prompt::Clarification;
use super::route::{Opening, Route, Verdict, constraints_of, fallback_intent, opening, verdict};
use super::schema::Perception;
use crate::actor::Effects;
use crate::contracts::{
    AnswerShape, ChatReply, ClarificationAnswer, ClarificationRequest, Constraints, Role, TaskId,
    TaskSpec, TaskSubmitted,
};
use crate::llm::LlmError;

/// The reply to an input with nothing in it.
const EMPTY_INPUT_REPLY: &str = "Your message was empty. Tell me what you would like me to do.";

/// The fast path's reply when the model answered with nothing.
const EMPTY_ANSWER_REPLY: &str = "The model sent an empty answer. Please ask again.";

/// A model call the state asks for: the wiring builds its request, runs it as a job of
/// the task and hands what it ended with to [`Intake::on_done`].
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Call {
    /// The fast path's one free-text call.
    Chat {
        /// The request being answered.
        submitted: TaskSubmitted,
    },
    /// The structured call.
    Perceive {
        /// The request being perceived.
        submitted: TaskSubmitted,
        /// Every question asked so far, with its answer.
        clarifications: Vec<Clarification>,
        /// False after the last round: the model is told it may not ask again.
        may_ask: bool,
    },
}

impl Call {
    /// The task the call works for.
    pub(super) fn task(&self) -> &TaskId {
        match self {
            Call::Chat { submitted } | Call::Perceive { submitted, .. } => &submitted.task_id,
        }
    }
}

/// What one of R1's model calls ended with.
#[derive(Debug)]
pub(super) enum Done {
    /// The structured call: a perception that passed its checks, or why there is none.
    Perceived(Result<Perception, LlmError>),
    /// The fast path: the answer for the user (reasoning removed), or why there is none.
    Answered(Result<String, LlmError>),
}

/// The deadline of a question: the round whose answer it waits for.
pub(super) type Timer = u32;

/// The effects of one reaction.
pub(super) type Fx = Effects<Timer>;

/// Where one task's conversation is.
enum Phase {
    /// A model call is in flight.
    Calling,
    /// The question of `round` waits for the user's answer. Without an answer R1 goes on
    /// with `perception`, the interpretation the model already gave.
    Asking {
        question: String,
        round: u32,
        perception: Perception,
    },
}

/// One task R1 is still perceiving.
struct Conversation {
    submitted: TaskSubmitted,
    /// The code pre-filter's verdict on the input.
    route: Route,
    clarifications: Vec<Clarification>,
    phase: Phase,
}

impl Conversation {
    /// The round the next question would be.
    fn next_round(&self) -> u32 {
        u32::try_from(self.clarifications.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1)
    }

    /// Whether the model may still ask, with `rounds` questions allowed per task.
    fn may_ask(&self, rounds: u32) -> bool {
        self.next_round() <= rounds
    }

    /// The structured call for where the conversation is now.
    fn perceive(&self, rounds: u32) -> Call {
        Call::Perceive {
            submitted: self.submitted.clone(),
            clarifications: self.clarifications.clone(),
            may_ask: self.may_ask(rounds),
        }
    }
}

/// R1's decisions: plain state, no bus, no model, no clock.
pub(super) struct Intake {
    /// How many questions R1 may ask per task.
    pub(super) clarification_rounds: u32,
    /// How long R1 waits for an answer before it goes on without one.
    pub(super) clarification_timeout: Duration,
    tasks: HashMap<TaskId, Conversation>,
}

impl Intake {
    pub(super) fn new(clarification_rounds: u32, clarification_timeout: Duration) -> Self {
        Self {
            clarification_rounds,
            clarification_timeout,
            tasks: HashMap::new(),
        }
    }

    /// Forgets a task that closed; nothing more is published for it.
    pub(super) fn close(&mut self, task: &TaskId) {
        if self.tasks.remove(task).is_some() {
            tracing::debug!(task = %task, "perception stopped: the task closed");
        }
    }

    /// A new request: answered or forwarded at once by code, or the first model call.
    pub(super) fn submit(&mut self, submitted: &TaskSubmitted, fx: &mut Fx) -> Option<Call> {
        let task = &submitted.task_id;
        if self.tasks.contains_key(task) {
            tracing::warn!(task = %task, "a task was submitted twice; the first is perceived");
            return None;
        }
        let route = match opening(&submitted.raw_input, &submitted.session_history) {
            Opening::Empty => {
                // Nothing to carry into the system, and nothing for a model to answer.
                chat_reply(submitted, EMPTY_INPUT_REPLY.into(), fx);
                return None;
            }
            Opening::Verbatim(intent) => {
                task_spec(
                    submitted,
                    intent,
                    Constraints::default(),
                    AnswerShape::Any,
                    fx,
                );
                return None;
            }
            Opening::Chat => Route::Chat,
            Opening::Perceive(route) => route,
        };
        let conversation = Conversation {
            submitted: submitted.clone(),
            route,
            clarifications: Vec::new(),
            phase: Phase::Calling,
        };
        let call = if route == Route::Chat {
            Call::Chat {
                submitted: submitted.clone(),
            }
        } else {
            conversation.perceive(self.clarification_rounds)
        };
        self.tasks.insert(task.clone(), conversation);
        Some(call)
    }

    /// A model call of `task` ended: a reply, a forward, or a question to the user.
    pub(super) fn on_done(&mut self, task: &TaskId, done: Done, fx: &mut Fx) -> Option<Call> {
        let conversation = self.tasks.get_mut(task)?;
        if !matches!(conversation.phase, Phase::Calling) {
            return None;
        }
        let perception = match done {
            Done::Answered(answered) => {
                let submitted = self.tasks.remove(task)?.submitted;
                let answer = match answered {
                    Ok(text) if text.is_empty() => EMPTY_ANSWER_REPLY.to_string(),
                    Ok(text) => text,
                    Err(LlmError::Cancelled) => return None,
                    Err(e) => format!("I could not get an answer from the model: {e}"),
                };
                chat_reply(&submitted, answer, fx);
                return None;
            }
            Done::Perceived(Ok(perception)) => perception,
            Done::Perceived(Err(LlmError::Cancelled)) => {
                self.tasks.remove(task);
                return None;
            }
            Done::Perceived(Err(error)) => {
                let conversation = self.tasks.remove(task)?;
                tracing::warn!(task = %task, %error,
                    "no usable perception; the user's words become the intent");
                let submitted = &conversation.submitted;
                let intent = fallback_intent(&submitted.raw_input, &conversation.clarifications);
                task_spec(
                    submitted,
                    intent,
                    Constraints::default(),
                    AnswerShape::Any,
                    fx,
                );
                return None;
            }
        };
        let may_ask = conversation.may_ask(self.clarification_rounds);
        match verdict(conversation.route, &perception, may_ask) {
            Verdict::Reply(reply) => {
                let conversation = self.tasks.remove(task)?;
                chat_reply(&conversation.submitted, reply, fx);
            }
            Verdict::Forward => {
                let conversation = self.tasks.remove(task)?;
                forward(&conversation.submitted, perception, fx);
            }
            Verdict::Ask(question) => {
                let round = conversation.next_round();
                fx.publish(
                    Role::User,
                    ClarificationRequest {
                        task_id: task.clone(),
                        question: question.clone(),
                        round,
                    },
                );
                fx.after(self.clarification_timeout, task, round);
                conversation.phase = Phase::Asking {
                    question,
                    round,
                    perception,
                };
            }
        }
        None
    }

    /// The user's answer to the task's open question: an empty one means "proceed as
    /// understood", so the perception already given is forwarded with no further call;
    /// otherwise the model perceives again with the answer.
    pub(super) fn on_answer(&mut self, answer: &ClarificationAnswer, fx: &mut Fx) -> Option<Call> {
        let task = &answer.task_id;
        let Some(conversation) = self.tasks.get_mut(task) else {
            tracing::debug!(task = %task, "an answer for no open question ignored");
            return None;
        };
        // Only a question can be open besides a call in flight, so this changes nothing
        // when none is.
        let Phase::Asking {
            question,
            perception,
            ..
        } = std::mem::replace(&mut conversation.phase, Phase::Calling)
        else {
            tracing::debug!(task = %task, "an answer while no question is open ignored");
            return None;
        };
        let text = answer.answer.trim();
        if text.is_empty() {
            let conversation = self.tasks.remove(task)?;
            forward(&conversation.submitted, perception, fx);
            return None;
        }
        conversation.clarifications.push(Clarification {
            question,
            answer: text.to_string(),
        });
        Some(conversation.perceive(self.clarification_rounds))
    }

    /// The deadline of the question of `round` fell due: with no answer in time, R1
    /// proceeds with the perception already given. A deadline of a question already
    /// answered is stale and changes nothing.
    pub(super) fn answer_overdue(&mut self, task: &TaskId, round: Timer, fx: &mut Fx) {
        let waiting = self
            .tasks
            .get(task)
            .is_some_and(|c| matches!(c.phase, Phase::Asking { round: open, .. } if open == round));
        if !waiting {
            return;
        }
        let Some(Conversation {
            submitted,
            phase: Phase::Asking { perception, .. },
            ..
        }) = self.tasks.remove(task)
        else {
            return;
        };
        tracing::info!(task = %task, round, "no clarification in time; proceeding");
        forward(&submitted, perception, fx);
    }
}

/// Forwards the model's perception to R2: its intent trimmed, its blank constraints
/// dropped.
fn forward(submitted: &TaskSubmitted, perception: Perception, fx: &mut Fx) {
    let constraints = constraints_of(&perception.constraints);
    task_spec(
        submitted,
        perception.intent.trim().to_string(),
        constraints,
        perception.shape,
        fx,
    );
}

/// The `TaskSpec` for R2: the task's id and the submitted text are set by code.
fn task_spec(
    submitted: &TaskSubmitted,
    intent: String,
    constraints: Constraints,
    answer: AnswerShape,
    fx: &mut Fx,
) {
    fx.publish(
        Role::Planner,
        TaskSpec {
            task_id: submitted.task_id.clone(),
            intent,
            constraints,
            raw_input: submitted.raw_input.clone(),
            // The question's own opening settles a shape the model contradicts.
            answer: crate::checks::asks::settled(&submitted.raw_input, answer),
        },
    );
}

fn chat_reply(submitted: &TaskSubmitted, answer: String, fx: &mut Fx) {
    fx.publish(
        Role::User,
        ChatReply {
            task_id: submitted.task_id.clone(),
            answer,
        },
    );
}

#[cfg(test)]
mod tests;
