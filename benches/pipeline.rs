//! The hierarchy's own cost: one whole task (R1 → R2 → R3 ⇄ R4a → R4b → R7, memory,
//! auditor, task log) against a scripted endpoint that answers at once, and the wall time
//! of 8 parallel sub-tasks against 1 when every model call takes 200 ms.
//!
//! Every task runs the real runtime, the real HTTP client and a real in-process tool
//! (`read_file`), so the "framework overhead" figure is everything but model latency.
#![allow(clippy::unwrap_used)] // a test may unwrap: a panic is its failure report
#![allow(missing_docs)] // criterion_group! defines an undocumented `pub fn` per group

use std::time::{Duration, Instant};

use artoo::Config;
use artoo::contracts::{Role, TerminalDirective};
use artoo::runtime::{Runtime, RuntimeOptions, TaskEnd};
use artoo::testkit::{Script, ScriptedServer, Step, llm_config};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

const MARKER: &str = "BENCH_OK_MARKER";

fn perception() -> String {
    json!({"constraints": {"deadline": null, "scope": null},
        "intent": "Read the note in the workspace", "kind": "task",
        "question": null, "reply": null})
    .to_string()
}

fn plan(subtasks: usize) -> String {
    let subtasks: Vec<_> = (0..subtasks)
        .map(|i| {
            json!({"context": "The note is note.txt in the workspace.",
                "intent": format!("Read note.txt (copy {i})"), "sequence": 1,
                "success_criteria": ["the output contains the note's text"],
                "tools": ["read_file"]})
        })
        .collect();
    json!({"subtasks": subtasks, "task_criteria": ["the answer quotes the note"]}).to_string()
}

/// A script for one task shape, cycling so it serves any number of tasks. `latency`
/// applies to every model call.
fn script(subtasks: usize, latency: u64) -> Script {
    let step = |content: String| Step::reply(content).latency_ms(latency);
    Script::new()
        .role(Role::Perceiver, [step(perception())])
        .role(Role::Planner, [step(plan(subtasks))])
        .role(Role::Executor, {
            // One finish and one call per sub-task: a finish answers only a turn that
            // carries the tool result (the note's text), so a second turn can never be
            // handed another call while parallel workers share the queue.
            let finish = step(
                json!({"evidence": "read_file returned the note", "next": "finish",
                    "status": "completed", "output": MARKER, "summary": "Read the note."})
                .to_string(),
            )
            .when(MARKER);
            let call = step(
                json!({"evidence": "", "next": "call_tool", "tool": "read_file",
                    "tool_input": {"path": "note.txt"}})
                .to_string(),
            );
            let mut steps = vec![finish; subtasks];
            steps.extend(vec![call; subtasks]);
            steps
        })
        .role(
            Role::AgentValidator,
            [step(
                json!({"criteria": [{"criterion": "the output contains the note's text",
                "evidence": format!("read_file output: {MARKER}"), "met": true,
                "unmet_cause": null}], "diagnosis": "", "remedy": ""})
                .to_string(),
            )],
        )
        .role(
            Role::MetaValidator,
            [step(
                json!({"combined_output": {"note": MARKER},
                "criteria": [{"criterion": "the answer quotes the note",
                    "evidence": MARKER, "met": true, "unmet_cause": null}],
                "diagnosis": "", "remedy": "", "summary": "The note says BENCH_OK_MARKER."})
                .to_string(),
            )],
        )
        .cycle()
}

struct Bench {
    runtime: Runtime,
    server: ScriptedServer,
    _dirs: tempfile::TempDir,
}

/// Where the scripted endpoint runs.
#[derive(Clone, Copy, Debug)]
enum Endpoint {
    /// On a thread of its own, as a model server in another process would be: the
    /// figure is artoo's cost alone.
    OwnThread,
    /// On the benchmark's runtime, sharing its worker threads with artoo.
    SameRuntime,
}

async fn start(subtasks: usize, latency: u64, endpoint: Endpoint) -> Bench {
    let server = match endpoint {
        Endpoint::OwnThread => ScriptedServer::start_dedicated(script(subtasks, latency)),
        Endpoint::SameRuntime => ScriptedServer::start(script(subtasks, latency)).await,
    }
    .expect("server starts");
    let dirs = tempfile::tempdir().expect("temp dir");
    let home = dirs.path().join("home");
    let workspace = home.join("artoo_workspace");
    std::fs::create_dir_all(&workspace).expect("workspace");
    std::fs::write(workspace.join("note.txt"), MARKER).expect("note");
    let mut config = Config::with_dirs(dirs.path().join("data"), &workspace);
    config.home = home;
    config.llm = llm_config(&server.base_url());
    let runtime = Runtime::start(config, RuntimeOptions::default())
        .await
        .expect("runtime starts");
    Bench {
        runtime,
        server,
        _dirs: dirs,
    }
}

