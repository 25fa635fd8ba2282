// A value loaded from somewhere asynchronous, with its loading and error states, as
// signals. Domain-free: the stores of every panel use it.

import { signal, type ReadonlySignal } from '@preact/signals';

export interface Resource<T> {
  readonly value: ReadonlySignal<T | null>;
  readonly loading: ReadonlySignal<boolean>;
  readonly error: ReadonlySignal<string | null>;
  /** Loads again; a load started later wins over one still in flight. */
  load(): Promise<void>;
  set(value: T): void;
}

export function resource<T>(fetch: () => Promise<T>): Resource<T> {
  const value = signal<T | null>(null);
  const loading = signal(false);
  const error = signal<string | null>(null);
  let generation = 0;
  return {
    value,
    loading,
    error,
    async load() {
      const mine = ++generation;
      loading.value = true;
      try {
        const next = await fetch();
        if (mine === generation) {
          value.value = next;
          error.value = null;
        }
      } catch (reason) {
        if (mine === generation) error.value = reason instanceof Error ? reason.message : String(reason);
      } finally {
        if (mine === generation) loading.value = false;
      }
    },
    set(next) {
      generation++;
      value.value = next;
      loading.value = false;
      error.value = null;
    },
  };
}
