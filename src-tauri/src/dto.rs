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
pub use artoo::journal::undo::UndoStep;
use artoo::tasklog::{RunStatus, Trajectory};
use serde::{Deserialize, Serialize};
use specta::Type;

/// A tab of the panels window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum PanelTab {
    /// Runs and their replays.
    Tasks,
    /// Memory groups and their Megrams.
    Memory,
    /// Audit reports, events and the chain check.
    Audit,
    /// The model, keys and other settings.
    Settings,
}

/// What a panel should show when it opens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PanelFocus {
    /// A memory group.
    Group {
        /// The group's space.
        space: String,
        /// The group's entity.
        entity: String,
    },
    /// A task's run.
    Task {
        /// The task to show.
        task_id: TaskId,
    },
    /// An audit report.
    Report {
        /// The report to show.
        report_id: ReportId,
    },
}

/// What the event stream carries: bus traffic, tap gaps and panel navigation.
#[derive(Clone, Debug, Serialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UiEvent {
    /// One bus envelope with the core's one-line summary of it (`line`), and the
    /// plain-language status line it begins (written by the core, in the UI language; null
    /// when it begins no new phase).
    Envelope {
        /// The envelope and its summary line.
        envelope: DescribedEnvelope,
        /// The status line it begins; null when it begins no new phase.
        status: Option<String>,
    },
    /// The model changed state (starting with progress, ready, unreachable).
    Model {
        /// The model's new state.
        model: ModelStatus,
    },
    /// The shell's tap fell behind and `skipped` envelopes are gone for good.
    Gap {
        /// How many envelopes were lost; at least 1.
        skipped: u64,
    },
    /// The shell opened the panels window on a tab (tray menu, a "why" link).
    Navigate {
        /// The tab to show.
        tab: PanelTab,
        /// What to select on it; null selects nothing.
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
    /// Below this attention a group is ignored.
    #[specta(type = Finite)]
    pub attention_floor: f64,
    /// Above this decision a group's approach is preferred.
    #[specta(type = Finite)]
    pub exploit_above: f64,
    /// Below this decision a group's approach is avoided.
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
    /// M entries: episodic facts.
    #[serde(rename = "M")]
    pub m: u32,
    /// K entries: task-scoped knowledge.
    #[serde(rename = "K")]
    pub k: u32,
    /// C entries: SOPs and constraints.
    #[serde(rename = "C")]
    pub c: u32,
    /// T entries: the laws, never forgotten.
    #[serde(rename = "T")]
    pub t: u32,
}

/// One (space, entity) group with its live potentials.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct MemoryGroup {
    /// The group's space.
    pub space: String,
    /// The group's entity.
    pub entity: String,
    /// Its live potentials and the planner action they mean.
    pub potentials: Potentials,
    /// Its entries per level.
    pub counts: LevelCounts,
    /// Newest created_at or last_recalled_at in the group.
    pub last_activity: Option<String>,
}

/// Every memory group, and the thresholds their potentials are read against.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct MemoryMap {
    /// The thresholds of the planner actions.
    pub thresholds: MemoryThresholds,
    /// The groups.
    pub groups: Vec<MemoryGroup>,
}

/// A Megram with its live contribution to both channels at the time of the call.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct MegramView {
    /// The entry as stored.
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
    /// The task that was planned.
    pub task_id: TaskId,
    /// The user's words; empty when the run did not record them.
    pub raw_input: String,
    /// When memory was recalled, RFC 3339.
    pub at: String,
    /// The planning round, 0 for the first plan.
    pub round: u32,
    /// The group's potentials at that time.
    pub potentials: Potentials,
    /// What R2 derived from the group for the plan.
    pub constraints: Vec<RecalledConstraint>,
}

/// One memory group in full: its entries and the rounds that recalled it.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct MemoryGroupDetail {
    /// The group's space.
    pub space: String,
    /// The group's entity.
    pub entity: String,
    /// Its live potentials.
    pub potentials: Potentials,
    /// Its entries, with their live contributions.
    pub megrams: Vec<MegramView>,
    /// Recent planning rounds that recalled it, newest first.
    pub recalls: Vec<RecallRef>,
}

/// What to forget.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ForgetTarget {
    /// One entry.
    Megram {
        /// The entry to forget.
        id: MegramId,
    },
    /// Every entry of a group, except T-layer entries.
    Group {
        /// The group's space.
        space: String,
        /// The group's entity.
        entity: String,
    },
}

// ---- audit -----------------------------------------------------------------------

/// The anomaly an audit event carries (its first finding), or `none`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum AnomalyKind {
    /// No anomaly.
    None,
    /// A flow outside the contract table, or a payload that contradicts its envelope.
    BoundaryViolation,
    /// A task's loss worsened across consecutive rounds.
    ConvergenceFailure,
    /// Consecutive break_symmetry directives without D decreasing.
    GgsThrashing,
    /// A role's failure, retry or model-error rate rose over the task window.
    Drift,
    /// A success claimed with D > δ, or a summary hiding a Law 1 gate.
    Law0,
    /// An irreversible action approved by anything but the user.
    Law1,
    /// A Megram write not backed by a GGS decision for its task.
    Law3,
    /// The auditor lost messages.
    TapGap,
    /// Start-up found the log and its checkpoint disagreeing (a crash or tampering).
    LogRecovery,
}

