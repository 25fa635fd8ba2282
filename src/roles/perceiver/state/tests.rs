//! R1's decisions, driven with no bus, no model and no clock.

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
        time_budget_ms: 120_000,
        scheduled: None,
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
        shape: Default::default(),
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
