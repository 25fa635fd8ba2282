// The fake's audit log: what the real auditor recorded of the runs the fake played, re-keyed
// with each run's ids, hashes and clock. Nothing here hashes, checks or summarises.
//
// Every recording is one runtime session, so its log is a chain of its own, from the
// auditor's start at the genesis hash to its last event. The fake's log is those chains one
// after another, in the order the runs were played: a run's events when it closes, its
// on-demand queries when the user asks for a report, its memory changes when the user
// makes them. `seq` is the event's place in the fake's log (as the bus seq of a played
// envelope is the fake's), so paging works across runs. The chain check is the one the
// recorder made of each recording (it blesses none that is broken): the fake holds parts
// of chains the real auditor found intact, and says so with its count and head.

import type { AnomalyKind } from '../bindings';
import type { AuditReport } from '../contracts';
import type { AuditEvent, AuditEventFilter, AuditEventPage, ChainVerification } from '../commands';
import type { RecordedAuditEvent } from './recorded';

/** The event the desktop sends for an auditor's event (`audit_event` in src-tauri): the
 * first finding's class, and the detail followed by every finding's description. */
export function auditEvent(e: RecordedAuditEvent, seq: number): AuditEvent {
  const findings = e.anomalies ?? [];
  const anomaly: AnomalyKind = findings[0]?.kind ?? 'none';
  return {
    seq,
    timestamp: e.at,
    from: e.from ?? null,
    to: e.to ?? null,
    message_type: e.kind,
    task_id: e.task_id ?? null,
    anomaly,
    detail: [e.detail, ...findings.map((f) => f.description)].join(' — '),
    prev_hash: e.prev,
    hash: e.hash,
  };
}

export class RecordedAuditLog {
  private readonly events: AuditEvent[] = [];
  private readonly kept: AuditReport[] = [];

  /** Appends re-keyed recorded events, numbered on after the fake's last. */
  append(recorded: readonly RecordedAuditEvent[]): void {
    for (const e of recorded) this.events.push(auditEvent(e, this.events.length));
  }

  keep(report: AuditReport): void {
    this.kept.push(report);
  }

  /** Newest first, as the history lists them. */
  reports(): AuditReport[] {
    return [...this.kept].reverse();
  }

  report(id: string): AuditReport | undefined {
    return this.kept.find((r) => r.report_id === id);
  }

  /** A page of the log as the desktop pages it: newest first, before `before_seq`. */
  page(f: AuditEventFilter): AuditEventPage {
    const matching = this.events.filter(
      (e) =>
        (f.task_id === null || e.task_id === f.task_id) &&
        (f.message_type === null || e.message_type === f.message_type) &&
        (!f.anomalies_only || e.anomaly !== 'none'),
    );
    const limit = f.limit === 0 ? 100 : f.limit;
    const page = [...matching].reverse().filter((e) => f.before_seq === null || e.seq < f.before_seq).slice(0, limit);
    return { events: page, total: matching.length };
  }

  /** The recorded checks' verdict over what the fake holds (see the head of the file). */
  verify(checkedAt: string): ChainVerification {
    return { status: 'intact', events_checked: this.events.length, head_hash: this.events.at(-1)?.hash ?? '0'.repeat(64), checked_at: checkedAt };
  }
}
