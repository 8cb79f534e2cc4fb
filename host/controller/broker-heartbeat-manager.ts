/**
 * BrokerHeartbeatManager (Kafka's name): the active controller's memory of when each registered
 * broker last sent a BrokerHeartbeat, used to fence brokers whose session expired
 * (`broker.session.timeout.ms`, Kafka default 9 000 ms; brokers send every
 * `broker.heartbeat.interval.ms`, default 2 000 ms).
 *
 * This state is not in the metadata log: it is rebuilt when a controller becomes active, by
 * treating every registered broker as heard from at that moment (as Kafka does), so a failover
 * never fences brokers that were alive. Times are monotonic milliseconds from the injected Time.
 */

/** Kafka's defaults, ms. */
export const DEFAULT_BROKER_SESSION_TIMEOUT_MS = 9_000;
export const DEFAULT_BROKER_HEARTBEAT_INTERVAL_MS = 2_000;

export class BrokerHeartbeatManager {
  private readonly lastContactMs = new Map<number, number>();

  /** @param sessionTimeoutMs `broker.session.timeout.ms` */
  constructor(readonly sessionTimeoutMs: number = DEFAULT_BROKER_SESSION_TIMEOUT_MS) {
    if (!(sessionTimeoutMs > 0)) throw new RangeError(`broker.session.timeout.ms must be positive, not ${sessionTimeoutMs}`);
  }

  /** Records a heartbeat (or registration) of `brokerId` at `nowMs`. */
  touch(brokerId: number, nowMs: number): void {
    this.lastContactMs.set(brokerId, nowMs);
  }

  /** Forgets a broker (unregistered). */
  remove(brokerId: number): void {
    this.lastContactMs.delete(brokerId);
  }

  /** Becoming the active controller: every broker in `brokerIds` counts as heard from at `nowMs`; others are forgotten. */
  resetAll(brokerIds: Iterable<number>, nowMs: number): void {
    this.lastContactMs.clear();
    for (const id of brokerIds) this.lastContactMs.set(id, nowMs);
  }

  /** When `brokerId` was last heard from, or undefined. */
  lastContact(brokerId: number): number | undefined {
    return this.lastContactMs.get(brokerId);
  }

  /**
   * The brokers among `candidates` whose session has expired at `nowMs` (last contact more than
   * `sessionTimeoutMs` ago), in ascending id order. A candidate never heard from counts as heard
   * from now (it is tracked from this call on).
   */
  expired(candidates: Iterable<number>, nowMs: number): number[] {
    const out: number[] = [];
    for (const id of candidates) {
      const last = this.lastContactMs.get(id);
      if (last === undefined) this.lastContactMs.set(id, nowMs);
      else if (nowMs - last > this.sessionTimeoutMs) out.push(id);
    }
    return out.sort((a, b) => a - b);
  }

  /** ms from `nowMs` until the next session can expire (for the controller's timer), or null when none is tracked. */
  nextExpiryDelayMs(nowMs: number): number | null {
    let earliest: number | null = null;
    for (const last of this.lastContactMs.values()) {
      const delay = Math.max(0, last + this.sessionTimeoutMs + 1 - nowMs);
      if (earliest === null || delay < earliest) earliest = delay;
    }
    return earliest;
  }
}
