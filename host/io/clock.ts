/**
 * The wall clock alone, for code that only reads the time (segment.ms, retention.ms, flush.ms).
 * A {@link Time} is a Clock; {@link SystemClock} and {@link ManualClock} are the old names of
 * {@link SystemTime} and {@link ManualTime}.
 */
import type { Time } from './environment.js';

/** Wall-clock time only: `Time.nowMs`, ms since the Unix epoch. */
export type Clock = Pick<Time, 'nowMs'>;

export { ManualTime as ManualClock, SystemTime as SystemClock } from './time.js';
