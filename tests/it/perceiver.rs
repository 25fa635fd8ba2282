//! R1 Perceiver on a real bus against the scripted server (real HTTP on 127.0.0.1): task
//! specs, the conversational fast path, clarification rounds, malformed output and
//! cancellation. A test subscriber plays the user.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use artoo::bus::{Bus, Envelope, Tap, TapEvent};
use artoo::config::Config;
use artoo::contracts::{
    ClarificationAnswer, Message, MessageKind, Role, SessionTurn, TaskClosed, TaskId, TaskSubmitted,
};
use artoo::lifecycle::Registry;
use artoo::llm::Llm;
use artoo::roles::perceiver::{Perceiver, Route, route};
use artoo::testkit::{Script, ScriptedServer, Step, llm_config};
use artoo::{Clock, FakeClock};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

pub fn fixture(area: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(area)
        .join(name)
}

pub fn script(area: &str, name: &str) -> Script {
    Script::from_file(fixture(area, name)).expect("fixture script parses")
}

/// A scripted server, a client whose tiers point at it, a bus with a tap, a fake clock,
/// the cancellation registry and a config in temp dirs: what a role needs to run.
pub struct Rig {
    pub server: ScriptedServer,
    pub llm: Llm,
    pub bus: Bus,
    pub clock: Arc<FakeClock>,
    pub registry: Registry,
    pub config: Config,
    tap: Tap,
    /// Every envelope read from the tap so far, in publish order.
    pub seen: Vec<Arc<Envelope>>,
    _dirs: tempfile::TempDir,
}

impl Rig {
    pub async fn new(script: Script) -> Rig {
        let server = ScriptedServer::start(script).await.expect("server starts");
        let base_url = server.base_url();
        Self::with_endpoint(server, &base_url)
    }

    /// The client points at `base_url` (the server still runs, for request records).
    pub fn with_endpoint(server: ScriptedServer, base_url: &str) -> Rig {
        let dirs = tempfile::tempdir().expect("temp dir");
        let config = Config::with_dirs(dirs.path().join("data"), dirs.path().join("workspace"));
        let clock = FakeClock::at_epoch();
        let llm = Llm::new(&llm_config(base_url), clock.clone()).expect("both tiers configured");
        let bus = Bus::new(clock.clone());
        let tap = bus.tap("role-test", 16_384);
        Rig {
            server,
            llm,
            bus,
            clock,
            registry: Registry::new(CancellationToken::new(), 4096),
            config,
            tap,
            seen: Vec::new(),
            _dirs: dirs,
        }
    }

    /// Reads the tap until `done(seen)` holds; fails after 60 s (virtual in paused tests).
    pub async fn until(&mut self, what: &str, done: impl Fn(&[Arc<Envelope>]) -> bool) {
        let wait = async {
            while !done(&self.seen) {
                match self.tap.recv().await {
                    Some(TapEvent::Message(env)) => self.seen.push(env),
                    Some(TapEvent::Gap { skipped }) => panic!("the tap lost {skipped} messages"),
                    None => panic!("the bus closed while waiting for {what}"),
                }
            }
        };
        if tokio::time::timeout(Duration::from_secs(60), wait)
            .await
            .is_err()
        {
            panic!(
                "timed out waiting for {what}; seen:\n{}",
                self.transcript().join("\n")
            );
        }
    }

    /// Waits for the first envelope of `kind`.
    pub async fn first(&mut self, kind: MessageKind) -> Arc<Envelope> {
        self.until(kind.name(), |seen| {
            seen.iter().any(|e| e.message.kind() == kind)
        })
        .await;
        self.of(kind).remove(0)
    }

    /// Reads what is already on the tap without waiting.
    pub fn drain(&mut self) {
        while let Some(event) = self.tap.try_recv() {
            match event {
                TapEvent::Message(env) => self.seen.push(env),
                TapEvent::Gap { skipped } => panic!("the tap lost {skipped} messages"),
            }
        }
    }

