// Law 1 confirmations waiting for the user. A request leaves this store only when its
// ConfirmationDecision is on the bus: approvals are never optimistic, so a click that
// fails to reach the broker leaves the dialog up with the error.

import { computed, signal, type ReadonlySignal } from '@preact/signals';

import { type Backend, IpcError } from '../../ipc/backend';
import type { ApprovalScope, ConfirmationRequest, Decision, DecisionSource, Envelope, RequestId } from '../../ipc/contracts';

export interface ResolvedNotice {
  requestId: RequestId;
  source: DecisionSource;
  command: string;
}

export interface ApprovalsStore {
  readonly pending: ReadonlySignal<readonly ConfirmationRequest[]>;
  /** The request the dialog shows: the oldest one waiting. */
  readonly first: ReadonlySignal<ConfirmationRequest | null>;
  readonly sending: ReadonlySignal<Readonly<Record<RequestId, Decision>>>;
  readonly errors: ReadonlySignal<Readonly<Record<RequestId, IpcError>>>;
  /** Requests the user did not answer (timeout, task ended): said once, then dismissed. */
  readonly notices: ReadonlySignal<readonly ResolvedNotice[]>;
  handle(envelope: Envelope): void;
  /** Re-reads a task's recorded envelopes (after a tap gap) so no open request is missed. */
  resync(envelopes: readonly Envelope[]): void;
  /** `scope` widens an approval (the rest of the task, or always for an MCP tool or a
   * class of file changes); the core narrows a scope the request did not offer to this call only. */
  answer(requestId: RequestId, decision: Decision, scope?: ApprovalScope): Promise<void>;
  dismissNotice(requestId: RequestId): void;
}

export function createApprovalsStore(backend: Backend): ApprovalsStore {
  const pending = signal<readonly ConfirmationRequest[]>([]);
  const sending = signal<Readonly<Record<RequestId, Decision>>>({});
  const errors = signal<Readonly<Record<RequestId, IpcError>>>({});
  const notices = signal<readonly ResolvedNotice[]>([]);

  function without<T>(record: Readonly<Record<RequestId, T>>, id: RequestId): Record<RequestId, T> {
    const copy = { ...record };
    delete copy[id];
    return copy;
  }

  function handle(envelope: Envelope): void {
    const m = envelope.message;
    if (m.type === 'ConfirmationRequest') {
      if (!pending.value.some((r) => r.request_id === m.payload.request_id)) {
        pending.value = [...pending.value, m.payload];
      }
    } else if (m.type === 'ConfirmationDecision') {
      const id = m.payload.request_id;
      const request = pending.value.find((r) => r.request_id === id);
      pending.value = pending.value.filter((r) => r.request_id !== id);
      sending.value = without(sending.value, id);
      errors.value = without(errors.value, id);
      if (request && m.payload.source !== 'user') {
        notices.value = [...notices.value, { requestId: id, source: m.payload.source, command: request.command }];
      }
    }
  }

  return {
    pending,
    first: computed(() => pending.value[0] ?? null),
    sending,
    errors,
    notices,
    handle,
    resync(envelopes) {
      const decided = new Set(envelopes.flatMap((e) => (e.message.type === 'ConfirmationDecision' ? [e.message.payload.request_id] : [])));
      for (const e of envelopes) {
        if (e.message.type === 'ConfirmationRequest' && !decided.has(e.message.payload.request_id)) handle(e);
      }
    },
    async answer(requestId, decision, scope) {
      if (sending.value[requestId] || !pending.value.some((r) => r.request_id === requestId)) return;
      sending.value = { ...sending.value, [requestId]: decision };
      errors.value = without(errors.value, requestId);
      try {
        await backend.invoke('answer_confirmation', { request_id: requestId, decision, scope: scope ?? null });
      } catch (reason) {
        sending.value = without(sending.value, requestId);
        errors.value = { ...errors.value, [requestId]: IpcError.from(reason) };
      }
    },
    dismissNotice(requestId) {
      notices.value = notices.value.filter((n) => n.requestId !== requestId);
    },
  };
}
