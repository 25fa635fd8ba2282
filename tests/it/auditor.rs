//! R6 Auditor: full scripted tasks published on a real bus from the right roles, the
//! auditor's only output (reports to the user), each detector on an injected violation,
//! clean runs, tap gaps, restarts, the history API, verification of a tampered log and
//! the `artoo audit` CLI.

use artoo::tools::ToolName;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use artoo::auditor::{
    AnomalyFilter, AnomalyKind, AuditError, AuditEvent, AuditHistory, Auditor, AuditorOptions,
    BreakKind, EventFilter, EventKind, LAW1_PREFIX, VerifyReport, audit_dir,
    canonical::{canonical_bytes, sha256_hex},
    task_class,
};
use artoo::bus::{Bus, BusHandle, Envelope, Inbox, Tap, TapEvent};
use artoo::contracts::*;
use artoo::tasklog::{RunStatus, TaskLogHandle, TaskLogWriter};
use artoo::{Config, FakeClock};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

// ---------------------------------------------------------------------------------------
// Rig: a bus, a fake clock, a running auditor, the user's inbox and a witness tap.
// ---------------------------------------------------------------------------------------

struct Rig {
    bus: Bus,
    clock: Arc<FakeClock>,
    config: Config,
    cancel: CancellationToken,
    auditor: JoinHandle<Result<(), AuditError>>,
    user_inbox: Inbox,
    witness: Tap,
    roles: Roles,
    /// The task log of the same data dir, which the timelines read.
    log: TaskLogHandle,
}

struct Roles {
    user: BusHandle,
    r1: BusHandle,
    r2: BusHandle,
    dispatcher: BusHandle,
    r3: BusHandle,
    r4a: BusHandle,
    r4b: BusHandle,
    r5: BusHandle,
    r7: BusHandle,
}

fn config_in(dir: &Path) -> Config {
    Config::with_dirs(dir.join("data"), dir.join("workspace"))
}

impl Rig {
    fn start(config: Config) -> Rig {
        Self::start_with(config, AuditorOptions::default())
    }

    fn start_with(config: Config, options: AuditorOptions) -> Rig {
        let clock = FakeClock::at_epoch();
        let bus = Bus::new(clock.clone());
        let witness = bus.tap("witness", 1 << 20);
        let user_inbox = bus.subscribe(Role::User);
        let auditor =
            Auditor::open_with(&bus, &config, clock.clone(), options).expect("auditor opens");
        let cancel = CancellationToken::new();
        let auditor = tokio::spawn(auditor.run(cancel.clone()));
        let (writer, log) = TaskLogWriter::on_bus(&bus, &config.data_dir, clock.clone(), 256);
        tokio::spawn(writer.run());
        let roles = Roles {
            user: bus.handle(Role::User),
            r1: bus.handle(Role::Perceiver),
            r2: bus.handle(Role::Planner),
            dispatcher: bus.handle(Role::Dispatcher),
            r3: bus.handle(Role::Executor),
            r4a: bus.handle(Role::AgentValidator),
            r4b: bus.handle(Role::MetaValidator),
            r5: bus.handle(Role::Memory),
            r7: bus.handle(Role::Ggs),
        };
        Rig {
            bus,
            clock,
            config,
            cancel,
            auditor,
            user_inbox,
            witness,
            roles,
            log,
        }
    }

    fn now(&self) -> DateTime<Utc> {
        use artoo::Clock;
        self.clock.now()
    }

    /// Asks for an on-demand report the way the UI does, bounded by the 3 s the seed
    /// allows.
    async fn query(&self) -> AuditReport {
        let query_id = QueryId::mint();
        let pending = self
            .roles
            .user
            .request(Role::Auditor, AuditQuery { query_id });
        let env = tokio::time::timeout(Duration::from_secs(3), pending)
            .await
            .expect("the auditor answers within 3 s")
            .expect("the bus is open");
        assert_eq!((env.from, env.to), (Role::Auditor, Role::User));
        match &env.message {
            Message::AuditReport(r) => {
                assert_eq!(r.query_id, Some(query_id));
                assert_eq!(r.trigger, AuditTrigger::OnDemand);
                r.clone()
            }
            other => panic!("the auditor answered with {:?}", other.kind()),
        }
    }

    /// Stops the auditor (it logs what is still buffered) and returns every envelope the
    /// witness tap saw.
    async fn stop(mut self) -> (Config, Vec<Arc<Envelope>>) {
        self.log.close().await.expect("the task log closes");
        self.cancel.cancel();
        self.auditor
            .await
            .expect("the auditor task does not panic")
            .expect("the auditor stops cleanly");
        self.bus.close();
        let mut seen = Vec::new();
        while let Some(event) = self.witness.recv().await {
            match event {
                TapEvent::Message(env) => seen.push(env),
                TapEvent::Gap { .. } => panic!("the witness tap is large enough"),
            }
        }
        (self.config, seen)
    }
}

// ---------------------------------------------------------------------------------------
// Realistic traffic of whole tasks, from the roles that send it.
// ---------------------------------------------------------------------------------------

const INTENT: &str = "Find the largest video files in ~/Downloads";

fn loss(d: f64) -> Loss {
    Loss {
        d,
        p: 0.2,
        omega: 0.1,
        l: 0.6 * d + 0.06 + 0.04,
    }
}

fn record(ok: bool) -> ToolCallRecord {
    ToolCallRecord {
        tool: ToolName::Shell.into(),
        input: json!({"command": "ls -S ~/Downloads"}),
        target: "ls -S ~/Downloads".into(),
        output_head: if ok {
            "big.mp4\nsmall.mkv".into()
        } else {
            String::new()
        },
        status: if ok {
            ToolCallStatus::Ok
        } else {
            ToolCallStatus::Error
        },
        error: (!ok).then(|| "No such file or directory".into()),
        duration_ms: 12,
        confirmation: None,
        failure: None,
        failed_exit: None,
        effects: Vec::new(),
        grant: None,
    }
}

fn spec(task: &TaskId, intent: &str) -> TaskSpec {
    TaskSpec {
        task_id: task.clone(),
        intent: intent.into(),
        constraints: Constraints::default(),
        raw_input: intent.into(),
        answer: Default::default(),
    }
}

fn subtask(task: &TaskId, sequence: i64) -> SubTask {
    SubTask {
        subtask_id: SubTaskId::mint(),
        parent_task_id: task.clone(),
        intent: format!("list video files, step {sequence}"),
        context: "~/Downloads".into(),
        success_criteria: vec![Criterion::new("output names at least one video file")],
        sequence,
        deadline: None,
        blocked_tools: vec![],
        blocked_targets: vec![],
        confirm_tools: vec![],
        answer: Default::default(),
        request: None,
    }
}

fn execution(sub: &SubTask, attempt: u32, status: ExecutionStatus) -> ExecutionResult {
    ExecutionResult {
        subtask_id: sub.subtask_id,
        parent_task_id: sub.parent_task_id.clone(),
        status,
        output: "big.mp4".into(),
        tool_calls: vec![record(status != ExecutionStatus::Failed)],
        attempt,
        interrupted: None,
    }
}

fn correction(sub: &SubTask, attempt: u32, class: FailureClass) -> CorrectionSignal {
    CorrectionSignal {
        subtask_id: sub.subtask_id,
        parent_task_id: sub.parent_task_id.clone(),
        attempt_number: attempt,
        failed_criterion: "output names at least one video file".into(),
        failure_class: class,
        what_was_wrong: "the directory was not found".into(),
        what_to_do: "expand ~ first".into(),
        calls_to_avoid: vec![record(false)],
    }
}

fn outcome(sub: &SubTask, status: SubTaskStatus) -> SubTaskOutcome {
    SubTaskOutcome {
        subtask_id: sub.subtask_id,
        parent_task_id: sub.parent_task_id.clone(),
        status,
        output: json!(["big.mp4"]),
        failure_reason: (status == SubTaskStatus::Failed).then(|| "criterion unmet".into()),
        gap_trajectory: vec![GapPoint {
            attempt: 1,
            score: if status == SubTaskStatus::Matched {
                1.0
            } else {
                0.0
            },
            unmet_criteria: vec![],
            failure_class: None,
        }],
        criteria_verdicts: vec![],
        tool_calls: vec![record(true)],
    }
}

fn llm(task: &TaskId, role: Role, error: Option<&str>) -> LlmCall {
    LlmCall {
        task_id: Some(task.clone()),
        role,
        model: "qwen2.5-coder-0.5b".into(),
        system_prompt: "you are…".into(),
        user_prompt: "…".into(),
        response: "{}".into(),
        prompt_tokens: 120,
        completion_tokens: 40,
        elapsed_ms: 700,
        error: error.map(str::to_string),
    }
}

