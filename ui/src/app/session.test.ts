import { afterEach, describe, expect, it, vi } from 'vitest';

import type { Backend, UiEvent } from '../ipc/backend';
import { createFakeBackend, type FakeBackend } from '../ipc/fake';
import { T0, TASK } from '../test-util';
import { createSession, type Session } from './session';

/** A backend whose stream loses some envelopes, then says so with a gap marker — as a lagging tap does. */
function lossy(fake: FakeBackend, drop: (e: UiEvent) => boolean): Backend {
  return {
    invoke: (command, args) => fake.invoke(command, args),
    subscribe(listener) {
      let lost = 0;
      return fake.subscribe((event) => {
        if (drop(event)) {
          lost += 1;
          return;
        }
        if (lost > 0 && event.kind === 'envelope') {
          listener({ kind: 'gap', skipped: lost });
          lost = 0;
        }
        listener(event);
      });
    },
  };
}

describe('a window session', () => {
  let fake: FakeBackend;
  let session: Session;
  afterEach(() => {
    session.dispose();
    fake.dispose();
    vi.useRealTimers();
  });

  async function advance(ms: number) {
    for (let t = 0; t < ms; t += 250) await vi.advanceTimersByTimeAsync(250);
  }

  it('rebuilds the task and the open Law 1 request after the stream reports a gap', async () => {
    vi.useFakeTimers({ now: T0 });
    fake = createFakeBackend({ now: () => Date.now() });
    const dropped = new Set(['PlanDirective', 'ConfirmationRequest']);
    session = createSession(
      lossy(fake, (e) => e.kind === 'envelope' && dropped.has(e.envelope.message.type)),
      { now: () => Date.now() },
    );
    await session.pipeline.submit(TASK);
    // The request is swallowed; the next envelope on the stream comes after the gap marker.
    await advance(20_000);
    expect(fake.transcript().some((e) => e.message.type === 'ConfirmationRequest')).toBe(true);
    await session.pipeline.cancel().catch(() => undefined);
    await advance(500);
    expect(session.skipped.value).toBeGreaterThan(0);
    const task = session.pipeline.current.value;
    expect(task?.rounds.map((r) => r.directive)).toEqual(['change_path']);
    expect(task?.law1).toBe(true);
    expect(task?.phase).toBe('cancelled');
  });

  it('shows a Law 1 request that only the recording still has', async () => {
    vi.useFakeTimers({ now: T0 });
    fake = createFakeBackend({ now: () => Date.now() });
    let gapSent = false;
    const inner = fake;
    const backend: Backend = {
      invoke: (c, a) => inner.invoke(c, a),
      subscribe(listener) {
        return inner.subscribe((event) => {
          if (event.kind === 'envelope' && event.envelope.message.type === 'ConfirmationRequest' && !gapSent) {
            gapSent = true;
            listener({ kind: 'gap', skipped: 1 });
            return;
          }
          listener(event);
        });
      },
    };
    session = createSession(backend, { now: () => Date.now() });
    await session.pipeline.submit(TASK);
    for (let t = 0; t < 30_000 && !gapSent; t += 250) await vi.advanceTimersByTimeAsync(250);
    await advance(500);
    expect(session.approvals.first.value?.can_trash).toBe(true);
    expect(session.pipeline.current.value?.phase).toBe('approval');
  });

  it('navigates the panels when the shell says so', () => {
    vi.useFakeTimers({ now: T0 });
    fake = createFakeBackend({ now: () => Date.now() });
    session = createSession(fake, { now: () => Date.now() });
    void fake.invoke('open_panel', { tab: 'audit', focus: null });
    return vi.waitFor(() => expect(session.navigation.value.tab).toBe('audit'));
  });
});
