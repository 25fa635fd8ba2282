import { fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';

import { locale } from '../../i18n';
import { IpcError } from '../../ipc/backend';
import type { UndoPreview } from '../../ipc/commands';

import type { FinalResult, TaskId } from '../../ipc/contracts';
import { emptyTask } from '../pipeline/model';
import { ResultCard } from './Popup';
import type { UndoActions } from './UndoTask';

function finished(result: Partial<FinalResult>) {
  const task = emptyTask('t-1' as TaskId, 'copy the three files', '2026-11-29T12:00:00Z');
  task.result = {
    task_id: 't-1' as TaskId,
    summary: 'Copied 2 of 3 files; warranty.pdf does not exist.',
    output: null,
    loss: { d: 0.3, p: 0, omega: 0.1, l: 0.2 },
    grad_l: 0,
    replans: 0,
    prev_directive: 'init',
    directive: 'abandon',
    ...result,
  } as FinalResult;
  return task;
}

describe('the result card', () => {
  it('lists every change the task made to files, each with its verb', () => {
    render(
      <ResultCard
        task={finished({
          effects: [
            { path: '/home/u/to-print/lease.pdf', exists: false, effect: 'create' },
            { path: '/home/u/log.txt', exists: true, effect: 'append' },
          ],
        })}
      />,
    );
    const items = [...screen.getByTestId('effects').querySelectorAll('li')].map((li) => li.textContent);
    expect(items).toEqual(['created /home/u/to-print/lease.pdf', 'appended to /home/u/log.txt']);
  });

  it('shows no list when the task changed nothing', () => {
    render(<ResultCard task={finished({})} />);
    expect(screen.queryByTestId('effects')).toBeNull();
  });

  it('names the standing grants that let actions of the task run without asking, each on its own line', () => {
    render(
      <ResultCard
        task={finished({
          directive: 'success',
          effects: [{ path: '/home/u/Downloads/a.tmp', exists: true, effect: 'delete' }],
          grants: ['deleting .tmp files under ~/Downloads', 'emptying .log files under ~/logs'],
        })}
      />,
    );
    const block = screen.getByTestId('result-grants');
    expect(block.previousElementSibling?.textContent).toBe('Allowed without asking by your standing grants');
    expect([...block.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['deleting .tmp files under ~/Downloads', 'emptying .log files under ~/logs']);
  });

  it('does not say the user was asked when every Law 1 gate of the task was a standing grant', () => {
    const summary = '[LAW1] Deleted 2 files.';
    const grants = ['deleting .tmp files under ~/Downloads'];
    const { unmount } = render(<ResultCard task={finished({ summary, grants })} />);
    expect(screen.queryByTestId('law1-note')).toBeNull();
    unmount();
    // With the tally: only what the grants let run, nothing of asking.
    const granted = render(<ResultCard task={finished({ summary, grants, law1: { approved: 0, denied: 0, trashed: 0, granted: 2 } })} />);
    expect(screen.getByTestId('law1-note').textContent).toBe('Law 1: 2 actions ran under your standing grants.');
    expect(screen.getByTestId('result-details').textContent).not.toContain('[LAW1]');
    granted.unmount();
    // A request seen during the task: the note stands, grants or not.
    const asked = finished({ summary, grants });
    asked.law1 = true;
    render(<ResultCard task={asked} />);
    expect(screen.getByTestId('law1-note').textContent).toBe('You were asked before anything that cannot be undone (Law 1).');
  });

  it('shows the bookkeeping beside the answer, each on its own, the answer alone in the summary', () => {
    const answer = 'Copied 2 of 3 files into ~/to-print; warranty.pdf does not exist.';
    render(
      <ResultCard
        task={finished({
          directive: 'success',
          summary: `[LAW1] ${answer}`,
          account: ['copied 2 of 3 into ~/to-print: lease.pdf, insurance.pdf', 'missing: warranty.pdf (not in ~/contracts)'],
          unverified: ['~/to-print/receipts', '42'],
          not_met: ['all three files are in ~/to-print'],
          law1: { approved: 1, denied: 1, trashed: 0, granted: 1 },
          effects: [
            { path: '/home/u/to-print/lease.pdf', exists: false, effect: 'create' },
            { path: '/home/u/to-print/old.pdf', exists: true, effect: 'delete' },
            { path: '/home/u/contracts/draft.pdf', exists: true, effect: 'move' },
          ],
        })}
      />,
    );
    const items = (id: string) => [...screen.getByTestId(id).querySelectorAll('li')].map((li) => li.textContent);
    expect(screen.getByTestId('summary').textContent).toBe(answer);
    const account = screen.getByTestId('result-account');
    expect(account.previousElementSibling?.textContent).toBe('What the tools did');
    expect(items('result-account')).toEqual(['copied 2 of 3 into ~/to-print: lease.pdf, insurance.pdf', 'missing: warranty.pdf (not in ~/contracts)']);
    // What the tools did comes before the files the task changed.
    expect(account.compareDocumentPosition(screen.getByTestId('effects')) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(items('effects')).toEqual(['created /home/u/to-print/lease.pdf', 'deleted /home/u/to-print/old.pdf', 'moved /home/u/contracts/draft.pdf']);
    const notMet = screen.getByTestId('result-not-met');
    expect(notMet.previousElementSibling?.textContent).toBe('Not met');
    expect(items('result-not-met')).toEqual(['all three files are in ~/to-print']);
    const unverified = screen.getByTestId('result-unverified');
    expect(unverified.tagName).toBe('P');
    expect(unverified.textContent).toBe("Not verified against the tools' output: ~/to-print/receipts, 42.");
    expect(screen.getByTestId('law1-note').textContent).toBe('Law 1: 2 actions asked for your approval (1 approved, 1 denied); 1 action ran under your standing grants.');
    // None of it is glued to the answer.
    for (const id of ['result-account', 'result-not-met', 'result-unverified', 'law1-note']) {
      expect(screen.getByTestId('summary').contains(screen.getByTestId(id))).toBe(false);
    }
    expect(screen.getByTestId('result-details').textContent).toContain('[LAW1]');
  });

  it('says nothing of the bookkeeping a result does not carry', () => {
    render(<ResultCard task={finished({ account: [], unverified: [], not_met: [], law1: { approved: 0, denied: 0, trashed: 0, granted: 0 } })} />);
    for (const id of ['result-account', 'result-not-met', 'result-unverified', 'law1-note']) expect(screen.queryByTestId(id)).toBeNull();
  });

  it('says nothing of standing grants when none allowed anything', () => {
    const { unmount } = render(<ResultCard task={finished({ grants: [] })} />);
    expect(screen.queryByTestId('result-grants')).toBeNull();
    expect(screen.getByTestId('result').textContent).not.toContain('standing grants');
    unmount();
    render(<ResultCard task={finished({})} />);
    expect(screen.queryByTestId('result-grants')).toBeNull();
  });

  it('says how a scheduled run went on its own line, apart from the answer', () => {
    const note = 'Scheduled: every weekday at 09:00. This run was due at Mon 30 Nov 09:00 and started at 09:40, when artoo could run it (the computer was asleep or artoo was not running). 2 earlier runs were missed and are not made up.';
    render(
      <ResultCard
        task={finished({
          directive: 'success',
          summary: 'Summarized 4 files in ~/Downloads.',
          effects: [{ path: '/home/u/Downloads/summary.md', exists: false, effect: 'create' }],
          scheduled: { schedule_id: 'sch_1a2b3c', due_at: '2026-11-30T09:00:00Z', missed: 2, note, answer_window_secs: 3600 },
        })}
      />,
    );
    const line = screen.getByTestId('result-scheduled');
    expect(line.textContent).toBe(note);
    expect(line.tagName).toBe('P');
    // Not part of the answer, and not hidden behind "Details".
    expect(screen.getByTestId('summary').textContent).toBe('Summarized 4 files in ~/Downloads.');
    expect(screen.getByTestId('summary').contains(line)).toBe(false);
    expect(screen.getByTestId('result-details').contains(line)).toBe(false);
    // Near the top: right after the answer, before what the task changed.
    expect(line.previousElementSibling).toBe(screen.getByTestId('summary'));
    expect(line.compareDocumentPosition(screen.getByTestId('effects')) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('says nothing of a schedule for a task the user started', () => {
    // The core reads a null there as none (FinalResult_Deserialize), so the card does too.
    const { unmount } = render(<ResultCard task={finished({ scheduled: null } as unknown as Partial<FinalResult>)} />);
    expect(screen.queryByTestId('result-scheduled')).toBeNull();
    unmount();
    render(<ResultCard task={finished({})} />);
    expect(screen.queryByTestId('result-scheduled')).toBeNull();
    expect(screen.getByTestId('result').textContent).not.toContain('Scheduled');
  });

  describe('in Chinese', () => {
    afterEach(() => {
      locale.value = 'en';
    });

    it('says the grants in Chinese, the folders kept verbatim', () => {
      locale.value = 'zh-CN';
      render(<ResultCard task={finished({ grants: ['deleting .tmp files under ~/Downloads', 'moving away files under ~/Desktop/old'] })} />);
      const block = screen.getByTestId('result-grants');
      expect(block.previousElementSibling?.textContent).toBe('因你的长期授权而无需询问的操作');
      expect([...block.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['删除 ~/Downloads 下的 .tmp 文件', '移走 ~/Desktop/old 下的文件']);
    });

    it('says the bookkeeping in Chinese, the lines of the tools kept verbatim', () => {
      locale.value = 'zh-CN';
      render(
        <ResultCard
          task={finished({
            summary: '[LAW1] 已复制 2 个文件。',
            account: ['missing: warranty.pdf (not in ~/contracts)'],
            unverified: ['~/to-print/receipts', '42'],
            not_met: ['all three files are in ~/to-print'],
            law1: { approved: 1, denied: 0, trashed: 2, granted: 0 },
            effects: [{ path: '/home/u/a.pdf', exists: true, effect: 'delete' }],
          })}
        />,
      );
      expect(screen.getByTestId('summary').textContent).toBe('已复制 2 个文件。');
      expect(screen.getByTestId('result-account').previousElementSibling?.textContent).toBe('工具实际做了什么');
      expect(screen.getByTestId('result-account').textContent).toBe('missing: warranty.pdf (not in ~/contracts)');
      expect(screen.getByTestId('result-not-met').previousElementSibling?.textContent).toBe('未满足的要求');
      expect(screen.getByTestId('result-unverified').textContent).toBe('未经工具输出核实：~/to-print/receipts、42。');
      expect(screen.getByTestId('law1-note').textContent).toBe('第一定律：3 项操作征求了你的批准（批准 1 项、移到废纸篓 2 项）。');
      expect(screen.getByTestId('effects').textContent).toBe('删除 /home/u/a.pdf');
    });
  });

  const changed = () =>
    finished({
      directive: 'success',
      effects: [
        { path: '/home/u/work/logs/app.log', exists: false, effect: 'move' },
        { path: '/home/u/work/logs', exists: false, effect: 'create' },
      ],
    });

  /** Undo actions that answer with `preview` and record what was asked. */
  function actions(preview: UndoPreview, apply: () => Promise<{ undo_id: string; count: number }>) {
    const asked: string[] = [];
    const undo: UndoActions = {
      preview: async (id) => {
        asked.push(`preview ${id}`);
        return preview;
      },
      apply: async (id) => {
        asked.push(`apply ${id}`);
        return apply();
      },
    };
    return { undo, asked };
  }

  it('undoes a task only after showing its plan and the confirm click', async () => {
    const plan: UndoPreview = {
      task_id: 't-1' as TaskId,
      steps: [
        { kind: 'move_back', path: '~/work/logs/app.log', to: '~/work/app.log' },
        { kind: 'remove', path: '~/work/logs' },
      ],
      lasting: ['the MCP tool notes.append: today'],
      refused: null,
    };
    const { undo, asked } = actions(plan, async () => ({ undo_id: 'undo-1', count: 2 }));
    render(<ResultCard task={changed()} undo={undo} />);
    fireEvent.click(screen.getByTestId('undo'));
    const shown = await screen.findByTestId('undo-plan');
    expect([...shown.querySelectorAll('ul')[0]!.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'move ~/work/logs/app.log back to ~/work/app.log',
      'remove ~/work/logs (the task made it)',
    ]);
    expect(screen.getByTestId('undo-lasting').textContent).toContain('notes.append');
    expect(asked).toEqual(['preview t-1']);
    fireEvent.click(screen.getByTestId('undo-confirm'));
    await waitFor(() => expect(screen.getByTestId('undo-done').textContent).toBe('Undone: 2 changes taken back. To redo, undo undo-1.'));
    expect(asked).toEqual(['preview t-1', 'apply t-1']);
  });

  it('says why an undo was refused, and offers none for a task that changed no file', async () => {
    const plan: UndoPreview = { task_id: 't-1' as TaskId, steps: [{ kind: 'remove', path: '~/work/logs' }], lasting: [], refused: null };
    const { undo } = actions(plan, async () => {
      throw new IpcError('forbidden', '/home/u/work/logs/app.log changed after the task, so nothing was undone');
    });
    const { unmount } = render(<ResultCard task={changed()} undo={undo} />);
    fireEvent.click(screen.getByTestId('undo'));
    fireEvent.click(await screen.findByTestId('undo-confirm'));
    await waitFor(() =>
      expect(screen.getByTestId('undo-refused').textContent).toBe('Not undone: /home/u/work/logs/app.log changed after the task, so nothing was undone.'),
    );
    unmount();
    render(<ResultCard task={finished({})} undo={undo} />);
    expect(screen.queryByTestId('undo')).toBeNull();
  });
});
