//! Test support (cargo feature `testkit`): a scripted OpenAI-compatible server so tests
//! and UI demos drive the real HTTP client without a hosted model.
//!
//! Scripts are data ([`Script`], fixtures under `tests/fixtures/llm/`), keyed by the
//! calling role the client names in its role header; each step can add latency, answer
//! with an HTTP error (429 with Retry-After, 500), hang, or send a malformed body. Every
//! request is recorded so tests can count calls on the critical path.
//!
//! **Invariant:** the server binds only 127.0.0.1 and answers only from its script; it
//! never forwards a request anywhere.

mod request;
pub mod samples;
mod script;
mod server;

pub use request::RecordedRequest;
pub use script::{
    Action, Script, ScriptError, ScriptedHttpError, ScriptedReply, ScriptedSpeed, Step,
    calling_role,
};
pub use server::ScriptedServer;

use crate::config::{LlmConfig, TierConfig};

/// Model names the scripted server reports per tier.
pub const BRAIN_MODEL: &str = "scripted-brain";
/// The model name of the tool tier.
pub const TOOL_MODEL: &str = "scripted-tool";

/// An [`LlmConfig`] whose tiers both point at `base_url` (models [`BRAIN_MODEL`] and
/// [`TOOL_MODEL`]), with the default timeouts and retries.
pub fn llm_config(base_url: &str) -> LlmConfig {
    llm_config_split(base_url, base_url)
}

/// An [`LlmConfig`] with the brain and tool tiers on different servers.
pub fn llm_config_split(brain_url: &str, tool_url: &str) -> LlmConfig {
    let tier = |url: &str, model: &str| TierConfig {
        base_url: Some(url.to_string()),
        model: Some(model.to_string()),
        enable_thinking: false,
        api_key: None,
    };
    LlmConfig {
        brain: tier(brain_url, BRAIN_MODEL),
        tool: tier(tool_url, TOOL_MODEL),
        ..LlmConfig::default()
    }
}
