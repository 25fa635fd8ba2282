//! The built-in model's child process, for real: the weights and llama-server that
//! `scripts/local-llm.sh` left (`LOCAL_LLM_DIR`, default `.local-llm`; `LOCAL_LLM_MODEL`,
//! default the 0.5B), started by artoo on a free port, answering a one-token call, then
//! stopped.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use artoo::config::TierConfig;
use artoo::llm::test_connection;
use artoo::local_llm::{LocalModel, ModelSpec, Pip, ServerArgs, Stage};

#[tokio::test]
async fn the_built_in_model_starts_on_a_free_port_answers_and_stops() {
    let dir = std::env::var_os("LOCAL_LLM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".local-llm"));
    let name = std::env::var("LOCAL_LLM_MODEL").unwrap_or_else(|_| "qwen2.5-coder-0.5b".into());
    let model = LocalModel {
        dir,
        spec: ModelSpec::find(&name).expect("a packaged model"),
        args: ServerArgs::default(),
        pip: Pip::default(),
    };
    assert!(
        model.installed().await,
        "scripts/local-llm.sh fetch and build ran first"
    );
    let stages = Mutex::new(Vec::new());
    let server = model
        .start(&|p| stages.lock().expect("lock").push(p.stage))
        .await
        .expect("the server starts");
    // Installed already: nothing is downloaded or built.
    let seen = stages.lock().expect("lock").clone();
    assert_eq!(seen, [Stage::Check, Stage::Start]);
    let url = server.base_url();
    let report = test_connection(
        &TierConfig {
            base_url: Some(url.clone()),
            model: Some(name.clone()),
            enable_thinking: false,
            api_key: None,
        },
        Duration::from_secs(120),
    )
    .await;
    assert!(report.ok, "{report:?}");
    assert!(
        report.model.is_some_and(|m| !m.is_empty()),
        "the model names itself"
    );
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/v1")
        .parse::<u16>()
        .expect("a port");
    server.stop().await;
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "nothing listens once stopped"
    );
}

/// The built-in model of `LOCAL_LLM_DIR` as a fresh install would have it: the same
/// weights and server, and no snapshot of any role's instructions yet.
fn fresh_install(at: &std::path::Path) -> LocalModel {
    let dir = std::env::var_os("LOCAL_LLM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".local-llm"));
    for part in ["models", "bin"] {
        std::os::unix::fs::symlink(dir.join(part), at.join(part)).expect("link");
    }
    let name = std::env::var("LOCAL_LLM_MODEL").unwrap_or_else(|_| "qwen2.5-coder-0.5b".into());
    LocalModel {
        dir: at.to_path_buf(),
        spec: ModelSpec::find(&name).expect("a packaged model"),
        args: ServerArgs::default(),
        pip: Pip::default(),
    }
}

/// Model time per call of one run of `text`, and the calls it made.
async fn model_time_per_call(runtime: &artoo::runtime::Runtime, text: &str) -> (f64, u64) {
    let task = runtime.submit(text).expect("submitted");
    let budget = runtime.task_budget() + Duration::from_secs(90);
    tokio::time::timeout(budget, runtime.wait(&task))
        .await
        .expect("the task ends within its budget")
        .expect("the runtime knows the task");
    let usage = runtime.usage(&task).total();
    assert!(usage.calls > 0, "{text}: the model was called");
    (usage.wall_ms as f64 / usage.calls as f64, usage.calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_the_install_prepares_the_model_the_first_task_costs_what_the_second_does() {
    let install = tempfile::tempdir().expect("temp dir");
    let model = fresh_install(install.path());
    let server = model.start(&|_| {}).await.expect("the server starts");
    let dirs = tempfile::tempdir().expect("temp dir");
    let home = dirs.path().join("home");
    std::fs::create_dir_all(home.join("notes")).expect("notes");
    std::fs::write(
        home.join("notes/week.txt"),
        "mon\ntue\nwed\nthu\nfri\nsat\nsun\n",
    )
    .expect("file");
    let mut config = artoo::Config::with_dirs(home.join(".artoo"), home.join("artoo_workspace"));
    config.home = home.clone();
    config.use_local_endpoint(&server.base_url(), server.model());
    let runtime = artoo::runtime::Runtime::start(config, artoo::runtime::RuntimeOptions::default())
        .await
        .expect("the runtime starts");

    let steps = Mutex::new(Vec::new());
    let readiness = runtime
        .prepare_model(&|done, total| steps.lock().expect("lock").push((done, total)))
        .await;
    assert!(readiness.snapshots >= 8, "{readiness:?}");
    assert_eq!(
        steps.lock().expect("lock").last(),
        Some(&(readiness.snapshots, readiness.snapshots))
    );
    assert!(
        std::fs::read_dir(model.snapshot_dir())
            .expect("the snapshot folder")
            .count()
            >= readiness.snapshots,
        "every role's instructions were saved"
    );
    assert!(
        runtime
            .pace_summary(artoo::status::Lang::En)
            .contains("a typical task takes"),
        "the speed was measured: {}",
        runtime.pace_summary(artoo::status::Lang::En)
    );

    let text = "How many lines are in ~/notes/week.txt?";
    let (first, first_calls) = model_time_per_call(&runtime, text).await;
    let (second, second_calls) = model_time_per_call(&runtime, text).await;
    runtime.shutdown().await;
    server.stop().await;
    // Unprepared, the first task's calls each evaluate a role's instructions first (about
    // twice the time of a call that restores them); prepared, both cost the same.
    let ratio = first / second;
    println!(
        "built_in: first task {first:.0} ms/call over {first_calls} calls, second {second:.0} ms/call over {second_calls} calls, ratio {ratio:.2}"
    );
    assert!(
        ratio < 1.35,
        "the first task cost {ratio:.2}× the second per model call"
    );
}
