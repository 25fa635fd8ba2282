// The tasks panel's state: past runs, the run being replayed and the replay position.
// A replay feeds the recorded envelopes through the pipeline reducer, step by step.

import { computed, signal, type ReadonlySignal } from '@preact/signals';

import { type Backend, IpcError } from '../../ipc/backend';
import type { Envelope } from '../../ipc/contracts';
import type { TaskReplay, TaskRun } from '../../ipc/commands';
import { resource, type Resource } from '../../shared/resource';
import { type ArrowParams, replay, type TaskView } from '../pipeline/model';

export interface TasksStore {
  readonly runs: Resource<TaskRun[]>;
  readonly selectedRunId: ReadonlySignal<string | null>;
  readonly recording: ReadonlySignal<TaskReplay | null>;
  readonly step: ReadonlySignal<number>;
  /** The run as it stood after `step` envelopes. */
  readonly view: ReadonlySignal<TaskView | null>;
  /** The run at its end (the loss chart shows the whole trajectory). */
  readonly whole: ReadonlySignal<TaskView | null>;
  readonly error: ReadonlySignal<string | null>;
  handle(envelope: Envelope): void;
  open(runId: string): Promise<void>;
  seek(step: number): void;
}

export function createTasksStore(backend: Backend, arrowParams: { value: ArrowParams }): TasksStore {
  const runs = resource(() => backend.invoke('task_runs', {}));
  const selectedRunId = signal<string | null>(null);
  const recording = signal<TaskReplay | null>(null);
  const step = signal(0);
  const error = signal<string | null>(null);

  const view = computed(() => {
    const r = recording.value;
    return r ? replay(r.envelopes.slice(0, Math.max(1, step.value)), arrowParams.value) : null;
  });
  const whole = computed(() => {
    const r = recording.value;
    return r ? replay(r.envelopes, arrowParams.value) : null;
  });

  return {
    runs,
    selectedRunId,
    recording,
    step,
    view,
    whole,
    error,
    handle(envelope) {
      const type = envelope.message.type;
      if ((type === 'FinalResult' || type === 'TaskClosed' || type === 'ChatReply' || type === 'TaskSubmitted') && runs.value.value) {
        void runs.load();
      }
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
    seek(next) {
      const total = recording.value?.envelopes.length ?? 0;
      step.value = Math.min(Math.max(1, next), Math.max(1, total));
    },
  };
}
