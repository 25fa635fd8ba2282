// The status lines the core writes (src/status), for one envelope of every message kind,
// as features/status/lines.generated.json holds them (a Rust test writes that file from
// the real function and fails when it is stale). Here: every kind is covered, the wording
// keeps to its rules in both languages, and the popup shows each line as it arrives.

import { act, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';

import { Popup } from '../popup/Popup';
import { harness, type Harness } from '../../test-util';
import type { DescribedEnvelope } from '../../ipc/commands';
import type { MessageKind } from '../../ipc/contracts';
import rows from './lines.generated.json';

interface Row {
  kind: MessageKind;
  envelope: DescribedEnvelope;
  en: string | null;
  'zh-CN': string | null;
}

const ROWS = rows as unknown as Row[];

/** Every kind, so a new message kind without a line here fails the typecheck. */
const KINDS: Record<MessageKind, true> = {
  TaskSubmitted: true,
  ClarificationRequest: true,
  ClarificationAnswer: true,
  ChatReply: true,
  TaskSpec: true,
  MemoryQuery: true,
  MemoryResponse: true,
  MemoryRecall: true,
  DispatchManifest: true,
  SubTask: true,
  ExecutionResult: true,
  CorrectionSignal: true,
  SubTaskOutcome: true,
  SubTaskClosed: true,
  DispatchHalted: true,
  ReplanRequest: true,
  OutcomeSummary: true,
  PlanDirective: true,
  PlanningFailed: true,
  GracefulFailureRequest: true,
  GracefulFailure: true,
  FinalResult: true,
  Megram: true,
  MemoryOperatorChange: true,
  ConfirmationRequest: true,
  ConfirmationDecision: true,
  TaskClosed: true,
  AuditQuery: true,
  AuditReport: true,
  LlmCall: true,
  ToolCallEvent: true,
};

/** Kinds that begin no phase of their own: records, memory writes, audits, replies. */
const QUIET: readonly MessageKind[] = ['MemoryResponse', 'SubTaskClosed', 'GracefulFailure', 'Megram', 'MemoryOperatorChange', 'AuditQuery', 'AuditReport', 'LlmCall'];

/** What belongs to the pipeline view, never to a status line. */
const INTERNAL = [/\bR[1-7]a?b?\b/, /\[LAW1\]/, /\baccept\b/, /\babandon\b/, /change_path/, /\btok\b/, /D=/, /∇L/, /Ω/];

const CJK = /[\u4e00-\u9fff]/;

describe('status lines for every message kind', () => {
  it('covers every kind once', () => {
    expect(new Set(ROWS.map((r) => r.kind))).toEqual(new Set(Object.keys(KINDS)));
  });

  for (const row of ROWS) {
    it(`${row.kind}: ${row.en ?? '(no line)'}`, () => {
      expect(row.en === null).toBe(QUIET.includes(row.kind));
      expect(row['zh-CN'] === null).toBe(row.en === null);
      if (row.en === null || row['zh-CN'] === null) return;
      for (const line of [row.en, row['zh-CN']]) {
        expect(line.trim().length).toBeGreaterThan(0);
        expect(line).not.toContain('\n');
        for (const pattern of INTERNAL) expect(line).not.toMatch(pattern);
      }
      expect(row['zh-CN']).toMatch(CJK);
      expect(row.en).not.toMatch(CJK);
    });
  }
});

describe('the popup shows each status line as it arrives', () => {
  let h: Harness;
  afterEach(() => h.dispose());

  it('in the live region, keeping the last line through envelopes that begin no phase', () => {
    h = harness();
    const s = h.session;
    render(<Popup pipeline={s.pipeline} approvals={s.approvals} now={s.now} skipped={s.skipped} openPanel={() => undefined} hide={() => undefined} />);
    const region = screen.getByTestId('status-line');
    let last = '';
    for (const row of ROWS) {
      if (!row.envelope.task_id) continue;
      act(() => s.pipeline.handle(row.envelope, row.en));
      if (row.en) last = row.en;
      expect(screen.getByTestId('status-line')).toBe(region);
      expect(region.textContent).toBe(last);
    }
    expect(last.length).toBeGreaterThan(0);
  });
});
