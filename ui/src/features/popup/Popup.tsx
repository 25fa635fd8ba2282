// The hotkey popup: a task input with history and how tasks like the one typed went here,
// the live pipeline, clarifying questions answered inline, the result with its cost per
// role, cancel, and the Law 1 dialog on top of everything when an action needs approval.
// An input that says when it should run ("every weekday at 9, …") makes a schedule
// instead: the popup says what was kept and can remove it.

import type { ReadonlySignal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';

import { locale, t, tn } from '../../i18n';
import type { Law1Tally, MemoryRecall, Value } from '../../ipc/contracts';
import type { PanelFocus, PanelTab, SandboxInfo, TaskRun } from '../../ipc/commands';
import { clock, integer, relative, seconds } from '../../shared/format';
import { Icon } from '../../shared/icons';
import { Chip, ErrorText, type Tone } from '../../shared/widgets';
import { Law1Dialog, ResolvedNotices } from '../approvals/Law1Dialog';
import { grantWords, sandboxText } from '../approvals/law1-text';
import { ModelProgressView, ModelUnreachable, Onboarding } from '../model/ModelViews';
import { type ModelStore, usable } from '../model/store';
import type { SettingsStore } from '../settings/store';
import type { ApprovalsStore } from '../approvals/store';
import { isFinished, type TaskView } from '../pipeline/model';
import type { PipelineStore, ScheduledNotice } from '../pipeline/store';
import { directiveName, PipelineView, roleName } from '../pipeline/views';
import { type TasksLikeLookup, TasksLikeLine, useTasksLike } from './TasksLike';
import { type UndoActions, UndoTask } from './UndoTask';

export interface PopupProps {
  pipeline: PipelineStore;
  /** The latest runs, newest first, shown while no task is on screen. */
  recent?: readonly TaskRun[] | null;
  approvals: ApprovalsStore;
  /** The model's state (onboarding, progress, unreachable); absent in views that do not need it. */
  model?: ModelStore;
  settings?: SettingsStore;
  now: ReadonlySignal<number>;
  skipped: ReadonlySignal<number>;
  openPanel: (tab: PanelTab, focus: PanelFocus | null) => void;
  /** Undo for a finished task that changed files. */
  undo?: UndoActions;
  /** How tasks like the one being typed went here (absent: nothing is said). */
  tasksLike?: TasksLikeLookup;
  hide: () => void;
  /** Law 1's sandbox; while it is off the popup says so (every unproven command asks). */
  sandbox?: SandboxInfo | null;
}

export function Popup({ pipeline, recent, approvals, model, settings, now, skipped, openPanel, hide, sandbox, undo, tasksLike }: PopupProps) {
  const task = pipeline.current.value;
  const scheduled = pipeline.scheduled.value;
  const running = pipeline.running.value;
  const status = model?.status.value ?? null;
  const ready = usable(status);
  const dialogOpen = approvals.first.value !== null;

  const body = useRef<HTMLDivElement>(null);
  const phase = task?.phase;
  useEffect(() => {
    // A result (or an answer) replaces the pipeline at the top: show it from its start.
    if (phase === 'done' || phase === 'chat') body.current?.scrollTo({ top: 0 });
  }, [phase]);

  const onWhy = (recall: MemoryRecall) => openPanel('memory', { kind: 'group', space: recall.space, entity: recall.entity });

  // Esc hides the popup, except while the Law 1 dialog is up (there Esc denies).
  const escape = useRef({ dialogOpen, hide });
  escape.current = { dialogOpen, hide };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented && !escape.current.dialogOpen) escape.current.hide();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div class="popup" data-testid="popup">
      <header class="popup-header">
        <span class="logo">
          <Icon.Logo />
        </span>
        <strong>{t('app.name')}</strong>
        <span class="muted small" data-testid="status">
          {running && task ? t('app.running', { elapsed: clock(now.value - Date.parse(task.startedAt)) }) : ready ? t('app.idle') : t('popup.placeholder.noModel')}
        </span>
        <span class="spacer" />
        <button type="button" class="icon-btn" title={t('app.open.tasks')} aria-label={t('app.open.tasks')} onClick={() => openPanel('tasks', task ? { kind: 'task', task_id: task.taskId } : null)}>
          <Icon.Tasks />
        </button>
        <button type="button" class="icon-btn" title={t('app.open.memory')} aria-label={t('app.open.memory')} onClick={() => openPanel('memory', null)}>
          <Icon.Memory />
        </button>
        <button type="button" class="icon-btn" title={t('app.open.audit')} aria-label={t('app.open.audit')} onClick={() => openPanel('audit', null)}>
          <Icon.Audit />
        </button>
        <button type="button" class="icon-btn" title={t('app.open.settings')} aria-label={t('app.open.settings')} onClick={() => openPanel('settings', null)}>
          <Icon.Settings />
        </button>
      </header>

      <TaskInput pipeline={pipeline} disabled={running || !ready} tasksLike={tasksLike} />
      {ready && !task && status?.pace ? (
        <p class="muted small model-pace" data-testid="model-pace">
          {status.pace}
        </p>
      ) : null}
      {/* Live regions exist before their text changes, so screen readers announce each phase. */}
      <p class="status-line" role="status" aria-live="polite" aria-atomic="true" data-testid="status-line">
        {task ? (pipeline.status.value.get(task.taskId) ?? '') : ''}
      </p>
      <p class="sr-only" aria-live="polite" aria-atomic="true" data-testid="model-announcer">
        {status?.phase === 'starting' ? (status.progress?.text ?? t('model.starting.title')) : ''}
      </p>
      <p class="sr-only" aria-live="polite" aria-atomic="true" data-testid="result-announcer">
        {task?.result ? `${task.result.directive === 'abandon' ? t('result.abandon') : t('result.success')}: ${plainSummary(task.result.summary).text}` : ''}
      </p>
      {pipeline.error.value ? <ErrorText>{pipeline.error.value.message}</ErrorText> : null}
      {skipped.value > 0 ? <p class="callout warn small">{t('app.gap', { count: skipped.value })}</p> : null}
      {sandbox && !sandbox.on ? (
        <p class="callout warn small" data-testid="sandbox-off" role="status">
          {t('app.sandboxOff', { description: sandboxText(sandbox.description) })}
        </p>
      ) : null}
      <ResolvedNotices approvals={approvals} />

      {status && (status.phase === 'unreachable' || (status.phase === 'not_configured' && !status.first_run)) ? <ModelUnreachable status={status} openPanel={openPanel} /> : null}

      <div class="popup-body" ref={body}>
        {status?.phase === 'not_configured' && status.first_run && model && settings ? (
          <Onboarding model={model} settings={settings} />
        ) : status?.phase === 'starting' && status.source === 'built_in' ? (
          <ModelProgressView status={status} />
        ) : task ? (
          <TaskPanel task={task} pipeline={pipeline} onWhy={onWhy} openPanel={openPanel} undo={undo} />
        ) : scheduled ? (
          <ScheduledCard notice={scheduled} pipeline={pipeline} />
        ) : (
          <Welcome pipeline={pipeline} recent={recent ?? []} now={now.value} openPanel={openPanel} ready={ready} />
        )}
      </div>

      <Law1Dialog approvals={approvals} now={now} />
    </div>
  );
}

