/**
 * Property: whatever the interleaving of leader appends, follower fetches (of any size), time
 * passing, ISR shrinks and expansions through a controller that commits what it is sent, the
 * leader's high watermark never decreases and never exceeds the log end offset of any replica in
 * the ISR (the leader's own included).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import type { AlterPartitionItem, AlterPartitionResult, AlterPartitionSink } from '../../host/replication/alter-partition-sink.js';
import { Partition } from '../../host/replication/partition.js';
import { blob, FakeLog } from './fake-log.js';

const LAG_MS = 1_000;

type Op =
  | { kind: 'append'; count: number }
  | { kind: 'fetch'; follower: 2 | 3; records: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'shrink' }
  | { kind: 'controller' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('fetch' as const), follower: fc.constantFrom(2 as const, 3 as const), records: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 2 * LAG_MS }) }),
  fc.record({ kind: fc.constant('shrink' as const) }),
  fc.record({ kind: fc.constant('controller' as const) }),
);

/** A controller that commits proposals when told to answer (`answerAll`). */
class CommittingSink implements AlterPartitionSink {
  private readonly waiting: Array<{ item: AlterPartitionItem; resolve: (result: AlterPartitionResult) => void }> = [];

  submit(item: AlterPartitionItem): Promise<AlterPartitionResult> {
    return new Promise((resolve) => this.waiting.push({ item, resolve }));
  }

  answerAll(): void {
    for (const { item, resolve } of this.waiting.splice(0)) {
      resolve({ errorCode: 0, leaderId: 1, leaderEpoch: item.leaderEpoch, partitionEpoch: item.partitionEpoch + 1, isr: item.newIsr });
    }
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('the leader high watermark (property)', () => {
  it('never decreases and never exceeds the log end offset of an ISR member', async () => {
    await fc.assert(fc.asyncProperty(fc.subarray([2, 3]), fc.array(op, { maxLength: 60 }), async (initialFollowers, ops) => {
      const time = new ManualTime({ startMs: 0, monotonicStartMs: 0 });
      const sink = new CommittingSink();
      const log = new FakeLog('t', 0);
      const leader = new Partition({
        topic: 't', partition: 0, log, localBrokerId: 1, leaderEpoch: 1, replicas: [1, 2, 3], isr: [1, ...initialFollowers],
        topicId: '0'.repeat(32), alterPartitionSink: sink, replicaLagTimeMaxMs: LAG_MS, time,
      });
      const followerEnd = new Map<number, number>([[2, 0], [3, 0]]);
      let previous = leader.highWatermark;
      for (const step of ops) {
        switch (step.kind) {
          case 'append':
            for (let i = 0; i < step.count; i++) leader.appendRecordsToLeader(blob(10), 1);
            break;
          case 'fetch': {
            const fetchOffset = followerEnd.get(step.follower)!;
            const read = leader.readRecords({ fetchOffset, maxBytes: 1 << 20, isolationLevel: 0, minOneMessage: true, replicaId: step.follower, currentLeaderEpoch: 1 });
            expect(read.errorCode).toBe(0);
            // The follower keeps any prefix of what it read (one fake batch per offset).
            const got = Math.min(step.records, log.logEndOffset - fetchOffset);
            followerEnd.set(step.follower, fetchOffset + got);
            break;
          }
          case 'advance':
            time.advance(step.ms);
            break;
          case 'shrink':
            leader.maybeShrinkIsr();
            break;
          case 'controller':
            sink.answerAll();
            await flush();
            break;
        }
        const highWatermark = leader.highWatermark;
        expect(highWatermark).toBeGreaterThanOrEqual(previous);
        expect(highWatermark).toBeLessThanOrEqual(log.logEndOffset);
        for (const member of leader.isr) {
          if (member !== 1) expect(highWatermark).toBeLessThanOrEqual(followerEnd.get(member)!);
        }
        previous = highWatermark;
      }
    }), { numRuns: 300 });
  });
});
