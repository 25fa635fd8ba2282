//! The scripted server itself: what it serves, how it picks steps, what it records.

use artoo::contracts::Role;
use artoo::llm::ROLE_HEADER;
use artoo::testkit::{Script, ScriptedServer, Step};
use serde_json::{Value, json};

use super::script;

async fn post(server: &ScriptedServer, role: Option<&str>, body: Value) -> (u16, Value) {
    let client = reqwest::Client::new();
    let mut request = client
        .post(format!("{}/chat/completions", server.base_url()))
        .json(&body);
    if let Some(role) = role {
        request = request.header(ROLE_HEADER, role);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn chat(text: &str) -> Value {
    json!({"model": "m", "messages": [{"role": "user", "content": text}]})
}

#[tokio::test]
async fn models_are_listed_and_unknown_routes_are_404() {
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let models: Value = reqwest::get(format!("{}/models", server.base_url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(models["data"][0]["id"], "scripted-brain");
    let status = reqwest::get(format!("{}/embeddings", server.base_url()))
        .await
        .unwrap()
        .status();
    assert_eq!(status.as_u16(), 404);
    assert_eq!(server.requests().len(), 2);
    assert!(server.addr().ip().is_loopback());
}

#[tokio::test]
async fn steps_are_served_in_order_per_role_and_exhaustion_is_an_error() {
    let server = ScriptedServer::start(
        Script::new().role(Role::Planner, [Step::reply("one"), Step::reply("two")]),
    )
    .await
    .unwrap();
    let content = |v: &Value| v["choices"][0]["message"]["content"].clone();
    assert_eq!(
        content(&post(&server, Some("R2"), chat("a")).await.1),
        "one"
    );
    assert_eq!(
        content(&post(&server, Some("R2"), chat("b")).await.1),
        "two"
    );
    let (status, body) = post(&server, Some("R2"), chat("c")).await;
    assert_eq!(status, 500);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exhausted")
    );
    let (status, _) = post(&server, Some("R3"), chat("d")).await;
    assert_eq!(status, 500);
    let (status, body) = post(&server, None, chat("e")).await;
    assert_eq!(status, 400);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains(ROLE_HEADER)
    );
    let steps: Vec<_> = server.requests().iter().map(|r| r.step).collect();
    assert_eq!(steps, vec![Some(0), Some(1), None, None, None]);
}

/// The dedicated server answers from its own thread, and stops when shut down (the
/// port refuses connections afterwards) or dropped, on a runtime with one worker.
#[tokio::test(flavor = "current_thread")]
async fn a_dedicated_server_serves_from_its_own_thread_and_stops_on_shutdown() {
    let script = || Script::new().role(Role::Planner, [Step::reply("one")]);
    let server = ScriptedServer::start_dedicated(script()).unwrap();
    let (status, reply) = post(&server, Some("R2"), chat("a")).await;
    assert_eq!(status, 200);
    assert_eq!(reply["choices"][0]["message"]["content"], "one");
    assert_eq!(server.requests_from(Role::Planner).len(), 1);
    let addr = server.addr();
    server.shutdown().await;
    assert!(
        refuses_soon(addr).await,
        "a shut-down dedicated server still accepts connections"
    );

    let dropped = ScriptedServer::start_dedicated(script()).unwrap();
    let addr = dropped.addr();
    drop(dropped);
    assert!(
        refuses_soon(addr).await,
        "a dropped dedicated server still accepts connections"
    );
}

/// Whether a connection to `addr` is refused within about two seconds. Not at the first
/// try alone: a process another test forks at that instant holds a copy of every open
/// socket until it execs, so a closed listener can accept for a moment after it closed.
async fn refuses_soon(addr: std::net::SocketAddr) -> bool {
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(addr).await.is_err() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    false
}

/// A body of an unusual shape (content parts instead of a string, a numeric model) is
/// still JSON: it is answered and recorded as sent; a step's match reads only string
/// contents.
#[tokio::test]
async fn a_chat_body_of_another_shape_is_answered_and_recorded_as_sent() {
    let server = ScriptedServer::start(Script::new().role(
        Role::Planner,
        [Step::reply("matched").when("needle"), Step::reply("plain")],
    ))
    .await
    .unwrap();
    let parts = json!({"model": 5, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "needle"}]}]});
    let (status, reply) = post(&server, Some("R2"), parts.clone()).await;
    assert_eq!(status, 200);
    assert_eq!(reply["choices"][0]["message"]["content"], "plain");
    assert_eq!(reply["model"], "scripted");
    let (_, reply) = post(&server, Some("R2"), chat("a needle here")).await;
    assert_eq!(reply["choices"][0]["message"]["content"], "matched");
    let recorded = server.requests_from(Role::Planner);
    assert_eq!(recorded[0].body, parts);
    assert_eq!(recorded[0].step, Some(1));
    assert_eq!(recorded[1].step, Some(0));
}

