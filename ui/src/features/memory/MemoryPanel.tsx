// Memory made legible: the potentials map with the four action regions, every group
// with M_att, M_dec and its action, a group's Megrams with their live contributions,
// pin / forget / remember, and which planning rounds recalled the group and why.

import { useEffect, useMemo, useState } from 'preact/hooks';

import { locale, t } from '../../i18n';
import type { Level, MemoryAction } from '../../ipc/contracts';
import type { MemoryGroup } from '../../ipc/commands';
import { ChartCanvas } from '../../shared/chart';
import { age, fixed, relative, signed } from '../../shared/format';
import { Icon } from '../../shared/icons';
import { darkMode, palette } from '../../shared/theme';
import { Chip, ConfirmButton, Empty, ErrorText, type Tone } from '../../shared/widgets';
import { potentialsChartConfig } from './chart';
import { type GroupRef, type MemoryStore, sameGroup } from './store';

export const ACTION_TONE: Record<MemoryAction, Tone> = { Exploit: 'good', Avoid: 'bad', Caution: 'warn', Ignore: 'neutral' };
const CONSTRAINT_TONE: Record<string, Tone> = { should_prefer: 'good', must_not: 'bad', caution: 'warn' };

function actionNames(): Record<MemoryAction, string> {
  return {
    Ignore: t('memory.action.Ignore'),
    Exploit: t('memory.action.Exploit'),
    Avoid: t('memory.action.Avoid'),
    Caution: t('memory.action.Caution'),
  };
}

export function MemoryPanel({ memory, now, focus }: { memory: MemoryStore; now: number; focus: GroupRef | null }) {
  const map = memory.map.value.value;
  const [remembering, setRemembering] = useState(false);

  useEffect(() => {
    if (map === null && !memory.map.loading.value) void memory.map.load();
  }, [map, memory]);

  useEffect(() => {
    if (focus && !sameGroup(focus, memory.selected.value)) memory.select(focus);
  }, [focus, memory]);

  const groups = map?.groups ?? [];
  const selected = memory.selected.value;
  const selectedIndex = groups.findIndex((g) => sameGroup(g, selected));
  const dark = darkMode.value;
  const lang = locale.value;
  const chart = useMemo(
    () =>
      map
        ? potentialsChartConfig(groups, map.thresholds, selectedIndex, palette(dark), actionNames(), (i) => {
            const g = groups[i];
            if (g) memory.select({ space: g.space, entity: g.entity });
          })
        : null,
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [map, selectedIndex, dark, lang],
  );

  return (
    <div class="split memory">
      <main class="detail memory-main">
        <div class="row toolbar-row">
          <h2 class="grow">{t('memory.map')}</h2>
          <button type="button" class="btn" onClick={() => setRemembering(true)}>
            <Icon.Plus />
            {t('memory.remember')}
          </button>
        </div>
        {memory.map.error.value ? <ErrorText>{memory.map.error.value}</ErrorText> : null}
        {chart && map ? (
          <section class="card">
            <ChartCanvas config={chart} label={t('memory.map.label')} height={250} testId="potentials-map" />
            <p class="small muted legend">
              {(['Exploit', 'Caution', 'Avoid', 'Ignore'] as const).map((a) => (
                <span key={a}>
                  <Chip tone={ACTION_TONE[a]}>{t(`memory.action.${a}`)}</Chip> {t(`memory.action.${a}.hint`)}
                </span>
              ))}
            </p>
          </section>
        ) : (
          <p class="muted">{t('common.loading')}</p>
        )}
        {remembering ? <RememberForm memory={memory} group={selected} onDone={() => setRemembering(false)} /> : null}
        <GroupTable groups={groups} selected={selected} onSelect={(g) => memory.select(g)} now={now} />
      </main>
      <aside class="inspector" aria-label={t('memory.megrams')}>
        <GroupDetail memory={memory} now={now} />
      </aside>
    </div>
  );
}

