//! One [`Config`], loaded once at start-up and passed down as a value.
//!
//! Sources, later wins: built-in defaults (the seed's v0.8 hyper-parameters, seed 000
//! Appendix B) → `settings.toml` in the data dir (the UI edits it) → environment.
//!
//! **Invariant:** this is the only module that reads the process environment, and only
//! through [`Config::from_process_env`]; everything below receives a `Config`. API keys
//! are never read from or written to the settings file.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::mcp::config::{McpConfig, McpServerConfig};

/// File name of the user-editable settings inside the data dir.
pub const SETTINGS_FILE: &str = "settings.toml";

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid value for `{field}`: {reason}")]
    Invalid { field: String, reason: String },
    #[error("cannot parse {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("no home directory: HOME is not set. Set HOME, or ARTOO_DATA_DIR and ARTOO_WORKSPACE")]
    NoHome,
    #[error(
        "the {tier} model tier is not configured: missing {missing}. Set {tier_upper}_* or OPENAI_* (see README: Configuration)"
    )]
    TierIncomplete {
        tier: &'static str,
        tier_upper: &'static str,
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
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// One model tier: endpoint, model and key.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct TierConfig {
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// Sends `"enable_thinking": true` (Qwen3-style reasoning switches).
    pub enable_thinking: bool,
    /// From the environment or the OS keychain only.
    #[serde(skip)]
    pub api_key: Option<ApiKey>,
}

impl TierConfig {
    fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.base_url.is_none() {
            missing.push("base URL");
        }
        if self.model.is_none() {
            missing.push("model");
        }
        missing
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    /// R1, R2, R4b (R4b never runs on a weaker tier than R2).
    pub brain: TierConfig,
    /// R3, R4a.
    pub tool: TierConfig,
    pub connect_timeout_secs: u64,
    /// Whole-call bound, retries excluded.
    pub call_timeout_secs: u64,
    /// Attempts per call on 429/5xx/transport errors (1 = no retry).
    pub max_attempts: u32,
    pub retry_base_ms: u64,
    /// The built-in model, used while neither tier names an endpoint or a model.
    pub local: LocalLlmConfig,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            brain: TierConfig::default(),
            tool: TierConfig::default(),
            connect_timeout_secs: 10,
            call_timeout_secs: 120,
            max_attempts: 3,
            retry_base_ms: 500,
            local: LocalLlmConfig::default(),
        }
    }
}

/// The built-in model (`crate::local_llm`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct LocalLlmConfig {
    /// One of the packaged models (`qwen2.5-coder-0.5b`, `qwen2.5-coder-1.5b`).
    pub model: String,
    /// Where weights and llama-server are kept; `<data dir>/local-llm` when unset.
    pub dir: Option<PathBuf>,
}

impl Default for LocalLlmConfig {
    fn default() -> Self {
        Self {
            model: crate::local_llm::pins::DEFAULT_MODEL.into(),
            dir: None,
        }
    }
}

/// Where the models come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// Both tiers name an endpoint and a model.
    Configured,
    /// Neither tier names anything: artoo runs its built-in model.
    BuiltIn,
}

/// GGS hyper-parameters (seed 000 Appendix B, v0.8 defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct GgsParams {
    /// α: weight on intent-result distance D.
    pub alpha: f64,
    /// β: weight on process implausibility P before adaptive scaling.
    pub beta: f64,
    /// λ: weight on resource cost Ω.
    pub lambda: f64,
    /// w₁: share of Ω from the replan count.
    pub w1: f64,
    /// w₂: share of Ω from elapsed time.
    pub w2: f64,
    /// ε: |∇L| below this → no directional signal.
    pub epsilon: f64,
    /// δ: D at or below this → success.
    pub delta: f64,
    /// ρ: P above this → logical failure.
    pub rho: f64,
    /// θ: Ω at or above this → abandon.
    pub theta: f64,
    /// Law 2: consecutive worsening rounds before a forced abandon.
    pub kill_after_worsening: u32,
}

