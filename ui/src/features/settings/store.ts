// The settings panel's state: the saved settings, an editable draft, API key changes that
// go to the OS keychain through the backend (a key is never read back), presets.

import { computed, signal, type ReadonlySignal } from '@preact/signals';

import { type Backend, IpcError } from '../../ipc/backend';
import type { Settings } from '../../ipc/contracts';
import type { KeyChange, KeyTier, ProviderPreset, SettingsView } from '../../ipc/commands';
import { resource, type Resource } from '../../shared/resource';

export interface SettingsStore {
  readonly view: Resource<SettingsView>;
  readonly presets: Resource<ProviderPreset[]>;
  readonly draft: ReadonlySignal<Settings | null>;
  readonly keys: ReadonlySignal<Readonly<Record<KeyTier, KeyChange>>>;
  readonly dirty: ReadonlySignal<boolean>;
  readonly saving: ReadonlySignal<boolean>;
  readonly error: ReadonlySignal<IpcError | null>;
  readonly savedAt: ReadonlySignal<number | null>;
  load(): Promise<void>;
  edit(change: (draft: Settings) => void): void;
  setKey(tier: KeyTier, change: KeyChange): void;
  applyPreset(preset: ProviderPreset): void;
  revert(): void;
  save(): Promise<boolean>;
}

const KEEP: Record<KeyTier, KeyChange> = { brain: { kind: 'keep' }, tool: { kind: 'keep' } };

export function createSettingsStore(backend: Backend, onSaved: (view: SettingsView) => void): SettingsStore {
  const view = resource(() => backend.invoke('get_settings', {}));
  const presets = resource(() => backend.invoke('provider_presets', {}));
  const draft = signal<Settings | null>(null);
  const keys = signal<Readonly<Record<KeyTier, KeyChange>>>(KEEP);
  const saving = signal(false);
  const error = signal<IpcError | null>(null);
  const savedAt = signal<number | null>(null);

  const dirty = computed(() => {
    const saved = view.value.value?.settings;
    if (!saved || !draft.value) return false;
    return (
      JSON.stringify(saved) !== JSON.stringify(draft.value) ||
      keys.value.brain.kind !== 'keep' ||
      keys.value.tool.kind !== 'keep'
    );
  });

  function reset(from: SettingsView): void {
    draft.value = structuredClone(from.settings);
    keys.value = KEEP;
  }

  return {
    view,
    presets,
    draft,
    keys,
    dirty,
    saving,
    error,
    savedAt,
    async load() {
      await Promise.all([view.load(), presets.load()]);
      const v = view.value.value;
      if (v) {
        reset(v);
        onSaved(v);
      }
    },
    edit(change) {
      if (!draft.value) return;
      const next = structuredClone(draft.value);
      change(next);
      draft.value = next;
      savedAt.value = null;
    },
    setKey(tier, change) {
      keys.value = { ...keys.value, [tier]: change };
      savedAt.value = null;
    },
    applyPreset(preset) {
      if (!draft.value) return;
      const next = structuredClone(draft.value);
      next.llm.brain.base_url = preset.base_url;
      next.llm.brain.model = preset.brain_model;
      next.llm.tool.base_url = preset.base_url;
      next.llm.tool.model = preset.tool_model;
      draft.value = next;
      savedAt.value = null;
    },
    revert() {
      const v = view.value.value;
      if (v) reset(v);
      error.value = null;
    },
    async save() {
      const current = draft.value;
      if (!current || saving.value) return false;
      saving.value = true;
      error.value = null;
      try {
        const saved = await backend.invoke('save_settings', { update: { settings: current, keys: keys.value } });
        view.set(saved);
        reset(saved);
        savedAt.value = Date.now();
        onSaved(saved);
        return true;
      } catch (reason) {
        error.value = IpcError.from(reason);
        return false;
      } finally {
        saving.value = false;
      }
    },
  };
}
