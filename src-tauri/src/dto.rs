//! The shapes the shell's commands take and return that are not bus contracts: views over
//! memory, the audit log, task runs and settings, built for the panels (docs/ui.md, "What
//! the shell implements"). tauri-specta renders them into ui/src/ipc/bindings.ts.
//!
//! **Invariant:** these are plain data with no behaviour; every field is computed from the
//! core's own records at the time of the call, never cached or invented here.

use artoo::config::Settings;
use artoo::contracts::{
    Level, Loss, Megram, MegramId, MessageKind, Potentials, RecalledConstraint, ReportId, Role,
    TaskId,
};
use artoo::describe::DescribedEnvelope;
use artoo::tasklog::{RunStatus, Trajectory};
use serde::{Deserialize, Serialize};
use specta::Type;

/// A tab of the panels window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum PanelTab {
    Tasks,
    Memory,
    Audit,
    Settings,
}

/// What a panel should show when it opens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PanelFocus {
    Group { space: String, entity: String },
    Task { task_id: TaskId },
    Report { report_id: ReportId },
}

/// What the event stream carries: bus traffic, tap gaps and panel navigation.
#[derive(Clone, Debug, Serialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UiEvent {
    /// One bus envelope with the core's one-line summary of it (`line`), and the
    /// plain-language status line it begins (written by the core, in the UI language; null
    /// when it begins no new phase).
    Envelope {
        envelope: DescribedEnvelope,
        status: Option<String>,
    },
    /// The model changed state (starting with progress, ready, unreachable).
    Model { model: ModelStatus },
    /// The shell's tap fell behind and `skipped` envelopes are gone for good.
    Gap { skipped: u64 },
    /// The shell opened the panels window on a tab (tray menu, a "why" link).
    Navigate {
        tab: PanelTab,
        focus: Option<PanelFocus>,
    },
}

// ---- memory ----------------------------------------------------------------------

/// The thresholds that split the potentials map into Ignore / Exploit / Avoid / Caution.
///
/// `Finite` fields are always finite (validated config, or computed from finite values),
/// so serde never writes them as `null`; they render as a plain TS `number`.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct MemoryThresholds {
    #[specta(type = Finite)]
    pub attention_floor: f64,
    #[specta(type = Finite)]
    pub exploit_above: f64,
    #[specta(type = Finite)]
    pub avoid_below: f64,
}

/// A finite float, exported as TypeScript `number` (specta renders `f64` as
/// `number | null` because serde writes NaN and ±∞ as `null`).
#[derive(Type)]
#[specta(transparent)]
#[allow(dead_code)] // only its type is used
pub struct Finite(i32);

/// Megrams per level (`Record<Level, number>` in TypeScript).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Type)]
pub struct LevelCounts {
    #[serde(rename = "M")]
    pub m: u32,
    #[serde(rename = "K")]
    pub k: u32,
    #[serde(rename = "C")]
    pub c: u32,
    #[serde(rename = "T")]
    pub t: u32,
}

/// One (space, entity) group with its live potentials.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct MemoryGroup {
    pub space: String,
    pub entity: String,
    pub potentials: Potentials,
    pub counts: LevelCounts,
    /// Newest created_at or last_recalled_at in the group.
    pub last_activity: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct MemoryMap {
    pub thresholds: MemoryThresholds,
    pub groups: Vec<MemoryGroup>,
}

/// A Megram with its live contribution to both channels at the time of the call.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct MegramView {
    pub megram: Megram,
    /// Days since the later of created_at and last_recalled_at.
    #[specta(type = Finite)]
    pub age_days: f64,
    /// |f|·e^(−k·Δt)
    #[specta(type = Finite)]
    pub live_attention: f64,
    /// σ·f·e^(−k·Δt)
    #[specta(type = Finite)]
    pub live_decision: f64,
    /// Consolidated into a C-level entry by the Dreamer.
    pub consolidated: bool,
}

/// One planning round that recalled the group: what R2 made of it ("why recalled").
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct RecallRef {
    pub task_id: TaskId,
    pub raw_input: String,
    pub at: String,
    pub round: u32,
    pub potentials: Potentials,
    pub constraints: Vec<RecalledConstraint>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct MemoryGroupDetail {
    pub space: String,
    pub entity: String,
    pub potentials: Potentials,
    pub megrams: Vec<MegramView>,
    pub recalls: Vec<RecallRef>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ForgetTarget {
    Megram { id: MegramId },
    Group { space: String, entity: String },
}

// ---- audit -----------------------------------------------------------------------

/// The anomaly an audit event carries (its first finding), or `none`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum AnomalyKind {
    None,
    BoundaryViolation,
    ConvergenceFailure,
    GgsThrashing,
    Drift,
    Law0,
    Law1,
    Law3,
    TapGap,
    LogRecovery,
}

/// One entry of the hash-chained audit log.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct AuditEvent {
    pub seq: u64,
    pub timestamp: String,
    /// `null` for the auditor's own records (tap gaps, start-ups, prunes).
    pub from: Option<Role>,
    pub to: Option<Role>,
    /// `TapGap`, `AuditorStarted` and `Retention` besides the bus message types.
    pub message_type: String,
    pub task_id: Option<TaskId>,
    pub anomaly: AnomalyKind,
    /// The payload summary, then each finding's description.
    pub detail: String,
    pub prev_hash: String,
    pub hash: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Type)]
