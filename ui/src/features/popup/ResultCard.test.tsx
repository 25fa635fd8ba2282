import { fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { describe, expect, it } from 'vitest';

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
