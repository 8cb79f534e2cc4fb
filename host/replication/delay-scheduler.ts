/**
 * Timers for the purgatories (max.wait.ms, produce timeout_ms): the monotonic part of io's
 * {@link Time}, the real clock in the broker and a hand-moved one in tests and the simulator.
 */
import type { Time } from '../io/environment.js';
import { ManualTime } from '../io/time.js';

/** The part of {@link Time} a purgatory uses (deadlines on `monotonicMs`). */
export type DelayScheduler = Pick<Time, 'monotonicMs' | 'setTimeout' | 'clearTimeout'>;

/**
 * The old replication-side name of {@link ManualTime}, kept for existing tests: both clocks
 * start at `startMs` (default 0), as the delay scheduler's did.
 */
export class ManualScheduler extends ManualTime {
  constructor(startMs = 0) {
    super({ startMs, monotonicStartMs: startMs });
  }
}
