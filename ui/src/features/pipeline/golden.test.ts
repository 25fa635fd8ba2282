// The pipeline view over the traffic the runtime really sends: the golden transcripts
// recorded from it (tests/fixtures/transcripts/, blessed with the Rust tests), not a
// transcript written by hand. Each envelope is kept as the shell sends it, with the line
// the core wrote for it.
// @vitest-environment node

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import type { DescribedEnvelope } from '../../ipc/commands';
import { replay } from './model';

const DIR = fileURLToPath(new URL('../../../../tests/fixtures/transcripts/', import.meta.url));
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

function load(file: string): DescribedEnvelope[] {
  return JSON.parse(readFileSync(`${DIR}${file}`, 'utf8')) as DescribedEnvelope[];
}

describe('the pipeline view over recorded runtime traffic', () => {
  it('has transcripts to read', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(3);
  });

  for (const file of FILES) {
    it(`replays ${file} to its end with no role left working`, () => {
      const envelopes = load(file);
      const task = replay(envelopes);
      expect(task).not.toBeNull();
      if (!task) return;
      const final = envelopes.find((e) => e.message.type === 'FinalResult');
      if (final?.message.type === 'FinalResult') {
        expect(task.phase).toBe('done');
        expect(task.result?.summary).toBe(final.message.payload.summary);
      } else if (envelopes.some((e) => e.message.type === 'TaskClosed' && e.message.payload.end.kind === 'cancelled')) {
        expect(task.phase).toBe('cancelled');
      } else {
        const chat = envelopes.find((e) => e.message.type === 'ChatReply');
        expect(chat).toBeDefined();
        expect(task.phase).toBe('chat');
      }
      for (const [role, activity] of Object.entries(task.roles)) {
        expect(['active', 'waiting'], `${file}: ${role}`).not.toContain(activity);
      }
      expect(task.law1).toBe(envelopes.some((e) => e.message.type === 'ConfirmationRequest'));
      const decisions = envelopes.filter((e) => e.message.type === 'PlanDirective' || e.message.type === 'FinalResult');
      if (final) expect(task.rounds).toHaveLength(decisions.length);
      for (const e of envelopes) expect(e.line.length, `${file}: ${e.message.type}`).toBeGreaterThan(0);
      const ofTask = envelopes.filter((e) => e.task_id === task.taskId);
      expect(task.flow.map((l) => l.detail)).toEqual(ofTask.map((e) => e.line));
    });
  }
});
