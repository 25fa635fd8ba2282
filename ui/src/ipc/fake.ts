// An in-memory Backend that behaves like the shell over a running core: a bus with
// sequence numbers, task runs played back from golden recordings of the real runtime
// (fake/recorded.ts: chat, clarification, replan, Law 1 approve / deny / Trash / cancel,
// abandon) with the core's own fold of each run for replay, the memory store and the
// auditor's log and reports as the runtime left them after those runs (fake/memory.ts,
// fake/audit.ts), settings with a keychain, and schedules kept by a fixed rule rather than
// read from the text (fake/schedules.ts says which). The browser preview and every UI test
// run against it.

import { FakeStatus } from './fake/status';
import type {
  ApprovalScope,
  AuditReport,
  ConfirmationRequest,
  EffectClass,
  GrantSubject,
  Decision,
  DecisionSource,
  Megram,
  Settings,
} from './contracts';
import {
  type Backend,
  IpcError,
  type UiEvent,
  type Unsubscribe,
} from './backend';
import type {
  CommandArgs,
  CommandName,
  CommandResult,
  ConnectionTest,
  DescribedEnvelope,
  EffectGrant,
  Finding,
  Grant,
  KeyTier,
  McpImport,
  McpServerStatus,
  ModelStatus,
  PanelFocus,
  PanelTab,
  ScheduleView,
  SettingsView,
  Submitted,
  TaskRun,
  UndoDone,
  UndoPreview,
  UndoStep,
} from './commands';
import type { Stage, Trajectory } from './bindings';
import { RecordedAuditLog } from './fake/audit';
import { byKind, counted, type CountedRun, like, likeLine } from './fake/kinds';
import { RecordedMemory, type Source } from './fake/memory';
import {
  AFTER_DECISION,
  CANCELLED_AT_LAW1,
  paceMs,
  RECORDED_AT,
  recording,
  type RecordedRun,
  type RecordedStep,
  type Recording,
  Rekey,
  type ScenarioName,
  scenarioFor,
  taskRun,
} from './fake/recorded';
import { FakeSchedules, madeMessage, scheduledTask, type SeededSchedule } from './fake/schedules';
import { defaultSettings, PROVIDER_PRESETS } from './fake/seed';
import { DAY_MS, IdMint, iso } from './fake/support';

export interface FakeOptions {
  /** Time scale of scripted runs: 2 runs them twice as fast. Law 1 timeouts are not scaled. */
  speed?: number;
  /** Wall clock in ms (tests pass a fake). */
  now?: () => number;
  /** Seed a week of history: recorded runs, with the memory and audit they left. */
  seed?: boolean;
  /** Whether an OS keychain exists. */
  keychain?: boolean;
  /**
   * How the model starts: `ready` (a configured provider that answers), `first_run` (no
   * settings saved yet: the onboarding view asks), `unreachable` (a provider that does not
   * answer).
   */
  model?: 'ready' | 'first_run' | 'unreachable';
  /** The UI language of the fake's settings. */
  language?: 'en' | 'zh-CN';
  /** Whether Law 1's sandbox works (off: every unproven command asks, and the app says so). */
  sandbox?: boolean;
  /** Window requests the shell would carry out (the browser preview shows them). */
  onWindow?: (request: { kind: 'hide_popup' } | { kind: 'open_panel'; tab: PanelTab; focus: PanelFocus | null }) => void;
}

interface RunRecord {
  run: TaskRun;
  envelopes: DescribedEnvelope[];
  /** The recording's fold of the run, re-keyed; null until the run closed. */
  trajectory: Trajectory | null;
}

/** The user's answer to a Law 1 request, as the broker publishes it. */
interface Answer {
  decision: Decision;
  source: DecisionSource;
  scope: ApprovalScope;
}

/** A task being played from a recording. */
interface PlayedTask {
  taskId: string;
  /** The task id in the recordings. */
  recordedTask: string;
  scenario: ScenarioName;
  record: RunRecord;
  rekey: Rekey;
  /** False while seeding: no waiting, the recorded answers. */
  live: boolean;
  timers: Set<ReturnType<typeof setTimeout>>;
  /** Ends the current pause early (a cancel). */
  wake: (() => void) | null;
  waiting:
    | { kind: 'confirmation'; request: ConfirmationRequest; resolve: (answer: Answer | null) => void }
    | { kind: 'clarification'; resolve: (answer: string | null) => void }
    | null;
  cancelled: boolean;
}

export class FakeBackend implements Backend {
  private readonly listeners = new Set<(event: UiEvent) => void>();
  private readonly ids = new IdMint(20260227);
  private readonly options: Required<Omit<FakeOptions, 'onWindow'>> & Pick<FakeOptions, 'onWindow'>;
  private settings: Settings = defaultSettings();
  private readonly keys: Record<KeyTier, boolean> = { brain: false, tool: false };
  private grants: Grant[] = [];
  /** Standing grants by effect ("deleting .tmp files under ~/Downloads"), oldest first. */
  private effectGrants: EffectGrant[] = [];
  /** Schedules kept from the popup's input (never run by the fake). */
  private readonly schedules = new FakeSchedules();
  private readonly memory = new RecordedMemory();
  private readonly log: DescribedEnvelope[] = [];
  private readonly audit = new RecordedAuditLog();
  /** The last recorded run played: the on-demand reports and operator answers it holds. */
  private latest: (Source & { name: ScenarioName; asked: number }) | null = null;
  private readonly runs = new Map<string, RunRecord>();
  /** Tasks undone, with the undo that took each back. */
  private readonly undone = new Map<string, string>();
  private readonly live = new Map<string, PlayedTask>();
  private seq = 0;
  private readonly status = new FakeStatus();
  private model: ModelStatus;
  /** While seeding history, the clock is virtual and nothing reaches listeners. */
  private virtualNow: number | null = null;
  private readonly ready: Promise<void>;

  constructor(options: FakeOptions = {}) {
    this.options = {
      speed: options.speed ?? 1,
      now: options.now ?? (() => Date.now()),
      seed: options.seed ?? true,
      keychain: options.keychain ?? true,
      model: options.model ?? 'ready',
      language: options.language ?? 'en',
      sandbox: options.sandbox ?? true,
      onWindow: options.onWindow,
    };
    this.settings.ui.language = this.options.language;
    this.model = initialModel(this.options.model, this.settings);
    this.ready = this.options.seed ? this.seedHistory() : Promise.resolve();
  }