fn plan_directive(
    task: &TaskId,
    directive: ReplanDirective,
    d: f64,
    grad_l: f64,
    round: u32,
) -> PlanDirective {
    PlanDirective {
        task_id: task.clone(),
        loss: loss(d),
        prev_directive: PrevDirective::Init,
        directive,
        blocked_tools: vec![],
        blocked_targets: vec!["~/Downloads/missing".into()],
        failed_criterion: "output names at least one video file".into(),
        failure_class: MixedFailureClass::Environmental,
        budget_pressure: 0.1,
        grad_l,
        rationale: "the path did not exist".into(),
        urgency: Urgency::Normal,
        gradient: None,
        round,
    }
}

fn final_result(
    task: &TaskId,
    directive: TerminalDirective,
    d: f64,
    grad_l: f64,
    replans: u32,
    summary: &str,
) -> FinalResult {
    FinalResult {
        task_id: task.clone(),
        summary: summary.into(),
        output: json!({"files": ["big.mp4"]}),
        loss: loss(d),
        grad_l,
        replans,
        prev_directive: PrevDirective::Refine,
        directive,
        next_moves: vec![],
        effects: Vec::new(),
        grants: Vec::new(),
        scheduled: None,
        law1: Default::default(),
        account: Vec::new(),
        unverified: Vec::new(),
        not_met: Vec::new(),
    }
}

fn megram(task: Option<&TaskId>, state: MegramOrigin, now: DateTime<Utc>) -> MegramWrite {
    MegramWrite {
        task_id: task.cloned(),
        megram: Megram {
            id: MegramId::mint(),
            level: Level::M,
            created_at: now,
            last_recalled_at: None,
            space: "intent:find-largest".into(),
            entity: "env:local".into(),
            content: "listing ~/Downloads needs the expanded path".into(),
            state,
            f: 0.8,
            sigma: 1.0,
            k: 0.05,
        },
        against_rule: None,
    }
}

fn confirmation(task: &TaskId, expires_at: DateTime<Utc>) -> ConfirmationRequest {
    ConfirmationRequest {
        request_id: RequestId::mint(),
        task_id: task.clone(),
        subtask_id: None,
        tool: ToolName::Shell.into(),
        description: "delete 1 file".into(),
        command: "rm ~/Downloads/old.mp4".into(),
        paths: vec![PathEffect {
            path: "/home/u/Downloads/old.mp4".into(),
            exists: true,
            effect: "delete".into(),
        }],
        reversible: false,
        reversible_alternative: Some("move to Trash".into()),
        can_trash: true,
        expires_at,
        scopes: vec![artoo::contracts::ApprovalScope::Once],
        grant: None,
        effect_grant: None,
    }
}

fn memory_response(task: &TaskId) -> MemoryResponse {
    MemoryResponse {
        task_id: task.clone(),
        space: "intent:find-largest".into(),
        entity: "env:local".into(),
        sops: vec![],
        potentials: Potentials {
            attention: 0.0,
            decision: 0.0,
            action: MemoryAction::Ignore,
        },
        recent: vec![],
        error: None,
    }
}

impl Rig {
    /// GGS sends R2 a replan directive.
    fn directive(
        &self,
        task: &TaskId,
        directive: ReplanDirective,
        d: f64,
        grad_l: f64,
        round: u32,
    ) {
        self.roles.r7.publish(
            Role::Planner,
            plan_directive(task, directive, d, grad_l, round),
        );
    }

    /// R2 hands a plan to R4b and the dispatcher, which releases each sub-task to its
    /// executor and agent-validator.
    fn dispatch(&self, task: &TaskId, subs: &[SubTask], round: u32, intent: &str) {
        let r = &self.roles;
        let manifest = DispatchManifest {
            task_id: task.clone(),
            subtasks: subs.to_vec(),
            task_spec: Some(spec(task, intent)),
            dispatched_at: self.now(),
            task_criteria: vec![Criterion::new("the answer names the largest file")],
            round,
        };
        r.r2.publish(Role::Dispatcher, manifest);
        for sub in subs {
            r.dispatcher.publish(Role::Executor, sub.clone());
        }
    }

    /// A task whose first sequence group fails: the dispatcher halts the rest, R4b asks
    /// for a replan and GGS abandons.
    fn halted_task(&self, task: &TaskId) {
        let r = &self.roles;
        let intent = "Convert the videos to MP4";
        r.r1.publish(Role::Planner, spec(task, intent));
        let subs = vec![subtask(task, 1), subtask(task, 2)];
        self.dispatch(task, &subs, 0, intent);
        r.r3.publish(
            Role::AgentValidator,
            execution(&subs[0], 1, ExecutionStatus::Failed),
        );
        r.r4a.publish(
            Role::MetaValidator,
            outcome(&subs[0], SubTaskStatus::Failed),
        );
        r.dispatcher.publish(
            Role::MetaValidator,
            DispatchHalted {
                task_id: task.clone(),
                skipped: vec![subs[1].subtask_id],
                reason: "group 1 failed".into(),
                unrun: vec![],
            },
        );
        r.r4b.publish(
            Role::Ggs,
            ReplanRequest {
                task_id: task.clone(),
                intent: intent.into(),
                gap_summary: "ffmpeg is not installed".into(),
                failed_outcomes: vec![outcome(&subs[0], SubTaskStatus::Failed)],
                matched_outcomes: vec![],
                failed_subtasks: vec![subs[0].subtask_id],
                task_criteria_verdicts: vec![],
                unrun_subtasks: vec![],
                unjudged_task_criteria: vec![],
                correction_count: 0,
                elapsed_ms: 2_000,
                recommendation: Recommendation::Abandon,
            },
        );
        r.r7.publish(
            Role::User,
            final_result(
                task,
                TerminalDirective::Abandon,
                1.0,
                0.0,
                0,
                "ffmpeg is missing; nothing was converted",
            ),
        );
        r.r7.publish(
            Role::Memory,
            megram(Some(task), MegramOrigin::Abandon, self.now()),
        );
        self.close(task);
    }

    /// One planning round: memory, manifest, two sub-tasks through the fast loop (one
    /// needing a correction) and their outcomes. Returns the sub-tasks.
    fn round(&self, task: &TaskId, round: u32, intent: &str) -> Vec<SubTask> {
        let r = &self.roles;
        let query_id = r.r2.publish(
            Role::Memory,
            MemoryQuery {
                task_id: task.clone(),
                space: "intent:find-largest".into(),
                entity: "env:local".into(),
            },
        );
        r.r5.reply(Role::Planner, query_id, memory_response(task));
        r.r2.publish(
            Role::Ggs,
            MemoryRecall {
                task_id: task.clone(),
                space: "intent:find-largest".into(),
                entity: "env:local".into(),
                sops: vec![],
                potentials: memory_response(task).potentials,
                constraints: vec![],
                round,
                error: None,
            },
        );
        r.r2.publish(Role::Observer, llm(task, Role::Planner, None));
        let subs = vec![subtask(task, 1), subtask(task, 2)];
        self.dispatch(task, &subs, round, intent);
        for (i, sub) in subs.iter().enumerate() {
            r.r3.publish(Role::Observer, llm(task, Role::Executor, None));
            r.r3.publish(
                Role::Observer,
                ToolCallEvent {
                    task_id: task.clone(),
                    subtask_id: sub.subtask_id,
                    attempt: 1,
                    record: record(true),
                    granted: None,
                },
            );
            if i == 1 {
                r.r3.publish(
                    Role::AgentValidator,
                    execution(sub, 1, ExecutionStatus::Uncertain),
                );
                r.r4a
                    .publish(Role::Observer, llm(task, Role::AgentValidator, None));
                r.r4a.publish(
                    Role::Executor,
                    correction(sub, 1, FailureClass::Environmental),
                );
                r.r3.publish(Role::Observer, llm(task, Role::Executor, None));
                r.r3.publish(
                    Role::AgentValidator,
                    execution(sub, 2, ExecutionStatus::Completed),
                );
            } else {
                r.r3.publish(
                    Role::AgentValidator,
                    execution(sub, 1, ExecutionStatus::Completed),
                );
            }
            r.r4a
                .publish(Role::Observer, llm(task, Role::AgentValidator, None));
            r.r4a.publish(
                Role::Executor,
                SubTaskClosed {
                    subtask_id: sub.subtask_id,
                    parent_task_id: task.clone(),
                    status: SubTaskStatus::Matched,
                    output: json!(["big.mp4"]),
                },
            );
            r.r4a
                .publish(Role::MetaValidator, outcome(sub, SubTaskStatus::Matched));
        }
        r.r4b
            .publish(Role::Observer, llm(task, Role::MetaValidator, None));
        subs
    }

