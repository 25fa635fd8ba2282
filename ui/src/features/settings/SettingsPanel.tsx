// Settings: provider presets, base URL and model per tier, API keys that go to the OS
// keychain (never a file, never read back), budgets and GGS hyper-parameters, the Law 1
// timeout and when the dialog offers "always", the global hotkey, launch at login and the
// language; standing grants by effect (EffectGrants); MCP servers and their standing
// grants (McpSection).

import { useEffect, useState } from 'preact/hooks';

import { LOCALES, t, type MessageKey } from '../../i18n';
import type { Settings, TierConfig } from '../../ipc/contracts';
import type { ConnectionTest, KeyTier, ProviderPreset } from '../../ipc/commands';
import { Icon } from '../../shared/icons';
import { ErrorText, Field, Switch } from '../../shared/widgets';
import { sandboxText } from '../approvals/law1-text';
import { CheckupSection } from './Checkup';
import { EffectGrantsSection } from './EffectGrants';
import { McpSection } from './McpSection';
import type { SettingsStore } from './store';

type GgsKey = keyof Settings['ggs'];
type BudgetKey = keyof Settings['budgets'];
type MemoryKey = 'attention_floor' | 'exploit_above' | 'avoid_below';

const GGS_KEYS: readonly GgsKey[] = ['alpha', 'beta', 'lambda', 'w1', 'w2', 'epsilon', 'delta', 'rho', 'theta', 'kill_after_worsening'];
const BUDGET_KEYS: readonly BudgetKey[] = ['max_retries', 'max_replans', 'time_budget_ms', 'executor_max_steps', 'plan_reasks', 'clarification_rounds'];
const MEMORY_KEYS: readonly MemoryKey[] = ['attention_floor', 'exploit_above', 'avoid_below'];

/** Turns a keydown into a Tauri accelerator ("CommandOrControl+Shift+Space"). */
export function accelerator(e: Pick<KeyboardEvent, 'key' | 'code' | 'metaKey' | 'ctrlKey' | 'altKey' | 'shiftKey'>): string | null {
  if (['Meta', 'Control', 'Alt', 'Shift'].includes(e.key)) return null;
  const parts: string[] = [];
  if (e.metaKey || e.ctrlKey) parts.push('CommandOrControl');
  if (e.altKey) parts.push('Alt');
  if (e.shiftKey) parts.push('Shift');
  if (parts.length === 0) return null;
  const key = e.code.startsWith('Key') ? e.code.slice(3) : e.code.startsWith('Digit') ? e.code.slice(5) : e.code === 'Space' ? 'Space' : e.code;
  parts.push(key);
  return parts.join('+');
}

