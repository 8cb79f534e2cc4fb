/**
 * The process's recent garbage-collection pauses (node:perf_hooks PerformanceObserver `gc`
 * entries), so the event-loop watchdog can say when a stall was the collector's and not a
 * request's (issue 15: stalls on a broker with a large heap were "unattributed" and only guessed
 * to be GC).
 *
 * Entries are on the `performance.now()` clock, SystemTime's monotonic clock. Node delivers them
 * after the turn in which the collection ran (the observer callback runs later in the loop), so a
 * reader asks for a window that ended at least one timer turn ago.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { SystemTime } from './time.js';

/** Garbage-collection pause time, ms. */
export interface GcPauses {
  /** Milliseconds of GC pauses within [fromMs, toMs] (monotonic ms), as far as delivered. */
  pausedMsBetween(fromMs: number, toMs: number): number;
  /** Stops observing. */
  stop(): void;
}

/** How many pauses are kept (the newest; a stall window spans a few seconds at most). */
const KEPT_PAUSES = 512;

/** This process's GC pauses, observed from now on (see the file header). */
export function systemGcPauses(): GcPauses {
  const starts = new Float64Array(KEPT_PAUSES);
  const durations = new Float64Array(KEPT_PAUSES);
  let next = 0;
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      starts[next] = entry.startTime;
      durations[next] = entry.duration;
      next = (next + 1) % KEPT_PAUSES;
      count = Math.min(count + 1, KEPT_PAUSES);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    pausedMsBetween(fromMs, toMs) {
      let total = 0;
      for (let i = 0; i < count; i++) {
        const start = starts[i]!;
        const end = start + durations[i]!;
        const overlap = Math.min(end, toMs) - Math.max(start, fromMs);
        if (overlap > 0) total += overlap;
      }
      return total;
    },
    stop() {
      observer.disconnect();
    },
  };
}

/**
 * {@link systemGcPauses} for a broker on the system clock (whose monotonic clock GC entries use)
 * with the watchdog on (`thresholdMs` > 0); undefined otherwise.
 */
export function systemGcPausesFor(time: object, thresholdMs: number): GcPauses | undefined {
  return thresholdMs > 0 && time instanceof SystemTime ? systemGcPauses() : undefined;
}
