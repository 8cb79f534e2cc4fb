import { describe, expect, it } from 'vitest';
import { ManualScheduler } from '../../host/replication/delay-scheduler.js';
import { DelayedFetch, type FetchWakeEvent } from '../../host/replication/delayed-fetch.js';
import { Purgatory } from '../../host/replication/purgatory.js';
import type { FetchParams, FetchPartitionRequest, FetchPartitionResult } from '../../host/replication/replica-manager.js';

function params(minBytes: number, partitions: FetchPartitionRequest[]): FetchParams {
  return { maxWaitMs: 500, minBytes, maxBytes: 1 << 20, isolationLevel: 0, minOneMessage: true, partitions };
}

function harness(fetch: FetchParams) {
  const scheduler = new ManualScheduler();
  const purgatory = new Purgatory<DelayedFetch, FetchWakeEvent>('Fetch', scheduler);
  const responses: FetchPartitionResult[][] = [];
  let reads = 0;
  const op = new DelayedFetch(fetch, 0, () => true, () => {
    reads++;
    return [];
  }, (results) => responses.push(results));
  expect(purgatory.tryCompleteElseWatch(op, op.keys)).toBe(false);
  return { scheduler, purgatory, op, responses, reads: () => reads };
}

describe('DelayedFetch', () => {
  it('answers on the append that makes enough bytes visible, without waiting for max.wait.ms', () => {
    const h = harness(params(1, [{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 1000 }]));
    expect(h.purgatory.checkAndComplete('t-0', { newlyVisibleBytes: 70 })).toBe(1);
    // No time passed on the scheduler: the answer came from the append, not the timeout.
    expect(h.scheduler.nowMs()).toBe(0);
    expect(h.responses).toHaveLength(1);
    expect(h.reads()).toBe(1);
    h.scheduler.advance(1000);
    expect(h.responses).toHaveLength(1);
  });

  it('counts at most partitionMaxBytes of a partition towards minBytes', () => {
    const h = harness(params(150, [
      { topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 100 },
      { topic: 't', partition: 1, fetchOffset: 0, partitionMaxBytes: 100 },
    ]));
    expect(h.purgatory.checkAndComplete('t-0', { newlyVisibleBytes: 500 })).toBe(0);
    expect(h.purgatory.checkAndComplete('t-1', { newlyVisibleBytes: 49 })).toBe(0);
    expect(h.purgatory.checkAndComplete('t-1', { newlyVisibleBytes: 1 })).toBe(1);
    expect(h.responses).toHaveLength(1);
  });

  it('watches a partition asked for twice once, with the larger cap', () => {
    const h = harness(params(150, [
      { topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 100 },
      { topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 200 },
    ]));
    expect(h.op.keys).toEqual(['t-0']);
    expect(h.purgatory.checkAndComplete('t-0', { newlyVisibleBytes: 150 })).toBe(1);
  });

  it('finds its partitions in a fetch of many partitions', () => {
    const partitions = Array.from({ length: 40 }, (_, i) => ({ topic: 't', partition: i, fetchOffset: 0, partitionMaxBytes: 10 }));
    const h = harness(params(25, partitions));
    expect(h.purgatory.checkAndComplete('t-39', { newlyVisibleBytes: 100 })).toBe(0);
    expect(h.purgatory.checkAndComplete('t-17', { newlyVisibleBytes: 10 })).toBe(0);
    expect(h.purgatory.checkAndComplete('t-3', { newlyVisibleBytes: 5 })).toBe(1);
  });

  it('answers with what it has when max.wait.ms passes', () => {
    const h = harness(params(100, [{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 1000 }]));
    h.purgatory.checkAndComplete('t-0', { newlyVisibleBytes: 10 });
    h.scheduler.advance(499);
    expect(h.responses).toHaveLength(0);
    h.scheduler.advance(1);
    expect(h.responses).toHaveLength(1);
    expect(h.purgatory.delayed).toBe(0);
  });
});
