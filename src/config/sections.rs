//! The sections of `settings.toml` and their built-in defaults: model tiers, GGS
//! hyper-parameters, budgets, memory thresholds, laws, tools, auditor, retention and UI.
//!
//! **Invariant:** every section deserialises with `deny_unknown_fields` and fills
//! missing keys from its `Default`, so a partial file is valid and a typo is an error.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{ApiKey, McpConfig};

/// One model tier: endpoint, model and key.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct TierConfig {
    /// The OpenAI-compatible endpoint, e.g. `http://localhost:8080/v1`; None until configured.
    pub base_url: Option<String>,
    /// The model name to ask the endpoint for; None until configured.
    pub model: Option<String>,
    /// Sends `"enable_thinking": true` (Qwen3-style reasoning switches).
    pub enable_thinking: bool,
    /// From the environment or the OS keychain only.
    #[serde(skip)]
    pub api_key: Option<ApiKey>,
}

impl TierConfig {
    pub(super) fn missing(&self) -> Vec<&'static str> {
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

/// The `[llm]` section: the two model tiers and how calls to them are bounded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    /// R1, R2, R4b (R4b never runs on a weaker tier than R2).
    pub brain: TierConfig,
    /// R3, R4a.
    pub tool: TierConfig,
    /// Bound on opening a connection to an endpoint, in seconds.
    pub connect_timeout_secs: u64,
    /// Whole-call bound, retries excluded. Unset (the default): each call's own bound,
    /// from its prompt and reply cap at the model's measured speed (`llm::pace`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_timeout_secs: Option<u64>,
    /// Attempts per call on 429/5xx/transport errors (1 = no retry).
    pub max_attempts: u32,
    /// The first retry's back-off, in milliseconds; it doubles per attempt, up to a cap, unless the
    /// endpoint says how long to wait.
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
            call_timeout_secs: None,
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
            model: crate::config::pins::DEFAULT_MODEL.into(),
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

/// GGS hyper-parameters; the defaults are the tuned values the loss and decision rules were calibrated with.
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

/// The `[budgets]` section: what one task may spend.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct Budgets {
    /// Fast-loop corrections per sub-task (default 2).
    pub max_retries: u32,
    /// Medium-loop replans per task (default 3).
    pub max_replans: u32,
    /// Wall-clock budget of a whole task, from submit to its result. Unset (the
    /// default): three times a typical task's model work at the speed measured on this
    /// machine, within 2 and 30 minutes (`llm::pace`), so a machine that runs the model
    /// three times slower gets three times the time. A value here fixes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_budget_ms: Option<u64>,
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
            time_budget_ms: None,
            executor_max_steps: 6,
            plan_reasks: 1,
            clarification_rounds: 2,
        }
    }
}

/// MKCT thresholds used by the memory role (R5).
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
    /// Seconds between the Dreamer's background passes.
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

/// The `[laws]` section: Law 1 confirmation settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct LawsConfig {
    /// Unanswered Law 1 confirmations are denied after this long.
    pub confirm_timeout_secs: u64,
    /// Shortcuts the user allowed for good, by exact name: running one of them does not
    /// ask. Every other Shortcut asks (its steps cannot be seen).
    pub allowed_shortcuts: Vec<String>,
    /// After the user approved the same class of file changes this many times (say,
    /// deleting `.tmp` files under ~/Downloads), the dialog offers "always allow" it; 0
    /// never offers it.
    pub offer_always_after: u32,
}

impl Default for LawsConfig {
    fn default() -> Self {
        Self {
            confirm_timeout_secs: 120,
            allowed_shortcuts: Vec::new(),
            offer_always_after: 3,
        }
    }
}

/// The `[tools]` section: limits of the executor's tools.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct ToolsConfig {
    /// A shell command is killed after this many seconds.
    pub shell_timeout_secs: u64,
    /// Tool output shown to the model: head + tail within this many characters.
    pub output_limit_chars: usize,
    /// `read_file` reads at most this many bytes of a file.
    pub read_limit_bytes: u64,
    /// DuckDuckGo HTML endpoint by default; tests point it at a local fake.
    pub search_url: String,
    /// Bound on one web search, in seconds.
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

/// The `[auditor]` section: report period and detector thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct AuditorConfig {
    /// Seconds between periodic audit reports.
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
    /// Task logs (`tasks/`, every envelope of a run in one file, full prompts included).
    pub task_logs_days: u32,
    /// Total size of the task logs kept, in megabytes; the oldest go first.
    pub task_logs_mb: u64,
    /// The audit log's sealed segments (`audit/`), pruned behind a checkpoint.
    pub audit_days: u32,
    /// Total size of the sealed audit segments kept, in megabytes.
    pub audit_mb: u64,
    /// Originals in artoo's private trash (what tasks replaced or removed, kept for an
    /// undo), by the commit that displaced them. An undo of an older task says its
    /// originals are gone.
    pub trash_days: u32,
    /// Total size of the private trash, in megabytes; the oldest commits go first.
    pub trash_mb: u64,
}

impl Default for RetentionConfig {
    fn default() -> Self {
        Self {
            task_logs_days: 90,
            task_logs_mb: 512,
            audit_days: 365,
            audit_mb: 1024,
            trash_days: 30,
            trash_mb: 2048,
        }
    }
}

/// The `[ui]` section: desktop preferences.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct UiConfig {
    /// The global shortcut that opens the popup, in Tauri's accelerator syntax.
    pub hotkey: String,
    /// `en` or `zh-CN`.
    pub language: String,
    /// Whether the desktop app starts when the user logs in.
    pub launch_at_login: bool,
    /// A system notification when Law 1 needs an answer and the popup is not in front
    /// (the popup comes back for the request either way).
    pub notify_approvals: bool,
    /// A system notification when a task is done and the popup is not in front.
    pub notify_done: bool,
    /// A system notification when a task was abandoned and the popup is not in front.
    pub notify_abandoned: bool,
}

impl Default for UiConfig {
    fn default() -> Self {
        Self {
            hotkey: "CommandOrControl+Shift+Space".into(),
            language: "en".into(),
            launch_at_login: false,
            notify_approvals: true,
            notify_done: true,
            notify_abandoned: true,
        }
    }
}

/// What `settings.toml` may contain. Paths other than the workspace are not settable
/// there (the data dir is where the file lives).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// The folder tasks work in; None keeps the default (`~/artoo_workspace`, or
    /// `ARTOO_WORKSPACE`).
    pub workspace: Option<PathBuf>,
    /// The `[llm]` section.
    pub llm: LlmConfig,
    /// The `[ggs]` section.
    pub ggs: GgsParams,
    /// The `[budgets]` section.
    pub budgets: Budgets,
    /// The `[memory]` section.
    pub memory: MemoryParams,
    /// The `[laws]` section.
    pub laws: LawsConfig,
    /// The `[tools]` section.
    pub tools: ToolsConfig,
    /// The `[auditor]` section.
    pub auditor: AuditorConfig,
    /// The `[retention]` section.
    pub retention: RetentionConfig,
    /// The `[ui]` section.
    pub ui: UiConfig,
    /// The `[mcp]` section.
    pub mcp: McpConfig,
}
