import { signal } from '@preact/signals';
import { fireEvent, render, screen, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { locale } from '../../i18n';
import { dateTime } from '../../shared/format';
import { palette } from '../../shared/theme';
import { harness, type Harness, TASK } from '../../test-util';
import { type LossPoint, lossChartConfig } from './chart';
import { TasksPanel } from './TasksPanel';

const point = (l: number, d: number, directive: string): LossPoint => ({
  loss: { D: d, P: 1, Omega: 0.2, L: l },
  directive,
});

describe('the loss-trajectory chart', () => {
  it('plots L, D, P and Ω per decision and marks every directive on the L line', () => {
    const rounds = [point(0.6, 0.5, 'break_symmetry'), point(0.93, 1, 'change_approach'), point(0.95, 1, 'abandon')];
    const config = lossChartConfig(rounds, palette(false), { round: 'round', directive: (d) => d.toUpperCase() });
    expect(config.data.labels).toEqual(['1', '2', '3']);
    expect(config.data.datasets.map((d) => d.label)).toEqual(['L', 'D', 'P', 'Ω']);
    expect(config.data.datasets[0]?.data).toEqual([0.6, 0.93, 0.95]);
    expect(config.data.datasets[1]?.data).toEqual([0.5, 1, 1]);
    const annotations = (config.options?.plugins as { annotation: { annotations: Record<string, { content: string; xValue: number; yValue: number; color: string }> } }).annotation.annotations;
    expect(Object.values(annotations).map((a) => [a.content, a.xValue, a.yValue])).toEqual([
      ['BREAK_SYMMETRY', 0, 0.6],
      ['CHANGE_APPROACH', 1, 0.93],
      ['ABANDON', 2, 0.95],
    ]);
    expect(annotations.d2?.color).toBe(palette(false).red);
  });
});

/** The tasks panel on a fresh fake backend, after its first load. */
async function mountedPanel(): Promise<Harness> {
  const h = harness();
  render(<TasksPanel tasks={h.session.tasks} now={signal(Date.now())} focusTask={null} />);
  await h.advance(50);
  return h;
}

describe('the tasks panel', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await mountedPanel();
  });
  afterEach(() => h.dispose());

  it('lists past runs with their outcome and opens the newest for replay at its end', () => {
    const runs = screen.getAllByRole('option');
    expect(runs.map((r) => r.querySelector('.list-title')?.textContent)).toEqual(['hello', 'read the report in my drafts folder', 'what files are in my workspace?']);
    expect(runs[1]?.textContent).toContain('abandoned');
    expect(runs[1]?.textContent).toContain('1 replan');
    expect(screen.getByTestId('step').textContent).toMatch(/^Step (\d+) of \1$/);
  });

  it('replays a run step by step through the pipeline view', async () => {
    fireEvent.click(screen.getAllByRole('option')[1] as HTMLElement);
    await h.advance(50);
    expect(screen.getByTestId('loss-chart')).toBeTruthy();
    expect(screen.getByTestId('result').textContent).toContain('❌');
    fireEvent.click(screen.getByRole('button', { name: 'First step' }));
    await h.advance(10);
    expect(screen.getByTestId('step').textContent).toMatch(/^Step 1 of \d+$/);
    expect(screen.queryByTestId('result')).toBeNull();
    expect(document.querySelector('.role[data-role="R1"]')?.getAttribute('data-activity')).toBe('active');
    for (let i = 0; i < 3; i++) fireEvent.click(screen.getByRole('button', { name: 'Next step' }));
    await h.advance(10);
    expect(screen.getByTestId('step').textContent).toMatch(/^Step 4 of/);
    expect(screen.getByTestId('phase').textContent).toBe('Planning');
    const timeline = document.querySelector('.timeline') as HTMLElement;
    expect(within(timeline).getAllByRole('listitem')[3]?.className).toBe('current');
  });

  it('plays the replay to the end on its own', async () => {
    fireEvent.click(screen.getByRole('button', { name: 'First step' }));
    fireEvent.click(screen.getByRole('button', { name: 'Play' }));
    for (let i = 0; i < 20; i++) await h.advance(400);
    expect(screen.getByTestId('step').textContent).toMatch(/^Step (\d+) of \1$/);
    expect(screen.getByRole('button', { name: 'Play' })).toBeTruthy();
  });

  it('shows a run that just finished without reloading by hand', async () => {
    await h.fake.invoke('submit_task', { text: 'hello' });
    await h.until(() => screen.getAllByRole('option').length === 4);
    expect(screen.getAllByRole('option')[0]?.textContent).toContain('running');
    await h.until(() => screen.getAllByRole('option')[0]?.textContent?.includes('answered'));
  });
});

