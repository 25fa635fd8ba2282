//! "Test connection": one real one-token chat call to an endpoint, timed, naming the model
//! that answered. Used before settings are saved and to tell the user, before they type,
//! that the model cannot be reached.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::config::TierConfig;

/// How a test call went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConnectionReport {
    /// The endpoint answered a chat request.
    pub ok: bool,
    /// The model the endpoint says answered (its `model` field), else the one asked for.
    pub model: Option<String>,
    /// Wall time of the call, connection included.
    pub latency_ms: u64,
    /// Why it failed, in words: the HTTP status and the start of the body, or the
    /// transport error.
    pub error: Option<String>,
}

/// Longest piece of an error body quoted in a report.
const BODY_CHARS: usize = 300;

/// Whether `tier`'s endpoint answers at all: `GET /models`, which costs no tokens (the
/// check at start-up, repeated whenever the app starts).
pub async fn check_reachable(tier: &TierConfig, timeout: Duration) -> ConnectionReport {
    call(tier, timeout, Call::Models).await
}

/// Sends one chat call asking for a single token to `tier`'s endpoint and model.
pub async fn test_connection(tier: &TierConfig, timeout: Duration) -> ConnectionReport {
    call(tier, timeout, Call::OneToken).await
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Call {
    Models,
    OneToken,
}

async fn call(tier: &TierConfig, timeout: Duration, kind: Call) -> ConnectionReport {
    let started = Instant::now();
    let fail = |error: String, started: Instant| ConnectionReport {
        ok: false,
        model: None,
        latency_ms: started.elapsed().as_millis() as u64,
        error: Some(error),
    };
    let (Some(base), Some(model)) = (tier.base_url.as_deref(), tier.model.as_deref()) else {
        return fail(
            "an endpoint URL and a model are both needed".into(),
            started,
        );
    };
    let base = base.trim().trim_end_matches('/');
    let base = base.strip_suffix("/chat/completions").unwrap_or(base);
    let client = match reqwest::Client::builder().timeout(timeout).build() {
        Ok(client) => client,
        Err(e) => return fail(e.to_string(), started),
    };
    let mut request = match kind {
        Call::Models => client.get(format!("{base}/models")),
        Call::OneToken => {
            client
                .post(format!("{base}/chat/completions"))
                .json(&serde_json::json!({
                    "model": model,
                    "messages": [{"role": "user", "content": "Reply with OK."}],
                    "max_tokens": 1,
                    "temperature": 0,
                }))
        }
    };
    if let Some(key) = &tier.api_key {
        request = request.bearer_auth(key.expose());
    }
    let reply = match request.send().await {
        Ok(reply) => reply,
        Err(e) if e.is_timeout() => {
            return fail(format!("no answer within {} s", timeout.as_secs()), started);
        }
        Err(e) if e.is_connect() => {
            return fail(format!("cannot connect to {base}: {e}"), started);
        }
        Err(e) => return fail(e.to_string(), started),
    };
    let status = reply.status();
    let body = reply.text().await.unwrap_or_default();
    let latency_ms = started.elapsed().as_millis() as u64;
    if !status.is_success() {
        let head: String = body.chars().take(BODY_CHARS).collect();
        return ConnectionReport {
            ok: false,
            model: None,
            latency_ms,
            error: Some(format!("HTTP {status}: {}", head.trim())),
        };
    }
    let answered = match kind {
        Call::Models => None,
        Call::OneToken => serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v.get("model").and_then(|m| m.as_str()).map(str::to_string)),
    };
    ConnectionReport {
        ok: true,
        model: Some(answered.unwrap_or_else(|| model.to_string())),
        latency_ms,
        error: None,
    }
}
