//! The auditor under load: on-demand report latency with 1 M events in history, keeping
//! up with a 50 000 msg/s bus burst without gaps, and `verify` throughput on a log of
//! 100 000 events.
//!
//! Traffic is a realistic mix of one task's fast and medium loop (executions, model and
//! tool calls, corrections, outcomes, GGS directives, Megram writes, final results),
//! published from the roles that send it on a real bus.
#![allow(clippy::unwrap_used)] // a test may unwrap: a panic is its failure report
#![allow(missing_docs)] // criterion_group! defines an undocumented `pub fn` per group

use artoo::tools::ToolName;
use std::path::Path;
use std::time::{Duration, Instant};

use artoo::auditor::{AuditHistory, Auditor, AuditorStatus};
use artoo::bus::{Bus, BusHandle};
use artoo::contracts::*;
use artoo::{Config, SystemClock};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tokio::runtime::Runtime;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

const HISTORY_EVENTS: u64 = 1_000_000;
const BURST: u64 = 50_000;
const VERIFY_EVENTS: u64 = 100_000;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// A running auditor on its own bus and data dir.
struct Audited {
    _dir: tempfile::TempDir,
    data_dir: std::path::PathBuf,
    bus: Bus,
    status: watch::Receiver<AuditorStatus>,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<Result<(), artoo::auditor::AuditError>>,
}

impl Audited {
    fn start(rt: &Runtime) -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let config = Config::with_dirs(dir.path().join("data"), dir.path().join("ws"));
        let bus = Bus::new(SystemClock::shared());
        let auditor = Auditor::open(&bus, &config, SystemClock::shared()).expect("auditor");
        let status = auditor.status();
        let cancel = CancellationToken::new();
        let task = rt.spawn(auditor.run(cancel.clone()));
        Self {
            data_dir: config.data_dir.clone(),
            _dir: dir,
            bus,
            status,
            cancel,
            task,
        }
    }

    fn logged(&self) -> u64 {
        self.status.borrow().events_logged
    }

    fn lost(&self) -> u64 {
        self.status.borrow().messages_lost
    }

    /// Waits until `target` events are chained.
    fn wait_logged(&mut self, rt: &Runtime, target: u64) {
        rt.block_on(self.status.wait_for(|s| s.events_logged >= target))
            .expect("the auditor runs");
    }

    /// Stops the auditor; the returned directory holds its log until dropped.
    fn stop(self, rt: &Runtime) -> tempfile::TempDir {
        self.cancel.cancel();
        rt.block_on(self.task)
            .expect("no panic")
            .expect("clean stop");
        self._dir
    }
}

struct Traffic {
    r3: BusHandle,
    r4a: BusHandle,
    r4b: BusHandle,
    r7: BusHandle,
    r1: BusHandle,
}

impl Traffic {
    fn new(bus: &Bus) -> Self {
        Self {
            r1: bus.handle(Role::Perceiver),
            r3: bus.handle(Role::Executor),
            r4a: bus.handle(Role::AgentValidator),
            r4b: bus.handle(Role::MetaValidator),
            r7: bus.handle(Role::Ggs),
        }
    }