    /// A whole task that needs one replan and succeeds; a Law 1 gate fires (approved by
    /// the user) when `gate` is set.
    fn successful_task(&self, task: &TaskId, gate: bool) {
        let r = &self.roles;
        r.user.publish(
            Role::Perceiver,
            TaskSubmitted {
                task_id: task.clone(),
                raw_input: INTENT.into(),
                submitted_at: self.now(),
                session_history: vec![],
                time_budget_ms: 120_000,
                scheduled: None,
            },
        );
        r.r1.publish(Role::Observer, llm(task, Role::Perceiver, None));
        r.r1.publish(
            Role::User,
            ClarificationRequest {
                task_id: task.clone(),
                question: "Only videos, or all files?".into(),
                round: 1,
            },
        );
        r.user.publish(
            Role::Perceiver,
            ClarificationAnswer {
                task_id: task.clone(),
                answer: "only videos".into(),
            },
        );
        r.r1.publish(Role::Planner, spec(task, INTENT));

        let subs = self.round(task, 0, INTENT);
        self.clock.advance(chrono::Duration::seconds(5));
        r.r4b.publish(
            Role::Ggs,
            ReplanRequest {
                task_id: task.clone(),
                intent: INTENT.into(),
                gap_summary: "the largest file is not named".into(),
                failed_outcomes: vec![outcome(&subs[0], SubTaskStatus::Failed)],
                matched_outcomes: vec![outcome(&subs[1], SubTaskStatus::Matched)],
                failed_subtasks: vec![subs[0].subtask_id],
                task_criteria_verdicts: vec![],
                unrun_subtasks: vec![],
                unjudged_task_criteria: vec![],
                correction_count: 1,
                elapsed_ms: 5_000,
                recommendation: Recommendation::Replan,
            },
        );
        self.directive(task, ReplanDirective::Refine, 0.5, 0.0, 1);
        r.r7.publish(
            Role::Memory,
            megram(Some(task), MegramOrigin::Refine, self.now()),
        );

        let subs = self.round(task, 1, INTENT);
        let mut summary = "big.mp4 (2.1 GB) is the largest video".to_string();
        if gate {
            let request = confirmation(task, self.now() + chrono::Duration::seconds(60));
            r.r3.publish(Role::User, request.clone());
            r.user.publish(
                Role::Executor,
                ConfirmationDecision {
                    request_id: request.request_id,
                    task_id: task.clone(),
                    decision: Decision::Approve,
                    source: DecisionSource::User,
                    scope: artoo::contracts::ApprovalScope::Once,
                },
            );
            summary = format!("{LAW1_PREFIX} {summary}; old.mp4 deleted as you approved");
        }
        r.r4b.publish(
            Role::Ggs,
            OutcomeSummary {
                task_id: task.clone(),
                intent: INTENT.into(),
                merged_output: json!({"largest": "big.mp4"}),
                summary: "big.mp4 is the largest".into(),
                task_criteria_verdicts: vec![],
                outcomes: subs
                    .iter()
                    .map(|s| outcome(s, SubTaskStatus::Matched))
                    .collect(),
                elapsed_ms: 9_000,
            },
        );
        self.clock.advance(chrono::Duration::seconds(4));
        r.r7.publish(
            Role::User,
            final_result(task, TerminalDirective::Accept, 0.0, -0.3, 1, &summary),
        );
        r.r7.publish(
            Role::Memory,
            megram(Some(task), MegramOrigin::Accept, self.now()),
        );
        self.close(task);
    }

    /// The runtime's announcement that a task ended with its result.
    fn close(&self, task: &TaskId) {
        self.roles.user.publish(
            Role::All,
            TaskClosed {
                task_id: task.clone(),
                end: TaskClosure::Finished,
            },
        );
    }

    /// A task the planner cannot plan: GGS abandons honestly, with a graceful failure.
    fn abandoned_task(&self, task: &TaskId) {
        let r = &self.roles;
        r.r1.publish(Role::Planner, spec(task, "Compile the quarterly report"));
        r.r2.publish(
            Role::Ggs,
            PlanningFailed {
                task_id: task.clone(),
                intent: "Compile the quarterly report".into(),
                reason: "no tool can read the spreadsheet".into(),
                round: 0,
            },
        );
        let request = r.r7.publish(
            Role::Planner,
            GracefulFailureRequest {
                task_id: task.clone(),
                intent: "Compile the quarterly report".into(),
                reason: "no valid plan".into(),
                matched_outputs: vec![],
                failures: vec!["no tool can read the spreadsheet".into()],
            },
        );
        r.r2.reply(
            Role::Ggs,
            request,
            GracefulFailure {
                task_id: task.clone(),
                accomplished: "nothing yet".into(),
                next_moves: vec!["export the sheet as CSV".into()],
            },
        );
        r.r7.publish(
            Role::User,
            final_result(
                task,
                TerminalDirective::Abandon,
                1.0,
                0.0,
                0,
                "I could not compile the report",
            ),
        );
        r.r7.publish(
            Role::Memory,
            megram(Some(task), MegramOrigin::Abandon, self.now()),
        );
        self.close(task);
    }

    /// Traffic outside tasks: a chat reply, a cancelled task, operator memory edits and
    /// a Dreamer model call.
    fn other_traffic(&self, chat: &TaskId, cancelled: &TaskId) {
        let r = &self.roles;
        r.r1.publish(
            Role::User,
            ChatReply {
                task_id: chat.clone(),
                answer: "Hello! I am artoo.".into(),
            },
        );
        r.r1.publish(Role::Planner, spec(cancelled, "Tidy up the desktop"));
        r.user.publish(
            Role::All,
            TaskClosed::cancelled(cancelled.clone(), "cancelled by the user"),
        );
        r.user.publish(
            Role::Memory,
            MemoryOperatorChange {
                operation: MemoryOperation::Pin,
                megram_ids: vec![MegramId::mint()],
                detail: "pinned".into(),
            },
        );
        let mut dreamer = llm(chat, Role::Memory, None);
        dreamer.task_id = None;
        r.r5.publish(Role::Observer, dreamer);
    }

    /// A minimal task for the drift window: `executions` results of which `failed`
    /// failed, `corrections` corrections, closed by GGS.
    fn small_task(&self, executions: u32, failed: u32, corrections: u32, model_errors: u32) {
        let r = &self.roles;
        let task = TaskId::mint();
        r.r1.publish(Role::Planner, spec(&task, "Rename the photos by date"));
        let sub = subtask(&task, 1);
        r.dispatcher.publish(Role::Executor, sub.clone());
        for i in 0..executions {
            let status = if i < failed {
                ExecutionStatus::Failed
            } else {
                ExecutionStatus::Completed
            };
            r.r3.publish(Role::AgentValidator, execution(&sub, i + 1, status));
        }
        for i in 0..corrections {
            r.r4a.publish(
                Role::Executor,
                correction(&sub, i + 1, FailureClass::Logical),
            );
        }
        for i in 0..3 {
            let error = (i < model_errors).then_some("unparseable JSON");
            r.r4a
                .publish(Role::Observer, llm(&task, Role::AgentValidator, error));
        }
        r.r7.publish(
            Role::User,
            final_result(&task, TerminalDirective::Success, 0.1, -0.2, 0, "renamed"),
        );
    }
}

/// The next report in the user's inbox (which also gets questions and results).
async fn next_report(inbox: &mut Inbox) -> AuditReport {
    loop {
        let env = inbox.recv().await.expect("the bus is open");
        if let Message::AuditReport(report) = &env.message {
            return report.clone();
        }
    }
}

fn assert_clean(report: &AuditReport) {
    assert!(
        report.boundary_violations.is_empty(),
        "{:?}",
        report.boundary_violations
    );
    assert!(report.drift_alerts.is_empty(), "{:?}", report.drift_alerts);
    assert!(report.anomalies.is_empty(), "{:?}", report.anomalies);
}

fn mentions(lines: &[String], needle: &str) -> bool {
    lines.iter().any(|l| l.contains(needle))
}