describe('the task kinds', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await mountedPanel();
  });
  afterEach(() => h.dispose());

  const cells = () => [...screen.getByTestId('task-kinds').querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));

  /** Asks the fake to delete the draft and answers its Law 1 request with `decision`. */
  async function deleteDraft(decision: 'approve' | 'deny' | 'trash'): Promise<void> {
    const taskId = await h.fake.invoke('submit_task', { text: TASK });
    const request = await h.until(() => h.session.approvals.first.value);
    const answered = h.fake.invoke('answer_confirmation', { request_id: request.request_id, decision, scope: null });
    await h.advance(500);
    await answered;
    await h.until(() => h.fake.transcript().some((e) => e.task_id === taskId && e.message.type === 'TaskClosed'));
    await h.advance(100);
  }

  it('explains that a kind is shown once it has run three times', () => {
    expect(screen.queryByTestId('task-kinds')).toBeNull();
    expect(screen.getByTestId('task-kinds-empty').textContent).toBe('Shown once a kind of task has run 3 times.');
  });

  it('tabulates a kind from its third run on, with the figures of its runs, again after each run', async () => {
    await deleteDraft('approve');
    await deleteDraft('approve');
    expect(screen.queryByTestId('task-kinds')).toBeNull();
    await deleteDraft('deny');
    await h.until(() => screen.queryByTestId('task-kinds'));
    // Two of three delivered: three in a row never all did.
    expect(cells()).toHaveLength(1);
    expect(cells()[0]?.slice(1, 4)).toEqual(['3', '2', '0%']);
    await deleteDraft('trash');
    await h.until(() => cells()[0]?.[1] === '4');
    const [kind, runs, delivered, passK, typical, calls, trend, failure] = cells()[0] ?? [];
    expect(kind).toBe(`delete-the-old-draft-in-my-workspace${TASK}`);
    // C(3,3) / C(4,3): a chance in four that three runs in a row all deliver.
    expect([runs, delivered, passK]).toEqual(['4', '3', '25%']);
    expect(typical).toMatch(/^\d+(\.\d)? s$/);
    expect(calls).toBe('8');
    expect(trend).toBe('—');
    // The denied run's own words, without the Law 1 marker (its tally is data, not words).
    expect(failure).toMatch(/^Abandoned after 1 replan\(s\): /);
    expect(failure).not.toContain('[LAW1]');
    expect(screen.queryByTestId('task-kinds-empty')).toBeNull();
  }, 120_000);
});

