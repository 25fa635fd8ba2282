// Past runs and their replay: the schedules and how each kind of task went here, then step
// through what a run put on the bus, watch the pipeline as it stood at each step, and see
// the whole loss trajectory.

import type { ReadonlySignal } from '@preact/signals';
import { useEffect, useMemo, useState } from 'preact/hooks';

import { locale, t, tn, type MessageKey } from '../../i18n';
import type { DeliveryTrend, ScheduleView, TaskRun } from '../../ipc/commands';
import { ChartCanvas } from '../../shared/chart';
import { dateTime, percent, relative, seconds, time } from '../../shared/format';
import { Icon } from '../../shared/icons';
import { darkMode, palette } from '../../shared/theme';
import { Chip, Empty, ErrorText, type Tone } from '../../shared/widgets';
import { ResultCard } from '../popup/Popup';
import { directiveName, PipelineView } from '../pipeline/views';
import { lossChartConfig } from './chart';
import type { TasksStore } from './store';

const STATUS_TONE: Record<TaskRun['status'], Tone> = {
  open: 'info',
  accepted: 'good',
  success: 'good',
  abandoned: 'bad',
  cancelled: 'warn',
  answered: 'neutral',
  unfinished: 'warn',
};

const TREND_TONE: Record<DeliveryTrend, Tone> = { better: 'good', steady: 'neutral', worse: 'bad' };

const PLAY_STEP_MS = 350;

