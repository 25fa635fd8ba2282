//! The task log end to end: a real bus carries the traffic of whole tasks (the golden
//! transcripts the runtime recorded, see `golden`), the writer records each run's
//! envelopes from its tap, and the reader folds a run back from its file alone. The
//! fold is checked against the traffic itself, so these checks hold for any transcript.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use artoo::bus::{Bus, BusHandle, Envelope};
use artoo::contracts::*;
use artoo::tasklog::{
    FLUSH_INTERVAL, Record, RunId, RunStatus, TaskLogDir, TaskLogHandle, TaskLogWriter, Trajectory,
    WriterStopped, tasks_dir,
};
use artoo::{Clock, FakeClock};
use chrono::{DateTime, Duration, Utc};

use crate::golden::{SCENARIOS, task_of, transcript};

/// Publishers on one bus, with a fake clock the test advances.
struct Pipeline {
    bus: Bus,
    clock: Arc<FakeClock>,
    user: BusHandle,
    r1: BusHandle,
    r2: BusHandle,
    r3: BusHandle,
    r5: BusHandle,
}

impl Pipeline {
    fn new() -> Self {
        let clock = FakeClock::at_epoch();
        let bus = Bus::new(clock.clone());
        Self {
            user: bus.handle(Role::User),
            r1: bus.handle(Role::Perceiver),
            r2: bus.handle(Role::Planner),
            r3: bus.handle(Role::Executor),
            r5: bus.handle(Role::Memory),
            bus,
            clock,
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

    /// Publishes recorded traffic as its senders sent it, the clock following its
    /// timestamps.
    fn replay(&self, envelopes: &[Envelope]) {
        let mut at = self.now();
        for env in envelopes {
            if env.timestamp > at {
                self.clock.advance(env.timestamp - at);
                at = env.timestamp;
            }
            self.bus
                .handle(env.from)
                .publish(env.to, env.message.clone());
        }
    }

    fn llm(&self, task: &TaskId, from: &BusHandle, usage: (u64, u64, u64)) {
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
                response: "{}".into(),
                prompt_tokens,
                completion_tokens,
                elapsed_ms,
                error: None,
            },
        );
    }

    fn submit(&self, task: &TaskId, raw_input: &str) {
        self.user.publish(
            Role::Perceiver,
            TaskSubmitted {
                task_id: task.clone(),
                raw_input: raw_input.into(),
                submitted_at: self.now(),
                session_history: vec![],
                time_budget_ms: 120_000,
                scheduled: None,
            },
        );
    }

