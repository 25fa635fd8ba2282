//! The scripted OpenAI-compatible server: `/v1/chat/completions` answers from the script
//! of the role named in the request's role header; `/v1/models` lists the script's
//! models. Every request is recorded before it is answered.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use crate::contracts::Role;
use crate::llm::ROLE_HEADER;

use super::script::{Action, Script, ScriptedReply, Step};

/// One request as the server received it.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRequest {
    /// The role header's value (`R1` …), if any.
    pub role: Option<String>,
    pub method: String,
    pub path: String,
    /// The JSON body (`null` for GET or an unparseable body).
    pub body: Value,
    /// Index of the script step that answered it, per role.
    pub step: Option<usize>,
}

impl RecordedRequest {
    pub fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }

    /// `response_format.type`, when one was sent.
    pub fn response_format(&self) -> Option<&str> {
        self.body
            .get("response_format")
            .and_then(|f| f.get("type"))
            .and_then(Value::as_str)
    }

    /// The `content` of every message, in order.
    pub fn messages(&self) -> Vec<(String, String)> {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .map(|messages| {
                messages
                    .iter()
                    .map(|m| {
                        let field = |k: &str| {
                            m.get(k)
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string()
                        };
                        (field("role"), field("content"))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn contains(&self, text: &str) -> bool {
        self.messages().iter().any(|(_, c)| c.contains(text))
    }
}

struct Queue {
    steps: Vec<Step>,
    used: Vec<bool>,
}

struct State {
    models: Vec<String>,
    formats: Vec<String>,
    cycle: bool,
    queues: Mutex<HashMap<String, Queue>>,
    requests: Mutex<Vec<Stored>>,
    arrived: watch::Sender<usize>,
}

/// A request as kept: its body as the bytes that arrived, parsed again only when a test
/// reads it — a long benchmark sends thousands of large requests, and keeping each as a
/// parsed JSON tree cost the server more memory and time than answering it.
struct Stored {
    role: Option<String>,
    method: String,
    path: String,
    body: Bytes,
    step: Option<usize>,
}

impl Stored {
    fn to_request(&self) -> RecordedRequest {
        RecordedRequest {
            role: self.role.clone(),
            method: self.method.clone(),
            path: self.path.clone(),
            body: serde_json::from_slice(&self.body).unwrap_or(Value::Null),
            step: self.step,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each critical section is a push or a lookup: poisoning cannot leave it half done.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Why no step answers a request.
enum NoStep {
    NoScript,
    Exhausted(usize),
    NoMatch,
}

impl State {
    fn pick(&self, role: &str, request: &RecordedRequest) -> Result<(usize, Step), NoStep> {
        let mut queues = lock(&self.queues);
        let queue = queues.get_mut(role).ok_or(NoStep::NoScript)?;
        let pick = |queue: &Queue| {
            (0..queue.steps.len()).find(|&i| {
                !queue.used[i]
                    && queue.steps[i]
                        .when
                        .as_deref()
                        .is_none_or(|text| request.contains(text))
            })
        };
        let mut found = pick(queue);
        if found.is_none() && self.cycle && !queue.steps.is_empty() {
            queue.used.iter_mut().for_each(|u| *u = false);
            found = pick(queue);
        }
        match found {
            Some(i) => {
                queue.used[i] = true;
                Ok((i, queue.steps[i].clone()))
            }
            None if queue.used.iter().all(|u| *u) => Err(NoStep::Exhausted(queue.steps.len())),
            None => Err(NoStep::NoMatch),
        }
    }

    fn record(&self, request: RecordedRequest, body: &Bytes) {
        let stored = Stored {
            role: request.role,
            method: request.method,
            path: request.path,
            body: body.clone(),
            step: request.step,
        };
        let count = {
            let mut requests = lock(&self.requests);
            requests.push(stored);
            requests.len()
        };
        self.arrived.send_replace(count);
    }
}

/// A running scripted server on `127.0.0.1`. Dropping it stops it.
pub struct ScriptedServer {
    addr: SocketAddr,
    state: Arc<State>,
    shutdown: CancellationToken,
    /// `None` once [`ScriptedServer::shutdown`] has taken it.
    task: Option<JoinHandle<()>>,
}

type HttpResponse = Response<Full<Bytes>>;

fn json_response(status: StatusCode, body: &Value) -> HttpResponse {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

fn error_response(status: StatusCode, message: &str, param: Option<&str>) -> HttpResponse {
    json_response(
        status,
        &json!({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": null}}),
    )
}

/// A rough token count for replies whose script gives none.
fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4).max(1)
}

impl ScriptedServer {
    /// Starts on a free port of 127.0.0.1.
    pub async fn start(script: Script) -> std::io::Result<ScriptedServer> {
        Self::start_on(0, script).await
    }

    /// Starts on `port` of 127.0.0.1 (0 = any free port).
    pub async fn start_on(port: u16, script: Script) -> std::io::Result<ScriptedServer> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
        let addr = listener.local_addr()?;
        let queues = script
            .roles
            .into_iter()
            .map(|(role, steps)| {
                let used = vec![false; steps.len()];
                (role, Queue { steps, used })
            })
            .collect();
        let state = Arc::new(State {
            models: script.models,
            formats: script.response_formats,
            cycle: script.cycle,
            queues: Mutex::new(queues),
            requests: Mutex::new(Vec::new()),
            arrived: watch::channel(0).0,
        });
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(accept(listener, Arc::clone(&state), shutdown.clone()));
        Ok(ScriptedServer {
            addr,
            state,
            shutdown,
            task: Some(task),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port>/v1`, as a tier's base URL.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state.requests)
            .iter()
            .map(Stored::to_request)
            .collect()
    }

    /// Chat-completion requests that named `role`.
    pub fn requests_from(&self, role: Role) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == "/v1/chat/completions" && r.role.as_deref() == Some(role.short()))
            .collect()
    }

    /// Waits until at least `n` requests have arrived.
    pub async fn wait_for_requests(&self, n: usize) {
        let mut rx = self.state.arrived.subscribe();
        // The sender lives as long as `self`, so this ends only when `n` is reached.
        let _ = rx.wait_for(|count| *count >= n).await;
    }

    /// Steps of `role` not used yet.
    pub fn remaining(&self, role: Role) -> usize {
        lock(&self.state.queues)
            .get(role.short())
            .map_or(0, |q| q.used.iter().filter(|u| !**u).count())
    }

    /// Appends steps for `role` while running.
    pub fn push(&self, role: Role, steps: impl IntoIterator<Item = Step>) {
        let mut queues = lock(&self.state.queues);
        let queue = queues.entry(role.short().to_string()).or_insert(Queue {
            steps: Vec::new(),
            used: Vec::new(),
        });
        for step in steps {
            queue.steps.push(step);
            queue.used.push(false);
        }
    }

    /// Stops accepting, releases hanging requests and waits for the connections to end.
    pub async fn shutdown(mut self) {
        self.shutdown.cancel();
        if let Some(task) = self.task.take() {
            // The accept task never panics; a JoinError here can only be a cancellation.
            let _ = task.await;
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

async fn accept(listener: TcpListener, state: Arc<State>, shutdown: CancellationToken) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            () = shutdown.cancelled() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                // Replies go out at once, as a real model server's do.
                let _ = stream.set_nodelay(true);
                let state = Arc::clone(&state);
                let shutdown = shutdown.clone();
                connections.spawn(async move {
                    let service = service_fn(move |request| {
                        let state = Arc::clone(&state);
                        let shutdown = shutdown.clone();
                        async move { Ok::<_, Infallible>(handle(&state, &shutdown, request).await) }
                    });
                    // A client that goes away mid-request is not an error of the server.
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        }
    }
    // Hanging handlers saw the cancellation and answered; drop whatever is left.
    connections.shutdown().await;
}

async fn handle(
    state: &State,
    shutdown: &CancellationToken,
    request: Request<Incoming>,
) -> HttpResponse {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let role = request
        .headers()
        .get(ROLE_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let parsed: Option<Value> = serde_json::from_slice(&body).ok();
    let is_json = parsed.is_some();
    let mut recorded = RecordedRequest {
        role: role.clone(),
        method: method.to_string(),
        path: path.clone(),
        body: parsed.unwrap_or(Value::Null),
        step: None,
    };

    match (&method, path.as_str()) {
        (&Method::GET, "/v1/models") => {
            state.record(recorded, &body);
            let data: Vec<Value> = state
                .models
                .iter()
                .map(|id| json!({"id": id, "object": "model", "created": 0, "owned_by": "artoo-testkit"}))
                .collect();
            json_response(StatusCode::OK, &json!({"object": "list", "data": data}))
        }
        (&Method::POST, "/v1/chat/completions") => {
            if !is_json {
                state.record(recorded, &body);
                return error_response(StatusCode::BAD_REQUEST, "the body is not JSON", None);
            }
            if let Some(format) = recorded.response_format()
                && !state.formats.iter().any(|f| f == format)
            {
                let message =
                    format!("response_format type '{format}' is not supported by this model");
                state.record(recorded, &body);
                return error_response(StatusCode::BAD_REQUEST, &message, Some("response_format"));
            }
            let Some(role) = role else {
                state.record(recorded, &body);
                return error_response(
                    StatusCode::BAD_REQUEST,
                    &format!("missing {ROLE_HEADER} header"),
                    None,
                );
            };
            let picked = state.pick(&role, &recorded);
            recorded.step = picked.as_ref().ok().map(|(i, _)| *i);
            let model = recorded.model().unwrap_or("scripted").to_string();
            let prompt_chars: String = recorded.messages().into_iter().map(|(_, c)| c).collect();
            state.record(recorded, &body);
            let step = match picked {
                Ok((_, step)) => step,
                Err(NoStep::NoScript) => {
                    return error_response(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        &format!("the script has no steps for {role}"),
                        None,
                    );
                }
                Err(NoStep::Exhausted(n)) => {
                    return error_response(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        &format!("the script for {role} is exhausted after {n} step(s)"),
                        None,
                    );
                }
                Err(NoStep::NoMatch) => {
                    return error_response(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        &format!("no remaining step for {role} matches this request"),
                        None,
                    );
                }
            };
            if step.latency_ms > 0 {
                tokio::select! {
                    () = shutdown.cancelled() => return error_response(StatusCode::SERVICE_UNAVAILABLE, "shutting down", None),
                    () = tokio::time::sleep(Duration::from_millis(step.latency_ms)) => {}
                }
            }
            answer(step.action, &model, &prompt_chars, shutdown).await
        }
        _ => {
            state.record(recorded, &body);
            error_response(
                StatusCode::NOT_FOUND,
                &format!("no route {method} {path}"),
                None,
            )
        }
    }
}

async fn answer(
    action: Action,
    model: &str,
    prompt: &str,
    shutdown: &CancellationToken,
) -> HttpResponse {
    match action {
        Action::Reply(ScriptedReply {
            content,
            reasoning_content,
            prompt_tokens,
            completion_tokens,
            finish_reason,
        }) => {
            let prompt_tokens = prompt_tokens.unwrap_or_else(|| estimate_tokens(prompt));
            let completion_tokens = completion_tokens.unwrap_or_else(|| estimate_tokens(&content));
            let mut message = json!({"role": "assistant", "content": content});
            if let Some(reasoning) = reasoning_content {
                message["reasoning_content"] = Value::String(reasoning);
            }
            json_response(
                StatusCode::OK,
                &json!({
                    "id": "chatcmpl-scripted",
                    "object": "chat.completion",
                    "created": 0,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish_reason.unwrap_or_else(|| "stop".into())}],
                    "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
                }),
            )
        }
        Action::HttpError(error) => {
            let status =
                StatusCode::from_u16(error.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let body = error.body.unwrap_or_else(|| {
                json!({"error": {"message": format!("scripted HTTP {}", error.status), "type": "scripted_error", "param": null, "code": null}}).to_string()
            });
            let mut response = Response::new(Full::new(Bytes::from(body)));
            *response.status_mut() = status;
            if let Some(retry_after) = error.retry_after
                && let Ok(value) = hyper::header::HeaderValue::from_str(&retry_after)
            {
                response
                    .headers_mut()
                    .insert(hyper::header::RETRY_AFTER, value);
            }
            response
        }
        Action::Hang {} => {
            shutdown.cancelled().await;
            error_response(StatusCode::SERVICE_UNAVAILABLE, "shutting down", None)
        }
        Action::Malformed(body) => {
            let mut response = Response::new(Full::new(Bytes::from(body)));
            response.headers_mut().insert(
                hyper::header::CONTENT_TYPE,
                hyper::header::HeaderValue::from_static("application/json"),
            );
            response
        }
    }
}
