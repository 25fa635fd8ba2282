//! R4a and R4b with their real prompts and schemas against a real model, run as roles on
//! a real bus: the evidence-grounding corpus for R4a (the cases that need a model) and a
//! merge for R4b. A small model is allowed to judge differently from the corpus; it is
//! not allowed to leave a sub-task or a round without an answer, and its replies must
//! parse into the roles' types.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use artoo::bus::{Bus, Envelope, Inbox};
use artoo::config::Config;
use artoo::contracts::*;
use artoo::lifecycle::Registry;
use artoo::roles::agent_validator::AgentValidator;
use artoo::roles::meta_validator::MetaValidator;
use artoo::{SharedClock, SystemClock};
use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[derive(Deserialize)]
struct Corpus {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct GoodVerdict {
    met: bool,
}

#[derive(Deserialize)]
struct Expect {
    model_calls: usize,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    intent: String,
    criteria: Vec<String>,
    status: ExecutionStatus,
    output: String,
    tool_calls: Vec<ToolCallRecord>,
    /// Set when the environment, not the model, ended R3's attempt.
    #[serde(default)]
    interrupted: Option<artoo::contracts::Interruption>,
    #[serde(default)]
    good_verdict: Vec<GoodVerdict>,
    #[serde(default)]
    replies: Vec<String>,
    expect: Expect,
}

fn corpus() -> Corpus {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/validators/evidence_corpus.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("corpus")).expect("corpus parses")
}

struct Roles {
    bus: Bus,
    config: Config,
    llm: artoo::llm::Llm,
    registry: Registry,
    clock: SharedClock,
    _dir: tempfile::TempDir,
}

fn roles() -> Roles {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::with_dirs(dir.path().join("data"), dir.path().join("work"));
    let llm = super::llm();
    config.llm.call_timeout_secs = Some(180);
    let clock = SystemClock::shared();
    Roles {
        bus: Bus::new(clock.clone()),
        config,
        llm,
        registry: Registry::new(CancellationToken::new(), 4096),
        clock,
        _dir: dir,
    }
}

impl Roles {
    fn agent_validator(&self) -> AgentValidator {
        AgentValidator::new(
            &self.config,
            &self.bus,
            &self.llm,
            self.registry.clone(),
            self.clock.clone(),
        )
    }

    fn meta_validator(&self) -> MetaValidator {
        MetaValidator::new(
            &self.config,
            &self.bus,
            &self.llm,
            self.registry.clone(),
            self.clock.clone(),
        )
    }
}

async fn next(inbox: &mut Inbox) -> Arc<Envelope> {
    tokio::time::timeout(Duration::from_secs(600), inbox.recv())
        .await
        .expect("an answer within the bound")
        .expect("bus open")
}

#[tokio::test]
async fn the_agent_validator_answers_every_corpus_case_with_a_parsed_verdict() {
    let r = roles();
    let mut r4b = r.bus.subscribe(Role::MetaValidator);
    let mut calls = r.bus.tap("r4a-calls", 256);
    r.agent_validator().spawn();
    let cases: Vec<Case> = corpus()
        .cases
        .into_iter()
        .filter(|c| c.expect.model_calls > 0 && c.replies.is_empty())
        .collect();
    assert!(cases.len() >= 6);
    let (mut agree, mut judged) = (0, 0);
    for case in &cases {
        let task = TaskId::mint();
        let subtask = SubTask {
            subtask_id: SubTaskId::mint(),
            parent_task_id: task.clone(),
            intent: case.intent.clone(),
            context: String::new(),
            success_criteria: case.criteria.iter().map(Criterion::new).collect(),
            sequence: 1,
            deadline: None,
            blocked_tools: vec![],
            blocked_targets: vec![],
            confirm_tools: vec![],
            answer: Default::default(),
            request: None,
        };
        // Released to R3 as the dispatcher does; R4a hears it first.
        r.bus
            .handle(Role::Dispatcher)
            .publish(Role::Executor, subtask.clone());
        let reply = r.bus.handle(Role::Executor).request(
            Role::AgentValidator,
            ExecutionResult {
                subtask_id: subtask.subtask_id,
                parent_task_id: task.clone(),
                status: case.status,
                output: case.output.clone(),
                tool_calls: case.tool_calls.clone(),
                attempt: 1,
                interrupted: case.interrupted,
            },
        );
        let reply = tokio::time::timeout(Duration::from_secs(600), reply)
            .await
            .expect("R4a answers within the bound")
            .expect("bus open");
        let met = match &reply.message {
            Message::CorrectionSignal(c) => {
                println!(
                    "{}: correction — {} / {}",
                    case.name, c.what_was_wrong, c.what_to_do
                );
                false
            }
            Message::SubTaskClosed(closed) => {
                let o = match &next(&mut r4b).await.message {
                    Message::SubTaskOutcome(o) => o.clone(),
                    other => panic!("expected an outcome, got {:?}", other.kind()),
                };
                let reason = o.failure_reason.clone().unwrap_or_default();
                println!("{}: {:?} {}", case.name, closed.status, reason);
                if reason.starts_with("scoring error") {
                    while let Some(artoo::bus::TapEvent::Message(env)) = calls.try_recv() {
                        if let Message::LlmCall(call) = &env.message {
                            println!("--- model reply:\n{}", call.response);
                        }
                    }
                }
                assert!(
                    !reason.starts_with("scoring error"),
                    "{}: the real model's verdict did not parse: {reason}",
                    case.name
                );
                closed.status == SubTaskStatus::Matched
            }
            other => panic!("unexpected reply {:?}", other.kind()),
        };
        judged += 1;
        if met == case.good_verdict.iter().all(|v| v.met) {
            agree += 1;
        }
    }
    println!("R4a agreed with the corpus on {agree} of {judged} cases");
    assert_eq!(judged, cases.len());
}

