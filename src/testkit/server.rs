//! The scripted OpenAI-compatible server: `/v1/chat/completions` answers from the script
//! of the role named in the request's role header; `/v1/models` lists the script's
//! models. Every request is recorded before it is answered.
//!
//! As a llama-server (when the script says so) it also answers `/props`, takes a call
//! asking for no tokens (`max_tokens: 0`, which only evaluates the prompt) without using
//! a step, and keeps the names of saved slots for `/slots/N?action=save|restore`.

use crate::sync::lock;
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use crate::contracts::Role;
use crate::llm::{MEASURE_ROLE, ROLE_HEADER};

use super::request::{ChatBody, RecordedRequest};
use super::script::{Action, Script, ScriptedReply, ScriptedSpeed, Step};

struct Queue {
    steps: Vec<Step>,
    used: Vec<bool>,
}

struct State {
    models: Vec<String>,
    formats: Vec<String>,
    cycle: bool,
    llama_slots: Option<u32>,
    slot_save: bool,
    speed: Option<ScriptedSpeed>,
    /// File names of the slots saved so far.
    saved_slots: Mutex<std::collections::HashSet<String>>,
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

/// A request's method, path and role header.
struct Head {
    method: Method,
    path: String,
    role: Option<String>,
}

/// Why no step answers a request.
enum NoStep {
    NoScript,
    Exhausted(usize),
    NoMatch,
}

impl State {
    fn new(script: Script) -> Self {
        let queues = script
            .roles
            .into_iter()
            .map(|(role, steps)| {
                let used = vec![false; steps.len()];
                (role, Queue { steps, used })
            })
            .collect();
        State {
            models: script.models,
            formats: script.response_formats,
            llama_slots: script.llama_slots,
            slot_save: script.slot_save,
            speed: script.speed,
            saved_slots: Mutex::default(),
            cycle: script.cycle,
            queues: Mutex::new(queues),
            requests: Mutex::new(Vec::new()),
            arrived: watch::channel(0).0,
        }
    }

