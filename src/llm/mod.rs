//! The model layer: every role's calls to an OpenAI-compatible endpoint.
//!
//! - [`tier`]: which role runs on which tier (brain: R1, R2, R4b, the Dreamer; tool: R3,
//!   R4a), and endpoint [`Preset`]s the settings UI lists.
//! - [`Llm`] / [`RoleLlm`]: async-openai over our own transport; per-call timeout,
//!   cancellation, retries with backoff honouring Retry-After; every call published as an
//!   `LlmCall` to the Observer and counted in the [`UsageLedger`].
//! - Structured output: the role's Rust type → JSON schema → `response_format`
//!   (json_schema → json_object → prompt-only, learned per endpoint and model);
//!   [`extract`] pulls the first valid object out of polluted replies; one bounded re-ask
//!   quoting the problem, then a typed [`LlmError`].
//!
//! **Invariant:** the only code that opens sockets to model endpoints, and every call
//! goes through [`RoleLlm`]: marked with its role, bounded by the call timeout and the
//! caller's cancellation token, recorded whether it succeeded or not.

mod client;
mod error;
pub mod extract;
pub mod grammar;
mod http;
pub mod pace;
pub mod probe;
pub(crate) mod server;
mod snapshots;
mod structured;
pub mod tier;
mod usage;
mod wire;

pub use client::{
    CallCtx, ChatRequest, EndpointInfo, Instructions, Llm, MAX_BACKOFF, MAX_RETRY_AFTER,
    MEASURE_ROLE, Readiness, Reply, RoleLlm, Speaker, Structured, Turn,
};
pub use error::LlmError;
pub use extract::ExtractError;
pub use http::retry_after;
pub use pace::{Pace, Speed};
pub use probe::{ConnectionReport, check_reachable, test_connection};
pub use structured::{
    OutputMode, OutputSchema, REASK_ECHO_CHARS, STRUCTURED_REASKS, require_field,
};
pub use tier::{MODEL_ROLES, PRESETS, Preset, Tier};
pub use usage::{CallUsage, RoleUsage, TaskUsage, UsageLedger};
pub use wire::ROLE_HEADER;