function TaskInput({ pipeline, disabled, tasksLike }: { pipeline: PipelineStore; disabled: boolean; tasksLike?: TasksLikeLookup }) {
  const [text, setText] = useState('');
  const [cursor, setCursor] = useState(-1);
  const input = useRef<HTMLTextAreaElement>(null);
  // Only while a task can be sent: submitting clears the text, and a running task the rest.
  const like = useTasksLike(text, disabled ? undefined : tasksLike);

  useEffect(() => {
    const focus = () => input.current?.focus();
    focus();
    window.addEventListener('focus', focus);
    return () => window.removeEventListener('focus', focus);
  }, []);

  useEffect(() => {
    const el = input.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 120)}px`;
  }, [text]);

  const history = pipeline.history.value;
  const submit = async () => {
    if (text.trim().length === 0 || disabled) return;
    const value = text;
    await pipeline.submit(value);
    if (!pipeline.error.value) {
      setText('');
      setCursor(-1);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const el = e.currentTarget as HTMLTextAreaElement;
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void submit();
    } else if (e.key === 'ArrowUp' && el.selectionStart === 0 && el.selectionEnd === 0 && history.length > 0) {
      e.preventDefault();
      const next = Math.min(cursor + 1, history.length - 1);
      setCursor(next);
      setText(history[next] ?? '');
    } else if (e.key === 'ArrowDown' && cursor >= 0 && el.selectionStart === el.value.length) {
      e.preventDefault();
      const next = cursor - 1;
      setCursor(next);
      setText(next >= 0 ? (history[next] ?? '') : '');
    }
  };

  return (
    <div class="task-entry">
      <div class={`task-input ${disabled ? 'disabled' : ''}`}>
        <textarea
          ref={input}
          rows={1}
          value={text}
          placeholder={disabled && !pipeline.running.value ? t('popup.placeholder.noModel') : t('popup.placeholder')}
          aria-label={t('popup.placeholder')}
          disabled={disabled || pipeline.submitting.value}
          onInput={(e) => {
            setText(e.currentTarget.value);
            setCursor(-1);
          }}
          onKeyDown={onKeyDown}
        />
        <button type="button" class="icon-btn submit" aria-label={t('popup.submit')} title={t('popup.submit')} disabled={disabled || text.trim().length === 0} onClick={() => void submit()}>
          {pipeline.submitting.value ? <span class="spinner" /> : <Icon.Return />}
        </button>
      </div>
      <TasksLikeLine line={like} />
    </div>
  );
}

const RUN_TONE: Record<TaskRun['status'], Tone> = { open: 'info', accepted: 'good', success: 'good', abandoned: 'bad', cancelled: 'warn', answered: 'neutral', unfinished: 'warn' };

function Welcome({
  pipeline,
  recent,
  now,
  openPanel,
  ready,
}: {
  pipeline: PipelineStore;
  recent: readonly TaskRun[];
  now: number;
  openPanel: PopupProps['openPanel'];
  /** Whether a model can take a task now (the examples run one). */
  ready: boolean;
}) {
  const examples = [t('popup.example.1'), t('popup.example.2'), t('popup.example.3')];
  const lang = locale.value;
  return (
    <div class="welcome">
      <h3>{t('popup.empty.title')}</h3>
      <p class="muted">{t('popup.empty.body')}</p>
      {recent.length > 0 ? (
        <>
          <h4>{t('popup.recent')}</h4>
          <ul class="recent" data-testid="recent">
            {recent.slice(0, 4).map((r) => (
              <li key={r.run_id}>
                <button type="button" class="recent-run" onClick={() => openPanel('tasks', { kind: 'task', task_id: r.task_id })}>
                  <span class="clip grow">{r.raw_input}</span>
                  <Chip tone={RUN_TONE[r.status]}>{t(`tasks.status.${r.status}`)}</Chip>
                  <span class="small muted nowrap">{relative(r.started_at, now, lang)}</span>
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h4>{t('popup.examples')}</h4>
      <ul class="examples">
        {examples.map((e) => (
          <li key={e}>
            <button type="button" class="example" disabled={!ready} onClick={() => void pipeline.submit(e)}>
              {e}
            </button>
          </li>
        ))}
      </ul>
      <p class="small muted hint">{t('popup.hint')}</p>
    </div>
  );
}

function TaskPanel({
  task,
  pipeline,
  onWhy,
  openPanel,
  undo,
}: {
  task: TaskView;
  pipeline: PipelineStore;
  onWhy: (recall: MemoryRecall) => void;
  openPanel: PopupProps['openPanel'];
  undo?: UndoActions;
}) {
  const finished = isFinished(task);
  return (
    <div class="stack task-panel">
      <div class="task-title">
        <p class="selectable" data-testid="task-input">
          {task.rawInput}
        </p>
        {task.intent && task.intent !== task.rawInput ? <p class="small muted selectable">→ {task.intent}</p> : null}
      </div>

      {task.clarification ? <Clarification question={task.clarification.question} onAnswer={(a) => void pipeline.answerClarification(a)} /> : null}

      {task.result ? <ResultCard task={task} undo={undo} onReplay={() => openPanel('tasks', { kind: 'task', task_id: task.taskId })} /> : null}
      {task.cancelled !== null ? <p class="callout warn">{t('result.cancelled', { reason: task.cancelled })}</p> : null}

      {task.chat !== null ? (
        <div class="card chat" data-testid="chat">
          <h4>{t('result.chat')}</h4>
          <p class="selectable">{task.chat}</p>
        </div>
      ) : (
        <details class="pipeline-details" data-testid="pipeline-details">
          <summary>{t('pipeline.details')}</summary>
          <PipelineView task={task} onWhy={onWhy} />
        </details>
      )}

      <div class="row actions">
        {finished ? (
          <button type="button" class="btn" onClick={() => pipeline.dismiss()}>
            <Icon.Plus />
            {t('popup.newTask')}
          </button>
        ) : (
          <button type="button" class="btn" disabled={pipeline.cancelling.value} onClick={() => void pipeline.cancel()} data-testid="cancel">
            <Icon.Stop />
            {pipeline.cancelling.value ? t('popup.cancelling') : t('popup.cancel')}
          </button>
        )}
      </div>
    </div>
  );
}

/** In place of a task: the schedule the input made, what the core said of it, and Remove. */
function ScheduledCard({ notice, pipeline }: { notice: ScheduledNotice; pipeline: PipelineStore }) {
  const [removing, setRemoving] = useState(false);
  const remove = async () => {
    setRemoving(true);
    try {
      await pipeline.removeSchedule();
    } finally {
      setRemoving(false);
    }
  };
  return (
    <div class="stack task-panel">
      <section class="card scheduled" data-testid="scheduled-card" aria-labelledby="scheduled-title">
        <header class="row">
          <span class="result-mark" aria-hidden="true">
            🕘
          </span>
          <h3 id="scheduled-title">{t('popup.scheduled.title')}</h3>
        </header>
        <p class="selectable" data-testid="scheduled-message">
          {notice.message}
        </p>
        {/* There before it says anything, so the removal is announced. */}
        <p class="small" role="status" aria-live="polite" data-testid="scheduled-removed">
          {notice.removed ? t('popup.scheduled.removed') : ''}
        </p>
      </section>
      <div class="row actions">
        {notice.removed ? null : (
          <button type="button" class="btn" disabled={removing} onClick={() => void remove()} data-testid="scheduled-remove">
            <Icon.Trash />
            {removing ? t('popup.scheduled.removing') : t('popup.scheduled.remove')}
          </button>
        )}
        <button type="button" class="btn" onClick={() => pipeline.dismiss()}>
          <Icon.Plus />
          {t('popup.newTask')}
        </button>
      </div>
    </div>
  );
}

function Clarification({ question, onAnswer }: { question: string; onAnswer: (answer: string) => void }) {
  const [answer, setAnswer] = useState('');
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  return (
    <form
      class="callout clarify"
      data-testid="clarification"
      onSubmit={(e) => {
        e.preventDefault();
        onAnswer(answer);
      }}
    >
      <h4>{t('clarify.title')}</h4>
      <p class="selectable">{question}</p>
      <div class="row">
        <input ref={field} class="text-input" value={answer} placeholder={t('clarify.placeholder')} aria-label={t('clarify.placeholder')} onInput={(e) => setAnswer(e.currentTarget.value)} />
        <button type="submit" class="btn primary" disabled={answer.trim().length === 0}>
          {t('clarify.send')}
        </button>
      </div>
      <button type="button" class="btn plain small" onClick={() => onAnswer('')}>
        {t('clarify.proceed')}
      </button>
    </form>
  );
}

/** A value as a person reads it: text as text, lists as lists, records as labelled lines. */
function OutputView({ output }: { output: Value }) {
  if (output === null || output === undefined) return null;
  if (typeof output === 'string') return output.trim() ? <p class="output-text selectable">{output}</p> : null;
  if (typeof output === 'number' || typeof output === 'boolean') return <p class="output-text selectable">{String(output)}</p>;
  if (Array.isArray(output)) {
    if (output.length === 0) return null;
    return (
      <ul class="output-list selectable">
        {output.map((x, i) => (
          <li key={i}>{inline(x)}</li>
        ))}
      </ul>
    );
  }
  const entries = Object.entries(output);
  if (entries.length === 0) return null;
  return (
    <dl class="output-fields selectable">
      {entries.map(([k, v]) => (
        <div key={k} class="output-field">
          <dt>{k.replace(/_/g, ' ')}</dt>
          <dd>{inline(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One value on one line: nested lists and records as `a, b` and `key: value · …`. */
function inline(value: Value): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(inline).join(', ');
  return Object.entries(value)
    .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${inline(v)}`)
    .join(' · ');
}

