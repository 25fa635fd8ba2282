//! Getting a model ready before the first task: every role's instructions evaluated and
//! saved as snapshots (`snapshots`), and the model's speed measured (`pace`), so the first
//! task costs no more model time than the second and gets a budget that fits the machine.

use std::sync::Arc;

use serde_json::json;

use super::{CallCtx, ChatRequest, Endpoint, Llm};
use crate::contracts::Role;
use crate::llm::pace::{self, Sample};
use crate::llm::server::ServerKind;
use crate::llm::snapshots;
use crate::llm::structured::{OutputMode, OutputSchema};
use crate::llm::tier::Tier;
use crate::llm::wire::{ROLE_HEADER, WireResponse};

/// One role's fixed instructions: the system prompt of a kind of call it makes, and the
/// output it asks for (`None` for a free-text call). A call's system prompt is these
/// words followed by the schema's instruction, the same on every call.
#[derive(Clone, Debug)]
pub struct Instructions {
    /// The role that sends them.
    pub role: Role,
    /// The system prompt as the role writes it.
    pub system: String,
    /// The structured output asked for.
    pub schema: Option<Arc<OutputSchema>>,
}

impl Instructions {
    /// Instructions for free-text calls.
    pub fn plain(role: Role, system: impl Into<String>) -> Self {
        Self {
            role,
            system: system.into(),
            schema: None,
        }
    }

    /// Instructions for calls that ask for `schema`.
    pub fn structured(role: Role, system: impl Into<String>, schema: Arc<OutputSchema>) -> Self {
        Self {
            role,
            system: system.into(),
            schema: Some(schema),
        }
    }

    /// The system prompt a call sends when the endpoint takes `mode`.
    fn sent_system(&self, mode: OutputMode) -> String {
        let request = ChatRequest::new(self.system.clone(), "");
        request.system_with(self.schema.as_ref().map(|s| s.instruction_for(mode)))
    }
}

/// What preparing found and did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Readiness {
    /// Instructions now held in a snapshot (restored or evaluated and saved).
    pub snapshots: usize,
    /// Instructions whose server keeps no snapshots (a hosted API, a server started
    /// without a snapshot folder): nothing to prepare there.
    pub not_applicable: usize,
}

/// The role header of the speed measurement (no role's call: it is the client's own).
pub const MEASURE_ROLE: &str = "measure";

/// The prompt of the generation measurement: any short text whose length the model
/// cannot cut short.
const MEASURE_PROMPT: &str = "Write the numbers from 1 to 40, separated by spaces.";
/// Tokens generated to measure the writing speed.
const MEASURE_TOKENS: u32 = 48;

impl Llm {
    /// Makes every role's instructions ready on its server (a snapshot restored, or
    /// evaluated and saved once) and measures the speed of each tier's model that was
    /// never measured. `progress(done, total)` follows the instructions. Failures are
    /// logged and cost only time later: a snapshot that does not fit is made again.
    pub async fn prepare(
        &self,
        ctx: &CallCtx,
        all: &[Instructions],
        progress: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> Readiness {
        let mut readiness = Readiness::default();
        progress(0, all.len());
        for (done, instructions) in all.iter().enumerate() {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let held = self.hold_instructions(ctx, instructions).await;
            if held {
                readiness.snapshots += 1;
            } else {
                readiness.not_applicable += 1;
            }
            progress(done + 1, all.len());
        }
        for tier in [Tier::Brain, Tier::Tool] {
            if self.speed(tier).is_measured() || ctx.cancel.is_cancelled() {
                continue;
            }
            // A model writes more slowly after a long prompt than after a short one: the
            // measurement follows the tier's longest instructions, as a role's call does
            // (restored into their slot first, so they cost no evaluation).
            let longest = all
                .iter()
                .filter(|i| Tier::for_role(i.role) == Some(tier))
                .max_by_key(|i| i.system.len());
            let context = match longest {
                Some(i) if self.hold_instructions(ctx, i).await => {
                    let ep = self.endpoint_of(tier);
                    let mode = self
                        .shared
                        .modes
                        .get(&ep.base_url, &ep.model)
                        .unwrap_or(OutputMode::JsonSchema);
                    let slot = snapshots::slot_for(ep.server(ctx).await.kind, i.role);
                    Some((i.sent_system(mode), slot))
                }
                _ => None,
            };
            measure_writing(self.endpoint_of(tier), &self.shared.pace, ctx, context).await;
        }
        readiness
    }

    async fn hold_instructions(&self, ctx: &CallCtx, instructions: &Instructions) -> bool {
        let Some(tier) = Tier::for_role(instructions.role) else {
            return false;
        };
        let ep = self.endpoint_of(tier);
        let info = ep.server(ctx).await;
        let Some(slot) = snapshots::slot_for(info.kind, instructions.role) else {
            return false;
        };
        let mode = self
            .shared
            .modes
            .get(&ep.base_url, &ep.model)
            .unwrap_or(OutputMode::JsonSchema);
        let system = instructions.sent_system(mode);
        let server = ep.snapshot_server(info, &self.shared.pace);
        ep.snapshots
            .hold(&server, instructions.role, slot, &system)
            .await
            .is_some()
    }
}

/// One short generation whose timings (or tokens over wall time) measure the model's
/// writing speed; after `context`'s system prompt in its slot when given.
async fn measure_writing(
    ep: &Endpoint,
    pace: &pace::Pace,
    ctx: &CallCtx,
    context: Option<(String, Option<u32>)>,
) {
    let url = format!("{}/chat/completions", ep.base_url);
    let mut messages = Vec::new();
    if let Some((system, _)) = &context {
        messages.push(json!({"role": "system", "content": system}));
    }
    messages.push(json!({"role": "user", "content": MEASURE_PROMPT}));
    let mut body = json!({
        "model": ep.model,
        "messages": messages,
        "max_tokens": MEASURE_TOKENS,
        "temperature": 0.0,
    });
    if let Some((_, Some(slot))) = context {
        body["id_slot"] = json!(slot);
        body["cache_prompt"] = json!(true);
    }
    if let ServerKind::LlamaServer { .. } = ep.server(ctx).await.kind {
        // Stop tokens would end the measurement early; the cap ends it.
        body["ignore_eos"] = json!(true);
    }
    let mut request = ep
        .http
        .post(url)
        .header(ROLE_HEADER, MEASURE_ROLE)
        .json(&body);
    if let Some(key) = &ep.api_key {
        request = request.bearer_auth(key);
    }
    let started = tokio::time::Instant::now();
    let sent = tokio::select! {
        biased;
        () = ctx.cancel.cancelled() => return,
        sent = tokio::time::timeout(pace::CALL_UNMEASURED, request.send()) => sent,
    };
    let answer = match sent {
        Ok(Ok(r)) if r.status().is_success() => r.json::<WireResponse>().await,
        Ok(Ok(r)) => {
            tracing::warn!(status = %r.status(), "the speed measurement was refused");
            return;
        }
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the speed measurement failed");
            return;
        }
        Err(_) => {
            tracing::warn!("the speed measurement timed out");
            return;
        }
    };
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    let Ok(answer) = answer else {
        return;
    };
    let sample = match (answer.timings, answer.usage) {
        (Some(t), _) => t.sample(),
        (None, Some(u)) => Sample {
            prompt: None,
            output: (u.completion_tokens, wall_ms),
        },
        (None, None) => return,
    };
    pace.record(&ep.pace_key, &sample);
}
