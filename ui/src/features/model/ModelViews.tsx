// What the popup shows about the model before a task can run: the first-run choice
// (the built-in model, or a provider tested with a real one-token call before it is
// saved), the built-in model's progress while it is fetched, built and loaded, and a
// banner with a way to fix it when the model cannot be reached.

import { useState } from 'preact/hooks';

import { t } from '../../i18n';
import type { ConnectionTest, ModelStatus, PanelFocus, PanelTab, ProviderPreset } from '../../ipc/commands';
import type { TierConfig } from '../../ipc/contracts';
import { ErrorText, Field } from '../../shared/widgets';
import { PresetField } from '../settings/SettingsPanel';
import type { SettingsStore } from '../settings/store';
import type { ModelStore } from './store';

export function ModelProgressView({ status }: { status: ModelStatus }) {
  const p = status.progress;
  const fraction = p && p.total > 0 ? Math.min(1, p.done / p.total) : null;
  return (
    <section class="card model-progress" data-testid="model-progress" aria-labelledby="model-progress-title">
      <h3 id="model-progress-title">{t('model.starting.title')}</h3>
      <p class="small muted">{t('model.starting.body')}</p>
      {fraction === null ? (
        <progress aria-labelledby="model-progress-title" />
      ) : (
        <progress aria-labelledby="model-progress-title" value={fraction} max={1} />
      )}
      <p class="small" data-testid="model-progress-text">
        {p?.text ?? ''}
      </p>
    </section>
  );
}

export function ModelUnreachable({ status, openPanel }: { status: ModelStatus; openPanel: (tab: PanelTab, focus: PanelFocus | null) => void }) {
  return (
    <div class="callout bad model-unreachable" role="alert" data-testid="model-unreachable">
      <strong>{status.phase === 'not_configured' ? t('model.none.title') : t('model.unreachable.title', { model: status.model ?? '' })}</strong>
      {status.detail ? <p class="small selectable">{status.detail}</p> : null}
      <div class="row">
        <button type="button" class="btn" data-testid="model-fix" onClick={() => openPanel('settings', null)}>
          {t('model.fix')}
        </button>
      </div>
    </div>
  );
}

type Choice = 'builtin' | 'provider';

/**
 * The first-run choice. Nothing is saved until a choice is complete; a provider only
 * after a test call to exactly the values on screen succeeded (the shell tests again).
 */
export function Onboarding({ model, settings }: { model: ModelStore; settings: SettingsStore }) {
  const [choice, setChoice] = useState<Choice>('builtin');
  const [preset, setPreset] = useState('');
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [testing, setTesting] = useState(false);
  const [tested, setTested] = useState<{ for: string; result: ConnectionTest } | null>(null);
  const presets: ProviderPreset[] = settings.presets.value.value ?? [];
  const signature = JSON.stringify([url.trim(), name.trim(), key.trim()]);
  const current = tested && tested.for === signature ? tested.result : null;
  const complete = url.trim().length > 0 && name.trim().length > 0;
  const needsKey = presets.find((p) => p.id === preset)?.needs_key ?? false;

  const tier = (): TierConfig => ({ base_url: url.trim(), model: name.trim(), enable_thinking: false });

  return (
    <section class="card onboarding" data-testid="onboarding" aria-labelledby="onboarding-title">
      <h3 id="onboarding-title">{t('onboarding.title')}</h3>
      <p class="small muted">{t('onboarding.body')}</p>
      <fieldset class="onboarding-choices">
        <legend class="sr-only">{t('onboarding.title')}</legend>
        <label class="choice">
          <input type="radio" name="model-choice" checked={choice === 'builtin'} onChange={() => setChoice('builtin')} />
          <span>
            <strong>{t('onboarding.builtin')}</strong>
            <span class="small muted block">{t('onboarding.builtin.body')}</span>
          </span>
        </label>
        <label class="choice">
          <input type="radio" name="model-choice" checked={choice === 'provider'} onChange={() => setChoice('provider')} data-testid="choose-provider" />
          <span>
            <strong>{t('onboarding.provider')}</strong>
            <span class="small muted block">{t('onboarding.provider.body')}</span>
          </span>
        </label>
      </fieldset>

      {choice === 'builtin' ? (
        <button
          type="button"
          class="btn primary"
          data-testid="use-builtin"
          disabled={model.choosing.value}
          onClick={() => void model.choose(null, null)}
        >
          {t('onboarding.builtin.use')}
        </button>
      ) : (
        <div class="stack">
          <PresetField
            id="onboarding-preset"
            presets={presets}
            value={preset}
            onPick={(p) => {
              setPreset(p?.id ?? '');
              if (p) {
                setUrl(p.base_url);
                setName(p.brain_model);
              }
            }}
          />
          <Field label={t('settings.baseUrl')} htmlFor="onboarding-url">
            <input id="onboarding-url" type="url" value={url} placeholder="https://…/v1" onInput={(e) => setUrl(e.currentTarget.value)} />
          </Field>
          <Field label={t('settings.model')} htmlFor="onboarding-model">
            <input id="onboarding-model" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label={needsKey ? t('onboarding.key.needed') : t('onboarding.key')} htmlFor="onboarding-key">
            <input id="onboarding-key" type="password" autocomplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
          </Field>
          <div class="row">
            <button
              type="button"
              class="btn"
              data-testid="test-connection"
              disabled={!complete || testing}
              onClick={async () => {
                setTesting(true);
                const result = await model.test(tier(), key.trim() || null);
                setTested({ for: signature, result });
                setTesting(false);
              }}
            >
              {testing ? t('onboarding.testing') : t('onboarding.test')}
            </button>
            <button
              type="button"
              class="btn primary"
              data-testid="save-provider"
              disabled={!current?.ok || model.choosing.value}
              onClick={() => void model.choose(tier(), key.trim() || null)}
            >
              {t('onboarding.save')}
            </button>
          </div>
          <p class="small" role="status" aria-live="polite" data-testid="connection-result">
            {current
              ? current.ok
                ? t('onboarding.tested.ok', { model: current.model ?? name, ms: current.latency_ms })
                : t('onboarding.tested.fail', { error: current.error ?? '' })
              : complete
                ? t('onboarding.testFirst')
                : ''}
          </p>
        </div>
      )}
      {model.error.value ? <ErrorText>{model.error.value.message}</ErrorText> : null}
    </section>
  );
}