describe('the schedules', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => {
    locale.value = 'en';
    h.dispose();
  });

  const mount = async () => {
    const shown = render(<TasksPanel tasks={h.session.tasks} now={signal(Date.now())} focusTask={null} />);
    await h.advance(50);
    return shown;
  };
  const section = () => screen.getByTestId('schedules');
  const rows = () => within(section()).queryAllByTestId('schedule');
  const tasks = () => rows().map((r) => within(r).getByTestId('schedule-task').textContent);

  it('says how to make one, and that schedules run with the app and still ask, while there is none', async () => {
    await mount();
    expect(rows()).toHaveLength(0);
    expect(screen.getByTestId('schedules-empty').textContent).toBe(
      'None yet: start a task with when it should run, for example “every weekday at 9, summarize ~/Downloads”; schedules run while the app is running, and an action that needs your approval still asks.',
    );
  });

  it('lists each schedule with when it runs, its task, its next run in local time, how often it ran and how long its question waits', async () => {
    h.fake.seedSchedule('summarize ~/Downloads');
    h.fake.seedSchedule('check the inbox', { rule: { kind: 'every', minutes: 60 }, when: 'every hour', created_at: '2026-03-02T06:30:00Z', runs: 2, last_run: '2026-03-02T08:30:00Z' });
    h.fake.seedSchedule('back up ~/notes', { rule: { kind: 'at', days: ['sun'], time: '20:00' }, when: 'every sunday at 20:00', runs: 1, last_run: '2026-03-01T20:00:00Z' });
    await mount();
    const views = await h.fake.invoke('schedules', {});
    // An hourly repeat counts from when it was made: the next one after the last run and now.
    expect(views[1]?.next_run).toBe('2026-03-02T09:30:00.000Z');
    expect(tasks()).toEqual(['summarize ~/Downloads', 'check the inbox', 'back up ~/notes']);
    const next = views.map((v) => dateTime(v.next_run, 'en'));
    expect(rows().map((r) => within(r).getByTestId('schedule-when').textContent)).toEqual([
      `every weekday at 09:00 · next run ${next[0]} · not run yet`,
      `every hour · next run ${next[1]} · ran 2 times`,
      `every sunday at 20:00 · next run ${next[2]} · ran once`,
    ]);
    expect(rows().map((r) => within(r).getByTestId('schedule-window').textContent)).toEqual(views.map((v) => v.window));
    expect(views[0]?.window).toBe('a question waits up to 1 h for your answer');
    expect(screen.queryByTestId('schedules-empty')).toBeNull();
    expect(section().textContent).toContain('Each runs while the app is running; an action that needs your approval still asks.');
  });

  it('removes a schedule at once and shows the remaining ones, then the sentence on how to make one', async () => {
    h.fake.seedSchedule('summarize ~/Downloads');
    h.fake.seedSchedule('check the inbox', { rule: { kind: 'every', minutes: 60 }, when: 'every hour' });
    await mount();
    fireEvent.click(screen.getByRole('button', { name: 'Remove the schedule “check the inbox”' }));
    await h.advance(10);
    expect(tasks()).toEqual(['summarize ~/Downloads']);
    expect((await h.fake.invoke('schedules', {})).map((v) => v.schedule.task)).toEqual(['summarize ~/Downloads']);
    fireEvent.click(screen.getByRole('button', { name: 'Remove the schedule “summarize ~/Downloads”' }));
    await h.advance(10);
    expect(rows()).toHaveLength(0);
    expect(screen.getByTestId('schedules-empty')).toBeTruthy();
    expect(await h.fake.invoke('schedules', {})).toEqual([]);
  });

  it('sets how long a schedule’s question waits, offering the window it has', async () => {
    h.fake.seedSchedule('summarize ~/Downloads');
    const shown = await mount();
    const choice = screen.getByRole('combobox', { name: 'How long a question of “summarize ~/Downloads” waits for your answer' }) as HTMLSelectElement;
    expect(choice.value).toBe('60');
    expect([...choice.options].map((o) => o.textContent)).toEqual(['waits 15 min', 'waits 1 hour', 'waits 4 hours', 'waits 1 day']);
    fireEvent.change(choice, { target: { value: '240' } });
    await h.advance(10);
    const [kept] = await h.fake.invoke('schedules', {});
    expect(kept?.schedule.answer_window_secs).toBe(4 * 3600);
    expect(screen.getByTestId('schedule-window').textContent).toBe(kept?.window);
    // A window set elsewhere (the command line) is offered as it is.
    await h.fake.invoke('schedule_window', { id: kept?.schedule.id ?? '', minutes: 90 });
    shown.unmount();
    await mount();
    const again = screen.getByTestId('schedule-window-choice') as HTMLSelectElement;
    expect(again.value).toBe('90');
    expect([...again.options].map((o) => o.value)).toEqual(['15', '60', '90', '240', '1440']);
  });

  it('says why a removal failed and shows the list as it is', async () => {
    const gone = h.fake.seedSchedule('summarize ~/Downloads');
    h.fake.seedSchedule('check the inbox');
    await mount();
    await h.fake.invoke('schedule_remove', { id: gone.schedule.id });
    fireEvent.click(screen.getByRole('button', { name: 'Remove the schedule “summarize ~/Downloads”' }));
    await h.advance(10);
    expect(within(section()).getByRole('alert').textContent).toBe(`no schedule ${gone.schedule.id}`);
    expect(tasks()).toEqual(['check the inbox']);
  });

  it('shows a schedule made in the popup when the panel opens again', async () => {
    const first = await mount();
    expect(rows()).toHaveLength(0);
    first.unmount();
    const made = await h.fake.invoke('submit_input', { text: 'every weekday at 9, summarize ~/Downloads' });
    expect(made.kind).toBe('scheduled');
    await mount();
    expect(tasks()).toEqual(['summarize ~/Downloads']);
  });

  it('speaks Chinese', async () => {
    locale.value = 'zh-CN';
    await mount();
    expect(screen.getByTestId('schedules-empty').textContent).toBe(
      '还没有：在任务前写上何时运行，例如“每个工作日 9 点，汇总 ~/Downloads”；定时任务在应用运行时执行，需要你批准的操作仍会先询问。',
    );
    h.fake.seedSchedule('check the inbox', { rule: { kind: 'every', minutes: 60 }, when: 'every hour', runs: 2 });
    await h.session.tasks.schedules.load();
    await h.advance(10);
    expect(within(rows()[0] as HTMLElement).getByTestId('schedule-when').textContent).toMatch(/^every hour · 下次运行：.+ · 已运行 2 次$/);
    expect(screen.getByRole('button', { name: '删除定时任务“check the inbox”' })).toBeTruthy();
  });
});