/// Runs one task to its end; panics unless it succeeded, so a broken pipeline can never
/// pass for a fast one.
async fn one_task(runtime: &Runtime) {
    let task = runtime
        .submit("what does the note in my workspace say?")
        .expect("submit");
    match runtime.wait(&task).await.expect("known task") {
        TaskEnd::Final(r) if r.directive != TerminalDirective::Abandon => {}
        other => panic!("the benchmark task did not succeed: {other:?}"),
    }
}

/// How the next task follows the previous one.
#[derive(Clone, Copy, Debug)]
enum Pace {
    /// Submitted once the previous task's run is written to its log file, as a user's
    /// next task is: it is never typed within a millisecond of the last result.
    Settled,
    /// Submitted the moment the previous one ended, while the task log still creates,
    /// writes and syncs that run's file on the other core.
    BackToBack,
}

/// p50 and p90 of 300 whole tasks.
fn first_tasks(
    rt: &tokio::runtime::Runtime,
    endpoint: Endpoint,
    pace: Pace,
) -> (Duration, Duration) {
    rt.block_on(async {
        let bench = start(1, 0, endpoint).await;
        let mut times = Vec::with_capacity(300);
        for _ in 0..300 {
            if let Pace::Settled = pace {
                bench.runtime.flush_task_log().await.expect("task log");
            }
            let t0 = Instant::now();
            one_task(&bench.runtime).await;
            times.push(t0.elapsed());
        }
        bench.runtime.shutdown().await;
        bench.server.shutdown().await;
        times.sort();
        (times[times.len() / 2], times[times.len() * 9 / 10])
    })
}

fn overhead(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("tokio");
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for (endpoint, pace) in [
        (Endpoint::OwnThread, Pace::Settled),
        (Endpoint::OwnThread, Pace::BackToBack),
        (Endpoint::SameRuntime, Pace::Settled),
    ] {
        let (p50, p90) = first_tasks(&rt, endpoint, pace);
        println!(
            "pipeline/overhead ({endpoint:?} endpoint, {pace:?}): one whole task with a zero-latency model, p50 {:.2} ms, p90 {:.2} ms (300 tasks)",
            ms(p50),
            ms(p90),
        );
    }
    // Criterion's iterations follow each other at once (back to back).
    let bench = rt.block_on(start(1, 0, Endpoint::OwnThread));
    let mut group = c.benchmark_group("pipeline");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(15));
    group.bench_function("one_task_zero_latency_llm", |b| {
        b.to_async(&rt).iter(|| one_task(&bench.runtime))
    });
    group.finish();
    rt.block_on(async {
        bench.runtime.shutdown().await;
        bench.server.shutdown().await;
    });
}

/// Wall time of one task with `subtasks` parallel sub-tasks, every call at 200 ms.
fn wall_time(rt: &tokio::runtime::Runtime, subtasks: usize, runs: usize) -> Vec<Duration> {
    rt.block_on(async {
        let bench = start(subtasks, 200, Endpoint::OwnThread).await;
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t0 = Instant::now();
            one_task(&bench.runtime).await;
            times.push(t0.elapsed());
        }
        bench.runtime.shutdown().await;
        bench.server.shutdown().await;
        times
    })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn parallel(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("tokio");
    let one = median(wall_time(&rt, 1, 5));
    let eight = median(wall_time(&rt, 8, 5));
    println!(
        "pipeline/parallel: 1 sub-task {:.0} ms, 8 parallel sub-tasks {:.0} ms, ratio {:.2}x (200 ms per model call)",
        one.as_secs_f64() * 1e3,
        eight.as_secs_f64() * 1e3,
        eight.as_secs_f64() / one.as_secs_f64()
    );
    let mut group = c.benchmark_group("pipeline");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    for n in [1usize, 8] {
        let bench = rt.block_on(start(n, 200, Endpoint::OwnThread));
        group.bench_function(format!("{n}_parallel_subtasks_200ms_llm"), |b| {
            b.to_async(&rt).iter(|| one_task(&bench.runtime))
        });
        rt.block_on(async {
            bench.runtime.shutdown().await;
            bench.server.shutdown().await;
        });
    }
    group.finish();
}

criterion_group!(benches, overhead, parallel);
criterion_main!(benches);
