// The pipeline drawn from a TaskView: each role's state, the loss of the current round
// with its arrow, the rationale while R2 replans, the sub-tasks, what memory said and
// the message flow. Shared by the live popup and the replay in the tasks panel.

import { useState } from 'preact/hooks';

import { t, type MessageKey } from '../../i18n';
import type { MemoryRecall, PlanDirective, Role } from '../../ipc/contracts';
import { fixed, percent, signed } from '../../shared/format';
import { Chip, type Tone } from '../../shared/widgets';
import { ARROWS, latestRound, PIPELINE_ROLES, type RoleActivity, type RoundPoint, type SubTaskView, type TaskView } from './model';

export function roleName(role: Role): string {
  return t(`role.${role}` as MessageKey);
}

export function directiveName(directive: string): string {
  return t(`directive.${directive}` as MessageKey);
}

const ACTIVITY_TONE: Record<RoleActivity, string> = {
  idle: 'idle',
  active: 'active',
  waiting: 'waiting',
  done: 'done',
  failed: 'failed',
};

export function RoleStrip({ task }: { task: TaskView }) {
  return (
    <ol class="roles" aria-label={t('pipeline.flow')}>
      {PIPELINE_ROLES.map((role) => {
        const activity = task.roles[role];
        return (
          <li key={role} class={`role ${ACTIVITY_TONE[activity]}`} data-role={role} data-activity={activity} title={`${roleName(role)} — ${t(`activity.${activity}`)}`}>
            <span class="dot" />
            <span class="role-id">{role}</span>
            <span class="sr-only">
              {roleName(role)}: {t(`activity.${activity}`)}
            </span>
          </li>
        );
      })}
    </ol>
  );
}

function Metric({ name, value, meaning, tone }: { name: string; value: string; meaning: string; tone?: string }) {
  return (
    <div class={`metric ${tone ?? ''}`}>
      <dt class="metric-name">{name}</dt>
      <dd class="metric-value">{value}</dd>
      <dd class="metric-meaning">{meaning}</dd>
    </div>
  );
}

export function LossRow({ point }: { point: RoundPoint | null }) {
  if (!point) return <p class="small muted loss-empty">{t('pipeline.noLoss')}</p>;
  const arrow = ARROWS[point.gradient];
  const tone = point.gradient === 'worsening' ? 'bad' : point.gradient === 'improving' ? 'good' : point.gradient === 'plateau' ? 'warn' : '';
  return (
    <div class="loss" data-testid="loss-row">
      {/* Each number says in words what it measures, on screen, not only on hover. */}
      <dl class="metrics">
        <Metric name="D" value={fixed(point.loss.D)} meaning={t('metric.D')} />
        <Metric name="P" value={fixed(point.loss.P)} meaning={t('metric.P')} />
        <Metric name="∇L" value={`${arrow} ${signed(point.gradL)}`} meaning={t('metric.gradL')} tone={tone} />
        <Metric name="Ω" value={percent(point.loss.Omega)} meaning={t('metric.Omega')} />
        <Metric name="L" value={fixed(point.loss.L)} meaning={t('metric.L')} />
      </dl>
      <span class={`gradient-label ${tone}`} data-testid="gradient">
        {arrow} {t(`gradient.${point.gradient}`)}
      </span>
    </div>
  );
}

export function ReplanCallout({ directive }: { directive: PlanDirective }) {
  const blocked = [...directive.blocked_tools, ...directive.blocked_targets];
  return (
    <div class="callout replan" role="status" data-testid="replan">
      <div class="row">
        <span class="spinner" aria-hidden="true" />
        <strong>{t('pipeline.replanning', { directive: directiveName(directive.directive) })}</strong>
        {directive.urgency === 'high' ? <Chip tone="bad">{t('pipeline.urgency.high')}</Chip> : null}
        {directive.urgency === 'low' ? <Chip tone="good">{t('pipeline.urgency.low')}</Chip> : null}
      </div>
      <p class="rationale selectable" data-testid="rationale">
        {directive.rationale}
      </p>
      {blocked.length > 0 ? (
        <p class="small">
          <span class="muted">{t('pipeline.blocked')}: </span>
          {blocked.map((b) => (
            <code key={b} class="blocked">
              {b}
            </code>
          ))}
        </p>
      ) : null}
    </div>
  );
}

const SUB_TONE: Record<SubTaskView['status'], Tone> = {
  queued: 'neutral',
  running: 'info',
  validating: 'info',
  correcting: 'warn',
  matched: 'good',
  failed: 'bad',
  skipped: 'neutral',
};

