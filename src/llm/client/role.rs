//! [`RoleLlm`]'s calls: plain chat, structured output with its re-asks, the HTTP
//! exchange with retries, and the accounting of every call.
//!
//! **Invariant:** every call made here ends in [`RoleLlm::account`] — published as an
//! `LlmCall` and counted in the usage ledger, failed or not — and none outlives its
//! timeout or the caller's cancellation.

use std::sync::atomic::Ordering;
use std::time::Duration;

use async_openai::traits::RequestOptionsBuilder;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio::time::Instant;

use super::{
    AttemptError, CUT_OFF_ECHO_CHARS, CallCtx, ChatRequest, DEFAULT_MAX_TOKENS, Endpoint,
    MAX_BACKOFF, MAX_RETRY_AFTER, Reply, RoleLlm, Structured, classify, cut_off_or, render,
    reply_from,
};
use crate::contracts::{LlmCall, Role};
use crate::llm::error::LlmError;
use crate::llm::extract::{self, ExtractError};
use crate::llm::pace::{self, Pace};
use crate::llm::server::ServerKind;
use crate::llm::snapshots;
use crate::llm::structured::{
    OutputMode, OutputSchema, REASK_ECHO_CHARS, STRUCTURED_REASKS, reask_prompt,
    rejects_response_format,
};
use crate::llm::tier::Tier;
use crate::llm::usage::CallUsage;
use crate::llm::wire::{ROLE_HEADER, WireMessage, WireRequest, WireResponse};
use crate::text::clip;

impl RoleLlm {
    /// The role these calls are made for.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The model tier the role uses.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// The model name sent with each call.
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
        let call_timeout = shared.call_timeout.unwrap_or_else(|| {
            let chars = messages.iter().map(|m| m.content.len()).sum();
            let speed = shared.pace.speed(&ep.pace_key);
            pace::call_timeout(&speed, chars, wire.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS))
        });
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
                        let server = ep.snapshot_server(info, &shared.pace);
                        ep.snapshots.hold(&server, self.role, slot, system).await
                    }
                    _ => None,
                };
                let started = Instant::now();
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
                if let Ok(response) = &sent {
                    measure(&shared.pace, &ep.pace_key, response, started.elapsed());
                }
                sent
            };
            let outcome = tokio::select! {
                biased;
                () = ctx.cancel.cancelled() => return Err(LlmError::Cancelled),
                outcome = tokio::time::timeout(call_timeout, send) => outcome,
            };
            let failure = match outcome {
                Err(_elapsed) => {
                    return Err(LlmError::Timeout {
                        after: call_timeout,
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
            let wait = retry_wait(retry_after, attempt, shared.retry_base)?;
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

/// Adds a successful exchange to the endpoint's measured speed: the server's own timings
/// when it reports them, else the reply's tokens over the exchange's wall time.
fn measure(pace: &Pace, key: &str, response: &WireResponse, wall: Duration) {
    let sample = match (&response.timings, &response.usage) {
        (Some(t), _) => t.sample(),
        (None, Some(u)) => pace::Sample {
            prompt: None,
            output: (u.completion_tokens, wall.as_secs_f64() * 1000.0),
        },
        (None, None) => return,
    };
    pace.record(key, &sample);
}

/// How long to wait before attempt `attempt + 1`: the server's Retry-After when it gave
/// one (a wait beyond [`MAX_RETRY_AFTER`] gives up as rate-limited), else exponential
/// backoff from `retry_base`, capped at [`MAX_BACKOFF`].
fn retry_wait(
    retry_after: Option<Duration>,
    attempt: u32,
    retry_base: Duration,
) -> Result<Duration, LlmError> {
    match retry_after {
        Some(wait) if wait > MAX_RETRY_AFTER => Err(LlmError::RateLimited {
            retry_after: Some(wait),
        }),
        Some(wait) => Ok(wait),
        None => Ok(retry_base
            .saturating_mul(1 << (attempt - 1).min(16))
            .min(MAX_BACKOFF)),
    }
}
