/**
 * prom-client's default metrics without its own event-loop sampler: the `nodejs_eventloop_lag_*`
 * families (the names, help texts and empty label sets prom-client 15's eventLoopLag collector
 * gives them) are read from the broker's one event-loop delay monitor (io/event-loop-delay.ts,
 * the watchdog's 20 ms sampler), reset once per scrape as prom-client reset its own. prom-client's
 * collector kept a second monitorEventLoopDelay histogram sampling every 10 ms whether or not
 * anyone scraped (issue 14: ~3.9 ms CPU per second on an idle broker) and read it at ~0.5 ms per
 * scrape.
 *
 * Differences from prom-client's collector: a period with no sample reports 0 for every figure
 * (prom-client gave min 9.2e9 s and NaN); the figures are the 20 ms sampler's intervals shifted to
 * prom-client's 10 ms scale (see systemEventLoopDelayMonitor), so their granularity is 20 ms.
 */
import { createRequire } from 'node:module';
import { collectDefaultMetrics, type Registry } from 'prom-client';
import type { EventLoopDelayMonitor, EventLoopDelayPeriod } from '../io/event-loop-delay.js';
import { registerLazyGauge } from './lazy-metrics.js';

/** prom-client's name of the default collector replaced here (a key of collectDefaultMetrics.metricsList). */
const PROM_CLIENT_EVENT_LOOP_COLLECTOR = 'eventLoopLag';

type DefaultCollector = (registry: Registry, config: { register: Registry }) => void;

const requireFromHere = createRequire(import.meta.url);

/**
 * Registers prom-client's default process and Node.js metrics (collectDefaultMetrics' list, each
 * collector loaded from prom-client/lib/metrics/<name>.js) except its event-loop-lag collector,
 * and the `nodejs_eventloop_lag_*` families read from `monitor()` (null: no monitor yet, every
 * figure 0). Throws when prom-client no longer has a collector file of its list (an upgrade moved
 * them: /metrics answers 500 rather than silently losing families).
 */
export function registerDefaultMetrics(registry: Registry, monitor: () => EventLoopDelayMonitor | null): void {
  for (const name of collectDefaultMetrics.metricsList) {
    if (name === PROM_CLIENT_EVENT_LOOP_COLLECTOR) continue;
    (requireFromHere(`prom-client/lib/metrics/${name}.js`) as DefaultCollector)(registry, { register: registry });
  }
  registerEventLoopLag(registry, monitor);
}

const EMPTY_PERIOD: EventLoopDelayPeriod = { samples: 0, minMs: 0, maxMs: 0, meanMs: 0, stddevMs: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0 };

/** The eight `nodejs_eventloop_lag_*` gauges, in seconds, one unlabelled series each. */
function registerEventLoopLag(registry: Registry, monitor: () => EventLoopDelayMonitor | null): void {
  // The first family read in a scrape takes the period; the others read the same figures.
  let period = EMPTY_PERIOD;
  const seconds = (ms: number) => [{ labels: {}, value: ms / 1000 }];
  registerLazyGauge(registry, {
    name: 'nodejs_eventloop_lag_seconds',
    help: 'Lag of event loop in seconds.',
    samples: () => {
      const current = monitor();
      period = current?.takePeriod() ?? EMPTY_PERIOD;
      return seconds(current?.immediateLagMs() ?? 0);
    },
  });
  const families: [string, string, (p: EventLoopDelayPeriod) => number][] = [
    ['min', 'The minimum recorded event loop delay.', (p) => p.minMs],
    ['max', 'The maximum recorded event loop delay.', (p) => p.maxMs],
    ['mean', 'The mean of the recorded event loop delays.', (p) => p.meanMs],
    ['stddev', 'The standard deviation of the recorded event loop delays.', (p) => p.stddevMs],
    ['p50', 'The 50th percentile of the recorded event loop delays.', (p) => p.p50Ms],
    ['p90', 'The 90th percentile of the recorded event loop delays.', (p) => p.p90Ms],
    ['p99', 'The 99th percentile of the recorded event loop delays.', (p) => p.p99Ms],
  ];
  for (const [name, help, figure] of families) {
    registerLazyGauge(registry, { name: `nodejs_eventloop_lag_${name}_seconds`, help, samples: () => seconds(figure(period)) });
  }
}