/// One entry of the hash-chained audit log.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct AuditEvent {
    /// The event's number in the chain, from 0.
    pub seq: u64,
    /// When it was recorded, RFC 3339.
    pub timestamp: String,
    /// `null` for the auditor's own records (tap gaps, start-ups, prunes).
    pub from: Option<Role>,
    /// The role it was addressed to; null for the auditor's own records.
    pub to: Option<Role>,
    /// `TapGap`, `AuditorStarted` and `Retention` besides the bus message types.
    pub message_type: String,
    /// The task it belongs to; null when it belongs to none.
    pub task_id: Option<TaskId>,
    /// Its first anomaly, or `none`.
    pub anomaly: AnomalyKind,
    /// The payload summary, then each finding's description.
    pub detail: String,
    /// The hash of the event before it.
    pub prev_hash: String,
    /// The hash of this event, chained to `prev_hash`.
    pub hash: String,
}

/// Which audit events to list.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Type)]
pub struct AuditEventFilter {
    /// Only this task's events; null for all tasks.
    pub task_id: Option<TaskId>,
    /// Only this message type; null for all.
    pub message_type: Option<MessageKind>,
    /// Only events that carry an anomaly.
    pub anomalies_only: bool,
    /// Page backwards from this seq (exclusive); null = newest.
    pub before_seq: Option<u64>,
    /// The most events in the page; 0 means 100.
    pub limit: u32,
}

/// One page of audit events.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct AuditEventPage {
    /// The events, newest first.
    pub events: Vec<AuditEvent>,
    /// Events matching the filter in the whole log.
    pub total: u64,
}

/// The result of walking the audit log's hash chain.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ChainVerification {
    /// Every event links to the one before it.
    Intact {
        /// Events read.
        events_checked: u64,
        /// The hash of the last event.
        head_hash: String,
        /// When the check ran, RFC 3339.
        checked_at: String,
    },
    /// The chain breaks.
    Broken {
        /// Events read before the break.
        events_checked: u64,
        /// The number of the first event that does not link.
        first_broken_seq: u64,
        /// What was found there.
        reason: String,
        /// When the check ran, RFC 3339.
        checked_at: String,
    },
}

// ---- task runs -------------------------------------------------------------------

/// One run of a task, from its task log (a new run for every submission).
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct TaskRun {
    /// The run's id, which names its log file.
    pub run_id: String,
    /// The task it ran.
    pub task_id: TaskId,
    /// The user's words; empty when the run did not record them.
    pub raw_input: String,
    /// R1's reading of the task; null when there was no task spec.
    pub intent: Option<String>,
    /// When the run began, RFC 3339.
    pub started_at: String,
    /// When the task closed, RFC 3339; null while it is open.
    pub ended_at: Option<String>,
    /// How it stands or ended.
    pub status: RunStatus,
    /// Replans GGS ordered.
    pub replans: u32,
    /// The loss of GGS's last decision; null before the first.
    pub loss: Option<Loss>,
    /// A Law 1 gate fired during the run.
    pub law1: bool,
}

/// How tasks like the one being typed went on this machine: the line to show, in the
/// settings' language, and its figures.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct TasksLike {
    /// "Tasks like this here: 4 of 5 delivered an answer, usually in about 1 min and 9
    /// model calls; the last failure: …".
    pub line: String,
    /// The figures the line says.
    pub history: artoo::tasklog::kinds::KindHistory,
}

/// What undoing a task would take back, checked against the files as they are now.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct UndoPreview {
    /// The task the undo is about; null when no task's changes are left to undo.
    pub task_id: Option<TaskId>,
    /// Each change it takes back, newest first.
    pub steps: Vec<UndoStep>,
    /// What the task did that no undo takes back (MCP calls, commands run outside the
    /// sandbox, files moved to the system Trash).
    pub lasting: Vec<String>,
    /// Why it cannot be undone (a file changed since, already undone); null when it can.
    pub refused: Option<String>,
}

/// What an undo did.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct UndoDone {
    /// The undo's own id: undoing it redoes the task's changes.
    pub undo_id: String,
    /// Changes taken back.
    pub count: u32,
}

/// One recorded run: what the core's fold made of it, and everything it put on the bus,
/// in order, each envelope with the core's line for it (the UI steps through them with
/// the reducer the popup uses live).
#[derive(Clone, Debug, Serialize, Type)]
pub struct TaskReplay {
    /// The run's summary.
    pub run: TaskRun,
    /// Its rounds and decisions.
    pub trajectory: Trajectory,
    /// Every envelope it logged, in order, with its summary line.
    pub envelopes: Vec<DescribedEnvelope>,
}

