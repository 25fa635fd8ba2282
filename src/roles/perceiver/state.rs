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
use crate::contracts::{
    ChatReply, ClarificationAnswer, ClarificationRequest, Constraints, Role, TaskId, TaskSpec,
    TaskSubmitted,
};
use crate::llm::LlmError;
use crate::roles::runner::Effects;

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
                task_spec(submitted, intent, Constraints::default(), fx);
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
                task_spec(submitted, intent, Constraints::default(), fx);
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
        fx,
    );
}

/// The `TaskSpec` for R2: the task's id and the submitted text are set by code.
fn task_spec(submitted: &TaskSubmitted, intent: String, constraints: Constraints, fx: &mut Fx) {
    fx.publish(
        Role::Planner,
        TaskSpec {
            task_id: submitted.task_id.clone(),
            intent,
            constraints,
            raw_input: submitted.raw_input.clone(),
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
mod tests {
    use super::super::schema::{Kind, PerceivedConstraints};
    use super::*;
    use crate::contracts::{Message, SessionTurn};

    const TIMEOUT: Duration = Duration::from_secs(120);

    fn intake() -> Intake {
        Intake::new(2, TIMEOUT)
    }

    fn submitted(raw: &str, history: Vec<SessionTurn>) -> TaskSubmitted {
        TaskSubmitted {
            task_id: TaskId::mint(),
            raw_input: raw.into(),
            submitted_at: chrono::DateTime::default(),
            session_history: history,
        }
    }

    /// A request the pre-filter leaves to the model: no place, no verb, no greeting.
    fn undecided() -> TaskSubmitted {
        submitted("tidy up", vec![])
    }

    fn perception(kind: Kind, intent: &str) -> Perception {
        Perception {
            constraints: PerceivedConstraints {
                deadline: None,
                scope: Some(" ~/Photos ".into()),
            },
            intent: format!(" {intent} "),
            kind,
            question: (kind == Kind::Clarify).then(|| "Which ones?".into()),
            reply: (kind == Kind::Chat).then(|| "Hello!".into()),
        }
    }

    impl Intake {
        fn holds(&self, task: &TaskId) -> bool {
            self.tasks.contains_key(task)
        }
    }

    fn answer(task: &TaskId, text: &str) -> ClarificationAnswer {
        ClarificationAnswer {
            task_id: task.clone(),
            answer: text.into(),
        }
    }

    /// What went out: the message type and to whom.
    fn sent(fx: &Fx) -> Vec<(&'static str, Role)> {
        fx.published()
            .iter()
            .map(|o| (o.message.kind().name(), o.to))
            .collect()
    }

    fn spec(fx: &Fx) -> &TaskSpec {
        match fx.published().last().map(|o| &o.message) {
            Some(Message::TaskSpec(spec)) => spec,
            other => panic!("not a TaskSpec: {other:?}"),
        }
    }

    fn question(fx: &Fx) -> &ClarificationRequest {
        match fx.published().last().map(|o| &o.message) {
            Some(Message::ClarificationRequest(q)) => q,
            other => panic!("not a question: {other:?}"),
        }
    }

    /// Submits `submitted` and checks the first call is the structured one.
    fn first_call(state: &mut Intake, submitted: &TaskSubmitted) {
        let mut fx = Fx::default();
        let call = state.submit(submitted, &mut fx);
        assert!(
            fx.published().is_empty(),
            "nothing before the model answers"
        );
        assert_eq!(
            call,
            Some(Call::Perceive {
                submitted: submitted.clone(),
                clarifications: vec![],
                may_ask: true,
            })
        );
    }

    /// Submits and lets the model ask: the question of round 1 is out.
    fn asked(state: &mut Intake, submitted: &TaskSubmitted) -> Fx {
        first_call(state, submitted);
        let mut fx = Fx::default();
        let perceived = Done::Perceived(Ok(perception(Kind::Clarify, "Tidy something up")));
        assert_eq!(state.on_done(&submitted.task_id, perceived, &mut fx), None);
        fx
    }

    #[test]
    fn a_perceived_task_is_forwarded_with_its_intent_trimmed_and_the_users_words() {
        let mut state = intake();
        let task = undecided();
        first_call(&mut state, &task);
        let mut fx = Fx::default();
        let perceived = Done::Perceived(Ok(perception(Kind::Task, "Tidy up the photos")));
        assert_eq!(state.on_done(&task.task_id, perceived, &mut fx), None);
        assert_eq!(sent(&fx), [("TaskSpec", Role::Planner)]);
        let spec = spec(&fx);
        assert_eq!(spec.task_id, task.task_id);
        assert_eq!(spec.intent, "Tidy up the photos");
        assert_eq!(spec.raw_input, "tidy up");
        assert_eq!(spec.constraints.scope.as_deref(), Some("~/Photos"));
        assert!(!state.holds(&task.task_id), "one TaskSpec, then forgotten");
    }

    #[test]
    fn an_answered_question_is_folded_into_a_second_perception_then_forwarded() {
        let mut state = intake();
        let task = undecided();
        let fx = asked(&mut state, &task);
        assert_eq!(sent(&fx), [("ClarificationRequest", Role::User)]);
        let q = question(&fx);
        assert_eq!((q.question.as_str(), q.round), ("Which ones?", 1));
        assert_eq!(fx.deadlines().len(), 1);
        assert_eq!(fx.deadlines()[0].0, TIMEOUT);
        assert_eq!(fx.deadlines()[0].2, 1, "the deadline of round 1");

        let mut fx = Fx::default();
        let call = state.on_answer(&answer(&task.task_id, "  the photos  "), &mut fx);
        assert!(fx.published().is_empty());
        assert_eq!(
            call,
            Some(Call::Perceive {
                submitted: task.clone(),
                clarifications: vec![Clarification {
                    question: "Which ones?".into(),
                    answer: "the photos".into(),
                }],
                may_ask: true,
            })
        );
        let mut fx = Fx::default();
        let perceived = Done::Perceived(Ok(perception(Kind::Task, "Tidy up the photos")));
        assert_eq!(state.on_done(&task.task_id, perceived, &mut fx), None);
        assert_eq!(sent(&fx), [("TaskSpec", Role::Planner)]);
        assert_eq!(spec(&fx).intent, "Tidy up the photos");
    }

    #[test]
    fn no_answer_by_the_deadline_forwards_the_first_perception_with_no_extra_call() {
        let mut state = intake();
        let task = undecided();
        asked(&mut state, &task);
        let mut fx = Fx::default();
        state.answer_overdue(&task.task_id, 1, &mut fx);
        assert_eq!(sent(&fx), [("TaskSpec", Role::Planner)]);
        assert_eq!(spec(&fx).intent, "Tidy something up");
        assert!(!state.holds(&task.task_id));
        // A late answer starts nothing.
        let mut fx = Fx::default();
        assert_eq!(
            state.on_answer(&answer(&task.task_id, "the photos"), &mut fx),
            None
        );
        assert!(fx.published().is_empty());
    }

    #[test]
    fn an_empty_answer_proceeds_with_the_perception_already_given() {
        let mut state = intake();
        let task = undecided();
        asked(&mut state, &task);
        let mut fx = Fx::default();
        let call = state.on_answer(&answer(&task.task_id, " \n "), &mut fx);
        assert_eq!(call, None, "no further model call");
        assert_eq!(sent(&fx), [("TaskSpec", Role::Planner)]);
        assert_eq!(spec(&fx).intent, "Tidy something up");
        assert!(!state.holds(&task.task_id));
    }

    #[test]
    fn a_failed_model_call_makes_the_users_words_and_answers_the_intent() {
        let mut state = intake();
        let task = undecided();
        asked(&mut state, &task);
        let mut fx = Fx::default();
        state.on_answer(&answer(&task.task_id, "the photos"), &mut fx);
        let failed = Done::Perceived(Err(LlmError::Timeout {
            after: Duration::from_secs(60),
        }));
        assert_eq!(state.on_done(&task.task_id, failed, &mut fx), None);
        assert_eq!(sent(&fx), [("TaskSpec", Role::Planner)]);
        let spec = spec(&fx);
        assert_eq!(spec.intent, "tidy up (clarified: Which ones? — the photos)");
        assert_eq!(spec.constraints, Constraints::default());
        assert!(!state.holds(&task.task_id));
    }

    #[test]
    fn a_closed_task_publishes_nothing_and_is_forgotten() {
        let mut state = intake();
        let task = undecided();
        asked(&mut state, &task);
        state.close(&task.task_id);
        assert!(!state.holds(&task.task_id));
        let mut fx = Fx::default();
        assert_eq!(
            state.on_answer(&answer(&task.task_id, "the photos"), &mut fx),
            None
        );
        state.answer_overdue(&task.task_id, 1, &mut fx);
        let perceived = Done::Perceived(Ok(perception(Kind::Task, "Tidy up")));
        assert_eq!(state.on_done(&task.task_id, perceived, &mut fx), None);
        assert!(fx.published().is_empty());
        assert!(fx.deadlines().is_empty());

        // A call the task's cancel stopped publishes nothing either.
        let other = undecided();
        first_call(&mut state, &other);
        let mut fx = Fx::default();
        let cancelled = Done::Perceived(Err(LlmError::Cancelled));
        assert_eq!(state.on_done(&other.task_id, cancelled, &mut fx), None);
        assert!(fx.published().is_empty());
        assert!(!state.holds(&other.task_id));
    }

    #[test]
    fn a_deadline_of_a_question_already_answered_changes_nothing() {
        let mut state = intake();
        let task = undecided();
        asked(&mut state, &task);
        let mut fx = Fx::default();
        assert!(
            state
                .on_answer(&answer(&task.task_id, "the photos"), &mut fx)
                .is_some()
        );
        // Due while the second perception is in flight: stale.
        state.answer_overdue(&task.task_id, 1, &mut fx);
        assert!(fx.published().is_empty());
        // The model asks again (round 2); round 1's deadline is still stale.
        let perceived = Done::Perceived(Ok(perception(Kind::Clarify, "Tidy up photos")));
        state.on_done(&task.task_id, perceived, &mut fx);
        assert_eq!(question(&fx).round, 2);
        let mut fx = Fx::default();
        state.answer_overdue(&task.task_id, 1, &mut fx);
        assert!(fx.published().is_empty());
        assert!(state.holds(&task.task_id));
        state.answer_overdue(&task.task_id, 2, &mut fx);
        assert_eq!(spec(&fx).intent, "Tidy up photos");
    }

    #[test]
    fn after_the_last_round_the_model_may_not_ask_and_its_question_is_not_put() {
        let mut state = intake();
        let task = undecided();
        asked(&mut state, &task);
        let mut fx = Fx::default();
        state.on_answer(&answer(&task.task_id, "the photos"), &mut fx);
        let again = Done::Perceived(Ok(perception(Kind::Clarify, "Tidy up photos")));
        state.on_done(&task.task_id, again, &mut fx);
        assert_eq!(question(&fx).round, 2);
        let call = state.on_answer(&answer(&task.task_id, "from the trip"), &mut fx);
        let Some(Call::Perceive {
            clarifications,
            may_ask,
            ..
        }) = call
        else {
            panic!("a third perception: {call:?}");
        };
        assert_eq!(clarifications.len(), 2);
        assert!(!may_ask, "the model is told it may not ask again");
        // The model asks a third time anyway: its interpretation is forwarded.
        let mut fx = Fx::default();
        let third = Done::Perceived(Ok(perception(Kind::Clarify, "Tidy up the trip photos")));
        assert_eq!(state.on_done(&task.task_id, third, &mut fx), None);
        assert_eq!(sent(&fx), [("TaskSpec", Role::Planner)]);
        assert_eq!(spec(&fx).intent, "Tidy up the trip photos");
        assert!(fx.deadlines().is_empty());
    }

    #[test]
    fn with_no_rounds_at_all_the_first_call_may_not_ask() {
        let mut state = Intake::new(0, TIMEOUT);
        let task = undecided();
        let mut fx = Fx::default();
        let call = state.submit(&task, &mut fx);
        assert!(matches!(call, Some(Call::Perceive { may_ask: false, .. })));
    }

    #[test]
    fn empty_input_and_named_requests_go_out_without_a_model_call() {
        let mut state = intake();
        let mut fx = Fx::default();
        let empty = submitted("  \n", vec![]);
        assert_eq!(state.submit(&empty, &mut fx), None);
        let named = submitted("run  the backup\tscript", vec![]);
        assert_eq!(state.submit(&named, &mut fx), None);
        assert_eq!(
            sent(&fx),
            [("ChatReply", Role::User), ("TaskSpec", Role::Planner)]
        );
        let Message::ChatReply(reply) = &fx.published()[0].message else {
            panic!("a reply");
        };
        assert_eq!(reply.answer, EMPTY_INPUT_REPLY);
        assert_eq!(spec(&fx).intent, "run the backup script");
        assert!(!state.holds(&empty.task_id) && !state.holds(&named.task_id));
    }

    #[test]
    fn a_greeting_is_answered_by_the_fast_path_and_its_failures_are_told_honestly() {
        let mut state = intake();
        let mut answers = Vec::new();
        for answered in [
            Ok("Hello! I'm artoo.".to_string()),
            Ok(String::new()),
            Err(LlmError::Timeout {
                after: Duration::from_secs(60),
            }),
        ] {
            let hi = submitted("hi artoo!", vec![]);
            let mut fx = Fx::default();
            let call = state.submit(&hi, &mut fx);
            assert_eq!(
                call,
                Some(Call::Chat {
                    submitted: hi.clone()
                })
            );
            state.on_done(&hi.task_id, Done::Answered(answered), &mut fx);
            assert_eq!(sent(&fx), [("ChatReply", Role::User)]);
            let Message::ChatReply(reply) = &fx.published()[0].message else {
                panic!("a reply");
            };
            answers.push(reply.answer.clone());
            assert!(!state.holds(&hi.task_id));
        }
        assert_eq!(answers[0], "Hello! I'm artoo.");
        assert_eq!(answers[1], EMPTY_ANSWER_REPLY);
        assert!(answers[2].starts_with("I could not get an answer from the model:"));
    }

    #[test]
    fn a_chat_verdict_is_a_reply_unless_the_input_needs_tools() {
        let mut state = intake();
        let history = vec![SessionTurn {
            input: "what is in ~/Downloads?".into(),
            summary: "12 files".into(),
        }];
        for (raw, expected) in [
            ("long time no see", ("ChatReply", Role::User)),
            (
                "what's the weather in Paris today?",
                ("TaskSpec", Role::Planner),
            ),
        ] {
            let task = submitted(raw, history.clone());
            let mut fx = Fx::default();
            assert!(state.submit(&task, &mut fx).is_some());
            let chat = Done::Perceived(Ok(perception(Kind::Chat, "Chat")));
            state.on_done(&task.task_id, chat, &mut fx);
            assert_eq!(sent(&fx), [expected], "{raw}");
        }
    }

    #[test]
    fn a_task_submitted_twice_is_perceived_once() {
        let mut state = intake();
        let task = undecided();
        first_call(&mut state, &task);
        let mut fx = Fx::default();
        assert_eq!(state.submit(&task, &mut fx), None);
        assert!(fx.published().is_empty());
    }
}
