import { afterEach, describe, expect, it } from 'vitest';

import type { DescribedEnvelope } from '../../ipc/commands';
import { harness, type Harness, TASK } from '../../test-util';
import { ARROWS, emptyTask, gradientOf, reduce, replay } from './model';

describe('the pipeline model', () => {
  let h: Harness | undefined;
  let taskId = '';
  const live = () => (h ? h.fake.transcript().filter((e) => e.task_id === taskId) : []);
  afterEach(() => h?.dispose());

  async function transcriptUntil(kind: DescribedEnvelope['message']['type']): Promise<DescribedEnvelope[]> {
    const current = harness();
    h = current;
    taskId = await current.fake.invoke('submit_task', { text: TASK });
    await current.until(() => live().some((e) => e.message.type === kind));
    return live();
  }

  it('labels the gradient as GGS does: beyond ε it has a direction, else plateau while D > δ', () => {
    const p = { epsilon: 0.1, delta: 0.3 };
    expect(gradientOf(0.11, 0.5, p)).toBe('worsening');
    expect(gradientOf(-0.11, 0.5, p)).toBe('improving');
    expect(gradientOf(0.1, 0.5, p)).toBe('plateau');
    expect(gradientOf(0, 0.3, p)).toBe('stable');
    expect([ARROWS.worsening, ARROWS.improving, ARROWS.plateau, ARROWS.stable]).toEqual(['↑', '↓', '⊥', '→']);
  });

  it('shows R2 replanning with the directive and its rationale until the next dispatch', async () => {
    const envelopes = await transcriptUntil('PlanDirective');
    const task = replay(envelopes);
    expect(task?.phase).toBe('replanning');
    expect(task?.replanning?.directive).toBe('change_path');
    expect(task?.roles.R2).toBe('active');
    expect(task?.roles.R7).toBe('done');
    expect(task?.rounds).toHaveLength(1);
    expect(task?.rounds[0]?.gradient).toBe('plateau');
    // As recorded (replan_law1): the one sub-task failed on its only attempt.
    expect(task?.subtasks.map((s) => s.status)).toEqual(['failed']);
    expect(task?.subtasks[0]?.attempt).toBe(1);

    await h?.until(() => live().some((e) => e.message.type === 'DispatchManifest' && e.message.payload.round === 1));
    const after = replay(live());
    expect(after?.replanning).toBeNull();
    expect(after?.round).toBe(1);
  });

  it('marks the executor waiting while a Law 1 confirmation is open', async () => {
    const task = replay(await transcriptUntil('ConfirmationRequest'));
    expect(task?.phase).toBe('approval');
    expect(task?.roles.R3).toBe('waiting');
    expect(task?.law1).toBe(true);
  });

  it('adds up the cost of every model call per role', async () => {
    const envelopes = await transcriptUntil('PlanDirective');
    const task = replay(envelopes);
    const calls = envelopes.flatMap((e) => (e.message.type === 'LlmCall' && e.message.payload.role === 'R3' ? [e.message.payload] : []));
    expect(calls.length).toBeGreaterThan(0);
    expect(task?.cost.R3?.calls).toBe(calls.length);
    expect(task?.cost.R3?.completionTokens).toBe(calls.reduce((s, c) => s + c.completion_tokens, 0));
    expect(task?.tools.calls).toBe(envelopes.filter((e) => e.message.type === 'ToolCallEvent').length);
  });

  it('ignores repeated and foreign envelopes', async () => {
    const envelopes = await transcriptUntil('TaskSpec');
    const first = envelopes[0];
    if (!first?.task_id) throw new Error('no envelope');
    let task = emptyTask(first.task_id, '', first.timestamp);
    for (const e of envelopes) task = reduce(task, e);
    const again = reduce(task, envelopes[1] as DescribedEnvelope);
    expect(again).toBe(task);
    const foreign = reduce(task, { ...(envelopes.at(-1) as DescribedEnvelope), seq: 10_000, task_id: 'task_other' });
    expect(foreign).toBe(task);
  });

  it('shows each envelope in the message flow with the line it arrived with', async () => {
    const envelopes = await transcriptUntil('PlanDirective');
    const task = replay(envelopes);
    expect(task?.flow.map((l) => [l.seq, l.kind, l.detail])).toEqual(envelopes.map((e) => [e.seq, e.message.type, e.line]));
  });

  it('marks the sub-tasks a halted dispatch skipped, and judges once the rest have closed', async () => {
    const envelopes = await transcriptUntil('TaskSpec');
    const first = envelopes[0];
    if (!first?.task_id) throw new Error('no envelope');
    const id = first.task_id;
    let task = emptyTask(id, '', first.timestamp);
    for (const e of envelopes) task = reduce(task, e);
    let seq = (envelopes.at(-1) as DescribedEnvelope).seq;
    const env = (from: DescribedEnvelope['from'], to: DescribedEnvelope['to'], message: DescribedEnvelope['message']): DescribedEnvelope => ({
      id: `e${++seq}`,
      seq,
      timestamp: first.timestamp,
      from,
      to,
      task_id: id,
      message,
      line: `line ${seq}`,
    });
    const sub = (subtask_id: string, sequence: number): DescribedEnvelope['message'] => ({
      type: 'SubTask',
      payload: { subtask_id, parent_task_id: id, intent: `step ${sequence}`, success_criteria: ['done'], context: '', deadline: null, sequence, blocked_tools: [], blocked_targets: [], confirm_tools: [] },
    });
    const planned = [sub('s1', 1), sub('s2', 2)].map((m) => (m.type === 'SubTask' ? m.payload : null)).filter((s) => s !== null);
    task = reduce(
      task,
      env('R2', 'Dispatcher', { type: 'DispatchManifest', payload: { task_id: id, subtasks: planned, task_spec: null, dispatched_at: first.timestamp, task_criteria: [], round: 0 } }),
    );
    // The whole plan shows at once; a step runs when the dispatcher releases it.
    expect(task.subtasks.map((s) => [s.id, s.status])).toEqual([['s1', 'queued'], ['s2', 'queued']]);
    task = reduce(task, env('Dispatcher', 'R3', sub('s1', 1)));
    expect(task.subtasks.map((s) => [s.id, s.status])).toEqual([['s1', 'running'], ['s2', 'queued']]);
    task = reduce(task, env('Dispatcher', 'R4b', { type: 'DispatchHalted', payload: { task_id: id, skipped: ['s2'], reason: 'group 1 failed', unrun: [] } }));
    expect(task.subtasks.find((s) => s.id === 's2')?.status).toBe('skipped');
    expect(task.subtasks.find((s) => s.id === 's2')?.failure).toBe('group 1 failed');
    expect(task.flow.at(-1)).toMatchObject({ seq, kind: 'DispatchHalted', detail: `line ${seq}` });
    task = reduce(
      task,
      env('R4a', 'R4b', {
        type: 'SubTaskOutcome',
        payload: { subtask_id: 's1', parent_task_id: id, status: 'failed', output: null, failure_reason: 'no', failure_class: 'logical', criteria_verdicts: [], gap_trajectory: [], tool_calls: [] },
      } as unknown as DescribedEnvelope['message']),
    );
    expect(task.phase).toBe('judging');
  });
});
