// Helpers for view tests: a session over the fake backend on vitest's fake clock.

import { act } from '@testing-library/preact';
import { vi } from 'vitest';

import { createSession, type Session } from './app/session';
import { locale } from './i18n';
import { createFakeBackend, type FakeBackend } from './ipc/fake';

export const T0 = Date.parse('2026-03-02T09:00:00Z');
// Played from the golden recording replan_law1 (the fake answers a deletion with it).
export const TASK = 'delete the old draft in my workspace';

export interface Harness {
  fake: FakeBackend;
  session: Session;
  windows: { kind: string; tab?: string }[];
  advance(ms: number): Promise<void>;
  /** Advances in steps until `probe` returns something truthy. */
  until<T>(probe: () => T | null | undefined | false, limitMs?: number): Promise<T>;
  dispose(): void;
}

export function harness(options: { keychain?: boolean; model?: 'ready' | 'first_run' | 'unreachable'; sandbox?: boolean } = {}): Harness {
  vi.useFakeTimers({ now: T0 });
  locale.value = 'en';
  const windows: { kind: string; tab?: string }[] = [];
  const fake = createFakeBackend({
    now: () => Date.now(),
    keychain: options.keychain ?? true,
    model: options.model ?? 'ready',
    sandbox: options.sandbox ?? true,
    onWindow: (w) => windows.push(w.kind === 'open_panel' ? { kind: w.kind, tab: w.tab } : { kind: w.kind }),
  });
  const session = createSession(fake, { now: () => Date.now() });
  const advance = async (ms: number) => {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ms);
    });
  };
  return {
    fake,
    session,
    windows,
    advance,
    async until(probe, limitMs = 60_000) {
      for (let t = 0; t <= limitMs; t += 250) {
        const value = probe();
        if (value) return value;
        await advance(250);
      }
      throw new Error('condition never became true');
    },
    dispose() {
      session.dispose();
      fake.dispose();
      vi.useRealTimers();
    },
  };
}