/** The provider presets as a labelled select; picking one hands it to `onPick`. */
export function PresetField({ id, presets, value, onPick }: { id: string; presets: readonly ProviderPreset[]; value: string; onPick: (preset: ProviderPreset | null) => void }) {
  return (
    <Field label={t('settings.preset')} htmlFor={id}>
      <select id={id} value={value} onChange={(e) => onPick(presets.find((x) => x.id === e.currentTarget.value) ?? null)}>
        <option value="">{t('settings.preset.custom')}</option>
        {presets.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A number field; with `onClear`, an empty field means "unset" (shown by `placeholder`). */
function NumberInput({ id, value, step, onChange, placeholder, onClear }: { id: string; value: number | null; step: number; onChange: (v: number) => void; placeholder?: string; onClear?: () => void }) {
  return (
    <input
      id={id}
      type="number"
      step={step}
      value={value ?? ''}
      placeholder={placeholder}
      onChange={(e) => {
        const text = e.currentTarget.value.trim();
        const n = Number(text);
        if (text === '') onClear?.();
        else if (Number.isFinite(n)) onChange(n);
      }}
    />
  );
}

/** A real one-token call to a tier (the shell's `test_connection`). */
export type TestConnection = (tier: TierConfig, key: string | null) => Promise<ConnectionTest>;

export function SettingsPanel({ settings, test }: { settings: SettingsStore; test?: TestConnection }) {
  const view = settings.view.value.value;
  const draft = settings.draft.value;

  useEffect(() => {
    if (view === null && !settings.view.loading.value) void settings.load();
  }, [view, settings]);

  if (!view || !draft) return <p class="muted pad">{settings.view.error.value ?? t('common.loading')}</p>;
  const presets = settings.presets.value.value ?? [];
  const presetId = presets.find((p) => p.base_url === draft.llm.brain.base_url && p.brain_model === draft.llm.brain.model)?.id ?? '';

  return (
    <form
      class="settings"
      data-testid="settings"
      onSubmit={(e) => {
        e.preventDefault();
        void settings.save();
      }}
    >
      <div class="settings-scroll">
        <section class="settings-group">
          <h3>{t('settings.provider')}</h3>
          <PresetField id="preset" presets={presets} value={presetId} onPick={(p) => p && settings.applyPreset(p)} />
          {!view.keychain.available ? <p class="callout warn small">{t('settings.keychain.none', { backend: view.keychain.backend })}</p> : null}
          {!draft.llm.brain.base_url && !draft.llm.brain.model && !draft.llm.tool.base_url && !draft.llm.tool.model ? (
            <p class="callout small" data-testid="builtin-note">
              {t('settings.builtin')}
            </p>
          ) : null}
          {(['brain', 'tool'] as const).map((tier) => (
            <Tier key={tier} tier={tier} settings={settings} test={test} />
          ))}
        </section>

        <section class="settings-group">
          <h3>{t('settings.ggs')}</h3>
          {GGS_KEYS.map((k) => (
            <Field key={k} label={t(`settings.ggs.${k}` as MessageKey)} htmlFor={`ggs-${k}`}>
              <NumberInput id={`ggs-${k}`} value={draft.ggs[k]} step={k === 'kill_after_worsening' ? 1 : 0.05} onChange={(v) => settings.edit((d) => void (d.ggs[k] = v))} />
            </Field>
          ))}
        </section>

        <section class="settings-group">
          <h3>{t('settings.budgets')}</h3>
          {BUDGET_KEYS.map((k) => (
            <Field key={k} label={t(`settings.budgets.${k}` as MessageKey)} htmlFor={`budget-${k}`}>
              {k === 'time_budget_ms' ? (
                <NumberInput
                  id={`budget-${k}`}
                  value={draft.budgets.time_budget_ms ?? null}
                  step={1000}
                  placeholder={t('settings.budgets.time_budget_auto')}
                  onChange={(v) => settings.edit((d) => void (d.budgets.time_budget_ms = Math.round(v)))}
                  onClear={() => settings.edit((d) => void delete d.budgets.time_budget_ms)}
                />
              ) : (
                <NumberInput id={`budget-${k}`} value={draft.budgets[k]} step={1} onChange={(v) => settings.edit((d) => void (d.budgets[k] = Math.round(v)))} />
              )}
            </Field>
          ))}
          <h3>{t('settings.memory')}</h3>
          {MEMORY_KEYS.map((k) => (
            <Field key={k} label={t(`settings.memory.${k}` as MessageKey)} htmlFor={`memory-${k}`}>
              <NumberInput id={`memory-${k}`} value={draft.memory[k]} step={0.05} onChange={(v) => settings.edit((d) => void (d.memory[k] = v))} />
            </Field>
          ))}
          <h3>{t('settings.laws')}</h3>
          <p class={`callout small${view.sandbox.on ? '' : ' warn'}`} data-testid="settings-sandbox">
            {t('settings.sandbox')}: {sandboxText(view.sandbox.description)}
          </p>
          <Field label={t('settings.confirmTimeout')} htmlFor="confirm-timeout">
            <NumberInput id="confirm-timeout" value={draft.laws.confirm_timeout_secs} step={10} onChange={(v) => settings.edit((d) => void (d.laws.confirm_timeout_secs = Math.round(v)))} />
          </Field>
          <Field label={t('settings.offerAlwaysAfter')} htmlFor="offer-always-after" hint={t('settings.offerAlwaysAfter.hint')}>
            <NumberInput id="offer-always-after" value={draft.laws.offer_always_after} step={1} onChange={(v) => settings.edit((d) => void (d.laws.offer_always_after = Math.round(v)))} />
          </Field>
        </section>

        <EffectGrantsSection settings={settings} />

        <McpSection settings={settings} />
        <CheckupSection settings={settings} />

        <section class="settings-group">
          <h3>{t('settings.app')}</h3>
          <Field label={t('settings.hotkey')} htmlFor="hotkey">
            <Hotkey value={draft.ui.hotkey} onChange={(v) => settings.edit((d) => void (d.ui.hotkey = v))} />
          </Field>
          <Field label={t('settings.launch')} htmlFor="launch">
            <Switch id="launch" label={t('settings.launch')} checked={draft.ui.launch_at_login} onChange={(v) => settings.edit((d) => void (d.ui.launch_at_login = v))} />
          </Field>
          <Field label={t('settings.notifyApprovals')} htmlFor="notify-approvals">
            <Switch id="notify-approvals" label={t('settings.notifyApprovals')} checked={draft.ui.notify_approvals} onChange={(v) => settings.edit((d) => void (d.ui.notify_approvals = v))} />
          </Field>
          <Field label={t('settings.notifyDone')} htmlFor="notify-done">
            <Switch id="notify-done" label={t('settings.notifyDone')} checked={draft.ui.notify_done} onChange={(v) => settings.edit((d) => void (d.ui.notify_done = v))} />
          </Field>
          <Field label={t('settings.notifyAbandoned')} htmlFor="notify-abandoned">
            <Switch id="notify-abandoned" label={t('settings.notifyAbandoned')} checked={draft.ui.notify_abandoned} onChange={(v) => settings.edit((d) => void (d.ui.notify_abandoned = v))} />
          </Field>
          <Field label={t('settings.language')} htmlFor="language">
            <select id="language" value={draft.ui.language} onChange={(e) => settings.edit((d) => void (d.ui.language = e.currentTarget.value))}>
              {LOCALES.map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name}
                </option>
              ))}
            </select>
          </Field>
        </section>
      </div>

      <footer class="settings-footer row">
        {settings.error.value ? <ErrorText>{t('settings.invalid', { message: settings.error.value.message })}</ErrorText> : null}
        {!settings.error.value && settings.savedAt.value ? <span class="small muted" role="status">{t('settings.saved', { path: view.settings_path })}</span> : null}
        {!settings.error.value && !settings.savedAt.value && settings.dirty.value ? <span class="small muted">{t('settings.dirty')}</span> : null}
        <span class="spacer" />
        <button type="button" class="btn" disabled={!settings.dirty.value || settings.saving.value} onClick={() => settings.revert()}>
          {t('common.revert')}
        </button>
        <button type="submit" class="btn primary" disabled={!settings.dirty.value || settings.saving.value}>
          {t('common.save')}
        </button>
      </footer>
    </form>
  );
}

