/**
 * The coordinator's window on time: wall-clock "now" and delayed operations (session expiry,
 * rebalance timeouts, the initial rebalance delay, offset expiry), which is part of io's
 * {@link Time}. {@link SystemScheduler} and {@link ManualScheduler} are the old names of
 * {@link SystemTime} and {@link ManualTime}.
 */
import type { Time } from '../io/environment.js';

/** The part of {@link Time} the coordinator uses; `nowMs` is wall-clock ms since the epoch. */
export type Scheduler = Pick<Time, 'nowMs' | 'setTimeout' | 'clearTimeout'>;

export type { TimerHandle } from '../io/environment.js';
export { ManualTime as ManualScheduler, SystemTime as SystemScheduler } from '../io/time.js';