// ---------------------------------------------------------------------------------------
// The full scenario: only reports to the user, nothing anomalous, the whole contract.
// ---------------------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn over_a_full_scripted_scenario_the_auditor_publishes_only_reports_to_the_user() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let (a, b, chat, cancelled, c, halted) = (
        TaskId::mint(),
        TaskId::mint(),
        TaskId::mint(),
        TaskId::mint(),
        TaskId::mint(),
        TaskId::mint(),
    );
    rig.successful_task(&a, true);
    rig.successful_task(&b, false);
    rig.abandoned_task(&c);
    rig.halted_task(&halted);
    rig.other_traffic(&chat, &cancelled);

    let on_demand = rig.query().await;
    assert_clean(&on_demand);
    assert_eq!(on_demand.tasks_observed, 6);
    assert_eq!(on_demand.total_corrections, 4);
    assert_eq!(on_demand.tool_health.environmental_retries, 4);
    assert_eq!(on_demand.tool_health.execution_failures, 1);
    assert_eq!(on_demand.law1.requests, 1);
    assert_eq!(on_demand.law1.approved, 1);
    let trends: Vec<_> = on_demand
        .gap_trends
        .iter()
        .map(|g| (g.task_id.clone(), g.trend))
        .collect();
    assert!(trends.contains(&(a.clone(), Trend::Improving)));
    assert!(trends.contains(&(c.clone(), Trend::Stable)));

    // The periodic report closes the window 5 minutes in.
    rig.clock.advance(chrono::Duration::seconds(300));
    tokio::time::sleep(Duration::from_secs(301)).await;
    let (config, seen) = rig.stop().await;

    // The pipeline's traffic uses every message type, and all of it is in the contract
    // table: the clean report above had no boundary violation.
    let kinds: BTreeSet<MessageKind> = seen.iter().map(|e| e.message.kind()).collect();
    let all: BTreeSet<MessageKind> = MessageKind::ALL.iter().copied().collect();
    assert_eq!(kinds, all, "the scenario covers every message type");
    for env in &seen {
        assert!(
            is_allowed(env.message.kind(), env.from, env.to),
            "{:?} {} → {}",
            env.message.kind(),
            env.from,
            env.to
        );
    }

    let from_auditor: Vec<_> = seen.iter().filter(|e| e.from == Role::Auditor).collect();
    assert_eq!(
        from_auditor.len(),
        2,
        "one on-demand and one periodic report"
    );
    for env in &from_auditor {
        assert_eq!(env.to, Role::User);
        assert!(matches!(env.message, Message::AuditReport(_)));
    }
    let Message::AuditReport(periodic) = &from_auditor[1].message else {
        unreachable!()
    };
    assert_eq!(periodic.trigger, AuditTrigger::Periodic);
    assert_clean(periodic);
    assert_eq!(periodic.tasks_observed, 6);

    // Both reports are kept for the history, newest first, and the log verifies.
    let history = AuditHistory::new(&config.data_dir);
    let kept = history.reports(10).unwrap();
    assert_eq!(kept.len(), 2);
    assert_eq!(kept[0].report_id, periodic.report_id);
    assert_eq!(kept[1].report_id, on_demand.report_id);
    let verified = history.verify().unwrap();
    assert!(verified.is_clean(), "{:?}", verified.broken);
    assert_eq!(
        verified.events,
        seen.len() as u64 + 1,
        "one event per message + start"
    );
    assert_eq!(verified.reports, 2);
    assert!(
        history
            .events(&EventFilter {
                anomaly: Some(AnomalyFilter::Any),
                ..EventFilter::default()
            })
            .unwrap()
            .is_empty()
    );
}

#[tokio::test(start_paused = true)]
async fn an_idle_window_gets_no_periodic_report_and_reports_do_not_count_as_activity() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::start(config_in(dir.path()));
    tokio::time::sleep(Duration::from_secs(301)).await;
    assert!(rig.user_inbox.try_recv().is_none(), "nothing happened");

    rig.successful_task(&TaskId::mint(), false);
    rig.clock.advance(chrono::Duration::seconds(600));
    tokio::time::sleep(Duration::from_secs(300)).await;
    let report = next_report(&mut rig.user_inbox).await;
    assert_eq!(report.trigger, AuditTrigger::Periodic);
    assert_eq!(report.window_end, rig.now());

    // The report itself (and an on-demand query) do not make the next window non-empty.
    rig.query().await;
    tokio::time::sleep(Duration::from_secs(600)).await;
    let mut more = Vec::new();
    while let Some(env) = rig.user_inbox.try_recv() {
        if matches!(env.message, Message::AuditReport(_)) && env.in_reply_to.is_none() {
            more.push(env);
        }
    }
    assert!(
        more.is_empty(),
        "{} periodic reports of idle windows",
        more.len()
    );
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn an_on_demand_report_does_not_close_the_window_but_a_periodic_one_does() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    rig.successful_task(&TaskId::mint(), false);
    let first = rig.query().await;
    let second = rig.query().await;
    assert_eq!(first.tasks_observed, 1);
    assert_eq!(second.tasks_observed, 1);
    assert_eq!(first.window_start, second.window_start);

    rig.clock.advance(chrono::Duration::seconds(300));
    tokio::time::sleep(Duration::from_secs(301)).await;
    let after = rig.query().await;
    assert_eq!(after.tasks_observed, 0);
    assert_eq!(after.window_start, rig.now());
    rig.stop().await;
}

// ---------------------------------------------------------------------------------------
// Each detector on an injected violation.
// ---------------------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn every_class_of_boundary_violation_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let task = TaskId::mint();
    let r = &rig.roles;
    // R3 querying R5 directly (seed 000 §8's example).
    r.r3.publish(
        Role::Memory,
        MemoryQuery {
            task_id: task.clone(),
            space: "tool:shell".into(),
            entity: "path:~".into(),
        },
    );
    // The planner answering the user itself (the Go version's planning-failure path).
    r.r2.publish(
        Role::User,
        final_result(&task, TerminalDirective::Abandon, 1.0, 0.0, 0, "failed"),
    );
    // A role trying to instruct the auditor: logged, never answered.
    r.r2.publish(
        Role::Auditor,
        AuditQuery {
            query_id: QueryId::mint(),
        },
    );
    // A reversed flow.
    r.r2.publish(Role::Perceiver, spec(&task, INTENT));
    // A model call published under another role's name.
    r.r3.publish(Role::Observer, llm(&task, Role::Planner, None));
    // A Megram written by someone other than GGS.
    r.r2.publish(
        Role::Memory,
        megram(Some(&task), MegramOrigin::Accept, rig.now()),
    );

    let report = rig.query().await;
    let v = &report.boundary_violations;
    assert!(mentions(v, "R3 sent MemoryQuery to R5"), "{v:?}");
    assert!(mentions(v, "R2 sent FinalResult to User"), "{v:?}");
    assert!(mentions(v, "R2 sent AuditQuery to R6"), "{v:?}");
    assert!(mentions(v, "R2 sent TaskSpec to R1"), "{v:?}");
    assert!(
        mentions(v, "R3 published a model call attributed to R2"),
        "{v:?}"
    );
    assert!(mentions(v, "R2 sent Megram to R5"), "{v:?}");
    assert_eq!(v.len(), 6, "{v:?}");
    // Not GGS's Megram and not GGS's decision: no Law 3 noise on top.
    assert!(
        !mentions(&report.anomalies, "law3"),
        "{:?}",
        report.anomalies
    );

    let (config, seen) = rig.stop().await;
    let reports = seen
        .iter()
        .filter(|e| matches!(e.message, Message::AuditReport(_)))
        .count();
    assert_eq!(reports, 1, "the planner's query was not answered");
    let flagged = AuditHistory::new(&config.data_dir)
        .events(&EventFilter {
            anomaly: Some(AnomalyFilter::Kind(AnomalyKind::BoundaryViolation)),
            ..EventFilter::default()
        })
        .unwrap();
    assert_eq!(flagged.len(), 6);
}

