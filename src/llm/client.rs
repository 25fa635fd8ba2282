//! [`Llm`] (the shared client: tiers, transport, learned output modes, usage ledger) and
//! [`RoleLlm`] (one role's view of it: calls marked with the role, published as the role).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use tokio_util::sync::CancellationToken;

use crate::bus::BusHandle;
use crate::clock::SharedClock;
use crate::config::{LlmConfig, TierConfig};
use crate::contracts::{Role, TaskId};

use super::error::LlmError;
use super::extract::{self, ExtractError};
use super::http::{HttpStatus, Transport};
use super::pace::{self, Pace, Speed};
use super::server::{self, ServerInfo};
use super::snapshots::{self, Snapshots};
use super::structured::{ModeMemory, OutputMode};
use super::tier::Tier;
use super::usage::UsageLedger;
use super::wire::{WireMessage, WireResponse};

mod prepare;
mod role;

pub use prepare::{Instructions, MEASURE_ROLE, Readiness};

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
    /// The task the call serves; None for background work (the Dreamer, probes).
    pub task_id: Option<TaskId>,
    /// Cancels the call: the task's token, or the app's for background work.
    pub cancel: CancellationToken,
}

impl CallCtx {
    /// The context of a call made for `task_id`.
    pub fn for_task(task_id: TaskId, cancel: CancellationToken) -> Self {
        Self {
            task_id: Some(task_id),
            cancel,
        }
    }

    /// The context of a call outside any task.
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
    /// The user, or the role's code speaking for it.
    User,
    /// The model (an earlier reply).
    Assistant,
}

/// One turn of a conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// Who speaks.
    pub speaker: Speaker,
    /// What is said.
    pub content: String,
}

/// A system prompt and the turns after it.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRequest {
    /// The system prompt.
    pub system: String,
    /// The turns after it, oldest first.
    pub turns: Vec<Turn>,
    /// Sampling temperature; None leaves the endpoint's default.
    pub temperature: Option<f32>,
    /// Cap on the reply's tokens; None leaves the endpoint's default.
    pub max_tokens: Option<u32>,
}

impl ChatRequest {
    /// A request with one user turn.
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

    /// Sets the sampling temperature.
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Caps the reply's tokens.
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
    /// The model that answered, as the endpoint names it.
    pub model: String,
    /// Why the model stopped (`stop`, `length`, …); None when the endpoint did not say.
    pub finish_reason: Option<String>,
    /// Prompt tokens, as the endpoint counted them; 0 when it did not report usage.
    pub prompt_tokens: u64,
    /// Reply tokens, as the endpoint counted them; 0 when it did not report usage.
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
    /// The parsed and validated object.
    pub value: T,
    /// The reply it was parsed from.
    pub reply: Reply,
    /// How the endpoint was asked for JSON (schema, any object, or the prompt alone).
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
    /// The name its measured speed is kept under ([`pace::key`]).
    pace_key: String,
}

/// `https://host/v1/`, `https://host/v1/chat/completions` → `https://host/v1` (async-openai
/// appends `/chat/completions`; a URL that kept it would get the suffix twice).
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
            model: model.clone(),
            enable_thinking: config.enable_thinking,
            client,
            http: transport.http_client().clone(),
            api_key: (!key.is_empty()).then(|| key.clone()),
            server: tokio::sync::OnceCell::new(),
            snapshots: Arc::default(),
            grammar_refused: AtomicBool::new(false),
            pace_key: pace::key(model, &base_url),
            base_url,
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
    fn snapshot_server<'a>(
        &'a self,
        info: &'a ServerInfo,
        pace: &'a Pace,
    ) -> snapshots::Server<'a> {
        snapshots::Server {
            http: &self.http,
            base_url: &self.base_url,
            api_key: self.api_key.as_deref(),
            model: &self.model,
            info,
            pace,
            pace_key: &self.pace_key,
        }
    }
}

struct Shared {
    brain: Endpoint,
    tool: Endpoint,
    /// The settings' fixed call timeout; `None` derives each call's from the speed.
    call_timeout: Option<Duration>,
    pace: Pace,
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
    /// The tier.
    pub tier: Tier,
    /// The endpoint's base URL.
    pub base_url: String,
    /// The model name.
    pub model: String,
}

impl Llm {
    /// A client for both tiers of `config` whose measured speeds are kept in memory only.
    /// Fails when a tier lacks its base URL or model.
    pub fn new(config: &LlmConfig, clock: SharedClock) -> Result<Llm, LlmError> {
        Llm::with_pace(config, clock, Pace::in_memory())
    }

    /// A client for both tiers of `config` that measures the models' speed into `pace`.
    pub fn with_pace(config: &LlmConfig, clock: SharedClock, pace: Pace) -> Result<Llm, LlmError> {
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
                call_timeout: config.call_timeout_secs.map(Duration::from_secs),
                pace,
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

    /// Tokens and calls spent so far, per task and role.
    pub fn usage(&self) -> &UsageLedger {
        &self.shared.usage
    }

    /// The speeds measured so far, kept per model.
    pub fn pace(&self) -> &Pace {
        &self.shared.pace
    }

    /// The measured speed of `tier`'s model.
    pub fn speed(&self, tier: Tier) -> Speed {
        self.shared.pace.speed(&self.endpoint_of(tier).pace_key)
    }

    /// How long a typical task takes with the speeds measured so far; `None` until both
    /// tiers were measured.
    pub fn task_estimate(&self) -> Option<Duration> {
        pace::task_estimate(&self.speed(Tier::Brain), &self.speed(Tier::Tool))
    }

    /// The time budget a task gets when the settings fix none ([`pace::task_budget`]).
    pub fn task_budget(&self) -> Duration {
        pace::task_budget(self.task_estimate())
    }

    /// Where `tier` points.
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
