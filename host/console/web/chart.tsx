/**
 * A live time-series chart: uPlot (a small canvas chart library) inside a Preact component. The
 * chart is made once per mount and fed new data with setData, so a page that polls every second
 * redraws without rebuilding it; it follows its container's width.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series {
  label: string;
  color: string;
  /** Axis value formatter, e.g. bytes. */
  format?: (value: number) => string;
  /** Dash pattern (px), so that a series drawn over another stays visible. */
  dash?: number[];
}

export interface ChartProps {
  title: string;
  /** x: seconds since the epoch; one array per series, null for a gap. */
  data: [number[], ...(number | null)[][]];
  series: Series[];
  height?: number;
  testId?: string;
}

export function Chart({ title, data, series, height = 180, testId }: ChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    const element = container.current!;
    const format = series[0]?.format ?? ((v: number) => String(v));
    const options: uPlot.Options = {
      width: Math.max(200, element.clientWidth),
      height,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true, range: (_u, min, max) => timeRange(min, max) }, y: { range: (_u, min, max) => [0, Math.max(1, max ?? 0, min ?? 0)] } },
      axes: [
        { stroke: '#8b95a7', grid: { stroke: '#2a3140' }, ticks: { stroke: '#2a3140' } },
        { stroke: '#8b95a7', grid: { stroke: '#2a3140' }, ticks: { stroke: '#2a3140' }, size: 70, values: (_u, values) => values.map(format) },
      ],
      series: [
        {},
        ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, ...(s.dash ? { dash: s.dash } : {}), fill: `${s.color}22`, points: { show: false }, value: (_u: uPlot, v: number | null) => (v === null ? '—' : (s.format ?? format)(v)) })),
      ],
    };
    plot.current = new uPlot(options, data as uPlot.AlignedData, element);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(200, element.clientWidth), height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
    // The chart is built once; data arrives through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData);
  }, [data]);
  const points = data[0].length;
  return (
    <div class="chart" data-testid={testId} data-points={points} data-last={lastValues(data)}>
      <div class="chart-title">{title}</div>
      <div ref={container} />
    </div>
  );
}

/** At least the last minute on the time axis (a chart with one point or none has no span of its own). */
function timeRange(min: number | null, max: number | null): [number, number] {
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) {
    const now = Date.now() / 1000;
    return [now - 60, now];
  }
  return max - min < 60 ? [max - 60, max] : [min, max];
}

/** The last value of every series, comma-separated (tests read it; people read the legend). */
function lastValues(data: ChartProps['data']): string {
  return data.slice(1).map((values) => String(values[values.length - 1] ?? '')).join(',');
}
