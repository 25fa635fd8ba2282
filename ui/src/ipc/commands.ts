// The command surface of the desktop shell (src-tauri). Every DTO below is GENERATED from
// the shell's Rust types into ./bindings.ts by tauri-specta (CI fails when that file
// drifts); this module names them for the views and keeps the typed command map the
// backends implement. The map is checked against the generated commands at compile time
// (see the end of this file), so a changed command breaks `npm run typecheck`.

import type {
  commands as generatedCommands,
  SettingsUpdate_Deserialize,
} from './bindings';
import type {
  ApprovalScope,
  AuditReport,
  Decision,
  EffectClass,
  GrantSubject,
  TierConfig,
  Level,
  Megram,
  MegramId,
  ReportId,
  RequestId,
  TaskId,
} from './contracts';
import type {
  AuditEventFilter,
  AuditEventPage,
  ChainVerification,
  ConnectionTest,
  EffectGrant,
  Finding,
  Grant,
  KindHistory,
  McpImport,
  McpServerStatus,
  ModelStatus,
  ForgetTarget,
  MemoryGroupDetail,
  MemoryMap,
  PanelFocus,
  PanelTab,
  ProviderPreset,
  ScheduleView,
  SettingsView,
  Submitted,
  TaskReplay,
  TaskRun,
  TasksLike,
  UndoDone,
  UndoPreview,
} from './bindings';

export type {
  AnomalyKind,
  AuditEvent,
  AuditEventFilter,
  AuditEventPage,
  ChainVerification,
  ConnectionTest,
  DeliveryTrend,
  DescribedEnvelope,
  EffectGrant,
  Finding,
  ForgetTarget,
  Grant,
  KeyChange,
  KeychainInfo,
  KeyStatus,
  KindHistory,
  McpImport,
  McpServerStatus,
  McpToolStatus,
  MegramView,
  MemoryGroup,
  MemoryGroupDetail,
  MemoryMap,
  MemoryThresholds,
  ModelPhase,
  ModelProgress,
  ModelSourceKind,
  ModelStatus,
  PanelFocus,
  PanelTab,
  ProviderPreset,
  RecallRef,
  Rule,
  RunStatus,
  SandboxInfo,
  Schedule,
  ScheduledRun,
  ScheduleView,
  SettingsView,
  Submitted,
  TaskReplay,
  TaskRun,
  TasksLike,
  UndoDone,
  UndoPreview,
  UndoStep,
} from './bindings';

/** The model tiers that hold an API key. */
export type KeyTier = keyof SettingsView['keys'];

/** What `save_settings` takes (the shapes serde reads). */
export type SettingsUpdate = SettingsUpdate_Deserialize;

// ---- the command map ---------------------------------------------------------------

type NoArgs = Record<string, never>;

/** Every command: its arguments (snake_case keys) and what it resolves to. */
export interface Commands {
  submit_task: { args: { text: string }; result: TaskId };
  /** The popup's input: a task that runs now, or a schedule kept when the text says when it
   * should run (nothing runs now then). */
  submit_input: { args: { text: string }; result: Submitted };
  cancel_task: { args: { task_id: TaskId }; result: null };
  answer_clarification: { args: { task_id: TaskId; answer: string }; result: null };
  answer_confirmation: { args: { request_id: RequestId; decision: Decision; scope: ApprovalScope | null }; result: null };
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
  tasks_like: { args: { text: string }; result: TasksLike | null };
  task_kinds: { args: NoArgs; result: KindHistory[] };
  undo_preview: { args: { task_id: TaskId | null }; result: UndoPreview };
  undo_task: { args: { task_id: TaskId }; result: UndoDone };
  get_settings: { args: NoArgs; result: SettingsView };
  save_settings: { args: { update: SettingsUpdate }; result: SettingsView };
  provider_presets: { args: NoArgs; result: ProviderPreset[] };
  model_status: { args: NoArgs; result: ModelStatus };
  doctor: { args: NoArgs; result: Finding[] };
  test_connection: { args: { tier: TierConfig; key: string | null }; result: ConnectionTest };
  choose_model: { args: { tier: TierConfig | null; key: string | null }; result: ModelStatus };
  mcp_status: { args: NoArgs; result: McpServerStatus[] };
  mcp_import: { args: { json: string }; result: McpImport };
  mcp_grants: { args: NoArgs; result: Grant[] };
  mcp_revoke: { args: { subject: GrantSubject }; result: Grant[] };
  /** The standing grants by effect, oldest first (panels window only, like the MCP grants). */
  effect_grants: { args: NoArgs; result: EffectGrant[] };
  /** Revokes one grant by effect; the remaining ones come back (panels window only). */
  effect_revoke: { args: { effect_class: EffectClass }; result: EffectGrant[] };
  /** Every schedule, oldest first, with when it runs next (popup and panels window). */
  schedules: { args: NoArgs; result: ScheduleView[] };
  /** Removes one schedule; the remaining ones come back (`not_found` for an unknown id). */
  schedule_remove: { args: { id: string }; result: ScheduleView[] };
  /** Sets how long a schedule's question waits for an answer, in minutes; every schedule comes back (panels window only). */
  schedule_window: { args: { id: string; minutes: number }; result: ScheduleView[] };
  hide_popup: { args: NoArgs; result: null };
  open_panel: { args: { tab: PanelTab; focus: PanelFocus | null }; result: null };
}

export type CommandName = keyof Commands;
export type CommandArgs<C extends CommandName> = Commands[C]['args'];
export type CommandResult<C extends CommandName> = Commands[C]['result'];

export const COMMAND_NAMES: readonly CommandName[] = [
  'submit_task',
  'submit_input',
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
  'tasks_like',
  'task_kinds',
  'undo_preview',
  'undo_task',
  'get_settings',
  'save_settings',
  'provider_presets',
  'model_status',
  'doctor',
  'test_connection',
  'choose_model',
  'mcp_status',
  'mcp_import',
  'mcp_grants',
  'mcp_revoke',
  'effect_grants',
  'effect_revoke',
  'schedules',
  'schedule_remove',
  'schedule_window',
  'hide_popup',
  'open_panel',
];

// ---- compile-time agreement with the generated bindings -----------------------------

type Camel<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type Generated = typeof generatedCommands;
type Resolved<C extends CommandName> = Awaited<ReturnType<Generated[Camel<C>]>>;
type Data<T> = T extends { status: 'ok'; data: infer D } ? D : T extends { status: 'error' } ? never : T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Arity<C extends CommandName> = Parameters<Generated[Camel<C>]>['length'];
type KeyCount<T, K extends unknown[] = []> = [T] extends [Record<string, never>]
  ? K['length']
  : { [P in keyof T]: KeyCount<Omit<T, P>, [...K, P]> }[keyof T];

/** true for each command whose result and argument count match the generated binding. */
type Agreement = {
  [C in CommandName]: Same<CommandResult<C>, Data<Resolved<C>>> extends true
    ? Same<Arity<C>, KeyCount<CommandArgs<C>>> extends true
      ? true
      : ['argument count differs from bindings.ts', C]
    : ['result differs from bindings.ts', C];
};
/** Every generated command the map leaves out must be one of the stream commands. */
type Unmapped = Exclude<keyof Generated, Camel<CommandName>>;
const agreement: { [C in CommandName]: true } = {} as Agreement;
const unmapped: 'subscribeEvents' | 'unsubscribeEvents' = '' as Unmapped;
void agreement;
void unmapped;