export function TasksPanel({ tasks, now, focusTask }: { tasks: TasksStore; now: ReadonlySignal<number>; focusTask: string | null }) {
  const runs = tasks.runs.value.value;
  const [playing, setPlaying] = useState(false);

  useEffect(() => {
    if (runs === null && !tasks.runs.loading.value) void tasks.runs.load();
  }, [runs, tasks]);

  // Every time the panel opens: the popup may have made or removed one since.
  useEffect(() => {
    void tasks.schedules.load();
  }, [tasks]);

  const kinds = tasks.kinds.value.value;
  useEffect(() => {
    if (kinds === null && !tasks.kinds.loading.value) void tasks.kinds.load();
  }, [kinds, tasks]);

  useEffect(() => {
    if (!runs || runs.length === 0) return;
    const wanted = focusTask ? runs.find((r) => r.task_id === focusTask) : null;
    const target = wanted ?? (tasks.selectedRunId.value ? null : runs[0]);
    if (target && target.run_id !== tasks.selectedRunId.value) void tasks.open(target.run_id);
  }, [runs, focusTask, tasks]);

  const total = tasks.recording.value?.envelopes.length ?? 0;
  const step = tasks.step.value;
  useEffect(() => {
    if (!playing) return undefined;
    if (step >= total) {
      setPlaying(false);
      return undefined;
    }
    const timer = setTimeout(() => tasks.seek(step + 1), PLAY_STEP_MS);
    return () => clearTimeout(timer);
  }, [playing, step, total, tasks]);

  const decisions = tasks.decisions.value;
  const dark = darkMode.value;
  const lang = locale.value;
  const chart = useMemo(
    () =>
      decisions.length > 0
        ? lossChartConfig(decisions, palette(dark), {
            round: t('tasks.chart.round'),
            directive: (d) => directiveName(d),
          })
        : null,
    // The labels depend on the language too.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [decisions, dark, lang],
  );

  const view = tasks.view.value;
  const recording = tasks.recording.value;
  return (
    <div class="split">
      <aside class="sidebar" aria-label={t('panels.tab.tasks')}>
        {runs === null ? <p class="muted pad">{t('common.loading')}</p> : null}
        {runs?.length === 0 ? <Empty>{t('tasks.empty')}</Empty> : null}
        <ul class="list" role="listbox" aria-label={t('panels.tab.tasks')}>
          {runs?.map((r) => (
            <li key={r.run_id} role="option" aria-selected={r.run_id === tasks.selectedRunId.value} class={r.run_id === tasks.selectedRunId.value ? 'selected' : ''} onClick={() => void tasks.open(r.run_id)}>
              <div class="row">
                <span class="list-title">{r.raw_input}</span>
              </div>
              <div class="row small muted">
                <Chip tone={STATUS_TONE[r.status]}>{t(`tasks.status.${r.status}` as MessageKey)}</Chip>
                {r.replans > 0 ? <span>{tn('result.replans', r.replans)}</span> : null}
                {r.law1 ? <span class="chip warn">{t('law1.badge')}</span> : null}
                <span class="spacer" />
                <span>{relative(r.started_at, now.value, lang)}</span>
              </div>
            </li>
          ))}
        </ul>
      </aside>
      <main class="detail" aria-label={t('tasks.replay')}>
        <Schedules tasks={tasks} />
        <TaskKinds tasks={tasks} />
        {tasks.error.value ? <ErrorText>{tasks.error.value}</ErrorText> : null}
        {!recording || !view ? (
          <Empty>{t('tasks.select')}</Empty>
        ) : (
          <div class="stack">
            <div class="row replay-bar">
              <h2 class="grow clip">{recording.run.raw_input}</h2>
              <button type="button" class="icon-btn" aria-label={t('tasks.first')} title={t('tasks.first')} onClick={() => tasks.seek(1)}>
                <Icon.First />
              </button>
              <button type="button" class="icon-btn" aria-label={t('tasks.prev')} title={t('tasks.prev')} onClick={() => tasks.seek(step - 1)}>
                <Icon.Prev />
              </button>
              <button type="button" class="icon-btn" aria-label={playing ? t('tasks.pause') : t('tasks.play')} title={playing ? t('tasks.pause') : t('tasks.play')} onClick={() => {
                if (!playing && step >= total) tasks.seek(1);
                setPlaying(!playing);
              }}>
                {playing ? <Icon.Pause /> : <Icon.Play />}
              </button>
              <button type="button" class="icon-btn" aria-label={t('tasks.next')} title={t('tasks.next')} onClick={() => tasks.seek(step + 1)}>
                <Icon.Next />
              </button>
              <button type="button" class="icon-btn" aria-label={t('tasks.last')} title={t('tasks.last')} onClick={() => tasks.seek(total)}>
                <Icon.Last />
              </button>
            </div>
            <div class="row">
              <input
                class="scrubber"
                type="range"
                min={1}
                max={Math.max(1, total)}
                value={step}
                aria-label={t('tasks.timeline')}
                onInput={(e) => tasks.seek(Number(e.currentTarget.value))}
              />
              <span class="small muted nowrap" data-testid="step">
                {t('tasks.step', { n: step, total })}
              </span>
            </div>

            <section class="card">
              <h3 class="section-title">{t('tasks.trajectory')}</h3>
              {chart ? (
                <ChartCanvas config={chart} label={t('tasks.chart.label')} height={190} testId="loss-chart" />
              ) : (
                <p class="small muted">{t('tasks.trajectory.empty')}</p>
              )}
            </section>

            <div class="replay-grid">
              <section class="card">
                <PipelineView task={view} flowOpen={false} />
                {view.result ? <ResultCard task={view} undo={tasks.undo} /> : null}
              </section>
              <section class="card timeline">
                <h3 class="section-title">{t('tasks.timeline')}</h3>
                {/* It scrolls: focusable, so the keyboard can scroll it too. */}
                <ol class="flow-lines selectable" tabIndex={0} aria-label={t('tasks.timeline')}>
                  {recording.envelopes.map((e, i) => (
                    <li key={e.id} class={i + 1 === step ? 'current' : i + 1 > step ? 'future' : ''} onClick={() => tasks.seek(i + 1)}>
                      <span class="flow-time">{time(e.timestamp, lang)}</span>
                      <span class="flow-route">
                        {e.from} → {e.to}
                      </span>
                      <span class="flow-kind">{e.message.type}</span>
                    </li>
                  ))}
                </ol>
              </section>
            </div>
          </div>
        )}
      </main>
    </div>
  );
}

/** The answer windows offered, in minutes: a quarter hour, an hour, a morning, a day. */
const WINDOWS = [15, 60, 240, 1440] as const;

/** How long a schedule's question waits for an answer: one of WINDOWS, or the one it has. */
function WindowChoice({ schedule, tasks }: { schedule: ScheduleView; tasks: TasksStore }) {
  const current = Math.round(schedule.schedule.answer_window_secs / 60);
  const offered: number[] = (WINDOWS as readonly number[]).includes(current) ? [...WINDOWS] : [...WINDOWS, current].sort((a, b) => a - b);
  return (
    <select
      class="input"
      data-testid="schedule-window-choice"
      aria-label={t('schedules.window.of', { task: schedule.schedule.task })}
      value={String(current)}
      onChange={(e) => void tasks.setScheduleWindow(schedule.schedule.id, Number((e.target as HTMLSelectElement).value))}
    >
      {offered.map((m) => (
        <option key={m} value={String(m)}>
          {m % 1440 === 0 ? tn('schedules.window.days', m / 1440) : m % 60 === 0 ? tn('schedules.window.hours', m / 60) : t('schedules.window.minutes', { count: m })}
        </option>
      ))}
    </select>
  );
}

