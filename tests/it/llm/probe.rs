//! "Test connection" against real HTTP endpoints on loopback.

use std::time::Duration;

use artoo::config::{ApiKey, TierConfig};
use artoo::llm::{check_reachable, test_connection};
use artoo::testkit::{Script, ScriptedServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn tier(base_url: &str, model: &str) -> TierConfig {
    TierConfig {
        base_url: Some(base_url.into()),
        model: Some(model.into()),
        enable_thinking: false,
        api_key: Some(ApiKey::new("sk-test")),
    }
}

/// Answers one request with `body` and hands back what it received.
async fn one_reply(body: &'static str) -> (String, tokio::task::JoinHandle<String>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let served = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        // Headers and the small JSON body arrive together; read until the body is complete.
        while !String::from_utf8_lossy(&seen).contains("\"max_tokens\"") {
            let n = socket.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(reply.as_bytes()).await.unwrap();
        String::from_utf8_lossy(&seen).into_owned()
    });
    (url, served)
}

#[tokio::test]
async fn a_working_endpoint_reports_the_model_that_answered_and_the_latency() {
    let (url, served) = one_reply(
        r#"{"id":"x","object":"chat.completion","model":"qwen2.5-coder-1.5b-q4","choices":[{"index":0,"message":{"role":"assistant","content":"OK"},"finish_reason":"length"}]}"#,
    )
    .await;
    let report = test_connection(&tier(&url, "qwen"), Duration::from_secs(5)).await;
    assert!(report.ok, "{report:?}");
    assert_eq!(report.model.as_deref(), Some("qwen2.5-coder-1.5b-q4"));
    assert!(report.latency_ms < 5_000);
    let request = served.await.unwrap();
    assert!(
        request.starts_with("POST /v1/chat/completions"),
        "{request}"
    );
    assert!(request.contains("\"max_tokens\":1"), "one token: {request}");
    assert!(
        request
            .to_ascii_lowercase()
            .contains("authorization: bearer sk-test")
    );
}

#[tokio::test]
async fn an_endpoint_that_refuses_says_its_status_and_why() {
    let server = ScriptedServer::start(Script::default()).await.unwrap();
    let report = test_connection(&tier(&server.base_url(), "m"), Duration::from_secs(5)).await;
    assert!(!report.ok);
    let error = report.error.unwrap_or_default();
    assert!(error.starts_with("HTTP 400"), "{error}");
    // The start-up check only asks for the model list, which costs no tokens.
    let reachable = check_reachable(&tier(&server.base_url(), "m"), Duration::from_secs(5)).await;
    assert!(reachable.ok, "{reachable:?}");
    assert_eq!(
        server.requests().last().map(|r| r.path.clone()),
        Some("/v1/models".into())
    );
}

#[tokio::test]
async fn nothing_listening_and_a_missing_model_are_reported_not_raised() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let report = test_connection(&tier(&url, "m"), Duration::from_secs(5)).await;
    assert!(!report.ok);
    assert!(report.error.unwrap_or_default().contains("cannot connect"));
    let empty = TierConfig {
        model: None,
        ..tier(&url, "m")
    };
    let report = test_connection(&empty, Duration::from_secs(5)).await;
    assert!(!report.ok && report.error.is_some());
}