    /// Publishes the traffic of one task; returns the number of messages.
    fn task(&self) -> u64 {
        let task = TaskId::mint();
        self.r1.publish(
            Role::Planner,
            TaskSpec {
                task_id: task.clone(),
                intent: "Find the largest files in Downloads".into(),
                constraints: Constraints::default(),
                raw_input: "find the largest files in ~/Downloads".into(),
                answer: Default::default(),
            },
        );
        let subtask_id = SubTaskId::mint();
        let call = ToolCallRecord {
            tool: ToolName::Shell.into(),
            input: serde_json::json!({"command": "du -ah ~/Downloads | sort -rh | head"}),
            target: "du -ah ~/Downloads".into(),
            output_head: "2.1G\t/home/u/Downloads/big.mp4".into(),
            status: ToolCallStatus::Ok,
            error: None,
            failure: None,
            duration_ms: 40,
            confirmation: None,
            failed_exit: None,
            effects: Vec::new(),
            grant: None,
        };
        for attempt in 1..=8u32 {
            self.r3.publish(
                Role::Observer,
                LlmCall {
                    task_id: Some(task.clone()),
                    role: Role::Executor,
                    model: "qwen2.5-coder".into(),
                    system_prompt: String::new(),
                    user_prompt: "list the largest files".into(),
                    response: "{\"tool\":\"shell\"}".into(),
                    prompt_tokens: 900,
                    completion_tokens: 60,
                    elapsed_ms: 700,
                    error: None,
                },
            );
            self.r3.publish(
                Role::Observer,
                ToolCallEvent {
                    task_id: task.clone(),
                    subtask_id,
                    attempt,
                    record: call.clone(),
                    granted: None,
                },
            );
            self.r3.publish(
                Role::AgentValidator,
                ExecutionResult {
                    subtask_id,
                    parent_task_id: task.clone(),
                    status: ExecutionStatus::Completed,
                    output: "big.mp4 2.1G".into(),
                    tool_calls: vec![call.clone()],
                    attempt,
                    interrupted: None,
                },
            );
            self.r4a.publish(
                Role::Executor,
                CorrectionSignal {
                    subtask_id,
                    parent_task_id: task.clone(),
                    attempt_number: attempt,
                    failed_criterion: "sizes are human-readable".into(),
                    failure_class: FailureClass::Logical,
                    what_was_wrong: "sizes in bytes".into(),
                    what_to_do: "use -h".into(),
                    calls_to_avoid: vec![],
                },
            );
        }
        self.r4a.publish(
            Role::MetaValidator,
            SubTaskOutcome {
                subtask_id,
                parent_task_id: task.clone(),
                status: SubTaskStatus::Matched,
                output: serde_json::json!(["big.mp4"]),
                failure_reason: None,
                gap_trajectory: vec![],
                criteria_verdicts: vec![],
                tool_calls: vec![call],
            },
        );
        let loss = Loss {
            d: 0.5,
            p: 0.2,
            omega: 0.1,
            l: 0.4,
        };
        self.r4b.publish(
            Role::Ggs,
            OutcomeSummary {
                task_id: task.clone(),
                intent: "Find the largest files in Downloads".into(),
                merged_output: serde_json::json!({"largest": "big.mp4"}),
                summary: "big.mp4".into(),
                task_criteria_verdicts: vec![],
                outcomes: vec![],
                elapsed_ms: 9_000,
            },
        );
        self.r7.publish(
            Role::Planner,
            PlanDirective {
                task_id: task.clone(),
                loss,
                prev_directive: PrevDirective::Init,
                directive: ReplanDirective::Refine,
                blocked_tools: vec![],
                blocked_targets: vec![],
                failed_criterion: "sizes are human-readable".into(),
                failure_class: MixedFailureClass::Logical,
                budget_pressure: 0.1,
                grad_l: 0.0,
                rationale: "refine the listing".into(),
                urgency: Urgency::Normal,
                gradient: None,
                round: 1,
            },
        );
        self.r7.publish(
            Role::User,
            FinalResult {
                task_id: task.clone(),
                summary: "big.mp4 (2.1 GB) is the largest file".into(),
                output: serde_json::json!({"largest": "big.mp4"}),
                loss: Loss { d: 0.0, ..loss },
                grad_l: -0.3,
                replans: 1,
                prev_directive: PrevDirective::Refine,
                directive: TerminalDirective::Accept,
                next_moves: vec![],
                effects: vec![],
                grants: Vec::new(),
                scheduled: None,
                law1: Default::default(),
                account: Vec::new(),
                unverified: Vec::new(),
                not_met: Vec::new(),
            },
        );
        self.r7.publish(
            Role::Memory,
            MegramWrite {
                task_id: Some(task),
                megram: Megram {
                    id: MegramId::mint(),
                    level: Level::M,
                    created_at: chrono::DateTime::UNIX_EPOCH,
                    last_recalled_at: None,
                    space: "intent:find-largest".into(),
                    entity: "env:local".into(),
                    content: "du -ah | sort -rh lists the largest files".into(),
                    state: MegramOrigin::Accept,
                    f: 0.8,
                    sigma: 1.0,
                    k: 0.05,
                },
                against_rule: None,
            },
        );
        // TaskSpec, 8 × 4 fast-loop messages, outcome, summary, directive, result, Megram.
        1 + 8 * 4 + 5
    }
}

/// Publishes at least `messages` (whole tasks) in chunks the auditor's tap can hold,
/// waiting for the auditor between chunks, so the history has no gaps.
fn fill(rt: &Runtime, audited: &mut Audited, messages: u64) {
    const CHUNK: u64 = 20_000;
    let traffic = Traffic::new(&audited.bus);
    let mut published = 0;
    while published < messages {
        let mut goal = audited.logged();
        while goal - audited.logged() < CHUNK && published < messages {
            let n = traffic.task();
            goal += n;
            published += n;
        }
        audited.wait_logged(rt, goal);
    }
    assert_eq!(audited.lost(), 0, "filling the history lost messages");
}

