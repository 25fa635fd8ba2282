// The auditor's history for its principal, the user: every report, a report's detail,
// the event log filtered by task, type or anomaly, an audit on demand, and whether the
// hash chain of the log is intact.

import { useEffect } from 'preact/hooks';

import { locale, t, tn, type MessageKey } from '../../i18n';
import type { AuditReport, MessageKind } from '../../ipc/contracts';
import { dateTime, relative, shortDateTime, time } from '../../shared/format';
import { Icon } from '../../shared/icons';
import { Chip, Empty, ErrorText } from '../../shared/widgets';
import type { AuditStore } from './store';

const MESSAGE_KINDS: readonly MessageKind[] = [
  'TaskSubmitted', 'ClarificationRequest', 'ClarificationAnswer', 'ChatReply', 'TaskSpec', 'MemoryQuery', 'MemoryResponse', 'MemoryRecall',
  'DispatchManifest', 'SubTask', 'ExecutionResult', 'CorrectionSignal', 'SubTaskOutcome', 'ReplanRequest', 'OutcomeSummary', 'PlanDirective',
  'PlanningFailed', 'GracefulFailureRequest', 'GracefulFailure', 'FinalResult', 'Megram', 'MemoryOperatorChange', 'ConfirmationRequest',
  'ConfirmationDecision', 'TaskClosed', 'AuditQuery', 'AuditReport', 'LlmCall', 'ToolCallEvent',
];

function findings(r: AuditReport): number {
  return r.anomalies.length + r.boundary_violations.length + r.drift_alerts.length;
}

export function AuditPanel({ audit, now, focusReport = null }: { audit: AuditStore; now: number; focusReport?: string | null }) {
  const reports = audit.reports.value.value;
  const lang = locale.value;

  useEffect(() => {
    if (focusReport) audit.select(focusReport);
  }, [focusReport, audit]);

  useEffect(() => {
    if (reports === null && !audit.reports.loading.value) {
      void audit.reports.load().then(() => {
        const first = audit.reports.value.value?.[0];
        if (first && !audit.selectedId.value) audit.select(first.report_id);
      });
      void audit.loadEvents();
    }
  }, [reports, audit]);

  const selected = reports?.find((r) => r.report_id === audit.selectedId.value) ?? null;
  const v = audit.verification.value;
  return (
    <div class="split audit">
      <aside class="sidebar" aria-label={t('audit.reports')}>
        <div class="row toolbar-row pad-x">
          <h3 class="grow">{t('audit.reports')}</h3>
        </div>
        {reports?.length === 0 ? <Empty>{t('audit.empty')}</Empty> : null}
        <ul class="list" role="listbox" aria-label={t('audit.reports')} data-testid="audit-reports">
          {reports?.map((r) => {
            const n = findings(r);
            return (
              <li key={r.report_id} role="option" aria-selected={r.report_id === audit.selectedId.value} class={r.report_id === audit.selectedId.value ? 'selected' : ''} onClick={() => audit.select(r.report_id)}>
                <div class="row">
                  <span class="list-title">{dateTime(r.window_end, lang)}</span>
                  <span class="spacer" />
                  {n > 0 ? <Chip tone="bad">{n}</Chip> : <Chip tone="good">✓</Chip>}
                </div>
                <div class="row small muted">
                  <span>{t(`audit.trigger.${r.trigger}` as MessageKey)}</span>
                  <span>·</span>
                  <span>{tn('audit.tasksCount', r.tasks_observed)}</span>
                  <span class="spacer" />
                  <span>{relative(r.window_end, now, lang)}</span>
                </div>
              </li>
            );
          })}
        </ul>
      </aside>
      <main class="detail stack">
        <div class="row toolbar-row">
          <button type="button" class="btn" disabled={audit.querying.value} onClick={() => void audit.runAudit()} data-testid="audit-now">
            {audit.querying.value ? <span class="spinner" /> : <Icon.Refresh />}
            {audit.querying.value ? t('audit.running') : t('audit.runNow')}
          </button>
          <button type="button" class="btn" disabled={audit.verifying.value} onClick={() => void audit.verify()} data-testid="audit-verify">
            <Icon.Shield />
            {audit.verifying.value ? t('audit.verifying') : t('audit.verify')}
          </button>
          {v ? (
            <span class={`chain ${v.status}`} role="status" data-testid="chain">
              {v.status === 'intact'
                ? t('audit.intact', { count: v.events_checked, hash: v.head_hash.slice(0, 12) })
                : t('audit.broken', { seq: v.first_broken_seq, reason: v.reason })}
            </span>
          ) : null}
        </div>
        {audit.error.value ? <ErrorText>{audit.error.value}</ErrorText> : null}
        {selected ? <ReportDetail report={selected} /> : <Empty>{t('audit.select')}</Empty>}
        <EventBrowser audit={audit} />
      </main>
    </div>
  );
}

