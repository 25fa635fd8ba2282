//! [`Llm`] (the shared client: tiers, transport, learned output modes, usage ledger) and
//! [`RoleLlm`] (one role's view of it: calls marked with the role, published as the role).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::traits::RequestOptionsBuilder;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::bus::BusHandle;
use crate::clock::SharedClock;
use crate::config::{LlmConfig, TierConfig};
use crate::contracts::{LlmCall, Role, TaskId};

use super::error::LlmError;
use super::extract::{self, ExtractError};
use super::http::{HttpStatus, Transport};
use super::server::{self, ServerInfo, ServerKind};
use super::snapshots::{self, Snapshots};
use super::structured::{
    ModeMemory, OutputMode, OutputSchema, REASK_ECHO_CHARS, STRUCTURED_REASKS, reask_prompt,
    rejects_response_format,
};
use super::tier::Tier;
use super::usage::{CallUsage, UsageLedger};
use super::wire::{ROLE_HEADER, WireMessage, WireRequest, WireResponse};
use crate::text::clip;

/// The generation cap of a call whose role set none. Every call is capped: a small model
/// that starts repeating itself would otherwise generate until its context is full, and a
/// local server keeps generating after the client gave up.
pub const DEFAULT_MAX_TOKENS: u32 = 512;

/// Characters of a reply cut at its cap quoted back in the re-ask.
const CUT_OFF_ECHO_CHARS: usize = 300;

/// A reply that stopped at its token cap and could not be used is reported as cut off,
/// whatever the parser tripped on: the fix is a shorter reply, not other JSON.
fn cut_off_or(error: ExtractError, reply: &Reply, request: &ChatRequest) -> ExtractError {
    if reply.finish_reason.as_deref() == Some("length") {
        ExtractError::CutOff {
            max_tokens: request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        }
    } else {
        error
    }
}

/// Exponential backoff never waits longer than this between attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A Retry-After longer than this fails the call instead of stalling the task.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// Who a call is for: the task it belongs to (none for background work such as the
/// Dreamer) and the token that cancels it.
#[derive(Clone, Debug)]
pub struct CallCtx {
    pub task_id: Option<TaskId>,
    pub cancel: CancellationToken,
}

impl CallCtx {
    pub fn for_task(task_id: TaskId, cancel: CancellationToken) -> Self {
        Self {
            task_id: Some(task_id),
            cancel,
        }
    }

    pub fn background(cancel: CancellationToken) -> Self {
        Self {
            task_id: None,
            cancel,
        }
    }
}

/// Who speaks a turn of the conversation after the system prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speaker {
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    pub speaker: Speaker,
    pub content: String,
}

/// A system prompt and the turns after it.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRequest {
    pub system: String,
    pub turns: Vec<Turn>,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
}

impl ChatRequest {
    pub fn new(system: impl Into<String>, user: impl Into<String>) -> Self {
        Self {
            system: system.into(),
            turns: vec![Turn {
                speaker: Speaker::User,
                content: user.into(),
            }],
            temperature: None,
            max_tokens: None,
        }
    }

    /// Puts `facts` at the start of the first user turn: what depends on the machine or
    /// the day goes there, so the system prompt stays the same text on every call.
    pub fn facts_first(mut self, facts: &str) -> Self {
        if let Some(first) = self.turns.iter_mut().find(|t| t.speaker == Speaker::User) {
            first.content.insert_str(0, facts);
        }
        self
    }

    /// Appends a user turn.
    pub fn user(mut self, content: impl Into<String>) -> Self {
        self.turns.push(Turn {
            speaker: Speaker::User,
            content: content.into(),
        });
        self
    }

    /// Appends an assistant turn (an earlier model reply).
    pub fn assistant(mut self, content: impl Into<String>) -> Self {
        self.turns.push(Turn {
            speaker: Speaker::Assistant,
            content: content.into(),
        });
        self
    }

    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The system prompt with the output instruction appended.
    fn system_with(&self, instruction: Option<&str>) -> String {
        match instruction {
            Some(extra) if self.system.trim().is_empty() => extra.to_string(),
            Some(extra) => format!("{}\n\n{extra}", self.system.trim_end()),
            None => self.system.clone(),
        }
    }

