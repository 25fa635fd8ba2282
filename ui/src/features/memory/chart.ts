// The potentials map: every (space, entity) group at (M_att, M_dec), over the four
// regions the thresholds draw — Ignore left of the attention floor; Exploit, Caution and
// Avoid right of it, split by the decision thresholds (Chart.js scatter + box annotations).

import type { AnnotationOptions } from 'chartjs-plugin-annotation';

import type { MemoryAction } from '../../ipc/contracts';
import type { MemoryGroup, MemoryThresholds } from '../../ipc/commands';
import type { AnyChartConfig } from '../../shared/chart';
import { type Palette, withAlpha } from '../../shared/theme';

export interface Bounds {
  xMax: number;
  yMax: number;
}

/** Axis ranges that show every group and every region with some room. */
export function bounds(groups: readonly MemoryGroup[], t: MemoryThresholds): Bounds {
  const att = Math.max(0, ...groups.map((g) => g.potentials.attention ?? 0));
  const dec = Math.max(0, ...groups.map((g) => Math.abs(g.potentials.decision ?? 0)));
  const xMax = Math.max(att * 1.15, t.attention_floor * 3, 1);
  const yMax = Math.max(dec * 1.2, Math.abs(t.exploit_above) * 3, Math.abs(t.avoid_below) * 3, 1);
  return { xMax: Number(xMax.toFixed(2)), yMax: Number(yMax.toFixed(2)) };
}

export function actionColor(action: MemoryAction, c: Palette): string {
  return action === 'Exploit' ? c.green : action === 'Avoid' ? c.red : action === 'Caution' ? c.orange : c.gray;
}

/** The four regions as box annotations, from the thresholds alone. */
export function regions(t: MemoryThresholds, b: Bounds, c: Palette, names: Record<MemoryAction, string>): Record<string, AnnotationOptions> {
  const box = (action: MemoryAction, xMin: number, xMax: number, yMin: number, yMax: number): AnnotationOptions => ({
    type: 'box',
    xMin,
    xMax,
    yMin,
    yMax,
    backgroundColor: withAlpha(actionColor(action, c), action === 'Ignore' ? 0.06 : action === 'Caution' ? 0.28 : 0.1),
    borderWidth: 0,
    label: {
      display: true,
      content: names[action],
      position: { x: 'end', y: action === 'Avoid' ? 'end' : 'start' },
      color: withAlpha(actionColor(action, c), 0.95),
      font: { size: 11, weight: 600 },
      padding: 4,
    },
  });
  const threshold = (axis: 'x' | 'y', value: number): AnnotationOptions => ({
    type: 'line',
    ...(axis === 'x' ? { xMin: value, xMax: value } : { yMin: value, yMax: value, xMin: t.attention_floor }),
    borderColor: withAlpha(c.gray, 0.7),
    borderWidth: 1,
    borderDash: [4, 3],
  });
  return {
    ignore: box('Ignore', 0, t.attention_floor, -b.yMax, b.yMax),
    floor: threshold('x', t.attention_floor),
    exploitLine: threshold('y', t.exploit_above),
    avoidLine: threshold('y', t.avoid_below),
    exploit: box('Exploit', t.attention_floor, b.xMax, t.exploit_above, b.yMax),
    caution: box('Caution', t.attention_floor, b.xMax, t.avoid_below, t.exploit_above),
    avoid: box('Avoid', t.attention_floor, b.xMax, -b.yMax, t.avoid_below),
  };
}

export function potentialsChartConfig(
  groups: readonly MemoryGroup[],
  t: MemoryThresholds,
  selected: number,
  c: Palette,
  names: Record<MemoryAction, string>,
  onSelect: (index: number) => void,
): AnyChartConfig {
  const b = bounds(groups, t);
  return {
    type: 'scatter',
    data: {
      datasets: [
        {
          label: 'groups',
          data: groups.map((g) => ({ x: g.potentials.attention ?? 0, y: g.potentials.decision ?? 0 })),
          pointBackgroundColor: groups.map((g) => actionColor(g.potentials.action, c)),
          pointBorderColor: groups.map((_, i) => (i === selected ? c.label : 'rgba(255,255,255,0.9)')),
          pointBorderWidth: groups.map((_, i) => (i === selected ? 2.5 : 1)),
          pointRadius: groups.map((_, i) => (i === selected ? 8 : 6)),
          pointHoverRadius: 8,
        },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      onClick: (_event, elements) => {
        const hit = elements[0];
        if (hit) onSelect(hit.index);
      },
      scales: {
        x: { type: 'linear', min: 0, max: b.xMax, title: { display: true, text: 'M_att', color: c.label2 }, grid: { color: c.separator }, ticks: { color: c.label2 } },
        y: { type: 'linear', min: -b.yMax, max: b.yMax, title: { display: true, text: 'M_dec', color: c.label2 }, grid: { color: c.separator }, ticks: { color: c.label2 } },
      },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            label: (item) => {
              const g = groups[item.dataIndex];
              return g ? `${g.space} / ${g.entity}: ${names[g.potentials.action]} (${(g.potentials.attention ?? 0).toFixed(2)}, ${(g.potentials.decision ?? 0).toFixed(2)})` : '';
            },
          },
        },
        annotation: { annotations: regions(t, b, c, names) },
      },
    },
  };
}