/** A summary without the `[LAW1]` marker the solver puts on it, and whether it had one. */
export function plainSummary(summary: string): { text: string; law1: boolean } {
  const trimmed = summary.trimStart();
  if (trimmed.startsWith('[LAW1]')) return { text: trimmed.slice('[LAW1]'.length).trimStart(), law1: true };
  return { text: summary.trim(), law1: false };
}

/** A measured change to a file, as a verb in the UI language. */
function effectVerb(effect: string): string {
  switch (effect) {
    case 'create':
      return t('result.effect.create');
    case 'append':
      return t('result.effect.append');
    case 'overwrite':
      return t('result.effect.overwrite');
    case 'delete':
      return t('result.effect.delete');
    case 'move':
      return t('result.effect.move');
    default:
      return effect;
  }
}

/** How many of a task's Law 1 gates asked the user (approved, denied or trashed). */
function askedOf(tally: Law1Tally): number {
  return tally.approved + tally.denied + tally.trashed;
}

/**
 * A task's Law 1 tally in words, only its nonzero parts: "Law 1: 2 actions asked for your
 * approval (1 approved, 1 denied); 1 action ran under your standing grants." Null for an
 * empty tally.
 */
export function law1Words(tally: Law1Tally): string | null {
  const asked = askedOf(tally);
  const clauses: string[] = [];
  if (asked > 0) {
    const how = (
      [
        ['result.law1.approved', tally.approved],
        ['result.law1.denied', tally.denied],
        ['result.law1.trashed', tally.trashed],
      ] as const
    )
      .filter(([, count]) => count > 0)
      .map(([key, count]) => t(key, { count }))
      .join(t('result.list.sep'));
    clauses.push(tn('result.law1.asked', asked, { how }));
  }
  if (tally.granted > 0) clauses.push(tn('result.law1.granted', tally.granted));
  if (clauses.length === 0) return null;
  return t('result.law1.tally', { parts: clauses.join(t('result.clause.sep')) });
}

