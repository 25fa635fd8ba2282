import { signal } from '@preact/signals';
import { fireEvent, render, screen, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { palette } from '../../shared/theme';
import { harness, type Harness } from '../../test-util';
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

describe('the tasks panel', () => {
  let h: Harness;
  beforeEach(async () => {
    h = harness();
    render(<TasksPanel tasks={h.session.tasks} now={signal(Date.now())} focusTask={null} />);
    await h.advance(50);
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
