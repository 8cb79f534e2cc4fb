/**
 * prom-client metrics whose samples are computed when scraped, straight from the broker's plain
 * counters and state: a Counter or Gauge subclass whose `get()` returns the samples a function
 * builds. prom-client's own collect() + reset() + set(labels) path hashes every label set into
 * its map on each scrape (tens of microseconds per series on a busy machine: 20 ms for the log
 * sizes of 450 partitions); here a series costs one small object, and the registry still does
 * the text format (escaping, HELP/TYPE lines).
 *
 * {@link renderChunks} writes the same text as the registry's `metrics()`, but formats these
 * families itself, a bounded number of series per event-loop turn, and hands the text out one
 * chunk per turn (issue 15: at 50,000 partitions `kafka_log_log_size` alone is 50,000 series,
 * and prom-client formats every family of a scrape in one turn: the loop stalled for 0.4 to 1.9 s
 * per scrape). A family that reads many items to yield few series (a partition count: 50,000
 * partitions read, one series) yields {@link VISITED} per item, so its reading is sliced too.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** One sample: label values by name (none: the series without labels), and its value. */
export interface LazySample {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

/**
 * Yielded by a family's samples in place of a sample, once per item read that gives no series of
 * its own (a partition counted, or left out for want of a topic label): it counts toward
 * metrics.render.max.series.per.turn as a series does, so a family reading 50,000 partitions is
 * read over several turns even when it yields one series.
 */
export const VISITED: unique symbol = Symbol('metrics.visited');

/** What a family's samples yield: a sample, or {@link VISITED}. */
export type LazyItem = LazySample | typeof VISITED;

interface LazyDefinition {
  readonly name: string;
  readonly help: string;
  /** The label names the samples may carry (for the registry's checks). */
  readonly labelNames?: readonly string[];
  /**
   * The samples, computed on each scrape, with {@link VISITED} between them for items read
   * without a series. Each sample is read before the next is asked for, so a generator may
   * yield one object again and again, changed in between (no allocation per series).
   */
  readonly samples: () => Iterable<LazyItem>;
}

type MetricObject = Awaited<ReturnType<Gauge<string>['get']>>;

/** prom-client's view of a family (its `get()`): the samples copied, {@link VISITED} left out. */
function metricObject(definition: LazyDefinition, type: 'gauge' | 'counter'): MetricObject {
  const values: LazySample[] = [];
  for (const item of definition.samples()) if (item !== VISITED) values.push({ labels: { ...item.labels }, value: item.value });
  return { name: definition.name, help: definition.help, type, values, aggregator: 'sum' } as unknown as MetricObject;
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

/** A string prom-client would change when it escapes a label value. */
const NEEDS_ESCAPE = /[\\\n"]/;

/** prom-client's formatting of a label value (registry.js escapeLabelValue): strings escaped, numbers as they are. */
function formatLabelValue(value: string | number): string | number {
  if (typeof value !== 'string' || !NEEDS_ESCAPE.test(value)) return value;
  return escapeHelp(value).replace(/"/g, '\\"');
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

/** Receives one chunk of the text; false: the reader went away, stop rendering. */
export type ChunkWriter = (chunk: string) => boolean;

/**
 * Writes the Prometheus text (format 0.0.4) of every family of `registry`, as
 * `registry.metrics()` writes it (families in registration order, a blank line between, a newline
 * at the end), to `write` in chunks whose concatenation is that text. The families registered
 * here ({@link registerLazyGauge}, {@link registerLazyCounter}) are read and formatted
 * `maxSeriesPerTurn` series or {@link VISITED} items per event-loop turn
 * (metrics.render.max.series.per.turn); the text formatted in a turn is written as one chunk
 * before the next turn, so neither the formatting, the reading of the broker's state, nor the
 * writing of the text happens all in one turn, and the whole text is never one string. A family's
 * samples are read while it is formatted, so a scrape that spans turns reads each family at a
 * slightly different time, as prom-client's collectors would. Other families (prom-client's
 * defaults, the request-time histogram) are small and formatted by prom-client. `defer` runs a
 * task in a later event-loop turn (the broker's Time.defer, setImmediate); without it the text is
 * formatted at once (still in chunks). Resolves false when `write` asked to stop.
 */
export async function renderChunks(registry: Registry, maxSeriesPerTurn: number, write: ChunkWriter, defer?: (task: () => void) => void): Promise<boolean> {
  let pending = '';
  let first = true;
  let itemsThisTurn = 0;
  for (const metric of registry.getMetricsAsArray()) {
    pending += first ? '' : '\n\n';
    first = false;
    if (!(metric instanceof LazyGauge) && !(metric instanceof LazyCounter)) {
      pending += await registry.getSingleMetricAsString((metric as unknown as { name: string }).name);
      continue;
    }
    const { name, help } = metric.definition;
    pending += `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${metric.lazyType}`;
    for (const item of metric.definition.samples()) {
      if (item !== VISITED) pending += `\n${formatSample(name, item)}`;
      if (++itemsThisTurn >= maxSeriesPerTurn && defer !== undefined) {
        itemsThisTurn = 0;
        if (pending !== '' && !write(pending)) return false;
        pending = '';
        await new Promise<void>((resolve) => defer(resolve));
      }
    }
  }
  return write(`${pending}\n`);
}

/** The whole text of {@link renderChunks} as one string (tests, and callers that want it whole). */
export async function renderInSlices(registry: Registry, maxSeriesPerTurn: number, defer?: (task: () => void) => void): Promise<string> {
  const chunks: string[] = [];
  await renderChunks(registry, maxSeriesPerTurn, (chunk) => chunks.push(chunk) > 0, defer);
  return chunks.join('');
}
