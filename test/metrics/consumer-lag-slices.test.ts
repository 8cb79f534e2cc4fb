/**
 * consumer.lag.max.partitions.per.turn: a lag sample over many groups works through at most that
 * many group partitions per event-loop turn (a group's committed offsets are read in its turn; the
 * sweep of forgotten partitions' states is sliced the same way),
 * keeps the previous sample's reports until its last slice, and is not doubled by a sample due
 * while it runs; without the bound, one turn.
 */
import { describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import { ConsumerLagMonitor, type ConsumerLagSources, type LagGroupSource } from '../../host/metrics/consumer-lag-monitor.js';

const GROUPS = 10;
const PARTITIONS = 30;
const PER_TURN = 100;

/** GROUPS groups committing offset 1 on PARTITIONS partitions of `t` (end offset `end`); counts committed reads. */
class ManyGroups implements ConsumerLagSources {
  committedReads = 0;
  end = 5;
  groups(): LagGroupSource[] {
    const self = this;
    return Array.from({ length: GROUPS }, (_, g) => ({
      groupId: `g${g}`,
      state: 'Stable',
      get committed() {
        self.committedReads++;
        return Array.from({ length: PARTITIONS }, (_, partition) => ({ topic: 't', partition, offset: 1 }));
      },
    }));
  }
  partition() {
    return { lastStableOffset: this.end, logStartOffset: 0, timestampAt: () => 1 };
  }
}

function monitor(sources: ManyGroups, defer?: (task: () => void) => void): ConsumerLagMonitor {
  return new ConsumerLagMonitor({
    time: new ManualTime(1_700_000_000_000), sources, sampleIntervalMs: 10_000, windowMs: 60_000, maxTimestampReads: 1000,
    maxPartitionsPerTurn: PER_TURN, ...(defer === undefined ? {} : { defer }),
  });
}

describe('consumer lag sampled in slices', () => {
  it('reads at most consumer.lag.max.partitions.per.turn group partitions per turn, and swaps the reports after the last', () => {
    const turns: (() => void)[] = [];
    const sources = new ManyGroups();
    const lag = monitor(sources, (task) => turns.push(task));
    lag.sample();
    // 100 per turn, 30 per group: a turn ends once it passed 100: groups 1-4, 5-8, then 9-10.
    expect(sources.committedReads).toBe(4);
    expect(lag.describeGroups()).toEqual([]);
    lag.sample();
    expect(sources.committedReads).toBe(4);
    const reads = [sources.committedReads];
    while (turns.length > 0) {
      turns.shift()!();
      reads.push(sources.committedReads);
    }
    // Then the sweep of forgotten group partitions walks the 300 states, 100 per turn as well.
    expect(reads).toEqual([4, 8, 10, 10, 10, 10]);
    expect(lag.describeGroups()).toHaveLength(GROUPS);
    expect(lag.describeGroups().every((group) => group.totalLag === PARTITIONS * 4)).toBe(true);

    sources.end = 7;
    lag.sample();
    expect(lag.describeGroups()[0]!.totalLag).toBe(PARTITIONS * 4);
    while (turns.length > 0) turns.shift()!();
    expect(lag.describeGroups().every((group) => group.totalLag === PARTITIONS * 6)).toBe(true);
  });

  it('stops a sample running over turns at stop()', () => {
    const turns: (() => void)[] = [];
    const sources = new ManyGroups();
    const lag = monitor(sources, (task) => turns.push(task));
    lag.sample();
    lag.stop();
    while (turns.length > 0) turns.shift()!();
    expect(sources.committedReads).toBe(4);
    expect(lag.describeGroups()).toEqual([]);
  });

  it('samples in one turn without a defer', () => {
    const sources = new ManyGroups();
    const lag = monitor(sources);
    lag.sample();
    expect(sources.committedReads).toBe(GROUPS);
    expect(lag.describeGroups()).toHaveLength(GROUPS);
  });
});