#[tokio::test(start_paused = true)]
async fn every_message_type_sent_outside_the_contract_table_is_a_violation() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    rig.successful_task(&TaskId::mint(), true);
    rig.abandoned_task(&TaskId::mint());
    rig.halted_task(&TaskId::mint());
    rig.other_traffic(&TaskId::mint(), &TaskId::mint());
    rig.query().await;
    let (_, seen) = rig.stop().await;

    // Replay one message of every type from the observer address, which sends nothing.
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let rogue = rig.bus.handle(Role::Observer);
    let mut replayed = BTreeSet::new();
    for env in &seen {
        if replayed.insert(env.message.kind()) {
            rogue.publish(Role::Observer, env.message.clone());
        }
    }
    assert_eq!(replayed.len(), MessageKind::ALL.len());
    let report = rig.query().await;
    for kind in MessageKind::ALL {
        assert!(
            mentions(
                &report.boundary_violations,
                &format!("Observer sent {} to Observer", kind.name())
            ),
            "{} not flagged: {:?}",
            kind.name(),
            report.boundary_violations
        );
    }
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn consecutive_break_symmetry_without_d_decreasing_is_ggs_thrashing() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let (thrash, escape) = (TaskId::mint(), TaskId::mint());
    rig.directive(&thrash, ReplanDirective::BreakSymmetry, 0.6, 0.0, 1);
    rig.directive(&thrash, ReplanDirective::BreakSymmetry, 0.6, 0.05, 2);
    // D decreasing between two break_symmetry rounds is not thrashing.
    rig.directive(&escape, ReplanDirective::BreakSymmetry, 0.6, 0.0, 1);
    rig.directive(&escape, ReplanDirective::BreakSymmetry, 0.4, -0.05, 2);
    let report = rig.query().await;
    let a = &report.anomalies;
    assert_eq!(a.len(), 1, "{a:?}");
    assert!(
        a[0].starts_with(&format!(
            "ggs_thrashing: {thrash}: 2 consecutive break_symmetry"
        )),
        "{a:?}"
    );
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn loss_worsening_across_rounds_is_a_convergence_failure() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let (diverging, noisy) = (TaskId::mint(), TaskId::mint());
    rig.directive(&diverging, ReplanDirective::Refine, 0.4, 0.0, 1);
    rig.directive(&diverging, ReplanDirective::ChangePath, 0.5, 0.2, 2);
    rig.directive(&diverging, ReplanDirective::ChangeApproach, 0.7, 0.15, 3);
    // One worsening round followed by an improving one is a trend, not a failure.
    rig.directive(&noisy, ReplanDirective::Refine, 0.5, 0.2, 1);
    rig.directive(&noisy, ReplanDirective::Refine, 0.3, -0.2, 2);
    let report = rig.query().await;
    let a = &report.anomalies;
    assert_eq!(a.len(), 1, "{a:?}");
    assert!(
        a[0].starts_with(&format!(
            "convergence_failure: {diverging}: loss worsened for 2 consecutive rounds"
        )),
        "{a:?}"
    );
    assert!(
        a[0].contains("GGS issued change_approach instead of stopping"),
        "{a:?}"
    );
    let trends: Vec<_> = report.gap_trends.iter().map(|g| g.trend).collect();
    assert_eq!(trends.len(), 2);
    assert!(
        report
            .gap_trends
            .iter()
            .any(|g| g.task_id == diverging && g.trend == Trend::Worsening)
    );
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_role_whose_retry_and_failure_rates_rise_over_the_task_window_drifts() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(dir.path());
    config.auditor.drift_window_tasks = 6;
    let rig = Rig::start(config);
    for _ in 0..3 {
        rig.small_task(2, 0, 0, 0);
    }
    let steady = rig.query().await;
    assert!(steady.drift_alerts.is_empty());
    for _ in 0..3 {
        rig.small_task(2, 2, 2, 2);
    }
    let report = rig.query().await;
    let d = &report.drift_alerts;
    assert!(
        mentions(
            d,
            "R3 execution failure rate rose from 0% (0/6) to 100% (6/6) over the last 6 tasks"
        ),
        "{d:?}"
    );
    assert!(
        mentions(d, "R3 retry rate rose from 0% (0/6) to 100% (6/6)"),
        "{d:?}"
    );
    assert!(
        mentions(
            d,
            "R4a model-call failure rate rose from 0% (0/9) to 67% (6/9)"
        ),
        "{d:?}"
    );
    assert_eq!(d.len(), 3, "{d:?}");
    assert!(report.anomalies.is_empty(), "{:?}", report.anomalies);
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_steady_pipeline_over_many_tasks_raises_no_drift() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(dir.path());
    config.auditor.drift_window_tasks = 6;
    let rig = Rig::start(config);
    for _ in 0..12 {
        rig.small_task(3, 1, 1, 1);
    }
    let report = rig.query().await;
    assert_clean(&report);
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn success_claimed_above_delta_or_a_hidden_law1_gate_violates_law0() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let (overclaim, hidden_gate, honest) = (TaskId::mint(), TaskId::mint(), TaskId::mint());
    let r = &rig.roles;
    r.r7.publish(
        Role::User,
        final_result(&overclaim, TerminalDirective::Success, 0.45, 0.0, 1, "done"),
    );
    let request = confirmation(&hidden_gate, rig.now() + chrono::Duration::seconds(60));
    r.r3.publish(Role::User, request.clone());
    r.user.publish(
        Role::Executor,
        ConfirmationDecision {
            request_id: request.request_id,
            task_id: hidden_gate.clone(),
            decision: Decision::Deny,
            source: DecisionSource::User,
            scope: artoo::contracts::ApprovalScope::Once,
        },
    );
    r.r7.publish(
        Role::User,
        final_result(
            &hidden_gate,
            TerminalDirective::Abandon,
            0.8,
            0.0,
            0,
            "could not tidy",
        ),
    );
    // D exactly δ is success, and an abandon above δ claims nothing.
    r.r7.publish(
        Role::User,
        final_result(&honest, TerminalDirective::Success, 0.3, 0.0, 0, "done"),
    );
    let report = rig.query().await;
    let a = &report.anomalies;
    assert_eq!(a.len(), 2, "{a:?}");
    assert!(
        mentions(
            a,
            &format!("law0: {overclaim}: FinalResult claims success with D=0.450 > δ=0.3")
        ),
        "{a:?}"
    );
    assert!(
        mentions(
            a,
            &format!(
                "law0: {hidden_gate}: a Law 1 confirmation gate fired but the summary does not start with [LAW1]"
            )
        ),
        "{a:?}"
    );
    assert_eq!(report.law1.denied, 1);
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_megram_without_a_ggs_decision_behind_it_violates_law3() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let (early, contradicting, fine) = (TaskId::mint(), TaskId::mint(), TaskId::mint());
    let r7 = &rig.roles.r7;
    r7.publish(
        Role::Memory,
        megram(Some(&early), MegramOrigin::Accept, rig.now()),
    );
    rig.directive(&contradicting, ReplanDirective::ChangePath, 0.5, 0.0, 1);
    r7.publish(
        Role::Memory,
        megram(Some(&contradicting), MegramOrigin::Success, rig.now()),
    );
    r7.publish(Role::Memory, megram(None, MegramOrigin::Accept, rig.now()));
    rig.directive(&fine, ReplanDirective::ChangePath, 0.5, 0.0, 1);
    r7.publish(
        Role::Memory,
        megram(Some(&fine), MegramOrigin::ChangePath, rig.now()),
    );
    r7.publish(
        Role::User,
        final_result(&fine, TerminalDirective::Accept, 0.0, -0.4, 1, "ok"),
    );
    r7.publish(
        Role::Memory,
        megram(Some(&fine), MegramOrigin::Accept, rig.now()),
    );

    let report = rig.query().await;
    let a = &report.anomalies;
    assert_eq!(a.len(), 3, "{a:?}");
    assert!(
        mentions(
            a,
            &format!(
                "law3: {early}: Megram intent:find-largest/env:local (state=accept) was written before any GGS decision"
            )
        ),
        "{a:?}"
    );
    assert!(
        mentions(
            a,
            &format!(
                "law3: {contradicting}: Megram intent:find-largest/env:local (state=success) contradicts GGS's last decision for the task (change_path)"
            )
        ),
        "{a:?}"
    );
    assert!(
        mentions(
            a,
            "law3: GGS wrote Megram intent:find-largest/env:local (state=accept) without a task"
        ),
        "{a:?}"
    );
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn an_approval_not_given_by_the_user_violates_law1() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let task = TaskId::mint();
    let r = &rig.roles;
    let timed_out = confirmation(&task, rig.now() + chrono::Duration::seconds(60));
    r.r3.publish(Role::User, timed_out.clone());
    r.user.publish(
        Role::Executor,
        ConfirmationDecision {
            request_id: timed_out.request_id,
            task_id: task.clone(),
            decision: Decision::Approve,
            source: DecisionSource::Timeout,
            scope: artoo::contracts::ApprovalScope::Once,
        },
    );
    let late = confirmation(&task, rig.now() + chrono::Duration::seconds(60));
    r.r3.publish(Role::User, late.clone());
    rig.clock.advance(chrono::Duration::seconds(61));
    r.user.publish(
        Role::Executor,
        ConfirmationDecision {
            request_id: late.request_id,
            task_id: task.clone(),
            decision: Decision::Trash,
            source: DecisionSource::User,
            scope: artoo::contracts::ApprovalScope::Once,
        },
    );
    let report = rig.query().await;
    let a = &report.anomalies;
    assert_eq!(a.len(), 2, "{a:?}");
    assert!(
        mentions(a, "came from the timeout, not from the user"),
        "{a:?}"
    );
    assert!(mentions(a, "arrived after it expired"), "{a:?}");
    assert_eq!(
        (
            report.law1.requests,
            report.law1.approved,
            report.law1.trashed
        ),
        (2, 1, 1)
    );
    rig.stop().await;
}

