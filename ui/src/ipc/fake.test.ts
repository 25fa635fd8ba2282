import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { UiEvent } from './backend';
import { IpcError } from './backend';
import type { Envelope, MessageKind } from './contracts';
import { createFakeBackend, type FakeBackend } from './fake';

const T0 = Date.parse('2026-03-02T09:00:00Z');

function kinds(envelopes: readonly Envelope[]): MessageKind[] {
  return envelopes.map((e) => e.message.type);
}

describe('the fake backend', () => {
  let fake: FakeBackend;
  let events: UiEvent[];

  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
    fake = createFakeBackend({ now: () => Date.now() });
    events = [];
    fake.subscribe((e) => events.push(e));
  });

  afterEach(() => {
    fake.dispose();
    vi.useRealTimers();
  });

  const live = () =>
    events.flatMap((e) => (e.kind === 'envelope' ? [e.envelope] : []));

  async function runUntil(kind: MessageKind, limitMs = 120_000): Promise<Envelope> {
    for (let t = 0; t < limitMs; t += 100) {
      const found = live().find((e) => e.message.type === kind);
      if (found) return found;
      await vi.advanceTimersByTimeAsync(100);
    }
    throw new Error(`${kind} never arrived; saw ${kinds(live()).join(', ')}`);
  }

  it('replans with a change_path directive, then waits for the Law 1 decision before going on', async () => {
    const taskId = await fake.invoke('submit_task', { text: 'Delete the duplicate installers in my Downloads folder' });
    const directive = await runUntil('PlanDirective');
    expect(directive.message.type === 'PlanDirective' && directive.message.payload.directive).toBe('change_path');
    const request = await runUntil('ConfirmationRequest');
    await vi.advanceTimersByTimeAsync(30_000);
    // Nothing after the request until someone answers.
    expect(kinds(live()).at(-1)).toBe('ConfirmationRequest');
    if (request.message.type !== 'ConfirmationRequest') throw new Error('not a request');
    expect(request.message.payload.can_trash).toBe(true);
    const answered = fake.invoke('answer_confirmation', { request_id: request.message.payload.request_id, decision: 'approve', scope: null });
    await vi.advanceTimersByTimeAsync(200);
    await answered;
    const final = await runUntil('FinalResult');
    if (final.message.type !== 'FinalResult') throw new Error('not a result');
    expect(final.message.payload.directive).toBe('accept');
    expect(final.message.payload.summary.startsWith('[LAW1] ')).toBe(true);
    expect(final.message.payload.replans).toBe(1);
    // The end is announced to every role once, after the result, as the runtime does.
    const closed = await runUntil('TaskClosed');
    expect(closed.to).toBe('All');
    expect(closed.message.type === 'TaskClosed' && closed.message.payload.end).toEqual({ kind: 'finished' });
    expect(kinds(live()).filter((k) => k === 'TaskClosed')).toHaveLength(1);
    expect(kinds(live()).indexOf('TaskClosed')).toBeGreaterThan(kinds(live()).indexOf('FinalResult'));
    const runs = await fake.invoke('task_runs', {});
    expect(runs[0]).toMatchObject({ task_id: taskId, status: 'accepted', law1: true, replans: 1 });
  });

  it('denies automatically when nobody answers before expires_at, and abandons honestly', async () => {
    await fake.invoke('submit_task', { text: 'Delete the duplicate installers in my Downloads folder' });
    await runUntil('ConfirmationRequest');
    const decision = await runUntil('ConfirmationDecision', 200_000);
    expect(decision.message.type === 'ConfirmationDecision' && decision.message.payload).toMatchObject({
      decision: 'deny',
      source: 'timeout',
    });
    const final = await runUntil('FinalResult');
    if (final.message.type !== 'FinalResult') throw new Error('not a result');
    expect(final.message.payload.directive).toBe('abandon');
    expect(final.message.payload.next_moves?.length).toBeGreaterThanOrEqual(2);
  });

  it('stops a cancelled task: a pending confirmation is dropped and nothing is published after TaskClosed', async () => {
    const taskId = await fake.invoke('submit_task', { text: 'Delete the duplicate installers in my Downloads folder' });
    await runUntil('ConfirmationRequest');
    await fake.invoke('cancel_task', { task_id: taskId });
    const after = live().length;
    await vi.advanceTimersByTimeAsync(300_000);
    expect(live().length).toBe(after);
    expect(kinds(live()).slice(-2)).toEqual(['ConfirmationDecision', 'TaskClosed']);
  });

  it('asks a clarifying question for a two-word task and carries the answer into raw_input', async () => {
    const taskId = await fake.invoke('submit_task', { text: 'clean up' });
    await runUntil('ClarificationRequest');
    await fake.invoke('answer_clarification', { task_id: taskId, answer: 'duplicate installers in Downloads' });
    const spec = await runUntil('TaskSpec');
    expect(spec.message.type === 'TaskSpec' && spec.message.payload.raw_input).toContain('Clarification: duplicate installers');
  });

  it('answers a greeting on the fast path without a pipeline', async () => {
    await fake.invoke('submit_task', { text: 'hello' });
    await runUntil('ChatReply');
    expect(kinds(live())).not.toContain('TaskSpec');
    const closed = await runUntil('TaskClosed');
    expect(closed.message.type === 'TaskClosed' && closed.message.payload.end).toEqual({ kind: 'answered' });
  });

  it('refuses a second task while one runs, with the busy code', async () => {
    await fake.invoke('submit_task', { text: 'Delete the duplicate installers in my Downloads folder' });
    await expect(fake.invoke('submit_task', { text: 'another' })).rejects.toMatchObject({ code: 'busy' });
  });

  it('computes live potentials and refuses to forget the Four Laws', async () => {
    const map = await fake.invoke('memory_groups', {});
    const laws = map.groups.find((g) => g.space === 'thinking:laws');
    expect(laws?.potentials.action).toBe('Exploit');
    expect(laws?.potentials.attention).toBeCloseTo(4, 5);
    const detail = await fake.invoke('memory_group', { space: 'thinking:laws', entity: 'env:all' });
    const id = detail.megrams[0]?.megram.id ?? '';
    await expect(fake.invoke('memory_forget', { target: { kind: 'megram', id } })).rejects.toBeInstanceOf(IpcError);
    const music = await fake.invoke('memory_group', { space: 'tool:mdfind', entity: 'path:~/Music/Music' });
    // change_path Megrams carry σ = 0: attention without preference.
    expect(music.potentials.decision).toBe(0);
    expect(music.megrams.every((m) => m.live_attention < 0.3)).toBe(true);
  });

  it('refuses to remember a T entry, as the core does', async () => {
    await expect(
      fake.invoke('memory_remember', { level: 'T', space: 'global:user', entity: 'env:local', content: 'be terse' }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    const c = await fake.invoke('memory_remember', { level: 'C', space: 'global:user', entity: 'env:local', content: 'be terse' });
    expect(c.state).toBe('user-injected');
  });

  it('publishes one memory recall per group per round, the task kind first, as the core does', async () => {
    await fake.invoke('submit_task', { text: 'Delete the duplicate installers in my Downloads folder' });
    await runUntil('DispatchManifest');
    const recalls = live().flatMap((e) => (e.message.type === 'MemoryRecall' ? [e] : []));
    expect(recalls.map((e) => (e.message.type === 'MemoryRecall' ? e.message.payload.space : ''))).toEqual([
      expect.stringMatching(/^intent:/),
      'global:user',
    ]);
    expect(recalls.every((e) => e.from === 'R2' && e.to === 'R7')).toBe(true);
    const first = recalls[0]?.message;
    expect(first?.type === 'MemoryRecall' && first.payload.constraints.filter((c) => c.source === 'law').length).toBe(4);
  });

  it('keeps an intact hash chain and names the first tampered event', async () => {
    const ok = await fake.invoke('audit_verify', {});
    expect(ok.status).toBe('intact');
    const page = await fake.invoke('audit_events', { filter: { task_id: null, message_type: null, anomalies_only: false, before_seq: null, limit: 5 } });
    const victim = page.events[2];
    if (!victim) throw new Error('no events');
    fake.tamperAuditEvent(victim.seq, 'edited');
    const broken = await fake.invoke('audit_verify', {});
    expect(broken).toMatchObject({ status: 'broken', first_broken_seq: victim.seq });
  });

  it('answers an on-demand audit with a report published on the bus', async () => {
    const pending = fake.invoke('audit_query', {});
    await vi.advanceTimersByTimeAsync(1000);
    const report = await pending;
    expect(report.trigger).toBe('on-demand');
    expect(kinds(live())).toEqual(['AuditQuery', 'AuditReport']);
    const history = await fake.invoke('audit_reports', {});
    expect(history[0]?.report_id).toBe(report.report_id);
  });

  it('rejects settings out of range naming the field, and never echoes a key back', async () => {
    const view = await fake.invoke('get_settings', {});
    const bad = structuredClone(view.settings);
    bad.ggs.theta = 1.5;
    await expect(
      fake.invoke('save_settings', { update: { settings: bad, keys: { brain: { kind: 'keep' }, tool: { kind: 'keep' } } } }),
    ).rejects.toMatchObject({ code: 'config_invalid', message: expect.stringContaining('ggs.theta') });
    const saved = await fake.invoke('save_settings', {
      update: { settings: view.settings, keys: { brain: { kind: 'set', key: 'sk-secret' }, tool: { kind: 'keep' } } },
    });
    expect(saved.keys.brain.stored).toBe(true);
    expect(JSON.stringify(saved)).not.toContain('sk-secret');
  });
});