    fn pick(&self, role: &str, request: &ChatBody) -> Result<(usize, Step), NoStep> {
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

    /// `POST /slots/N?action=save|restore` as llama-server answers it: 501 when it was
    /// started without a save path; a restore of a name never saved is refused.
    fn slot_action(&self, path: &str, query: &str, body: &Bytes) -> HttpResponse {
        if !self.slot_save {
            return json_response(
                StatusCode::NOT_IMPLEMENTED,
                &json!({"error": {"code": 501, "message": "This server does not support slots action. Start it with `--slot-save-path`", "type": "not_supported_error"}}),
            );
        }
        let slot = path
            .strip_prefix("/slots/")
            .and_then(|n| n.parse::<u32>().ok());
        let name = serde_json::from_slice::<Value>(body).ok().and_then(|v| {
            v.get("filename")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        let (Some(slot), Some(name)) = (slot, name) else {
            return error_response(StatusCode::BAD_REQUEST, "Invalid request", None);
        };
        if self.llama_slots.is_none_or(|n| slot >= n) {
            return error_response(StatusCode::BAD_REQUEST, "Invalid slot ID", None);
        }
        match query {
            "action=save" => {
                lock(&self.saved_slots).insert(name.clone());
                json_response(StatusCode::OK, &json!({"id_slot": slot, "filename": name}))
            }
            "action=restore" if lock(&self.saved_slots).contains(&name) => {
                json_response(StatusCode::OK, &json!({"id_slot": slot, "filename": name}))
            }
            "action=restore" => error_response(
                StatusCode::BAD_REQUEST,
                "Unable to restore slot: No available space in KV cache or invalid slot save file",
                None,
            ),
            _ => error_response(StatusCode::BAD_REQUEST, "Invalid action", None),
        }
    }

    fn record(&self, head: &Head, body: &Bytes, step: Option<usize>) {
        let stored = Stored {
            role: head.role.clone(),
            method: head.method.to_string(),
            path: head.path.clone(),
            body: body.clone(),
            step,
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
    serving: Option<Serving>,
}

/// Where the accept loop runs.
enum Serving {
    /// A task on the caller's runtime.
    Task(JoinHandle<()>),
    /// A thread of its own; the receiver hears when it has finished.
    Thread(oneshot::Receiver<()>),
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

/// A rough token count, from a text's length in characters, for replies whose script
/// gives none.
fn tokens_of(chars: usize) -> u64 {
    (chars as u64).div_ceil(4).max(1)
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
        let state = Arc::new(State::new(script));
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(accept(listener, Arc::clone(&state), shutdown.clone()));
        Ok(ScriptedServer {
            addr,
            state,
            shutdown,
            serving: Some(Serving::Task(task)),
        })
    }

    /// Starts on a free port of 127.0.0.1, served from a thread of its own with its own
    /// single-threaded runtime — as a model server in another process would be — so the
    /// server's work does not run on, or wake, the caller's runtime. For benchmarks that
    /// measure the caller's cost alone.
    pub fn start_dedicated(script: Script) -> std::io::Result<ScriptedServer> {
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State::new(script));
        let shutdown = CancellationToken::new();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        // Created inside the runtime so that the listener registers with its reactor.
        let listener = {
            let _entered = runtime.enter();
            TcpListener::from_std(listener)?
        };
        let (done, finished) = oneshot::channel();
        let serve = accept(listener, Arc::clone(&state), shutdown.clone());
        std::thread::Builder::new()
            .name("scripted-llm".into())
            .spawn(move || {
                runtime.block_on(serve);
                let _ = done.send(());
            })?;
        Ok(ScriptedServer {
            addr,
            state,
            shutdown,
            serving: Some(Serving::Thread(finished)),
        })
    }

    /// The address the server listens on.
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

    /// Waits until at least `n` requests have arrived. A scenario whose pipeline never
    /// makes the call it waits for fails here after a minute (naming what did arrive)
    /// instead of hanging the suite.
    pub async fn wait_for_requests(&self, n: usize) {
        let mut rx = self.state.arrived.subscribe();
        let waited = tokio::time::timeout(
            std::time::Duration::from_secs(60),
            rx.wait_for(|count| *count >= n),
        )
        .await;
        if waited.is_err() {
            let seen: Vec<String> = self
                .requests()
                .into_iter()
                .map(|r| format!("{} {}", r.path, r.role.unwrap_or_default()))
                .collect();
            panic!("waited 60 s for {n} model request(s); these arrived: {seen:?}");
        }
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
        match self.serving.take() {
            // The accept task never panics; a JoinError here can only be a cancellation.
            Some(Serving::Task(task)) => {
                let _ = task.await;
            }
            Some(Serving::Thread(finished)) => {
                let _ = finished.await;
            }
            None => {}
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
        // A dedicated thread ends by itself once it sees the cancellation.
        if let Some(Serving::Task(task)) = self.serving.take() {
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
    let request_query = request.uri().query().map(str::to_string);
    let head = Head {
        method: request.method().clone(),
        path: request.uri().path().to_string(),
        role: request
            .headers()
            .get(ROLE_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
    };
    let body = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };

    match (&head.method, head.path.as_str()) {
        (&Method::GET, "/v1/models") => {
            state.record(&head, &body, None);
            let data: Vec<Value> = state
                .models
                .iter()
                .map(|id| json!({"id": id, "object": "model", "created": 0, "owned_by": "artoo-testkit"}))
                .collect();
            json_response(StatusCode::OK, &json!({"object": "list", "data": data}))
        }
        // The one-time server probe of the model client: answered like llama-server
        // when the script says so, and not recorded (it is not a model request).
        (&Method::GET, "/props") => match state.llama_slots {
            Some(slots) => json_response(
                StatusCode::OK,
                &json!({"total_slots": slots, "model_path": "scripted.gguf", "build_info": "scripted"}),
            ),
            None => error_response(StatusCode::NOT_FOUND, "no route GET /props", None),
        },
        (&Method::POST, path) if path.starts_with("/slots/") && state.llama_slots.is_some() => {
            let query = request_query.as_deref().unwrap_or_default();
            let head = Head {
                path: format!("{path}?{query}"),
                ..head
            };
            state.record(&head, &body, None);
            state.slot_action(path, query, &body)
        }
        (&Method::POST, "/v1/chat/completions") => {
            chat_completion(state, shutdown, &head, &body).await
        }
        _ => {
            state.record(&head, &body, None);
            error_response(
                StatusCode::NOT_FOUND,
                &format!("no route {} {}", head.method, head.path),
                None,
            )
        }
    }
}

/// `/v1/chat/completions`: the next step of the requesting role's script (an
/// evaluate-only call of a llama-server takes none), after its latency.
async fn chat_completion(
    state: &State,
    shutdown: &CancellationToken,
    head: &Head,
    body: &Bytes,
) -> HttpResponse {
    let Some(chat) = ChatBody::parse(body) else {
        state.record(head, body, None);
        return error_response(StatusCode::BAD_REQUEST, "the body is not JSON", None);
    };
    if let Some(format) = &chat.format
        && !state.formats.iter().any(|f| f == format)
    {
        let message = format!("response_format type '{format}' is not supported by this model");
        state.record(head, body, None);
        return error_response(StatusCode::BAD_REQUEST, &message, Some("response_format"));
    }
    // A llama-server evaluates the prompt of a call that asks for no tokens and
    // generates nothing: no step of the script is its answer.
    if state.llama_slots.is_some() && chat.max_tokens == Some(0) {
        state.record(head, body, None);
        let model = chat.model.as_deref().unwrap_or("scripted");
        return answer(
            Action::Reply(ScriptedReply {
                content: String::new(),
                reasoning_content: None,
                prompt_tokens: None,
                completion_tokens: Some(0),
                finish_reason: Some("length".into()),
            }),
            model,
            chat.prompt_chars(),
            state.speed,
            shutdown,
        )
        .await;
    }
    // A llama-server answers anything; the client's speed measurement gets its cap.
    if state.speed.is_some() && head.role.as_deref() == Some(MEASURE_ROLE) {
        state.record(head, body, None);
        let tokens = chat.max_tokens.unwrap_or(16);
        let content = (1..=tokens)
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" ");
        let model = chat.model.as_deref().unwrap_or("scripted");
        return answer(
            Action::Reply(ScriptedReply {
                content,
                reasoning_content: None,
                prompt_tokens: None,
                completion_tokens: Some(tokens),
                finish_reason: Some("length".into()),
            }),
            model,
            chat.prompt_chars(),
            state.speed,
            shutdown,
        )
        .await;
    }
    let Some(role) = &head.role else {
        state.record(head, body, None);
        return error_response(
            StatusCode::BAD_REQUEST,
            &format!("missing {ROLE_HEADER} header"),
            None,
        );
    };
    let picked = state.pick(role, &chat);
    state.record(head, body, picked.as_ref().ok().map(|(i, _)| *i));
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
    let model = chat.model.as_deref().unwrap_or("scripted");
    answer(
        step.action,
        model,
        chat.prompt_chars(),
        state.speed,
        shutdown,
    )
    .await
}

async fn answer(
    action: Action,
    model: &str,
    prompt_chars: usize,
    speed: Option<ScriptedSpeed>,
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
            let prompt_tokens = prompt_tokens.unwrap_or_else(|| tokens_of(prompt_chars));
            let completion_tokens =
                completion_tokens.unwrap_or_else(|| tokens_of(content.chars().count()));
            let mut message = json!({"role": "assistant", "content": content});
            if let Some(reasoning) = reasoning_content {
                message["reasoning_content"] = Value::String(reasoning);
            }
            let mut body = json!({
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish_reason.unwrap_or_else(|| "stop".into())}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
            });
            if let Some(speed) = speed {
                let ms = |tokens: u64, per_sec: f64| tokens as f64 * 1000.0 / per_sec;
                body["timings"] = json!({
                    "prompt_n": prompt_tokens,
                    "prompt_ms": ms(prompt_tokens, speed.prompt_per_sec),
                    "predicted_n": completion_tokens,
                    "predicted_ms": ms(completion_tokens, speed.output_per_sec),
                });
            }
            json_response(StatusCode::OK, &body)
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
