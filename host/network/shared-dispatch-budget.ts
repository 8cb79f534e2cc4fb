/**
 * How long all connections together dispatch requests in one event-loop turn
 * (`network.max.dispatch.ms.per.turn`, issue 15), beside each connection's own bound
 * (`connection.max.dispatch.ms.per.turn`, kafka-connection.ts).
 *
 * Why: the per-connection bound alone lets a turn grow with the number of busy connections. 100
 * connections pipelining 100 cheap JoinGroups each arrive in one poll of the event loop; each
 * stays under its own 50 ms, and together they held the loop ~600 ms, so a client with one
 * Metadata waited that long.
 *
 * Rule: once this turn's total reaches the bound, every connection dispatches one request per
 * pump and yields the rest to a deferred turn, as it does when its own bound is spent. One
 * request always runs, so a client with a single request is answered in the turn its bytes
 * arrive, whatever the others pipeline: it costs the others at most one request each per turn.
 * The total is reset by a deferred task scheduled at the turn's first dispatch, which runs before
 * the deferred turns of the connections that yielded after it (Time.defer runs in order).
 */
import type { Time } from '../io/environment.js';
import type { DispatchBudget } from './kafka-connection.js';

/** Dispatch time spent by all connections in the current turn (see the file header). */
export class SharedDispatchBudget {
  private spentMs = 0;
  private resetScheduled = false;

  /**
   * @param maxMs network.max.dispatch.ms.per.turn (> 0)
   * @throws RangeError for a bound that is not a positive number
   */
  constructor(
    readonly maxMs: number,
    private readonly clock: Pick<Time, 'defer'>,
  ) {
    if (!(maxMs > 0)) throw new RangeError(`network.max.dispatch.ms.per.turn must be > 0, got ${maxMs}`);
  }

  /** True once this turn's dispatches took maxMs or more. */
  get exhausted(): boolean {
    return this.spentMs >= this.maxMs;
  }

  /** Adds `ms` of one connection's dispatch to this turn's total. */
  spend(ms: number): void {
    if (!this.resetScheduled) {
      this.resetScheduled = true;
      this.clock.defer(() => {
        this.resetScheduled = false;
        this.spentMs = 0;
      });
    }
    this.spentMs += ms;
  }
}

/**
 * The DispatchBudget of a listener's connections: `perConnectionMs`
 * (connection.max.dispatch.ms.per.turn, 0 = none) and the shared turn bound (null = none).
 * Undefined when neither bounds anything.
 */
export function dispatchBudgetOf(
  perConnectionMs: number,
  shared: SharedDispatchBudget | null,
  clock: Pick<Time, 'monotonicMs' | 'defer'>,
): DispatchBudget | undefined {
  if (perConnectionMs <= 0 && shared === null) return undefined;
  return { maxMs: perConnectionMs > 0 ? perConnectionMs : Number.POSITIVE_INFINITY, clock, ...(shared === null ? {} : { shared }) };
}