/** Every schedule: when it runs, its task, its next run in local time, how often it ran,
 * and how long a run's question waits for an answer. */
function Schedules({ tasks }: { tasks: TasksStore }) {
  const list = tasks.schedules.value.value;
  const error = tasks.scheduleError.value ?? (list === null ? tasks.schedules.error.value : null);
  const lang = locale.value;
  return (
    <section class="card schedules" data-testid="schedules" aria-labelledby="schedules-title">
      <h3 class="section-title" id="schedules-title">
        {t('schedules.title')}
      </h3>
      {error ? <ErrorText>{error}</ErrorText> : null}
      {list === null ? (
        error ? null : <p class="small muted">{t('common.loading')}</p>
      ) : list.length === 0 ? (
        <p class="small muted" data-testid="schedules-empty">
          {t('schedules.empty')}
        </p>
      ) : (
        <>
          <p class="small muted">{t('schedules.about')}</p>
          <ul class="stack">
            {list.map((s) => (
              <li key={s.schedule.id} class="row" data-testid="schedule">
                <span class="stack grow" style={{ gap: '1px' }}>
                  <span class="selectable" data-testid="schedule-task">
                    {s.schedule.task}
                  </span>
                  <span class="small muted" data-testid="schedule-when">
                    {s.when} · {t('schedules.next', { date: dateTime(s.next_run, lang) })} ·{' '}
                    {s.schedule.runs > 0 ? tn('schedules.runs', s.schedule.runs) : t('schedules.runs.none')}
                  </span>
                  <span class="small muted" data-testid="schedule-window">
                    {s.window}
                  </span>
                </span>
                <WindowChoice schedule={s} tasks={tasks} />
                <button type="button" class="btn" aria-label={t('schedules.remove.of', { task: s.schedule.task })} onClick={() => void tasks.removeSchedule(s.schedule.id)}>
                  {t('schedules.remove')}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** Every kind of task with three counted runs or more: how its runs went on this machine. */
function TaskKinds({ tasks }: { tasks: TasksStore }) {
  const kinds = tasks.kinds.value.value;
  const error = tasks.kinds.error.value;
  return (
    <section class="card task-kinds" aria-labelledby="task-kinds-title">
      <h3 class="section-title" id="task-kinds-title">
        {t('tasks.kinds.title')}
      </h3>
      {error && kinds === null ? (
        <ErrorText>{error}</ErrorText>
      ) : kinds === null ? (
        <p class="small muted">{t('common.loading')}</p>
      ) : kinds.length === 0 ? (
        <p class="small muted" data-testid="task-kinds-empty">
          {t('tasks.kinds.empty')}
        </p>
      ) : (
        <table class="grid" data-testid="task-kinds" aria-labelledby="task-kinds-title">
          <thead>
            <tr>
              <th scope="col">{t('tasks.kinds.kind')}</th>
              <th scope="col" class="num">{t('tasks.kinds.runs')}</th>
              <th scope="col" class="num">{t('tasks.kinds.delivered')}</th>
              <th scope="col" class="num" title={t('tasks.kinds.passK.meaning')}>
                {t('tasks.kinds.passK')}
              </th>
              <th scope="col" class="num">{t('tasks.kinds.time')}</th>
              <th scope="col" class="num">{t('tasks.kinds.calls')}</th>
              <th scope="col">{t('tasks.kinds.trend')}</th>
              <th scope="col">{t('tasks.kinds.lastFailure')}</th>
            </tr>
          </thead>
          <tbody>
            {kinds.map((k) => (
              <tr key={k.kind}>
                <td class="cell-clip" title={k.example}>
                  <div class="clip">{k.kind}</div>
                  <div class="clip small muted">{k.example}</div>
                </td>
                <td class="num">{k.runs}</td>
                <td class="num">{k.delivered}</td>
                <td class="num">{percent(k.pass_k)}</td>
                <td class="num">{seconds(k.typical_ms)}</td>
                <td class="num">{k.typical_model_calls}</td>
                <td>{k.trend ? <Chip tone={TREND_TONE[k.trend]}>{t(`tasks.kinds.trend.${k.trend}`)}</Chip> : '—'}</td>
                <td class="cell-clip" title={k.last_failure ?? undefined}>
                  {k.last_failure ?? '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