    fn wire_messages(&self, instruction: Option<&str>) -> Vec<WireMessage> {
        let system = self.system_with(instruction);
        std::iter::once(WireMessage::new("system", system))
            .chain(self.turns.iter().map(|t| {
                let role = match t.speaker {
                    Speaker::User => "user",
                    Speaker::Assistant => "assistant",
                };
                WireMessage::new(role, t.content.clone())
            }))
            .collect()
    }
}

/// One model answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The content exactly as the model sent it (reasoning tags included).
    pub content: String,
    /// `reasoning_content` when the endpoint separates it.
    pub reasoning: Option<String>,
    pub model: String,
    pub finish_reason: Option<String>,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

impl Reply {
    /// The answer for a human: reasoning blocks removed, trimmed.
    pub fn answer(&self) -> String {
        extract::answer_text(&self.content)
    }
}

/// A parsed, validated object and the reply it came from.
#[derive(Clone, Debug)]
pub struct Structured<T> {
    pub value: T,
    pub reply: Reply,
    pub mode: OutputMode,
    /// 1, or 2 when the re-ask was needed.
    pub n_asks: u32,
}

struct Endpoint {
    tier: Tier,
    base_url: String,
    model: String,
    enable_thinking: bool,
    client: Client<OpenAIConfig>,
    /// For the one-time `/props` probe and a llama-server's slot requests.
    http: reqwest::Client,
    /// Sent on the server's own endpoints too (a llama-server started with `--api-key`).
    api_key: Option<String>,
    server: tokio::sync::OnceCell<ServerInfo>,
    /// Shared with the other tier when both name the same server.
    snapshots: Arc<Snapshots>,
    /// Set when the server answered a grammar with an error: send schemas instead.
    grammar_refused: AtomicBool,
}

/// `https://host/v1/`, `https://host/v1/chat/completions` → `https://host/v1` (async-openai
/// appends `/chat/completions`; digest #35 doubled it).
fn normalise_base_url(url: &str) -> String {
    let trimmed = url.trim().trim_end_matches('/');
    trimmed
        .strip_suffix("/chat/completions")
        .unwrap_or(trimmed)
        .trim_end_matches('/')
        .to_string()
}

impl Endpoint {
    fn new(tier: Tier, config: &TierConfig, transport: &Transport) -> Result<Self, LlmError> {
        let mut missing = Vec::new();
        if config.base_url.is_none() {
            missing.push("base URL");
        }
        if config.model.is_none() {
            missing.push("model");
        }
        let (Some(base_url), Some(model)) = (&config.base_url, &config.model) else {
            return Err(LlmError::NotConfigured {
                tier,
                missing: missing.join(" and "),
            });
        };
        let base_url = normalise_base_url(base_url);
        let key = config
            .api_key
            .as_ref()
            .map(|k| k.expose().to_string())
            .unwrap_or_default();
        let openai = OpenAIConfig::new()
            .with_api_base(base_url.clone())
            .with_api_key(key.clone());
        // `Client::build` with the transport's client: `with_config` would load the
        // system's CA certificates once more per endpoint, for a client never used.
        let client = Client::build(transport.http_client().clone(), openai)
            .with_http_service(transport.clone());
        Ok(Self {
            tier,
            base_url,
            model: model.clone(),
            enable_thinking: config.enable_thinking,
            client,
            http: transport.http_client().clone(),
            api_key: (!key.is_empty()).then(|| key.clone()),
            server: tokio::sync::OnceCell::new(),
            snapshots: Arc::default(),
            grammar_refused: AtomicBool::new(false),
        })
    }

    /// What kind of server this is, asked once (the first call waits for the probe;
    /// a cancelled task does not wait for it).
    async fn server(&self, ctx: &CallCtx) -> &ServerInfo {
        if let Some(info) = self.server.get() {
            return info;
        }
        let probe = self
            .server
            .get_or_init(|| server::probe(&self.http, &self.base_url));
        tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => &server::GENERIC,
            info = probe => info,
        }
    }

    /// What the snapshot requests need of this endpoint.
    fn snapshot_server<'a>(&'a self, info: &'a ServerInfo) -> snapshots::Server<'a> {
        snapshots::Server {
            http: &self.http,
            base_url: &self.base_url,
            api_key: self.api_key.as_deref(),
            model: &self.model,
            info,
        }
    }
}

struct Shared {
    brain: Endpoint,
    tool: Endpoint,
    call_timeout: Duration,
    max_attempts: u32,
    retry_base: Duration,
    modes: ModeMemory,
    usage: UsageLedger,
}

