//! R4a over a real bus with its model scripted over real HTTP. The test plays the
//! dispatcher (publishes the sub-task) and R3 (requests verdicts on `ExecutionResult`s)
//! and reads R4b's inbox.

use std::path::PathBuf;
use std::time::Duration;

use artoo::bus::{Envelope, PendingReply};
use artoo::contracts::*;
use artoo::testkit::{Script, Step};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;

use super::dispatcher::{Rig, call, judged, next, next_within, quiet, subtask, verdict};

// ---------------------------------------------------------------------------------------
// The evidence-grounding corpus (tests/fixtures/validators/evidence_corpus.json)
// ---------------------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
pub struct Corpus {
    pub cases: Vec<Case>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct GoodVerdict {
    pub met: bool,
    #[serde(default)]
    pub cause: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Expect {
    pub model_calls: usize,
    /// `matched`, `failed` or `correction`.
    pub then: String,
    #[serde(default)]
    pub class: Option<FailureClass>,
    #[serde(default)]
    pub reason_contains: Option<String>,
    #[serde(default)]
    pub prompt_contains: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Case {
    pub name: String,
    pub intent: String,
    pub criteria: Vec<String>,
    pub status: ExecutionStatus,
    pub output: String,
    /// Set when the environment stopped R3's attempt (its model endpoint, its budget).
    #[serde(default)]
    pub interrupted: Option<artoo::contracts::Interruption>,
    pub tool_calls: Vec<ToolCallRecord>,
    #[serde(default)]
    pub good_verdict: Vec<GoodVerdict>,
    #[serde(default)]
    pub replies: Vec<String>,
    pub expect: Expect,
}

pub fn corpus() -> Corpus {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/validators/evidence_corpus.json");
    let text = std::fs::read_to_string(&path).expect("the corpus is readable");
    serde_json::from_str(&text).expect("the corpus parses")
}

impl Case {
    /// What a correct validator answers, in R4a's reply format.
    fn scripted_replies(&self) -> Vec<String> {
        if !self.replies.is_empty() {
            return self.replies.clone();
        }
        if self.expect.model_calls == 0 {
            return vec![];
        }
        let criteria = self
            .criteria
            .iter()
            .zip(&self.good_verdict)
            .map(|(c, v)| judged(c, v.met, "[1] as quoted", v.cause.as_deref()))
            .collect();
        let all_met = self.good_verdict.iter().all(|v| v.met);
        let (diagnosis, remedy) = if all_met {
            ("", "")
        } else {
            ("the evidence does not show it", "use a different approach")
        };
        vec![verdict(criteria, diagnosis, remedy)]
    }
}

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn result(
    s: &SubTask,
    attempt: u32,
    status: ExecutionStatus,
    calls: Vec<ToolCallRecord>,
) -> ExecutionResult {
    ExecutionResult {
        subtask_id: s.subtask_id,
        parent_task_id: s.parent_task_id.clone(),
        status,
        output: format!("attempt {attempt} done"),
        tool_calls: calls,
        attempt,
        interrupted: None,
    }
}

fn open(rig: &Rig, s: &SubTask) {
    rig.bus
        .handle(Role::Dispatcher)
        .publish(Role::Executor, s.clone());
}

fn ask(rig: &Rig, r: ExecutionResult) -> PendingReply {
    rig.bus
        .handle(Role::Executor)
        .request(Role::AgentValidator, r)
}

async fn reply(pending: PendingReply) -> Arc<Envelope> {
    reply_within(pending, Duration::from_secs(20)).await
}

async fn reply_within(pending: PendingReply, limit: Duration) -> Arc<Envelope> {
    tokio::time::timeout(limit, pending)
        .await
        .expect("R4a answers in time")
        .expect("the bus is open")
}

fn outcome_of(env: &Arc<Envelope>) -> SubTaskOutcome {
    assert_eq!(
        (env.from, env.to),
        (Role::AgentValidator, Role::MetaValidator)
    );
    match &env.message {
        Message::SubTaskOutcome(o) => o.clone(),
        other => panic!("expected an outcome, got {:?}", other.kind()),
    }
}

fn start(rig: &Rig) {
    rig.agent_validator().spawn();
}

/// Starts R4a, opens one sub-task (criterion "c"), sends one completed attempt without
/// tool calls, checks that R4a closes it as failed, and returns the outcome R4b got.
async fn fails_once(rig: &Rig) -> SubTaskOutcome {
    let mut r4b = rig.bus.subscribe(Role::MetaValidator);
    start(rig);
    let s = subtask(&TaskId::mint(), 1, "x", &["c"]);
    open(rig, &s);
    let env = reply(ask(rig, result(&s, 1, ExecutionStatus::Completed, vec![]))).await;
    assert!(matches!(&env.message, Message::SubTaskClosed(c) if c.status == SubTaskStatus::Failed));
    outcome_of(&next(&mut r4b).await)
}

// ---------------------------------------------------------------------------------------
// The fast loop
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_failed_attempt_is_corrected_and_the_retry_that_matches_closes_the_sub_task() {
    let criteria = ["lists every .md file", "gives each file's size"];
    let script = Script::new().role(
        Role::AgentValidator,
        [
            Step::reply(verdict(
                vec![
                    judged(criteria[0], true, "[1] lists a.md and b.md", None),
                    judged(criteria[1], false, "[1] shows names only", Some("logical")),
                ],
                "sizes are missing: [1] printed names only",
                "run ls -l so each line carries the size",
            )),
            Step::reply(verdict(
                vec![
                    judged(criteria[0], true, "[1] a.md b.md", None),
                    judged(criteria[1], true, "[1] 120 and 300 bytes", None),
                ],
                "",
                "",
            )),
        ],
    );
    let rig = Rig::new(script).await;
    let mut r4b = rig.bus.subscribe(Role::MetaValidator);
    start(&rig);
    let task = TaskId::mint();
    let mut s = subtask(&task, 1, "list the markdown files", &[]);
    s.success_criteria = vec![
        Criterion::new(criteria[0]),
        Criterion::with_mode(criteria[1], CriterionMode::Plausible),
    ];
    open(&rig, &s);

    let first_calls = vec![call("shell", "ls docs", ToolCallStatus::Ok, "a.md\nb.md")];
    let env = reply(ask(
        &rig,
        result(&s, 1, ExecutionStatus::Completed, first_calls.clone()),
    ))
    .await;
    assert_eq!((env.from, env.to), (Role::AgentValidator, Role::Executor));
    let Message::CorrectionSignal(c) = &env.message else {
        panic!("expected a correction, got {:?}", env.message.kind());
    };
    assert_eq!(c.attempt_number, 1);
    assert_eq!(c.failed_criterion, criteria[1]);
    assert_eq!(c.failure_class, FailureClass::Logical);
    assert_eq!(
        c.what_was_wrong,
        "sizes are missing: [1] printed names only"
    );
    assert_eq!(c.what_to_do, "run ls -l so each line carries the size");
    assert_eq!(c.calls_to_avoid, first_calls);

    let second_calls = vec![call(
        "shell",
        "ls -l docs",
        ToolCallStatus::Ok,
        "120 a.md\n300 b.md",
    )];
    let env = reply(ask(
        &rig,
        result(&s, 2, ExecutionStatus::Completed, second_calls.clone()),
    ))
    .await;
    let Message::SubTaskClosed(closed) = &env.message else {
        panic!("expected the close, got {:?}", env.message.kind());
    };
    assert_eq!(closed.status, SubTaskStatus::Matched);
    assert_eq!(closed.output, json!("attempt 2 done"));

    let o = outcome_of(&next(&mut r4b).await);
    assert_eq!(o.status, SubTaskStatus::Matched);
    assert_eq!(o.failure_reason, None);
    assert_eq!(o.gap_trajectory.len(), 2);
    assert_eq!(o.gap_trajectory[0].score, 0.5);
    assert_eq!(
        o.gap_trajectory[0].unmet_criteria,
        vec![criteria[1].to_string()]
    );
    assert_eq!(
        o.gap_trajectory[0].failure_class,
        Some(MixedFailureClass::Logical)
    );
    assert_eq!(o.gap_trajectory[1].score, 1.0);
    assert_eq!(o.gap_trajectory[1].failure_class, None);
    assert_eq!(o.criteria_verdicts.len(), 2);
    assert_eq!(o.criteria_verdicts[1].mode, Some(CriterionMode::Plausible));
    assert!(
        o.criteria_verdicts
            .iter()
            .all(|v| v.verdict == Verdict::Pass)
    );
    assert_eq!(o.criteria_verdicts[1].evidence, "[1] 120 and 300 bytes");
    assert_eq!(o.tool_calls, [first_calls, second_calls].concat());

    // The second judgement knew it was a retry and why.
    let requests = rig.server.requests_from(Role::AgentValidator);
    assert_eq!(requests.len(), 2);
    let user = &requests[1].messages()[1].1;
    assert!(user.contains("Local time: "), "{user}");
    assert!(user.contains("ATTEMPT 2 of at most 3."), "{user}");
    assert!(user.contains("The previous attempt was corrected because: sizes are missing"));
    assert_eq!(requests[1].model(), Some(artoo::testkit::TOOL_MODEL));
    quiet(&mut r4b).await;
}

#[tokio::test]
async fn after_max_retries_corrections_the_sub_task_fails_with_its_whole_trajectory() {
    let fail = || {
        Step::reply(verdict(
            vec![judged(
                "the file is renamed",
                false,
                "[1] exit 1",
                Some("environmental"),
            )],
            "mv failed: the source is missing",
            "find the file first",
        ))
    };
    let rig = Rig::new(Script::new().role(Role::AgentValidator, [fail(), fail(), fail()])).await;
    let mut r4b = rig.bus.subscribe(Role::MetaValidator);
    start(&rig);
    let task = TaskId::mint();
    let s = subtask(&task, 1, "rename a.txt", &["the file is renamed"]);
    open(&rig, &s);

    for attempt in 1..=2 {
        let env = reply(ask(
            &rig,
            result(&s, attempt, ExecutionStatus::Completed, vec![]),
        ))
        .await;
        let Message::CorrectionSignal(c) = &env.message else {
            panic!(
                "attempt {attempt}: expected a correction, got {:?}",
                env.message.kind()
            );
        };
        assert_eq!(c.attempt_number, attempt);
        assert_eq!(c.failure_class, FailureClass::Environmental);
    }
    let env = reply(ask(&rig, result(&s, 3, ExecutionStatus::Completed, vec![]))).await;
    assert!(
        matches!(&env.message, Message::SubTaskClosed(c) if c.status == SubTaskStatus::Failed && c.output == Value::Null)
    );
    let o = outcome_of(&next(&mut r4b).await);
    assert_eq!(o.status, SubTaskStatus::Failed);
    assert_eq!(
        o.failure_reason.as_deref(),
        Some("max retries (2) reached; last issue: mv failed: the source is missing")
    );
    assert_eq!(
        o.gap_trajectory
            .iter()
            .map(|p| p.attempt)
            .collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(o.output, Value::Null);
    assert_eq!(rig.calls_from(Role::AgentValidator), 3);
}

#[tokio::test]
async fn max_retries_comes_from_the_config() {
    let fail = Step::reply(verdict(vec![judged("c", false, "none", None)], "", ""));
    let rig = Rig::with(Script::new().role(Role::AgentValidator, [fail]), |c| {
        c.budgets.max_retries = 0
    })
    .await;
    let o = fails_once(&rig).await;
    assert!(
        o.failure_reason
            .unwrap()
            .starts_with("max retries (0) reached")
    );
    // No diagnosis from the model: the code names what was unmet, and no call failed,
    // so the unmet criterion counts as logical.
    assert_eq!(
        o.criteria_verdicts[0].failure_class,
        Some(FailureClass::Logical)
    );
}

// ---------------------------------------------------------------------------------------
// Infrastructure and scoring failures
// ---------------------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn a_hanging_validator_model_fails_the_sub_task_as_infrastructure_without_retry() {
    let rig = Rig::with(
        Script::new().role(Role::AgentValidator, [Step::hang()]),
        |c| {
            c.llm.call_timeout_secs = Some(30);
        },
    )
    .await;
    let mut r4b = rig.bus.subscribe(Role::MetaValidator);
    start(&rig);
    let s = subtask(&TaskId::mint(), 1, "x", &["c"]);
    open(&rig, &s);
    let pending = ask(&rig, result(&s, 1, ExecutionStatus::Completed, vec![]));
    let env = reply_within(pending, Duration::from_secs(600)).await;
    assert!(matches!(&env.message, Message::SubTaskClosed(c) if c.status == SubTaskStatus::Failed));
    let o = outcome_of(&next(&mut r4b).await);
    let reason = o.failure_reason.unwrap();
    assert!(reason.starts_with("infrastructure error"), "{reason}");
    assert!(reason.contains("did not answer within 30s"), "{reason}");
    assert_eq!(o.gap_trajectory.len(), 1);
    assert_eq!(
        o.gap_trajectory[0].failure_class,
        Some(MixedFailureClass::Environmental)
    );
    assert_eq!(rig.calls_from(Role::AgentValidator), 1);
}

#[tokio::test]
async fn an_unparseable_verdict_after_the_reask_is_an_honest_scoring_error() {
    let rig = Rig::new(Script::new().role(
        Role::AgentValidator,
        [
            Step::reply("Looks good to me!"),
            Step::reply("I think it passed."),
        ],
    ))
    .await;
    let o = fails_once(&rig).await;
    assert!(o.failure_reason.unwrap().starts_with("scoring error: "));
    // Nothing is known about why: no class either way.
    assert_eq!(o.gap_trajectory[0].failure_class, None);
    assert_eq!(o.criteria_verdicts[0].failure_class, None);
    assert_eq!(rig.calls_from(Role::AgentValidator), 2);
}

#[tokio::test]
async fn an_unreachable_validator_endpoint_fails_at_once() {
    let rig = Rig::with(Script::new(), |c| {
        c.llm.tool.base_url = Some("http://127.0.0.1:9/v1".into());
        c.llm.max_attempts = 1;
    })
    .await;
    let o = fails_once(&rig).await;
    assert!(
        o.failure_reason
            .unwrap()
            .contains("cannot reach the model endpoint")
    );
    assert_eq!(
        o.criteria_verdicts[0].failure_class,
        Some(FailureClass::Environmental)
    );
}

#[tokio::test(start_paused = true)]
async fn a_silent_executor_is_closed_after_the_attempt_timeout() {
    let rig = Rig::new(Script::new()).await;
    let mut r4b = rig.bus.subscribe(Role::MetaValidator);
    rig.agent_validator()
        .with_attempt_timeout(Duration::from_secs(90))
        .spawn();
    let s = subtask(&TaskId::mint(), 1, "x", &["c"]);
    open(&rig, &s);
    // Subscribed after the sub-task was released, so it reads only what R4a says.
    let mut r3 = rig.bus.subscribe(Role::Executor);
    let started = tokio::time::Instant::now();
    let o = outcome_of(&next_within(&mut r4b, Duration::from_secs(600)).await);
    assert!(started.elapsed() >= Duration::from_secs(90));
    assert_eq!(
        o.failure_reason.as_deref(),
        Some("the executor sent no result for attempt 1 within 90s")
    );
    assert_eq!(
        o.criteria_verdicts[0].failure_class,
        Some(FailureClass::Environmental)
    );
    // The executor side is told even though it asked nothing.
    let env = next(&mut r3).await;
    assert!(matches!(&env.message, Message::SubTaskClosed(c) if c.subtask_id == s.subtask_id));
    assert_eq!(env.in_reply_to, None);
    // A late result gets the same answer instead of a second judgement.
    let env = reply(ask(&rig, result(&s, 1, ExecutionStatus::Completed, vec![]))).await;
    assert!(matches!(&env.message, Message::SubTaskClosed(c) if c.status == SubTaskStatus::Failed));
    assert_eq!(rig.calls_from(Role::AgentValidator), 0);
}

#[tokio::test]
async fn a_result_for_a_sub_task_never_opened_fails_honestly() {
    let rig = Rig::new(Script::new()).await;
    let mut r4b = rig.bus.subscribe(Role::MetaValidator);
    start(&rig);
    let s = subtask(&TaskId::mint(), 1, "x", &["c"]);
    let env = reply(ask(&rig, result(&s, 1, ExecutionStatus::Completed, vec![]))).await;
    assert!(matches!(&env.message, Message::SubTaskClosed(c) if c.status == SubTaskStatus::Failed));
    let o = outcome_of(&next(&mut r4b).await);
    assert!(
        o.failure_reason
            .unwrap()
            .contains("never received this sub-task")
    );
    assert_eq!(rig.calls_from(Role::AgentValidator), 0);
}

#[tokio::test]
async fn a_cancelled_task_gets_no_verdict_and_its_model_call_stops() {
    let rig = Rig::new(Script::new().role(Role::AgentValidator, [Step::hang()])).await;
    let mut r4b = rig.bus.subscribe(Role::MetaValidator);
    let mut observer_tap = rig.bus.tap("calls", 64);
    start(&rig);
    let task = TaskId::mint();
    let s = subtask(&task, 1, "x", &["c"]);
    open(&rig, &s);
    let pending = ask(&rig, result(&s, 1, ExecutionStatus::Completed, vec![]));
    rig.server.wait_for_requests(1).await;
    rig.cancel(&task);
    assert!(matches!(
        next(&mut r4b).await.message,
        Message::TaskClosed(_)
    ));
    quiet(&mut r4b).await;
    assert!(
        tokio::time::timeout(Duration::from_millis(200), pending)
            .await
            .is_err()
    );
    // A result arriving after the cancel is not judged either.
    let late = ask(&rig, result(&s, 2, ExecutionStatus::Completed, vec![]));
    assert!(
        tokio::time::timeout(Duration::from_millis(300), late)
            .await
            .is_err()
    );
    assert_eq!(rig.calls_from(Role::AgentValidator), 1);
    // The aborted call left no outcome on the bus.
    while let Some(event) = observer_tap.try_recv() {
        if let artoo::bus::TapEvent::Message(env) = event {
            assert!(!matches!(env.message, Message::SubTaskOutcome(_)));
        }
    }
}

// ---------------------------------------------------------------------------------------
// The evidence-grounding corpus, scripted
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn the_evidence_grounding_corpus_is_judged_as_the_rules_say() {
    let corpus = corpus();
    assert!(corpus.cases.len() >= 10);
    for case in &corpus.cases {
        let steps: Vec<Step> = case
            .scripted_replies()
            .into_iter()
            .map(Step::reply)
            .collect();
        let rig = Rig::new(Script::new().role(Role::AgentValidator, steps)).await;
        let mut r4b = rig.bus.subscribe(Role::MetaValidator);
        start(&rig);
        let task = TaskId::mint();
        let criteria: Vec<&str> = case.criteria.iter().map(String::as_str).collect();
        let s = subtask(&task, 1, &case.intent, &criteria);
        open(&rig, &s);
        let r = ExecutionResult {
            subtask_id: s.subtask_id,
            parent_task_id: task.clone(),
            status: case.status,
            output: case.output.clone(),
            tool_calls: case.tool_calls.clone(),
            attempt: 1,
            interrupted: case.interrupted,
        };
        let env = reply(ask(&rig, r)).await;
        let name = &case.name;
        assert_eq!(
            rig.calls_from(Role::AgentValidator),
            case.expect.model_calls,
            "{name}"
        );
        match case.expect.then.as_str() {
            "correction" => {
                let Message::CorrectionSignal(c) = &env.message else {
                    panic!(
                        "{name}: expected a correction, got {:?}",
                        env.message.kind()
                    );
                };
                assert_eq!(Some(c.failure_class), case.expect.class, "{name}");
                assert_eq!(c.calls_to_avoid.len(), case.tool_calls.len(), "{name}");
            }
            then => {
                let Message::SubTaskClosed(closed) = &env.message else {
                    panic!("{name}: expected a close, got {:?}", env.message.kind());
                };
                let o = outcome_of(&next(&mut r4b).await);
                let want = if then == "matched" {
                    SubTaskStatus::Matched
                } else {
                    SubTaskStatus::Failed
                };
                assert_eq!(closed.status, want, "{name}");
                assert_eq!(o.status, want, "{name}");
                assert_eq!(o.tool_calls, case.tool_calls, "{name}");
                if let Some(class) = case.expect.class {
                    assert!(
                        o.criteria_verdicts
                            .iter()
                            .all(|v| v.failure_class == Some(class)),
                        "{name}: {:?}",
                        o.criteria_verdicts
                    );
                    assert_eq!(
                        o.gap_trajectory[0].failure_class,
                        Some(class.into()),
                        "{name}"
                    );
                }
                if let Some(text) = &case.expect.reason_contains {
                    let reason = o.failure_reason.clone().unwrap_or_default();
                    assert!(reason.contains(text), "{name}: {reason}");
                }
            }
        }
        if !case.expect.prompt_contains.is_empty() {
            let request = &rig.server.requests_from(Role::AgentValidator)[0];
            let user = &request.messages()[1].1;
            for text in &case.expect.prompt_contains {
                assert!(
                    user.contains(text.as_str()),
                    "{name}: {text:?} not in\n{user}"
                );
            }
        }
    }
}

#[test]
fn the_system_prompt_states_the_evidence_rules() {
    let head = artoo::roles::preamble::preamble();
    let prompt = artoo::roles::agent_validator::system_prompt(&head);
    for rule in [
        "TOOL CALLS are the ground truth",
        "What a call printed is what it shows",
        "only a claim",
        "does not prove",
        "An empty result is an answer",
        "the user did not allow the action (Law 1)",
        "0. Never deceive",
    ] {
        assert!(prompt.contains(rule), "{rule:?} missing");
    }
}
