/**
 * The replication folder's old names for io's {@link Time} (the purgatories take
 * `Pick<Time, 'monotonicMs' | 'setTimeout' | 'clearTimeout'>`), kept for the existing tests.
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
