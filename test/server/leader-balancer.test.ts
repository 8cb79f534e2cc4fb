/**
 * The controller's periodic leader rounds on a ManualTime: every
 * leader.imbalance.check.interval.seconds, unclean elections always and preferred balancing only
 * with auto.leader.rebalance.enable; a round that hit the per-round bound runs again at once.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ELECTIONS_PER_OPERATION } from '../../host/controller/leader-election-control.js';
import { ManualTime } from '../../host/io/time.js';
import { startLeaderBalancer } from '../../host/server/leader-balancer.js';

function fakeController(balancedPerRound: number[] = []) {
  const calls: { at: number; what: string; percentage?: number }[] = [];
  const time = new ManualTime();
  const controller = {
    balancePartitionLeaders: (percentage: number) => {
      calls.push({ at: time.monotonicMs(), what: 'balance', percentage });
      return Promise.resolve(balancedPerRound.shift() ?? 0);
    },
    electUncleanLeaders: () => {
      calls.push({ at: time.monotonicMs(), what: 'unclean' });
      return Promise.resolve(0);
    },
  };
  return { time, calls, controller };
}

async function run(time: ManualTime, ms: number, stepMs = 1_000): Promise<void> {
  for (let t = 0; t < ms; t += stepMs) {
    time.advance(stepMs);
    for (let i = 0; i < 10; i++) await Promise.resolve();
  }
}

describe('leader balancer', () => {
  it('runs unclean elections and a balancing round every leader.imbalance.check.interval.seconds, until stopped', async () => {
    const { time, calls, controller } = fakeController();
    const elected: object[] = [];
    const balancer = startLeaderBalancer(controller, time, {
      autoLeaderRebalanceEnable: true, leaderImbalanceCheckIntervalSeconds: 300, leaderImbalancePerBrokerPercentage: 10,
    }, (e) => elected.push(e));
    await run(time, 299_000);
    expect(calls).toEqual([]);
    await run(time, 1_000);
    expect(calls).toEqual([{ at: 300_000, what: 'unclean' }, { at: 300_000, what: 'balance', percentage: 10 }]);
    await run(time, 300_000);
    expect(calls.map((c) => c.at)).toEqual([300_000, 300_000, 600_000, 600_000]);
    expect(elected).toEqual([]);
    balancer.stop();
    await run(time, 600_000);
    expect(calls).toHaveLength(4);
  });

  it('with auto.leader.rebalance.enable=false only the unclean elections run', async () => {
    const { time, calls, controller } = fakeController();
    startLeaderBalancer(controller, time, { autoLeaderRebalanceEnable: false, leaderImbalanceCheckIntervalSeconds: 5, leaderImbalancePerBrokerPercentage: 10 });
    await run(time, 10_000);
    expect(calls.map((c) => c.what)).toEqual(['unclean', 'unclean']);
  });

  it('a round that moved the most leaders one round may move runs again at once, and reports what it moved', async () => {
    const { time, calls, controller } = fakeController([MAX_ELECTIONS_PER_OPERATION, 3]);
    const elected: object[] = [];
    startLeaderBalancer(controller, time, { autoLeaderRebalanceEnable: true, leaderImbalanceCheckIntervalSeconds: 5, leaderImbalancePerBrokerPercentage: 10 }, (e) => elected.push(e));
    await run(time, 5_000);
    await run(time, 1, 1);
    expect(calls.filter((c) => c.what === 'balance').map((c) => c.at)).toEqual([5_000, 5_001]);
    expect(elected).toEqual([{ unclean: 0, balanced: MAX_ELECTIONS_PER_OPERATION }, { unclean: 0, balanced: 3 }]);
  });
});