  private now(): number {
    return this.virtualNow ?? this.options.now();
  }

  // ---- Backend -------------------------------------------------------------------

  subscribe(listener: (event: UiEvent) => void): Unsubscribe {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async invoke<C extends CommandName>(command: C, args: CommandArgs<C>): Promise<CommandResult<C>> {
    await this.ready;
    // Every branch returns the result type of its command; the map is checked in commands.ts.
    return (await this.dispatch(command, args as never)) as CommandResult<C>;
  }

  /** Clears every timer (tests call it so nothing outlives them). */
  dispose(): void {
    for (const task of this.live.values()) this.stopTask(task);
    this.live.clear();
    this.listeners.clear();
  }

  /** Every envelope published so far (tests assert on the bus transcript). */
  transcript(): readonly DescribedEnvelope[] {
    return this.log;
  }

  // ---- commands ------------------------------------------------------------------

  private async dispatch(command: CommandName, args: never): Promise<unknown> {
    switch (command) {
      case 'submit_task':
        return this.submit((args as CommandArgs<'submit_task'>).text);
      case 'submit_input':
        return this.submitInput((args as CommandArgs<'submit_input'>).text);
      case 'cancel_task':
        return this.cancel((args as CommandArgs<'cancel_task'>).task_id);
      case 'answer_clarification': {
        const a = args as CommandArgs<'answer_clarification'>;
        return this.answerClarification(a.task_id, a.answer);
      }
      case 'answer_confirmation': {
        const a = args as CommandArgs<'answer_confirmation'>;
        return this.answerConfirmation(a.request_id, a.decision, a.scope);
      }
      case 'memory_groups':
        return {
          thresholds: {
            attention_floor: this.settings.memory.attention_floor ?? 0.5,
            exploit_above: this.settings.memory.exploit_above ?? 0.2,
            avoid_below: this.settings.memory.avoid_below ?? -0.2,
          },
          groups: this.memory.groups(),
        };
      case 'memory_group': {
        const a = args as CommandArgs<'memory_group'>;
        const detail = this.memory.detail(a.space, a.entity, this.now(), [...this.runs.values()]);
        if (!detail) throw new IpcError('not_found', `no memory group ${a.space} / ${a.entity}`);
        return detail;
      }
      case 'memory_remember':
        return this.remember(args as CommandArgs<'memory_remember'>);
      case 'memory_forget':
        return this.forget(args as CommandArgs<'memory_forget'>);
      case 'memory_pin':
        return this.pin((args as CommandArgs<'memory_pin'>).id);
      case 'audit_reports':
        return this.audit.reports();
      case 'audit_report': {
        const { id } = args as CommandArgs<'audit_report'>;
        const report = this.audit.report(id);
        if (!report) throw new IpcError('not_found', `no audit report ${id}`);
        return report;
      }
      case 'audit_events':
        return this.audit.page((args as CommandArgs<'audit_events'>).filter);
      case 'audit_query':
        return this.ask(true);
      case 'audit_verify':
        return this.audit.verify(iso(this.now()));
      case 'task_runs':
        return [...this.runs.values()].map((r) => r.run).reverse();
      case 'task_replay': {
        const { run_id } = args as CommandArgs<'task_replay'>;
        const record = this.runs.get(run_id);
        if (!record) throw new IpcError('not_found', `no task run ${run_id}`);
        return { run: record.run, trajectory: record.trajectory ?? unfolded(record.run), envelopes: [...record.envelopes] };
      }
      case 'tasks_like': {
        const history = like(this.countedRuns(), (args as CommandArgs<'tasks_like'>).text);
        return history ? { line: likeLine(history, this.settings.ui.language === 'zh-CN' ? 'zh-CN' : 'en'), history } : null;
      }
      case 'task_kinds':
        return byKind(this.countedRuns());
      case 'undo_preview':
        return this.undoPreview((args as CommandArgs<'undo_preview'>).task_id);
      case 'undo_task':
        return this.undoTask((args as CommandArgs<'undo_task'>).task_id);
      case 'get_settings':
        return this.settingsView();
      case 'save_settings':
        return this.saveSettings(args as CommandArgs<'save_settings'>);
      case 'provider_presets':
        return PROVIDER_PRESETS;
      case 'model_status':
        return structuredClone(this.model);
      case 'doctor':
        return this.doctor();
      case 'test_connection':
        return this.testConnection(args as CommandArgs<'test_connection'>);
      case 'choose_model':
        return this.chooseModel(args as CommandArgs<'choose_model'>);
      case 'mcp_status':
        return this.mcpStatus();
      case 'mcp_import':
        return importMcpServers((args as CommandArgs<'mcp_import'>).json);
      case 'mcp_grants':
        return structuredClone(this.grants);
      case 'mcp_revoke': {
        const { subject } = args as CommandArgs<'mcp_revoke'>;
        this.grants = this.grants.filter((g) => JSON.stringify(g.subject) !== JSON.stringify(subject));
        return structuredClone(this.grants);
      }
      case 'effect_grants':
        return structuredClone(this.effectGrants);
      case 'effect_revoke': {
        const { effect_class: revoked } = args as CommandArgs<'effect_revoke'>;
        this.effectGrants = this.effectGrants.filter((g) => !sameClass(g.class, revoked));
        return structuredClone(this.effectGrants);
      }
      case 'schedules':
        return this.schedules.views(this.now());
      case 'schedule_remove':
        return this.schedules.remove((args as CommandArgs<'schedule_remove'>).id, this.now());
      case 'schedule_window': {
        const { id, minutes } = args as CommandArgs<'schedule_window'>;
        return this.schedules.setWindow(id, minutes, this.now());
      }
      case 'hide_popup':
        this.options.onWindow?.({ kind: 'hide_popup' });
        return null;
      case 'open_panel': {
        const { tab, focus } = args as CommandArgs<'open_panel'>;
        this.options.onWindow?.({ kind: 'open_panel', tab, focus });
        this.emit({ kind: 'navigate', tab, focus });
        return null;
      }
    }
  }

  // ---- the bus -------------------------------------------------------------------

  private emit(event: UiEvent): void {
    if (this.virtualNow !== null) return;
    for (const listener of [...this.listeners]) listener(event);
  }

  /** Publishes a recorded envelope of no task (an audit query or report, an operator
   * change), re-keyed by `rekey`, on the fake's clock and seq. */
  private publishAs(recorded: DescribedEnvelope, rekey: Rekey, edit: <T>(value: T) => T = (v) => v): DescribedEnvelope {
    const fresh = edit(rekey.value(recorded, this.now() - Date.parse(recorded.timestamp)));
    this.seq += 1;
    const envelope: DescribedEnvelope = { ...fresh, seq: this.seq, timestamp: iso(this.now()) };
    this.log.push(envelope);
    this.emit({ kind: 'envelope', envelope, status: this.status.line(envelope, this.settings.ui.language === 'zh-CN' ? 'zh-CN' : 'en') });
    return envelope;
  }

  // ---- tasks ---------------------------------------------------------------------
  //
  // A task is a golden recording played back (fake/recorded.ts): its envelopes, re-keyed
  // to fresh ids and the fake's clock and seq, published one by one at the fake's pace.
  // At a Law 1 request the playback waits for the user and goes on with the recording
  // whose recorded answer is the user's (approve, deny or Move to Trash; a request that
  // expires goes on as denied); at a clarifying question it waits for the answer. The
  // decision and the answer are published as the user gave them, as the shell would. A
  // cancel while a Law 1 request is open plays the recorded cancel; elsewhere the fake
  // closes the task as the runtime does (TaskClosed, cancelled).

  private newRun(taskId: string, rawInput: string): RunRecord {
    const record: RunRecord = {
      run: {
        run_id: `${iso(this.now()).replace(/[-:]/g, '')}_${this.ids.uuid().slice(0, 12).replace('-', '0')}_${taskId}.jsonl`,
        task_id: taskId,
        raw_input: rawInput,
        intent: null,
        started_at: iso(this.now()),
        ended_at: null,
        status: 'open',
        replans: 0,
        loss: null,
        law1: false,
      },
      envelopes: [],
      trajectory: null,
    };
    this.runs.set(record.run.run_id, record);
    return record;
  }

  /** The played run's row and fold: the recording's, re-keyed, on the fake's clock. */
  private finishRun(task: PlayedTask, played: Recording): void {
    const record = task.record;
    const started = Date.parse(record.run.started_at);
    const ended = record.envelopes.at(-1)?.timestamp ?? iso(this.now());
    const shift = started - RECORDED_AT;
    const summary = task.rekey.value(played.run.summary, shift);
    const trajectory = task.rekey.value(played.run.trajectory, shift);
    trajectory.ended_at = ended;
    trajectory.elapsed_ms = Date.parse(ended) - started;
    record.run = { ...taskRun(summary), run_id: record.run.run_id, started_at: record.run.started_at, ended_at: ended };
    record.trajectory = trajectory;
    // What the auditor logged of the run up to the first query after it, and the memory
    // the run left.
    const audit = played.run.audit;
    if (audit.verify.broken !== null) throw new Error(`${played.name}: the recorded chain is broken`);
    const firstQuery = audit.events.findIndex((e) => e.kind === 'AuditQuery');
    this.audit.append(task.rekey.value(audit.events.slice(0, firstQuery < 0 ? undefined : firstQuery), shift));
    const source: Source = { run: played.run, rekey: task.rekey, shift };
    this.memory.take(task.rekey.value(played.run.memory, shift), source);
    this.latest = { ...source, name: played.name, asked: 0 };
  }

  // ---- undo --------------------------------------------------------------------------
  //
  // The core plans an undo from its journal; the fake, which has none, plans it from the
  // effects the played run's result lists (a new file is removed, a deleted or replaced
  // one put back), and remembers which tasks it undid.

  private undoSteps(taskId: string): UndoStep[] {
    const result = [...this.runs.values()]
      .filter((r) => r.run.task_id === taskId)
      .flatMap((r) => r.envelopes)
      .map((e) => e.message)
      .find((m) => m.type === 'FinalResult');
    const effects = result?.type === 'FinalResult' ? (result.payload.effects ?? []) : [];
    return [...effects].reverse().map((e): UndoStep => {
      if (e.effect === 'create') return { kind: 'remove', path: e.path };
      if (e.effect === 'delete') return { kind: 'put_back', path: e.path };
      return { kind: 'restore', path: e.path };
    });
  }

  /** The fake's own runs that a kind's history counts (fake/kinds.ts). */
  private countedRuns(): CountedRun[] {
    return [...this.runs.values()].flatMap((r) => counted(r.run, r.trajectory) ?? []);
  }

  private undoPreview(taskId: string | null): UndoPreview {
    const id = taskId ?? [...this.runs.values()].map((r) => r.run.task_id).reverse().find((t) => !this.undone.has(t) && this.undoSteps(t).length > 0) ?? null;
    if (id === null) return { task_id: null, steps: [], lasting: [], refused: null };
    const undoneBy = this.undone.get(id);
    if (undoneBy) return { task_id: id, steps: [], lasting: [], refused: `${id} was already undone (by ${undoneBy}; undo that to redo it)` };
    const steps = this.undoSteps(id);
    if (steps.length === 0) return { task_id: id, steps: [], lasting: [], refused: `artoo's journal holds no change to your files by ${id}` };
    return { task_id: id, steps, lasting: [], refused: null };
  }

  private undoTask(taskId: string): UndoDone {
    const preview = this.undoPreview(taskId);
    if (preview.refused) throw new IpcError('forbidden', preview.refused);
    const undoId = `undo-${this.ids.uuid().replaceAll('-', '').slice(0, 32)}`;
    this.undone.set(taskId, undoId);
    return { undo_id: undoId, count: preview.steps.length };
  }

  private submit(text: string): string {
    const raw = text.trim();
    if (raw.length === 0) throw new IpcError('invalid_input', 'the task is empty');
    if (this.live.size > 0) throw new IpcError('busy', 'a task is already running; cancel it or wait for its result');
    const task = this.startTask(scenarioFor(raw), true);
    this.live.set(task.taskId, task);
    void this.play(task, recording(task.scenario), 0).finally(() => this.live.delete(task.taskId));
    return task.taskId;
  }

  /**
   * The popup's input: a schedule kept when the text passes the fake's fixed rule
   * (fake/schedules.ts: it starts with "every " and has a comma), a task as submit_task
   * runs it otherwise.
   */
  private submitInput(text: string): Submitted {
    const raw = text.trim();
    if (raw.length === 0) throw new IpcError('invalid_input', 'the task is empty');
    const task = scheduledTask(raw);
    if (task === null) return { kind: 'task', task_id: this.submit(raw) };
    const schedule = this.schedules.add(task, this.now());
    return { kind: 'scheduled', schedule, message: madeMessage(schedule) };
  }

  private startTask(scenario: ScenarioName, live: boolean): PlayedTask {
    const first = recording(scenario);
    const rekey = new Rekey(this.ids);
    const recordedTask = first.run.summary.task_id;
    const taskId = rekey.id(recordedTask);
    const record = this.newRun(taskId, first.run.summary.raw_input ?? '');
    return { taskId, recordedTask, scenario, record, rekey, live, timers: new Set(), wake: null, waiting: null, cancelled: false };
  }

  /** Plays `from` onwards of `played`'s traffic of the task; returns when the task closed. */
  private async play(task: PlayedTask, played: Recording, from: number): Promise<void> {
    const envelopes = played.transcript;
    for (let i = from; i < envelopes.length; i++) {
      const recorded = envelopes[i];
      if (!recorded || recorded.task_id !== task.recordedTask) continue;
      await this.pause(task, paceMs(recorded));
      if (task.cancelled) return;
      const m = recorded.message;
      if (m.type === 'ConfirmationRequest') {
        const request = this.publishRecorded(task, recorded).message;
        if (request.type !== 'ConfirmationRequest') return;
        const answer = await this.awaitConfirmation(task, request.payload);
        if (answer === null) return;
        const next = recording(AFTER_DECISION[answer.decision]);
        const at = next.transcript.findIndex((e) => e.message.type === 'ConfirmationRequest');
        const decision = next.transcript[at + 1];
        if (!decision || decision.message.type !== 'ConfirmationDecision') throw new Error(`${next.name}: no decision after the request`);
        this.publishRecorded(task, decision, (payload) => ({ ...payload, ...answer }));
        await this.play(task, next, at + 2);
        return;
      }
      if (m.type === 'ClarificationRequest') {
        this.publishRecorded(task, recorded);
        const answer = await this.awaitClarification(task);
        if (answer === null) return;
        const reply = envelopes[i + 1];
        if (!reply || reply.message.type !== 'ClarificationAnswer') throw new Error(`${played.name}: no answer after the question`);
        this.publishRecorded(task, reply, (payload) => ({ ...payload, answer }));
        i += 1;
        continue;
      }
      this.publishRecorded(task, recorded);
      if (m.type === 'TaskClosed') {
        this.finishRun(task, played);
        return;
      }
    }
  }

  /** Publishes one recorded envelope of `task`, re-keyed, on the fake's clock and seq. */
  private publishRecorded(task: PlayedTask, recorded: DescribedEnvelope, edit?: (payload: Record<string, unknown>) => unknown): DescribedEnvelope {
    const shift = this.now() - Date.parse(recorded.timestamp);
    const fresh = task.rekey.value(recorded, shift);
    if (edit) (fresh.message as { payload: unknown }).payload = edit(fresh.message.payload as unknown as Record<string, unknown>);
    this.seq += 1;
    const envelope: DescribedEnvelope = { ...fresh, id: fresh.id, seq: this.seq, timestamp: iso(this.now()) };
    this.log.push(envelope);
    task.record.envelopes.push(envelope);
    this.emit({ kind: 'envelope', envelope, status: this.status.line(envelope, this.settings.ui.language === 'zh-CN' ? 'zh-CN' : 'en') });
    return envelope;
  }

  /** Waits `ms` (scaled by speed) while live; advances the virtual clock while seeding. */
  private pause(task: PlayedTask, ms: number): Promise<void> {
    if (!task.live) {
      this.virtualNow = (this.virtualNow ?? this.now()) + ms;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        task.timers.delete(timer);
        task.wake = null;
        resolve();
      }, ms / this.options.speed);
      task.timers.add(timer);
      task.wake = resolve;
    });
  }

  private awaitConfirmation(task: PlayedTask, request: ConfirmationRequest): Promise<Answer | null> {
    if (!task.live) {
      // Seeding plays a recording straight through: the answer it recorded.
      const recorded = recording(task.scenario).transcript.find((e) => e.message.type === 'ConfirmationDecision')?.message;
      const decision = recorded?.type === 'ConfirmationDecision' ? recorded.payload.decision : 'approve';
      return Promise.resolve({ decision, source: 'user', scope: 'once' });
    }
    return new Promise((resolve) => {
      const wait = Math.max(0, Date.parse(request.expires_at) - this.now());
      const timer = setTimeout(() => {
        task.timers.delete(timer);
        task.waiting = null;
        resolve({ decision: 'deny', source: 'timeout', scope: 'once' });
      }, wait);
      task.timers.add(timer);
      task.waiting = { kind: 'confirmation', request, resolve: (a) => { clearTimeout(timer); task.timers.delete(timer); resolve(a); } };
    });
  }

  private awaitClarification(task: PlayedTask): Promise<string | null> {
    if (!task.live) {
      const recorded = recording(task.scenario).transcript.find((e) => e.message.type === 'ClarificationAnswer')?.message;
      return Promise.resolve(recorded?.type === 'ClarificationAnswer' ? recorded.payload.answer : '');
    }
    return new Promise((resolve) => {
      task.waiting = { kind: 'clarification', resolve };
    });
  }

  private stopTask(task: PlayedTask): void {
    task.cancelled = true;
    for (const timer of task.timers) clearTimeout(timer);
    task.timers.clear();
    task.wake?.();
    task.wake = null;
    const waiting = task.waiting;
    task.waiting = null;
    if (waiting?.kind === 'confirmation') waiting.resolve(null);
    if (waiting?.kind === 'clarification') waiting.resolve(null);
  }

  private cancel(taskId: string): null {
    const task = this.live.get(taskId);
    if (!task) throw new IpcError('not_found', `task ${taskId} is not running`);
    const atLaw1 = task.waiting?.kind === 'confirmation';
    this.stopTask(task);
    const cancelled = recording(CANCELLED_AT_LAW1);
    if (atLaw1) {
      // As recorded: TaskClosed to every role, then the open request denied as dropped.
      const at = cancelled.transcript.findIndex((e) => e.message.type === 'ConfirmationRequest');
      for (const e of cancelled.transcript.slice(at + 1)) if (e.task_id === task.recordedTask) this.publishRecorded(task, e);
      this.finishRun(task, cancelled);
    } else {
      const closed = cancelled.transcript.find((e) => e.message.type === 'TaskClosed');
      if (closed) this.publishRecorded(task, closed);
      task.record.run = { ...task.record.run, status: 'cancelled', ended_at: iso(this.now()) };
    }
    this.live.delete(taskId);
    return null;
  }

  private answerClarification(taskId: string, answer: string): null {
    const task = this.live.get(taskId);
    const waiting = task?.waiting;
    if (!task || waiting?.kind !== 'clarification') throw new IpcError('not_found', `task ${taskId} is not waiting for a clarification`);
    task.waiting = null;
    waiting.resolve(answer);
    return null;
  }

  private async answerConfirmation(requestId: string, decision: Decision, asked: ApprovalScope | null): Promise<null> {
    for (const task of this.live.values()) {
      const waiting = task.waiting;
      if (waiting?.kind !== 'confirmation' || waiting.request.request_id !== requestId) continue;
      if (decision === 'trash' && !waiting.request.can_trash) {
        throw new IpcError('invalid_input', 'this action cannot be answered with Move to Trash');
      }
      // The broker takes a moment to publish: the UI must wait for the decision on the bus.
      await new Promise((resolve) => setTimeout(resolve, 120 / this.options.speed));
      if (task.waiting !== waiting) break;
      task.waiting = null;
      // As the broker does: a scope the request did not offer is this call only.
      const scope: ApprovalScope = asked !== null && waiting.request.scopes.includes(asked) ? asked : 'once';
      if (decision === 'approve' && scope === 'always' && waiting.request.grant) {
        this.grants = [...this.grants, { subject: waiting.request.grant, granted_at: iso(this.now()) }];
      } else if (decision === 'approve' && scope === 'always' && waiting.request.effect_grant) {
        this.grantEffect(waiting.request.effect_grant);
      }
      waiting.resolve({ decision, source: 'user', scope });
      return null;
    }
    throw new IpcError('not_found', 'this confirmation was already answered or has expired');
  }

  // ---- memory ------------------------------------------------------------------
  //
  // Served from what the memory operator API answered in the recordings (fake/memory.ts
  // says which actions that covers): the answer, the group afterwards, the change it
  // published and the auditor's event of it, re-keyed.

  /** The recorded step of the run `source` for this action, or `unavailable`. */
  private step(source: Source | null, matches: (s: RecordedStep) => boolean, what: string): RecordedStep {
    const step = source?.run.operator.steps.find(matches);
    if (!step) throw new IpcError('unavailable', `this preview plays recorded runs, and none of them recorded ${what}`);
    return step;
  }

  /** Publishes the change the recorded step about `recordedId` published, and appends the
   * auditor's event of it, both re-keyed by `rekey` (and edited by `edit`). */
  private changed(run: RecordedRun, recordedId: string, rekey: Rekey, edit: <T>(value: T) => T = (v) => v): void {
    const change = run.operator.changes.find((e) => e.message.type === 'MemoryOperatorChange' && e.message.payload.megram_ids.includes(recordedId));
    if (!change) return;
    this.publishAs(change, rekey, edit);
    const event = run.audit.events.find((e) => e.envelope_id === change.id);
    if (event) this.audit.append([edit(rekey.value(event, this.now() - Date.parse(event.at)))]);
  }

  private remember(a: CommandArgs<'memory_remember'>): Megram {
    const [space, entity, content] = [a.space.trim(), a.entity.trim(), a.content.trim()];
    if (content.length === 0 || space.length === 0 || entity.length === 0) {
      throw new IpcError('invalid_input', 'space, entity and content must not be empty');
    }
    const step = this.step(this.latest, (s) => s.action === 'remember' && s.level === a.level, `remembering at level ${a.level}`);
    if (step.action !== 'remember') throw new Error('not a remember step');
    if ('error' in step.result) throw new IpcError('invalid_input', step.result.error);
    const recorded = step.result.ok as Megram;
    if (this.memory.has(space, entity)) {
      throw new IpcError('unavailable', `this preview plays recorded runs, which remembered only into a new group; ${space} / ${entity} has entries`);
    }
    // What the user typed stands in for what the recorder typed, as a played answer to a
    // clarifying question does: the store keeps both verbatim, and a new group of one
    // entry has the same potentials whatever it says.
    const swap = <T,>(value: T): T => substitute(value, [
      [recorded.content, content],
      [`[${step.space} / ${step.entity}]`, `[${space} / ${entity}]`],
    ], { space, entity });
    // Fresh ids for the entry: remembering twice makes two entries.
    const fresh: Source = { run: (this.latest as Source).run, rekey: new Rekey(this.ids), shift: this.now() - RECORDED_AT };
    const megram = swap(fresh.rekey.value(recorded, fresh.shift));
    this.memory.put(space, entity, swap(fresh.rekey.value(step.after, fresh.shift)), fresh);
    this.changed(fresh.run, recorded.id, fresh.rekey, swap);
    return megram;
  }

  private pin(id: string): Megram {
    const found = this.memory.find(id);
    if (!found) throw new IpcError('not_found', `no Megram ${id}`);
    const step = this.step(found.source, (s) => s.action === 'pin' && found.source.rekey.id(s.id) === id, `pinning this entry`);
    if ('error' in step.result) throw new IpcError('invalid_input', found.source.rekey.value(step.result.error, 0));
    const pinned = found.source.rekey.value(step.result.ok as Megram, found.source.shift);
    this.memory.put(found.megram.space, found.megram.entity, found.source.rekey.value(step.after, found.source.shift), found.source);
    if (step.action === 'pin') this.changed(found.source.run, step.id, found.source.rekey);
    return pinned;
  }

  private forget(a: CommandArgs<'memory_forget'>): number {
    const target = a.target;
    if (target.kind === 'group') {
      throw new IpcError('unavailable', 'this preview plays recorded runs, and none of them recorded forgetting a whole group');
    }
    const found = this.memory.find(target.id);
    if (!found) throw new IpcError('not_found', `no Megram ${target.id}`);
    const step = this.step(found.source, (s) => s.action === 'forget' && found.source.rekey.id(s.id) === target.id, 'forgetting this entry');
    if ('error' in step.result) {
      throw new IpcError(found.megram.level === 'T' ? 'forbidden' : 'invalid_input', found.source.rekey.value(step.result.error, 0));
    }
    const report = step.result.ok as { forgotten: string[] };
    this.memory.put(found.megram.space, found.megram.entity, found.source.rekey.value(step.after, found.source.shift), found.source);
    if (step.action === 'forget') this.changed(found.source.run, step.id, found.source.rekey);
    return report.forgotten.length;
  }

  // ---- audit ---------------------------------------------------------------------

  /**
   * An on-demand report: the next one the auditor wrote after the last recorded run (it
   * was asked twice; an on-demand report closes no window, so both cover the run), its
   * query and report published and their events logged. A third has no recording.
   */
  private async ask(live: boolean): Promise<AuditReport> {
    const latest = this.latest;
    const pair = latest?.asked ?? 0;
    const asked = latest?.run.audit.asked ?? [];
    const [query, answer] = [asked[2 * pair], asked[2 * pair + 1]];
    if (!latest || !query || !answer) {
      throw new IpcError('unavailable', 'this preview plays recorded runs, and the auditor recorded no further report after the last one: run a task first');
    }
    latest.asked += 1;
    this.publishAs(query, latest.rekey);
    if (live) await new Promise((resolve) => setTimeout(resolve, 700 / this.options.speed));
    const published = this.publishAs(answer, latest.rekey);
    if (published.message.type !== 'AuditReport') throw new Error(`${latest.name}: no report after the query`);
    const report = published.message.payload;
    this.audit.keep(report);
    const events = latest.run.audit.events.filter((e) => e.envelope_id === query.id || e.envelope_id === answer.id);
    this.audit.append(latest.rekey.value(events, this.now() - RECORDED_AT));
    return report;
  }

  // ---- MCP servers -----------------------------------------------------------------

  /** The configured servers as a running core would report them: an enabled server
   * connects, a filesystem server offers its read and write tools. */
  private mcpStatus(): McpServerStatus[] {
    return Object.entries(this.settings.mcp.servers).map(([name, server]) => {
      const origin = server.url ?? [server.command ?? '', ...server.args].join(' ');
      const files = origin.includes('server-filesystem');
      return {
        name,
        origin,
        enabled: server.enabled,
        connected: server.enabled,
        error: null,
        tools: server.enabled && files
          ? [
              { name: `${name}.read_text_file`, summary: 'Read the complete contents of a file as text.', read_only: true, changed: false },
              { name: `${name}.write_file`, summary: 'Create a new file or completely overwrite an existing file with new content.', read_only: false, changed: false },
            ]
          : [],
      };
    });
  }

  /** Test hook: a standing grant, as an "always" approval leaves one. */
  grantAlways(subject: GrantSubject): void {
    this.grants = [...this.grants, { subject, granted_at: iso(this.now()) }];
  }

  /** Test hook: a standing grant by effect, as an "always" approval of a class of file
   * changes leaves one (`uses` and `last_used` say how often it already let one run). A
   * class already granted is not granted twice. */
  grantEffect(cls: EffectClass, used: { uses: number; last_used: string } | null = null): void {
    if (this.effectGrants.some((g) => sameClass(g.class, cls))) return;
    // Called from outside (a test), at the wall clock even while history is being seeded.
    const grant: EffectGrant = { class: structuredClone(cls), granted_at: iso(this.options.now()), uses: used?.uses ?? 0 };
    if (used) grant.last_used = used.last_used;
    this.effectGrants = [...this.effectGrants, grant];
  }

  /** Test hook: a schedule kept as if the user had made it (by default with the fake's
   * fixed rule, every weekday at 09:00; a `rule` needs its words in `when`). */
  seedSchedule(task: string, seeded: SeededSchedule = {}): ScheduleView {
    // Called from outside (a test), at the wall clock even while history is being seeded.
    return this.schedules.add(task, this.options.now(), seeded);
  }

  // ---- settings ------------------------------------------------------------------

  private settingsView(): SettingsView {
    return {
      settings: structuredClone(this.settings),
      keys: { brain: { stored: this.keys.brain }, tool: { stored: this.keys.tool } },
      keychain: this.options.keychain
        ? { available: true, backend: 'macOS Keychain' }
        : { available: false, backend: 'no keychain on this system: keys are read from BRAIN_API_KEY / TOOL_API_KEY / OPENAI_API_KEY only' },
      sandbox: this.options.sandbox
        ? { on: true, description: 'the sandbox is on (Seatbelt (sandbox-exec))' }
        : {
            on: false,
            description: 'the sandbox is off: bubblewrap (bwrap) is not installed. Every command artoo cannot prove harmless asks first.',
          },
      settings_path: '~/.artoo/settings.toml',
    };
  }

  private saveSettings(a: CommandArgs<'save_settings'>): SettingsView {
    const next = { ...defaultSettings(), ...structuredClone(a.update.settings) } as Settings;
    // As serde does: a field the update leaves out takes its default.
    next.laws = { ...defaultSettings().laws, ...next.laws };
    validate(next);
    for (const tier of ['brain', 'tool'] as const) {
      const change = a.update.keys[tier];
      if (change.kind === 'set') {
        if (!this.options.keychain) throw new IpcError('keychain_unavailable', 'no OS keychain is available on this system');
        if (change.key.trim().length === 0) throw new IpcError('invalid_input', `the ${tier} API key is empty`);
        this.keys[tier] = true;
      } else if (change.kind === 'clear') {
        this.keys[tier] = false;
      }
    }
    this.settings = next;
    this.startModel();
    return this.settingsView();
  }

  /** "Test connection": the fake answers any http(s) endpoint with a model, after 240 ms. */
  private async testConnection(a: CommandArgs<'test_connection'>): Promise<ConnectionTest> {
    await this.sleepMs(240);
    const { base_url: url, model } = a.tier;
    if (!url || !model) return { ok: false, model: null, latency_ms: 0, error: 'an endpoint URL and a model are both needed' };
    if (!/^https?:\/\/\S+$/.test(url) || url.includes('unreachable')) {
      return { ok: false, model: null, latency_ms: 240, error: `cannot connect to ${url}: connection refused` };
    }
    return { ok: true, model, latency_ms: 240, error: null };
  }

  /** The first-run choice: only the two tiers change; a provider must pass a test call. */
  private async chooseModel(a: CommandArgs<'choose_model'>): Promise<ModelStatus> {
    const empty = { base_url: null, model: null, enable_thinking: false };
    const tier = a.tier ? { base_url: a.tier.base_url ?? null, model: a.tier.model ?? null, enable_thinking: false } : empty;
    if (a.tier) {
      const test = await this.testConnection({ tier: a.tier, key: a.key });
      if (!test.ok) throw new IpcError('unavailable', `not saved: the test call failed: ${test.error ?? ''}`);
      if (a.key) {
        if (!this.options.keychain) throw new IpcError('keychain_unavailable', 'no OS keychain is available on this system');
        this.keys.brain = true;
        this.keys.tool = true;
      }
    }
    this.settings = { ...this.settings, llm: { ...this.settings.llm, brain: { ...tier }, tool: { ...tier } } };
    this.startModel();
    return structuredClone(this.model);
  }

  private sleepMs(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms / this.options.speed));
  }

  /** The check-up, as the shell reports it for the fake's state. */
  private doctor(): Finding[] {
    const ok = (topic: string, found: string): Finding => ({ topic, ok: true, found, fix: null });
    const ready = this.model.phase === 'ready';
    return [
      ok('model', this.model.source === 'built_in' ? `built-in ${this.model.model ?? ''}: weights checked, llama-server built` : `brain tier ${this.model.model ?? ''} at ${this.model.base_url ?? ''} answers (12 ms)`),
      ready
        ? ok('model server', `running, answering at ${this.model.base_url ?? ''}`)
        : { topic: 'model server', ok: false, found: `not ready (${this.model.phase})`, fix: 'wait for the model to start, or choose one in the popup or in Settings' },
      ok('speed', this.model.pace ?? 'speed not measured yet; time budget 5 min'),
      this.options.sandbox
        ? ok('sandbox', 'the sandbox is on (bubblewrap)')
        : { topic: 'sandbox', ok: false, found: 'the sandbox is off: bubblewrap is not installed', fix: 'on Linux install bubblewrap (apt install bubblewrap)' },
      ok('data dir', '~/.artoo: 1.2 MB (settings, memory, audit log, task logs, logs)'),
      ok('mcp', 'no MCP servers are configured'),
      ok('versions', 'artoo 0.1.0 on linux x86_64'),
      this.options.keychain
        ? ok('keychain', 'API keys are kept in macOS Keychain')
        : { topic: 'keychain', ok: false, found: 'no keychain on this system', fix: 'keys then come from the environment' },
    ];
  }

  private setModel(model: ModelStatus): void {
    this.model = model;
    this.emit({ kind: 'model', model: structuredClone(model) });
  }

  /** After a save: a provider is checked at once; the built-in model goes through its start. */
  private startModel(): void {
    const brain = this.settings.llm.brain;
    if (brain.base_url && brain.model) {
      this.setModel({ source: 'provider', phase: 'ready', model: brain.model, base_url: brain.base_url, detail: null, progress: null, first_run: false, pace: 'speed not measured yet; time budget 5 min' });
      return;
    }
    const name = this.settings.llm.local.model;
    const zh = this.settings.ui.language === 'zh-CN';
    const steps: { stage: Stage; done: number; total: number; text: string }[] = [
      { stage: 'check', done: 0, total: 22, text: zh ? `正在检查内置模型（${name}）…` : `Checking the built-in model (${name})…` },
      ...[0, 7, 14, 21].map((done) => ({
        stage: 'fetch' as const,
        done,
        total: 22,
        text: zh ? `正在下载内置模型（${name}）：第 ${done + 1} / 22 部分…` : `Downloading the built-in model (${name}): part ${done + 1} of 22…`,
      })),
      { stage: 'start', done: 0, total: 0, text: zh ? `正在启动内置模型（${name}）…` : `Starting the built-in model (${name})…` },
    ];
    steps.forEach((progress, i) => {
      setTimeout(() => {
        this.setModel({ source: 'built_in', phase: 'starting', model: name, base_url: null, detail: null, progress, first_run: false, pace: null });
      }, (i * 400) / this.options.speed);
    });
    setTimeout(() => {
      this.setModel({ source: 'built_in', phase: 'ready', model: name, base_url: 'http://127.0.0.1:41234/v1', detail: null, progress: null, first_run: false, pace: '≈9.6 tokens/s written, ≈50 read here; a typical task takes about 2 min (time budget 5 min)' });
    }, (steps.length * 400) / this.options.speed);
  }

  // ---- seeded history ------------------------------------------------------------

  /** A week of use: recordings played on a virtual clock, nothing reaching listeners. */
  private async seedHistory(): Promise<void> {
    const now = this.options.now();
    const past: { at: number; scenario: ScenarioName }[] = [
      { at: now - 3 * DAY_MS, scenario: 'list_workspace' },
      { at: now - 2 * DAY_MS, scenario: 'abandon' },
      { at: now - 0.3 * DAY_MS, scenario: 'greeting' },
    ];
    for (const p of past) {
      this.virtualNow = p.at;
      const task = this.startTask(p.scenario, false);
      await this.play(task, recording(p.scenario), 0);
      // The user looked at the audit after each run: the report the auditor wrote then.
      this.virtualNow += 60_000;
      await this.ask(false);
    }
    this.virtualNow = null;
  }
}

