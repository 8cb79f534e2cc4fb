/**
 * The event loop's delay as Node measures it (node:perf_hooks monitorEventLoopDelay: a libuv timer
 * that samples how late the loop runs, into a histogram), behind a small interface so broker code
 * keeps to the Environment's seams and tests can hand in their own numbers.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Event-loop delay since the last reset, in milliseconds. */
export interface EventLoopDelayMonitor {
  /** The largest delay seen, ms (0 before any sample). */
  maxMs(): number;
  /** The delay at `percentile` (0-100), ms. */
  percentileMs(percentile: number): number;
  /** Starts a new measuring period. */
  reset(): void;
  /** Stops measuring (releases the libuv timer). */
  stop(): void;
}

/** The process's event-loop delay, sampled every `resolutionMs` (default 20 ms). */
export function systemEventLoopDelayMonitor(resolutionMs = 20): EventLoopDelayMonitor {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const NS_PER_MS = 1e6;
  return {
    maxMs: () => (histogram.count === 0 ? 0 : histogram.max / NS_PER_MS),
    percentileMs: (percentile) => (histogram.count === 0 ? 0 : histogram.percentile(percentile) / NS_PER_MS),
    reset: () => histogram.reset(),
    stop: () => histogram.disable(),
  };
}
