/**
 * The broker's consumer lag and Burrow-style status, on a manual clock and scripted sources: lag
 * in offsets and seconds, the four statuses over the window, the bounded timestamp reads, and
 * groups that go away.
 */
import { describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import { ConsumerLagMonitor, type ConsumerLagSources, type LagGroupSource } from '../../host/metrics/consumer-lag-monitor.js';
import { PartitionLagHistory } from '../../host/metrics/consumer-lag-status.js';

const START_MS = 1_700_000_000_000;
const WINDOW_MS = 60_000;
const INTERVAL_MS = 10_000;

/** One partition `orders-0` whose records were written at START_MS + offset seconds. */
class Script implements ConsumerLagSources {
  endOffset = 0;
  logStartOffset = 0;
  state = 'Stable';
  committed = 0;
  timestampReads = 0;
  groupIds = ['billing'];

  groups(): LagGroupSource[] {
    return this.groupIds.map((groupId) => ({ groupId, state: this.state, committed: [{ topic: 'orders', partition: 0, offset: this.committed }] }));
  }

  partition(topic: string, partition: number) {
    if (topic !== 'orders' || partition !== 0) return null;
    return {
      lastStableOffset: this.endOffset,
      logStartOffset: this.logStartOffset,
      timestampAt: (offset: number) => {
        this.timestampReads++;
        return START_MS + offset * 1000;
      },
    };
  }
}

function monitorOn(script: Script, time: ManualTime, maxTimestampReads = 100): ConsumerLagMonitor {
  return new ConsumerLagMonitor({ time, sources: script, sampleIntervalMs: INTERVAL_MS, windowMs: WINDOW_MS, maxTimestampReads });
}

/** Moves the clock by one interval, applies `change`, samples. */
function step(time: ManualTime, monitor: ConsumerLagMonitor, change: () => void = () => undefined): void {
  time.advance(INTERVAL_MS);
  change();
  monitor.sample();
}

describe('ConsumerLagMonitor', () => {
  it('measures lag in offsets from the high watermark and in seconds from the oldest unconsumed record', () => {
    const time = new ManualTime(START_MS + 100_000);
    const script = new Script();
    script.endOffset = 50;
    script.committed = 40;
    const monitor = monitorOn(script, time);
    monitor.sample();
    const report = monitor.describeGroup('billing')!;
    expect(report.totalLag).toBe(10);
    // The record at offset 40 was written at START_MS + 40 s; now is START_MS + 100 s.
    expect(report.partitions[0]).toMatchObject({ topic: 'orders', partition: 0, committedOffset: 40, endOffset: 50, lag: 10, lagSeconds: 60 });
    expect(report.maxLagSeconds).toBe(60);
    expect(report.status).toBe('OK');
  });

  it('reads a batch timestamp only when the committed offset moved, and no more per sample than allowed', () => {
    const time = new ManualTime(START_MS + 100_000);
    const script = new Script();
    script.endOffset = 50;
    script.committed = 40;
    script.groupIds = ['a', 'b', 'c'];
    const monitor = monitorOn(script, time, 2);
    monitor.sample();
    expect(script.timestampReads).toBe(2);
    expect(monitor.describeGroups().filter((g) => g.partitions[0]!.lagSeconds === null)).toHaveLength(1);
    step(time, monitor);
    expect(script.timestampReads).toBe(3);
    expect(monitor.describeGroups().every((g) => g.partitions[0]!.lagSeconds !== null)).toBe(true);
    step(time, monitor);
    expect(script.timestampReads).toBe(3);
  });

  it('is OK while the consumer keeps up, and 0 s behind without lag', () => {
    const time = new ManualTime(START_MS);
    const script = new Script();
    const monitor = monitorOn(script, time);
    for (let i = 0; i < 10; i++) {
      step(time, monitor, () => {
        script.endOffset += 5;
        script.committed = script.endOffset;
      });
    }
    expect(monitor.describeGroup('billing')).toMatchObject({ status: 'OK', totalLag: 0, maxLagSeconds: 0 });
  });

  it('turns WARNING when the lag grows over the whole window although offsets are committed', () => {
    const time = new ManualTime(START_MS);
    const script = new Script();
    const monitor = monitorOn(script, time);
    for (let i = 0; i < WINDOW_MS / INTERVAL_MS; i++) {
      step(time, monitor, () => {
        script.endOffset += 10;
        script.committed += 5;
      });
      expect(monitor.describeGroup('billing')!.status).toBe('OK');
    }
    step(time, monitor, () => {
      script.endOffset += 10;
      script.committed += 5;
    });
    expect(monitor.describeGroup('billing')!.status).toBe('WARNING');
    // The consumer catches up: the lag falls, the warning ends.
    step(time, monitor, () => {
      script.committed = script.endOffset - 1;
    });
    expect(monitor.describeGroup('billing')!.status).toBe('OK');
  });

  it('turns STALLED when the committed offset stays put for the window while the group lags', () => {
    const time = new ManualTime(START_MS);
    const script = new Script();
    script.endOffset = 10;
    script.committed = 10;
    const monitor = monitorOn(script, time);
    monitor.sample();
    for (let i = 0; i < WINDOW_MS / INTERVAL_MS - 1; i++) {
      step(time, monitor, () => {
        script.endOffset += 3;
      });
      expect(monitor.describeGroup('billing')!.status).not.toBe('STALLED');
    }
    step(time, monitor, () => {
      script.endOffset += 3;
    });
    const report = monitor.describeGroup('billing')!;
    expect(report.status).toBe('STALLED');
    expect(report.partitions[0]!.status).toBe('STALLED');
    expect(report.maxLagSeconds).toBeGreaterThan(0);
    step(time, monitor, () => {
      script.committed += 1;
    });
    expect(monitor.describeGroup('billing')!.status).not.toBe('STALLED');
  });

  it('turns STOPPED when the group has no member and lags, and OK again once it has no lag', () => {
    const time = new ManualTime(START_MS);
    const script = new Script();
    script.endOffset = 20;
    script.committed = 15;
    script.state = 'Empty';
    const monitor = monitorOn(script, time);
    monitor.sample();
    expect(monitor.describeGroup('billing')!.status).toBe('STOPPED');
    step(time, monitor, () => {
      script.committed = 20;
    });
    expect(monitor.describeGroup('billing')!.status).toBe('OK');
  });

  it('measures from the log start when retention removed the committed offset, and forgets groups that are gone', () => {
    const time = new ManualTime(START_MS + 100_000);
    const script = new Script();
    script.endOffset = 90;
    script.logStartOffset = 70;
    script.committed = 30;
    const monitor = monitorOn(script, time);
    monitor.sample();
    expect(monitor.describeGroup('billing')!.partitions[0]).toMatchObject({ lag: 60, lagSeconds: 30 });
    script.groupIds = [];
    step(time, monitor);
    expect(monitor.describeGroups()).toEqual([]);
  });

  it('samples on the broker clock from start() to stop()', () => {
    const time = new ManualTime(START_MS);
    const script = new Script();
    const monitor = monitorOn(script, time);
    monitor.start();
    time.advance(0);
    expect(monitor.describeGroup('billing')!.sampledAtMs).toBe(START_MS);
    time.advance(INTERVAL_MS);
    expect(monitor.describeGroup('billing')!.sampledAtMs).toBe(START_MS + INTERVAL_MS);
    monitor.stop();
    time.advance(INTERVAL_MS * 3);
    expect(monitor.describeGroup('billing')!.sampledAtMs).toBe(START_MS + INTERVAL_MS);
  });
});

describe('PartitionLagHistory', () => {
  it('keeps only the samples the window needs', () => {
    const history = new PartitionLagHistory();
    for (let i = 0; i < 1000; i++) history.add(i * INTERVAL_MS, i, 1, WINDOW_MS);
    expect(history.size).toBeLessThanOrEqual(WINDOW_MS / INTERVAL_MS + 2);
  });

  it('sorts the groups once per sample: describeGroups gives the same list until the next sample', () => {
    const time = new ManualTime(START_MS + 100_000);
    const script = new Script();
    script.groupIds = ['c', 'a', 'b'];
    const monitor = monitorOn(script, time);
    monitor.sample();
    const first = monitor.describeGroups();
    expect(first.map((g) => g.groupId)).toEqual(['a', 'b', 'c']);
    expect(monitor.describeGroups()).toBe(first);
    step(time, monitor, () => {
      script.groupIds = ['b', 'd'];
    });
    const second = monitor.describeGroups();
    expect(second).not.toBe(first);
    expect(second.map((g) => g.groupId)).toEqual(['b', 'd']);
    expect(first.map((g) => g.groupId)).toEqual(['a', 'b', 'c']);
  });
});
