//! The dispatcher over a real bus with the real R4a (its model scripted over real HTTP):
//! a test R3 consumes `Role::Executor` sub-tasks and asks R4a for verdicts; the dispatcher
//! hears each close R4a sends on the bus. The test watches R4b's inbox.
//!
//! This module also holds the rig the R4a and R4b tests share.

use artoo::tools::ToolRef;
use std::sync::Arc;
use std::time::Duration;

use artoo::bus::{Bus, Envelope, Inbox};
use artoo::config::Config;
use artoo::contracts::*;
use artoo::lifecycle::Registry;
use artoo::llm::Llm;
use artoo::roles::agent_validator::AgentValidator;
use artoo::roles::dispatcher::{Dispatcher, PRIOR_OUTPUTS_HEADING};
use artoo::roles::meta_validator::MetaValidator;
use artoo::testkit::{Script, ScriptedServer, Step, llm_config};
use artoo::{FakeClock, SharedClock};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

// ---------------------------------------------------------------------------------------
// The shared rig
// ---------------------------------------------------------------------------------------

/// A bus, a fake clock, the scripted model server and a config pointing at it.
pub struct Rig {
    pub server: ScriptedServer,
    pub bus: Bus,
    pub clock: Arc<FakeClock>,
    pub config: Config,
    pub llm: Llm,
    pub registry: Registry,
    _dir: tempfile::TempDir,
}

impl Rig {
    pub async fn new(script: Script) -> Rig {
        Self::with(script, |_| {}).await
    }

    pub async fn with(script: Script, tweak: impl FnOnce(&mut Config)) -> Rig {
        let server = ScriptedServer::start(script).await.expect("server starts");
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = Config::with_dirs(dir.path().join("data"), dir.path().join("work"));
        config.llm = llm_config(&server.base_url());
        tweak(&mut config);
        let clock = FakeClock::at_epoch();
        let shared: SharedClock = clock.clone();
        let llm = Llm::new(&config.llm, shared.clone()).expect("both tiers configured");
        Rig {
            server,
            bus: Bus::new(shared),
            clock,
            config,
            llm,
            registry: Registry::new(CancellationToken::new(), 4096),
            _dir: dir,
        }
    }

    fn shared_clock(&self) -> SharedClock {
        self.clock.clone()
    }

    pub fn agent_validator(&self) -> AgentValidator {
        AgentValidator::new(
            &self.config,
            &self.bus,
            &self.llm,
            self.registry.clone(),
            self.shared_clock(),
        )
    }

    pub fn meta_validator(&self) -> MetaValidator {
        MetaValidator::new(
            &self.config,
            &self.bus,
            &self.llm,
            self.registry.clone(),
            self.shared_clock(),
        )
    }

    pub fn dispatcher(&self) -> Dispatcher {
        Dispatcher::new(&self.bus, self.registry.clone())
    }

    /// Cancels a task the way the runtime does: token first, then the broadcast.
    pub fn cancel(&self, task: &TaskId) {
        self.registry.close(task, true);
        self.bus.handle(Role::User).publish(
            Role::All,
            TaskClosed::cancelled(task.clone(), "the user pressed Ctrl+C"),
        );
    }

    /// Requests the scripted server got from `role`.
    pub fn calls_from(&self, role: Role) -> usize {
        self.server.requests_from(role).len()
    }
}

/// The next message in `inbox`, failing the test after 20 s.
pub async fn next(inbox: &mut Inbox) -> Arc<Envelope> {
    next_within(inbox, Duration::from_secs(20)).await
}

/// The next message in `inbox`, failing the test after `limit` (paused-time tests wait
/// longer than the timeout they exercise).
pub async fn next_within(inbox: &mut Inbox, limit: Duration) -> Arc<Envelope> {
    tokio::time::timeout(limit, inbox.recv())
        .await
        .expect("a message arrives in time")
        .expect("the bus is open")
}

/// Asserts that nothing arrives in `inbox` for a while (the roles had time to act).
pub async fn quiet(inbox: &mut Inbox) {
    tokio::time::sleep(Duration::from_millis(300)).await;
    if let Some(env) = inbox.try_recv() {
        panic!("unexpected {:?} from {}", env.message.kind(), env.from);
    }
}

