import { effect } from '@preact/signals';
import { fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { TasksLike } from '../../ipc/commands';
import { harness, type Harness, TASK } from '../../test-util';
import { Popup } from './Popup';
import type { TasksLikeLookup } from './TasksLike';

describe('the popup', () => {
  let h: Harness;
  const openPanel = vi.fn();
  const hide = vi.fn();

  beforeEach(() => {
    h = harness();
    openPanel.mockReset();
    hide.mockReset();
    const s = h.session;
    render(<Popup pipeline={s.pipeline} approvals={s.approvals} now={s.now} skipped={s.skipped} openPanel={openPanel} hide={hide} />);
  });
  afterEach(() => h.dispose());

  const input = () => screen.getByRole('textbox', { name: 'What should I do?' }) as HTMLTextAreaElement;

  async function submit(text: string): Promise<void> {
    fireEvent.input(input(), { target: { value: text } });
    fireEvent.keyDown(input(), { key: 'Enter' });
    await h.advance(10);
  }

  it('says nothing about the sandbox while it works', () => {
    expect(screen.queryByTestId('sandbox-off')).toBeNull();
  });

  it('focuses the task input and runs a task on Enter, showing each role', async () => {
    expect(document.activeElement).toBe(input());
    await submit(TASK);
    expect(screen.getByTestId('task-input').textContent).toBe(TASK);
    expect(input().value).toBe('');
    expect(document.querySelector('.role[data-role="R1"]')?.getAttribute('data-activity')).toBe('active');
    await h.until(() => document.querySelector('.role[data-role="R3"][data-activity="active"]'));
    expect(screen.getByTestId('phase').textContent).toBe('Executing');
  });

  it('shows the loss with its arrow and the rationale while R2 replans', async () => {
    await submit(TASK);
    await h.until(() => screen.queryByTestId('replan'));
    expect(screen.getByTestId('replan').textContent).toContain('R2 is replanning: change path');
    expect(screen.getByTestId('rationale').textContent).toContain('with environmental failures');
    expect(screen.getByTestId('gradient').textContent).toBe('⊥ plateau');
    expect(screen.getByTestId('loss-row').textContent).toContain('0.60');
  });

  it('shows every memory recall of the round, the task kind\'s first, each with its Why', async () => {
    await submit(TASK);
    await h.until(() => document.querySelectorAll('[data-testid="recall-group"]').length >= 1);
    const groups = screen.getAllByTestId('recall-group');
    // As recorded: the task kind's group carries the Four Laws; the operator's group nothing.
    expect(groups[0]?.textContent).toContain('[intent:');
    expect(groups[0]?.textContent).toContain('the Four Laws (4)');
    fireEvent.click(groups[0]?.querySelector('button') as HTMLButtonElement);
    expect(openPanel).toHaveBeenCalledWith('memory', expect.objectContaining({ kind: 'group', entity: 'env:local' }));
    const space = openPanel.mock.calls[0]?.[1]?.space as string;
    expect(space.startsWith('intent:')).toBe(true);
  });

  it('recalls earlier inputs with the up arrow', async () => {
    await submit('hello');
    await h.until(() => screen.queryByTestId('chat'));
    fireEvent.click(screen.getByText('New task'));
    await h.advance(10);
    fireEvent.keyDown(input(), { key: 'ArrowUp' });
    await h.advance(10);
    expect(input().value).toBe('hello');
    fireEvent.keyDown(input(), { key: 'ArrowDown' });
    await h.advance(10);
    expect(input().value).toBe('');
  });

  it('asks a clarifying question inline and sends the answer', async () => {
    await submit('clean up');
    const form = await h.until(() => screen.queryByTestId('clarification'));
    const field = form.querySelector('input') as HTMLInputElement;
    fireEvent.input(field, { target: { value: 'old installers in Downloads' } });
    fireEvent.submit(form);
    await h.advance(10);
    expect(screen.queryByTestId('clarification')).toBeNull();
    const answer = h.fake.transcript().find((e) => e.message.type === 'ClarificationAnswer');
    expect(answer?.message.type === 'ClarificationAnswer' && answer.message.payload.answer).toBe('old installers in Downloads');
  });

  it('shows the answer first, what was done, and the labels and cost only in the details', async () => {
    await submit(TASK);
    const request = await h.until(() => h.session.approvals.first.value);
    const answered = h.session.approvals.answer(request.request_id, 'trash');
    await h.advance(500);
    await answered;
    const result = await h.until(() => screen.queryByTestId('result'), 120_000);
    expect(result.textContent).toContain('✅');
    // The answer alone; how the Law 1 request was answered is said beside it.
    expect(screen.getByTestId('summary').textContent).toBe('draft-old.txt deleted');
    expect(screen.getByTestId('law1-note').textContent).toBe('Law 1: 1 action asked for your approval (1 moved to the Trash).');
    expect(screen.getByTestId('done-steps').querySelectorAll('li').length).toBeGreaterThan(0);
    // Internal labels are not in the answer, only behind "Details".
    const details = screen.getByTestId('result-details');
    const answer = result.textContent?.replace(details.textContent ?? '', '') ?? '';
    for (const label of ['[LAW1]', 'accept', 'tok']) expect(answer).not.toContain(label);
    expect(details.textContent).toContain('[LAW1]');
    expect(details.textContent).toContain('accept');
    const cost = screen.getByTestId('cost');
    // R1 read the recorded input without a model call.
    for (const role of ['R2', 'R3', 'R4a', 'R4b']) expect(cost.textContent).toContain(role);
    fireEvent.click(screen.getByText('Open in Tasks'));
    expect(openPanel).toHaveBeenCalledWith('tasks', { kind: 'task', task_id: request.task_id });
  }, 30_000);

  it('says what is happening in one plain line, in a live region that was there before', async () => {
    const line = screen.getByTestId('status-line');
    expect(line.getAttribute('aria-live')).toBe('polite');
    expect(line.textContent).toBe('');
    const shown: string[] = [];
    const stop = effect(() => {
      const id = h.session.pipeline.current.value?.taskId;
      const text = id ? h.session.pipeline.status.value.get(id) : undefined;
      if (text && shown.at(-1) !== text) shown.push(text);
    });
    await submit(TASK);
    expect(screen.getByTestId('status-line')).toBe(line);
    await h.until(() => shown.some((l) => l.startsWith('Step 1 of 1: ')));
    stop();
    expect(shown[0]).toBe('Reading your request…');
    expect(shown.some((l) => l.startsWith('Planning 1 step'))).toBe(true);
    // The pipeline with its numbers is one click away, each number explained in words.
    const details = screen.getByTestId('pipeline-details') as HTMLDetailsElement;
    expect(details.open).toBe(false);
    await h.until(() => screen.queryByTestId('loss-row'), 60_000);
    expect(screen.getByTestId('loss-row').textContent).toContain('how far the result is from what you asked');
  });

  it('cancels a running task and says so', async () => {
    await submit(TASK);
    await h.advance(3000);
    fireEvent.click(screen.getByTestId('cancel'));
    await h.advance(10);
    expect(screen.getByText('Cancelled: cancelled by the user')).toBeTruthy();
    expect(h.fake.transcript().at(-1)?.message.type).toBe('TaskClosed');
  });

  it('hides on Escape and opens the panels from the header', async () => {
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(hide).toHaveBeenCalledOnce();
    fireEvent.click(screen.getByRole('button', { name: 'Memory' }));
    expect(openPanel).toHaveBeenCalledWith('memory', null);
  });

  it('lets Escape deny a Law 1 request without hiding the popup', async () => {
    await submit(TASK);
    const dialog = await h.until(() => screen.queryByTestId('law1-dialog'));
    fireEvent.keyDown(dialog, { key: 'Escape' });
    await h.advance(500);
    expect(hide).not.toHaveBeenCalled();
    expect(screen.queryByTestId('law1-dialog')).toBeNull();
    const decision = h.fake.transcript().find((e) => e.message.type === 'ConfirmationDecision');
    expect(decision?.message.type === 'ConfirmationDecision' && decision.message.payload).toMatchObject({ decision: 'deny', source: 'user' });
  });

  /** The commands the popup sent to submit its input or remove a schedule, in order. */
  const sent = (spy: { mock: { calls: unknown[][] } }) =>
    spy.mock.calls.filter(([command]) => ['submit_task', 'submit_input', 'schedule_remove'].includes(command as string));

  it('runs an input that says nothing of when as a task, through submit_input', async () => {
    const invoke = vi.spyOn(h.fake, 'invoke');
    await submit(TASK);
    expect(sent(invoke)).toEqual([['submit_input', { text: TASK }]]);
    expect(screen.getByTestId('task-input').textContent).toBe(TASK);
    expect(h.session.pipeline.running.value).toBe(true);
    expect(screen.queryByTestId('scheduled-card')).toBeNull();
    expect(await h.fake.invoke('schedules', {})).toEqual([]);
  });

  it('keeps a schedule for an input that says when it should run, says so in place of a task, and removes it', async () => {
    const invoke = vi.spyOn(h.fake, 'invoke');
    const text = 'every weekday at 9, summarize ~/Downloads';
    const submitted = () => h.fake.transcript().filter((e) => e.message.type === 'TaskSubmitted').length;
    expect(await h.fake.invoke('schedules', {})).toEqual([]);
    // (After the fake's seeded week, which the first command waits for.)
    const before = submitted();
    await submit(text);
    const [kept, ...others] = await h.fake.invoke('schedules', {});
    expect(others).toEqual([]);
    expect(kept?.schedule.task).toBe('summarize ~/Downloads');
    const id = kept?.schedule.id ?? '';
    // Nothing runs now: no task on screen or on the bus, and the input is free again.
    expect(screen.queryByTestId('task-input')).toBeNull();
    expect(h.session.pipeline.running.value).toBe(false);
    await h.advance(3000);
    expect(submitted()).toBe(before);
    expect(input().value).toBe('');
    expect(input().disabled).toBe(false);
    const card = screen.getByTestId('scheduled-card');
    expect(card.querySelector('h3')?.textContent).toBe('Scheduled');
    expect(screen.getByTestId('scheduled-message').textContent).toMatch(
      new RegExp(`^Scheduled every weekday at 09:00: summarize ~/Downloads\\. Next run: \\w{3} \\d{1,2} \\w{3} 09:00\\.`),
    );
    expect(screen.getByTestId('scheduled-removed').textContent).toBe('');

    fireEvent.click(screen.getByRole('button', { name: 'Remove this schedule' }));
    await h.advance(10);
    expect(sent(invoke)).toEqual([
      ['submit_input', { text }],
      ['schedule_remove', { id }],
    ]);
    expect(await h.fake.invoke('schedules', {})).toEqual([]);
    expect(screen.getByTestId('scheduled-removed').textContent).toBe('Removed: this schedule will not run.');
    expect(screen.queryByRole('button', { name: 'Remove this schedule' })).toBeNull();
    // What was kept stays on screen until the next input.
    expect(screen.getByTestId('scheduled-message').textContent).toContain('summarize ~/Downloads');
    fireEvent.click(screen.getByText('New task'));
    await h.advance(10);
    expect(screen.queryByTestId('scheduled-card')).toBeNull();
    expect(screen.getByText('Ask for anything on this Mac')).toBeTruthy();
  });

  it('shows a task sent after a schedule was kept in place of the schedule', async () => {
    await submit('every weekday at 9, summarize ~/Downloads');
    expect(screen.getByTestId('scheduled-card')).toBeTruthy();
    await submit(TASK);
    expect(screen.queryByTestId('scheduled-card')).toBeNull();
    expect(screen.getByTestId('task-input').textContent).toBe(TASK);
    expect(h.session.pipeline.running.value).toBe(true);
  });

  it('says why a schedule could not be removed, and keeps offering nothing it did not do', async () => {
    await submit('every weekday at 9, summarize ~/Downloads');
    const [kept] = await h.fake.invoke('schedules', {});
    // Removed elsewhere first (in the Tasks panel, say).
    await h.fake.invoke('schedule_remove', { id: kept?.schedule.id ?? '' });
    fireEvent.click(screen.getByRole('button', { name: 'Remove this schedule' }));
    await h.advance(10);
    expect(screen.getByRole('alert').textContent).toBe(`no schedule ${kept?.schedule.id ?? ''}`);
    expect(screen.getByTestId('scheduled-removed').textContent).toBe('');
  });

  it('reports a refused submission with the backend message', async () => {
    await submit(TASK);
    await h.fake.invoke('cancel_task', { task_id: h.session.pipeline.current.value?.taskId ?? '' });
    await h.advance(10);
    vi.spyOn(h.fake, 'invoke').mockRejectedValueOnce({ code: 'busy', message: 'a task is already running' });
    fireEvent.click(screen.getByText('New task'));
    await h.advance(10);
    await submit('another task');
    expect(screen.getByRole('alert').textContent).toBe('a task is already running');
  });
});

describe('the idle popup', () => {
  it('lists the latest runs with their outcome and opens one in Tasks', async () => {
    const h = harness();
    const openPanel = vi.fn();
    const runs = await h.fake.invoke('task_runs', {});
    const s = h.session;
    render(<Popup pipeline={s.pipeline} recent={runs} approvals={s.approvals} now={s.now} skipped={s.skipped} openPanel={openPanel} hide={() => undefined} />);
    const items = screen.getByTestId('recent').querySelectorAll('li');
    expect(items).toHaveLength(3);
    expect(items[1]?.textContent).toContain('read the report in my drafts folder');
    expect(items[1]?.textContent).toContain('abandoned');
    fireEvent.click(items[1]?.querySelector('button') as HTMLElement);
    expect(openPanel).toHaveBeenCalledWith('tasks', { kind: 'task', task_id: runs[1]?.task_id });
    h.dispose();
  });
});

describe('the popup without a sandbox', () => {
  it('says that the sandbox is off and why, so the user knows unproven commands will ask', async () => {
    const h = harness({ sandbox: false });
    const s = h.session;
    await s.settings.load();
    render(
      <Popup
        pipeline={s.pipeline}
        approvals={s.approvals}
        now={s.now}
        skipped={s.skipped}
        openPanel={vi.fn()}
        hide={vi.fn()}
        sandbox={s.settings.view.value.value?.sandbox ?? null}
      />,
    );
    const notice = screen.getByTestId('sandbox-off');
    expect(notice.textContent).toContain('Law 1: the sandbox is off: bubblewrap (bwrap) is not installed');
    expect(notice.textContent).toContain('asks first');
    h.dispose();
  });
});

describe('how tasks like the one typed went', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.dispose());

  const show = (tasksLike: TasksLikeLookup) => {
    const s = h.session;
    render(<Popup pipeline={s.pipeline} approvals={s.approvals} now={s.now} skipped={s.skipped} openPanel={vi.fn()} hide={vi.fn()} tasksLike={tasksLike} />);
  };
  const input = () => screen.getByRole('textbox', { name: 'What should I do?' }) as HTMLTextAreaElement;
  const type = (text: string) => fireEvent.input(input(), { target: { value: text } });
  const line = () => screen.getByTestId('tasks-like');

  /** Runs `text` in the fake to its end. */
  async function run(text: string): Promise<void> {
    const taskId = await h.fake.invoke('submit_task', { text });
    await h.until(() => h.fake.transcript().some((e) => e.task_id === taskId && e.message.type === 'TaskClosed'));
    await h.advance(100);
  }

  it("says how this machine's tasks of the kind went once the typing pauses, and nothing for a slash command, no text or a task sent", async () => {
    // The seeded week holds one run of this kind; two more make the three the core needs.
    await run('what files are in my workspace?');
    await run('what files are in my workspace?');
    h.session.pipeline.dismiss();
    show(h.session.tasks.like);
    expect(line().getAttribute('aria-live')).toBe('polite');
    type('What files are in my workspace');
    await h.advance(300);
    expect(line().textContent).toBe('');
    await h.advance(200);
    expect(line().textContent).toMatch(/^Tasks like this here: 3 of 3 delivered an answer, usually in about \d+ s and 5 model calls$/);
    // A slash command is no task, whatever its words.
    type('/what files are in my workspace');
    await h.advance(500);
    expect(line().textContent).toBe('');
    type('what files are in my workspace?');
    await h.advance(500);
    expect(line().textContent).not.toBe('');
    type('');
    await h.advance(10);
    expect(line().textContent).toBe('');
    type('what files are in my workspace?');
    await h.advance(500);
    expect(line().textContent).not.toBe('');
    fireEvent.keyDown(input(), { key: 'Enter' });
    await h.advance(10);
    expect(h.session.pipeline.running.value).toBe(true);
    expect(line().textContent).toBe('');
  }, 60_000);

  it('says nothing when the core has fewer than three runs of the kind', async () => {
    const asked = vi.fn(h.session.tasks.like);
    show(asked);
    type('read the report in my drafts folder');
    await h.advance(500);
    expect(asked).toHaveBeenCalledWith('read the report in my drafts folder');
    expect(await asked.mock.results[0]?.value).toBeNull();
    expect(line().textContent).toBe('');
  });

  it('asks once the typing pauses, and clears the line when the question fails', async () => {
    const found: TasksLike = {
      line: 'Tasks like this here: 2 of 3 delivered an answer, usually in about 40 s and 6 model calls',
      history: { kind: 'count-pdfs', example: 'count pdfs', runs: 3, delivered: 2, typical_ms: 40_000, typical_model_calls: 6, pass_k: 0, trend: null, last_failure: null, last_run_at: '2026-03-01T09:00:00Z' },
    };
    const asked = vi.fn<TasksLikeLookup>().mockResolvedValueOnce(found).mockRejectedValueOnce({ code: 'forbidden', message: 'not from this window' });
    show(asked);
    for (const text of ['c', 'co', 'count pdfs']) {
      type(text);
      await h.advance(100);
    }
    await h.advance(400);
    expect(asked.mock.calls).toEqual([['count pdfs']]);
    expect(line().textContent).toBe(found.line);
    type('count pdfs again');
    await h.advance(500);
    expect(asked).toHaveBeenCalledTimes(2);
    expect(line().textContent).toBe('');
  });
});