/**
 * The fold of a run no recording ends where it ended (still open, or cancelled before a
 * Law 1 request): the fake folds nothing itself, so it says only what the run row says
 * and leaves the rest empty; the envelopes beside it are the run's.
 */
function unfolded(run: TaskRun): Trajectory {
  return {
    task_id: run.task_id,
    raw_input: run.raw_input,
    session_turns: 0,
    spec: null,
    started_at: run.started_at,
    ended_at: run.ended_at,
    status: run.status,
    elapsed_ms: run.ended_at === null ? null : Date.parse(run.ended_at) - Date.parse(run.started_at),
    partial: false,
    clarifications: [],
    chat_reply: null,
    rounds: [],
    law1: [],
    graceful_failure_request: null,
    graceful_failure: null,
    final_result: null,
    memory_writes: [],
    cancelled: null,
    usage: { role_stats: [], total_tokens: 0, tool_call_count: 0, tool_elapsed_ms: 0 },
    skipped_messages: 0,
    late_messages: 0,
    truncated: false,
    unreadable_lines: 0,
  };
}

function validate(s: Settings): void {
  const bad = (field: string, reason: string) => new IpcError('config_invalid', `invalid value for \`${field}\`: ${reason}`);
  const unit: [string, number | null][] = [
    ['ggs.w1', s.ggs.w1],
    ['ggs.w2', s.ggs.w2],
    ['ggs.delta', s.ggs.delta],
    ['ggs.rho', s.ggs.rho],
    ['ggs.theta', s.ggs.theta],
  ];
  for (const [field, v] of unit) {
    if (v === null || !Number.isFinite(v) || v < 0 || v > 1) throw bad(field, `${v} is not in [0, 1]`);
  }
  for (const [field, v] of [['ggs.alpha', s.ggs.alpha], ['ggs.beta', s.ggs.beta], ['ggs.lambda', s.ggs.lambda]] as const) {
    if (v === null || !Number.isFinite(v) || v < 0) throw bad(field, `${v} must be a finite number ≥ 0`);
  }
  if ((s.ggs.epsilon ?? 0) <= 0) throw bad('ggs.epsilon', `${s.ggs.epsilon} must be > 0`);
  if (s.budgets.max_replans <= 0) throw bad('budgets.max_replans', `${s.budgets.max_replans} must be > 0`);
  if (s.budgets.time_budget_ms !== undefined && s.budgets.time_budget_ms <= 0) throw bad('budgets.time_budget_ms', `${s.budgets.time_budget_ms} must be > 0`);
  if (s.laws.confirm_timeout_secs <= 0) throw bad('laws.confirm_timeout_secs', 'must be > 0');
  if (!Number.isInteger(s.laws.offer_always_after) || s.laws.offer_always_after < 0) {
    throw bad('laws.offer_always_after', `${s.laws.offer_always_after} must be a whole number ≥ 0`);
  }
  for (const tier of ['brain', 'tool'] as const) {
    const url = s.llm[tier].base_url;
    if (url !== null && url !== undefined && !/^https?:\/\/\S+$/.test(url)) throw bad(`llm.${tier}.base_url`, `"${url}" is not an http(s) URL`);
  }
  if (s.ui.language !== 'en' && s.ui.language !== 'zh-CN') throw bad('ui.language', `"${s.ui.language}" is not one of "en", "zh-CN"`);
  if (s.ui.hotkey.trim().length === 0) throw bad('ui.hotkey', 'must not be empty');
  for (const [name, server] of Object.entries(s.mcp.servers)) {
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(name)) throw bad(`mcp.servers.${name}`, `the server name \`${name}\` must be 1 to 32 letters, digits, \`-\` or \`_\``);
    const command = server.command?.trim() ?? '';
    const url = server.url?.trim() ?? '';
    if ((command === '') === (url === '')) throw bad(`mcp.servers.${name}`, `server \`${name}\` needs exactly one of a command or a url`);
    if (url !== '' && !/^https?:\/\/\S+$/.test(url)) throw bad(`mcp.servers.${name}`, `server \`${name}\`: the url must be http or https`);
  }
}