pub fn subtask(task: &TaskId, sequence: i64, intent: &str, criteria: &[&str]) -> SubTask {
    SubTask {
        subtask_id: SubTaskId::mint(),
        parent_task_id: task.clone(),
        intent: intent.into(),
        context: format!("Context of {intent}."),
        success_criteria: criteria.iter().map(|c| Criterion::new(*c)).collect(),
        sequence,
        deadline: None,
        blocked_tools: vec![],
        blocked_targets: vec![],
        confirm_tools: vec![],
        answer: Default::default(),
        request: None,
    }
}

pub fn manifest(
    task: &TaskId,
    round: u32,
    subtasks: &[&SubTask],
    criteria: &[&str],
) -> DispatchManifest {
    DispatchManifest {
        task_id: task.clone(),
        subtasks: subtasks.iter().map(|s| (*s).clone()).collect(),
        task_spec: Some(TaskSpec {
            task_id: task.clone(),
            intent: "tidy the reports folder".into(),
            constraints: Constraints::default(),
            raw_input: "tidy up my reports folder please".into(),
            answer: Default::default(),
        }),
        dispatched_at: chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .expect("constant")
            .with_timezone(&chrono::Utc),
        task_criteria: criteria.iter().map(|c| Criterion::new(*c)).collect(),
        round,
    }
}

pub fn call(tool: &str, target: &str, status: ToolCallStatus, output: &str) -> ToolCallRecord {
    ToolCallRecord {
        tool: ToolRef::parse(tool),
        input: json!({ "command": target }),
        target: target.into(),
        output_head: output.into(),
        status,
        error: None,
        duration_ms: 7,
        confirmation: None,
        failure: None,
        failed_exit: None,
        effects: Vec::new(),
        grant: None,
    }
}

/// One criterion's verdict in R4a's (and R4b's) reply format.
pub fn judged(criterion: &str, met: bool, evidence: &str, cause: Option<&str>) -> Value {
    json!({
        "criterion": criterion,
        "evidence": evidence,
        "met": met,
        "unmet_cause": cause,
    })
}

/// R4a's reply.
pub fn verdict(criteria: Vec<Value>, diagnosis: &str, remedy: &str) -> String {
    json!({"criteria": criteria, "diagnosis": diagnosis, "remedy": remedy}).to_string()
}

/// A passing R4a reply for one criterion, answered only to the sub-task `intent`.
pub fn pass_for(intent: &str, criterion: &str) -> Step {
    Step::reply(verdict(
        vec![judged(criterion, true, "[1] shows it", None)],
        "",
        "",
    ))
    .when(format!("SUB-TASK: {intent}"))
}

/// A failing R4a reply for one criterion, answered only to the sub-task `intent`.
pub fn fail_for(intent: &str, criterion: &str) -> Step {
    Step::reply(verdict(
        vec![judged(
            criterion,
            false,
            "[1] printed nothing",
            Some("logical"),
        )],
        "the listing was empty",
        "list the folder recursively",
    ))
    .when(format!("SUB-TASK: {intent}"))
}

/// What the test R3 saw.
#[derive(Debug)]
pub enum R3Event {
    Received(SubTask),
    Corrected(CorrectionSignal),
    Closed(SubTaskClosed),
}

/// How the test R3 answers one attempt: (status, output).
pub type Behaviour = Arc<dyn Fn(&SubTask, u32) -> (ExecutionStatus, String) + Send + Sync>;

