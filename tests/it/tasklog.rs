//! The task log end to end: a real bus carries a realistic task (memory calibration, a
//! failed fast loop, a GGS replan, a Law 1 confirmation, acceptance), the writer turns it
//! into a run file from its tap, and the reader rebuilds the trajectory from the file.

use artoo::tools::ToolName;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use artoo::bus::{Bus, BusHandle};
use artoo::contracts::*;
use artoo::tasklog::{
    FLUSH_INTERVAL, RunId, RunStatus, TaskLogDir, TaskLogHandle, TaskLogWriter, WriterStopped,
    tasks_dir,
};
use artoo::{Clock, FakeClock};
use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

/// Every role of the hierarchy as a publisher on one bus, with a fake clock that the
/// script advances by each call's duration.
struct Pipeline {
    bus: Bus,
    clock: Arc<FakeClock>,
    user: BusHandle,
    r1: BusHandle,
    r2: BusHandle,
    dispatcher: BusHandle,
    r3: BusHandle,
    r4a: BusHandle,
    r4b: BusHandle,
    r5: BusHandle,
    r7: BusHandle,
    /// Every model call published: (role, prompt, completion, elapsed).
    llm_calls: std::cell::RefCell<Vec<(Role, u64, u64, u64)>>,
}

impl Pipeline {
    fn new() -> Self {
        let clock = FakeClock::at_epoch();
        let bus = Bus::new(clock.clone());
        Self {
            user: bus.handle(Role::User),
            r1: bus.handle(Role::Perceiver),
            r2: bus.handle(Role::Planner),
            dispatcher: bus.handle(Role::Dispatcher),
            r3: bus.handle(Role::Executor),
            r4a: bus.handle(Role::AgentValidator),
            r4b: bus.handle(Role::MetaValidator),
            r5: bus.handle(Role::Memory),
            r7: bus.handle(Role::Ggs),
            bus,
            clock,
            llm_calls: Default::default(),
        }
    }

