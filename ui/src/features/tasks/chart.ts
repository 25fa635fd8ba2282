// The loss-trajectory chart of a run: L, D, P and Ω per GGS decision, each decision's
// directive marked on the L line (Chart.js line chart + annotation labels).

import type { AnnotationOptions } from 'chartjs-plugin-annotation';

import type { AnyChartConfig } from '../../shared/chart';
import { type Palette, withAlpha } from '../../shared/theme';
import type { Loss } from '../../ipc/contracts';

/** One GGS decision as the chart draws it. */
export interface LossPoint {
  loss: Loss;
  directive: string;
}

export interface LossChartLabels {
  /** Axis title under the decision numbers. */
  round: string;
  directive: (d: string) => string;
}

export function lossChartConfig(rounds: readonly LossPoint[], colors: Palette, labels: LossChartLabels): AnyChartConfig {
  const series = (pick: (r: LossPoint) => number | null) => rounds.map((r) => pick(r));
  const line = (label: string, color: string, data: (number | null)[], width: number, dash?: number[]) => ({
    label,
    data,
    borderColor: color,
    backgroundColor: withAlpha(color, 0.15),
    borderWidth: width,
    borderDash: dash ?? [],
    pointRadius: width > 2 ? 4 : 2.5,
    pointHoverRadius: 5,
    tension: 0.25,
    spanGaps: true,
  });
  const annotations: Record<string, AnnotationOptions> = {};
  rounds.forEach((r, i) => {
    const bad = r.directive === 'abandon';
    const good = r.directive === 'accept' || r.directive === 'success';
    annotations[`d${i}`] = {
      type: 'label',
      xValue: i,
      yValue: r.loss.L ?? 0,
      yAdjust: -18,
      content: labels.directive(r.directive),
      color: bad ? colors.red : good ? colors.green : colors.label,
      backgroundColor: 'rgba(0,0,0,0)',
      font: { size: 11, weight: 600 },
    };
  });
  return {
    type: 'line',
    data: {
      // One point per GGS decision, numbered by the round it judged.
      labels: rounds.map((_, i) => String(i + 1)),
      datasets: [
        line('L', colors.accent, series((r) => r.loss.L), 2.5),
        line('D', colors.purple, series((r) => r.loss.D), 1.5),
        line('P', colors.orange, series((r) => r.loss.P), 1.5, [4, 3]),
        line('Ω', colors.gray, series((r) => r.loss.Omega), 1.5, [2, 3]),
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      layout: { padding: { top: 18, left: 4, right: 4 } },
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { offset: true, title: { display: true, text: labels.round, color: colors.label2 }, grid: { color: colors.separator }, ticks: { color: colors.label2 } },
        y: { min: 0, suggestedMax: 1, grid: { color: colors.separator }, ticks: { color: colors.label2, stepSize: 0.25 } },
      },
      plugins: {
        legend: { position: 'bottom', labels: { color: colors.label, boxWidth: 14, boxHeight: 2, font: { size: 11 } } },
        annotation: { annotations },
      },
    },
  };
}
