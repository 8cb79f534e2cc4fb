/**
 * The event loop's delay as Node measures it (node:perf_hooks monitorEventLoopDelay: a libuv timer
 * that samples how late the loop runs, into a histogram), behind a small interface so broker code
 * keeps to the Environment's seams and tests can hand in their own numbers.
 *
 * One monitor per broker serves both the event-loop watchdog (observability/event-loop-watchdog.ts)
 * and `/metrics`' `nodejs_eventloop_lag_*` families (metrics/event-loop-lag-metrics.ts), which
 * read and reset it once per scrape ({@link EventLoopDelayMonitor.takePeriod}).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * One measuring period's delays, ms. Node records each sample as the whole interval between two
 * timer callbacks (the resolution plus how late the callback ran); these figures are on
 * prom-client's 10 ms scale (see {@link systemEventLoopDelayMonitor}). All 0 when the period has
 * no sample.
 */
export interface EventLoopDelayPeriod {
  readonly samples: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly meanMs: number;
  readonly stddevMs: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
}

/** Event-loop delay, in milliseconds. */
export interface EventLoopDelayMonitor {
  /** The largest delay seen since start, ms (0 before any sample). */
  maxMs(): number;
  /** The delay at `percentile` (0-100) in the current period (since the last {@link takePeriod} or start), ms. */
  percentileMs(percentile: number): number;
  /** The current period's figures; a new period begins (what one `/metrics` scrape reads). */
  takePeriod(): EventLoopDelayPeriod;
  /**
   * How late the last check scheduled by the previous call ran, ms (0 on the first call); schedules
   * the next check for the next turn (a setImmediate: prom-client's `nodejs_eventloop_lag_seconds`).
   */
  immediateLagMs(): number;
  /** Stops measuring (releases the libuv timer). */
  stop(): void;
}

/** The interval prom-client's default collector sampled at, ms: the scale {@link EventLoopDelayPeriod} reports on. */
export const PROM_CLIENT_RESOLUTION_MS = 10;

/**
 * The process's event-loop delay, sampled every `resolutionMs` (default 20 ms). Period figures
 * (not `stddevMs`) are the recorded intervals minus (`resolutionMs` - 10 ms), so an idle loop reads
 * about 10 ms as it did with prom-client's own 10 ms sampler; {@link EventLoopDelayMonitor.maxMs}
 * and {@link EventLoopDelayMonitor.percentileMs} are the raw intervals (what the watchdog reported).
 */
export function systemEventLoopDelayMonitor(resolutionMs = 20): EventLoopDelayMonitor {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const NS_PER_MS = 1e6;
  const shiftMs = Math.max(0, resolutionMs - PROM_CLIENT_RESOLUTION_MS);
  let earlierMaxNs = 0;
  let lagMs = 0;
  const scale = (ns: number): number => Math.max(0, ns / NS_PER_MS - shiftMs);
  return {
    maxMs: () => Math.max(earlierMaxNs, histogram.count === 0 ? 0 : histogram.max) / NS_PER_MS,
    percentileMs: (percentile) => (histogram.count === 0 ? 0 : histogram.percentile(percentile) / NS_PER_MS),
    takePeriod: () => {
      const samples = histogram.count;
      if (samples === 0) return { samples, minMs: 0, maxMs: 0, meanMs: 0, stddevMs: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0 };
      const period = {
        samples,
        minMs: scale(histogram.min),
        maxMs: scale(histogram.max),
        meanMs: scale(histogram.mean),
        stddevMs: histogram.stddev / NS_PER_MS,
        p50Ms: scale(histogram.percentile(50)),
        p90Ms: scale(histogram.percentile(90)),
        p99Ms: scale(histogram.percentile(99)),
      };
      earlierMaxNs = Math.max(earlierMaxNs, histogram.max);
      histogram.reset();
      return period;
    },
    immediateLagMs: () => {
      const last = lagMs;
      const start = process.hrtime.bigint();
      setImmediate(() => { lagMs = Number(process.hrtime.bigint() - start) / NS_PER_MS; });
      return last;
    },
    stop: () => histogram.disable(),
  };
}