/// The model client of one process. Cheap to clone.
///
/// **Invariant:** every call goes through [`RoleLlm`], so every call is marked with its
/// role, bounded by the per-call timeout and the caller's cancellation token, published
/// as an [`LlmCall`] to the Observer and counted in the [`UsageLedger`] — whether it
/// succeeded or not.
#[derive(Clone)]
pub struct Llm {
    shared: Arc<Shared>,
}

/// Where a tier points, for the UI and logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointInfo {
    pub tier: Tier,
    pub base_url: String,
    pub model: String,
}

impl Llm {
    /// A client for both tiers of `config`. Fails when a tier lacks its base URL or model.
    pub fn new(config: &LlmConfig, clock: SharedClock) -> Result<Llm, LlmError> {
        let transport = Transport::new(Duration::from_secs(config.connect_timeout_secs), clock)
            .map_err(|e| LlmError::Unreachable {
                base_url: String::new(),
                message: format!("cannot initialise the HTTP client: {e}"),
            })?;
        let brain = Endpoint::new(Tier::Brain, &config.brain, &transport)?;
        let mut tool = Endpoint::new(Tier::Tool, &config.tool, &transport)?;
        // Both tiers on one server (the built-in model) share its slots: what one tier's
        // call leaves in a slot is what the other tier's next call finds there.
        if tool.base_url == brain.base_url {
            tool.snapshots = Arc::clone(&brain.snapshots);
        }
        Ok(Llm {
            shared: Arc::new(Shared {
                brain,
                tool,
                call_timeout: Duration::from_secs(config.call_timeout_secs),
                max_attempts: config.max_attempts.max(1),
                retry_base: Duration::from_millis(config.retry_base_ms),
                modes: ModeMemory::default(),
                usage: UsageLedger::new(),
            }),
        })
    }

    /// The client as seen by the role that owns `bus`: its calls go to the role's tier
    /// and their records are published as that role.
    pub fn for_role(&self, bus: BusHandle) -> Result<RoleLlm, LlmError> {
        let role = bus.role();
        let tier = Tier::for_role(role).ok_or(LlmError::NoTier { role })?;
        Ok(RoleLlm {
            llm: self.clone(),
            bus,
            role,
            tier,
        })
    }

    pub fn usage(&self) -> &UsageLedger {
        &self.shared.usage
    }

    pub fn endpoint(&self, tier: Tier) -> EndpointInfo {
        let ep = self.endpoint_of(tier);
        EndpointInfo {
            tier: ep.tier,
            base_url: ep.base_url.clone(),
            model: ep.model.clone(),
        }
    }

    /// The output mode learned for a tier's endpoint; `None` before its first structured
    /// call.
    pub fn output_mode(&self, tier: Tier) -> Option<OutputMode> {
        let ep = self.endpoint_of(tier);
        self.shared.modes.get(&ep.base_url, &ep.model)
    }

    fn endpoint_of(&self, tier: Tier) -> &Endpoint {
        match tier {
            Tier::Brain => &self.shared.brain,
            Tier::Tool => &self.shared.tool,
        }
    }
}

/// What went wrong in one attempt, and whether another attempt may help.
enum AttemptError {
    Retry {
        error: LlmError,
        retry_after: Option<Duration>,
    },
    Fatal(LlmError),
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let s = e.to_string();
        if !text.contains(&s) {
            text.push_str(": ");
            text.push_str(&s);
        }
        source = e.source();
    }
    text
}

fn classify(error: OpenAIError, base_url: &str) -> AttemptError {
    match error {
        OpenAIError::Boxed(boxed) => match boxed.downcast::<HttpStatus>() {
            Ok(http) => classify_status(*http),
            Err(other) => AttemptError::Fatal(LlmError::Protocol {
                message: error_chain(other.as_ref()),
            }),
        },
        OpenAIError::Reqwest(e) if e.is_builder() => AttemptError::Fatal(LlmError::Protocol {
            message: error_chain(&e),
        }),
        OpenAIError::Reqwest(e) => AttemptError::Retry {
            error: LlmError::Unreachable {
                base_url: base_url.to_string(),
                message: error_chain(&e),
            },
            retry_after: None,
        },
        OpenAIError::JSONDeserialize(e, body) => AttemptError::Fatal(LlmError::Protocol {
            message: format!(
                "not a chat completion ({e}): {}",
                body.chars().take(300).collect::<String>()
            ),
        }),
        OpenAIError::ApiError(api) => classify_status(HttpStatus {
            status: api.status_code.as_u16(),
            retry_after: None,
            body: api.api_error.to_string(),
        }),
        other => AttemptError::Fatal(LlmError::Protocol {
            message: error_chain(&other),
        }),
    }
}

