// Live tasks, folded from the event stream: backend → this store → the popup's views.

import { computed, signal, type ReadonlySignal } from '@preact/signals';

import { type Backend, IpcError } from '../../ipc/backend';
import type { DescribedEnvelope, ScheduleView } from '../../ipc/commands';
import type { TaskId } from '../../ipc/contracts';
import { type ArrowParams, DEFAULT_ARROW_PARAMS, emptyTask, isFinished, reduce, replay, type TaskView } from './model';

export interface PipelineStore {
  readonly tasks: ReadonlySignal<ReadonlyMap<TaskId, TaskView>>;
  /** The task the popup shows: the latest one submitted, until "New task". */
  readonly current: ReadonlySignal<TaskView | null>;
  readonly running: ReadonlySignal<boolean>;
  readonly submitting: ReadonlySignal<boolean>;
  readonly cancelling: ReadonlySignal<boolean>;
  readonly error: ReadonlySignal<IpcError | null>;
  readonly history: ReadonlySignal<readonly string[]>;
  /** The schedule the last input made (nothing runs now), until "New task" or a task. */
  readonly scheduled: ReadonlySignal<ScheduledNotice | null>;
  /** The latest status line of each task (one plain sentence per phase). */
  readonly status: ReadonlySignal<ReadonlyMap<TaskId, string>>;
  readonly arrowParams: { value: ArrowParams };
  handle(envelope: DescribedEnvelope, status?: string | null): void;
  submit(text: string): Promise<void>;
  cancel(): Promise<void>;
  answerClarification(answer: string): Promise<void>;
  /** Removes the schedule the last input made. */
  removeSchedule(): Promise<void>;
  /** Clears a finished task, or the schedule made, from the popup. */
  dismiss(): void;
  /**
   * After a tap gap: rebuilds the current task from its recorded run so nothing the gap
   * swallowed stays missing; returns the run's envelopes (null when there is none).
   */
  resync(): Promise<readonly DescribedEnvelope[] | null>;
  seedHistory(inputs: readonly string[]): void;
}

/** A schedule the popup's input made instead of a task: what the core said of it, and
 * whether the user removed it since. */
export interface ScheduledNotice {
  readonly schedule: ScheduleView;
  readonly message: string;
  readonly removed: boolean;
}

const HISTORY_LIMIT = 50;

