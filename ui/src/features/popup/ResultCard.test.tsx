import { render, screen } from '@testing-library/preact';
import { describe, expect, it } from 'vitest';

import type { FinalResult, TaskId } from '../../ipc/contracts';
import { emptyTask } from '../pipeline/model';
import { ResultCard } from './Popup';

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
});
