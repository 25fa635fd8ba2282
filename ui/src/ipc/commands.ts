// The command surface the desktop shell (src-tauri) implements, and the shapes its
// commands return that are not bus contracts. Bus contracts come from contracts.ts,
// generated from Rust; these DTOs are the shell's, listed here so the shell implements
// exactly them (docs/ui.md). When the shell lands, tauri-specta's bindings.ts generates
// the same names from its Rust DTOs and replaces this file.

import type {
  AuditReport,
  Decision,
  Envelope,
  Level,
  Loss,
  Megram,
  MegramId,
  MessageKind,
  Potentials,
  RecalledConstraint,
  ReportId,
  RequestId,
  Role,
  Settings,
  Settings_Deserialize,
  TaskId,
} from './contracts';

/** A tab of the panels window. */
export type PanelTab = 'tasks' | 'memory' | 'audit' | 'settings';

/** What a panel should show when it opens (a memory group, a task's latest run, a report). */
export type PanelFocus =
  | { kind: 'group'; space: string; entity: string }
  | { kind: 'task'; task_id: TaskId }
  | { kind: 'report'; report_id: ReportId };

// ---- memory ----------------------------------------------------------------------

/** The thresholds that split the potentials map into Ignore / Exploit / Avoid / Caution. */
export interface MemoryThresholds {
  attention_floor: number;
  exploit_above: number;
  avoid_below: number;
}

/** One (space, entity) group with its live potentials. */
export interface MemoryGroup {
  space: string;
  entity: string;
  potentials: Potentials;
  /** Megrams per level in the group. */
  counts: Record<Level, number>;
  /** Newest created_at or last_recalled_at in the group. */
  last_activity: string | null;
}

export interface MemoryMap {
  thresholds: MemoryThresholds;
  groups: MemoryGroup[];
}

/** A Megram with its live contribution to both channels at the time of the call. */
export interface MegramView {
  megram: Megram;
  /** Days since the later of created_at and last_recalled_at. */
  age_days: number;
  /** |f|·e^(−k·Δt) */
  live_attention: number;
  /** σ·f·e^(−k·Δt) */
  live_decision: number;
  /** Consolidated into a C-level entry by the Dreamer. */
  consolidated: boolean;
}

/** One planning round that recalled the group: what R2 made of it ("why recalled"). */
export interface RecallRef {
  task_id: TaskId;
  raw_input: string;
  at: string;
  round: number;
  potentials: Potentials;
  constraints: RecalledConstraint[];
}

export interface MemoryGroupDetail {
  space: string;
  entity: string;
  potentials: Potentials;
  megrams: MegramView[];
  recalls: RecallRef[];
}

export type ForgetTarget =
  | { kind: 'megram'; id: MegramId }
  | { kind: 'group'; space: string; entity: string };

// ---- audit -----------------------------------------------------------------------

export type AnomalyKind =
  | 'none'
  | 'boundary_violation'
  | 'convergence_failure'
  | 'ggs_thrashing'
  | 'drift'
  | 'law0'
  | 'law3'
  | 'tap_gap';

/** One entry of the hash-chained audit log. */
export interface AuditEvent {
  seq: number;
  timestamp: string;
  from: Role;
  to: Role;
  message_type: MessageKind;
  task_id: TaskId | null;
  anomaly: AnomalyKind;
  detail: string;
  prev_hash: string;
  hash: string;
}

export interface AuditEventFilter {
  task_id: TaskId | null;
  message_type: MessageKind | null;
  anomalies_only: boolean;
  /** Page backwards from this seq (exclusive); null = newest. */
  before_seq: number | null;
  limit: number;
}

export interface AuditEventPage {
  events: AuditEvent[];
  /** Events matching the filter in the whole log. */
  total: number;
}

export type ChainVerification =
  | { status: 'intact'; events_checked: number; head_hash: string; checked_at: string }
  | {
      status: 'broken';
      events_checked: number;
      first_broken_seq: number;
      reason: string;
      checked_at: string;
    };

// ---- task runs -------------------------------------------------------------------