    pub fn of(&self, kind: MessageKind) -> Vec<Arc<Envelope>> {
        self.seen
            .iter()
            .filter(|e| e.message.kind() == kind)
            .cloned()
            .collect()
    }

    /// One line per bus message but the model-call records: `from → to Kind`.
    pub fn transcript(&self) -> Vec<String> {
        self.seen
            .iter()
            .filter(|e| e.message.kind() != MessageKind::LlmCall)
            .map(|e| format!("{} → {} {}", e.from, e.to, e.message.kind().name()))
            .collect()
    }

    /// The user turns of every request `role` sent, newest last.
    pub fn prompts(&self, role: Role) -> Vec<String> {
        self.server
            .requests_from(role)
            .iter()
            .map(|r| {
                r.messages()
                    .into_iter()
                    .filter(|(speaker, _)| speaker != "system")
                    .map(|(_, content)| content)
                    .collect::<Vec<_>>()
                    .join("\n---\n")
            })
            .collect()
    }

    pub fn system_prompt(&self, role: Role, n: usize) -> String {
        self.server.requests_from(role)[n].messages()[0].1.clone()
    }

    /// Lets spawned jobs run to their end when nothing is left to wait for.
    pub async fn settle(&mut self) {
        for _ in 0..50 {
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        self.drain();
    }
}

struct R1 {
    rig: Rig,
    user: artoo::bus::Inbox,
}

impl R1 {
    async fn start(script: Script) -> R1 {
        Self::start_rig(Rig::new(script).await, Duration::from_secs(120))
    }

    fn start_rig(rig: Rig, clarification_timeout: Duration) -> R1 {
        let user = rig.bus.subscribe(Role::User);
        let perceiver = Perceiver::new(&rig.config, &rig.bus, &rig.llm, rig.registry.clone())
            .expect("R1 has a model tier")
            .with_clarification_timeout(clarification_timeout);
        tokio::spawn(perceiver.run());
        R1 { rig, user }
    }

    fn submit(&self, raw: &str, history: Vec<SessionTurn>) -> TaskId {
        let task_id = TaskId::mint();
        self.rig.bus.handle(Role::User).publish(
            Role::Perceiver,
            TaskSubmitted {
                task_id: task_id.clone(),
                raw_input: raw.to_string(),
                submitted_at: self.rig.clock.now(),
                session_history: history,
                time_budget_ms: 120_000,
                scheduled: None,
            },
        );
        task_id
    }

    /// The next clarifying question addressed to the user.
    async fn question(&mut self) -> Arc<Envelope> {
        loop {
            let env = tokio::time::timeout(Duration::from_secs(60), self.user.recv())
                .await
                .expect("a question in time")
                .expect("bus open");
            if let Message::ClarificationRequest(_) = env.message {
                return env;
            }
        }
    }

