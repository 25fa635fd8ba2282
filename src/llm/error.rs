//! [`LlmError`]: every way a model call can fail, typed so a role can turn each one into an
//! honest failure (a failed sub-task, a replan, a clear message) instead of a hang.

use std::time::Duration;

use crate::contracts::Role;

use super::extract::ExtractError;
use super::tier::Tier;

/// Why a model call gave no usable answer. Callers branch on the variant: some are the
/// environment's doing, some the model's.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// The tier has no base URL or model: the user has not configured it.
    #[error(
        "the {tier} model tier is not configured: missing {missing}. Set {upper}_* or OPENAI_* (see README: Configuration)",
        upper = tier.env_prefix()
    )]
    NotConfigured {
        /// The tier.
        tier: Tier,
        /// What is missing: `base URL`, `model` or both.
        missing: String,
    },
    /// The role never talks to a model (the GGS, the auditor, …).
    #[error("role {role} has no model tier")]
    NoTier {
        /// The role.
        role: Role,
    },
    /// The caller's cancellation token fired (the task was cancelled or the app is
    /// shutting down).
    #[error("the model call was cancelled")]
    Cancelled,
    /// One attempt took longer than the per-call bound. Not retried: the endpoint already
    /// had the whole budget.
    #[error("the model endpoint did not answer within {}s", .after.as_secs_f64())]
    Timeout {
        /// The per-call bound that ran out.
        after: Duration,
    },
    /// The endpoint could not be reached (refused, DNS, TLS, reset) on every attempt.
    #[error("cannot reach the model endpoint {base_url}: {message}")]
    Unreachable {
        /// The endpoint.
        base_url: String,
        /// The transport error.
        message: String,
    },
    /// 429 on every attempt, or a Retry-After longer than we are willing to wait.
    #[error("the model endpoint is rate-limiting{}", .retry_after.map(|d| format!(" (retry after {}s)", d.as_secs())).unwrap_or_default())]
    RateLimited {
        /// How long the endpoint asked us to wait, when it said.
        retry_after: Option<Duration>,
    },
    /// 401/403: the key is missing, wrong or lacks access.
    #[error("the model endpoint refused the API key ({status}): {message}")]
    Unauthorized {
        /// The HTTP status.
        status: u16,
        /// The endpoint's error text.
        message: String,
    },
    /// Any other HTTP error (4xx, or 5xx after the last retry).
    #[error("the model endpoint answered HTTP {status}: {message}")]
    Api {
        /// The HTTP status.
        status: u16,
        /// The endpoint's error text.
        message: String,
    },
    /// A 200 answer that is not a chat completion (unparseable body, an `error` object,
    /// no choices).
    #[error("the model endpoint sent an unusable answer: {message}")]
    Protocol {
        /// What was wrong with the answer.
        message: String,
    },
    /// The model's reply held no usable JSON object even after the bounded re-ask. `raw`
    /// is the last reply, for the task log.
    #[error("{role}: the model's reply is not a usable {expected} after {n_asks} ask(s): {error}")]
    InvalidOutput {
        /// The role that asked.
        role: Role,
        /// What was asked for, e.g. `TaskSpec`.
        expected: String,
        /// How many times the model was asked.
        n_asks: u32,
        /// Why the last reply was rejected.
        error: ExtractError,
        /// The last reply, verbatim.
        raw: String,
    },
}

impl LlmError {
    /// What happened, in plain words for the user (the `Display` text, with its status
    /// codes and quoted bodies, goes to the logs and the details).
    pub fn plain(&self) -> String {
        match self {
            LlmError::NotConfigured { tier, .. } => {
                format!("no model is set up for the {tier} tier")
            }
            LlmError::NoTier { .. } => "this step has no model to ask".into(),
            LlmError::Cancelled => "the work was stopped".into(),
            LlmError::Timeout { after } => format!(
                "the model was too slow: it did not answer within {} seconds",
                after.as_secs()
            ),
            LlmError::Unreachable { .. } => {
                "the model server could not be reached (it may not be running)".into()
            }
            LlmError::RateLimited { .. } => {
                "the model service is limiting requests right now".into()
            }
            LlmError::Unauthorized { .. } => "the model service did not accept the API key".into(),
            LlmError::Api { status, .. } if *status >= 500 => {
                "the model service failed (a server error)".into()
            }
            LlmError::Api { .. } => "the model service refused the request".into(),
            LlmError::Protocol { .. } => {
                "the model service sent an answer artoo cannot read".into()
            }
            LlmError::InvalidOutput {
                error: ExtractError::CutOff { .. },
                ..
            } => "the model's answer ran on too long and was cut off, twice".into(),
            LlmError::InvalidOutput { .. } => {
                "the model did not answer in the required form, even when asked again".into()
            }
        }
    }

    /// Whether the failure lies with the environment (endpoint, network, quota) rather
    /// than with what the model said. Validators use this to classify failures.
    pub fn is_environmental(&self) -> bool {
        !matches!(
            self,
            LlmError::InvalidOutput { .. } | LlmError::Cancelled | LlmError::NoTier { .. }
        )
    }
}