function Tier({ tier, settings, test }: { tier: KeyTier; settings: SettingsStore; test: TestConnection | undefined }) {
  const draft = settings.draft.value;
  const view = settings.view.value.value;
  const [result, setResult] = useState<{ for: string; report: ConnectionTest } | null>(null);
  const [testing, setTesting] = useState(false);
  if (!draft || !view) return null;
  const cfg = draft.llm[tier];
  const key = settings.keys.value[tier];
  const stored = view.keys[tier].stored;
  return (
    <fieldset class="tier">
      <legend>{t(`settings.tier.${tier}`)}</legend>
      <Field label={t('settings.baseUrl')} htmlFor={`${tier}-url`}>
        <input id={`${tier}-url`} type="url" value={cfg.base_url ?? ''} spellcheck={false} onInput={(e) => settings.edit((d) => void (d.llm[tier].base_url = e.currentTarget.value.trim() || null))} />
      </Field>
      <Field label={t('settings.model')} htmlFor={`${tier}-model`}>
        <input id={`${tier}-model`} type="text" value={cfg.model ?? ''} spellcheck={false} onInput={(e) => settings.edit((d) => void (d.llm[tier].model = e.currentTarget.value.trim() || null))} />
      </Field>
      <Field label={t('settings.thinking')} htmlFor={`${tier}-thinking`}>
        <Switch id={`${tier}-thinking`} label={t('settings.thinking')} checked={cfg.enable_thinking} onChange={(v) => settings.edit((d) => void (d.llm[tier].enable_thinking = v))} />
      </Field>
      <Field
        label={t('settings.apiKey')}
        htmlFor={`${tier}-key`}
        hint={
          key.kind === 'clear'
            ? t('settings.apiKey.cleared')
            : stored
              ? `${t('settings.apiKey.stored', { backend: view.keychain.backend })} · ${t('settings.apiKey.replace')}`
              : t('settings.apiKey.none')
        }
      >
        <div class="row">
          <span class="key-icon">
            <Icon.Key />
          </span>
          <input
            id={`${tier}-key`}
            type="password"
            autocomplete="off"
            placeholder={stored ? '••••••••••••' : ''}
            disabled={!view.keychain.available}
            value={key.kind === 'set' ? key.key : ''}
            onInput={(e) => settings.setKey(tier, e.currentTarget.value.length > 0 ? { kind: 'set', key: e.currentTarget.value } : { kind: 'keep' })}
          />
          {stored ? (
            <button type="button" class="btn" onClick={() => settings.setKey(tier, { kind: 'clear' })}>
              {t('settings.apiKey.clear')}
            </button>
          ) : null}
        </div>
      </Field>
      {test ? (
        <div class="row">
          <button
            type="button"
            class="btn"
            data-testid={`${tier}-test`}
            disabled={testing || !cfg.base_url || !cfg.model}
            onClick={async () => {
              setTesting(true);
              const signature = JSON.stringify(cfg);
              const report = await test(cfg, key.kind === 'set' ? key.key : null);
              setResult({ for: signature, report });
              setTesting(false);
            }}
          >
            {testing ? t('onboarding.testing') : t('onboarding.test')}
          </button>
          <span class="small" role="status" aria-live="polite" data-testid={`${tier}-test-result`}>
            {result && result.for === JSON.stringify(cfg)
              ? result.report.ok
                ? t('onboarding.tested.ok', { model: result.report.model ?? '', ms: result.report.latency_ms })
                : t('onboarding.tested.fail', { error: result.report.error ?? '' })
              : ''}
          </span>
        </div>
      ) : null}
    </fieldset>
  );
}

function Hotkey({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const [recording, setRecording] = useState(false);
  return (
    <div class="row">
      <kbd class="hotkey" id="hotkey">
        {value.replace('CommandOrControl', '⌘').replace('Shift', '⇧').replace('Alt', '⌥').replace(/\+/g, ' ')}
      </kbd>
      <button
        type="button"
        class={`btn ${recording ? 'primary' : ''}`}
        onClick={() => setRecording(!recording)}
        onKeyDown={(e) => {
          if (!recording) return;
          e.preventDefault();
          const acc = accelerator(e);
          if (acc) {
            onChange(acc);
            setRecording(false);
          }
        }}
      >
        {recording ? t('settings.hotkey.recording') : t('settings.hotkey.record')}
      </button>
    </div>
  );
}