// ---- settings --------------------------------------------------------------------

/// Whether a tier has an API key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Type)]
pub struct KeyStatus {
    /// A key is stored for this tier (its value never leaves the backend).
    pub stored: bool,
}

/// Key status per tier (`Record<KeyTier, KeyStatus>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Type)]
pub struct TierKeys {
    /// The brain tier's key.
    pub brain: KeyStatus,
    /// The tool tier's key.
    pub tool: KeyStatus,
}

/// Where API keys are stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Type)]
pub struct KeychainInfo {
    /// Keys can be stored.
    pub available: bool,
    /// "macOS Keychain", "Secret Service", … or why there is none.
    pub backend: String,
}

/// Whether shell commands run in Law 1's sandbox here; while it is off, every command
/// artoo cannot prove harmless asks first, and the app says so.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Type)]
pub struct SandboxInfo {
    /// Shell commands run in the sandbox.
    pub on: bool,
    /// One sentence: how it works, or why it is off.
    pub description: String,
}

/// The settings as the Settings tab shows them.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct SettingsView {
    /// The settings as saved.
    pub settings: Settings,
    /// Which tiers have a key.
    pub keys: TierKeys,
    /// Where keys are kept.
    pub keychain: KeychainInfo,
    /// Whether commands run in the sandbox.
    pub sandbox: SandboxInfo,
    /// The settings file's path.
    pub settings_path: String,
}

/// What to do with one tier's key.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeyChange {
    /// Leave it as it is.
    Keep,
    /// Store a new key.
    Set {
        /// The key, never shown again.
        key: String,
    },
    /// Delete the stored key.
    Clear,
}

/// The key change of each tier.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Type)]
pub struct KeyChanges {
    /// For the brain tier.
    pub brain: KeyChange,
    /// For the tool tier.
    pub tool: KeyChange,
}

/// What "Save" sends.
#[derive(Clone, Debug, PartialEq, Deserialize, Type)]
pub struct SettingsUpdate {
    /// The settings to save whole.
    pub settings: Settings,
    /// The key changes.
    pub keys: KeyChanges,
}

/// An endpoint the settings offer, with suggested models.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Type)]
pub struct ProviderPreset {
    /// Stable id.
    pub id: String,
    /// The name shown.
    pub name: String,
    /// The OpenAI-compatible endpoint.
    pub base_url: String,
    /// The suggested brain model; empty when it depends on what the user has.
    pub brain_model: String,
    /// The suggested tool model; empty when it depends on what the user has.
    pub tool_model: String,
    /// The endpoint refuses calls without an API key.
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
    /// It answers.
    Ready,
    /// It did not answer or did not start (see `detail`).
    Unreachable,
    /// No model is chosen: the onboarding view asks.
    NotConfigured,
}

/// One progress report of the built-in model, with its sentence in the UI language.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct ModelProgress {
    /// What is being done.
    pub stage: artoo::local_llm::Stage,
    /// Units done: chunks or build steps; 0 where nothing is counted.
    pub done: u32,
    /// Units in all; 0 where nothing is counted.
    pub total: u32,
    /// The sentence for the user, in the UI language.
    pub text: String,
}

/// The model artoo talks to, as the popup and the onboarding view show it.
#[derive(Clone, Debug, PartialEq, Serialize, Type)]
pub struct ModelStatus {
    /// Where the model comes from.
    pub source: ModelSourceKind,
    /// What it is doing.
    pub phase: ModelPhase,
    /// The model name; null when none is set.
    pub model: Option<String>,
    /// The endpoint; null when none is set.
    pub base_url: Option<String>,
    /// Why it is unreachable or not configured, in words.
    pub detail: Option<String>,
    /// The latest progress while it is starting; null otherwise.
    pub progress: Option<ModelProgress>,
    /// No settings were ever saved: the onboarding view shows.
    pub first_run: bool,
    /// Once ready: the model's speed measured here and what it means for a task ("≈10
    /// tokens/s written, ≈50 read here; a typical task takes about 2 min (time budget
    /// 5 min)"), in the UI language; null before.
    pub pace: Option<String>,
}

/// The result of "Test connection": a real one-token call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Type)]
pub struct ConnectionTest {
    /// The endpoint answered.
    pub ok: bool,
    /// The model that answered; null when none did.
    pub model: Option<String>,
    /// How long the call took, in milliseconds.
    pub latency_ms: u32,
    /// Why it failed; null when it did not.
    pub error: Option<String>,
}

/// What became of the popup's input: a task running now, or a schedule kept (the input
/// said when it should run).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Submitted {
    /// A task runs now.
    Task {
        /// Its id.
        task_id: artoo::contracts::TaskId,
    },
    /// A schedule was kept; nothing runs now.
    Scheduled {
        /// The schedule, with when it runs next.
        // Boxed: a task's id is all the other variant holds.
        schedule: Box<artoo::schedule::ScheduleView>,
        /// What was kept, in words, to show.
        message: String,
    },
}
