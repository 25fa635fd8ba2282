import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { UiEvent } from './backend';
import type { Envelope, MessageKind } from './contracts';
import { createFakeBackend, type FakeBackend } from './fake';
import { byKind, type CountedRun, history, like, likeLine, taskKind } from './fake/kinds';

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

  it('plays the recorded replan: a change_path directive, then waits for the Law 1 decision before going on', async () => {
    const taskId = await fake.invoke('submit_task', { text: 'delete the old draft in my workspace' });
    // Fresh ids, not the recording's numbered ones.
    expect(taskId).toMatch(/^task_[0-9a-f]{12}$/);
    expect(taskId).not.toBe('task_000000000002');
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
    // The marker and the answer alone; how the gate was answered is data beside it.
    expect(final.message.payload.summary).toBe('[LAW1] draft-old.txt deleted');
    expect(final.message.payload.law1).toEqual({ approved: 1, denied: 0, trashed: 0, granted: 0 });
    expect(final.message.payload.replans).toBe(1);
    // The end is announced to every role once, after the result, as the runtime does.
    const closed = await runUntil('TaskClosed');
    expect(closed.to).toBe('All');
    expect(closed.message.type === 'TaskClosed' && closed.message.payload.end).toEqual({ kind: 'finished' });
    expect(kinds(live()).filter((k) => k === 'TaskClosed')).toHaveLength(1);
    expect(kinds(live()).indexOf('TaskClosed')).toBeGreaterThan(kinds(live()).indexOf('FinalResult'));
    const runs = await fake.invoke('task_runs', {});
    expect(runs[0]).toMatchObject({ task_id: taskId, status: 'accepted', law1: true, replans: 1 });
    // The replay's fold is the core's fold of the recorded run, re-keyed to this run.
    const replay = await fake.invoke('task_replay', { run_id: runs[0]?.run_id ?? '' });
    expect(replay.trajectory.task_id).toBe(taskId);
    expect(replay.trajectory.status).toBe('accepted');
    expect(replay.trajectory.final_result).toEqual(final.message.payload);
    expect(replay.trajectory.rounds.map((r) => r.decision?.directive)).toEqual(['change_path', 'accept']);
    expect(replay.trajectory.law1[0]?.request?.request_id).toBe(request.message.payload.request_id);
    expect(replay.envelopes.map((e) => e.message.type)).toEqual(kinds(live()));
    const ids = new Set(replay.envelopes.map((e) => e.id));
    expect(ids.size).toBe(replay.envelopes.length);
    // The auditor's log of the run and its report are the recorded ones, re-keyed.
    const logged = await fake.invoke('audit_events', { filter: { task_id: taskId, message_type: null, anomalies_only: false, before_seq: null, limit: 1000 } });
    expect(logged.events.map((e) => e.message_type).reverse()).toEqual(kinds(live()));
    const asked = fake.invoke('audit_query', {});
    await vi.advanceTimersByTimeAsync(1000);
    expect(await asked).toMatchObject({ tasks_observed: 1, law1: { requests: 1, approved: 1 }, gap_trends: [{ task_id: taskId, trend: 'improving' }] });
  });

  it('denies automatically when nobody answers before expires_at, and abandons honestly', async () => {
    await fake.invoke('submit_task', { text: 'delete the old draft in my workspace' });
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
    // The denial is counted beside the answer, not written into it.
    expect(final.message.payload.law1).toEqual({ approved: 0, denied: 1, trashed: 0, granted: 0 });
    expect(final.message.payload.summary).toMatch(/^\[LAW1\] Abandoned after 1 replan\(s\)/);
    expect(final.message.payload.summary).not.toContain('denied');
  });

  it('stops a cancelled task as the runtime did: TaskClosed, then the open request dropped, then nothing', async () => {
    const taskId = await fake.invoke('submit_task', { text: 'delete the old draft in my workspace' });
    await runUntil('ConfirmationRequest');
    await fake.invoke('cancel_task', { task_id: taskId });
    const after = live().length;
    await vi.advanceTimersByTimeAsync(300_000);
    expect(live().length).toBe(after);
    expect(kinds(live()).slice(-2)).toEqual(['TaskClosed', 'ConfirmationDecision']);
    const [closed, dropped] = live().slice(-2);
    expect(closed?.message.type === 'TaskClosed' && closed.message.payload.end.kind).toBe('cancelled');
    expect(dropped?.message.type === 'ConfirmationDecision' && dropped.message.payload).toMatchObject({ decision: 'deny', source: 'dropped' });
    const runs = await fake.invoke('task_runs', {});
    expect(runs[0]).toMatchObject({ task_id: taskId, status: 'cancelled' });
  });

  it('asks the recorded clarifying question for a two-word task and goes on after the answer', async () => {
    const taskId = await fake.invoke('submit_task', { text: 'clean up' });
    const question = await runUntil('ClarificationRequest');
    expect(question.message.type === 'ClarificationRequest' && question.message.payload.question).toMatch(/tidy up/);
    // Nothing goes on until the user answers.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(kinds(live()).at(-1)).toBe('ClarificationRequest');
    await fake.invoke('answer_clarification', { task_id: taskId, answer: 'list my files' });
    const answer = await runUntil('ClarificationAnswer');
    expect(answer.message.type === 'ClarificationAnswer' && answer.message.payload.answer).toBe('list my files');
    const spec = await runUntil('TaskSpec');
    expect(spec.message.type === 'TaskSpec' && spec.message.payload.intent).toBe('list the files in the workspace');
    const final = await runUntil('FinalResult');
    expect(final.message.type === 'FinalResult' && final.message.payload.directive).toBe('accept');
  });

  it('plays the recorded honest abandon, with the next moves R2 wrote', async () => {
    await fake.invoke('submit_task', { text: 'read the report in my drafts folder' });
    const final = await runUntil('FinalResult');
    if (final.message.type !== 'FinalResult') throw new Error('not a result');
    expect(final.message.payload.directive).toBe('abandon');
    expect(final.message.payload.output).toBeNull();
    expect(kinds(live())).toContain('GracefulFailure');
  });

  it('answers a greeting on the fast path without a pipeline', async () => {
    await fake.invoke('submit_task', { text: 'hello' });
    await runUntil('ChatReply');
    expect(kinds(live())).not.toContain('TaskSpec');
    const closed = await runUntil('TaskClosed');
    expect(closed.message.type === 'TaskClosed' && closed.message.payload.end).toEqual({ kind: 'answered' });
  });

  it('refuses a second task while one runs, with the busy code', async () => {
    await fake.invoke('submit_task', { text: 'delete the old draft in my workspace' });
    await expect(fake.invoke('submit_task', { text: 'another' })).rejects.toMatchObject({ code: 'busy' });
  });

  it('serves the memory the recorded runs left, with the store\'s potentials, and refuses to forget a law', async () => {
    const map = await fake.invoke('memory_groups', {});
    const law = map.groups.find((g) => g.space === 'laws' && g.entity === 'law:0');
    expect(law?.potentials).toEqual({ attention: 1, decision: 1, action: 'Exploit' });
    // The seeded abandon wrote a Megram the store weighs as one to avoid.
    const read = map.groups.find((g) => g.space === 'intent:read');
    expect(read?.potentials).toEqual({ attention: 0.95, decision: -0.95, action: 'Avoid' });
    const detail = await fake.invoke('memory_group', { space: 'laws', entity: 'law:0' });
    const id = detail.megrams[0]?.megram.id ?? '';
    await expect(fake.invoke('memory_forget', { target: { kind: 'megram', id } })).rejects.toMatchObject({ code: 'forbidden', message: expect.stringContaining('T layer') });
    // What no recording did is not made up.
    await expect(fake.invoke('memory_pin', { id })).rejects.toMatchObject({ code: 'unavailable' });
    await expect(fake.invoke('memory_forget', { target: { kind: 'group', space: 'intent:read', entity: 'env:local' } })).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('pins and forgets a run\'s Megram as the recorded memory operator did', async () => {
    const found = await fake.invoke('memory_group', { space: 'intent:find', entity: 'env:local' });
    const megram = found.megrams[0]?.megram;
    if (!megram) throw new Error('no Megram');
    expect(megram.k).toBe(0.05);
    const pinned = await fake.invoke('memory_pin', { id: megram.id });
    expect(pinned).toMatchObject({ id: megram.id, k: 0, content: megram.content });
    expect(live().at(-1)?.message).toMatchObject({ type: 'MemoryOperatorChange', payload: { operation: 'pin', megram_ids: [megram.id] } });
    expect((await fake.invoke('memory_group', { space: 'intent:find', entity: 'env:local' })).megrams[0]?.megram.k).toBe(0);
    expect(await fake.invoke('memory_forget', { target: { kind: 'megram', id: megram.id } })).toBe(1);
    expect((await fake.invoke('memory_groups', {})).groups.some((g) => g.space === 'intent:find')).toBe(false);
    const page = await fake.invoke('audit_events', { filter: { task_id: null, message_type: 'MemoryOperatorChange', anomalies_only: false, before_seq: null, limit: 10 } });
    expect(page.total).toBe(2);
  });

  it('refuses to remember a T entry, as the core does', async () => {
    await expect(
      fake.invoke('memory_remember', { level: 'T', space: 'global:user', entity: 'env:local', content: 'be terse' }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    const c = await fake.invoke('memory_remember', { level: 'C', space: 'global:user', entity: 'env:local', content: 'be terse' });
    // The recorded C entry, with what was typed: timeless, held with full weight.
    expect(c).toMatchObject({ level: 'C', state: 'user-injected', space: 'global:user', entity: 'env:local', content: 'be terse', f: 1, k: 0 });
    const group = await fake.invoke('memory_group', { space: 'global:user', entity: 'env:local' });
    expect(group.megrams.map((m) => m.megram.id)).toEqual([c.id]);
    expect(group.potentials).toEqual({ attention: 1, decision: 1, action: 'Exploit' });
    expect(live().at(-1)?.line).toContain('be terse');
  });

  it('publishes one memory recall per group per round, the task kind first, as the core does', async () => {
    await fake.invoke('submit_task', { text: 'delete the old draft in my workspace' });
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

  it("serves the recorded auditor's log, chained, and its check of it", async () => {
    const all = await fake.invoke('audit_events', { filter: { task_id: null, message_type: null, anomalies_only: false, before_seq: null, limit: 1000 } });
    const log = [...all.events].reverse();
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i));
    // Each recorded run's chain starts at the auditor's start, from the genesis.
    const starts = log.filter((e) => e.message_type === 'AuditorStarted');
    expect(starts).toHaveLength(3);
    expect(starts.every((e) => e.prev_hash === '0'.repeat(64))).toBe(true);
    for (let i = 1; i < log.length; i++) {
      const [before, e] = [log[i - 1], log[i]];
      if (e && before && e.message_type !== 'AuditorStarted') expect(e.prev_hash).toBe(before.hash);
    }
    const runs = await fake.invoke('task_runs', {});
    const tasks = new Set(log.flatMap((e) => (e.task_id ? [e.task_id] : [])));
    expect([...tasks].sort()).toEqual(runs.map((r) => r.task_id).sort());
    const check = await fake.invoke('audit_verify', {});
    expect(check).toMatchObject({ status: 'intact', events_checked: log.length, head_hash: log.at(-1)?.hash });
  });

  it('answers an on-demand audit with a report published on the bus', async () => {
    const pending = fake.invoke('audit_query', {});
    await vi.advanceTimersByTimeAsync(1000);
    const report = await pending;
    // The second report the auditor wrote after the last recorded run (the greeting).
    expect(report).toMatchObject({ trigger: 'on-demand', tasks_observed: 1, gap_trends: [] });
    expect(kinds(live())).toEqual(['AuditQuery', 'AuditReport']);
    const history = await fake.invoke('audit_reports', {});
    expect(history[0]?.report_id).toBe(report.report_id);
    // No recording holds a third report after the run.
    await expect(fake.invoke('audit_query', {})).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('tells how tasks like the one typed went from its own runs, once three of the kind have ended', async () => {
    const asked = 'what files are in my workspace?';
    // The seeded week holds one run each of three kinds: nothing to say yet.
    expect(await fake.invoke('task_kinds', {})).toEqual([]);
    expect(await fake.invoke('tasks_like', { text: asked })).toBeNull();
    const closed = () => live().filter((e) => e.message.type === 'TaskClosed').length;
    for (let n = 1; n <= 2; n++) {
      await fake.invoke('submit_task', { text: asked });
      for (let t = 0; closed() < n && t < 120_000; t += 100) await vi.advanceTimersByTimeAsync(100);
      await vi.advanceTimersByTimeAsync(100);
    }
    // Every figure is the runs' own: their fold's time and model calls.
    const runs = (await fake.invoke('task_runs', {})).filter((r) => r.raw_input === asked);
    const folds = await Promise.all(runs.map((r) => fake.invoke('task_replay', { run_id: r.run_id })));
    const times = folds.map((f) => f.trajectory.elapsed_ms ?? 0).sort((a, b) => a - b);
    expect(times[0]).toBeGreaterThan(0);
    const found = await fake.invoke('tasks_like', { text: 'What files are in my workspace' });
    expect(found?.history).toMatchObject({
      kind: 'what-files-are-in-my-workspace',
      example: asked,
      runs: 3,
      delivered: 3,
      pass_k: 1,
      typical_ms: times[1],
      typical_model_calls: 5,
      trend: null,
      last_failure: null,
      last_run_at: runs[0]?.started_at,
    });
    expect(found?.line).toBe(`Tasks like this here: 3 of 3 delivered an answer, usually in about ${Math.ceil((times[1] ?? 0) / 1000)} s and 5 model calls`);
    expect(await fake.invoke('task_kinds', {})).toEqual([found?.history]);
    // A kind with one run says nothing, and a chat reply is no task.
    expect(await fake.invoke('tasks_like', { text: 'read the report in my drafts folder' })).toBeNull();
    expect(await fake.invoke('tasks_like', { text: 'hello' })).toBeNull();
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

  it('offers "always" for a class of file changes after 3 approvals by default, and takes only a whole number ≥ 0', async () => {
    const view = await fake.invoke('get_settings', {});
    expect(view.settings.laws.offer_always_after).toBe(3);
    const keep = { brain: { kind: 'keep' }, tool: { kind: 'keep' } } as const;
    for (const wrong of [-1, 1.5]) {
      const bad = structuredClone(view.settings);
      bad.laws.offer_always_after = wrong;
      await expect(fake.invoke('save_settings', { update: { settings: bad, keys: keep } })).rejects.toMatchObject({
        code: 'config_invalid',
        message: `invalid value for \`laws.offer_always_after\`: ${wrong} must be a whole number ≥ 0`,
      });
    }
    // Left out, it takes its default, as the core reads it.
    const { offer_always_after: _, ...laws } = view.settings.laws;
    const saved = await fake.invoke('save_settings', { update: { settings: { ...view.settings, laws }, keys: keep } });
    expect(saved.settings.laws.offer_always_after).toBe(3);
  });

  it('keeps standing grants by effect, once per class, and revokes exactly the one named', async () => {
    const tmp = { effect: 'delete', place: '/home/u/Downloads', extension: 'tmp', words: 'deleting .tmp files under ~/Downloads' } as const;
    const pdf = { ...tmp, extension: 'pdf', words: 'deleting .pdf files under ~/Downloads' };
    expect(await fake.invoke('effect_grants', {})).toEqual([]);
    fake.grantEffect(tmp);
    fake.grantEffect(pdf, { uses: 2, last_used: '2026-03-01T10:00:00Z' });
    fake.grantEffect({ ...tmp, words: 'the same class in other words' });
    const grants = await fake.invoke('effect_grants', {});
    expect(grants).toEqual([
      { class: tmp, granted_at: new Date(T0).toISOString(), uses: 0 },
      { class: pdf, granted_at: new Date(T0).toISOString(), uses: 2, last_used: '2026-03-01T10:00:00Z' },
    ]);
    // The words play no part in which class is revoked.
    const left = await fake.invoke('effect_revoke', { effect_class: { ...tmp, words: 'whatever' } });
    expect(left.map((g) => g.class.words)).toEqual(['deleting .pdf files under ~/Downloads']);
    expect(await fake.invoke('effect_grants', {})).toEqual(left);
  });

  it('keeps an input starting with "every " and a comma as a schedule of every weekday at 09:00, and runs nothing', async () => {
    const made = await fake.invoke('submit_input', { text: '  Every weekday at 9, summarize ~/Downloads ' });
    if (made.kind !== 'scheduled') throw new Error('not kept as a schedule');
    const { schedule, when, next_run } = made.schedule;
    expect(schedule).toEqual({
      id: expect.stringMatching(/^sch_[0-9a-f]{6}$/),
      task: 'summarize ~/Downloads',
      rule: { kind: 'at', days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '09:00' },
      created_at: new Date(T0).toISOString(),
      runs: 0,
      answer_window_secs: 3600,
    });
    expect(when).toBe('every weekday at 09:00');
    expect(made.schedule.window).toBe('a question waits up to 1 h for your answer');
    // The next weekday 09:00 in local time after now.
    const next = new Date(next_run);
    expect([next.getHours(), next.getMinutes(), next.getDay() >= 1 && next.getDay() <= 5]).toEqual([9, 0, true]);
    expect(next.getTime()).toBeGreaterThan(T0);
    expect(next.getTime() - T0).toBeLessThanOrEqual(3 * 86_400_000);
    const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][next.getDay()];
    const month = ['Jan', 'Feb', 'Mar'][next.getMonth()];
    expect(made.message).toBe(
      `Scheduled every weekday at 09:00: summarize ~/Downloads. Next run: ${day} ${next.getDate()} ${month} 09:00. It runs while the artoo app is running, and anything that needs your approval still asks: a question waits up to 1 h for your answer (no answer is a no).`,
    );
    expect(await fake.invoke('schedules', {})).toEqual([made.schedule]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(live()).toEqual([]);
  });

  it('reads no rule: whatever precedes the comma, a kept schedule runs every weekday at 09:00', async () => {
    const made = await fake.invoke('submit_input', { text: 'every hour, check the inbox' });
    expect(made.kind === 'scheduled' && [made.schedule.when, made.schedule.schedule.task]).toEqual(['every weekday at 09:00', 'check the inbox']);
  });

  it('runs any other input as submit_task does, and refuses an empty one', async () => {
    for (const text of ['every weekday at 9 summarize ~/Downloads', 'every weekday at 9,  ']) {
      const other = createFakeBackend({ now: () => Date.now() });
      const made = await other.invoke('submit_input', { text });
      expect(made.kind, text).toBe('task');
      other.dispose();
    }
    const made = await fake.invoke('submit_input', { text: 'delete the old draft in my workspace' });
    if (made.kind !== 'task') throw new Error('not run as a task');
    expect(made.task_id).toMatch(/^task_[0-9a-f]{12}$/);
    const submitted = await runUntil('TaskSubmitted');
    expect(submitted.task_id).toBe(made.task_id);
    expect(await fake.invoke('schedules', {})).toEqual([]);
    await expect(fake.invoke('submit_input', { text: '   ' })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('leaves the played runs as they were when a schedule was made first', async () => {
    const other = createFakeBackend({ now: () => Date.now() });
    await other.invoke('submit_input', { text: 'every weekday at 9, summarize ~/Downloads' });
    const after = await other.invoke('submit_input', { text: 'hello' });
    const plain = await fake.invoke('submit_input', { text: 'hello' });
    expect(after).toEqual(plain);
    other.dispose();
  });

  it('removes exactly the schedule named, and refuses an unknown one', async () => {
    const a = fake.seedSchedule('summarize ~/Downloads');
    const b = fake.seedSchedule('check the inbox', { rule: { kind: 'every', minutes: 90 }, when: 'every 90 minutes', runs: 4 });
    expect(a.schedule.id).not.toBe(b.schedule.id);
    expect(b.next_run).toBe(new Date(T0 + 90 * 60_000).toISOString());
    expect((await fake.invoke('schedules', {})).map((v) => v.schedule.id)).toEqual([a.schedule.id, b.schedule.id]);
    const left = await fake.invoke('schedule_remove', { id: a.schedule.id });
    expect(left).toEqual([b]);
    await expect(fake.invoke('schedule_remove', { id: a.schedule.id })).rejects.toMatchObject({ code: 'not_found', message: `no schedule ${a.schedule.id}` });
    expect(() => fake.seedSchedule('x', { rule: { kind: 'every', minutes: 5 } })).toThrow(/needs its words/);
  });
});

describe("the fake's history of a kind of task", () => {
  const run = (kind: string, day: number, delivered: boolean, ms: number, calls: number): CountedRun => ({
    kind,
    words: `${kind} on day ${day}`,
    started_at: new Date(T0 + day * 86_400_000).toISOString(),
    delivered,
    ms,
    model_calls: calls,
    failure: delivered ? null : `failed on day ${day}`,
  });

  it('names a kind by the lower-cased words, digits and punctuation dropped', () => {
    expect(taskKind('Count the 3 PDF files, please!')).toBe('count-the-pdf-files-please');
    expect(taskKind('  count the PDF   files please ')).toBe(taskKind('Count the 3 PDF files, please!'));
    expect(taskKind('count the words')).not.toBe(taskKind('count the files'));
  });

  it('says nothing with fewer than three runs, and computes every figure from the runs', () => {
    expect(history([run('count', 1, true, 1000, 5), run('count', 2, true, 1000, 5)])).toBeNull();
    const h = history([run('count', 1, true, 40_000, 6), run('count', 3, false, 200_000, 14), run('count', 2, true, 60_000, 8), run('count', 4, true, 50_000, 7)]);
    // Medians are the lower middle; C(3,3) / C(4,3) = 1/4.
    expect(h).toMatchObject({ runs: 4, delivered: 3, typical_ms: 50_000, typical_model_calls: 7, trend: null, last_failure: 'failed on day 3', example: 'count on day 4' });
    expect(h?.pass_k).toBeCloseTo(0.25, 9);
    if (!h) throw new Error('no history');
    expect(likeLine(h, 'en')).toBe('Tasks like this here: 3 of 4 delivered an answer, usually in about 50 s and 7 model calls; the last failure: failed on day 3');
    expect(likeLine(h, 'zh-CN')).toBe('本机同类任务：4 次中 3 次给出了答案，通常约 50 秒、7 次模型调用；上次失败：failed on day 3');
    expect(likeLine({ ...h, typical_ms: 150_000, last_failure: null }, 'en')).toBe('Tasks like this here: 3 of 4 delivered an answer, usually in about 3 min and 7 model calls');
  });

  it('compares the newer half with the older from six runs, and gives pass^3 its bounds', () => {
    const of = (pattern: boolean[]) => history(pattern.map((ok, i) => run('k', i, ok, 1000, 1)));
    expect(of([false, false, true, true, true, true])?.trend).toBe('better');
    expect(of([true, true, true, false, false, true])?.trend).toBe('worse');
    expect(of([true, false, true, true, false, true])?.trend).toBe('steady');
    expect(of([true, true, true, true, true])).toMatchObject({ pass_k: 1, last_failure: null, trend: null });
    expect(of([false, false, false])?.pass_k).toBe(0);
  });

  it('groups runs by kind, leaves out kinds with fewer than three, and lists the most recently run first', () => {
    const runs = [run('a', 1, true, 1, 1), run('b', 2, true, 1, 1), run('a', 3, false, 1, 1), run('b', 4, true, 1, 1), run('a', 5, true, 1, 1), run('b', 6, true, 1, 1), run('c', 7, true, 1, 1)];
    expect(byKind(runs).map((h) => [h.kind, h.runs, h.delivered])).toEqual([
      ['b', 3, 3],
      ['a', 3, 2],
    ]);
    expect(like(runs, 'A!')?.kind).toBe('a');
    expect(like(runs, 'c')).toBeNull();
  });
});