// ---------------------------------------------------------------------------------------
// Gaps, restarts, history.
// ---------------------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn a_tap_gap_becomes_an_anomaly_in_the_log_and_the_next_report() {
    let dir = tempfile::tempdir().unwrap();
    let options = AuditorOptions {
        tap_capacity: 8,
        ..AuditorOptions::default()
    };
    let rig = Rig::start_with(config_in(dir.path()), options);
    // A burst the auditor cannot read in between (single-threaded runtime).
    let task = TaskId::mint();
    for _ in 0..50 {
        rig.roles
            .r4a
            .publish(Role::Observer, llm(&task, Role::AgentValidator, None));
    }
    let report = rig.query().await;
    assert!(
        mentions(
            &report.anomalies,
            "tap_gap: the auditor's tap fell behind and lost 43 bus messages"
        ),
        "{:?}",
        report.anomalies
    );
    let (config, _) = rig.stop().await;
    let gaps = AuditHistory::new(&config.data_dir)
        .events(&EventFilter {
            kind: Some(EventKind::TapGap),
            ..EventFilter::default()
        })
        .unwrap();
    assert_eq!(gaps.len(), 1);
    assert!(gaps[0].has_anomaly(AnomalyKind::TapGap));
    assert_eq!(gaps[0].detail, "43 bus messages lost");
}

#[tokio::test(start_paused = true)]
async fn window_statistics_and_calibration_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let task = TaskId::mint();
    rig.successful_task(&task, true);
    rig.directive(&TaskId::mint(), ReplanDirective::BreakSymmetry, 0.9, 0.0, 1);
    let before = rig.query().await;
    let (config, _) = rig.stop().await;

    let rig = Rig::start(config.clone());
    let after = rig.query().await;
    assert_eq!(after.window_start, before.window_start);
    assert_eq!(after.tasks_observed, before.tasks_observed);
    assert_eq!(after.total_corrections, before.total_corrections);
    assert_eq!(after.gap_trends, before.gap_trends);
    assert_eq!(after.tool_health, before.tool_health);
    assert_eq!(after.law1, before.law1);
    assert_clean(&after);
    rig.stop().await;

    let history = AuditHistory::new(&config.data_dir);
    let calibration = history.calibration().unwrap();
    let refine = calibration
        .directives
        .iter()
        .find(|d| d.directive == "refine")
        .unwrap();
    assert_eq!((refine.issued, refine.followed, refine.improved), (1, 1, 1));
    let class = calibration
        .classes
        .iter()
        .find(|c| c.class == task_class(INTENT))
        .unwrap();
    assert_eq!((class.finished, class.succeeded), (1, 1));
    assert_eq!(class.mean_rounds_to_success, Some(2.0));
    let verified = history.verify().unwrap();
    assert!(verified.is_clean(), "{:?}", verified.broken);
    let starts = history
        .events(&EventFilter {
            kind: Some(EventKind::AuditorStarted),
            ..EventFilter::default()
        })
        .unwrap();
    assert_eq!(starts.len(), 2);
    assert!(starts.iter().all(|e| e.anomalies.is_empty()));
}

#[tokio::test(start_paused = true)]
async fn a_second_auditor_on_the_same_data_dir_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let other = Bus::new(FakeClock::at_epoch());
    let err = Auditor::open(&other, &rig.config, FakeClock::at_epoch())
        .err()
        .expect("the log is locked");
    assert!(matches!(err, AuditError::Locked(_)), "{err}");
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn the_history_filters_events_by_task_type_role_and_anomaly_and_builds_timelines() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let (a, b) = (TaskId::mint(), TaskId::mint());
    rig.successful_task(&a, false);
    rig.successful_task(&b, false);
    rig.roles.r7.publish(
        Role::Memory,
        megram(Some(&TaskId::mint()), MegramOrigin::Accept, rig.now()),
    );
    rig.query().await;
    let (config, seen) = rig.stop().await;
    let history = AuditHistory::new(&config.data_dir);

    let of_a = history
        .events(&EventFilter {
            task: Some(a.clone()),
            limit: 10_000,
            ..EventFilter::default()
        })
        .unwrap();
    let expected = seen
        .iter()
        .filter(|e| e.task_id.as_ref() == Some(&a))
        .count();
    assert_eq!(of_a.len(), expected);
    assert!(of_a.windows(2).all(|w| w[0].seq < w[1].seq), "oldest first");

    let directives = history
        .events(&EventFilter {
            kind: Some(EventKind::Message(MessageKind::PlanDirective)),
            ..EventFilter::default()
        })
        .unwrap();
    assert_eq!(directives.len(), 2);
    assert!(
        directives
            .iter()
            .all(|e| e.state == Some(MacroState::Refine))
    );

    let to_or_from_r4b = history
        .events(&EventFilter {
            role: Some(Role::MetaValidator),
            task: Some(b.clone()),
            limit: 10_000,
            ..EventFilter::default()
        })
        .unwrap();
    let expected = seen
        .iter()
        .filter(|e| e.task_id.as_ref() == Some(&b))
        .filter(|e| e.from == Role::MetaValidator || e.to == Role::MetaValidator)
        .count();
    assert_eq!(to_or_from_r4b.len(), expected);

    let newest_two = history
        .events(&EventFilter {
            limit: 2,
            ..EventFilter::default()
        })
        .unwrap();
    assert_eq!(newest_two.len(), 2);
    let older = history
        .events(&EventFilter {
            limit: 2,
            before_seq: Some(newest_two[0].seq),
            ..EventFilter::default()
        })
        .unwrap();
    assert_eq!(
        older[1].seq + 1,
        newest_two[0].seq,
        "paging continues backwards"
    );

    let law3 = history
        .events(&EventFilter {
            anomaly: Some(AnomalyFilter::Kind(AnomalyKind::Law3)),
            ..EventFilter::default()
        })
        .unwrap();
    assert_eq!(law3.len(), 1);
    assert_eq!(law3[0].kind, EventKind::Message(MessageKind::Megram));

    let timeline = history.timeline(&a).unwrap();
    let run = timeline.run.as_ref().expect("the task's run was recorded");
    assert_eq!(run.task_id, a);
    assert_eq!(run.rounds, 2);
    assert_eq!(run.status, RunStatus::Accepted);
    assert!(
        history.timeline(&TaskId::mint()).unwrap().run.is_none(),
        "no recording, no run"
    );
    assert_eq!(timeline.anomalies, 0);
    assert_eq!(timeline.events.len(), of_a.len());
    assert_eq!(
        timeline.events.first().unwrap().kind,
        EventKind::Message(MessageKind::TaskSubmitted)
    );
    assert_eq!(
        timeline.events.last().unwrap().kind,
        EventKind::Message(MessageKind::TaskClosed)
    );
    let final_event = timeline
        .events
        .iter()
        .find(|e| e.kind == EventKind::Message(MessageKind::FinalResult))
        .unwrap();
    assert!(
        final_event.detail.starts_with("✅ accept ") && final_event.detail.contains(" D=0.00 "),
        "{}",
        final_event.detail
    );
    let final_env = seen
        .iter()
        .find(|e| e.task_id.as_ref() == Some(&a) && e.message.kind() == MessageKind::FinalResult)
        .unwrap();
    let wire = serde_json::to_vec(&final_env.message).unwrap();
    assert_eq!(
        final_event.digest.as_deref(),
        Some(sha256_hex(&wire).as_str()),
        "the event vouches for the message as it crossed the bus"
    );
}

// ---------------------------------------------------------------------------------------
// Tamper evidence.
// ---------------------------------------------------------------------------------------

/// A stopped auditor's data dir with `tasks` full tasks in its log.
async fn logged_dir(tasks: usize, options: AuditorOptions) -> (TempDir, Config) {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start_with(config_in(dir.path()), options);
    for _ in 0..tasks {
        rig.successful_task(&TaskId::mint(), true);
    }
    rig.query().await;
    let (config, _) = rig.stop().await;
    (dir, config)
}

fn segment(config: &Config, n: u32) -> std::path::PathBuf {
    audit_dir(&config.data_dir).join(artoo::auditor::log::segment_name(n))
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(path, text).unwrap();
}

fn verify(config: &Config) -> VerifyReport {
    AuditHistory::new(&config.data_dir).verify().unwrap()
}

fn broken_at(config: &Config) -> (BreakKind, Option<u64>, String) {
    let report = verify(config);
    let b = report.broken.expect("verification fails");
    (b.kind, b.line, b.message)
}