#[tokio::test]
async fn the_meta_validator_merges_matched_outputs_into_a_parsed_judgement() {
    let r = roles();
    let mut ggs = r.bus.subscribe(Role::Ggs);
    r.meta_validator().spawn();
    let task = TaskId::mint();
    let ids = [SubTaskId::mint(), SubTaskId::mint()];
    // Sent to the dispatcher as R2 does; R4b hears it.
    r.bus.handle(Role::Planner).publish(
        Role::Dispatcher,
        DispatchManifest {
            task_id: task.clone(),
            subtasks: ids
                .iter()
                .zip(["List the PDF files in /tmp/reports", "Sum their sizes"])
                .map(|(id, intent)| SubTask {
                    subtask_id: *id,
                    parent_task_id: task.clone(),
                    intent: intent.into(),
                    context: String::new(),
                    success_criteria: vec![],
                    sequence: 1,
                    deadline: None,
                    blocked_tools: vec![],
                    blocked_targets: vec![],
                    confirm_tools: vec![],
                    answer: Default::default(),
                    request: None,
                })
                .collect(),
            task_spec: Some(TaskSpec {
                task_id: task.clone(),
                intent: "List the PDF files in /tmp/reports and their total size".into(),
                constraints: Constraints::default(),
                raw_input: "which PDFs are in /tmp/reports and how big are they together?".into(),
                answer: Default::default(),
            }),
            dispatched_at: r.clock.now(),
            task_criteria: vec![
                Criterion::new("Every PDF file in /tmp/reports is named"),
                Criterion::new("The total size of the PDF files is given in bytes"),
            ],
            round: 0,
        },
    );
    let outputs = [
        json!("/tmp/reports/q1.pdf\n/tmp/reports/q2.pdf"),
        json!("total: 4096 bytes"),
    ];
    for (id, output) in ids.iter().zip(outputs) {
        r.bus.handle(Role::AgentValidator).publish(
            Role::MetaValidator,
            SubTaskOutcome {
                subtask_id: *id,
                parent_task_id: task.clone(),
                status: SubTaskStatus::Matched,
                output,
                failure_reason: None,
                gap_trajectory: vec![GapPoint {
                    attempt: 1,
                    score: 1.0,
                    unmet_criteria: vec![],
                    failure_class: None,
                }],
                criteria_verdicts: vec![],
                tool_calls: vec![],
            },
        );
    }
    let env = next(&mut ggs).await;
    match &env.message {
        Message::OutcomeSummary(s) => {
            println!("accepted: {} — {}", s.summary, s.merged_output);
            assert_eq!(s.task_criteria_verdicts.len(), 2);
            assert!(!s.merged_output.is_null());
        }
        Message::ReplanRequest(rr) => {
            println!("rejected: {}", rr.gap_summary);
            assert!(
                !rr.gap_summary.contains("could not judge"),
                "the real model's merge did not parse: {}",
                rr.gap_summary
            );
            assert_eq!(rr.task_criteria_verdicts.len(), 2);
        }
        other => panic!("unexpected {:?}", other.kind()),
    }
}
