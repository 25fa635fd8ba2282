// The tasks panel's state: past runs, how each kind of task went, the schedules, the run
// being replayed and the replay position.
// A replay feeds the recorded envelopes through the pipeline reducer, step by step; what
// the whole run decided comes from the core's fold of the recording (its trajectory).

import { computed, signal, type ReadonlySignal } from '@preact/signals';

import { type Backend, IpcError } from '../../ipc/backend';
import type { Envelope } from '../../ipc/contracts';
import type { KindHistory, ScheduleView, TaskReplay, TaskRun, TasksLike } from '../../ipc/commands';
import { resource, type Resource } from '../../shared/resource';
import { type ArrowParams, replay, type TaskView } from '../pipeline/model';
import type { UndoActions } from '../popup/UndoTask';
import type { LossPoint } from './chart';

export interface TasksStore {
  readonly runs: Resource<TaskRun[]>;
  /** Every kind of task with three counted runs or more, the most recently run first. */
  readonly kinds: Resource<KindHistory[]>;
  /** Every schedule, oldest first, with when it runs next. */
  readonly schedules: Resource<ScheduleView[]>;
  /** Why the last removal of a schedule failed. */
  readonly scheduleError: ReadonlySignal<string | null>;
  readonly selectedRunId: ReadonlySignal<string | null>;
  readonly recording: ReadonlySignal<TaskReplay | null>;
  readonly step: ReadonlySignal<number>;
  /** The run as it stood after `step` envelopes. */
  readonly view: ReadonlySignal<TaskView | null>;
  /** GGS's decisions over the whole run, from the core's fold, for the loss chart. */
  readonly decisions: ReadonlySignal<LossPoint[]>;
  readonly error: ReadonlySignal<string | null>;
  /** Taking a finished task's changes to files back. */
  readonly undo: UndoActions;
  /** How tasks of the kind `text` asks for went here; null with fewer than three runs. */
  like(text: string): Promise<TasksLike | null>;
  handle(envelope: Envelope): void;
  open(runId: string): Promise<void>;
  /** Removes one schedule; the list shows the remaining ones. */
  removeSchedule(id: string): Promise<void>;
  /** Sets how long one schedule's question waits for an answer, in minutes. */
  setScheduleWindow(id: string, minutes: number): Promise<void>;
  seek(step: number): void;
}


export function createTasksStore(backend: Backend, arrowParams: { value: ArrowParams }): TasksStore {
  const runs = resource(() => backend.invoke('task_runs', {}));
  const kinds = resource(() => backend.invoke('task_kinds', {}));
  const schedules = resource(() => backend.invoke('schedules', {}));
  const scheduleError = signal<string | null>(null);
  const selectedRunId = signal<string | null>(null);
  const recording = signal<TaskReplay | null>(null);
  const step = signal(0);
  const error = signal<string | null>(null);

  const view = computed(() => {
    const r = recording.value;
    return r ? replay(r.envelopes.slice(0, Math.max(1, step.value)), arrowParams.value) : null;
  });
  const decisions = computed(() =>
    (recording.value?.trajectory.rounds ?? []).flatMap((r) => (r.decision ? [{ loss: r.decision.loss, directive: r.decision.directive }] : [])),
  );

  return {
    runs,
    kinds,
    schedules,
    scheduleError,
    selectedRunId,
    recording,
    step,
    view,
    decisions,
    error,
    undo: {
      preview: (taskId) => backend.invoke('undo_preview', { task_id: taskId }),
      apply: (taskId) => backend.invoke('undo_task', { task_id: taskId }),
    },
    like: (text) => backend.invoke('tasks_like', { text }),
    handle(envelope) {
      const type = envelope.message.type;
      if ((type === 'FinalResult' || type === 'TaskClosed' || type === 'ChatReply' || type === 'TaskSubmitted') && runs.value.value) {
        void runs.load();
      }
      // A kind's history counts a run once it has ended.
      if ((type === 'FinalResult' || type === 'TaskClosed') && kinds.value.value) void kinds.load();
      // A schedule started a run: its count and next run changed.
      if (type === 'TaskSubmitted' && envelope.message.payload.scheduled && schedules.value.value) void schedules.load();
    },
    async open(runId) {
      selectedRunId.value = runId;
      error.value = null;
      try {
        const r = await backend.invoke('task_replay', { run_id: runId });
        if (selectedRunId.value !== runId) return;
        recording.value = r;
        step.value = r.envelopes.length;
      } catch (reason) {
        error.value = IpcError.from(reason).message;
      }
    },
    async removeSchedule(id) {
      scheduleError.value = null;
      try {
        schedules.set(await backend.invoke('schedule_remove', { id }));
      } catch (reason) {
        scheduleError.value = IpcError.from(reason).message;
        // Gone already (removed from the popup, say): show the list as it is.
        void schedules.load();
      }
    },
    async setScheduleWindow(id, minutes) {
      scheduleError.value = null;
      try {
        schedules.set(await backend.invoke('schedule_window', { id, minutes }));
      } catch (reason) {
        scheduleError.value = IpcError.from(reason).message;
        void schedules.load();
      }
    },
    seek(next) {
      const total = recording.value?.envelopes.length ?? 0;
      step.value = Math.min(Math.max(1, next), Math.max(1, total));
    },
  };
}