impl Default for GgsParams {
    fn default() -> Self {
        Self {
            alpha: 0.6,
            beta: 0.3,
            lambda: 0.4,
            w1: 0.6,
            w2: 0.4,
            epsilon: 0.1,
            delta: 0.3,
            rho: 0.5,
            theta: 0.8,
            kill_after_worsening: 2,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct Budgets {
    /// Fast-loop corrections per sub-task (seed: maxRetries = 2).
    pub max_retries: u32,
    /// Medium-loop replans per task (seed: maxReplans = 3).
    pub max_replans: u32,
    /// Wall-clock budget of a whole task, from submit to its result. The seed's
    /// 300 000 ms fits a hosted model; 120 000 ms is chosen for a small local model on two
    /// cores, where a task that has not ended in two minutes is looping, not converging
    /// (docs/real-model.md), and the user gets the graceful result instead of a wait.
    pub time_budget_ms: u64,
    /// Model turns per executor attempt: one sub-task needs one to three calls and a
    /// finish; more turns are a loop the executor cuts short anyway.
    pub executor_max_steps: u32,
    /// Re-asks when a plan fails the plan validator.
    pub plan_reasks: u32,
    /// Clarification rounds R1 may ask before proceeding.
    pub clarification_rounds: u32,
}

impl Default for Budgets {
    fn default() -> Self {
        Self {
            max_retries: 2,
            max_replans: 3,
            time_budget_ms: 120_000,
            executor_max_steps: 6,
            plan_reasks: 1,
            clarification_rounds: 2,
        }
    }
}

/// MKCT thresholds (seed 003 "R5").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct MemoryParams {
    /// M_att below this → Ignore.
    pub attention_floor: f64,
    /// M_dec above this → Exploit.
    pub exploit_above: f64,
    /// M_dec below this → Avoid.
    pub avoid_below: f64,
    /// Dreamer GC: M/K entries whose live attention is below this are deleted.
    pub gc_below: f64,
    /// Consolidation: group attention at or above this …
    pub consolidate_attention: f64,
    /// … and |decision| at or above this.
    pub consolidate_decision: f64,
    pub dreamer_period_secs: u64,
    /// Delay after a task ends before the Dreamer's extra pass.
    pub dreamer_after_task_secs: u64,
    /// At most this many memory entries reach a planning prompt.
    pub max_constraints: usize,
}

impl Default for MemoryParams {
    fn default() -> Self {
        Self {
            attention_floor: 0.5,
            exploit_above: 0.2,
            avoid_below: -0.2,
            gc_below: 0.1,
            consolidate_attention: 5.0,
            consolidate_decision: 3.0,
            dreamer_period_secs: 300,
            dreamer_after_task_secs: 5,
            max_constraints: 10,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct LawsConfig {
    /// Unanswered Law 1 confirmations are denied after this long.
    pub confirm_timeout_secs: u64,
    /// Shortcuts the user allowed for good, by exact name: running one of them does not
    /// ask. Every other Shortcut asks (its steps cannot be seen).
    pub allowed_shortcuts: Vec<String>,
}

impl Default for LawsConfig {
    fn default() -> Self {
        Self {
            confirm_timeout_secs: 120,
            allowed_shortcuts: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct ToolsConfig {
    pub shell_timeout_secs: u64,
    /// Tool output shown to the model: head + tail within this many characters.
    pub output_limit_chars: usize,
    pub read_limit_bytes: u64,
    /// DuckDuckGo HTML endpoint by default; tests point it at a local fake.
    pub search_url: String,
    pub search_timeout_secs: u64,
    /// Upper bound on directory entries visited by the bounded home walk.
    pub walk_limit_entries: usize,
    /// Whether shell commands run in the OS sandbox (`tools::sandbox`). Off, every
    /// command artoo cannot prove reversible asks first.
    pub sandbox: SandboxSetting,
}

/// `tools.sandbox` in settings.toml.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum SandboxSetting {
    /// Use it where it works.
    #[default]
    Auto,
    /// Never use it.
    Off,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        Self {
            shell_timeout_secs: 30,
            output_limit_chars: 4000,
            read_limit_bytes: 1024 * 1024,
            search_url: "https://html.duckduckgo.com/html/".into(),
            search_timeout_secs: 15,
            walk_limit_entries: 200_000,
            sandbox: SandboxSetting::Auto,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct AuditorConfig {
    pub report_period_secs: u64,
    /// Tasks in the sliding window of the role-drift detector.
    pub drift_window_tasks: usize,
}

impl Default for AuditorConfig {
    fn default() -> Self {
        Self {
            report_period_secs: 300,
            drift_window_tasks: 20,
        }
    }
}

/// How long and how much of the app's own records are kept (`[retention]`): by age in
/// days, then by total size in MiB (oldest first). See `crate::retention`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct RetentionConfig {
    /// Task logs (`tasks/`, one file per run, full prompts included).
    pub task_logs_days: u32,
    pub task_logs_mb: u64,
    /// The audit log's sealed segments (`audit/`), pruned behind a checkpoint.
    pub audit_days: u32,
    pub audit_mb: u64,
    /// The desktop app's envelope journal (`desktop/envelopes/`, one file per task).
    pub journal_days: u32,
    pub journal_mb: u64,
}

impl Default for RetentionConfig {
    fn default() -> Self {
        Self {
            task_logs_days: 90,
            task_logs_mb: 512,
            audit_days: 365,
            audit_mb: 1024,
            journal_days: 30,
            journal_mb: 256,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct UiConfig {
    pub hotkey: String,
    /// `en` or `zh-CN`.
    pub language: String,
    pub launch_at_login: bool,
}

impl Default for UiConfig {
    fn default() -> Self {
        Self {
            hotkey: "CommandOrControl+Shift+Space".into(),
            language: "en".into(),
            launch_at_login: false,
        }
    }
}

/// What `settings.toml` may contain. Paths other than the workspace are not settable
/// there (the data dir is where the file lives).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub workspace: Option<PathBuf>,
    pub llm: LlmConfig,
    pub ggs: GgsParams,
    pub budgets: Budgets,
    pub memory: MemoryParams,
    pub laws: LawsConfig,
    pub tools: ToolsConfig,
    pub auditor: AuditorConfig,
    pub retention: RetentionConfig,
    pub ui: UiConfig,
    pub mcp: McpConfig,
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
    pub llm: LlmConfig,
    pub ggs: GgsParams,
    pub budgets: Budgets,
    pub memory: MemoryParams,
    pub laws: LawsConfig,
    pub tools: ToolsConfig,
    pub auditor: AuditorConfig,
    pub retention: RetentionConfig,
    pub ui: UiConfig,
    /// The MCP servers whose tools R3 may call.
    pub mcp: McpConfig,
}

/// Where configuration comes from: a lookup for environment variables.
pub trait EnvSource {
    fn var(&self, key: &str) -> Option<String>;
}

impl EnvSource for HashMap<String, String> {
    fn var(&self, key: &str) -> Option<String> {
        self.get(key).cloned()
    }
}

impl<const N: usize> EnvSource for [(&str, &str); N] {
    fn var(&self, key: &str) -> Option<String> {
        self.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
    }
}

struct ProcessEnv;

impl EnvSource for ProcessEnv {
    fn var(&self, key: &str) -> Option<String> {
        std::env::var(key).ok()
    }
}

fn non_empty(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

fn expand_home(raw: &str, home: &Path) -> PathBuf {
    if raw == "~" {
        home.to_path_buf()
    } else if let Some(rest) = raw.strip_prefix("~/") {
        home.join(rest)
    } else {
        PathBuf::from(raw)
    }
}

impl Config {
    /// Loads from the real process environment and the settings file it points at.
    pub fn from_process_env() -> Result<Config, ConfigError> {
        Self::load(&ProcessEnv)
    }

    /// Loads from `env` (defaults → settings file → environment) and validates.
    pub fn load(env: &dyn EnvSource) -> Result<Config, ConfigError> {
        let var = |k: &str| non_empty(env.var(k));
        let home = var("HOME")
            .or_else(|| var("USERPROFILE"))
            .map(PathBuf::from);
        let data_dir = match var("ARTOO_DATA_DIR") {
            Some(dir) => match &home {
                Some(h) => expand_home(&dir, h),
                None => PathBuf::from(dir),
            },
            None => home.as_ref().ok_or(ConfigError::NoHome)?.join(".artoo"),
        };
        let settings = Self::read_settings(&data_dir.join(SETTINGS_FILE))?;
        let workspace = match (var("ARTOO_WORKSPACE"), &settings.workspace) {
            (Some(dir), _) => PathBuf::from(dir),
            (None, Some(dir)) => dir.clone(),
            (None, None) => home
                .as_ref()
                .ok_or(ConfigError::NoHome)?
                .join("artoo_workspace"),
        };
        let home = home.unwrap_or_else(|| data_dir.clone());
        let workspace = expand_home(&workspace.to_string_lossy(), &home);

        let mut config = Config {
            data_dir,
            workspace,
            home,
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
        };
        apply_tier_env(&mut config.llm.brain, "BRAIN", env);
        apply_tier_env(&mut config.llm.tool, "TOOL", env);
        if let Some(url) = var("ARTOO_SEARCH_URL") {
            config.tools.search_url = url;
        }
        if let Some(dir) = var("ARTOO_LOCAL_LLM_DIR") {
            config.llm.local.dir = Some(expand_home(&dir, &config.home));
        }
        if let Some(model) = var("ARTOO_LOCAL_LLM_MODEL") {
            config.llm.local.model = model;
        }
        config.validate()?;
        Ok(config)
    }

    /// Defaults with the given directories; for tests and embedding.
    pub fn with_dirs(data_dir: impl Into<PathBuf>, workspace: impl Into<PathBuf>) -> Config {
        let data_dir = data_dir.into();
        let settings = Settings::default();
        Config {
            home: data_dir.clone(),
            data_dir,
            workspace: workspace.into(),
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

    fn read_settings(path: &Path) -> Result<Settings, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse_settings(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(source) => Err(ConfigError::Io {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Parses settings TOML; unknown keys and wrongly typed values are errors that name
    /// the key.
    pub fn parse_settings(text: &str, path: &Path) -> Result<Settings, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }

    pub fn settings_path(&self) -> PathBuf {
        self.data_dir.join(SETTINGS_FILE)
    }

    /// The user-editable part of this config.
    pub fn settings(&self) -> Settings {
        Settings {
            workspace: Some(self.workspace.clone()),
            llm: self.llm.clone(),
            ggs: self.ggs.clone(),
            budgets: self.budgets.clone(),
            memory: self.memory.clone(),
            laws: self.laws.clone(),
            tools: self.tools.clone(),
            auditor: self.auditor.clone(),
            retention: self.retention.clone(),
            ui: self.ui.clone(),
            mcp: self.mcp.clone(),
        }
    }

    /// Validates `settings` and writes them to `settings.toml` (API keys are never part
    /// of it). The write is atomic: a temp file renamed over the old one.
    pub fn save_settings(&self, settings: &Settings) -> Result<(), ConfigError> {
        let mut candidate = self.clone();
        candidate.workspace = settings
            .workspace
            .clone()
            .unwrap_or_else(|| self.workspace.clone());
        candidate.llm = LlmConfig {
            brain: TierConfig {
                api_key: self.llm.brain.api_key.clone(),
                ..settings.llm.brain.clone()
            },
            tool: TierConfig {
                api_key: self.llm.tool.api_key.clone(),
                ..settings.llm.tool.clone()
            },
            ..settings.llm.clone()
        };
        candidate.ggs = settings.ggs.clone();
        candidate.budgets = settings.budgets.clone();
        candidate.memory = settings.memory.clone();
        candidate.laws = settings.laws.clone();
        candidate.tools = settings.tools.clone();
        candidate.auditor = settings.auditor.clone();
        candidate.retention = settings.retention.clone();
        candidate.ui = settings.ui.clone();
        candidate.mcp = settings.mcp.clone();
        candidate.validate()?;
        let text = toml::to_string_pretty(settings)
            .map_err(|e| invalid("settings", format!("cannot serialise: {e}")))?;
        let path = self.settings_path();
        let io = |source| ConfigError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&self.data_dir).map_err(io)?;
        let tmp = path.with_extension("toml.tmp");
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, &path).map_err(io)?;
        Ok(())
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

    /// Checks every value against its documented range, naming the first bad field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn unit(field: &str, v: f64) -> Result<(), ConfigError> {
            if v.is_finite() && (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(invalid(field, format!("{v} is not in [0, 1]")))
            }
        }
        fn non_negative(field: &str, v: f64) -> Result<(), ConfigError> {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(invalid(field, format!("{v} must be a finite number ≥ 0")))
            }
        }
        fn positive<T: PartialOrd + Default + fmt::Display>(
            field: &str,
            v: T,
        ) -> Result<(), ConfigError> {
            if v > T::default() {
                Ok(())
            } else {
                Err(invalid(field, format!("{v} must be > 0")))
            }
        }

        let g = &self.ggs;
        non_negative("ggs.alpha", g.alpha)?;
        non_negative("ggs.beta", g.beta)?;
        non_negative("ggs.lambda", g.lambda)?;
        unit("ggs.w1", g.w1)?;
        unit("ggs.w2", g.w2)?;
        if g.w1 + g.w2 <= 0.0 {
            return Err(invalid("ggs.w2", "w1 + w2 must be > 0"));
        }
        if !(g.epsilon.is_finite() && g.epsilon > 0.0) {
            return Err(invalid("ggs.epsilon", format!("{} must be > 0", g.epsilon)));
        }
        unit("ggs.delta", g.delta)?;
        unit("ggs.rho", g.rho)?;
        unit("ggs.theta", g.theta)?;
        if g.theta == 0.0 {
            return Err(invalid("ggs.theta", "0 would abandon every task"));
        }
        positive("ggs.kill_after_worsening", g.kill_after_worsening)?;

        let b = &self.budgets;
        positive("budgets.max_replans", b.max_replans)?;
        positive("budgets.time_budget_ms", b.time_budget_ms)?;
        positive("budgets.executor_max_steps", b.executor_max_steps)?;

        let m = &self.memory;
        non_negative("memory.attention_floor", m.attention_floor)?;
        if !(m.exploit_above.is_finite() && m.exploit_above >= 0.0) {
            return Err(invalid("memory.exploit_above", "must be ≥ 0"));
        }
        if !(m.avoid_below.is_finite() && m.avoid_below <= 0.0) {
            return Err(invalid("memory.avoid_below", "must be ≤ 0"));
        }
        non_negative("memory.gc_below", m.gc_below)?;
        positive("memory.consolidate_attention", m.consolidate_attention)?;
        positive("memory.consolidate_decision", m.consolidate_decision)?;
        positive("memory.dreamer_period_secs", m.dreamer_period_secs)?;
        positive("memory.max_constraints", m.max_constraints)?;

        positive("laws.confirm_timeout_secs", self.laws.confirm_timeout_secs)?;
        positive("mcp.connect_timeout_secs", self.mcp.connect_timeout_secs)?;
        positive("mcp.call_timeout_secs", self.mcp.call_timeout_secs)?;
        for (name, server) in &self.mcp.servers {
            server
                .validate(name)
                .map_err(|why| invalid(&format!("mcp.servers.{name}"), why))?;
        }

        let t = &self.tools;
        positive("tools.shell_timeout_secs", t.shell_timeout_secs)?;
        if t.output_limit_chars < 100 {
            return Err(invalid(
                "tools.output_limit_chars",
                format!("{} is too small (minimum 100)", t.output_limit_chars),
            ));
        }
        positive("tools.read_limit_bytes", t.read_limit_bytes)?;
        positive("tools.search_timeout_secs", t.search_timeout_secs)?;
        positive("tools.walk_limit_entries", t.walk_limit_entries)?;
        check_url("tools.search_url", &t.search_url)?;

        let l = &self.llm;
        positive("llm.connect_timeout_secs", l.connect_timeout_secs)?;
        positive("llm.call_timeout_secs", l.call_timeout_secs)?;
        positive("llm.max_attempts", l.max_attempts)?;
        for (field, tier) in [("llm.brain", &l.brain), ("llm.tool", &l.tool)] {
            if let Some(url) = &tier.base_url {
                check_url(&format!("{field}.base_url"), url)?;
            }
            if tier.model.as_deref().is_some_and(|m| m.trim().is_empty()) {
                return Err(invalid(&format!("{field}.model"), "must not be empty"));
            }
        }
        if crate::local_llm::pins::ModelSpec::find(&l.local.model).is_none() {
            let names: Vec<&str> = crate::local_llm::pins::MODELS
                .iter()
                .map(|m| m.name)
                .collect();
            return Err(invalid(
                "llm.local.model",
                format!("{:?} is not one of {}", l.local.model, names.join(", ")),
            ));
        }

        positive(
            "auditor.report_period_secs",
            self.auditor.report_period_secs,
        )?;
        positive(
            "auditor.drift_window_tasks",
            self.auditor.drift_window_tasks,
        )?;
        let r = &self.retention;
        positive("retention.task_logs_days", r.task_logs_days)?;
        positive("retention.task_logs_mb", r.task_logs_mb)?;
        positive("retention.audit_days", r.audit_days)?;
        positive("retention.audit_mb", r.audit_mb)?;
        positive("retention.journal_days", r.journal_days)?;
        positive("retention.journal_mb", r.journal_mb)?;
        if !matches!(self.ui.language.as_str(), "en" | "zh-CN") {
            return Err(invalid(
                "ui.language",
                format!("{:?} is not one of \"en\", \"zh-CN\"", self.ui.language),
            ));
        }
        if self.ui.hotkey.trim().is_empty() {
            return Err(invalid("ui.hotkey", "must not be empty"));
        }
        Ok(())
    }
}

fn check_url(field: &str, url: &str) -> Result<(), ConfigError> {
    let ok = (url.starts_with("http://") || url.starts_with("https://"))
        && url.len() > "https://".len()
        && !url.contains(char::is_whitespace);
    if ok {
        Ok(())
    } else {
        Err(invalid(field, format!("{url:?} is not an http(s) URL")))
    }
}

/// `{TIER}_BASE_URL`/`_MODEL`/`_API_KEY`/`_ENABLE_THINKING`, each falling back to the
/// matching `OPENAI_*` variable, override the settings file.
fn apply_tier_env(tier: &mut TierConfig, prefix: &str, env: &dyn EnvSource) {
    let get = |suffix: &str| {
        non_empty(env.var(&format!("{prefix}_{suffix}")))
            .or_else(|| non_empty(env.var(&format!("OPENAI_{suffix}"))))
    };
    if let Some(url) = get("BASE_URL") {
        tier.base_url = Some(url);
    }
    if let Some(model) = get("MODEL") {
        tier.model = Some(model);
    }
    if let Some(key) = get("API_KEY") {
        tier.api_key = Some(ApiKey::new(key));
    }
    if let Some(flag) = non_empty(env.var(&format!("{prefix}_ENABLE_THINKING"))) {
        tier.enable_thinking = matches!(flag.to_ascii_lowercase().as_str(), "1" | "true" | "yes");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_are_the_seed_hyper_parameters() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::load(&env(&[("HOME", dir.path().to_str().unwrap())])).unwrap();
        assert_eq!(c.ggs, GgsParams::default());
        assert_eq!(
            (c.ggs.alpha, c.ggs.beta, c.ggs.lambda, c.ggs.w1, c.ggs.w2),
            (0.6, 0.3, 0.4, 0.6, 0.4)
        );
        assert_eq!(
            (c.ggs.epsilon, c.ggs.delta, c.ggs.rho, c.ggs.theta),
            (0.1, 0.3, 0.5, 0.8)
        );
        assert_eq!(c.ggs.kill_after_worsening, 2);
        assert_eq!(
            (
                c.budgets.max_retries,
                c.budgets.max_replans,
                c.budgets.time_budget_ms
            ),
            (2, 3, 120_000),
            "the seed's retries and replans; a whole-task budget for a local model"
        );
        assert_eq!(c.data_dir, dir.path().join(".artoo"));
        assert_eq!(c.workspace, dir.path().join("artoo_workspace"));
    }

    #[test]
    fn settings_file_overrides_defaults_and_environment_overrides_both() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(
            data.join(SETTINGS_FILE),
            "[ggs]\nalpha = 0.5\n[llm.brain]\nmodel = \"from-file\"\nbase_url = \"http://file:1/v1\"\n",
        )
        .unwrap();
        let c = Config::load(&env(&[
            ("HOME", dir.path().to_str().unwrap()),
            ("ARTOO_DATA_DIR", data.to_str().unwrap()),
            ("OPENAI_MODEL", "shared-model"),
            ("OPENAI_BASE_URL", "http://shared:8080/v1"),
            ("OPENAI_API_KEY", "sk-shared"),
            ("TOOL_MODEL", "tool-model"),
        ]))
        .unwrap();
        assert_eq!(c.ggs.alpha, 0.5);
        assert_eq!(c.ggs.beta, 0.3);
        // OPENAI_* is later than the file, so it wins for the brain tier too.
        assert_eq!(c.llm.brain.model.as_deref(), Some("shared-model"));
        assert_eq!(c.llm.tool.model.as_deref(), Some("tool-model"));
        assert_eq!(
            c.llm.tool.base_url.as_deref(),
            Some("http://shared:8080/v1")
        );
        assert_eq!(c.llm.brain.api_key.as_ref().unwrap().expose(), "sk-shared");
        assert!(!format!("{c:?}").contains("sk-shared"));
        c.require_llm().unwrap();
    }

    #[test]
    fn a_value_out_of_range_is_rejected_naming_the_field() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(SETTINGS_FILE), "[ggs]\ntheta = 1.5\n").unwrap();
        let err = Config::load(&env(&[
            ("ARTOO_DATA_DIR", dir.path().to_str().unwrap()),
            ("HOME", "/nonexistent-home"),
        ]))
        .unwrap_err();
        assert!(err.to_string().contains("ggs.theta"), "{err}");
    }

    #[test]
    fn an_unknown_or_mistyped_key_is_rejected_naming_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(SETTINGS_FILE);
        std::fs::write(&p, "[ggs]\nalpah = 0.5\n").unwrap();
        let err = Config::load(&env(&[
            ("ARTOO_DATA_DIR", dir.path().to_str().unwrap()),
            ("HOME", "/h"),
        ]))
        .unwrap_err();
        assert!(err.to_string().contains("alpah"), "{err}");
        std::fs::write(&p, "[budgets]\nmax_replans = \"three\"\n").unwrap();
        let err = Config::load(&env(&[
            ("ARTOO_DATA_DIR", dir.path().to_str().unwrap()),
            ("HOME", "/h"),
        ]))
        .unwrap_err();
        assert!(err.to_string().contains("max_replans"), "{err}");
    }

    #[test]
    fn a_bad_base_url_from_the_environment_names_the_tier_field() {
        let dir = tempfile::tempdir().unwrap();
        let err = Config::load(&env(&[
            ("HOME", dir.path().to_str().unwrap()),
            ("BRAIN_BASE_URL", "localhost:8080"),
        ]))
        .unwrap_err();
        assert!(err.to_string().contains("llm.brain.base_url"), "{err}");
    }

    #[test]
    fn missing_tiers_are_reported_with_the_variables_to_set() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::load(&env(&[("HOME", dir.path().to_str().unwrap())])).unwrap();
        let err = c.require_llm().unwrap_err().to_string();
        assert!(err.contains("brain") && err.contains("BRAIN_*"), "{err}");
    }

    #[test]
    fn nothing_configured_means_the_built_in_model_and_half_configured_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_str().unwrap();
        let c = Config::load(&env(&[("HOME", home)])).unwrap();
        assert_eq!(c.model_source().unwrap(), ModelSource::BuiltIn);
        assert_eq!(c.local_llm_dir(), dir.path().join(".artoo/local-llm"));
        assert_eq!(c.llm.local.model, crate::local_llm::pins::DEFAULT_MODEL);

        let half = Config::load(&env(&[("HOME", home), ("TOOL_MODEL", "m")])).unwrap();
        let err = half.model_source().unwrap_err().to_string();
        assert!(err.contains("brain"), "{err}");

        let mut local = Config::load(&env(&[
            ("HOME", home),
            ("ARTOO_LOCAL_LLM_DIR", "~/models"),
            ("ARTOO_LOCAL_LLM_MODEL", "qwen2.5-coder-0.5b"),
        ]))
        .unwrap();
        assert_eq!(local.local_llm_dir(), dir.path().join("models"));
        local.use_local_endpoint("http://127.0.0.1:9/v1", "qwen2.5-coder-0.5b");
        assert_eq!(local.model_source().unwrap(), ModelSource::Configured);

        let err = Config::load(&env(&[("HOME", home), ("ARTOO_LOCAL_LLM_MODEL", "big")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("llm.local.model"), "{err}");
    }

    #[test]
    fn saved_settings_load_back_and_never_contain_keys() {
        let dir = tempfile::tempdir().unwrap();
        let vars = env(&[
            ("HOME", dir.path().to_str().unwrap()),
            ("OPENAI_API_KEY", "sk-secret"),
        ]);
        let c = Config::load(&vars).unwrap();
        let mut s = c.settings();
        s.ggs.rho = 0.4;
        s.ui.language = "zh-CN".into();
        c.save_settings(&s).unwrap();
        let text = std::fs::read_to_string(c.settings_path()).unwrap();
        assert!(!text.contains("sk-secret"));
        let again = Config::load(&vars).unwrap();
        assert_eq!(again.ggs.rho, 0.4);
        assert_eq!(again.ui.language, "zh-CN");

        let mut bad = again.settings();
        bad.ggs.w1 = -1.0;
        let err = again.save_settings(&bad).unwrap_err();
        assert!(err.to_string().contains("ggs.w1"));
    }

    #[test]
    fn home_relative_paths_expand() {
        let c = Config::load(&env(&[
            ("HOME", "/home/u"),
            ("ARTOO_DATA_DIR", "/nonexistent-artoo-test/data"),
            ("ARTOO_WORKSPACE", "~/ws"),
        ]))
        .unwrap();
        assert_eq!(c.workspace, PathBuf::from("/home/u/ws"));
    }
}
