// The memory panel's state: groups with live potentials, the selected group's Megrams,
// and the operator actions (remember, forget, pin). Reloads when the bus shows a write.

import { signal, type ReadonlySignal } from '@preact/signals';

import { type Backend, IpcError } from '../../ipc/backend';
import type { Envelope, Level, MegramId } from '../../ipc/contracts';
import type { ForgetTarget, MemoryGroupDetail, MemoryMap } from '../../ipc/commands';
import { resource, type Resource } from '../../shared/resource';

export interface GroupRef {
  space: string;
  entity: string;
}

export interface MemoryStore {
  readonly map: Resource<MemoryMap>;
  readonly selected: ReadonlySignal<GroupRef | null>;
  readonly detail: Resource<MemoryGroupDetail>;
  readonly actionError: ReadonlySignal<string | null>;
  handle(envelope: Envelope): void;
  select(group: GroupRef | null): void;
  pin(id: MegramId): Promise<void>;
  forget(target: ForgetTarget): Promise<void>;
  remember(level: Level, space: string, entity: string, content: string): Promise<boolean>;
}

export function sameGroup(a: GroupRef | null, b: GroupRef | null): boolean {
  return a !== null && b !== null && a.space === b.space && a.entity === b.entity;
}

export function createMemoryStore(backend: Backend): MemoryStore {
  const map = resource(() => backend.invoke('memory_groups', {}));
  const selected = signal<GroupRef | null>(null);
  const detail = resource<MemoryGroupDetail>(() => {
    const g = selected.value;
    if (!g) return Promise.reject(new Error('no group selected'));
    return backend.invoke('memory_group', g);
  });
  const actionError = signal<string | null>(null);

  async function refresh(): Promise<void> {
    await map.load();
    const g = selected.value;
    if (g && map.value.value?.groups.some((x) => sameGroup(x, g))) await detail.load();
    else if (g) selected.value = null;
  }

  async function act(run: () => Promise<unknown>): Promise<boolean> {
    actionError.value = null;
    try {
      await run();
      await refresh();
      return true;
    } catch (reason) {
      actionError.value = IpcError.from(reason).message;
      return false;
    }
  }

  return {
    map,
    selected,
    detail,
    actionError,
    handle(envelope) {
      const type = envelope.message.type;
      // GGS writes and operator changes alter potentials; reload what is on screen.
      if ((type === 'Megram' || type === 'MemoryOperatorChange') && map.value.value !== null) void refresh();
    },
    select(group) {
      selected.value = group;
      actionError.value = null;
      if (group) void detail.load();
    },
    pin: async (id) => {
      await act(() => backend.invoke('memory_pin', { id }));
    },
    forget: async (target) => {
      await act(() => backend.invoke('memory_forget', { target }));
    },
    remember: (level, space, entity, content) =>
      act(() => backend.invoke('memory_remember', { level, space, entity, content })),
  };
}