/** Whether two classes of file changes name the same changes (their words aside), as the
 * core compares them. */
function sameClass(a: EffectClass, b: EffectClass): boolean {
  return a.effect === b.effect && a.place === b.place && (a.extension ?? null) === (b.extension ?? null);
}

/** The `mcpServers` block of a Claude Desktop / Cursor config, read as the core reads it. */
function importMcpServers(json: string): McpImport {
  let root: unknown;
  try {
    root = JSON.parse(json);
  } catch (e) {
    throw new IpcError('invalid_input', `not a JSON config: ${e instanceof Error ? e.message : String(e)}`);
  }
  const block = (root as { mcpServers?: unknown; servers?: unknown } | null)?.mcpServers ?? (root as { servers?: unknown } | null)?.servers;
  if (typeof block !== 'object' || block === null) throw new IpcError('invalid_input', 'the config has no "mcpServers" object');
  const out: McpImport = { servers: {}, skipped: [] };
  for (const [raw, entry] of Object.entries(block as Record<string, Record<string, unknown>>)) {
    const name = raw.trim().replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 32) || 'server';
    const kind = String(entry.type ?? entry.transport ?? '').toLowerCase();
    if (kind === 'sse') {
      out.skipped.push(`${raw}: a legacy SSE server; artoo speaks Streamable HTTP and stdio`);
      continue;
    }
    const command = typeof entry.command === 'string' ? entry.command : null;
    const url = typeof entry.url === 'string' ? entry.url : null;
    if ((command === null) === (url === null)) {
      out.skipped.push(`${raw}: server \`${name}\` needs a command or a url`);
      continue;
    }
    out.servers[name] = {
      ...(command !== null ? { command } : { url: url ?? '' }),
      args: Array.isArray(entry.args) ? entry.args.map(String) : [],
      env: Object.fromEntries(Object.entries((entry.env as Record<string, unknown> | undefined) ?? {}).map(([k, v]) => [k, String(v)])),
      tools: [],
      enabled: entry.disabled !== true,
    };
  }
  return out;
}

