//! One [`Config`], loaded once at start-up and passed down as a value.
//!
//! Sources, later wins: built-in defaults (the tuned hyper-parameters in `sections`) →
//! `settings.toml` in the data dir (the UI edits it) → environment.
//!
//! **Invariant:** this is the only module that reads the process environment, and only
//! through [`Config::from_process_env`]; everything below receives a `Config`. API keys
//! are never read from or written to the settings file.

use std::fmt;
use std::path::PathBuf;

pub use mcp::{McpConfig, McpServerConfig};

mod env;
pub(crate) use env::expand_home;
pub mod mcp;
pub mod pins;
mod sections;
mod settings_file;
#[cfg(test)]
mod tests;
mod validate;

pub use env::EnvSource;
pub use sections::{
    AuditorConfig, Budgets, GgsParams, LawsConfig, LlmConfig, LocalLlmConfig, MemoryParams,
    ModelSource, RetentionConfig, SandboxSetting, Settings, TierConfig, ToolsConfig, UiConfig,
};

/// File name of the user-editable settings inside the data dir.
pub const SETTINGS_FILE: &str = "settings.toml";

/// Why a configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A value is out of its range or malformed.
    #[error("invalid value for `{field}`: {reason}")]
    Invalid {
        /// The dotted setting name, e.g. `budgets.max_retries`.
        field: String,
        /// What is wrong with the value.
        reason: String,
    },
    /// `settings.toml` is not valid TOML or does not fit the schema.
    #[error("cannot parse {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// `settings.toml` exists but could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error the system gave.
        #[source]
        source: std::io::Error,
    },
    /// HOME is not set, so the default data dir and workspace cannot be found.
    #[error("no home directory: HOME is not set. Set HOME, or ARTOO_DATA_DIR and ARTOO_WORKSPACE")]
    NoHome,
    /// A model tier lacks its endpoint, its model or both.
    #[error(
        "the {tier} model tier is not configured: missing {missing}. Set {tier_upper}_* or OPENAI_* (see README: Configuration)"
    )]
    TierIncomplete {
        /// `brain` or `tool`.
        tier: &'static str,
        /// The tier's environment prefix, e.g. `BRAIN`.
        tier_upper: &'static str,
        /// What is missing, e.g. `base URL`.
        missing: String,
    },
}

fn invalid(field: &str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        field: field.to_string(),
        reason: reason.into(),
    }
}

/// A secret that never shows up in logs or debug output.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// The validated configuration of one process.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// `~/.artoo` unless `ARTOO_DATA_DIR` says otherwise.
    pub data_dir: PathBuf,
    /// `~/artoo_workspace` unless `ARTOO_WORKSPACE` or the settings say otherwise.
    pub workspace: PathBuf,
    /// The user's home directory (`~` expansion, personal-path checks).
    pub home: PathBuf,
    /// Model tiers and call bounds.
    pub llm: LlmConfig,
    /// GGS's thresholds and weights.
    pub ggs: GgsParams,
    /// What one task may spend.
    pub budgets: Budgets,
    /// Memory decay and consolidation thresholds.
    pub memory: MemoryParams,
    /// Law 1 confirmation settings.
    pub laws: LawsConfig,
    /// Limits of the executor's tools.
    pub tools: ToolsConfig,
    /// Report period and detector thresholds.
    pub auditor: AuditorConfig,
    /// How long task logs and audit segments are kept.
    pub retention: RetentionConfig,
    /// Desktop preferences.
    pub ui: UiConfig,
    /// The MCP servers whose tools R3 may call.
    pub mcp: McpConfig,
}

impl Config {
    /// The runtime's timeouts and per-task memory bounds, with the two that the settings
    /// choose (the Law 1 confirmation window and the longest time budget a task can
    /// get: the fixed one, or the ceiling of the budgets derived from the model's speed).
    pub fn limits(&self) -> crate::limits::Limits {
        crate::limits::Limits::new(
            std::time::Duration::from_secs(self.laws.confirm_timeout_secs),
            self.longest_task_budget(),
        )
    }

    /// The settings' fixed task budget, if they fix one.
    pub fn fixed_task_budget(&self) -> Option<std::time::Duration> {
        self.budgets
            .time_budget_ms
            .map(std::time::Duration::from_millis)
    }

    /// The longest time budget any task can get with these settings: the backstops of
    /// the roles that wait on each other (R4a, R4b, the executor) are at least this long,
    /// so only GGS's budget of the task itself ever ends it for time.
    pub fn longest_task_budget(&self) -> std::time::Duration {
        self.fixed_task_budget()
            .unwrap_or(crate::llm::pace::BUDGET_CEILING)
    }

    /// The defaults for these directories, with no settings file and no environment; the data dir
    /// holds the settings.
    pub fn with_dirs(data_dir: impl Into<PathBuf>, workspace: impl Into<PathBuf>) -> Config {
        let data_dir = data_dir.into();
        Config::from_settings(
            data_dir.clone(),
            workspace.into(),
            data_dir,
            Settings::default(),
        )
    }

    /// A configuration of `settings` for these directories (not yet validated, no
    /// environment applied).
    fn from_settings(
        data_dir: PathBuf,
        workspace: PathBuf,
        home: PathBuf,
        settings: Settings,
    ) -> Config {
        Config {
            home,
            data_dir,
            workspace,
            llm: settings.llm,
            ggs: settings.ggs,
            budgets: settings.budgets,
            memory: settings.memory,
            laws: settings.laws,
            tools: settings.tools,
            auditor: settings.auditor,
            retention: settings.retention,
            ui: settings.ui,
            mcp: settings.mcp,
        }
    }

    /// Where the models' measured speeds are kept (`llm::pace`).
    pub fn model_speed_file(&self) -> PathBuf {
        self.data_dir.join("model-speed.json")
    }

    /// Where the built-in model's weights and server live.
    pub fn local_llm_dir(&self) -> PathBuf {
        self.llm
            .local
            .dir
            .clone()
            .unwrap_or_else(|| self.data_dir.join("local-llm"))
    }

    /// The built-in model when no tier names an endpoint or a model; the configured
    /// provider when both tiers are complete; an error naming what is missing when one
    /// is half set (a typo must not silently fall back to another model).
    pub fn model_source(&self) -> Result<ModelSource, ConfigError> {
        let blank = |t: &TierConfig| t.base_url.is_none() && t.model.is_none();
        if blank(&self.llm.brain) && blank(&self.llm.tool) {
            return Ok(ModelSource::BuiltIn);
        }
        self.require_llm().map(|()| ModelSource::Configured)
    }

    /// Points both tiers at a running built-in model.
    pub fn use_local_endpoint(&mut self, base_url: &str, model: &str) {
        for tier in [&mut self.llm.brain, &mut self.llm.tool] {
            tier.base_url = Some(base_url.to_string());
            tier.model = Some(model.to_string());
            tier.api_key = None;
        }
    }

    /// Fails unless both tiers name an endpoint and a model (keys may legitimately be
    /// absent for local servers).
    pub fn require_llm(&self) -> Result<(), ConfigError> {
        for (tier, upper, cfg) in [
            ("brain", "BRAIN", &self.llm.brain),
            ("tool", "TOOL", &self.llm.tool),
        ] {
            let missing = cfg.missing();
            if !missing.is_empty() {
                return Err(ConfigError::TierIncomplete {
                    tier,
                    tier_upper: upper,
                    missing: missing.join(" and "),
                });
            }
        }
        Ok(())
    }
}