#[tokio::test(start_paused = true)]
async fn verify_reports_the_first_broken_link_for_an_edited_byte() {
    let (_dir, config) = logged_dir(1, AuditorOptions::default()).await;
    assert!(verify(&config).is_clean());
    let path = segment(&config, 1);
    let mut l = lines(&path);
    // One byte of the 10th event's summary: "attempt 1" → "attempt 2" or similar.
    let at = l[9].find("\"detail\":\"").unwrap() + 11;
    let mut bytes = l[9].clone().into_bytes();
    bytes[at] = if bytes[at] == b'x' { b'y' } else { b'x' };
    l[9] = String::from_utf8(bytes).unwrap();
    write_lines(&path, &l);
    let (kind, line, message) = broken_at(&config);
    assert_eq!((kind, line), (BreakKind::Edited, Some(10)), "{message}");
}

#[tokio::test(start_paused = true)]
async fn verify_reports_an_edit_whose_hash_was_recomputed_as_a_broken_link() {
    let (_dir, config) = logged_dir(1, AuditorOptions::default()).await;
    let path = segment(&config, 1);
    let mut l = lines(&path);
    let mut event: Value = serde_json::from_str(&l[9]).unwrap();
    let obj = event.as_object_mut().unwrap();
    obj.remove("hash");
    obj.insert("detail".into(), Value::String("nothing happened".into()));
    let hash = sha256_hex(&canonical_bytes(&event));
    event
        .as_object_mut()
        .unwrap()
        .insert("hash".into(), Value::String(hash));
    l[9] = event.to_string();
    write_lines(&path, &l);
    let (kind, line, message) = broken_at(&config);
    assert_eq!((kind, line), (BreakKind::LinkBroken, Some(11)), "{message}");
}

#[tokio::test(start_paused = true)]
async fn verify_reports_the_first_broken_link_for_a_deleted_line() {
    let (_dir, config) = logged_dir(1, AuditorOptions::default()).await;
    let path = segment(&config, 1);
    let mut l = lines(&path);
    l.remove(20);
    write_lines(&path, &l);
    let (kind, line, message) = broken_at(&config);
    assert_eq!((kind, line), (BreakKind::Missing, Some(21)), "{message}");
    assert!(
        message.contains("found event #21 where #20 belongs"),
        "{message}"
    );
}

#[tokio::test(start_paused = true)]
async fn verify_reports_the_first_broken_link_for_a_swapped_pair() {
    let (_dir, config) = logged_dir(1, AuditorOptions::default()).await;
    let path = segment(&config, 1);
    let mut l = lines(&path);
    l.swap(30, 31);
    write_lines(&path, &l);
    let (kind, line, _) = broken_at(&config);
    assert_eq!(line, Some(31));
    assert!(matches!(kind, BreakKind::Missing | BreakKind::OutOfOrder));
}

#[tokio::test(start_paused = true)]
async fn verify_catches_an_appended_forged_event_even_when_it_is_correctly_chained() {
    let (_dir, config) = logged_dir(1, AuditorOptions::default()).await;
    let path = segment(&config, 1);
    let mut l = lines(&path);
    let last: AuditEvent = serde_json::from_str(l.last().unwrap()).unwrap();
    let mut forged = last.clone();
    forged.seq = last.seq + 1;
    forged.prev = last.hash.clone();
    forged.hash.clear();
    forged.detail = "R7 → User FinalResult accept D=0".into();
    forged.anomalies.clear();
    let body = serde_json::to_value(&forged).unwrap();
    let hash = sha256_hex(&canonical_bytes(&body));
    let mut value = body;
    value
        .as_object_mut()
        .unwrap()
        .insert("hash".into(), Value::String(hash));
    l.push(value.to_string());
    let appended_line = l.len() as u64;
    write_lines(&path, &l);
    let (kind, line, message) = broken_at(&config);
    assert_eq!(
        (kind, line),
        (BreakKind::Unanchored, Some(appended_line)),
        "{message}"
    );

    // A careless forgery breaks the chain itself.
    l.pop();
    l.push(l[3].clone());
    write_lines(&path, &l);
    let (kind, line, _) = broken_at(&config);
    assert_eq!((kind, line), (BreakKind::OutOfOrder, Some(appended_line)));
}

#[tokio::test(start_paused = true)]
async fn verify_catches_a_cut_off_tail_a_missing_segment_and_an_edited_report() {
    let small = AuditorOptions {
        max_segment_bytes: 16 * 1024,
        ..AuditorOptions::default()
    };
    let (_dir, config) = logged_dir(4, small).await;
    let report = verify(&config);
    assert!(report.is_clean(), "{:?}", report.broken);
    assert!(
        report.segments >= 3,
        "rotation happened: {}",
        report.segments
    );

    let reports_path = audit_dir(&config.data_dir).join("reports.jsonl");
    let original_reports = std::fs::read_to_string(&reports_path).unwrap();
    std::fs::write(
        &reports_path,
        original_reports.replace("\"tasks_observed\":4", "\"tasks_observed\":3"),
    )
    .unwrap();
    let (kind, line, _) = broken_at(&config);
    assert_eq!((kind, line), (BreakKind::ReportEdited, Some(1)));
    std::fs::write(&reports_path, "").unwrap();
    assert_eq!(broken_at(&config).0, BreakKind::ReportMissing);
    std::fs::write(&reports_path, original_reports).unwrap();

    let last_segment = report.segments as u32;
    let path = segment(&config, last_segment);
    let original = lines(&path);
    write_lines(&path, &original[..original.len() - 1]);
    let (kind, _, message) = broken_at(&config);
    assert_eq!(kind, BreakKind::Truncated, "{message}");
    write_lines(&path, &original);
    assert!(verify(&config).is_clean());

    std::fs::remove_file(segment(&config, 2)).unwrap();
    let b = verify(&config).broken.unwrap();
    assert_eq!(b.kind, BreakKind::SegmentMissing);
    assert_eq!(b.file, artoo::auditor::log::segment_name(2));
}

#[tokio::test(start_paused = true)]
async fn a_restart_after_tampering_records_the_recovery_as_an_anomaly() {
    let (_dir, config) = logged_dir(1, AuditorOptions::default()).await;
    let path = segment(&config, 1);
    let l = lines(&path);
    write_lines(&path, &l[..l.len() - 2]);
    let rig = Rig::start(config.clone());
    let report = rig.query().await;
    assert!(
        mentions(&report.anomalies, "log_recovery: the log ends after"),
        "{:?}",
        report.anomalies
    );
    rig.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_verifies_clean_while_the_auditor_is_writing_it() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start_with(
        config_in(dir.path()),
        AuditorOptions {
            max_segment_bytes: 32 * 1024,
            ..AuditorOptions::default()
        },
    );
    rig.successful_task(&TaskId::mint(), true);
    rig.query().await;
    let history = AuditHistory::new(&rig.config.data_dir);
    let verifying = tokio::task::spawn_blocking(move || {
        (0..5)
            .map(|_| history.verify().unwrap())
            .collect::<Vec<_>>()
    });
    // Keep the auditor writing (and rotating, and reporting) while it is verified.
    while !verifying.is_finished() {
        rig.successful_task(&TaskId::mint(), true);
        rig.query().await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for report in verifying.await.unwrap() {
        assert!(report.live_writer);
        assert!(report.is_clean(), "{:?}", report.broken);
    }
    let (config, _) = rig.stop().await;
    let after = verify(&config);
    assert!(!after.live_writer);
    assert!(after.is_clean(), "{:?}", after.broken);
}

#[tokio::test]
async fn a_clean_log_of_100_000_events_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path());
    let clock = FakeClock::at_epoch();
    let bus = Bus::new(clock.clone());
    let auditor = Auditor::open(&bus, &config, clock.clone()).unwrap();
    let mut status = auditor.status();
    let cancel = CancellationToken::new();
    let running = tokio::spawn(auditor.run(cancel.clone()));
    let task = TaskId::mint();
    let r4a = bus.handle(Role::AgentValidator);
    let sub = subtask(&task, 1);
    for i in 1..=99_999u32 {
        if i % 2 == 0 {
            r4a.publish(Role::Observer, llm(&task, Role::AgentValidator, None));
        } else {
            r4a.publish(Role::Executor, correction(&sub, i, FailureClass::Logical));
        }
        if i % 10_000 == 0 {
            // Let the auditor catch up: this test is about the log, not about overflow.
            let logged = u64::from(i) + 1;
            status
                .wait_for(|s| s.events_logged >= logged)
                .await
                .unwrap();
        }
    }
    status
        .wait_for(|s| s.events_logged >= 100_000)
        .await
        .unwrap();
    cancel.cancel();
    running.await.unwrap().unwrap();
    let report = verify(&config);
    assert!(report.is_clean(), "{:?}", report.broken);
    assert_eq!(report.events, 100_000);
    assert_eq!(status.borrow().messages_lost, 0);
}