fn classify_status(http: HttpStatus) -> AttemptError {
    let HttpStatus {
        status,
        retry_after,
        body,
    } = http;
    match status {
        // An exhausted quota answers 429 too, but waiting does not refill it.
        429 if body.contains("insufficient_quota") => AttemptError::Fatal(LlmError::Api {
            status,
            message: body,
        }),
        429 => AttemptError::Retry {
            error: LlmError::RateLimited { retry_after },
            retry_after,
        },
        408 | 500..=599 => AttemptError::Retry {
            error: LlmError::Api {
                status,
                message: body,
            },
            retry_after,
        },
        401 | 403 => AttemptError::Fatal(LlmError::Unauthorized {
            status,
            message: body,
        }),
        _ => AttemptError::Fatal(LlmError::Api {
            status,
            message: body,
        }),
    }
}

fn reply_from(response: WireResponse, fallback_model: &str) -> Result<Reply, LlmError> {
    if let Some(error) = response.error {
        return Err(LlmError::Protocol {
            message: format!("the endpoint answered with an error object: {error}"),
        });
    }
    let Some(choice) = response.choices.into_iter().next() else {
        return Err(LlmError::Protocol {
            message: "the answer has no choices".into(),
        });
    };
    let usage = response.usage.unwrap_or_default();
    Ok(Reply {
        content: choice.message.text(),
        reasoning: choice.message.reasoning(),
        model: response
            .model
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| fallback_model.to_string()),
        finish_reason: choice.finish_reason,
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
    })
}

/// The task log's view of a conversation: system prompt(s), then the rest.
fn render(messages: &[WireMessage]) -> (String, String) {
    let system = messages
        .iter()
        .filter(|m| m.role == "system")
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let rest: Vec<_> = messages.iter().filter(|m| m.role != "system").collect();
    let user = match rest.as_slice() {
        [only] if only.role == "user" => only.content.clone(),
        _ => rest
            .iter()
            .map(|m| format!("[{}]\n{}", m.role, m.content))
            .collect::<Vec<_>>()
            .join("\n\n"),
    };
    (system, user)
}

/// One role's model client.
#[derive(Clone)]
pub struct RoleLlm {
    llm: Llm,
    bus: BusHandle,
    role: Role,
    tier: Tier,
}

impl RoleLlm {
    pub fn role(&self) -> Role {
        self.role
    }

    pub fn tier(&self) -> Tier {
        self.tier
    }

    pub fn model(&self) -> &str {
        &self.endpoint().model
    }

    fn endpoint(&self) -> &Endpoint {
        self.llm.endpoint_of(self.tier)
    }

    /// A free-text call (the conversational fast path). [`Reply::answer`] strips the
    /// reasoning.
    pub async fn chat(&self, ctx: &CallCtx, request: &ChatRequest) -> Result<Reply, LlmError> {
        let messages = request.wire_messages(None);
        let started = Instant::now();
        let outcome = self.exchange(ctx, request, &messages, None, None).await;
        self.account(ctx, &messages, outcome.as_ref(), None, started.elapsed());
        outcome
    }

    /// One JSON object of type `T`, validated by deserialising it.
    pub async fn structured<T>(
        &self,
        ctx: &CallCtx,
        request: &ChatRequest,
    ) -> Result<Structured<T>, LlmError>
    where
        T: DeserializeOwned + JsonSchema + 'static,
    {
        self.structured_checked(ctx, request, |_: &T| Ok(())).await
    }

    /// One JSON object of type `T` that also passes `check` (semantic rules the type
    /// cannot express). An unusable reply gets one re-ask quoting the problem; a second
    /// one fails with [`LlmError::InvalidOutput`].
    pub async fn structured_checked<T, F>(
        &self,
        ctx: &CallCtx,
        request: &ChatRequest,
        check: F,
    ) -> Result<Structured<T>, LlmError>
    where
        T: DeserializeOwned + JsonSchema + 'static,
        F: Fn(&T) -> Result<(), String>,
    {
        self.structured_checked_with(ctx, request, &OutputSchema::of::<T>(), check)
            .await
    }