function GroupTable({ groups, selected, onSelect, now }: { groups: readonly MemoryGroup[]; selected: GroupRef | null; onSelect: (g: GroupRef) => void; now: number }) {
  if (groups.length === 0) return <Empty>{t('memory.empty')}</Empty>;
  const lang = locale.value;
  return (
    <section class="card flush">
      <table class="grid" data-testid="memory-groups">
        <thead>
          <tr>
            <th>{t('memory.space')}</th>
            <th>{t('memory.entity')}</th>
            <th class="num">{t('memory.att')}</th>
            <th class="num">{t('memory.dec')}</th>
            <th>{t('memory.action')}</th>
            <th class="num">M/K/C/T</th>
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => (
            <tr key={`${g.space}|${g.entity}`} class={sameGroup(g, selected) ? 'selected' : ''} onClick={() => onSelect({ space: g.space, entity: g.entity })}>
              <td class="mono cell-clip" title={g.space}>
                {g.space}
              </td>
              <td class="mono cell-clip" title={g.entity}>
                {g.entity}
              </td>
              <td class="num">{fixed(g.potentials.attention)}</td>
              <td class="num">{signed(g.potentials.decision)}</td>
              <td>
                <Chip tone={ACTION_TONE[g.potentials.action]}>{t(`memory.action.${g.potentials.action}`)}</Chip>
              </td>
              <td class="num muted" title={g.last_activity ? relative(g.last_activity, now, lang) : undefined}>
                {g.counts.M}/{g.counts.K}/{g.counts.C}/{g.counts.T}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function GroupDetail({ memory, now }: { memory: MemoryStore; now: number }) {
  const selected = memory.selected.value;
  const detail = memory.detail.value.value;
  const lang = locale.value;
  if (!selected) return <Empty>{t('memory.select')}</Empty>;
  if (!detail || !sameGroup(detail, selected)) return <p class="muted pad">{t('common.loading')}</p>;
  const forgettable = detail.megrams.filter((m) => m.megram.state !== 'law').length;
  return (
    <div class="stack group-detail" data-testid="group-detail">
      <header class="stack" style={{ gap: '4px' }}>
        <h3 class="mono selectable">
          {detail.space} / {detail.entity}
        </h3>
        <div class="row">
          <Chip tone={ACTION_TONE[detail.potentials.action]}>{t(`memory.action.${detail.potentials.action}`)}</Chip>
          <span class="small">
            M_att <strong>{fixed(detail.potentials.attention)}</strong> · M_dec <strong>{signed(detail.potentials.decision)}</strong>
          </span>
          <span class="spacer" />
          <ConfirmButton
            disabled={forgettable === 0}
            question={t('memory.forgetGroup.confirm', { count: forgettable })}
            onConfirm={() => void memory.forget({ kind: 'group', space: detail.space, entity: detail.entity })}
          >
            {t('memory.forgetGroup')}
          </ConfirmButton>
        </div>
      </header>
      {memory.actionError.value ? <ErrorText>{memory.actionError.value}</ErrorText> : null}

      <section>
        <h4>{t('memory.megrams')}</h4>
        <ul class="megrams">
          {detail.megrams.map((v) => {
            const m = v.megram;
            const timeless = (m.k ?? 0) === 0;
            return (
              <li key={m.id} class="megram" data-level={m.level}>
                <div class="row">
                  <span class={`level level-${m.level}`}>{m.level}</span>
                  <span class="small mono">{m.state}</span>
                  {v.consolidated ? <Chip>{t('memory.consolidated')}</Chip> : null}
                  <span class="spacer" />
                  <span class="small muted" title={m.created_at}>
                    {age(v.age_days)}
                  </span>
                </div>
                <p class="selectable megram-content">{m.content}</p>
                <div class="row small megram-numbers">
                  <span>f {fixed(m.f)}</span>
                  <span>σ {signed(m.sigma, 1)}</span>
                  <span>k {fixed(m.k)}</span>
                  <span class="muted">·</span>
                  <span title={t('memory.liveAtt')}>att {fixed(v.live_attention, 3)}</span>
                  <span title={t('memory.liveDec')}>dec {signed(v.live_decision, 3)}</span>
                  <span class="spacer" />
                  {m.state === 'law' ? (
                    <span class="muted" title={t('memory.immutable')}>
                      <Icon.Shield label={t('memory.immutable')} />
                    </span>
                  ) : (
                    <>
                      {timeless ? (
                        <Chip tone="info">{t('memory.pinned')}</Chip>
                      ) : (
                        <button type="button" class="icon-btn" aria-label={t('memory.pin')} title={t('memory.pin')} onClick={() => void memory.pin(m.id)}>
                          <Icon.Pin />
                        </button>
                      )}
                      <ConfirmButton
                        className="icon-btn"
                        ariaLabel={t('memory.forget')}
                        question={t('memory.forget.confirm')}
                        onConfirm={() => void memory.forget({ kind: 'megram', id: m.id })}
                      >
                        <Icon.Trash />
                      </ConfirmButton>
                    </>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      </section>

      <section data-testid="why-recalled">
        <h4>{t('memory.why')}</h4>
        {detail.recalls.length === 0 ? <p class="small muted">{t('memory.why.empty')}</p> : null}
        <ul class="recalls">
          {detail.recalls.map((r) => (
            <li key={`${r.task_id}-${r.round}-${r.at}`}>
              <div class="row small">
                <strong class="clip">{r.raw_input}</strong>
                <span class="muted nowrap">
                  {t('memory.why.round', { round: r.round })} · {relative(r.at, now, lang)}
                </span>
              </div>
              <ul>
                {r.constraints.map((c) => (
                  <li key={c.text} class="small">
                    <Chip tone={CONSTRAINT_TONE[c.kind] ?? 'neutral'}>{t(`constraint.${c.kind}`)}</Chip> {c.text}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

function RememberForm({ memory, group, onDone }: { memory: MemoryStore; group: GroupRef | null; onDone: () => void }) {
  const [level, setLevel] = useState<Level>('C');
  const [space, setSpace] = useState(group?.space ?? 'global:user');
  const [entity, setEntity] = useState(group?.entity ?? 'env:local');
  const [content, setContent] = useState('');
  return (
    <form
      class="card stack remember"
      data-testid="remember-form"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await memory.remember(level, space, entity, content)) onDone();
      }}
    >
      <h3>{t('memory.remember.title')}</h3>
      <textarea class="text-input" value={content} placeholder={t('memory.remember.content')} aria-label={t('memory.remember.content')} onInput={(e) => setContent(e.currentTarget.value)} />
      <div class="row">
        <label class="small muted" for="remember-level">
          {t('memory.level')}
        </label>
        <select id="remember-level" class="text-input narrow" value={level} onChange={(e) => setLevel(e.currentTarget.value as Level)}>
          {(['M', 'K', 'C'] as const).map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
        <input class="text-input mono" value={space} aria-label={t('memory.space')} onInput={(e) => setSpace(e.currentTarget.value)} />
        <input class="text-input mono" value={entity} aria-label={t('memory.entity')} onInput={(e) => setEntity(e.currentTarget.value)} />
      </div>
      <div class="row">
        <span class="spacer" />
        <button type="button" class="btn" onClick={onDone}>
          {t('common.cancel')}
        </button>
        <button type="submit" class="btn primary" disabled={content.trim().length === 0}>
          {t('memory.remember.submit')}
        </button>
      </div>
    </form>
  );
}