/** A list of lines under a heading, like the files a task changed; nothing when empty. */
function Lines({ title, lines, testId }: { title: string; lines: readonly string[] | undefined; testId: string }) {
  if (!lines || lines.length === 0) return null;
  return (
    <div>
      <h4>{title}</h4>
      <ul class="effects selectable" data-testid={testId}>
        {lines.map((line, i) => (
          <li key={`${i}:${line}`}>{line}</li>
        ))}
      </ul>
    </div>
  );
}

export function ResultCard({ task, onReplay, undo }: { task: TaskView; onReplay?: () => void; undo?: UndoActions }) {
  const r = task.result;
  if (!r) return null;
  const ok = r.directive !== 'abandon';
  const summary = plainSummary(r.summary);
  // Asked during the task (a request was seen), or so the tally says; without a tally, so
  // the summary's marker says — unless every gate was a standing grant's, which asked
  // nobody (the grants are listed on their own).
  const tally = r.law1;
  const law1 = task.law1 || (tally ? askedOf(tally) > 0 : summary.law1 && !(r.grants && r.grants.length > 0));
  // The tally in words when there is one; the fixed sentence when only a request was seen.
  const law1Note = (tally ? law1Words(tally) : null) ?? (law1 ? t('result.law1') : null);
  const roles = Object.entries(task.cost);
  const totals = roles.reduce(
    (sum, [, c]) => ({ calls: sum.calls + (c?.calls ?? 0), tokens: sum.tokens + (c ? c.promptTokens + c.completionTokens : 0), ms: sum.ms + (c?.ms ?? 0) }),
    { calls: 0, tokens: 0, ms: 0 },
  );
  const done = task.subtasks.filter((s) => s.status === 'matched');
  const lang = locale.value;
  return (
    <section class={`card result ${ok ? 'ok' : 'failed'}`} data-testid="result" aria-labelledby="result-title">
      <header class="row">
        <span class="result-mark" aria-hidden="true">
          {ok ? '✅' : '❌'}
        </span>
        <h3 id="result-title">{ok ? t('result.success') : t('result.abandon')}</h3>
      </header>
      <p class="summary selectable" data-testid="summary">
        {summary.text}
      </p>
      <OutputView output={r.output} />
      {r.scheduled?.note ? (
        <p class="small muted selectable" data-testid="result-scheduled">
          {r.scheduled.note}
        </p>
      ) : null}
      {!ok && task.accomplished ? (
        <div>
          <h4>{t('result.accomplished')}</h4>
          <p class="output-text selectable" data-testid="accomplished">
            {task.accomplished}
          </p>
        </div>
      ) : ok && done.length > 0 ? (
        <div>
          <h4>{t('result.done')}</h4>
          <ul class="done-steps" data-testid="done-steps">
            {done.map((s) => (
              <li key={s.id}>{s.intent}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <Lines title={t('result.notMet')} lines={r.not_met} testId="result-not-met" />
      {r.unverified && r.unverified.length > 0 ? (
        <p class="small muted selectable" data-testid="result-unverified">
          {t('result.unverified', { items: r.unverified.join(t('result.list.sep')) })}
        </p>
      ) : null}
      <Lines title={t('result.account')} lines={r.account} testId="result-account" />
      {r.effects && r.effects.length > 0 ? (
        <div>
          <h4>{t('result.effects')}</h4>
          <ul class="effects selectable" data-testid="effects">
            {r.effects.map((e) => (
              <li key={`${e.effect}:${e.path}`}>
                {effectVerb(e.effect)} {e.path}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {undo && r.effects && r.effects.length > 0 ? <UndoTask key={task.taskId} taskId={task.taskId} undo={undo} /> : null}
      {r.grants && r.grants.length > 0 ? (
        <div>
          <h4>{t('result.grants')}</h4>
          <ul class="effects selectable" data-testid="result-grants">
            {r.grants.map((g) => (
              <li key={g}>{grantWords(g)}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {law1Note ? (
        <p class="small muted" data-testid="law1-note">
          {law1Note}
        </p>
      ) : null}
      {r.next_moves && r.next_moves.length > 0 ? (
        <div>
          <h4>{t('result.nextMoves')}</h4>
          <ol class="next-moves" data-testid="next-moves">
            {r.next_moves.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ol>
        </div>
      ) : null}
      <details class="cost" data-testid="result-details">
        <summary>{t('result.details')}</summary>
        <p class="row wrap small">
          <Chip tone={ok ? 'good' : 'bad'}>{directiveName(r.directive)}</Chip>
          {r.replans > 0 ? <Chip>{tn('result.replans', r.replans)}</Chip> : null}
          {law1 ? <Chip tone="warn">[LAW1]</Chip> : null}
          <span class="muted">
            {t('result.cost')} · {integer(totals.tokens, lang)} tok · {seconds(totals.ms)}
          </span>
        </p>
        <table class="grid" data-testid="cost">
          <caption class="sr-only">{t('result.cost')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('result.cost.role')}</th>
              <th scope="col" class="num">{t('result.cost.calls')}</th>
              <th scope="col" class="num">{t('result.cost.tokens')}</th>
              <th scope="col" class="num">{t('result.cost.time')}</th>
            </tr>
          </thead>
          <tbody>
            {roles.map(([role, c]) =>
              c ? (
                <tr key={role}>
                  <td>
                    {role} <span class="muted">{roleName(role as Parameters<typeof roleName>[0])}</span>
                  </td>
                  <td class="num">{c.calls}</td>
                  <td class="num">{integer(c.promptTokens + c.completionTokens, lang)}</td>
                  <td class="num">{seconds(c.ms)}</td>
                </tr>
              ) : null,
            )}
            <tr class="total">
              <td>{t('result.cost.total')}</td>
              <td class="num">{totals.calls}</td>
              <td class="num">{integer(totals.tokens, lang)}</td>
              <td class="num">{seconds(totals.ms)}</td>
            </tr>
            <tr>
              <td>{t('result.cost.tools')}</td>
              <td class="num">{task.tools.calls}</td>
              <td class="num">—</td>
              <td class="num">{seconds(task.tools.ms)}</td>
            </tr>
          </tbody>
        </table>
      </details>
      {onReplay ? (
        <button type="button" class="btn plain" onClick={onReplay}>
          {t('result.replay')}
        </button>
      ) : null}
    </section>
  );
}
