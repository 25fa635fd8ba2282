// A Chart.js canvas as a component (Chart.js: maintained, canvas-based, tree-shaken to
// the line and scatter charts used here, with the annotation plugin for regions and
// markers). Callers pass a whole configuration; the chart updates in place.

import {
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  Tooltip,
} from 'chart.js';
import annotationPlugin from 'chartjs-plugin-annotation';
import { useEffect, useRef } from 'preact/hooks';

Chart.register(LineController, ScatterController, LineElement, PointElement, LinearScale, CategoryScale, Tooltip, Legend, annotationPlugin);

export type AnyChartConfig = ChartConfiguration<'line' | 'scatter', unknown[], unknown>;

export interface ChartCanvasProps {
  config: AnyChartConfig;
  /** What the chart shows, for VoiceOver (the canvas itself is opaque to it). */
  label: string;
  height: number;
  testId?: string;
}

export function ChartCanvas({ config, label, height, testId }: ChartCanvasProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart<'line' | 'scatter', unknown[], unknown> | null>(null);

  useEffect(() => {
    const el = canvas.current;
    if (!el || !el.getContext('2d')) return undefined;
    chart.current = new Chart(el, config);
    return () => {
      chart.current?.destroy();
      chart.current = null;
    };
    // The chart is created once; later configurations are applied by the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    c.data = config.data;
    c.options = config.options ?? {};
    c.update('none');
  }, [config]);

  return (
    <div class="chart-box" style={{ height: `${height}px` }} data-testid={testId}>
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}