#[tokio::test]
async fn a_step_with_a_match_answers_only_the_request_that_contains_its_text() {
    let server = ScriptedServer::start(Script::new().role(
        Role::Executor,
        [
            Step::reply("for B").when("subtask B"),
            Step::reply("for A").when("subtask A"),
        ],
    ))
    .await
    .unwrap();
    let content = |v: Value| {
        v["choices"][0]["message"]["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        content(post(&server, Some("R3"), chat("run subtask A")).await.1),
        "for A"
    );
    assert_eq!(
        content(post(&server, Some("R3"), chat("run subtask B")).await.1),
        "for B"
    );
    assert_eq!(server.remaining(Role::Executor), 0);
}

#[tokio::test]
async fn a_cycling_script_starts_over_and_steps_can_be_pushed_while_running() {
    let server = ScriptedServer::start(
        Script::new()
            .cycle()
            .role(Role::Perceiver, [Step::reply("again")]),
    )
    .await
    .unwrap();
    for _ in 0..3 {
        assert_eq!(post(&server, Some("R1"), chat("hi")).await.0, 200);
    }
    server.push(Role::Memory, [Step::reply("lesson")]);
    let (status, body) = post(&server, Some("R5"), chat("distil")).await;
    assert_eq!(
        (status, body["choices"][0]["message"]["content"].clone()),
        (200, json!("lesson"))
    );
}

#[tokio::test]
async fn an_http_error_step_sends_its_status_and_retry_after() {
    let server = ScriptedServer::start(script("rate_limited_then_ok.json"))
        .await
        .unwrap();
    let response = reqwest::Client::new()
        .post(format!("{}/chat/completions", server.base_url()))
        .header(ROLE_HEADER, "R3")
        .json(&chat("x"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 429);
    assert_eq!(response.headers()["retry-after"], "3");
}

#[tokio::test]
async fn an_unsupported_response_format_is_rejected_without_using_a_step() {
    let server = ScriptedServer::start(
        Script::new()
            .response_formats(&["json_object"])
            .role(Role::Perceiver, [Step::reply("{}")]),
    )
    .await
    .unwrap();
    let mut body = chat("x");
    body["response_format"] =
        json!({"type": "json_schema", "json_schema": {"name": "x", "schema": {}}});
    let (status, answer) = post(&server, Some("R1"), body).await;
    assert_eq!(status, 400);
    assert_eq!(answer["error"]["param"], "response_format");
    assert_eq!(server.remaining(Role::Perceiver), 1);
}

#[test]
fn every_fixture_script_loads() {
    let dir = super::fixture("");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            Script::from_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            n += 1;
        }
    }
    assert!(n >= 5, "{n} scripts");
}

#[tokio::test]
async fn the_demo_binary_serves_a_fixture_script() {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_artoo-scripted-llm"))
        .arg("--script")
        .arg(super::fixture("demo.json"))
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let base_url = lines.next_line().await.unwrap().expect("the base URL line");
    assert!(base_url.starts_with("http://127.0.0.1:"), "{base_url}");
    let answer: Value = reqwest::Client::new()
        .post(format!("{base_url}/chat/completions"))
        .header(ROLE_HEADER, "R1")
        .json(&chat("list my files"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        answer["choices"][0]["message"]["content"]
            .as_str()
            .unwrap()
            .contains("List the files")
    );
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}
