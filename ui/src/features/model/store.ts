// The model artoo talks to: its state as the shell reports it (starting with progress,
// ready, unreachable, not chosen yet), "Test connection", and the first-run choice.

import { signal, type ReadonlySignal } from '@preact/signals';

import { type Backend, IpcError } from '../../ipc/backend';
import type { TierConfig } from '../../ipc/contracts';
import type { ConnectionTest, ModelStatus } from '../../ipc/commands';

export interface ModelStore {
  readonly status: ReadonlySignal<ModelStatus | null>;
  readonly error: ReadonlySignal<IpcError | null>;
  load(): Promise<void>;
  handle(status: ModelStatus): void;
  /** A real one-token call to `tier` with `key` (or the stored key when null). */
  test(tier: TierConfig, key: string | null): Promise<ConnectionTest>;
  /** Saves the choice: the built-in model (null) or a provider that passes a test call. */
  choose(tier: TierConfig | null, key: string | null): Promise<boolean>;
  readonly choosing: ReadonlySignal<boolean>;
}

export function createModelStore(backend: Backend): ModelStore {
  const status = signal<ModelStatus | null>(null);
  const error = signal<IpcError | null>(null);
  const choosing = signal(false);
  return {
    status,
    error,
    choosing,
    async choose(tier, key) {
      choosing.value = true;
      error.value = null;
      try {
        status.value = await backend.invoke('choose_model', { tier, key });
        return true;
      } catch (reason) {
        error.value = IpcError.from(reason);
        return false;
      } finally {
        choosing.value = false;
      }
    },
    async load() {
      try {
        status.value = await backend.invoke('model_status', {});
      } catch (reason) {
        error.value = IpcError.from(reason);
      }
    },
    handle(next) {
      status.value = next;
    },
    async test(tier, key) {
      try {
        return await backend.invoke('test_connection', { tier, key });
      } catch (reason) {
        const e = IpcError.from(reason);
        return { ok: false, model: null, latency_ms: 0, error: e.message };
      }
    },
  };
}

/** Whether the popup can take a task now. */
export function usable(status: ModelStatus | null): boolean {
  return status === null || status.phase === 'ready';
}