export function createPipelineStore(backend: Backend): PipelineStore {
  const tasks = signal<ReadonlyMap<TaskId, TaskView>>(new Map());
  const currentId = signal<TaskId | null>(null);
  const submitting = signal(false);
  const cancelling = signal(false);
  const error = signal<IpcError | null>(null);
  const history = signal<readonly string[]>([]);
  const scheduled = signal<ScheduledNotice | null>(null);
  const status = signal<ReadonlyMap<TaskId, string>>(new Map());
  const arrowParams = signal<ArrowParams>(DEFAULT_ARROW_PARAMS);
  /** Every envelope seen per task, for rebuilding a view after a gap (not rendered). */
  const seen = new Map<TaskId, DescribedEnvelope[]>();
  const current = computed(() => (currentId.value ? tasks.value.get(currentId.value) ?? null : null));
  const running = computed(() => {
    const task = current.value;
    return task !== null && !isFinished(task);
  });

  function remember(text: string): void {
    history.value = [text, ...history.value.filter((h) => h !== text)].slice(0, HISTORY_LIMIT);
  }

  function handle(envelope: DescribedEnvelope, line?: string | null): void {
    const id = envelope.task_id;
    if (!id) return;
    if (line) {
      const lines = new Map(status.value);
      lines.set(id, line);
      status.value = lines;
    }
    const raw = seen.get(id) ?? [];
    raw.push(envelope);
    seen.set(id, raw);
    const existing = tasks.value.get(id);
    let task = existing;
    if (!task) {
      // A window opened mid-task still builds the view from whatever arrives.
      const raw = envelope.message.type === 'TaskSubmitted' ? envelope.message.payload.raw_input : '';
      task = emptyTask(id, raw, envelope.timestamp);
    }
    const next = reduce(task, envelope, arrowParams.value);
    if (next === existing) return;
    const map = new Map(tasks.value);
    map.set(id, next);
    tasks.value = map;
    if (envelope.message.type === 'TaskSubmitted') currentId.value = id;
    if (envelope.message.type === 'TaskClosed' && id === currentId.value) cancelling.value = false;
  }

  async function submit(text: string): Promise<void> {
    const trimmed = text.trim();
    if (trimmed.length === 0 || submitting.value) return;
    submitting.value = true;
    error.value = null;
    try {
      const submitted = await backend.invoke('submit_input', { text: trimmed });
      remember(trimmed);
      if (submitted.kind === 'scheduled') {
        // Nothing runs now: the popup says what was kept in place of a task.
        scheduled.value = { schedule: submitted.schedule, message: submitted.message, removed: false };
        if (current.value === null || isFinished(current.value)) currentId.value = null;
        return;
      }
      scheduled.value = null;
      const id = submitted.task_id;
      if (!tasks.value.has(id)) {
        const map = new Map(tasks.value);
        map.set(id, emptyTask(id, trimmed, new Date().toISOString()));
        tasks.value = map;
      }
      currentId.value = id;
    } catch (reason) {
      error.value = IpcError.from(reason);
    } finally {
      submitting.value = false;
    }
  }

  async function cancel(): Promise<void> {
    const task = current.value;
    if (!task || isFinished(task)) return;
    cancelling.value = true;
    try {
      await backend.invoke('cancel_task', { task_id: task.taskId });
    } catch (reason) {
      cancelling.value = false;
      error.value = IpcError.from(reason);
    }
  }

  async function removeSchedule(): Promise<void> {
    const notice = scheduled.value;
    if (!notice || notice.removed) return;
    error.value = null;
    try {
      await backend.invoke('schedule_remove', { id: notice.schedule.schedule.id });
      if (scheduled.value === notice) scheduled.value = { ...notice, removed: true };
    } catch (reason) {
      error.value = IpcError.from(reason);
    }
  }

  async function answerClarification(answer: string): Promise<void> {
    const task = current.value;
    if (!task?.clarification) return;
    try {
      await backend.invoke('answer_clarification', { task_id: task.taskId, answer });
    } catch (reason) {
      error.value = IpcError.from(reason);
    }
  }

  return {
    tasks,
    current,
    running,
    submitting,
    cancelling,
    error,
    history,
    scheduled,
    status,
    arrowParams,
    handle,
    submit,
    cancel,
    answerClarification,
    removeSchedule,
    dismiss() {
      if (current.value && isFinished(current.value)) currentId.value = null;
      scheduled.value = null;
      error.value = null;
    },
    async resync() {
      const task = current.value;
      if (!task) return null;
      try {
        const runs = await backend.invoke('task_runs', {});
        const run = runs.find((r) => r.task_id === task.taskId);
        if (!run) return null;
        const recorded = await backend.invoke('task_replay', { run_id: run.run_id });
        // The recording plus whatever arrived live (possibly after it was read), once each.
        const byId = new Map<string, DescribedEnvelope>();
        for (const e of [...recorded.envelopes, ...(seen.get(task.taskId) ?? [])]) byId.set(e.id, e);
        const merged = [...byId.values()].sort((a, b) => a.seq - b.seq);
        const rebuilt = replay(merged, arrowParams.value);
        if (!rebuilt) return null;
        seen.set(task.taskId, merged);
        const map = new Map(tasks.value);
        map.set(task.taskId, rebuilt);
        tasks.value = map;
        return merged;
      } catch (reason) {
        error.value = IpcError.from(reason);
        return null;
      }
    },
    seedHistory(inputs) {
      const merged = [...history.value];
      for (const input of inputs) if (!merged.includes(input)) merged.push(input);
      history.value = merged.slice(0, HISTORY_LIMIT);
    },
  };
}