    /// Starts a task log writer on this bus, writing under `data_dir`.
    fn start_log(&self, data_dir: &Path) -> (TaskLogHandle, tokio::task::JoinHandle<()>) {
        let (writer, handle) = TaskLogWriter::on_bus(&self.bus, data_dir, self.clock.clone(), 256);
        (handle, tokio::spawn(writer.run()))
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    fn tick(&self, ms: u64) {
        self.clock.advance(Duration::milliseconds(ms as i64));
    }

    fn llm(&self, task: &TaskId, from: &BusHandle, usage: (u64, u64, u64), response: &str) {
        let (prompt_tokens, completion_tokens, elapsed_ms) = usage;
        self.tick(elapsed_ms);
        from.publish(
            Role::Observer,
            LlmCall {
                task_id: Some(task.clone()),
                role: from.role(),
                model: "qwen2.5-coder-0.5b".into(),
                system_prompt: format!("You are {}.", from.role().name()),
                user_prompt: format!("task {task}"),
                response: response.into(),
                prompt_tokens,
                completion_tokens,
                elapsed_ms,
                error: None,
            },
        );
        self.llm_calls.borrow_mut().push((
            from.role(),
            prompt_tokens,
            completion_tokens,
            elapsed_ms,
        ));
    }

    fn tool(
        &self,
        task: &TaskId,
        subtask: SubTaskId,
        attempt: u32,
        record: ToolCallRecord,
    ) -> ToolCallRecord {
        self.tick(record.duration_ms);
        self.r3.publish(
            Role::Observer,
            ToolCallEvent {
                task_id: task.clone(),
                subtask_id: subtask,
                attempt,
                record: record.clone(),
                granted: None,
            },
        );
        record
    }

    fn submit(&self, task: &TaskId, raw_input: &str) {
        self.user.publish(
            Role::Perceiver,
            TaskSubmitted {
                task_id: task.clone(),
                raw_input: raw_input.into(),
                submitted_at: self.now(),
                session_history: vec![],
            },
        );
    }

    fn spec(&self, task: &TaskId, raw_input: &str, intent: &str) {
        self.llm(task, &self.r1, (500, 60, 800), r#"{"intent":"…"}"#);
        self.r1.publish(
            Role::Planner,
            TaskSpec {
                task_id: task.clone(),
                intent: intent.into(),
                constraints: Constraints::default(),
                raw_input: raw_input.into(),
            },
        );
    }

    /// R2's calibration read for one group, as the request/reply pair plus the recall.
    fn recall(
        &self,
        task: &TaskId,
        round: u32,
        space: &str,
        potentials: Potentials,
        constraints: Vec<RecalledConstraint>,
    ) {
        let query = MemoryQuery {
            task_id: task.clone(),
            space: space.into(),
            entity: "env:local".into(),
        };
        let request = self.r2.publish(Role::Memory, query);
        self.r5.reply(
            Role::Planner,
            request,
            MemoryResponse {
                task_id: task.clone(),
                space: space.into(),
                entity: "env:local".into(),
                sops: vec![],
                potentials,
                recent: vec![],
                error: None,
            },
        );
        self.r2.publish(
            Role::Ggs,
            MemoryRecall {
                task_id: task.clone(),
                space: space.into(),
                entity: "env:local".into(),
                sops: vec![],
                potentials,
                constraints,
                round,
                error: None,
            },
        );
    }

    fn plan(
        &self,
        task: &TaskId,
        round: u32,
        usage: (u64, u64, u64),
        subtasks: &[(SubTaskId, i64, &str, &str)],
    ) {
        self.llm(
            task,
            &self.r2,
            usage,
            r#"{"task_criteria":[…],"subtasks":[…]}"#,
        );
        self.r2.publish(
            Role::Dispatcher,
            DispatchManifest {
                task_id: task.clone(),
                subtask_ids: subtasks.iter().map(|s| s.0).collect(),
                task_spec: None,
                dispatched_at: self.now(),
                task_criteria: vec![Criterion::new("the summary file names the largest file")],
                round,
            },
        );
        for &(id, sequence, intent, criterion) in subtasks {
            self.dispatcher.publish(
                Role::Executor,
                SubTask {
                    subtask_id: id,
                    parent_task_id: task.clone(),
                    intent: intent.into(),
                    context: "Current working directory: /tmp".into(),
                    success_criteria: vec![Criterion::new(criterion)],
                    sequence,
                    deadline: None,
                    blocked_tools: vec![],
                    blocked_targets: vec![],
                    confirm_tools: vec![],
                },
            );
        }
    }

    fn execution(
        &self,
        task: &TaskId,
        subtask: SubTaskId,
        attempt: u32,
        status: ExecutionStatus,
        output: &str,
        tool_calls: Vec<ToolCallRecord>,
    ) {
        self.r3.publish(
            Role::AgentValidator,
            ExecutionResult {
                subtask_id: subtask,
                parent_task_id: task.clone(),
                status,
                output: output.into(),
                tool_calls,
                attempt,
                interrupted: None,
            },
        );
    }

    fn outcome(
        &self,
        task: &TaskId,
        subtask: SubTaskId,
        status: SubTaskStatus,
        verdicts: Vec<CriterionVerdict>,
        gap_trajectory: Vec<GapPoint>,
    ) -> SubTaskOutcome {
        let outcome = SubTaskOutcome {
            subtask_id: subtask,
            parent_task_id: task.clone(),
            status,
            output: json!("…"),
            failure_reason: (status == SubTaskStatus::Failed)
                .then(|| "max retries (2) reached; last issue: folder missing".to_string()),
            gap_trajectory,
            criteria_verdicts: verdicts,
            tool_calls: vec![],
        };
        self.r4a.publish(Role::MetaValidator, outcome.clone());
        outcome
    }

    fn megram(&self, task: &TaskId, state: MegramOrigin, space: &str, f: f64, sigma: f64, k: f64) {
        self.r7.publish(
            Role::Memory,
            MegramWrite {
                task_id: Some(task.clone()),
                megram: Megram {
                    id: MegramId::mint(),
                    level: Level::M,
                    created_at: self.now(),
                    last_recalled_at: None,
                    space: space.into(),
                    entity: "env:local".into(),
                    content: format!("{state}: {space}"),
                    state,
                    f,
                    sigma,
                    k,
                },
                against_rule: None,
            },
        );
    }

    fn cancel(&self, task: &TaskId) {
        self.user.publish(
            Role::All,
            TaskClosed::cancelled(task.clone(), "user pressed Ctrl+C"),
        );
    }
}

fn shell(target: &str, status: ToolCallStatus, output: &str, duration_ms: u64) -> ToolCallRecord {
    ToolCallRecord {
        tool: ToolName::Shell.into(),
        input: json!({ "command": target }),
        target: target.into(),
        output_head: output.into(),
        status,
        error: (status != ToolCallStatus::Ok).then(|| output.to_string()),
        duration_ms,
        confirmation: None,
        failure: None,
        failed_exit: None,
    }
}

fn verdict(criterion: &str, verdict: Verdict, class: Option<FailureClass>) -> CriterionVerdict {
    CriterionVerdict {
        criterion: criterion.into(),
        mode: None,
        verdict,
        failure_class: class,
        evidence: format!("{verdict:?} by the tool output"),
    }
}

fn gap_point(attempt: u32, score: f64, unmet: &[&str]) -> GapPoint {
    GapPoint {
        attempt,
        score,
        unmet_criteria: unmet.iter().map(|s| s.to_string()).collect(),
        failure_class: (!unmet.is_empty()).then_some(MixedFailureClass::Environmental),
    }
}

const RAW: &str = "find the largest file in ~/Downloads and write its name to summary.txt";
const INTENT: &str = "Write the name of the largest file in ~/Downloads to summary.txt";
const LISTING: &str = "the listing shows file sizes";
const ROUND0_LOSS: Loss = Loss {
    d: 1.0,
    p: 0.0,
    omega: 0.217,
    l: 0.6868,
};
const FINAL_LOSS: Loss = Loss {
    d: 0.0,
    p: 0.0,
    omega: 0.35,
    l: 0.14,
};
const RATIONALE: &str =
    "Plateau (|∇L| < ε) with D > δ and environmental failures: same approach, different target.";

/// What the full task published that the assertions check.
struct FullTask {
    started: DateTime<Utc>,
    finished: DateTime<Utc>,
    s1: SubTaskId,
    request_id: RequestId,
}

/// Round 0: one sub-task fails twice (environmental), R4b asks for a replan, GGS answers
/// change_path with a blocked target. Round 1: two dependent sub-tasks match, one behind a
/// Law 1 overwrite confirmation; R4b accepts and GGS ends the task with `accept`; the
/// terminal Megram follows the FinalResult.
fn full_task(p: &Pipeline, task: &TaskId) -> FullTask {
    let started = p.now();
    p.submit(task, RAW);
    p.spec(task, RAW, INTENT);

    // Round 0.
    let space = format!("intent:{task}");
    let nothing = Potentials {
        attention: 0.0,
        decision: 0.0,
        action: MemoryAction::Ignore,
    };
    p.recall(task, 0, &space, nothing, vec![]);
    let s1 = SubTaskId::mint();
    p.plan(
        task,
        0,
        (1200, 300, 2000),
        &[(s1, 1, "List ~/Downloads by size", LISTING)],
    );
    p.llm(task, &p.r3, (900, 40, 500), r#"{"action":"tool"}"#);
    let a1 = p.tool(
        task,
        s1,
        1,
        shell(
            "ls -S ~/Downloads",
            ToolCallStatus::Error,
            "ls: ~/Downloads: No such file or directory",
            30,
        ),
    );
    p.llm(task, &p.r3, (1000, 80, 600), r#"{"action":"result"}"#);
    p.execution(task, s1, 1, ExecutionStatus::Failed, "no listing", vec![a1]);
    p.llm(task, &p.r4a, (700, 120, 700), r#"{"verdict":"retry"}"#);
    p.r4a.publish(
        Role::Executor,
        CorrectionSignal {
            subtask_id: s1,
            parent_task_id: task.clone(),
            attempt_number: 1,
            failed_criterion: LISTING.into(),
            failure_class: FailureClass::Environmental,
            what_was_wrong: "the folder does not exist".into(),
            what_to_do: "list the real downloads folder".into(),
            calls_to_avoid: vec![],
        },
    );
    p.llm(task, &p.r3, (1100, 40, 500), r#"{"action":"tool"}"#);
    let a2 = p.tool(
        task,
        s1,
        2,
        shell(
            "ls -S ~/Downloads | head -1",
            ToolCallStatus::Error,
            "ls: ~/Downloads: No such file or directory",
            25,
        ),
    );
    p.llm(task, &p.r3, (1200, 90, 600), r#"{"action":"result"}"#);
    p.execution(task, s1, 2, ExecutionStatus::Failed, "no listing", vec![a2]);
    p.llm(task, &p.r4a, (800, 110, 700), r#"{"verdict":"failed"}"#);
    let failed = p.outcome(
        task,
        s1,
        SubTaskStatus::Failed,
        vec![verdict(
            LISTING,
            Verdict::Fail,
            Some(FailureClass::Environmental),
        )],
        vec![gap_point(1, 0.0, &[LISTING]), gap_point(2, 0.0, &[LISTING])],
    );
    p.r4b.publish(
        Role::Ggs,
        ReplanRequest {
            task_id: task.clone(),
            intent: "Find the largest file and write a summary".into(),
            gap_summary: "max retries (2) reached; last issue: folder missing".into(),
            failed_outcomes: vec![failed],
            matched_outcomes: vec![],
            failed_subtasks: vec![s1],
            task_criteria_verdicts: vec![],
            unrun_subtasks: vec![],
            unjudged_task_criteria: vec![],
            correction_count: 2,
            elapsed_ms: 8_000,
            recommendation: Recommendation::Replan,
        },
    );
    p.r7.publish(
        Role::Planner,
        PlanDirective {
            task_id: task.clone(),
            loss: ROUND0_LOSS,
            prev_directive: PrevDirective::Init,
            directive: ReplanDirective::ChangePath,
            blocked_tools: vec![],
            blocked_targets: vec![
                "ls -S ~/Downloads".into(),
                "ls -S ~/Downloads | head -1".into(),
            ],
            failed_criterion: LISTING.into(),
            failure_class: MixedFailureClass::Environmental,
            budget_pressure: ROUND0_LOSS.omega,
            grad_l: 0.0,
            rationale: RATIONALE.into(),
            urgency: Urgency::High,
            gradient: Some(Gradient::Plateau),
            round: 1,
        },
    );
    p.megram(
        task,
        MegramOrigin::ChangePath,
        "target:ls -S ~/Downloads",
        0.30,
        0.0,
        0.2,
    );

    // Round 1.
    let avoid = Potentials {
        attention: 0.3,
        decision: -0.3,
        action: MemoryAction::Avoid,
    };
    p.recall(
        task,
        1,
        "target:ls -S ~/Downloads",
        avoid,
        vec![RecalledConstraint {
            kind: ConstraintKind::MustNot,
            text: "MUST NOT run `ls -S ~/Downloads` (the folder does not exist)".into(),
            source: ConstraintSource::BlockedTarget,
            megram_ids: vec![],
        }],
    );
    let s2 = SubTaskId::mint();
    let s3 = SubTaskId::mint();
    p.plan(
        task,
        1,
        (1500, 400, 2500),
        &[
            (
                s2,
                1,
                "Find the largest file under ~",
                "a path with its size is listed",
            ),
            (
                s3,
                2,
                "Write the name to summary.txt",
                "summary.txt contains the name",
            ),
        ],
    );
    p.llm(task, &p.r3, (900, 40, 400), r#"{"action":"tool"}"#);
    let g = p.tool(
        task,
        s2,
        1,
        ToolCallRecord {
            tool: ToolName::Glob.into(),
            input: json!({ "pattern": "*", "root": "~" }),
            target: "~".into(),
            output_head: "/home/u/big.iso 4700000000".into(),
            status: ToolCallStatus::Ok,
            error: None,
            duration_ms: 120,
            confirmation: None,
            failure: None,
            failed_exit: None,
        },
    );
    p.llm(task, &p.r3, (1000, 70, 500), r#"{"action":"result"}"#);
    p.execution(
        task,
        s2,
        1,
        ExecutionStatus::Completed,
        "/home/u/big.iso",
        vec![g],
    );
    p.llm(task, &p.r4a, (600, 90, 600), r#"{"verdict":"matched"}"#);
    p.outcome(
        task,
        s2,
        SubTaskStatus::Matched,
        vec![verdict(
            "a path with its size is listed",
            Verdict::Pass,
            None,
        )],
        vec![gap_point(1, 1.0, &[])],
    );

    p.llm(task, &p.r3, (950, 60, 450), r#"{"action":"tool"}"#);
    let request_id = RequestId::mint();
    p.r3.publish(
        Role::User,
        ConfirmationRequest {
            request_id,
            task_id: task.clone(),
            subtask_id: Some(s3),
            tool: ToolName::WriteFile.into(),
            description: "overwrite summary.txt (it exists)".into(),
            command: "write_file ~/artoo_workspace/summary.txt".into(),
            paths: vec![PathEffect {
                path: PathBuf::from("/home/u/artoo_workspace/summary.txt"),
                exists: true,
                effect: "overwrite".into(),
            }],
            reversible: false,
            reversible_alternative: None,
            can_trash: false,
            expires_at: p.now() + Duration::seconds(120),
            scopes: vec![artoo::contracts::ApprovalScope::Once],
            grant: None,
        },
    );
    p.tick(4_000);
    p.user.publish(
        Role::Executor,
        ConfirmationDecision {
            request_id,
            task_id: task.clone(),
            decision: Decision::Approve,
            source: DecisionSource::User,
            scope: artoo::contracts::ApprovalScope::Once,
        },
    );
    let w = p.tool(
        task,
        s3,
        1,
        ToolCallRecord {
            tool: ToolName::WriteFile.into(),
            input: json!({ "path": "~/artoo_workspace/summary.txt", "content": "big.iso" }),
            target: "/home/u/artoo_workspace/summary.txt".into(),
            output_head: "wrote 7 bytes".into(),
            status: ToolCallStatus::Ok,
            error: None,
            duration_ms: 5,
            confirmation: Some(Decision::Approve),
            failure: None,
            failed_exit: None,
        },
    );
    p.llm(task, &p.r3, (1000, 50, 300), r#"{"action":"result"}"#);
    p.execution(
        task,
        s3,
        1,
        ExecutionStatus::Completed,
        "wrote summary.txt",
        vec![w],
    );
    p.llm(task, &p.r4a, (650, 80, 500), r#"{"verdict":"matched"}"#);
    p.outcome(
        task,
        s3,
        SubTaskStatus::Matched,
        vec![verdict(
            "summary.txt contains the name",
            Verdict::Pass,
            None,
        )],
        vec![gap_point(1, 1.0, &[])],
    );

    p.llm(task, &p.r4b, (1400, 200, 1500), r#"{"verdict":"accept"}"#);
    p.r4b.publish(
        Role::Ggs,
        OutcomeSummary {
            task_id: task.clone(),
            intent: "Find the largest file and write a summary".into(),
            merged_output: json!({ "largest": "/home/u/big.iso", "summary_file": "summary.txt" }),
            summary: "summary.txt names big.iso (4.7 GB)".into(),
            task_criteria_verdicts: vec![verdict(
                "the summary file names the largest file",
                Verdict::Pass,
                None,
            )],
            outcomes: vec![],
            elapsed_ms: 20_000,
        },
    );
    let finished = p.now();
    p.r7.publish(
        Role::User,
        FinalResult {
            task_id: task.clone(),
            summary: "[LAW1] summary.txt names big.iso (4.7 GB)".into(),
            output: json!({ "largest": "/home/u/big.iso" }),
            loss: FINAL_LOSS,
            grad_l: -0.5468,
            replans: 1,
            prev_directive: PrevDirective::ChangePath,
            directive: TerminalDirective::Accept,
            next_moves: vec![],
        },
    );
    // GGS writes its terminal Megram after the result, before the desk closes the task:
    // still part of the run.
    p.megram(task, MegramOrigin::Accept, &space, 0.90, 1.0, 0.05);
    p.user.publish(
        Role::All,
        TaskClosed {
            task_id: task.clone(),
            end: TaskClosure::Finished,
        },
    );
    FullTask {
        started,
        finished,
        s1,
        request_id,
    }
}

fn read_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn run_files(data_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(tasks_dir(data_dir))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[tokio::test]
async fn a_full_task_with_a_replan_and_a_law1_confirmation_is_logged_and_replayed() {
    let data = tempfile::tempdir().unwrap();
    let p = Pipeline::new();
    let (log, _writer) = p.start_log(data.path());
    let task = TaskId::mint();
    let run = full_task(&p, &task);
    log.flush().await.unwrap();

    // One file, named by start time and task id.
    let files = run_files(data.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        name.starts_with("20260101T000000.000Z_") && name.ends_with(&format!("_{task}.jsonl")),
        "{name}"
    );

    // Every line is `{kind, …, ts, seq}`; the order follows the bus.
    let lines = read_lines(&files[0]);
    let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"task_begin"));
    let seqs: Vec<u64> = lines.iter().map(|l| l["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] <= w[1]), "{seqs:?}");
    let mut counts = BTreeMap::new();
    for kind in &kinds {
        *counts.entry(*kind).or_insert(0) += 1;
    }
    let expected = [
        ("task_begin", 1),
        ("task_spec", 1),
        ("memory_query", 2),
        ("plan", 2),
        ("subtask_begin", 3),
        ("llm_call", 16),
        ("tool_call", 4),
        ("execution", 4),
        ("correction", 1),
        ("criterion_verdict", 4),
        ("subtask_end", 3),
        ("replan", 1),
        ("ggs_decision", 2),
        ("plan_directive", 1),
        ("memory_write", 2),
        ("law1_request", 1),
        ("law1_decision", 1),
        ("outcome_summary", 1),
        ("final_result", 1),
        ("task_end", 1),
    ];
    assert_eq!(counts, BTreeMap::from(expected), "{kinds:?}");
    // The accept decision is there; the terminal Megram GGS writes after its result is
    // part of the run, which ends at the task's close.
    let tail: Vec<&str> = kinds[kinds.len() - 4..].to_vec();
    assert_eq!(
        tail,
        ["ggs_decision", "final_result", "memory_write", "task_end"]
    );
    assert!(lines.iter().all(|l| l.get("after_end").is_none()));
    let llm = lines.iter().find(|l| l["kind"] == "llm_call").unwrap();
    assert_eq!(llm["role"], "R1");
    assert_eq!(llm["system_prompt"], "You are perceiver.");
    assert_eq!(llm["response"], r#"{"intent":"…"}"#);

    // The reader rebuilds the trajectory from the file alone.
    let dir = TaskLogDir::new(data.path());
    let listed = dir.list(10).unwrap();
    assert_eq!(listed.len(), 1);
    let summary = &listed[0];
    let elapsed = (run.finished - run.started).num_milliseconds() as u64;
    assert_eq!(summary.task_id, task);
    assert_eq!(summary.intent.as_deref(), Some(INTENT));
    assert_eq!(summary.raw_input.as_deref(), Some(RAW));
    assert_eq!(summary.status, RunStatus::Accepted);
    assert_eq!(summary.rounds, 2);
    assert_eq!(summary.duration_ms, Some(elapsed));
    assert_eq!(summary.started_at, run.started);

    let t = dir.load(&summary.run_id).unwrap().trajectory();
    assert_eq!(t.status, RunStatus::Accepted);
    assert_eq!(t.elapsed_ms, Some(elapsed));
    assert_eq!(t.rounds.len(), 2);

    let r0 = &t.rounds[0];
    assert_eq!(r0.memory_queries.len(), 1);
    assert_eq!(r0.memory_queries[0].action, MemoryAction::Ignore);
    assert_eq!(r0.memory_queries[0].space, format!("intent:{task}"));
    assert_eq!(r0.plan.as_ref().unwrap().subtask_ids, vec![run.s1]);
    assert_eq!(r0.subtasks.len(), 1);
    let s1 = &r0.subtasks[0];
    assert_eq!(s1.executions.len(), 2);
    assert_eq!(s1.tool_calls.len(), 2);
    assert_eq!(
        s1.corrections[0].what_to_do,
        "list the real downloads folder"
    );
    assert_eq!(s1.verdicts[0].verdict, Verdict::Fail);
    assert_eq!(s1.verdicts[0].attempt, Some(2));
    assert_eq!(s1.end.as_ref().unwrap().status, SubTaskStatus::Failed);
    assert_eq!(s1.end.as_ref().unwrap().gap_trajectory.len(), 2);
    assert_eq!(
        r0.replan.as_ref().unwrap().gap_summary,
        "max retries (2) reached; last issue: folder missing"
    );
    let d0 = r0.decision.as_ref().unwrap();
    assert_eq!(d0.loss, ROUND0_LOSS);
    assert_eq!(d0.grad_l, 0.0);
    assert_eq!(d0.directive, MacroState::ChangePath);
    assert_eq!(d0.rationale.as_deref(), Some(RATIONALE));
    let directive = r0.directive.as_ref().unwrap();
    assert_eq!(directive.directive, ReplanDirective::ChangePath);
    assert_eq!(directive.urgency, Urgency::High);
    assert_eq!(directive.failure_class, MixedFailureClass::Environmental);
    assert!(directive.blocked_tools.is_empty());
    assert_eq!(
        directive.blocked_targets,
        ["ls -S ~/Downloads", "ls -S ~/Downloads | head -1"]
    );

    let r1 = &t.rounds[1];
    assert_eq!(r1.index, 1);
    assert_eq!(r1.memory_queries[0].action, MemoryAction::Avoid);
    assert_eq!(
        r1.memory_queries[0].constraints[0].kind,
        ConstraintKind::MustNot
    );
    assert_eq!(r1.subtasks.len(), 2);
    assert!(
        r1.subtasks
            .iter()
            .all(|s| s.end.as_ref().unwrap().status == SubTaskStatus::Matched)
    );
    assert_eq!(
        r1.subtasks[1].tool_calls[0].confirmation,
        Some(Decision::Approve)
    );
    assert_eq!(r1.task_verdicts.len(), 1);
    assert_eq!(r1.task_verdicts[0].verdict, Verdict::Pass);
    assert!(r1.accepted.is_some());
    let d1 = r1.decision.as_ref().unwrap();
    assert_eq!(d1.directive, MacroState::Accept);
    assert_eq!(d1.loss, FINAL_LOSS);
    assert_eq!(d1.grad_l, -0.5468);
    assert_eq!(d1.replans, 1);
    assert!(r1.directive.is_none());

    assert_eq!(t.law1.len(), 1);
    let law1 = &t.law1[0];
    assert_eq!(law1.request_id, run.request_id);
    assert_eq!(law1.request.as_ref().unwrap().tool, ToolName::WriteFile);
    assert_eq!(law1.request.as_ref().unwrap().paths[0].effect, "overwrite");
    let decision = law1.decision.as_ref().unwrap();
    assert_eq!(
        (decision.decision, decision.source),
        (Decision::Approve, DecisionSource::User)
    );

    let result = t.final_result.as_ref().unwrap();
    assert_eq!(result.directive, TerminalDirective::Accept);
    assert!(result.summary.starts_with("[LAW1]"));
    assert_eq!(t.memory_writes.len(), 2);
    assert_eq!(t.late_lines, 0);
    assert!(!t.truncated && t.unreadable_lines == 0 && t.skipped_messages == 0);

    // Usage per role, as aggregated by the writer, against the calls the script made.
    let mut expected: BTreeMap<Role, (u64, u64, u64, u64)> = BTreeMap::new();
    for &(role, prompt, completion, elapsed) in p.llm_calls.borrow().iter() {
        let e = expected.entry(role).or_default();
        *e = (e.0 + 1, e.1 + prompt, e.2 + completion, e.3 + elapsed);
    }
    let got: BTreeMap<Role, (u64, u64, u64, u64)> = t
        .usage
        .role_stats
        .iter()
        .map(|s| {
            (
                s.role,
                (s.calls, s.prompt_tokens, s.completion_tokens, s.elapsed_ms),
            )
        })
        .collect();
    assert_eq!(got, expected);
    let roles: Vec<Role> = t.usage.role_stats.iter().map(|s| s.role).collect();
    assert_eq!(
        roles,
        [
            Role::Perceiver,
            Role::Planner,
            Role::Executor,
            Role::AgentValidator,
            Role::MetaValidator
        ]
    );
    assert_eq!(t.usage.role(Role::Executor).unwrap().calls, 8);
    assert_eq!(t.usage.total_tokens, 17_230);
    assert_eq!(t.usage.tool_call_count, 4);
    assert_eq!(t.usage.tool_elapsed_ms, 30 + 25 + 120 + 5);
}

#[tokio::test]
async fn a_reused_task_id_gets_a_new_file_and_never_replays_the_old_run() {
    let data = tempfile::tempdir().unwrap();
    let p = Pipeline::new();
    let (log, _writer) = p.start_log(data.path());
    let task = TaskId::from_existing("task_reused");
    full_task(&p, &task);
    p.tick(60_000);

    // The same id again: answered at once this time.
    p.submit(&task, "hi");
    p.llm(&task, &p.r1, (80, 12, 300), "Hello!");
    p.r1.publish(
        Role::User,
        ChatReply {
            task_id: task.clone(),
            answer: "Hello!".into(),
        },
    );
    p.user.publish(
        Role::All,
        TaskClosed {
            task_id: task.clone(),
            end: TaskClosure::Answered,
        },
    );
    log.flush().await.unwrap();

    let files = run_files(data.path());
    assert_eq!(files.len(), 2, "{files:?}");
    let second = read_lines(&files[1]);
    let kinds: Vec<&str> = second.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["task_begin", "llm_call", "chat_reply", "task_end"]);
    assert_eq!(second[0]["raw_input"], "hi");
    assert_eq!(second[3]["status"], "answered");
    // The first file was not touched by the second run.
    assert_eq!(read_lines(&files[0]).last().unwrap()["kind"], "task_end");

    let dir = TaskLogDir::new(data.path());
    let listed = dir.list(10).unwrap();
    let statuses: Vec<_> = listed.iter().map(|s| s.status).collect();
    assert_eq!(
        statuses,
        [RunStatus::Answered, RunStatus::Accepted],
        "newest first"
    );
    assert!(listed[0].started_at > listed[1].started_at);
    assert_eq!(dir.runs_of(&task).unwrap().len(), 2);

    let latest = dir.latest_of(&task).unwrap().unwrap().trajectory();
    assert_eq!(latest.chat_reply.as_deref(), Some("Hello!"));
    assert!(
        latest.rounds.is_empty(),
        "no decision of the first run leaks in"
    );
    assert_eq!(latest.decisions().count(), 0);
    assert_eq!(latest.usage.llm_calls(), 1);
    assert_eq!(latest.usage.total_tokens, 92);
    assert_eq!(dir.list(1).unwrap().len(), 1);
}

#[tokio::test]
async fn a_tap_gap_is_written_into_every_open_run_with_the_exact_count() {
    let data = tempfile::tempdir().unwrap();
    let p = Pipeline::new();
    let clock: Arc<dyn Clock> = p.clock.clone();
    let (writer, log) =
        TaskLogWriter::new(p.bus.tap("tasklog", 4), tasks_dir(data.path()), clock, 256);
    tokio::spawn(writer.run());
    let a = TaskId::from_existing("task_a");
    let b = TaskId::from_existing("task_b");
    p.submit(&a, "first");
    p.submit(&b, "second");
    log.flush().await.unwrap();

    // Ten model calls in one burst; the writer cannot run in between, its 4-slot tap
    // keeps the newest four.
    for i in 0..10 {
        p.llm(&a, &p.r3, (10, 1, i), "step");
    }
    p.cancel(&a);
    log.flush().await.unwrap();

    let dir = TaskLogDir::new(data.path());
    let mut runs: Vec<_> = dir
        .run_ids()
        .unwrap()
        .into_iter()
        .map(|id| dir.load(&id).unwrap())
        .collect();
    runs.sort_by_key(|r| r.lines[0].seq);
    let kinds = |i: usize| -> Vec<&str> { runs[i].lines.iter().map(|l| l.kind()).collect() };
    // 11 published, 4 kept: 7 lost, reported before the survivors.
    assert_eq!(
        kinds(0),
        [
            "task_begin",
            "gap",
            "llm_call",
            "llm_call",
            "llm_call",
            "cancelled",
            "task_end"
        ]
    );
    assert_eq!(kinds(1), ["task_begin", "gap"]);
    for run in &runs {
        let t = run.trajectory();
        assert_eq!(t.skipped_messages, 7, "{}", run.run_id);
    }
    let end = runs[0].lines.last().unwrap();
    assert_eq!(serde_json::to_value(end).unwrap()["skipped_messages"], 7);
    // The gap line has no bus seq: no envelope carried it.
    assert_eq!(runs[1].lines[1].seq, None);
}

#[tokio::test]
async fn a_crash_truncated_file_with_a_newer_kind_still_lists_and_replays() {
    let data = tempfile::tempdir().unwrap();
    let dir = TaskLogDir::new(data.path());
    std::fs::create_dir_all(dir.path()).unwrap();
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tasklog/20260101T000000.000Z_000000000000_task_crashed.jsonl");
    let name = fixture.file_name().unwrap().to_str().unwrap();
    std::fs::copy(&fixture, dir.path().join(name)).unwrap();
    // Not a run file: ignored by the list.
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();

    let listed = dir.list(10).unwrap();
    assert_eq!(listed.len(), 1);
    let summary = &listed[0];
    assert_eq!(summary.task_id.as_str(), "task_crashed");
    assert_eq!(summary.status, RunStatus::Open);
    assert_eq!(summary.rounds, 2);
    assert_eq!(summary.duration_ms, None);
    assert!(summary.truncated);

    let run = dir.load(&RunId::parse(name).unwrap()).unwrap();
    assert!(run.truncated);
    assert_eq!(run.skipped.len(), 1);
    assert_eq!(run.skipped[0].kind.as_deref(), Some("reflection"));
    let t = run.trajectory();
    assert_eq!(t.status, RunStatus::Open);
    assert!(t.truncated);
    assert_eq!(t.unreadable_lines, 1);
    assert_eq!(
        t.intent.as_deref(),
        Some("Count the PDF files in ~/Documents")
    );
    assert_eq!(t.rounds.len(), 2);
    let d0 = t.rounds[0].decision.as_ref().unwrap();
    assert_eq!(d0.directive, MacroState::ChangeApproach);
    assert_eq!((d0.loss.d, d0.loss.p), (1.0, 1.0));
    assert_eq!(
        t.rounds[0].directive.as_ref().unwrap().blocked_tools,
        [ToolName::Mdfind]
    );
    assert!(t.rounds[1].plan.is_some());
    assert!(
        t.rounds[1].decision.is_none(),
        "the crash came before GGS decided"
    );
    // No task_end: usage is summed from the model and tool calls that were written.
    assert_eq!(t.usage.llm_calls(), 3);
    assert_eq!(t.usage.total_tokens, 1_000 + 100 + 400 + 50 + 800 + 60);
    assert_eq!(t.usage.role(Role::Planner).unwrap().calls, 2);
    assert_eq!(t.usage.tool_call_count, 1);
}

#[tokio::test]
async fn cancelling_ends_the_run_and_late_traffic_is_kept_flagged() {
    let data = tempfile::tempdir().unwrap();
    let p = Pipeline::new();
    let (log, _writer) = p.start_log(data.path());
    let task = TaskId::mint();
    p.submit(&task, RAW);
    p.spec(&task, RAW, INTENT);
    p.tick(1_500);
    p.cancel(&task);
    // The planner's call was in flight when the user cancelled.
    p.llm(&task, &p.r2, (1000, 10, 900), "");
    log.flush().await.unwrap();

    let t = TaskLogDir::new(data.path())
        .latest_of(&task)
        .unwrap()
        .unwrap();
    let kinds: Vec<_> = t.lines.iter().map(|l| (l.kind(), l.after_end)).collect();
    assert_eq!(
        kinds,
        [
            ("task_begin", false),
            ("llm_call", false),
            ("task_spec", false),
            ("cancelled", false),
            ("task_end", false),
            ("llm_call", true),
        ]
    );
    let t = t.trajectory();
    assert_eq!(t.status, RunStatus::Cancelled);
    assert_eq!(t.cancelled.as_deref(), Some("user pressed Ctrl+C"));
    assert_eq!(t.elapsed_ms, Some(800 + 1_500));
    // The late call is in the file but not in the run's usage, which ended with it.
    assert_eq!(t.usage.llm_calls(), 1);
    assert_eq!(t.late_lines, 1);
}

#[tokio::test(start_paused = true)]
async fn lines_reach_the_disk_within_the_flush_interval_without_an_explicit_flush() {
    let data = tempfile::tempdir().unwrap();
    let p = Pipeline::new();
    let (_log, _writer) = p.start_log(data.path());
    let task = TaskId::mint();
    p.submit(&task, RAW);
    p.spec(&task, RAW, INTENT);
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    assert!(
        run_files(data.path()).is_empty(),
        "buffered until the interval"
    );

    tokio::time::sleep(FLUSH_INTERVAL * 2).await;
    let files = run_files(data.path());
    assert_eq!(files.len(), 1);
    let kinds: Vec<_> = read_lines(&files[0])
        .iter()
        .map(|l| l["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["task_begin", "llm_call", "task_spec"]);
}

#[tokio::test]
async fn close_ends_open_runs_as_unfinished_and_stops_the_writer() {
    let data = tempfile::tempdir().unwrap();
    let p = Pipeline::new();
    let (log, writer) = p.start_log(data.path());
    let task = TaskId::mint();
    p.submit(&task, RAW);
    p.tick(2_000);
    log.close().await.unwrap();
    writer.await.unwrap();

    let summary = &TaskLogDir::new(data.path()).list(10).unwrap()[0];
    assert_eq!(summary.status, RunStatus::Unfinished);
    assert_eq!(summary.duration_ms, Some(2_000));
    assert_eq!(log.flush().await, Err(WriterStopped));
}

#[tokio::test]
async fn closing_the_bus_writes_what_was_seen_and_ends_the_writer() {
    let data = tempfile::tempdir().unwrap();
    let p = Pipeline::new();
    let (_log, writer) = p.start_log(data.path());
    let task = TaskId::mint();
    p.submit(&task, RAW);
    p.spec(&task, RAW, INTENT);
    p.bus.close();
    writer.await.unwrap();

    let t = TaskLogDir::new(data.path())
        .latest_of(&task)
        .unwrap()
        .unwrap()
        .trajectory();
    assert_eq!(t.intent.as_deref(), Some(INTENT));
    assert_eq!(t.status, RunStatus::Unfinished);
}

#[tokio::test]
async fn an_unwritable_log_directory_never_takes_the_writer_down() {
    let data = tempfile::tempdir().unwrap();
    // The data "dir" is a file: the tasks dir cannot be created.
    let blocked = data.path().join("not-a-dir");
    std::fs::write(&blocked, "x").unwrap();
    let p = Pipeline::new();
    let (log, writer) = p.start_log(&blocked);
    let task = TaskId::mint();
    p.submit(&task, RAW);
    log.flush().await.unwrap();
    p.cancel(&task);
    log.flush().await.unwrap();
    assert!(
        !writer.is_finished(),
        "the writer carries on after IO errors"
    );
    log.close().await.unwrap();
    writer.await.unwrap();
    assert!(blocked.is_file());
}

#[tokio::test]
async fn messages_of_a_task_whose_start_was_never_seen_open_a_partial_run() {
    let data = tempfile::tempdir().unwrap();
    let p = Pipeline::new();
    let task = TaskId::mint();
    // Submitted before the log existed.
    p.submit(&task, RAW);
    let (log, _writer) = p.start_log(data.path());
    p.spec(&task, RAW, INTENT);
    log.flush().await.unwrap();

    let summary = &TaskLogDir::new(data.path()).list(10).unwrap()[0];
    assert!(summary.partial);
    assert_eq!(summary.task_id, task);
    assert_eq!(summary.raw_input, None);
    assert_eq!(summary.intent.as_deref(), Some(INTENT));
    assert_eq!(summary.status, RunStatus::Open);
}

#[tokio::test]
async fn traffic_of_no_task_creates_no_run() {
    let data = tempfile::tempdir().unwrap();
    let p = Pipeline::new();
    let (log, _writer) = p.start_log(data.path());
    p.user.publish(
        Role::Auditor,
        AuditQuery {
            query_id: QueryId::mint(),
        },
    );
    p.r5.publish(
        Role::Observer,
        LlmCall {
            task_id: None,
            role: Role::Memory,
            model: "m".into(),
            system_prompt: String::new(),
            user_prompt: "consolidate".into(),
            response: "rule".into(),
            prompt_tokens: 1,
            completion_tokens: 1,
            elapsed_ms: 1,
            error: None,
        },
    );
    log.flush().await.unwrap();
    assert!(run_files(data.path()).is_empty());
    assert!(TaskLogDir::new(data.path()).list(10).unwrap().is_empty());
}

// ---------------------------------------------------------------------------------------
// Retention.
// ---------------------------------------------------------------------------------------

/// Sets a file's modification time `days` before now.
fn age_file(path: &Path, days: u64) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(days * 86_400))
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runtime_prunes_task_logs_past_their_age_and_size_limits() {
    let dirs = tempfile::tempdir().unwrap();
    let mut config = artoo::Config::with_dirs(dirs.path().join("data"), dirs.path().join("ws"));
    config.llm = artoo::testkit::llm_config("http://127.0.0.1:9/v1");
    config.retention.task_logs_days = 30;
    config.retention.task_logs_mb = 1;
    let tasks = artoo::tasklog::tasks_dir(&config.data_dir);
    std::fs::create_dir_all(&tasks).unwrap();
    let run = |name: &str, bytes: usize, days: u64| {
        let path = tasks.join(name);
        std::fs::write(&path, vec![b'x'; bytes]).unwrap();
        age_file(&path, days);
        path
    };
    let too_old = run("1_old.jsonl", 10, 45);
    // 1.5 MiB of recent runs: the oldest goes until the rest fits 1 MiB.
    let big_older = run("2_big.jsonl", 800 * 1024, 5);
    let big_newer = run("3_big.jsonl", 700 * 1024, 2);
    let other = run("notes.txt", 10, 400);
    let runtime = artoo::runtime::Runtime::start(config, artoo::runtime::RuntimeOptions::default())
        .await
        .expect("the runtime starts");
    let gone = async {
        while too_old.exists() || big_older.exists() {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), gone)
        .await
        .expect("the old and the oldest oversized run are pruned at start");
    assert!(big_newer.exists(), "the newest run that fits is kept");
    assert!(other.exists(), "only run files are pruned");
    runtime.shutdown().await;
}

/// Real traffic, not a hand-built transcript: each golden transcript (recorded from the
/// runtime, see `golden`) replayed onto a bus is logged as one run whose trajectory
/// tells what the traffic did, round by round, with nothing arriving after its end.
#[tokio::test]
async fn every_golden_transcript_is_logged_as_the_run_the_runtime_made() {
    for scenario in crate::golden::SCENARIOS {
        let envelopes = crate::golden::transcript(scenario.name);
        let task = crate::golden::task_of(&envelopes);
        let data = tempfile::tempdir().unwrap();
        let p = Pipeline::new();
        let (log, _writer) = p.start_log(data.path());
        for env in &envelopes {
            p.bus.handle(env.from).publish(env.to, env.message.clone());
        }
        log.flush().await.unwrap();
        let run = TaskLogDir::new(data.path())
            .latest_of(&task)
            .unwrap()
            .unwrap_or_else(|| panic!("{}: no run logged", scenario.name));
        let t = run.trajectory();
        let name = scenario.name;
        let of = |kind: MessageKind| {
            envelopes
                .iter()
                .filter(move |e| e.message.kind() == kind)
                .map(|e| &e.message)
        };
        let manifests: Vec<&DispatchManifest> = of(MessageKind::DispatchManifest)
            .filter_map(|m| match m {
                Message::DispatchManifest(d) => Some(d),
                _ => None,
            })
            .collect();
        assert_eq!(t.rounds.len(), manifests.len(), "{name}");
        for (round, manifest) in t.rounds.iter().zip(&manifests) {
            assert_eq!(
                round.subtasks.len(),
                manifest.subtask_ids.len(),
                "{name}: round {}",
                round.index
            );
        }
        assert_eq!(
            t.law1.len(),
            of(MessageKind::ConfirmationRequest).count(),
            "{name}"
        );
        assert_eq!(
            t.memory_writes.len(),
            of(MessageKind::Megram).count(),
            "{name}"
        );
        assert_eq!((t.late_lines, t.skipped_messages), (0, 0), "{name}");
        assert!(
            !t.partial && !run.truncated && run.skipped.is_empty(),
            "{name}"
        );
        match of(MessageKind::FinalResult)
            .chain(of(MessageKind::ChatReply))
            .next()
        {
            Some(Message::FinalResult(f)) => {
                assert_eq!(t.status, RunStatus::from(f.directive), "{name}");
                assert_eq!(
                    t.final_result.as_ref().map(|r| &r.summary),
                    Some(&f.summary),
                    "{name}"
                );
            }
            Some(Message::ChatReply(c)) => {
                assert_eq!(t.status, RunStatus::Answered, "{name}");
                assert_eq!(t.chat_reply.as_deref(), Some(c.answer.as_str()), "{name}");
                assert!(t.rounds.is_empty(), "{name}: no plan on the fast path");
            }
            _ => panic!("{name}: the transcript has no end"),
        }
    }
}
