/**
 * The timer that expires broker sessions on a controller node (Kafka's periodic fencing of stale
 * brokers): it calls {@link QuorumController.expireBrokerSessions} when
 * {@link QuorumController.nextBrokerSessionExpiryDelayMs} says the earliest session can expire,
 * and at least every `broker.session.timeout.ms` otherwise (a controller that becomes active or a
 * broker that gets unfenced cannot expire sooner than that after the check, since both count as
 * heard from at that moment). The controller stays free of timers; this runs on the injected
 * {@link Time}, so tests drive it with a ManualTime.
 *
 * Only for clusters whose brokers heartbeat (multi-node `controller.quorum.voters`): the embedded
 * single node registers its broker unfenced and never heartbeats.
 */
import type { QuorumController } from '../controller/quorum-controller.js';
import type { Time, TimerHandle } from '../io/environment.js';

/** Wait after a check that left a session still due (a fence that failed, e.g. NOT_CONTROLLER 41), ms. */
export const SESSION_EXPIRY_RETRY_MS = 100;

/** A running session expiry timer. */
export interface BrokerSessionExpiry {
  /** Cancels the timer; a check already running finishes. */
  stop(): void;
}

/**
 * Starts expiring the sessions of `controller`'s brokers on `time`.
 * @param onExpired told the ids fenced by each check that fenced some (for logs)
 */
export function startBrokerSessionExpiry(
  controller: QuorumController,
  time: Time,
  onExpired: (brokerIds: readonly number[]) => void = () => {},
): BrokerSessionExpiry {
  let timer: TimerHandle | null = null;
  let stopped = false;
  const schedule = (afterCheck: boolean): void => {
    if (stopped) return;
    const next = controller.nextBrokerSessionExpiryDelayMs();
    const delayMs = next === null ? controller.brokerSessionTimeoutMs : afterCheck && next === 0 ? SESSION_EXPIRY_RETRY_MS : next;
    timer = time.setTimeout(() => {
      timer = null;
      // The fences are appended (in the latest state) before expireBrokerSessions returns, so the
      // next check is planned now, on the same instant, not when their commits are heard.
      const fenced = controller.expireBrokerSessions();
      schedule(true);
      void fenced.then((ids) => {
        if (ids.length > 0) onExpired(ids);
      });
    }, delayMs);
  };
  schedule(false);
  return {
    stop(): void {
      stopped = true;
      if (timer !== null) time.clearTimeout(timer);
      timer = null;
    },
  };
}
