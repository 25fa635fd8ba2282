// Settings → Check-up: the same lines as `artoo doctor` (the model and its server, the
// speed measured here, the sandbox, the data dir, MCP servers, keys, versions), each ✅
// or ⚠ with the fix in words. Run when asked: it starts the MCP servers to list their tools.

import { t } from '../../i18n';
import { ErrorText } from '../../shared/widgets';
import type { SettingsStore } from './store';

export function CheckupSection({ settings }: { settings: SettingsStore }) {
  const { checkup } = settings;
  const found = checkup.value.value;
  return (
    <section class="settings-group" data-testid="checkup">
      <h3>{t('checkup.title')}</h3>
      <p class="small muted">{t('checkup.about')}</p>
      <button type="button" class="btn" disabled={checkup.loading.value} onClick={() => void checkup.load()}>
        {checkup.loading.value ? t('checkup.running') : t('checkup.run')}
      </button>
      {checkup.error.value ? <ErrorText>{checkup.error.value}</ErrorText> : null}
      {found ? (
        <ul class="checkup stack" aria-label={t('checkup.title')}>
          {found.map((f) => (
            <li key={f.topic} class={`small${f.ok ? '' : ' warn'}`} data-ok={f.ok ? 'true' : 'false'}>
              <span aria-hidden="true">{f.ok ? '✅' : '⚠'} </span>
              <strong>{f.topic}</strong>: {f.found}
              {f.fix ? <span class="muted"> — {t('checkup.fix')}: {f.fix}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
