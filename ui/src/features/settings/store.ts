// The settings panel's state: the saved settings, an editable draft, API key changes that
// go to the OS keychain through the backend (a key is never read back), presets.

import { computed, signal, type ReadonlySignal } from '@preact/signals';

import { type Backend, IpcError } from '../../ipc/backend';
import type { EffectClass, GrantSubject, Settings } from '../../ipc/contracts';
import type { EffectGrant, Finding, Grant, KeyChange, KeyTier, McpServerStatus, ProviderPreset, SettingsView } from '../../ipc/commands';
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
  /** The MCP servers as the running core connected them. */
  readonly mcp: Resource<McpServerStatus[]>;
  /** Standing "always allow" grants (data dir). */
  readonly grants: Resource<Grant[]>;
  /** Standing grants by effect ("deleting .tmp files under ~/Downloads"), oldest first. */
  readonly effectGrants: Resource<EffectGrant[]>;
  /** The check-up of `artoo doctor` (loaded when asked for: it starts MCP servers). */
  readonly checkup: Resource<Finding[]>;
  /** What the last import did, or why it failed. */
  readonly imported: ReadonlySignal<McpImported | null>;
  load(): Promise<void>;
  edit(change: (draft: Settings) => void): void;
  setKey(tier: KeyTier, change: KeyChange): void;
  applyPreset(preset: ProviderPreset): void;
  revert(): void;
  save(): Promise<boolean>;
  /** Adds the servers of a pasted `mcpServers` JSON config to the draft (a name already
   * configured keeps its server); the user saves as for any other change. */
  importMcp(json: string): Promise<void>;
  /** Revokes one standing grant at once (not part of the draft). */
  revoke(subject: GrantSubject): Promise<void>;
  /** Revokes one standing grant by effect at once (not part of the draft). */
  revokeEffect(cls: EffectClass): Promise<void>;
}

export type McpImported =
  | { ok: true; added: string[]; kept: string[]; skipped: string[] }
  | { ok: false; error: string };

const KEEP: Record<KeyTier, KeyChange> = { brain: { kind: 'keep' }, tool: { kind: 'keep' } };

export function createSettingsStore(backend: Backend, onSaved: (view: SettingsView) => void): SettingsStore {
  const view = resource(() => backend.invoke('get_settings', {}));
  const presets = resource(() => backend.invoke('provider_presets', {}));
  const draft = signal<Settings | null>(null);
  const keys = signal<Readonly<Record<KeyTier, KeyChange>>>(KEEP);
  const saving = signal(false);
  const error = signal<IpcError | null>(null);
  const savedAt = signal<number | null>(null);
  const mcp = resource(() => backend.invoke('mcp_status', {}));
  const grants = resource(() => backend.invoke('mcp_grants', {}));
  const effectGrants = resource(() => backend.invoke('effect_grants', {}));
  const checkup = resource(() => backend.invoke('doctor', {}));
  const imported = signal<McpImported | null>(null);

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
    mcp,
    grants,
    effectGrants,
    checkup,
    imported,
    async load() {
      await Promise.all([view.load(), presets.load(), mcp.load(), grants.load(), effectGrants.load()]);
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
        // The core restarts with the new servers; read what it connected.
        void mcp.load();
        return true;
      } catch (reason) {
        error.value = IpcError.from(reason);
        return false;
      } finally {
        saving.value = false;
      }
    },
    async importMcp(json) {
      if (!draft.value) return;
      try {
        const found = await backend.invoke('mcp_import', { json });
        const next = structuredClone(draft.value);
        const added: string[] = [];
        const kept: string[] = [];
        for (const [name, server] of Object.entries(found.servers)) {
          if (name in next.mcp.servers) {
            kept.push(name);
          } else {
            next.mcp.servers[name] = server;
            added.push(name);
          }
        }
        draft.value = next;
        savedAt.value = null;
        imported.value = { ok: true, added, kept, skipped: found.skipped };
      } catch (reason) {
        imported.value = { ok: false, error: IpcError.from(reason).message };
      }
    },
    async revoke(subject) {
      try {
        grants.set(await backend.invoke('mcp_revoke', { subject }));
      } catch (reason) {
        error.value = IpcError.from(reason);
      }
    },
    async revokeEffect(cls) {
      try {
        effectGrants.set(await backend.invoke('effect_revoke', { effect_class: cls }));
      } catch (reason) {
        error.value = IpcError.from(reason);
      }
    },
  };
}