fn on_demand_report(c: &mut Criterion) {
    let rt = runtime();
    let mut audited = Audited::start(&rt);
    let started = Instant::now();
    fill(&rt, &mut audited, HISTORY_EVENTS);
    let elapsed = started.elapsed();
    println!(
        "history: {} events logged in {:.1} s ({:.0} events/s, no gaps)",
        audited.logged(),
        elapsed.as_secs_f64(),
        audited.logged() as f64 / elapsed.as_secs_f64()
    );
    let user = audited.bus.handle(Role::User);
    let mut group = c.benchmark_group("auditor");
    group.sample_size(50);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("on_demand_report_with_1m_events_in_history", |b| {
        b.iter(|| {
            rt.block_on(async {
                let reply = tokio::time::timeout(
                    Duration::from_secs(3),
                    user.request(
                        Role::Auditor,
                        AuditQuery {
                            query_id: QueryId::mint(),
                        },
                    ),
                )
                .await
                .expect("answered within 3 s")
                .expect("bus open");
                assert!(matches!(reply.message, Message::AuditReport(_)));
            })
        })
    });
    group.finish();
    let data_dir = audited.data_dir.clone();
    let _kept = audited.stop(&rt);
    let audit_dir = artoo::auditor::audit_dir(&data_dir);
    let size = |name: &str| std::fs::metadata(audit_dir.join(name)).map_or(0, |m| m.len());
    let log_bytes: u64 = std::fs::read_dir(&audit_dir)
        .expect("the audit dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("events-"))
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "history on disk: {:.0} MB of events ({:.0} bytes/event), state.json {:.0} KB",
        log_bytes as f64 / 1e6,
        log_bytes as f64 / HISTORY_EVENTS as f64,
        size("state.json") as f64 / 1e3
    );

    // Start-up with that history: only the log's tail is read.
    let bus = Bus::new(SystemClock::shared());
    let config = Config::with_dirs(data_dir, "/nonexistent-workspace");
    let started = Instant::now();
    let reopened = Auditor::open(&bus, &config, SystemClock::shared()).expect("reopens");
    println!(
        "start-up with {} events in history: {:.1} ms",
        reopened.status().borrow().events_logged,
        started.elapsed().as_secs_f64() * 1000.0
    );
}

fn burst(c: &mut Criterion) {
    let rt = runtime();
    let mut audited = Audited::start(&rt);
    let traffic = Traffic::new(&audited.bus);
    let per_task = traffic.task();
    let tasks = BURST.div_ceil(per_task);
    let mut group = c.benchmark_group("auditor");
    group.throughput(Throughput::Elements(tasks * per_task));
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(20));
    // One second of a 50 000 msg/s bus published at once; timed until all is logged.
    group.bench_function("burst_of_50k_messages_logged", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let started = Instant::now();
                let mut goal = audited.logged();
                for _ in 0..tasks {
                    goal += traffic.task();
                }
                audited.wait_logged(&rt, goal);
                total += started.elapsed();
            }
            total
        })
    });
    group.finish();
    assert_eq!(audited.lost(), 0, "the auditor lost messages in a burst");

    // Sustained: 50 000 msg/s paced in 1 ms slices for 3 s.
    let per_ms = BURST / 1000;
    let slices = 3_000;
    let started = Instant::now();
    let mut goal = audited.logged();
    let mut published = 0;
    let mut max_backlog = 0;
    for slice in 0..slices {
        let due = started + Duration::from_millis(slice);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        while published < (slice + 1) * per_ms {
            let n = traffic.task();
            published += n;
            goal += n;
        }
        let queued = audited
            .bus
            .stats()
            .taps
            .iter()
            .find(|t| t.name.as_str() == "auditor")
            .map_or(0, |t| t.queued);
        max_backlog = max_backlog.max(queued);
    }
    let publish_time = started.elapsed();
    audited.wait_logged(&rt, goal);
    println!(
        "sustained: {published} messages at {:.0} msg/s over {:.2} s; largest tap backlog {max_backlog} of {}; lost {}; all logged {:.0} ms after the last publish",
        published as f64 / publish_time.as_secs_f64(),
        publish_time.as_secs_f64(),
        artoo::auditor::AUDIT_TAP_CAPACITY,
        audited.lost(),
        (started.elapsed() - publish_time).as_secs_f64() * 1000.0
    );
    assert_eq!(
        audited.lost(),
        0,
        "the auditor fell behind a 50 000 msg/s bus"
    );
    drop(audited.stop(&rt));
}

fn verify(c: &mut Criterion) {
    let rt = runtime();
    let mut audited = Audited::start(&rt);
    fill(&rt, &mut audited, VERIFY_EVENTS);
    let data_dir = audited.data_dir.clone();
    let _kept = audited.stop(&rt);
    let history = AuditHistory::new(Path::new(&data_dir));
    let events = history.verify().expect("verifies").events;
    let mut group = c.benchmark_group("auditor");
    group.throughput(Throughput::Elements(events));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("verify_100k_events", |b| {
        b.iter(|| {
            let report = history.verify().expect("verifies");
            assert!(report.is_clean(), "{:?}", report.broken);
        })
    });
    group.finish();
}

criterion_group!(benches, on_demand_report, burst, verify);
criterion_main!(benches);
