// The audit panel's state: report history, the selected report, the event browser with
// its filter, on-demand audits and the chain verification result.

import { signal, type ReadonlySignal } from '@preact/signals';

import { type Backend, IpcError } from '../../ipc/backend';
import type { AuditReport, Envelope, ReportId } from '../../ipc/contracts';
import type { AuditEvent, AuditEventFilter, ChainVerification } from '../../ipc/commands';
import { resource, type Resource } from '../../shared/resource';

export const PAGE_SIZE = 50;

export interface AuditStore {
  readonly reports: Resource<AuditReport[]>;
  readonly selectedId: ReadonlySignal<ReportId | null>;
  readonly filter: ReadonlySignal<AuditEventFilter>;
  readonly events: ReadonlySignal<readonly AuditEvent[]>;
  readonly total: ReadonlySignal<number>;
  readonly eventsLoading: ReadonlySignal<boolean>;
  readonly querying: ReadonlySignal<boolean>;
  readonly verifying: ReadonlySignal<boolean>;
  readonly verification: ReadonlySignal<ChainVerification | null>;
  readonly error: ReadonlySignal<string | null>;
  handle(envelope: Envelope): void;
  select(id: ReportId | null): void;
  setFilter(change: Partial<Omit<AuditEventFilter, 'before_seq' | 'limit'>>): Promise<void>;
  loadEvents(): Promise<void>;
  loadOlder(): Promise<void>;
  runAudit(): Promise<void>;
  verify(): Promise<void>;
}

export function createAuditStore(backend: Backend): AuditStore {
  const reports = resource(() => backend.invoke('audit_reports', {}));
  const selectedId = signal<ReportId | null>(null);
  const filter = signal<AuditEventFilter>({ task_id: null, message_type: null, anomalies_only: false, before_seq: null, limit: PAGE_SIZE });
  const events = signal<readonly AuditEvent[]>([]);
  const total = signal(0);
  const eventsLoading = signal(false);
  const querying = signal(false);
  const verifying = signal(false);
  const verification = signal<ChainVerification | null>(null);
  const error = signal<string | null>(null);

  async function fetchEvents(append: boolean): Promise<void> {
    eventsLoading.value = true;
    try {
      const before = append ? (events.value.at(-1)?.seq ?? null) : null;
      const page = await backend.invoke('audit_events', { filter: { ...filter.value, before_seq: before } });
      events.value = append ? [...events.value, ...page.events] : page.events;
      total.value = page.total;
      error.value = null;
    } catch (reason) {
      error.value = IpcError.from(reason).message;
    } finally {
      eventsLoading.value = false;
    }
  }

  return {
    reports,
    selectedId,
    filter,
    events,
    total,
    eventsLoading,
    querying,
    verifying,
    verification,
    error,
    handle(envelope) {
      const m = envelope.message;
      if (m.type === 'AuditReport' && reports.value.value) {
        if (!reports.value.value.some((r) => r.report_id === m.payload.report_id)) {
          reports.set([m.payload, ...reports.value.value]);
        }
      }
    },
    select(id) {
      selectedId.value = id;
    },
    async setFilter(change) {
      filter.value = { ...filter.value, ...change };
      await fetchEvents(false);
    },
    loadEvents: () => fetchEvents(false),
    loadOlder: () => fetchEvents(true),
    async runAudit() {
      if (querying.value) return;
      querying.value = true;
      error.value = null;
      try {
        const report = await backend.invoke('audit_query', {});
        const list = reports.value.value ?? [];
        if (!list.some((r) => r.report_id === report.report_id)) reports.set([report, ...list]);
        selectedId.value = report.report_id;
        await fetchEvents(false);
      } catch (reason) {
        error.value = IpcError.from(reason).message;
      } finally {
        querying.value = false;
      }
    },
    async verify() {
      if (verifying.value) return;
      verifying.value = true;
      try {
        verification.value = await backend.invoke('audit_verify', {});
      } catch (reason) {
        error.value = IpcError.from(reason).message;
      } finally {
        verifying.value = false;
      }
    },
  };
}
