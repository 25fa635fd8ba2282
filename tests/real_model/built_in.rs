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
    assert_eq!(seen, [Stage::Check, Stage::Start, Stage::Ready]);
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