/// A test R3: every sub-task it receives is "executed" by `behave` (one ok shell call
/// whose output is the claimed output) and sent to R4a as a request until R4a closes it;
/// the dispatcher hears that close on the bus.
pub fn spawn_test_executor(bus: &Bus, behave: Behaviour) -> mpsc::UnboundedReceiver<R3Event> {
    let mut inbox = bus.subscribe(Role::Executor);
    let handle = bus.handle(Role::Executor);
    let (events, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(env) = inbox.recv().await {
            let Message::SubTask(subtask) = &env.message else {
                continue;
            };
            let subtask = subtask.clone();
            let _ = events.send(R3Event::Received(subtask.clone()));
            let (handle, behave, events) = (handle.clone(), behave.clone(), events.clone());
            tokio::spawn(async move {
                let mut attempt = 1;
                loop {
                    let (status, output) = behave(&subtask, attempt);
                    let result = ExecutionResult {
                        subtask_id: subtask.subtask_id,
                        parent_task_id: subtask.parent_task_id.clone(),
                        status,
                        output: output.clone(),
                        tool_calls: vec![call("shell", "ls reports", ToolCallStatus::Ok, &output)],
                        attempt,
                        interrupted: None,
                    };
                    let Ok(reply) = handle.request(Role::AgentValidator, result).await else {
                        return;
                    };
                    match &reply.message {
                        Message::CorrectionSignal(c) => {
                            let _ = events.send(R3Event::Corrected(c.clone()));
                            attempt += 1;
                        }
                        Message::SubTaskClosed(c) => {
                            let _ = events.send(R3Event::Closed(c.clone()));
                            return;
                        }
                        other => panic!("unexpected reply {:?}", other.kind()),
                    }
                }
            });
        }
    });
    rx
}

/// The next envelope R4b gets other than a manifest it hears from R2.
pub async fn r4b_next(inbox: &mut Inbox) -> Arc<Envelope> {
    loop {
        let env = next(inbox).await;
        if !matches!(env.message, Message::DispatchManifest(_)) {
            return env;
        }
    }
}

/// The next `n` outcomes and halts R4b gets (the manifests it hears from R2 skipped).
async fn r4b_messages(inbox: &mut Inbox, n: usize) -> Vec<Arc<Envelope>> {
    let mut got = Vec::new();
    while got.len() < n {
        got.push(r4b_next(inbox).await);
    }
    got
}

fn released(events: &mut mpsc::UnboundedReceiver<R3Event>) -> Vec<SubTask> {
    let mut out = Vec::new();
    while let Ok(e) = events.try_recv() {
        if let R3Event::Received(s) = e {
            out.push(s);
        }
    }
    out
}

async fn next_release(events: &mut mpsc::UnboundedReceiver<R3Event>) -> SubTask {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), events.recv())
            .await
            .expect("R3 gets a sub-task in time")
            .expect("R3 runs");
        if let R3Event::Received(s) = event {
            return s;
        }
    }
}

fn planner(rig: &Rig) -> artoo::bus::BusHandle {
    rig.bus.handle(Role::Planner)
}

/// Publishes a plan the way R2 does: one manifest, its sub-tasks inside.
fn publish_plan(rig: &Rig, m: &DispatchManifest) {
    planner(rig).publish(Role::Dispatcher, m.clone());
}

fn echo_intent() -> Behaviour {
    Arc::new(|s: &SubTask, _| {
        (
            ExecutionStatus::Completed,
            format!("output of {}", s.intent),
        )
    })
}

/// R4a's model request about the sub-task `intent`.
fn r4a_request_for(rig: &Rig, intent: &str) -> artoo::testkit::RecordedRequest {
    let marker = format!("SUB-TASK: {intent}");
    rig.server
        .requests_from(Role::AgentValidator)
        .into_iter()
        .find(|r| r.messages().iter().any(|(_, c)| c.contains(&marker)))
        .unwrap_or_else(|| panic!("R4a judged {intent}"))
}