pub struct AuditEventFilter {
    pub task_id: Option<TaskId>,
    pub message_type: Option<MessageKind>,
    pub anomalies_only: bool,
    /// Page backwards from this seq (exclusive); null = newest.
    pub before_seq: Option<u64>,
    pub limit: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct AuditEventPage {
    pub events: Vec<AuditEvent>,
    /// Events matching the filter in the whole log.
    pub total: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Type)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ChainVerification {
    Intact {
        events_checked: u64,
        head_hash: String,
        checked_at: String,
    },
    Broken {
        events_checked: u64,
        first_broken_seq: u64,
        reason: String,
        checked_at: String,
    },
}

// ---- task runs -------------------------------------------------------------------

/// One run of a task, from its task log (a new run for every submission).
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct TaskRun {
    pub run_id: String,
    pub task_id: TaskId,
    pub raw_input: String,
    pub intent: Option<String>,
    pub started_at: String,
    pub ended_at: Option<String>,
    pub status: RunStatus,
    pub replans: u32,
    pub loss: Option<Loss>,
    /// A Law 1 gate fired during the run.
    pub law1: bool,
}

/// One recorded run: what the core's fold made of it, and everything it put on the bus,
/// in order, each envelope with the core's line for it (the UI steps through them with
/// the reducer the popup uses live).
#[derive(Clone, Debug, Serialize, Type)]
pub struct TaskReplay {
    pub run: TaskRun,
    pub trajectory: Trajectory,
    pub envelopes: Vec<DescribedEnvelope>,
}

// ---- settings --------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Type)]
pub struct KeyStatus {
    /// A key is stored for this tier (its value never leaves the backend).
    pub stored: bool,
}

/// Key status per tier (`Record<KeyTier, KeyStatus>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Type)]
pub struct TierKeys {
    pub brain: KeyStatus,
    pub tool: KeyStatus,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Type)]
pub struct KeychainInfo {
    pub available: bool,
    /// "macOS Keychain", "Secret Service", … or why there is none.
    pub backend: String,
}

/// Whether shell commands run in Law 1's sandbox here; while it is off, every command
/// artoo cannot prove harmless asks first, and the app says so.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Type)]
pub struct SandboxInfo {
    pub on: bool,
    /// One sentence: how it works, or why it is off.
    pub description: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct SettingsView {
    pub settings: Settings,
    pub keys: TierKeys,
    pub keychain: KeychainInfo,
    pub sandbox: SandboxInfo,
    pub settings_path: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeyChange {
    Keep,
    Set { key: String },
    Clear,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Type)]
pub struct KeyChanges {
    pub brain: KeyChange,
    pub tool: KeyChange,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Type)]
pub struct SettingsUpdate {
    pub settings: Settings,
    pub keys: KeyChanges,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Type)]
pub struct ProviderPreset {
    pub id: String,
    pub name: String,
    pub base_url: String,
    pub brain_model: String,
    pub tool_model: String,
    pub needs_key: bool,
}

/// Level as the UI's `Record<Level, …>` keys it.
pub fn count_level(counts: &mut LevelCounts, level: Level) {
    match level {
        Level::M => counts.m += 1,
        Level::K => counts.k += 1,
        Level::C => counts.c += 1,
        Level::T => counts.t += 1,
    }
}

// ---- the model ---------------------------------------------------------------------

/// Where the model comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ModelSourceKind {
    /// artoo's own llama-server, started as a child process.
    BuiltIn,
    /// An endpoint the user configured.
    Provider,
    /// Nothing chosen yet (first run) or a half-filled provider.
    Unset,
}

/// What the model is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ModelPhase {
    /// Being fetched, built or loaded (see `progress`).
    Starting,
    Ready,
    /// It did not answer or did not start (see `detail`).
    Unreachable,
    /// No model is chosen: the onboarding view asks.
    NotConfigured,
}

/// One progress report of the built-in model, with its sentence in the UI language.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct ModelProgress {
    pub stage: artoo::local_llm::Stage,
    pub done: u32,
    pub total: u32,
    pub text: String,
}

/// The model artoo talks to, as the popup and the onboarding view show it.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct ModelStatus {
    pub source: ModelSourceKind,
    pub phase: ModelPhase,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// Why it is unreachable or not configured, in words.
    pub detail: Option<String>,
    pub progress: Option<ModelProgress>,
    /// No settings were ever saved: the onboarding view shows.
    pub first_run: bool,
}

/// The result of "Test connection": a real one-token call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Type)]
pub struct ConnectionTest {
    pub ok: bool,
    pub model: Option<String>,
    pub latency_ms: u32,
    pub error: Option<String>,
}