export function createFakeBackend(options: FakeOptions = {}): FakeBackend {
  return new FakeBackend(options);
}

function initialModel(kind: 'ready' | 'first_run' | 'unreachable', settings: Settings): ModelStatus {
  const brain = settings.llm.brain;
  switch (kind) {
    case 'first_run':
      return { source: 'unset', phase: 'not_configured', model: null, base_url: null, detail: null, progress: null, first_run: true, pace: null };
    case 'unreachable':
      return {
        source: 'provider',
        phase: 'unreachable',
        model: brain.model ?? null,
        base_url: brain.base_url ?? null,
        detail: `cannot connect to ${brain.base_url ?? ''}: connection refused`,
        progress: null,
        first_run: false,
        pace: null,
      };
    default:
      return { source: 'provider', phase: 'ready', model: brain.model ?? null, base_url: brain.base_url ?? null, detail: null, progress: null, first_run: false, pace: '≈9.6 tokens/s written, ≈50 read here; a typical task takes about 2 min (time budget 5 min)' };
  }
}

/** `value` with recorded strings replaced: whole strings and parts of longer ones, and the
 * `space` / `entity` fields set. */
function substitute<T>(value: T, parts: [string, string][], tags: { space: string; entity: string }): T {
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') {
      if (key === 'space') return tags.space;
      if (key === 'entity') return tags.entity;
      return parts.reduce((text, [from, to]) => (from === '' ? text : text.split(from).join(to)), v);
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value, null) as T;
}