/// The dispatcher, the real R4a and a test R3 on `rig`'s bus, with R4b's inbox.
fn effectors(rig: &Rig, behave: Behaviour) -> (Inbox, mpsc::UnboundedReceiver<R3Event>) {
    let r4b = rig.bus.subscribe(Role::MetaValidator);
    let dispatcher = rig.dispatcher();
    let r3 = spawn_test_executor(&rig.bus, behave);
    dispatcher.spawn();
    rig.agent_validator().spawn();
    (r4b, r3)
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn groups_run_in_order_and_a_dependent_group_sees_the_parallel_groups_outputs() {
    let script = Script::new().role(
        Role::AgentValidator,
        [
            pass_for("alpha", "lists the reports"),
            pass_for("beta", "counts the pages"),
            pass_for("gamma", "writes the summary"),
        ],
    );
    let rig = Rig::new(script).await;
    let (mut r4b, mut r3) = effectors(&rig, echo_intent());

    let task = TaskId::mint();
    let a = subtask(&task, 1, "alpha", &["lists the reports"]);
    let b = subtask(&task, 1, "beta", &["counts the pages"]);
    let c = subtask(&task, 2, "gamma", &["writes the summary"]);
    publish_plan(&rig, &manifest(&task, 0, &[&a, &b, &c], &[]));

    // Both sub-tasks of group 1 are released together, before anything of group 2.
    let first = next_release(&mut r3).await;
    let second = next_release(&mut r3).await;
    let mut group1 = vec![first.intent.clone(), second.intent.clone()];
    group1.sort();
    assert_eq!(group1, ["alpha", "beta"]);
    assert_eq!(first.context, format!("Context of {}.", first.intent));

    let third = next_release(&mut r3).await;
    assert_eq!(third.subtask_id, c.subtask_id);
    assert!(
        third.context.starts_with("Context of gamma.\n\n"),
        "{}",
        third.context
    );
    assert!(third.context.contains(PRIOR_OUTPUTS_HEADING));
    assert!(
        third.context.contains("[step 1 · alpha]\noutput of alpha"),
        "{}",
        third.context
    );
    assert!(
        third.context.contains("[step 1 · beta]\noutput of beta"),
        "{}",
        third.context
    );

    // R4b sees the three matched outcomes and no halt.
    let msgs = r4b_messages(&mut r4b, 3).await;
    for env in &msgs {
        let Message::SubTaskOutcome(o) = &env.message else {
            panic!("unexpected {:?}", env.message.kind());
        };
        assert_eq!(o.status, SubTaskStatus::Matched);
    }
    // R4a judged the injected context it got from the dispatcher (its copy is R3's).
    let gamma_request = r4a_request_for(&rig, "gamma");
    assert!(
        gamma_request
            .messages()
            .iter()
            .any(|(_, c)| c.contains("output of alpha") && c.contains("output of beta"))
    );
    quiet(&mut r4b).await;
    assert!(released(&mut r3).is_empty());
}

#[tokio::test]
async fn negative_and_gapped_sequences_run_in_ascending_order() {
    let script = Script::new().role(
        Role::AgentValidator,
        [
            pass_for("late", "ok"),
            pass_for("first", "ok"),
            pass_for("middle", "ok"),
        ],
    );
    let rig = Rig::new(script).await;
    let (mut r4b, mut r3) = effectors(&rig, echo_intent());

    let task = TaskId::mint();
    let late = subtask(&task, 42, "late", &["ok"]);
    let first = subtask(&task, -5, "first", &["ok"]);
    let middle = subtask(&task, 0, "middle", &["ok"]);
    publish_plan(&rig, &manifest(&task, 0, &[&late, &first, &middle], &[]));

    let order: Vec<String> = [
        next_release(&mut r3).await,
        next_release(&mut r3).await,
        next_release(&mut r3).await,
    ]
    .iter()
    .map(|s| s.intent.clone())
    .collect();
    assert_eq!(order, ["first", "middle", "late"]);
    let msgs = r4b_messages(&mut r4b, 3).await;
    assert!(msgs.iter().all(
        |e| matches!(&e.message, Message::SubTaskOutcome(o) if o.status == SubTaskStatus::Matched)
    ));
}

#[tokio::test]
async fn a_failed_group_stops_later_groups_and_tells_r4b_what_was_not_run() {
    let rig = Rig::with(Script::new(), |c| c.budgets.max_retries = 0).await;
    rig.server.push(
        Role::AgentValidator,
        [pass_for("alpha", "ok"), fail_for("beta", "ok")],
    );
    let (mut r4b, mut r3) = effectors(&rig, echo_intent());

    let task = TaskId::mint();
    let a = subtask(&task, 1, "alpha", &["ok"]);
    let b = subtask(&task, 1, "beta", &["ok"]);
    let c = subtask(&task, 2, "gamma", &["ok"]);
    let d = subtask(&task, 3, "delta", &["ok"]);
    publish_plan(&rig, &manifest(&task, 0, &[&a, &b, &c, &d], &[]));

    let msgs = r4b_messages(&mut r4b, 3).await;
    let halted = msgs
        .iter()
        .find_map(|e| match &e.message {
            Message::DispatchHalted(h) => Some((e.from, h.clone())),
            _ => None,
        })
        .expect("the dispatcher halts the plan");
    assert_eq!(halted.0, Role::Dispatcher);
    assert_eq!(halted.1.skipped, vec![c.subtask_id, d.subtask_id]);
    // With their criteria, so R4b can tell GGS what was never shown to pass.
    let unrun: Vec<(SubTaskId, Vec<Criterion>)> = halted
        .1
        .unrun
        .iter()
        .map(|u| (u.subtask_id, u.success_criteria.clone()))
        .collect();
    assert_eq!(
        unrun,
        vec![
            (c.subtask_id, c.success_criteria.clone()),
            (d.subtask_id, d.success_criteria.clone())
        ]
    );
    assert!(
        halted.1.reason.contains("sequence group 1 failed"),
        "{}",
        halted.1.reason
    );
    // The halt comes after both outcomes of the failed group.
    assert!(matches!(msgs[2].message, Message::DispatchHalted(_)));

    let intents: Vec<String> = released(&mut r3).into_iter().map(|s| s.intent).collect();
    assert_eq!(intents.len(), 2, "{intents:?}");
    assert!(!intents.contains(&"gamma".to_string()));
    quiet(&mut r4b).await;
    rig.server.wait_for_requests(2).await;
    assert_eq!(rig.calls_from(Role::AgentValidator), 2);
}

#[tokio::test]
async fn a_replan_supersedes_the_groups_the_old_round_had_not_released() {
    let script = Script::new().role(Role::AgentValidator, [pass_for("fresh", "ok")]);
    let rig = Rig::new(script).await;
    let dispatcher = rig.dispatcher();
    let mut r3 = rig.bus.subscribe(Role::Executor);
    dispatcher.spawn();

    let task = TaskId::mint();
    let old1 = subtask(&task, 1, "old first", &["ok"]);
    let old2 = subtask(&task, 2, "old second", &["ok"]);
    publish_plan(&rig, &manifest(&task, 0, &[&old1, &old2], &[]));
    let got = next(&mut r3).await;
    assert!(matches!(&got.message, Message::SubTask(s) if s.subtask_id == old1.subtask_id));

    // A new round arrives while the old first group is still running.
    let fresh = subtask(&task, 1, "fresh", &["ok"]);
    publish_plan(&rig, &manifest(&task, 1, &[&fresh], &[]));
    let got = next(&mut r3).await;
    assert!(matches!(&got.message, Message::SubTask(s) if s.subtask_id == fresh.subtask_id));

    // The old group's late end releases nothing of the old plan.
    rig.bus.handle(Role::Executor).publish(
        Role::Dispatcher,
        SubTaskClosed {
            subtask_id: old1.subtask_id,
            parent_task_id: task.clone(),
            status: SubTaskStatus::Matched,
            output: json!("old"),
        },
    );
    quiet(&mut r3).await;
}

#[tokio::test]
async fn a_stale_manifest_of_an_earlier_round_is_ignored() {
    let rig = Rig::new(Script::new()).await;
    let dispatcher = rig.dispatcher();
    let mut r3 = rig.bus.subscribe(Role::Executor);
    dispatcher.spawn();
    let task = TaskId::mint();
    let newer = subtask(&task, 1, "newer", &["ok"]);
    publish_plan(&rig, &manifest(&task, 2, &[&newer], &[]));
    next(&mut r3).await;
    let older = subtask(&task, 1, "older", &["ok"]);
    publish_plan(&rig, &manifest(&task, 1, &[&older], &[]));
    quiet(&mut r3).await;
}

#[tokio::test]
async fn a_cancelled_task_releases_nothing_more() {
    let rig = Rig::new(Script::new().role(Role::AgentValidator, [Step::hang()])).await;
    let mut r4b = rig.bus.subscribe(Role::MetaValidator);
    let dispatcher = rig.dispatcher();
    let mut r3 = rig.bus.subscribe(Role::Executor);
    dispatcher.spawn();
    rig.agent_validator().spawn();

    let task = TaskId::mint();
    let a = subtask(&task, 1, "alpha", &["ok"]);
    let b = subtask(&task, 2, "beta", &["ok"]);
    publish_plan(&rig, &manifest(&task, 0, &[&a, &b], &[]));
    let got = next(&mut r3).await;
    assert!(matches!(&got.message, Message::SubTask(s) if s.subtask_id == a.subtask_id));

    // R3 hands its result to R4a, whose model call hangs; then the user cancels.
    let pending = rig.bus.handle(Role::Executor).request(
        Role::AgentValidator,
        ExecutionResult {
            subtask_id: a.subtask_id,
            parent_task_id: task.clone(),
            status: ExecutionStatus::Completed,
            output: "done".into(),
            tool_calls: vec![call("shell", "ls", ToolCallStatus::Ok, "a")],
            attempt: 1,
            interrupted: None,
        },
    );
    rig.server.wait_for_requests(1).await;
    rig.cancel(&task);
    // Even if the executor side reports the sub-task's end, group 2 never starts.
    rig.bus.handle(Role::Executor).publish(
        Role::Dispatcher,
        SubTaskClosed {
            subtask_id: a.subtask_id,
            parent_task_id: task.clone(),
            status: SubTaskStatus::Matched,
            output: json!("done"),
        },
    );
    let cancelled = next(&mut r3).await;
    assert!(matches!(cancelled.message, Message::TaskClosed(_)));
    quiet(&mut r3).await;
    // R4a published nothing for the cancelled task and never answered.
    let cancelled = r4b_next(&mut r4b).await;
    assert!(matches!(cancelled.message, Message::TaskClosed(_)));
    quiet(&mut r4b).await;
    assert!(
        tokio::time::timeout(Duration::from_millis(200), pending)
            .await
            .is_err(),
        "R4a must not answer a cancelled task"
    );
}

#[tokio::test]
async fn a_fast_loop_correction_runs_inside_a_group_before_the_next_group_starts() {
    let script = Script::new().role(
        Role::AgentValidator,
        [
            fail_for("alpha", "ok"),
            pass_for("alpha", "ok"),
            pass_for("beta", "ok"),
        ],
    );
    let rig = Rig::new(script).await;
    let (mut r4b, mut r3) = effectors(
        &rig,
        Arc::new(|s: &SubTask, attempt| {
            (
                ExecutionStatus::Completed,
                format!("{} try {attempt}", s.intent),
            )
        }),
    );

    let task = TaskId::mint();
    let a = subtask(&task, 1, "alpha", &["ok"]);
    let b = subtask(&task, 2, "beta", &["ok"]);
    publish_plan(&rig, &manifest(&task, 0, &[&a, &b], &[]));

    let mut seen = Vec::new();
    while seen.len() < 4 {
        let e = tokio::time::timeout(Duration::from_secs(20), r3.recv())
            .await
            .expect("in time")
            .expect("open");
        seen.push(match e {
            R3Event::Received(s) => format!("received {}", s.intent),
            R3Event::Corrected(c) => format!("corrected attempt {}", c.attempt_number),
            R3Event::Closed(c) => format!("closed {:?}", c.status),
        });
    }
    assert_eq!(
        seen,
        [
            "received alpha",
            "corrected attempt 1",
            "closed Matched",
            "received beta"
        ]
    );
    let msgs = r4b_messages(&mut r4b, 2).await;
    let Message::SubTaskOutcome(o) = &msgs[0].message else {
        panic!("outcome expected");
    };
    assert_eq!(o.gap_trajectory.len(), 2);
    let next_beta = r4a_request_for(&rig, "beta");
    // Only the validated (second) output reaches the next group.
    assert!(
        next_beta
            .messages()
            .iter()
            .any(|(_, c)| c.contains("alpha try 2") && !c.contains("alpha try 1"))
    );
}
