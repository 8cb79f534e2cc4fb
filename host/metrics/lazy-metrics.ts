/**
 * prom-client metrics whose samples are computed when scraped, straight from the broker's plain
 * counters and state: a Counter or Gauge subclass whose `get()` returns the samples a function
 * builds. prom-client's own collect() + reset() + set(labels) path hashes every label set into
 * its map on each scrape (tens of microseconds per series on a busy machine: 20 ms for the log
 * sizes of 450 partitions); here a series costs one small object, and the registry still does
 * the text format (escaping, HELP/TYPE lines).
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
  constructor(private readonly definition: LazyDefinition) {
    super({ name: definition.name, help: definition.help, labelNames: [...(definition.labelNames ?? [])], registers: [] });
  }

  override async get(): Promise<MetricObject> {
    return metricObject(this.definition, 'gauge');
  }
}

class LazyCounter extends Counter<string> {
  constructor(private readonly definition: LazyDefinition) {
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