    /// [`RoleLlm::structured_checked`] against a schema built at run time rather than
    /// `T`'s own (R3's step schema names the tools of this runtime).
    pub async fn structured_checked_with<T, F>(
        &self,
        ctx: &CallCtx,
        request: &ChatRequest,
        schema: &OutputSchema,
        check: F,
    ) -> Result<Structured<T>, LlmError>
    where
        T: DeserializeOwned,
        F: Fn(&T) -> Result<(), String>,
    {
        let ep = self.endpoint();
        let first_mode = self
            .llm
            .shared
            .modes
            .get(&ep.base_url, &ep.model)
            .unwrap_or(OutputMode::JsonSchema);
        let mut messages = request.wire_messages(Some(schema.instruction_for(first_mode)));
        let mut n_asks = 0;
        loop {
            n_asks += 1;
            let started = Instant::now();
            let (outcome, mode) = self
                .exchange_structured(ctx, request, &mut messages, schema)
                .await;
            let reply = match outcome {
                Ok(reply) => reply,
                Err(error) => {
                    self.account(ctx, &messages, Err(&error), None, started.elapsed());
                    return Err(error);
                }
            };
            let parsed =
                extract::extract_reply(&reply.content, reply.reasoning.as_deref(), |value| {
                    let typed: T = serde_json::from_value(value).map_err(|e| e.to_string())?;
                    check(&typed)?;
                    Ok(typed)
                })
                .map_err(|error| cut_off_or(error, &reply, request));
            self.account(
                ctx,
                &messages,
                Ok(&reply),
                parsed.as_ref().err(),
                started.elapsed(),
            );
            match parsed {
                Ok(value) => {
                    return Ok(Structured {
                        value,
                        reply,
                        mode,
                        n_asks,
                    });
                }
                Err(error) if n_asks <= STRUCTURED_REASKS => {
                    tracing::info!(role = %self.role, %error, "unusable structured reply; re-asking");
                    // A reply cut at the cap is mostly repetition: quoting all of it
                    // back would only make the re-ask longer.
                    let echo = if matches!(error, ExtractError::CutOff { .. }) {
                        CUT_OFF_ECHO_CHARS
                    } else {
                        REASK_ECHO_CHARS
                    };
                    messages.push(WireMessage::new("assistant", clip(&reply.content, echo)));
                    messages.push(WireMessage::new("user", reask_prompt(&error)));
                }
                Err(error) => {
                    return Err(LlmError::InvalidOutput {
                        role: self.role,
                        expected: schema.name.clone(),
                        n_asks,
                        error,
                        raw: reply.content,
                    });
                }
            }
        }
    }

    /// One structured exchange, downgrading the output mode while the endpoint rejects
    /// it, and remembering what worked.
    async fn exchange_structured(
        &self,
        ctx: &CallCtx,
        request: &ChatRequest,
        messages: &mut [WireMessage],
        schema: &OutputSchema,
    ) -> (Result<Reply, LlmError>, OutputMode) {
        let ep = self.endpoint();
        let modes = &self.llm.shared.modes;
        let mut mode = modes
            .get(&ep.base_url, &ep.model)
            .unwrap_or(OutputMode::JsonSchema);
        loop {
            // The mode may have changed since the messages were built (another call
            // learned it, or the endpoint rejected the last one): the system prompt
            // carries the instruction of the mode actually sent.
            if let Some(system) = messages.first_mut() {
                system.content = request.system_with(Some(schema.instruction_for(mode)));
            }
            // A llama-server gets the compact grammar instead of the schema (same
            // objects, no whitespace to generate), unless it refused one before.
            let grammar = match (mode, ep.server(ctx).await.kind) {
                (OutputMode::JsonSchema, ServerKind::LlamaServer { .. })
                    if !ep.grammar_refused.load(Ordering::Relaxed) =>
                {
                    schema.gbnf()
                }
                _ => None,
            };
            let format = if grammar.is_some() {
                None
            } else {
                schema.response_format(mode)
            };
            let sent_format = format.is_some();
            match self.exchange(ctx, request, messages, format, grammar).await {
                Err(LlmError::Api { status, message })
                    if grammar.is_some() && matches!(status, 400 | 422 | 500) =>
                {
                    tracing::warn!(base_url = %ep.base_url, %message,
                        "the server refused the compact grammar; using response_format");
                    ep.grammar_refused.store(true, Ordering::Relaxed);
                }
                Err(LlmError::Api { status, message })
                    if sent_format
                        && matches!(status, 400 | 422)
                        && rejects_response_format(&message) =>
                {
                    let Some(weaker) = mode.weaker() else {
                        return (Err(LlmError::Api { status, message }), mode);
                    };
                    tracing::info!(
                        base_url = %ep.base_url, model = %ep.model, ?mode, ?weaker,
                        "endpoint rejects this response_format; trying the next"
                    );
                    mode = weaker;
                }
                Ok(reply) => {
                    modes.set(&ep.base_url, &ep.model, mode);
                    return (Ok(reply), mode);
                }
                Err(error) => return (Err(error), mode),
            }
        }
    }