export type RunStatus = 'running' | 'accept' | 'success' | 'abandon' | 'cancelled' | 'chat';

/** One run of a task, from its task log (a new run for every submission). */
export interface TaskRun {
  run_id: string;
  task_id: TaskId;
  raw_input: string;
  intent: string | null;
  started_at: string;
  ended_at: string | null;
  status: RunStatus;
  replans: number;
  loss: Loss | null;
  /** A Law 1 gate fired during the run. */
  law1: boolean;
}

/** Everything the run put on the bus, in order: the UI replays it through the same reducer. */
export interface TaskReplay {
  run: TaskRun;
  envelopes: Envelope[];
}

// ---- settings --------------------------------------------------------------------

export type KeyTier = 'brain' | 'tool';

export interface KeyStatus {
  /** A key is stored for this tier (its value never leaves the backend). */
  stored: boolean;
}

export interface KeychainInfo {
  available: boolean;
  /** "macOS Keychain", "Secret Service", … or why there is none. */
  backend: string;
}

export interface SettingsView {
  settings: Settings;
  keys: Record<KeyTier, KeyStatus>;
  keychain: KeychainInfo;
  settings_path: string;
}

export type KeyChange = { kind: 'keep' } | { kind: 'set'; key: string } | { kind: 'clear' };

export interface SettingsUpdate {
  settings: Settings_Deserialize;
  keys: Record<KeyTier, KeyChange>;
}

export interface ProviderPreset {
  id: string;
  name: string;
  base_url: string;
  brain_model: string;
  tool_model: string;
  needs_key: boolean;
}

// ---- the command map ---------------------------------------------------------------

type NoArgs = Record<string, never>;

/** Every command: its arguments (snake_case keys) and what it resolves to. */
export interface Commands {
  submit_task: { args: { text: string }; result: TaskId };
  cancel_task: { args: { task_id: TaskId }; result: null };
  answer_clarification: { args: { task_id: TaskId; answer: string }; result: null };
  answer_confirmation: { args: { request_id: RequestId; decision: Decision }; result: null };
  memory_groups: { args: NoArgs; result: MemoryMap };
  memory_group: { args: { space: string; entity: string }; result: MemoryGroupDetail };
  memory_remember: {
    args: { level: Level; space: string; entity: string; content: string };
    result: Megram;
  };
  memory_forget: { args: { target: ForgetTarget }; result: number };
  memory_pin: { args: { id: MegramId }; result: Megram };
  audit_reports: { args: NoArgs; result: AuditReport[] };
  audit_report: { args: { id: ReportId }; result: AuditReport };
  audit_events: { args: { filter: AuditEventFilter }; result: AuditEventPage };
  audit_query: { args: NoArgs; result: AuditReport };
  audit_verify: { args: NoArgs; result: ChainVerification };
  task_runs: { args: NoArgs; result: TaskRun[] };
  task_replay: { args: { run_id: string }; result: TaskReplay };
  get_settings: { args: NoArgs; result: SettingsView };
  save_settings: { args: { update: SettingsUpdate }; result: SettingsView };
  provider_presets: { args: NoArgs; result: ProviderPreset[] };
  hide_popup: { args: NoArgs; result: null };
  open_panel: { args: { tab: PanelTab; focus: PanelFocus | null }; result: null };
}

export type CommandName = keyof Commands;
export type CommandArgs<C extends CommandName> = Commands[C]['args'];
export type CommandResult<C extends CommandName> = Commands[C]['result'];

export const COMMAND_NAMES: readonly CommandName[] = [
  'submit_task',
  'cancel_task',
  'answer_clarification',
  'answer_confirmation',
  'memory_groups',
  'memory_group',
  'memory_remember',
  'memory_forget',
  'memory_pin',
  'audit_reports',
  'audit_report',
  'audit_events',
  'audit_query',
  'audit_verify',
  'task_runs',
  'task_replay',
  'get_settings',
  'save_settings',
  'provider_presets',
  'hide_popup',
  'open_panel',
];