    fn answer(&self, question: &Envelope, answer: &str) {
        self.rig.bus.handle(Role::User).reply(
            Role::Perceiver,
            question.id,
            ClarificationAnswer {
                task_id: question.task_id.clone().expect("a task"),
                answer: answer.to_string(),
            },
        );
    }
}

fn spec_of(env: &Envelope) -> &artoo::contracts::TaskSpec {
    match &env.message {
        Message::TaskSpec(spec) => spec,
        other => panic!("not a TaskSpec: {other:?}"),
    }
}

fn chat_of(env: &Envelope) -> &str {
    match &env.message {
        Message::ChatReply(reply) => &reply.answer,
        other => panic!("not a ChatReply: {other:?}"),
    }
}

#[derive(Deserialize)]
struct Corpus {
    case: Vec<CorpusCase>,
}

#[derive(Deserialize)]
struct CorpusCase {
    input: String,
    route: Route,
}

#[test]
fn the_fast_path_filter_decides_its_whole_corpus_as_written() {
    let text = std::fs::read_to_string(fixture("perceiver", "fast_path_corpus.toml")).unwrap();
    let corpus: Corpus = toml::from_str(&text).expect("corpus parses");
    assert!(corpus.case.len() >= 40);
    let wrong: Vec<String> = corpus
        .case
        .iter()
        .filter(|c| route(&c.input) != c.route)
        .map(|c| {
            format!(
                "{:?}: expected {:?}, got {:?}",
                c.input,
                c.route,
                route(&c.input)
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// One earlier turn, so R1 has something to resolve and makes its structured call.
fn earlier_turn() -> Vec<SessionTurn> {
    vec![SessionTurn {
        input: "what is in ~/Downloads?".into(),
        summary: "12 files, 5 of them PDFs".into(),
    }]
}

/// A request that names its folder.
const PDFS: &str = "  find the 3 biggest pdfs in ~/Downloads\t";

/// Submits [`PDFS`] with `history`; its TaskSpec carries the runtime's id and the input
/// byte for byte.
async fn pdfs_spec(history: Vec<SessionTurn>) -> (R1, artoo::contracts::TaskSpec) {
    let mut r1 = R1::start(script("perceiver", "task.json")).await;
    let task = r1.submit(PDFS, history);
    let env = r1.rig.first(MessageKind::TaskSpec).await;
    let spec = spec_of(&env).clone();
    assert_eq!(spec.task_id, task);
    assert_eq!(
        spec.raw_input, PDFS,
        "raw_input is the submitted text, byte for byte"
    );
    (r1, spec)
}

#[tokio::test]
async fn a_request_naming_a_place_with_no_history_is_carried_in_the_users_words_without_a_call() {
    assert_eq!(route(PDFS), Route::NeedsTools);
    let (mut r1, spec) = pdfs_spec(vec![]).await;
    assert_eq!(
        spec.intent, "find the 3 biggest pdfs in ~/Downloads",
        "the intent is the user's words, whitespace normalised"
    );
    assert_eq!(spec.constraints.scope, None);
    assert_eq!(spec.constraints.deadline, None);
    r1.rig.settle().await;
    assert!(r1.rig.server.requests().is_empty(), "no model call");
    assert_eq!(
        r1.rig.transcript(),
        ["User → R1 TaskSubmitted", "R1 → R2 TaskSpec"]
    );
}

#[tokio::test]
async fn a_task_with_session_history_becomes_a_task_spec_in_one_structured_call() {
    let (mut r1, spec) = pdfs_spec(earlier_turn()).await;
    assert_eq!(
        spec.intent,
        "Find the three largest PDF files in ~/Downloads"
    );
    assert_eq!(spec.constraints.scope.as_deref(), Some("~/Downloads"));
    assert_eq!(spec.constraints.deadline, None);
    assert_eq!(r1.rig.server.requests_from(Role::Perceiver).len(), 1);
    let request = &r1.rig.server.requests_from(Role::Perceiver)[0];
    assert_eq!(request.response_format(), Some("json_schema"));
    let prompt = &r1.rig.prompts(Role::Perceiver)[0];
    assert!(
        prompt.contains("[1] User: what is in ~/Downloads?\n    Result: 12 files, 5 of them PDFs"),
        "{prompt}"
    );
    assert!(
        r1.rig
            .system_prompt(Role::Perceiver, 0)
            .starts_with("artoo is an assistant"),
        "the system prompt opens with the shared preamble"
    );
    r1.rig.settle().await;
    assert_eq!(
        r1.rig.transcript(),
        ["User → R1 TaskSubmitted", "R1 → R2 TaskSpec"]
    );
}

#[tokio::test]
async fn a_greeting_takes_the_fast_path_in_one_free_text_call() {
    let mut r1 = R1::start(script("perceiver", "greeting.json")).await;
    let task = r1.submit("hi artoo!", vec![]);
    let env = r1.rig.first(MessageKind::ChatReply).await;
    assert_eq!(env.task_id.as_ref(), Some(&task));
    assert_eq!(env.to, Role::User);
    // The reasoning block never reaches the user.
    assert_eq!(
        chat_of(&env),
        "Hello! I'm artoo. I can find, read and write files, run commands and search the web for you."
    );
    let requests = r1.rig.server.requests_from(Role::Perceiver);
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].response_format(), None, "a free-text call");
    assert!(
        r1.rig
            .system_prompt(Role::Perceiver, 0)
            .contains("0. Never deceive")
    );
    r1.rig.settle().await;
    assert_eq!(
        r1.rig.transcript(),
        ["User → R1 TaskSubmitted", "R1 → User ChatReply"]
    );
}

#[tokio::test]
async fn a_fast_path_answer_that_is_not_a_completion_is_reported_honestly() {
    let mut r1 = R1::start(Script::new().role(
        Role::Perceiver,
        [Step::malformed("<html>502 bad gateway</html>")],
    ))
    .await;
    r1.submit("hello", vec![]);
    let env = r1.rig.first(MessageKind::ChatReply).await;
    let answer = chat_of(&env);
    assert!(
        answer.starts_with("I could not get an answer from the model:"),
        "{answer}"
    );
    r1.rig.settle().await;
    assert!(r1.rig.of(MessageKind::TaskSpec).is_empty());
}

#[tokio::test]
async fn a_question_needing_fresh_data_never_takes_the_fast_path_even_when_the_model_says_chat() {
    let mut r1 = R1::start(script("perceiver", "weather_model_says_chat.json")).await;
    assert_eq!(
        route("what's the weather in Paris today?"),
        Route::NeedsTools
    );
    // Session history makes R1 ask the model, which answers "chat".
    r1.submit("what's the weather in Paris today?", earlier_turn());
    let env = r1.rig.first(MessageKind::TaskSpec).await;
    assert_eq!(spec_of(&env).intent, "Find out the weather in Paris today");
    r1.rig.settle().await;
    assert!(r1.rig.of(MessageKind::ChatReply).is_empty());
    assert_eq!(r1.rig.server.requests_from(Role::Perceiver).len(), 1);
}

#[tokio::test]
async fn paraphrased_small_talk_is_answered_from_the_one_structured_call() {
    let mut r1 = R1::start(script("perceiver", "small_talk.json")).await;
    r1.submit("hey buddy, long time no see", vec![]);
    let env = r1.rig.first(MessageKind::ChatReply).await;
    assert_eq!(chat_of(&env), "Good to see you again! What shall we do?");
    assert!(r1.rig.prompts(Role::Perceiver)[0].contains("Session history: (none)"));
    r1.rig.settle().await;
    assert!(r1.rig.of(MessageKind::TaskSpec).is_empty());
    assert_eq!(r1.rig.server.requests_from(Role::Perceiver).len(), 1);
}

#[tokio::test]
async fn an_empty_input_is_answered_without_a_model_call() {
    let mut r1 = R1::start(Script::new()).await;
    r1.submit("   \n", vec![]);
    let env = r1.rig.first(MessageKind::ChatReply).await;
    assert!(chat_of(&env).contains("empty"));
    assert!(r1.rig.server.requests().is_empty());
}

#[tokio::test]
async fn references_and_amendments_are_resolved_from_the_session_history() {
    let mut r1 = R1::start(script("perceiver", "amendment.json")).await;
    let history = vec![
        SessionTurn {
            input: "what is in ~/notes?".into(),
            summary: "3 files: a.md, b.md, c.md".into(),
        },
        SessionTurn {
            input: "summarise ~/notes/a.md".into(),
            summary: "a.md is a packing list for the trip to Lisbon".into(),
        },
    ];
    r1.submit("answer in Chinese", history);
    let env = r1.rig.first(MessageKind::TaskSpec).await;
    assert_eq!(
        spec_of(&env).intent,
        "Summarise ~/notes/a.md again, answering in Chinese"
    );
    let prompt = &r1.rig.prompts(Role::Perceiver)[0];
    assert!(prompt.contains(
        "[2] User: summarise ~/notes/a.md\n    Result: a.md is a packing list for the trip to Lisbon"
    ));
    assert!(
        prompt.ends_with("User input:\nanswer in Chinese"),
        "{prompt}"
    );
    let system = r1.rig.system_prompt(Role::Perceiver, 0);
    assert!(
        system.contains("An amendment (another language"),
        "{system}"
    );
    assert!(system.contains("A complaint about the previous result"));
    assert!(system.contains("Keep relative time words as written"));
}

#[tokio::test]
async fn a_dropped_time_word_is_quoted_back_and_the_corrected_intent_is_used() {
    let mut r1 = R1::start(script("perceiver", "dropped_time_word.json")).await;
    // A time word routes the input to tools; the history makes R1 ask the model.
    r1.submit("remind me tomorrow to call Ann", earlier_turn());
    let env = r1.rig.first(MessageKind::TaskSpec).await;
    assert_eq!(spec_of(&env).intent, "Remind the user tomorrow to call Ann");
    let prompts = r1.rig.prompts(Role::Perceiver);
    assert_eq!(prompts.len(), 2);
    assert!(
        prompts[1].contains("the intent dropped the user's time words (tomorrow)"),
        "{}",
        prompts[1]
    );
}

#[tokio::test]
async fn an_answered_clarification_is_folded_into_the_next_call() {
    let mut r1 = R1::start(script("perceiver", "clarify_answered.json")).await;
    let task = r1.submit("fix it", vec![]);
    let question = r1.question().await;
    match &question.message {
        Message::ClarificationRequest(q) => {
            assert_eq!((q.question.as_str(), q.round), ("What should I fix?", 1));
            assert_eq!(q.task_id, task);
        }
        other => panic!("{other:?}"),
    }
    r1.answer(&question, "the typo in ~/notes/todo.md");
    let env = r1.rig.first(MessageKind::TaskSpec).await;
    let spec = spec_of(&env);
    assert_eq!(spec.intent, "Fix the typo in ~/notes/todo.md");
    assert_eq!(spec.raw_input, "fix it");
    let prompts = r1.rig.prompts(Role::Perceiver);
    assert_eq!(prompts.len(), 2);
    assert!(prompts[1].contains("Q: What should I fix?\nA: the typo in ~/notes/todo.md"));
    r1.rig.settle().await;
    assert_eq!(
        r1.rig.transcript(),
        [
            "User → R1 TaskSubmitted",
            "R1 → User ClarificationRequest",
            "User → R1 ClarificationAnswer",
            "R1 → R2 TaskSpec",
        ]
    );
}

#[tokio::test]
async fn after_the_last_round_the_model_may_not_ask_and_r1_proceeds() {
    let mut r1 = R1::start(script("perceiver", "clarify_exhausted.json")).await;
    assert_eq!(r1.rig.config.budgets.clarification_rounds, 2);
    r1.submit("tidy up", vec![]);
    let q1 = r1.question().await;
    r1.answer(&q1, "the photos");
    let q2 = r1.question().await;
    r1.answer(&q2, "the ones from the trip");
    let env = r1.rig.first(MessageKind::TaskSpec).await;
    // The model asked a third time anyway; its interpretation is used and nobody is asked.
    assert_eq!(spec_of(&env).intent, "Tidy up the photos from the trip");
    let prompts = r1.rig.prompts(Role::Perceiver);
    assert_eq!(prompts.len(), 3);
    assert!(!prompts[1].contains("You may not ask"));
    assert!(prompts[2].contains("You may not ask any more questions"));
    r1.rig.settle().await;
    assert_eq!(r1.rig.of(MessageKind::ClarificationRequest).len(), 2);
}

#[tokio::test]
async fn an_empty_answer_means_proceed_without_another_call() {
    let mut r1 = R1::start(script("perceiver", "clarify_once.json")).await;
    r1.submit("make it shorter", vec![]);
    let q = r1.question().await;
    r1.answer(&q, "   ");
    let env = r1.rig.first(MessageKind::TaskSpec).await;
    assert_eq!(spec_of(&env).intent, "Make the report shorter");
    assert_eq!(r1.rig.server.requests_from(Role::Perceiver).len(), 1);
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_clarification_times_out_and_r1_proceeds() {
    let rig = Rig::new(script("perceiver", "clarify_once.json")).await;
    let mut r1 = R1::start_rig(rig, Duration::from_secs(30));
    r1.submit("make it shorter", vec![]);
    let _unanswered = r1.question().await;
    let started = tokio::time::Instant::now();
    let env = r1.rig.first(MessageKind::TaskSpec).await;
    assert!(started.elapsed() >= Duration::from_secs(30));
    assert_eq!(spec_of(&env).intent, "Make the report shorter");
    assert_eq!(r1.rig.server.requests_from(Role::Perceiver).len(), 1);
}

#[tokio::test]
async fn malformed_output_falls_back_to_the_users_own_words() {
    let mut r1 = R1::start(script("perceiver", "malformed.json")).await;
    r1.submit("count my notes", earlier_turn());
    let env = r1.rig.first(MessageKind::TaskSpec).await;
    let spec = spec_of(&env);
    assert_eq!(spec.intent, "count my notes");
    assert_eq!(spec.raw_input, "count my notes");
    // One ask and the model layer's one re-ask.
    assert_eq!(r1.rig.server.requests_from(Role::Perceiver).len(), 2);
}

#[tokio::test(start_paused = true)]
async fn an_unreachable_endpoint_still_yields_a_faithful_task_spec() {
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    // Nothing listens on port 9 of the loopback interface.
    let rig = Rig::with_endpoint(server, "http://127.0.0.1:9/v1");
    let mut r1 = R1::start_rig(rig, Duration::from_secs(30));
    r1.submit("list the files on my desktop", vec![]);
    let env = r1.rig.first(MessageKind::TaskSpec).await;
    assert_eq!(spec_of(&env).intent, "list the files on my desktop");
}

#[tokio::test]
async fn nothing_is_published_after_a_cancel_during_the_model_call() {
    let mut r1 = R1::start(script("perceiver", "hang.json")).await;
    let task = r1.submit("find my tax forms", earlier_turn());
    r1.rig.server.wait_for_requests(1).await;
    r1.rig.registry.close(&task, true);
    r1.rig.bus.handle(Role::User).publish(
        Role::All,
        TaskClosed::cancelled(task.clone(), "user pressed Ctrl+C"),
    );
    // The cancelled call is still recorded as an LlmCall.
    r1.rig
        .until("the cancelled call's record", |seen| {
            seen.iter()
                .any(|e| e.message.kind() == MessageKind::LlmCall)
        })
        .await;
    r1.rig.settle().await;
    assert!(r1.rig.of(MessageKind::TaskSpec).is_empty());
    assert!(r1.rig.of(MessageKind::ChatReply).is_empty());
}

#[tokio::test]
async fn nothing_is_published_after_a_cancel_during_a_clarification() {
    let mut r1 = R1::start(Script::new().role(
        Role::Perceiver,
        [Step::reply(
            r#"{"kind": "clarify", "question": "Which report?", "constraints": {}, "intent": "Shorten a report", "reply": null}"#,
        )],
    ))
    .await;
    let task = r1.submit("shorten it", vec![]);
    let q = r1.question().await;
    r1.rig.registry.close(&task, true);
    r1.answer(&q, "the quarterly one");
    r1.rig.settle().await;
    assert!(r1.rig.of(MessageKind::TaskSpec).is_empty());
    assert_eq!(r1.rig.server.requests_from(Role::Perceiver).len(), 1);
}

#[tokio::test]
async fn a_task_submitted_after_its_cancel_is_never_perceived() {
    let mut r1 = R1::start(script("perceiver", "task.json")).await;
    let task = TaskId::mint();
    r1.rig.registry.close(&task, true);
    r1.rig.bus.handle(Role::User).publish(
        Role::Perceiver,
        TaskSubmitted {
            task_id: task,
            raw_input: "find pdfs".into(),
            submitted_at: r1.rig.clock.now(),
            session_history: vec![],
            time_budget_ms: 120_000,
            scheduled: None,
        },
    );
    r1.rig.settle().await;
    assert!(r1.rig.server.requests().is_empty());
    assert_eq!(r1.rig.transcript(), ["User → R1 TaskSubmitted"]);
}
