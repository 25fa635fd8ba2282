// Settings → Standing grants: the "always allow" grants by effect ("deleting .tmp files
// under ~/Downloads") the user gave in the Law 1 dialog, with how often each let an action
// run without asking. A revoke applies at once (not part of the draft), as for MCP grants.

import { t, tn } from '../../i18n';
import { grantWords } from '../approvals/law1-text';
import type { SettingsStore } from './store';

export function EffectGrantsSection({ settings }: { settings: SettingsStore }) {
  const grants = settings.effectGrants.value.value ?? [];
  return (
    <section class="settings-group" data-testid="effect-grants">
      <h3>{t('effectGrants.title')}</h3>
      {grants.length === 0 ? (
        <p class="small muted">{t('effectGrants.none')}</p>
      ) : (
        <>
          <p class="small muted">{t('effectGrants.about')}</p>
          <ul class="stack">
            {grants.map((g) => {
              const what = grantWords(g.class.words);
              return (
                <li key={`${g.class.effect} ${g.class.place} ${g.class.extension ?? ''}`} class="row" data-testid="effect-grant">
                  <span class="stack" style={{ gap: '1px' }}>
                    <span class="selectable">{what}</span>
                    <span class="small muted">
                      {t('effectGrants.since', { date: g.granted_at.slice(0, 10) })} ·{' '}
                      {g.uses === 0 ? t('effectGrants.unused') : tn('effectGrants.used', g.uses, { date: g.last_used?.slice(0, 10) ?? '—' })}
                    </span>
                  </span>
                  <span class="spacer" />
                  <button type="button" class="btn" aria-label={t('effectGrants.revoke.of', { what })} onClick={() => void settings.revokeEffect(g.class)}>
                    {t('effectGrants.revoke')}
                  </button>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
