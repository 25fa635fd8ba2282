//! Prompt snapshots on a llama-server: a role's instructions are evaluated once, saved,
//! and restored into the slot whenever another role's prompt has replaced them — also
//! by the next process, which finds the snapshot the first one saved.

use artoo::FakeClock;
use artoo::bus::Bus;
use artoo::contracts::{Role, TaskId};
use artoo::llm::{CallCtx, ChatRequest, Llm};
use artoo::testkit::{RecordedRequest, Script, ScriptedServer, Step, llm_config};
use tokio_util::sync::CancellationToken;

const PLANNER: &str = "You are the planner of this test.";
const EXECUTOR: &str = "You are the executor of this test.";

fn ctx() -> CallCtx {
    CallCtx::for_task(TaskId::mint(), CancellationToken::new())
}

/// One line per request after `from`: a slot action with its file, an evaluation-only
/// call with its system prompt, or a role's call with its slot.
fn trace(requests: &[RecordedRequest]) -> Vec<String> {
    requests
        .iter()
        .filter(|r| r.path != "/v1/models")
        .map(|r| {
            if r.path.starts_with("/slots/") {
                let action = r.path.split("action=").nth(1).unwrap_or_default();
                let file = r.body["filename"].as_str().unwrap_or_default();
                assert!(
                    file.starts_with("artoo-") && file.ends_with(".bin"),
                    "{file}"
                );
                format!("{action} {file}")
            } else if r.body["max_tokens"] == 0 {
                let messages = r.messages();
                assert_eq!(
                    messages[1],
                    ("user".to_string(), String::new()),
                    "no user words are saved"
                );
                format!("evaluate {}", messages[0].1)
            } else {
                format!(
                    "{} call in slot {}",
                    r.role.as_deref().unwrap_or("?"),
                    r.body["id_slot"]
                )
            }
        })
        .collect()
}

async fn call(llm: &Llm, bus: &Bus, role: Role, system: &str) {
    llm.for_role(bus.handle(role))
        .expect("a model role")
        .chat(&ctx(), &ChatRequest::new(system, "the user's words"))
        .await
        .expect("the call succeeds");
}

fn replies(n: usize) -> Vec<Step> {
    (0..n).map(|i| Step::reply(format!("reply {i}"))).collect()
}

#[tokio::test]
async fn instructions_are_evaluated_once_and_restored_after_another_role_or_a_restart() {
    let script = Script::new()
        .llama_server(1)
        .slot_save()
        .role(Role::Planner, replies(4))
        .role(Role::Executor, replies(2));
    let server = ScriptedServer::start(script).await.expect("server");
    let clock = FakeClock::at_epoch();
    let bus = Bus::new(clock.clone());
    let llm = Llm::new(&llm_config(&server.base_url()), clock.clone()).expect("client");

    call(&llm, &bus, Role::Planner, PLANNER).await;
    call(&llm, &bus, Role::Planner, PLANNER).await;
    call(&llm, &bus, Role::Executor, EXECUTOR).await;
    call(&llm, &bus, Role::Planner, PLANNER).await;
    let first = trace(&server.requests());
    let file = |line: &str| line.split(' ').nth(1).unwrap_or_default().to_string();
    let (planner_file, executor_file) = (file(&first[0]), file(&first[5]));
    assert_ne!(planner_file, executor_file, "one snapshot per prompt");
    assert_eq!(
        first,
        vec![
            // No snapshot yet: the instructions alone are evaluated and saved.
            format!("restore {planner_file}"),
            format!("evaluate {PLANNER}"),
            format!("save {planner_file}"),
            "R2 call in slot 0".to_string(),
            // The slot still holds the planner's prompt: nothing to do.
            "R2 call in slot 0".to_string(),
            format!("restore {executor_file}"),
            format!("evaluate {EXECUTOR}"),
            format!("save {executor_file}"),
            "R3 call in slot 0".to_string(),
            // The executor replaced it: the saved one comes back.
            format!("restore {planner_file}"),
            "R2 call in slot 0".to_string(),
        ]
    );

    // Another process (artoo restarted) finds what the first saved.
    let seen = server.requests().len();
    let again = Llm::new(&llm_config(&server.base_url()), clock).expect("client");
    call(&again, &bus, Role::Executor, EXECUTOR).await;
    call(&again, &bus, Role::Planner, PLANNER).await;
    assert_eq!(
        trace(&server.requests()[seen..]),
        vec![
            format!("restore {executor_file}"),
            "R3 call in slot 0".to_string(),
            format!("restore {planner_file}"),
            "R2 call in slot 0".to_string(),
        ]
    );
}

#[tokio::test]
async fn a_server_that_keeps_no_snapshots_is_asked_once_then_left_alone() {
    let script = Script::new()
        .llama_server(1)
        .role(Role::Planner, replies(2))
        .role(Role::Executor, replies(1));
    let server = ScriptedServer::start(script).await.expect("server");
    let clock = FakeClock::at_epoch();
    let bus = Bus::new(clock.clone());
    let llm = Llm::new(&llm_config(&server.base_url()), clock).expect("client");
    call(&llm, &bus, Role::Planner, PLANNER).await;
    call(&llm, &bus, Role::Executor, EXECUTOR).await;
    call(&llm, &bus, Role::Planner, PLANNER).await;
    let lines = trace(&server.requests());
    assert_eq!(
        lines[1..],
        [
            "R2 call in slot 0",
            "R3 call in slot 0",
            "R2 call in slot 0"
        ]
    );
    assert!(lines[0].starts_with("restore "), "{lines:?}");
}

#[tokio::test]
async fn other_endpoints_get_no_slot_requests() {
    // A llama-server with a few shared slots chooses for itself; any other provider gets
    // plain OpenAI requests.
    for script in [Script::new().llama_server(4).slot_save(), Script::new()] {
        let server = ScriptedServer::start(
            script
                .role(Role::Planner, replies(1))
                .role(Role::Executor, replies(1)),
        )
        .await
        .expect("server");
        let clock = FakeClock::at_epoch();
        let bus = Bus::new(clock.clone());
        let llm = Llm::new(&llm_config(&server.base_url()), clock).expect("client");
        call(&llm, &bus, Role::Planner, PLANNER).await;
        call(&llm, &bus, Role::Executor, EXECUTOR).await;
        let lines = trace(&server.requests());
        assert_eq!(lines, ["R2 call in slot null", "R3 call in slot null"]);
    }
}
