/**
 * The controller's periodic leader tasks (Kafka's QuorumController balance and unclean-election
 * events), on a controller node: every `leader.imbalance.check.interval.seconds` the active
 * controller runs the unclean elections that topics allow for their offline partitions and, when
 * `auto.leader.rebalance.enable`, one round of preferred leader balancing with
 * `leader.imbalance.per.broker.percentage` (host/controller/leader-election-control.ts). A round
 * that hit the per-round bound runs again at once. The controller stays free of timers; this runs
 * on the injected {@link Time}, so tests drive it with a ManualTime. On a controller that is not
 * active a round does nothing.
 */
import type { LeaderBalanceConfig } from '../config/leader-balance-config.js';
import { MAX_ELECTIONS_PER_OPERATION } from '../controller/leader-election-control.js';
import type { QuorumController } from '../controller/quorum-controller.js';
import type { Time, TimerHandle } from '../io/environment.js';

/** A running balancer. */
export interface LeaderBalancer {
  /** Cancels the timer; a round already running finishes. */
  stop(): void;
}

/**
 * Starts the periodic rounds of `controller` on `time`.
 * @param onElected told how many leaders each round that elected some moved (for logs)
 */
export function startLeaderBalancer(
  controller: Pick<QuorumController, 'balancePartitionLeaders' | 'electUncleanLeaders'>,
  time: Time,
  config: LeaderBalanceConfig,
  onElected: (elected: { unclean: number; balanced: number }) => void = () => {},
): LeaderBalancer {
  const intervalMs = config.leaderImbalanceCheckIntervalSeconds * 1_000;
  let timer: TimerHandle | null = null;
  let stopped = false;
  const schedule = (delayMs: number): void => {
    if (stopped) return;
    timer = time.setTimeout(() => {
      timer = null;
      void round().then((more) => schedule(more ? 0 : intervalMs));
    }, delayMs);
  };
  const round = async (): Promise<boolean> => {
    const unclean = await controller.electUncleanLeaders();
    const balanced = config.autoLeaderRebalanceEnable ? await controller.balancePartitionLeaders(config.leaderImbalancePerBrokerPercentage) : 0;
    if (unclean + balanced > 0) onElected({ unclean, balanced });
    return unclean >= MAX_ELECTIONS_PER_OPERATION || balanced >= MAX_ELECTIONS_PER_OPERATION;
  };
  schedule(intervalMs);
  return {
    stop(): void {
      stopped = true;
      if (timer !== null) time.clearTimeout(timer);
      timer = null;
    },
  };
}
