/**
 * prom-client metrics whose samples are computed when scraped, straight from the broker's plain
 * counters and state: a Counter or Gauge subclass whose `get()` returns the samples a function
 * builds. prom-client's own collect() + reset() + set(labels) path hashes every label set into
 * its map on each scrape (tens of microseconds per series on a busy machine: 20 ms for the log
 * sizes of 450 partitions); here a series costs one small object, and the registry still does
 * the text format (escaping, HELP/TYPE lines).
 *
 * {@link renderInSlices} writes the same text as the registry's `metrics()`, but formats these
 * families itself, a bounded number of series per event-loop turn (issue 15: at 50,000
 * partitions `kafka_log_log_size` alone is 50,000 series, and prom-client formats every family of
 * a scrape in one turn: the loop stalled for 0.4 to 1.9 s per scrape).
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** One sample: label values by name (none: the series without labels), and its value. */
export interface LazySample {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

interface LazyDefinition {
  readonly name: string;
  readonly help: string;
  /** The label names the samples may carry (for the registry's checks). */
  readonly labelNames?: readonly string[];
  /** The samples, computed on each scrape. */
  readonly samples: () => Iterable<LazySample>;
}

type MetricObject = Awaited<ReturnType<Gauge<string>['get']>>;

function metricObject(definition: LazyDefinition, type: 'gauge' | 'counter'): MetricObject {
  return { name: definition.name, help: definition.help, type, values: [...definition.samples()], aggregator: 'sum' } as unknown as MetricObject;
}

class LazyGauge extends Gauge<string> {
  readonly lazyType = 'gauge';

  constructor(readonly definition: LazyDefinition) {
    super({ name: definition.name, help: definition.help, labelNames: [...(definition.labelNames ?? [])], registers: [] });
  }

  override async get(): Promise<MetricObject> {
    return metricObject(this.definition, 'gauge');
  }
}

class LazyCounter extends Counter<string> {
  readonly lazyType = 'counter';

  constructor(readonly definition: LazyDefinition) {
    super({ name: definition.name, help: definition.help, labelNames: [...(definition.labelNames ?? [])], registers: [] });
  }

  override async get(): Promise<MetricObject> {
    return metricObject(this.definition, 'counter') as unknown as Awaited<ReturnType<Counter<string>['get']>>;
  }
}

/** Registers a gauge computed on each scrape. */
export function registerLazyGauge(registry: Registry, definition: LazyDefinition): void {
  registry.registerMetric(new LazyGauge(definition));
}

/** Registers a counter (a total since start-up) computed on each scrape; `name` ends in `_total`. */
export function registerLazyCounter(registry: Registry, definition: LazyDefinition): void {
  registry.registerMetric(new LazyCounter(definition));
}

/** prom-client's escaping of HELP text (registry.js escapeString): backslash and newline. */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** prom-client's formatting of a label value (registry.js escapeLabelValue): strings escaped, numbers as they are. */
function formatLabelValue(value: string | number): string | number {
  return typeof value === 'string' ? escapeHelp(value).replace(/"/g, '\\"') : value;
}

/** prom-client's formatting of a sample value (util.js getValueAsString), its spelling of NaN included. */
function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return `${value}`;
}

/** `name{label="value",...} value`, as prom-client writes a series (no default labels are used). */
function formatSample(name: string, sample: LazySample): string {
  let labels = '';
  for (const label in sample.labels) labels += `${labels === '' ? '' : ','}${label}="${formatLabelValue(sample.labels[label]!)}"`;
  return `${name}${labels === '' ? '' : `{${labels}}`} ${formatValue(sample.value)}`;
}

/**
 * The Prometheus text (format 0.0.4) of every family of `registry`, as `registry.metrics()`
 * writes it (families in registration order, a blank line between, a newline at the end), the
 * families registered here ({@link registerLazyGauge}, {@link registerLazyCounter}) formatted
 * `maxSeriesPerTurn` series per event-loop turn (metrics.render.max.series.per.turn): between
 * slices the broker serves its clients. A family's samples are read while it is formatted, so
 * a scrape that spans turns reads each family at a slightly different time, as prom-client's
 * collectors would. Other families (prom-client's defaults, the request-time histogram) are
 * small and formatted by prom-client. `defer` runs a task in a later event-loop turn (the
 * broker's Time.defer, setImmediate); without it the text is formatted at once.
 */
export async function renderInSlices(registry: Registry, maxSeriesPerTurn: number, defer?: (task: () => void) => void): Promise<string> {
  const families: string[] = [];
  let seriesThisTurn = 0;
  for (const metric of registry.getMetricsAsArray()) {
    if (!(metric instanceof LazyGauge) && !(metric instanceof LazyCounter)) {
      families.push(await registry.getSingleMetricAsString((metric as unknown as { name: string }).name));
      continue;
    }
    const { name, help } = metric.definition;
    const lines = [`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${metric.lazyType}`];
    for (const sample of metric.definition.samples()) {
      lines.push(formatSample(name, sample));
      if (++seriesThisTurn >= maxSeriesPerTurn && defer !== undefined) {
        seriesThisTurn = 0;
        await new Promise<void>((resolve) => defer(resolve));
      }
    }
    families.push(lines.join('\n'));
  }
  return `${families.join('\n\n')}\n`;
}