    fn spec(&self, task: &TaskId, raw_input: &str, intent: &str) {
        self.llm(task, &self.r1, (500, 60, 800));
        self.r1.publish(
            Role::Planner,
            TaskSpec {
                task_id: task.clone(),
                intent: intent.into(),
                constraints: Constraints::default(),
                raw_input: raw_input.into(),
                answer: Default::default(),
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

/// A temp data dir, a pipeline and a task log writing into the dir.
fn logged() -> (tempfile::TempDir, Pipeline, TaskLogHandle) {
    let data = tempfile::tempdir().unwrap();
    let p = Pipeline::new();
    let (log, _writer) = p.start_log(data.path());
    (data, p, log)
}

const RAW: &str = "find the largest file in ~/Downloads and write its name to summary.txt";
const INTENT: &str = "Write the name of the largest file in ~/Downloads to summary.txt";

fn run_files(data_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(tasks_dir(data_dir))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// Each record's message type, or `gap`/`cut` for the writer's notes.
fn shape(records: &[Record]) -> Vec<String> {
    records.iter().map(|r| r.name().to_string()).collect()
}

/// The messages of one kind in `envelopes`, in order: `of!(envelopes, TaskSpec)`.
macro_rules! of {
    ($envelopes:expr, $kind:ident) => {
        $envelopes
            .iter()
            .filter_map(|e| match &e.message {
                Message::$kind(m) => Some(m),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
}

/// Checks every fact the fold gives against the traffic it was folded from.
fn assert_fold_tells(name: &str, t: &Trajectory, envelopes: &[Envelope]) {
    let task = task_of(envelopes);
    let closed_at = envelopes
        .iter()
        .position(|e| matches!(e.message, Message::TaskClosed(_)));
    let before_close = &envelopes[..closed_at.map_or(envelopes.len(), |i| i + 1)];
    assert_eq!(t.task_id.as_ref(), Some(&task), "{name}");
    assert!(!t.partial, "{name}");
    assert_eq!(t.started_at, Some(envelopes[0].timestamp), "{name}");
    if let Some(i) = closed_at {
        let elapsed = (envelopes[i].timestamp - envelopes[0].timestamp).num_milliseconds();
        assert_eq!(t.elapsed_ms, Some(elapsed as u64), "{name}");
    }
    let submitted = of!(envelopes, TaskSubmitted);
    assert_eq!(
        t.raw_input.as_ref(),
        Some(&submitted[0].raw_input),
        "{name}"
    );
    let specs = of!(envelopes, TaskSpec);
    assert_eq!(t.spec.as_ref(), specs.last().copied(), "{name}");

    // Every plan, in order, and every sub-task in the round whose plan names it.
    let plans: Vec<&DispatchManifest> = t.rounds.iter().filter_map(|r| r.plan.as_ref()).collect();
    let manifests = of!(envelopes, DispatchManifest);
    assert_eq!(plans, manifests, "{name}");
    let subtasks = of!(envelopes, SubTask);
    for sub in &subtasks {
        let round = t
            .rounds
            .iter()
            .find(|r| r.subtasks.iter().any(|s| s.subtask_id == sub.subtask_id))
            .unwrap_or_else(|| panic!("{name}: sub-task {} not folded", sub.subtask_id));
        let plan = round
            .plan
            .as_ref()
            .expect("a round with sub-tasks has a plan");
        assert!(plan.subtask_ids().any(|id| id == sub.subtask_id), "{name}");
        let trace = round
            .subtasks
            .iter()
            .find(|s| s.subtask_id == sub.subtask_id)
            .unwrap();
        assert_eq!(trace.subtask.as_ref(), Some(*sub), "{name}");
        let id = sub.subtask_id;
        let executions: Vec<&ExecutionResult> = of!(envelopes, ExecutionResult)
            .into_iter()
            .filter(|x| x.subtask_id == id)
            .collect();
        assert_eq!(trace.executions.iter().collect::<Vec<_>>(), executions);
        let calls: Vec<&ToolCallEvent> = of!(envelopes, ToolCallEvent)
            .into_iter()
            .filter(|x| x.subtask_id == id)
            .collect();
        assert_eq!(trace.tool_calls.iter().collect::<Vec<_>>(), calls);
        let outcome = envelopes.iter().rev().find_map(|e| match &e.message {
            Message::SubTaskOutcome(x) if x.subtask_id == id => Some(x),
            _ => None,
        });
        assert_eq!(trace.outcome.as_ref(), outcome, "{name}");
    }
    let folded_subtasks: usize = t.rounds.iter().map(|r| r.subtasks.len()).sum();
    let distinct: std::collections::BTreeSet<_> = subtasks.iter().map(|s| s.subtask_id).collect();
    assert_eq!(folded_subtasks, distinct.len(), "{name}");

    // R4b's judgements and GGS's directives, round by round.
    let replans: Vec<_> = t.rounds.iter().filter_map(|r| r.replan.as_ref()).collect();
    let requests = of!(envelopes, ReplanRequest);
    assert_eq!(replans, requests, "{name}");
    let accepted: Vec<_> = t
        .rounds
        .iter()
        .filter_map(|r| r.accepted.as_ref())
        .collect();
    let summaries = of!(envelopes, OutcomeSummary);
    assert_eq!(accepted, summaries, "{name}");
    let directives = of!(envelopes, PlanDirective);
    for d in &directives {
        let round = t
            .rounds
            .iter()
            .find(|r| r.directive.as_ref() == Some(*d))
            .unwrap_or_else(|| panic!("{name}: a directive not folded"));
        let decision = round.decision.as_ref().expect("a directive is a decision");
        assert_eq!(decision.loss, d.loss, "{name}");
        assert_eq!(decision.directive, MacroState::from(d.directive), "{name}");
        assert_eq!(decision.rationale.as_ref(), Some(&d.rationale), "{name}");
    }
    let results = of!(envelopes, FinalResult);
    assert_eq!(t.final_result.as_ref(), results.first().copied(), "{name}");
    if let Some(f) = results.first() {
        let last = t.decisions().last().expect("a result is a decision");
        assert_eq!(
            (last.loss, last.directive, last.replans),
            (f.loss, MacroState::from(f.directive), f.replans),
            "{name}"
        );
        assert_eq!(t.replans(), f.replans, "{name}");
    }

    // Memory, Law 1 and the chat path.
    let recalls: Vec<&MemoryRecall> = t
        .rounds
        .iter()
        .flat_map(|r| r.recalls.iter().map(|r| &r.recall))
        .collect();
    let published_recalls = of!(envelopes, MemoryRecall);
    assert_eq!(recalls, published_recalls, "{name}");
    let writes: Vec<&Megram> = of!(envelopes, Megram)
        .into_iter()
        .map(|w| &w.megram)
        .collect();
    assert_eq!(t.memory_writes.iter().collect::<Vec<_>>(), writes, "{name}");
    let requests = of!(envelopes, ConfirmationRequest);
    assert_eq!(t.law1.len(), requests.len(), "{name}");
    for (exchange, request) in t.law1.iter().zip(&requests) {
        assert_eq!(exchange.request.as_ref(), Some(*request), "{name}");
        let answer = envelopes.iter().find_map(|e| match &e.message {
            Message::ConfirmationDecision(d) if d.request_id == request.request_id => Some(d),
            _ => None,
        });
        assert_eq!(exchange.decision.as_ref(), answer, "{name}");
    }
    let replies = of!(envelopes, ChatReply);
    assert_eq!(
        t.chat_reply.as_deref(),
        replies.first().map(|r| r.answer.as_str()),
        "{name}"
    );

    // The cost: every model and tool call up to the close, per role.
    let mut per_role: BTreeMap<Role, (u64, u64, u64)> = BTreeMap::new();
    let (mut tools, mut tool_ms) = (0, 0);
    for env in before_close {
        match &env.message {
            Message::LlmCall(c) => {
                let e = per_role.entry(c.role).or_default();
                *e = (
                    e.0 + 1,
                    e.1 + c.prompt_tokens + c.completion_tokens,
                    e.2 + c.elapsed_ms,
                );
            }
            Message::ToolCallEvent(c) => {
                tools += 1;
                tool_ms += c.record.duration_ms;
            }
            _ => {}
        }
    }
    let got: BTreeMap<Role, (u64, u64, u64)> = t
        .usage
        .role_stats
        .iter()
        .map(|s| {
            (
                s.role,
                (s.calls, s.prompt_tokens + s.completion_tokens, s.elapsed_ms),
            )
        })
        .collect();
    assert_eq!(got, per_role, "{name}");
    assert_eq!(
        (t.usage.tool_call_count, t.usage.tool_elapsed_ms),
        (tools, tool_ms),
        "{name}"
    );

    // How it ended.
    let cancelled = envelopes.iter().any(|e| {
        matches!(&e.message, Message::TaskClosed(c)
            if matches!(c.end, TaskClosure::Cancelled { .. }))
    });
    let status = match (results.first(), replies.first()) {
        (Some(f), _) => RunStatus::from(f.directive),
        (None, Some(_)) => RunStatus::Answered,
        (None, None) if cancelled => RunStatus::Cancelled,
        (None, None) => RunStatus::Open,
    };
    assert_eq!(t.status, status, "{name}");
    assert_eq!(
        t.late_messages,
        envelopes.len() - before_close.len(),
        "{name}"
    );
}

#[tokio::test]
async fn every_golden_transcript_is_recorded_as_published_and_folds_to_what_it_did() {
    for scenario in SCENARIOS {
        let name = scenario.name;
        let envelopes = transcript(name);
        let task = task_of(&envelopes);
        let data = tempfile::tempdir().unwrap();
        let p = Pipeline::new();
        let (log, _writer) = p.start_log(data.path());
        p.replay(&envelopes);
        log.flush().await.unwrap();

        // One file, named by start time and task id.
        let files = run_files(data.path());
        assert_eq!(files.len(), 1, "{name}: {files:?}");
        let file = files[0].file_name().unwrap().to_str().unwrap().to_string();
        assert!(
            file.starts_with("20260101T000000.000Z_") && file.ends_with(&format!("_{task}.jsonl")),
            "{file}"
        );

        // The file is the traffic: every envelope of the task, in bus order, and nothing
        // derived from it.
        let dir = TaskLogDir::new(data.path());
        let run = dir.latest_of(&task).unwrap().expect("a run");
        assert!(run.skipped.is_empty() && !run.truncated, "{name}");
        let recorded: Vec<(Role, Role, &Message)> = run
            .records
            .iter()
            .map(|r| match r {
                Record::Envelope(e) => (e.from, e.to, &e.message),
                other => panic!("{name}: {other:?} in a run without gaps"),
            })
            .collect();
        let published: Vec<(Role, Role, &Message)> = envelopes
            .iter()
            .filter(|e| e.task_id.as_ref() == Some(&task))
            .map(|e| (e.from, e.to, &e.message))
            .collect();
        assert_eq!(recorded, published, "{name}");
        let seqs: Vec<u64> = run.envelopes().iter().map(|e| e.seq).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{name}: {seqs:?}");

        assert_fold_tells(name, &run.trajectory(), &envelopes);

        // The list row is the same fold, read without the prompts.
        let t = run.trajectory();
        let row = &dir.list(10).unwrap()[0];
        assert_eq!(row.task_id, task, "{name}");
        assert_eq!(row.raw_input, t.raw_input, "{name}");
        assert_eq!(row.intent.as_deref(), t.intent(), "{name}");
        assert_eq!(row.status, t.status, "{name}");
        assert_eq!(row.rounds as usize, t.plans(), "{name}");
        assert_eq!(row.replans, t.replans(), "{name}");
        assert_eq!(row.duration_ms, t.elapsed_ms, "{name}");
        assert_eq!(row.ended_at, t.ended_at, "{name}");
        assert_eq!(row.total_tokens, t.usage.total_tokens, "{name}");
        assert_eq!(row.loss, t.decisions().last().map(|d| d.loss), "{name}");
        assert_eq!(row.law1, !t.law1.is_empty(), "{name}");
    }
}

#[tokio::test]
async fn the_fold_knows_the_prompts_and_the_list_row_the_tokens_of_each_model_call() {
    let (data, p, log) = logged();
    let task = TaskId::mint();
    p.submit(&task, RAW);
    p.spec(&task, RAW, INTENT);
    p.llm(&task, &p.r2, (1_000, 100, 400));
    p.cancel(&task);
    log.flush().await.unwrap();

    let dir = TaskLogDir::new(data.path());
    let run = dir.latest_of(&task).unwrap().unwrap();
    let prompts: Vec<String> = run
        .envelopes()
        .iter()
        .filter_map(|e| match &e.message {
            Message::LlmCall(c) => Some(c.system_prompt.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(prompts, ["You are perceiver.", "You are planner."]);
    let row = &dir.list(1).unwrap()[0];
    assert_eq!(row.total_tokens, 500 + 60 + 1_000 + 100);
    assert_eq!(row.status, RunStatus::Cancelled);
    assert_eq!(row.duration_ms, Some(800 + 400));
    assert_eq!(row.intent.as_deref(), Some(INTENT));
    assert_eq!(run.trajectory().usage.total_tokens, row.total_tokens);
}

#[tokio::test]
async fn a_reused_task_id_gets_a_new_file_and_never_replays_the_old_run() {
    let (data, p, log) = logged();
    let first = transcript("replan_law1");
    let task = task_of(&first);
    p.replay(&first);
    p.tick(60_000);

    // The same id again: answered at once this time.
    p.submit(&task, "hi");
    p.llm(&task, &p.r1, (80, 12, 300));
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
    let dir = TaskLogDir::new(data.path());
    let load = |path: &PathBuf| {
        let id = RunId::parse(path.file_name().unwrap().to_str().unwrap()).unwrap();
        dir.load(&id).unwrap()
    };
    let second = load(&files[1]);
    assert_eq!(
        shape(&second.records),
        ["TaskSubmitted", "LlmCall", "ChatReply", "TaskClosed"]
    );
    // The first file holds the first run and nothing of the second.
    let older = load(&files[0]);
    assert_eq!(older.records.len(), first.len());

    let listed = dir.list(10).unwrap();
    let statuses: Vec<_> = listed.iter().map(|s| s.status).collect();
    assert_eq!(
        statuses,
        [RunStatus::Answered, older.trajectory().status],
        "newest first"
    );
    assert_ne!(listed[1].status, RunStatus::Answered);
    assert!(listed[0].started_at > listed[1].started_at);
    assert_eq!(dir.runs_of(&task).unwrap().len(), 2);

    let latest = dir.latest_of(&task).unwrap().unwrap().trajectory();
    assert_eq!(latest.raw_input.as_deref(), Some("hi"));
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
        p.llm(&a, &p.r3, (10, 1, i));
    }
    p.cancel(&a);
    log.flush().await.unwrap();

    let dir = TaskLogDir::new(data.path());
    let run_of = |task: &TaskId| dir.latest_of(task).unwrap().unwrap();
    let (run_a, run_b) = (run_of(&a), run_of(&b));
    // 11 published, 4 kept: 7 lost, noted before the survivors.
    assert_eq!(
        shape(&run_a.records),
        [
            "TaskSubmitted",
            "gap",
            "LlmCall",
            "LlmCall",
            "LlmCall",
            "TaskClosed"
        ]
    );
    assert_eq!(shape(&run_b.records), ["TaskSubmitted", "gap"]);
    for run in [&run_a, &run_b] {
        assert_eq!(run.trajectory().skipped_messages, 7, "{}", run.run_id);
    }
    assert_eq!(
        run_a.trajectory().usage.llm_calls(),
        3,
        "only what was seen"
    );
}

/// A run file cut off by a crash, with a message type from a newer version in it: the
/// first `keep` lines of a recorded run, an unknown line, and half of the next line.
fn crashed(recorded: &[u8], keep: usize) -> Vec<u8> {
    const NEWER: &str = r#"{"envelope":{"id":"00000000-0000-4000-8000-0000000000ff","seq":1,"timestamp":"2026-01-01T00:00:00Z","from":"R2","to":"R7","message":{"type":"Reflection","payload":{"note":"x"}}}}"#;
    let lines: Vec<&[u8]> = recorded.split(|&b| b == b'\n').collect();
    let mut out = Vec::new();
    for (i, line) in lines[..keep].iter().enumerate() {
        out.extend_from_slice(line);
        out.push(b'\n');
        if i == 0 {
            out.extend_from_slice(NEWER.as_bytes());
            out.push(b'\n');
        }
    }
    let next = lines[keep];
    out.extend_from_slice(&next[..next.len() / 2]);
    out
}

#[tokio::test]
async fn a_crash_truncated_file_with_a_newer_kind_still_lists_and_replays() {
    let (data, p, log) = logged();
    let envelopes = transcript("replan_law1");
    let task = task_of(&envelopes);
    p.replay(&envelopes);
    log.flush().await.unwrap();
    let file = run_files(data.path()).remove(0);
    let recorded = std::fs::read(&file).unwrap();
    // The crash comes after the second plan and its first release, before GGS decides it.
    let second_plan = envelopes
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.message, Message::DispatchManifest(_)))
        .nth(1)
        .map(|(i, _)| i)
        .expect("the scenario replans");
    let keep = second_plan + 3;
    std::fs::write(&file, crashed(&recorded, keep)).unwrap();
    // Not a run file: ignored by the list.
    std::fs::write(tasks_dir(data.path()).join("notes.txt"), "x").unwrap();
    let prefix = &envelopes[..keep];

    let dir = TaskLogDir::new(data.path());
    let listed = dir.list(10).unwrap();
    assert_eq!(listed.len(), 1);
    let row = &listed[0];
    assert_eq!(row.task_id, task);
    assert_eq!(row.status, RunStatus::Open);
    assert_eq!(row.rounds, 2);
    assert_eq!(row.duration_ms, None);
    assert!(row.truncated);

    let run = dir.latest_of(&task).unwrap().unwrap();
    assert!(run.truncated);
    assert_eq!(run.skipped.len(), 1);
    assert_eq!(run.skipped[0].line_no, 2);
    assert_eq!(run.skipped[0].kind.as_deref(), Some("Reflection"));
    let t = run.trajectory();
    assert_eq!(t.status, RunStatus::Open);
    assert!(t.truncated);
    assert_eq!(t.unreadable_lines, 1);
    assert_eq!(t.rounds.len(), 2);
    let directive = prefix
        .iter()
        .find_map(|e| match &e.message {
            Message::PlanDirective(d) => Some(d),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        t.rounds[0].decision.as_ref().map(|d| d.loss),
        Some(directive.loss)
    );
    assert!(t.rounds[1].plan.is_some());
    assert!(
        t.rounds[1].decision.is_none(),
        "the crash came before GGS decided"
    );
    let calls = prefix
        .iter()
        .filter(|e| matches!(e.message, Message::LlmCall(_)))
        .count();
    assert_eq!(t.usage.llm_calls(), calls as u64);
}

#[tokio::test]
async fn cancelling_ends_the_run_and_late_traffic_is_kept_but_changes_nothing() {
    let (data, p, log) = logged();
    let task = TaskId::mint();
    p.submit(&task, RAW);
    p.spec(&task, RAW, INTENT);
    p.tick(1_500);
    p.cancel(&task);
    // The planner's call was in flight when the user cancelled.
    p.llm(&task, &p.r2, (1000, 10, 900));
    log.flush().await.unwrap();

    let run = TaskLogDir::new(data.path())
        .latest_of(&task)
        .unwrap()
        .unwrap();
    assert_eq!(
        shape(&run.records),
        [
            "TaskSubmitted",
            "LlmCall",
            "TaskSpec",
            "TaskClosed",
            "LlmCall"
        ]
    );
    let t = run.trajectory();
    assert_eq!(t.status, RunStatus::Cancelled);
    assert_eq!(t.cancelled.as_deref(), Some("user pressed Ctrl+C"));
    assert_eq!(t.elapsed_ms, Some(800 + 1_500));
    // The late call is in the file but not in the run's cost, which ended with it.
    assert_eq!(t.usage.llm_calls(), 1);
    assert_eq!(t.late_messages, 1);
}

#[tokio::test(start_paused = true)]
async fn records_reach_the_disk_within_the_flush_interval_without_an_explicit_flush() {
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
    let run = TaskLogDir::new(data.path())
        .latest_of(&task)
        .unwrap()
        .unwrap();
    assert_eq!(
        shape(&run.records),
        ["TaskSubmitted", "LlmCall", "TaskSpec"]
    );
}

#[tokio::test]
async fn close_cuts_open_runs_as_unfinished_and_stops_the_writer() {
    let data = tempfile::tempdir().unwrap();
    let p = Pipeline::new();
    let (log, writer) = p.start_log(data.path());
    let task = TaskId::mint();
    p.submit(&task, RAW);
    p.tick(2_000);
    log.close().await.unwrap();
    writer.await.unwrap();

    let dir = TaskLogDir::new(data.path());
    let row = &dir.list(10).unwrap()[0];
    assert_eq!(row.status, RunStatus::Unfinished);
    assert_eq!(row.duration_ms, Some(2_000));
    let run = dir.latest_of(&task).unwrap().unwrap();
    assert_eq!(shape(&run.records), ["TaskSubmitted", "cut"]);
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
    assert_eq!(t.intent(), Some(INTENT));
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

    let row = &TaskLogDir::new(data.path()).list(10).unwrap()[0];
    assert!(row.partial);
    assert_eq!(row.task_id, task);
    assert_eq!(
        row.raw_input.as_deref(),
        Some(RAW),
        "R1's spec carries the input"
    );
    assert_eq!(row.intent.as_deref(), Some(INTENT));
    assert_eq!(row.status, RunStatus::Open);
}

#[tokio::test]
async fn traffic_of_no_task_creates_no_run() {
    let (data, p, log) = logged();
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