// ---------------------------------------------------------------------------------------
// The CLI.
// ---------------------------------------------------------------------------------------

/// `artoo audit <args>` run by the binary on the config's data dir: its output, or what it
/// printed before the error `main` exits with.
fn artoo_audit(config: &Config, args: &[&str]) -> Result<String, String> {
    let home = config.data_dir.parent().expect("the data dir has a parent");
    std::fs::create_dir_all(&config.workspace).expect("workspace");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_artoo"))
        .arg("audit")
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("ARTOO_DATA_DIR", &config.data_dir)
        .env("ARTOO_WORKSPACE", &config.workspace)
        .output()
        .expect("the binary runs");
    let text = String::from_utf8(output.stdout).expect("the CLI prints UTF-8");
    if output.status.success() {
        return Ok(text);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let error = stderr.trim_start();
    let error = error.strip_prefix("Error: ").unwrap_or(error);
    Err(format!("{text}error: {error}"))
}

#[tokio::test(start_paused = true)]
async fn the_audit_cli_verifies_lists_reports_events_timelines_and_calibration() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(config_in(dir.path()));
    let task = TaskId::mint();
    rig.successful_task(&task, true);
    rig.roles.r3.publish(
        Role::Memory,
        megram(Some(&task), MegramOrigin::Accept, rig.now()),
    );
    let report = rig.query().await;
    let (config, _) = rig.stop().await;

    let ok = artoo_audit(&config, &["verify"]).unwrap();
    assert!(ok.starts_with("audit log OK:"), "{ok}");

    let list = artoo_audit(&config, &["report", "--list"]).unwrap();
    assert!(list.contains(&report.report_id.to_string()), "{list}");
    let one = artoo_audit(&config, &["report", "--id", &report.report_id.to_string()]).unwrap();
    assert!(one.contains("R3 sent Megram to R5"), "{one}");
    let current = artoo_audit(&config, &["report", "--json"]).unwrap();
    let current: AuditReport = serde_json::from_str(&current).unwrap();
    assert_eq!(current.tasks_observed, 1);

    let text = artoo_audit(&config, &["events", "--anomaly", "boundary_violation"]).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with('#')).count(),
        1,
        "{text}"
    );
    assert!(
        text.contains("! boundary_violation: R3 sent Megram to R5"),
        "{text}"
    );
    let by_role = artoo_audit(
        &config,
        &[
            "events",
            "--task",
            task.as_str(),
            "--role",
            "R4b",
            "--kind",
            "ReplanRequest",
            "--json",
        ],
    )
    .unwrap();
    let by_role: Vec<AuditEvent> = serde_json::from_str(&by_role).unwrap();
    assert_eq!(by_role.len(), 1);
    assert!(artoo_audit(&config, &["events", "--role", "R9"]).is_err());

    let text = artoo_audit(&config, &["timeline", task.as_str()]).unwrap();
    assert!(text.contains(" events, 1 anomaly"), "{text}");
    assert!(text.contains(": 2 round(s), accepted"), "{text}");

    let text = artoo_audit(&config, &["calibrate"]).unwrap();
    assert!(text.contains("refine"), "{text}");
    assert!(text.contains(&task_class(INTENT)), "{text}");

    // Tamper with the log: verify fails (the binary exits 1) and names the line.
    let path = segment(&config, 1);
    let mut l = lines(&path);
    l.remove(5);
    write_lines(&path, &l);
    let broken = artoo_audit(&config, &["verify"]).unwrap_err();
    assert!(
        broken.contains("events-000001.jsonl line 6 (event #5): found event #6"),
        "{broken}"
    );
    assert!(
        broken.contains("error: the audit log failed verification"),
        "{broken}"
    );
}

// ---------------------------------------------------------------------------------------
// Retention.
// ---------------------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn pruning_old_segments_keeps_the_chain_verifiable_and_a_forged_start_is_caught() {
    let small = AuditorOptions {
        max_segment_bytes: 16 * 1024,
        ..AuditorOptions::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start_with(config_in(dir.path()), small.clone());
    // A report early on (its event lands in a segment that will be pruned), then more.
    rig.successful_task(&TaskId::mint(), true);
    rig.query().await;
    for _ in 0..3 {
        rig.successful_task(&TaskId::mint(), true);
    }
    rig.query().await;
    let (mut config, _) = rig.stop().await;
    let before = verify(&config);
    assert!(before.is_clean(), "{:?}", before.broken);
    assert!(before.segments >= 3, "{}", before.segments);
    let audit = audit_dir(&config.data_dir);
    let reports_before = lines(&audit.join("reports.jsonl")).len();
    let written = artoo::auditor::log::list_segments(&audit)
        .unwrap()
        .pop()
        .expect("a segment is being written");

    // A year and more later, the sealed segments are past the age limit.
    config.retention.audit_days = 365;
    let clock = FakeClock::new(Utc::now() + chrono::Duration::days(400));
    let bus = Bus::new(clock.clone());
    let mut auditor = Auditor::open_with(&bus, &config, clock.clone(), small).unwrap();
    let removed = auditor.prune().await.unwrap();
    drop(auditor);
    let kept = artoo::auditor::log::list_segments(&audit).unwrap();
    assert_eq!(removed, before.segments - 1, "every sealed segment went");
    assert_eq!(kept[0], written, "the segment being written stays");
    assert!(
        kept.len() <= 2,
        "only the prune's own record may have opened another: {kept:?}"
    );
    assert!(audit.join("pruned.json").exists());
    let after = verify(&config);
    assert!(after.is_clean(), "{:?}", after.broken);
    assert!(
        after.head.next_seq > before.head.next_seq,
        "the prune is in the chain"
    );
    let reports_after = lines(&audit.join("reports.jsonl")).len();
    assert!(
        (1..reports_before).contains(&reports_after),
        "reports whose events were pruned left with them, the others stayed: {reports_before} → {reports_after}"
    );

    // Cutting more events off the start, with a checkpoint that chains correctly to
    // what is left, is not a prune the log recorded.
    let path = &kept[0].1;
    let original = lines(path);
    let cut: AuditEvent = serde_json::from_str(&original[0]).unwrap();
    write_lines(path, &original[1..]);
    let forged = artoo::auditor::retention::PruneCheckpoint {
        first_segment: kept[0].0,
        first_seq: cut.seq + 1,
        prev: cut.hash.clone(),
        pruned_at: Utc::now(),
    };
    let pruned_path = audit.join("pruned.json");
    let original_checkpoint = std::fs::read(&pruned_path).unwrap();
    artoo::auditor::retention::write(&audit, &forged).unwrap();
    let b = verify(&config).broken.expect("a forged start is caught");
    assert_eq!(b.kind, BreakKind::PruneUnrecorded, "{b}");
    // And without the forged checkpoint, the cut itself breaks the chain.
    std::fs::write(&pruned_path, original_checkpoint).unwrap();
    assert_eq!(verify(&config).broken.unwrap().kind, BreakKind::Missing);
}

/// Real traffic, not a hand-built transcript: every golden transcript (recorded from the
/// runtime, see `golden`) replayed onto a bus breaks no contract and raises no anomaly,
/// and the on-demand report counts its task and its Law 1 answers.
#[tokio::test]
async fn the_real_traffic_of_every_golden_transcript_is_clean_to_the_auditor() {
    for scenario in crate::golden::SCENARIOS {
        let envelopes = crate::golden::transcript(scenario.name);
        let dir = tempfile::tempdir().unwrap();
        let rig = Rig::start(config_in(dir.path()));
        for env in envelopes.iter().filter(|e| e.from != Role::Auditor) {
            rig.bus
                .handle(env.from)
                .publish(env.to, env.message.clone());
        }
        let report = rig.query().await;
        let name = scenario.name;
        assert_clean(&report);
        assert_eq!(report.tasks_observed, 1, "{name}");
        let asked = envelopes
            .iter()
            .filter(|e| e.message.kind() == MessageKind::ConfirmationRequest)
            .count() as u64;
        assert_eq!(report.law1.requests, asked, "{name}: {:?}", report.law1);
        let answered = |wanted: Decision| {
            envelopes
                .iter()
                .filter(|e| {
                    matches!(&e.message, Message::ConfirmationDecision(d)
                        if d.decision == wanted && d.source != DecisionSource::Timeout)
                })
                .count() as u64
        };
        assert_eq!(
            report.law1.approved,
            answered(Decision::Approve),
            "{name}: {:?}",
            report.law1
        );
        assert_eq!(
            report.law1.denied,
            answered(Decision::Deny),
            "{name}: {:?}",
            report.law1
        );
        rig.stop().await;
    }
}
