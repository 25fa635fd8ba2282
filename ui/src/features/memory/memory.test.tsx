import { fireEvent, render, screen, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { MemoryGroup, MemoryThresholds } from '../../ipc/commands';
import { palette } from '../../shared/theme';
import { harness, type Harness } from '../../test-util';
import { bounds, potentialsChartConfig, regions } from './chart';
import { MemoryPanel } from './MemoryPanel';

const T: MemoryThresholds = { attention_floor: 0.5, exploit_above: 0.2, avoid_below: -0.2 };
const NAMES = { Ignore: 'Ignore', Exploit: 'Exploit', Avoid: 'Avoid', Caution: 'Caution' } as const;

function group(space: string, attention: number, decision: number, action: MemoryGroup['potentials']['action']): MemoryGroup {
  return { space, entity: 'env:local', potentials: { attention, decision, action }, counts: { M: 1, K: 0, C: 0, T: 0 }, last_activity: null };
}

describe('the potentials map', () => {
  it('draws the four regions from the thresholds alone', () => {
    const b = { xMax: 4, yMax: 3 };
    const r = regions(T, b, palette(false), NAMES);
    expect(r.ignore).toMatchObject({ xMin: 0, xMax: 0.5, yMin: -3, yMax: 3 });
    expect(r.exploit).toMatchObject({ xMin: 0.5, xMax: 4, yMin: 0.2, yMax: 3 });
    expect(r.caution).toMatchObject({ xMin: 0.5, xMax: 4, yMin: -0.2, yMax: 0.2 });
    expect(r.avoid).toMatchObject({ xMin: 0.5, xMax: 4, yMin: -3, yMax: -0.2 });
    const moved = regions({ attention_floor: 1, exploit_above: 0.5, avoid_below: -0.4 }, b, palette(false), NAMES);
    expect(moved.caution).toMatchObject({ xMin: 1, yMin: -0.4, yMax: 0.5 });
  });

  it('keeps every group on the chart and plots it at (M_att, M_dec), coloured by action', () => {
    const groups = [group('a', 3.2, 2.9, 'Exploit'), group('b', 0.9, -1.6, 'Avoid'), group('c', 0.1, 0, 'Ignore')];
    const b = bounds(groups, T);
    expect(b.xMax).toBeGreaterThan(3.2);
    expect(b.yMax).toBeGreaterThan(2.9);
    const config = potentialsChartConfig(groups, T, 1, palette(false), NAMES, () => undefined);
    const dataset = config.data.datasets[0] as unknown as { data: { x: number; y: number }[]; pointBackgroundColor: string[]; pointRadius: number[] };
    expect(dataset.data).toEqual([{ x: 3.2, y: 2.9 }, { x: 0.9, y: -1.6 }, { x: 0.1, y: 0 }]);
    const c = palette(false);
    expect(dataset.pointBackgroundColor).toEqual([c.green, c.red, c.gray]);
    expect(dataset.pointRadius[1]).toBeGreaterThan(dataset.pointRadius[0] ?? 0);
  });
});

describe('the memory panel', () => {
  let h: Harness;
  beforeEach(async () => {
    h = harness();
    render(<MemoryPanel memory={h.session.memory} now={Date.now()} focus={null} />);
    await h.advance(50);
  });
  afterEach(() => h.dispose());

  const table = () => screen.getByTestId('memory-groups');
  const rowOf = (text: string) => within(table()).getByText(text).closest('tr') as HTMLElement;

  it('lists every group the recorded runs left, with the store\'s M_att, M_dec and action', () => {
    const law = rowOf('law:0');
    expect(law.textContent).toContain('laws');
    expect(law.textContent).toContain('1.00');
    expect(law.textContent).toContain('Exploit');
    expect(rowOf('intent:read').textContent).toContain('Avoid');
    expect(rowOf('intent:find').textContent).toContain('Exploit');
    expect(screen.getByTestId('potentials-map')).toBeTruthy();
  });

  it("shows a group's Megrams with level, state, f, σ, k and the store's live contributions", async () => {
    fireEvent.click(rowOf('intent:read'));
    await h.advance(50);
    const detail = screen.getByTestId('group-detail');
    expect(detail.textContent).toContain('Failed (abandon) on "read the report in my drafts folder"');
    const megram = detail.querySelector('.megram') as HTMLElement;
    expect(megram.querySelector('.level')?.textContent).toBe('M');
    expect(megram.textContent).toContain('abandon');
    expect(megram.textContent).toContain('f 0.95');
    expect(megram.textContent).toContain('k 0.05');
    expect(megram.textContent).toContain('att 0.950');
  });

  it('pins a Megram (timeless) and forgets it only after the inline confirmation', async () => {
    fireEvent.click(rowOf('intent:find'));
    await h.advance(50);
    fireEvent.click(screen.getAllByRole('button', { name: 'Pin' })[0] as HTMLElement);
    await h.advance(50);
    expect(screen.getByTestId('group-detail').textContent).toContain('Timeless');
    expect(h.fake.transcript().at(-1)?.message.type).toBe('MemoryOperatorChange');

    fireEvent.click(screen.getAllByRole('button', { name: 'Forget' })[0] as HTMLElement);
    await h.advance(50);
    expect(screen.getByTestId('group-detail').querySelectorAll('.megram').length).toBe(1);
    fireEvent.click(screen.getByRole('button', { name: 'Forget for good?' }));
    await h.advance(50);
    // It was the group's only entry: the group is gone.
    expect(within(table()).queryByText('intent:find')).toBeNull();
  });

  it('never offers to forget or pin the Four Laws', async () => {
    fireEvent.click(rowOf('law:0'));
    await h.advance(50);
    const detail = screen.getByTestId('group-detail');
    expect(within(detail).queryByRole('button', { name: 'Forget' })).toBeNull();
    expect(within(detail).queryByRole('button', { name: 'Pin' })).toBeNull();
    expect((within(detail).getByRole('button', { name: 'Forget group' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('remembers a user-injected entry at the chosen level', async () => {
    fireEvent.click(screen.getByText('Remember…'));
    await h.advance(10);
    const form = screen.getByTestId('remember-form');
    fireEvent.input(within(form).getByRole('textbox', { name: 'What should artoo remember?' }), { target: { value: 'Keep installers for a week.' } });
    fireEvent.submit(form);
    await h.advance(50);
    fireEvent.click(rowOf('global:user'));
    await h.advance(50);
    expect(screen.getByTestId('group-detail').textContent).toContain('Keep installers for a week.');
  });

  it('says why a group was recalled, from the planning rounds that used it', async () => {
    // The seeded list_workspace run recalled its kind's group with the Four Laws as
    // constraints, and its accepted result wrote a Megram there.
    fireEvent.click(rowOf('intent:find'));
    await h.advance(50);
    const why = screen.getByTestId('why-recalled');
    expect(why.textContent).toContain('what files are in my workspace?');
    expect(why.textContent).toContain('MUST NOT');
  });
});