    /// One HTTP exchange with retries: bounded per attempt by the call timeout, retried
    /// on 429/5xx/transport errors with backoff (or the server's Retry-After), abandoned
    /// the moment `ctx.cancel` fires.
    async fn exchange(
        &self,
        ctx: &CallCtx,
        request: &ChatRequest,
        messages: &[WireMessage],
        response_format: Option<&RawValue>,
        grammar: Option<&str>,
    ) -> Result<Reply, LlmError> {
        let shared = &self.llm.shared;
        let ep = self.endpoint();
        let info = ep.server(ctx).await;
        let server = info.kind;
        // The slot this call is addressed to: the only one, or the role's own.
        let slot = snapshots::slot_for(server, self.role);
        let system = messages
            .first()
            .filter(|m| m.role == "system")
            .map(|m| m.content.as_str());
        let wire = WireRequest {
            model: &ep.model,
            messages,
            stream: false,
            response_format,
            temperature: request.temperature,
            max_tokens: Some(request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
            enable_thinking: ep.enable_thinking.then_some(true),
            cache_prompt: server.keeps_prompt_cache().then_some(true),
            id_slot: slot,
            grammar,
        };
        let mut attempt = 1;
        loop {
            if ctx.cancel.is_cancelled() {
                return Err(LlmError::Cancelled);
            }
            let send = async {
                // Within the call's time bound: the slot is held, and its snapshot
                // restored or made, before the request goes out.
                let held = match (slot, system) {
                    (Some(slot), Some(system)) => {
                        let server = ep.snapshot_server(info);
                        ep.snapshots.hold(&server, self.role, slot, system).await
                    }
                    _ => None,
                };
                let sent = async {
                    ep.client
                        .chat()
                        .header(ROLE_HEADER, self.role.short())?
                        .create_byot::<_, WireResponse>(&wire)
                        .await
                }
                .await;
                if let Some(held) = held {
                    held.called(sent.is_ok());
                }
                sent
            };
            let outcome = tokio::select! {
                biased;
                () = ctx.cancel.cancelled() => return Err(LlmError::Cancelled),
                outcome = tokio::time::timeout(shared.call_timeout, send) => outcome,
            };
            let failure = match outcome {
                Err(_elapsed) => {
                    return Err(LlmError::Timeout {
                        after: shared.call_timeout,
                    });
                }
                Ok(Ok(response)) => return reply_from(response, &ep.model),
                Ok(Err(e)) => classify(e, &ep.base_url),
            };
            let (error, retry_after) = match failure {
                AttemptError::Fatal(error) => return Err(error),
                AttemptError::Retry { error, retry_after } => (error, retry_after),
            };
            if attempt >= shared.max_attempts {
                return Err(error);
            }
            let wait = match retry_after {
                Some(wait) if wait > MAX_RETRY_AFTER => {
                    return Err(LlmError::RateLimited {
                        retry_after: Some(wait),
                    });
                }
                Some(wait) => wait,
                None => shared
                    .retry_base
                    .saturating_mul(1 << (attempt - 1).min(16))
                    .min(MAX_BACKOFF),
            };
            tracing::warn!(
                role = %self.role, attempt, max_attempts = shared.max_attempts,
                wait_ms = wait.as_millis() as u64, %error, "model call failed; retrying"
            );
            tokio::select! {
                biased;
                () = ctx.cancel.cancelled() => return Err(LlmError::Cancelled),
                () = tokio::time::sleep(wait) => {}
            }
            attempt += 1;
        }
    }

    /// Publishes the call's [`LlmCall`] record and adds it to the usage ledger.
    fn account(
        &self,
        ctx: &CallCtx,
        messages: &[WireMessage],
        outcome: Result<&Reply, &LlmError>,
        output_error: Option<&ExtractError>,
        wall: Duration,
    ) {
        let (system_prompt, user_prompt) = render(messages);
        let error = match (outcome, output_error) {
            (Err(e), _) => Some(e.to_string()),
            (Ok(_), Some(e)) => Some(format!("unusable output: {e}")),
            (Ok(_), None) => None,
        };
        let reply = outcome.ok();
        let prompt_tokens = reply.map_or(0, |r| r.prompt_tokens);
        let completion_tokens = reply.map_or(0, |r| r.completion_tokens);
        let failed = error.is_some();
        tracing::debug!(
            role = %self.role, model = %self.model(), prompt_tokens, completion_tokens,
            wall_ms = wall.as_millis() as u64, ?error, "model call"
        );
        self.bus.publish(
            Role::Observer,
            LlmCall {
                task_id: ctx.task_id.clone(),
                role: self.role,
                model: reply.map_or_else(|| self.model().to_string(), |r| r.model.clone()),
                system_prompt,
                user_prompt,
                response: reply.map(|r| r.content.clone()).unwrap_or_default(),
                prompt_tokens,
                completion_tokens,
                elapsed_ms: u64::try_from(wall.as_millis()).unwrap_or(u64::MAX),
                error,
            },
        );
        self.llm.shared.usage.record(
            ctx.task_id.as_ref(),
            self.role,
            CallUsage {
                prompt_tokens,
                completion_tokens,
                wall,
                failed,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_normalised_once() {
        assert_eq!(normalise_base_url("http://h:1/v1/"), "http://h:1/v1");
        assert_eq!(
            normalise_base_url("https://h/v1/chat/completions"),
            "https://h/v1"
        );
        assert_eq!(normalise_base_url(" http://h/v1// "), "http://h/v1");
    }

    #[test]
    fn a_single_user_turn_is_logged_as_the_user_prompt_and_longer_ones_as_a_transcript() {
        let one = ChatRequest::new("sys", "hello").wire_messages(Some("JSON please"));
        assert_eq!(
            render(&one),
            ("sys\n\nJSON please".to_string(), "hello".to_string())
        );
        let many = ChatRequest::new("sys", "q1")
            .assistant("a1")
            .user("q2")
            .wire_messages(None);
        assert_eq!(
            render(&many).1,
            "[user]\nq1\n\n[assistant]\na1\n\n[user]\nq2"
        );
    }

    #[test]
    fn status_codes_map_to_retry_decisions() {
        let status = |status: u16, body: &str| {
            classify_status(HttpStatus {
                status,
                retry_after: Some(Duration::from_secs(1)),
                body: body.into(),
            })
        };
        assert!(matches!(
            status(429, "slow down"),
            AttemptError::Retry {
                error: LlmError::RateLimited { .. },
                ..
            }
        ));
        assert!(matches!(
            status(429, r#"{"error":{"code":"insufficient_quota"}}"#),
            AttemptError::Fatal(LlmError::Api { status: 429, .. })
        ));
        assert!(matches!(status(503, ""), AttemptError::Retry { .. }));
        assert!(matches!(
            status(401, ""),
            AttemptError::Fatal(LlmError::Unauthorized { .. })
        ));
        assert!(matches!(
            status(400, ""),
            AttemptError::Fatal(LlmError::Api { status: 400, .. })
        ));
    }

    #[test]
    fn a_tier_without_a_model_is_reported_by_name() {
        let mut config = LlmConfig::default();
        config.brain.base_url = Some("http://127.0.0.1:9/v1".into());
        config.brain.model = Some("m".into());
        config.tool.base_url = Some("http://127.0.0.1:9/v1".into());
        let err = Llm::new(&config, crate::clock::SystemClock::shared())
            .err()
            .expect("tool tier lacks a model");
        assert_eq!(
            err,
            LlmError::NotConfigured {
                tier: Tier::Tool,
                missing: "model".into()
            }
        );
        assert!(err.to_string().contains("TOOL_*"));
    }
}