export function SubtaskList({ task }: { task: TaskView }) {
  if (task.subtasks.length === 0) return null;
  const rounds = [...new Set(task.subtasks.map((s) => s.round))];
  return (
    <section class="subtasks" aria-label={t('pipeline.subtasks')}>
      <h4>{t('pipeline.subtasks')}</h4>
      {rounds.map((round) => (
        <ul key={round} class={`subtask-round ${round < task.round ? 'past' : ''}`}>
          {rounds.length > 1 ? <li class="round-label small muted">{round === 0 ? t('pipeline.round', { round: 1 }) : t('pipeline.replan', { round })}</li> : null}
          {task.subtasks
            .filter((s) => s.round === round)
            .sort((a, b) => a.sequence - b.sequence)
            .map((s) => {
              const lastTool = s.tools.at(-1);
              return (
                <li key={s.id} class="subtask" data-status={s.status}>
                  <span class="seq">#{s.sequence}</span>
                  <div class="subtask-body">
                    <span class="intent">{s.intent}</span>
                    {lastTool ? (
                      <span class="small muted mono tool-line">
                        {lastTool.tool}: {lastTool.target}
                        {lastTool.error ? ` — ${lastTool.error}` : ''}
                      </span>
                    ) : null}
                    {s.failure && s.status !== 'matched' ? <span class="small failure">{s.failure}</span> : null}
                  </div>
                  <div class="subtask-status">
                    <Chip tone={SUB_TONE[s.status]}>{t(`sub.${s.status}`)}</Chip>
                    {s.attempt > 1 ? <span class="small muted">{t('pipeline.attempt', { n: s.attempt })}</span> : null}
                  </div>
                </li>
              );
            })}
        </ul>
      ))}
    </section>
  );
}

const CONSTRAINT_TONE: Record<string, Tone> = { should_prefer: 'good', must_not: 'bad', caution: 'warn' };

/**
 * What memory said for the latest planning round: R2 publishes one recall per group (the
 * task's kind first, then the operator's `global:user`), so every recall of the round is
 * shown, each with its "Why". The Four Laws, present on every plan, are one line.
 */
export function RecallList({ recalls, onWhy }: { recalls: readonly MemoryRecall[]; onWhy?: ((recall: MemoryRecall) => void) | undefined }) {
  const round = recalls.reduce((max, r) => Math.max(max, r.round ?? 0), 0);
  const shown = recalls.filter((r) => (r.round ?? 0) === round && r.constraints.length > 0);
  if (shown.length === 0) return null;
  return (
    <section class="recall" aria-label={t('pipeline.recall')}>
      <h4>{t('pipeline.recall')}</h4>
      {shown.map((recall) => {
        const laws = recall.constraints.filter((c) => c.source === 'law');
        const others = recall.constraints.filter((c) => c.source !== 'law');
        return (
          <div key={`${recall.space}/${recall.entity}`} class="recall-group" data-testid="recall-group">
            <div class="row">
              <span class="small muted mono">
                [{recall.space} / {recall.entity}] {recall.potentials.action}
              </span>
              <span class="spacer" />
              {onWhy ? (
                <button type="button" class="btn plain small" onClick={() => onWhy(recall)}>
                  {t('pipeline.why')}
                </button>
              ) : null}
            </div>
            <ul>
              {laws.length > 0 ? (
                <li key="laws">
                  <Chip tone="bad">{t('constraint.must_not')}</Chip> <span class="small">{t('pipeline.laws', { count: laws.length })}</span>
                </li>
              ) : null}
              {others.map((c) => (
                <li key={c.text}>
                  <Chip tone={CONSTRAINT_TONE[c.kind] ?? 'neutral'}>{t(`constraint.${c.kind}`)}</Chip> <span class="small">{c.text}</span>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </section>
  );
}

export function FlowList({ task, initiallyOpen = false }: { task: TaskView; initiallyOpen?: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  const lines = task.flow.filter((l) => l.kind !== 'LlmCall' && l.kind !== 'Megram');
  return (
    <section class="flow">
      <button type="button" class="btn plain small flow-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? t('pipeline.flow.hide') : t('pipeline.flow.show', { count: lines.length })}
      </button>
      {/* It scrolls: focusable, so the keyboard can scroll it too. */}
      {open ? (
        <ol class="flow-lines selectable" data-testid="flow" tabIndex={0} aria-label={t('pipeline.flow')}>
          {lines.map((l) => (
            <li key={l.seq}>
              <span class="flow-route">
                {l.from} → {l.to}
              </span>
              <span class="flow-kind">{l.kind}</span>
              <span class="flow-detail">{l.detail}</span>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}

export function PipelineView({
  task,
  onWhy,
  flowOpen,
}: {
  task: TaskView;
  onWhy?: ((recall: MemoryRecall) => void) | undefined;
  flowOpen?: boolean;
}) {
  return (
    <div class="pipeline" data-phase={task.phase}>
      <div class="row phase-row">
        <span class={`phase-dot ${task.phase}`} />
        <strong data-testid="phase">{t(`phase.${task.phase}`)}</strong>
        {task.replanning ? (
          <span class="muted">· {t('pipeline.replan', { round: task.replanning.round })}</span>
        ) : task.round > 0 ? (
          <span class="muted">· {t('pipeline.replan', { round: task.round })}</span>
        ) : null}
      </div>
      <RoleStrip task={task} />
      <LossRow point={latestRound(task)} />
      {task.replanning ? <ReplanCallout directive={task.replanning} /> : null}
      <SubtaskList task={task} />
      <RecallList recalls={task.recalls} onWhy={onWhy} />
      <FlowList task={task} initiallyOpen={flowOpen ?? false} />
    </div>
  );
}