function ListBlock({ title, items, tone }: { title: string; items: readonly string[]; tone: 'bad' | 'warn' }) {
  return (
    <div class="report-list">
      <h4>
        {title} <Chip tone={items.length > 0 ? tone : 'good'}>{items.length}</Chip>
      </h4>
      {items.length > 0 ? (
        <ul>
          {items.map((i) => (
            <li key={i} class="small selectable">
              {i}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function ReportDetail({ report }: { report: AuditReport }) {
  const lang = locale.value;
  const h = report.tool_health;
  const l = report.law1;
  return (
    <section class="card report" data-testid="audit-report">
      <div class="row">
        <h3>
          {t(`audit.trigger.${report.trigger}` as MessageKey)} · {dateTime(report.window_start, lang)} – {time(report.window_end, lang)}
        </h3>
        <span class="spacer" />
        {findings(report) === 0 ? <Chip tone="good">{t('audit.clean')}</Chip> : null}
      </div>
      <div class="metrics">
        <div class="metric-box">
          <span class="metric-big">{report.tasks_observed}</span>
          <span class="small muted">{t('audit.tasks')}</span>
        </div>
        <div class="metric-box">
          <span class="metric-big">{report.total_corrections}</span>
          <span class="small muted">{t('audit.corrections')}</span>
        </div>
        <div class="metric-box">
          <span class="metric-big">{h.execution_failures}</span>
          <span class="small muted">{t('audit.execFailures')}</span>
        </div>
        <div class="metric-box">
          <span class="metric-big">
            {h.environmental_retries}/{h.logical_retries}
          </span>
          <span class="small muted">
            {t('audit.envRetries')} / {t('audit.logicRetries')}
          </span>
        </div>
        <div class="metric-box law">
          <span class="metric-big">{l.requests}</span>
          <span class="small muted">
            {t('audit.law1')}: {t('audit.law1.approved')} {l.approved} · {t('audit.law1.denied')} {l.denied} · {t('audit.law1.timed_out')} {l.timed_out} · {t('audit.law1.trashed')} {l.trashed}
          </span>
        </div>
      </div>
      <div class="report-lists">
        <ListBlock title={t('audit.anomalies')} items={report.anomalies} tone="bad" />
        <ListBlock title={t('audit.violations')} items={report.boundary_violations} tone="bad" />
        <ListBlock title={t('audit.drift')} items={report.drift_alerts} tone="warn" />
        <div class="report-list">
          <h4>{t('audit.trends')}</h4>
          <ul>
            {report.gap_trends.map((g) => (
              <li key={g.task_id} class="small">
                <span class="mono">{g.task_id}</span> <Chip tone={g.trend === 'worsening' ? 'bad' : g.trend === 'improving' ? 'good' : 'neutral'}>{t(`gradient.${g.trend}`)}</Chip>
              </li>
            ))}
          </ul>
        </div>
      </div>
    </section>
  );
}

function EventBrowser({ audit }: { audit: AuditStore }) {
  const f = audit.filter.value;
  const events = audit.events.value;
  const lang = locale.value;
  const tasks = [...new Set(events.map((e) => e.task_id).filter((x): x is string => x !== null))];
  if (f.task_id && !tasks.includes(f.task_id)) tasks.unshift(f.task_id);
  return (
    <section class="card flush events" data-testid="audit-events">
      <div class="row pad">
        <h3 class="grow">{t('audit.events')}</h3>
        <select class="text-input narrow-wide" aria-label={t('audit.filter.task')} value={f.task_id ?? ''} onChange={(e) => void audit.setFilter({ task_id: e.currentTarget.value || null })}>
          <option value="">
            {t('audit.filter.task')}: {t('audit.filter.all')}
          </option>
          {tasks.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
        <select class="text-input narrow-wide" aria-label={t('audit.filter.type')} value={f.message_type ?? ''} onChange={(e) => void audit.setFilter({ message_type: (e.currentTarget.value || null) as MessageKind | null })}>
          <option value="">
            {t('audit.filter.type')}: {t('audit.filter.all')}
          </option>
          {MESSAGE_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <label class="row small nowrap">
          <input type="checkbox" checked={f.anomalies_only} onChange={(e) => void audit.setFilter({ anomalies_only: e.currentTarget.checked })} />
          {t('audit.filter.anomalies')}
        </label>
        <span class="small muted nowrap">{t('audit.events.count', { shown: events.length, total: audit.total.value })}</span>
      </div>
      {events.length === 0 ? (
        <Empty>{t('audit.events.empty')}</Empty>
      ) : (
        <div class="table-scroll">
          <table class="grid">
            <thead>
              <tr>
                <th class="num">{t('audit.col.seq')}</th>
                <th>{t('audit.col.time')}</th>
                <th>{t('audit.col.flow')}</th>
                <th>{t('audit.col.type')}</th>
                <th>{t('audit.col.anomaly')}</th>
                <th>{t('audit.col.detail')}</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.seq} class={e.anomaly !== 'none' ? 'anomalous' : ''}>
                  <td class="num muted">{e.seq}</td>
                  <td class="nowrap">{shortDateTime(e.timestamp, lang)}</td>
                  <td class="nowrap mono">
                    {e.from} → {e.to}
                  </td>
                  <td class="mono">{e.message_type}</td>
                  <td>{e.anomaly === 'none' ? '' : <Chip tone="bad">{e.anomaly}</Chip>}</td>
                  <td class="selectable detail-cell">{e.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {events.length < audit.total.value ? (
            <button type="button" class="btn plain" onClick={() => void audit.loadOlder()}>
              {t('audit.events.more')}
            </button>
          ) : null}
        </div>
      )}
    </section>
  );
}
