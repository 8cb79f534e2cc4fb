/**
 * The follower's fetch loop against a fake leader that answers with Kafka's rules: appends the
 * leader's batches as they are, follows its high watermark, truncates a divergent tail
 * (KIP-320), recovers from OFFSET_OUT_OF_RANGE, parks on a fenced epoch, backs off from an
 * unreachable leader. Time is a ManualTime; every round is driven by hand.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_REPLICA_FETCHER_CONFIG } from '../../host/config/replica-fetcher-config.js';
import { ManualTime } from '../../host/io/time.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { ReplicaFetcher } from '../../host/replication/replica-fetcher.js';
import { encodeBatches, FakeLeader, FakeReplica, pump } from './fetcher-fakes.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

function setup(leaderEpoch = 0): { time: ManualTime; leader: FakeLeader; replica: FakeReplica; fetcher: ReplicaFetcher } {
  const time = new ManualTime();
  const leader = new FakeLeader(1);
  leader.log('t', 0, leaderEpoch);
  const replica = new FakeReplica('t', 0);
  const fetcher = new ReplicaFetcher({
    name: 'ReplicaFetcherThread-0-1', replicaId: 2, leader, settings: DEFAULT_REPLICA_FETCHER_CONFIG, time, logger: silent,
  });
  fetcher.addPartitions([{ replica, leaderEpoch }]);
  return { time, leader, replica, fetcher };
}

describe('ReplicaFetcher', () => {
  it('copies the leader\'s batches byte for byte at their offsets and takes its high watermark', async () => {
    const { time, leader, replica, fetcher } = setup(3);
    const leaderLog = leader.log('t', 0);
    leaderLog.appendBatch(2, 1);
    leaderLog.appendBatch(3, 3);
    leaderLog.highWatermark = 2;
    fetcher.start();
    await pump(time, 2);
    expect(encodeBatches(replica.log.batches)).toEqual(encodeBatches(leaderLog.batches));
    expect(replica.logEndOffset).toBe(5);
    expect(replica.highWatermark).toBe(2);
    const first = leader.requests[0]!;
    expect(first).toMatchObject({ replicaId: 2, maxWaitMs: 500, minBytes: 1, maxBytes: 10_485_760 });
    expect(first.partitions).toEqual([{ topic: 't', partition: 0, fetchOffset: 0, currentLeaderEpoch: 3, lastFetchedEpoch: -1, logStartOffset: 0, partitionMaxBytes: 1_048_576 }]);
    expect(leader.requests[1]!.partitions[0]).toMatchObject({ fetchOffset: 5, lastFetchedEpoch: 3 });
    leaderLog.highWatermark = 5;
    leaderLog.appendBatch(1, 3);
    await pump(time, 2);
    expect(replica.logEndOffset).toBe(6);
    expect(replica.highWatermark).toBe(5);
    fetcher.shutdown();
  });

  it('truncates a divergent tail to where the leader\'s epoch ended, then fetches the leader\'s records (KIP-320)', async () => {
    const { time, leader, replica, fetcher } = setup(2);
    const leaderLog = leader.log('t', 0);
    leaderLog.appendBatch(3, 1); // 0..2 epoch 1
    leaderLog.appendBatch(2, 2); // 3..4 epoch 2 (the new leader's)
    replica.log.appendBatch(3, 1);
    replica.log.appendBatch(4, 1); // 3..6 epoch 1: never committed, diverges
    fetcher.start();
    await pump(time, 3);
    expect(replica.calls).toEqual(['truncateTo 3', 'append 3']);
    expect(encodeBatches(replica.log.batches)).toEqual(encodeBatches(leaderLog.batches));
    fetcher.shutdown();
  });

  it('truncates to the end of its own older epoch when it never saw the leader\'s diverging epoch, and goes on from there', async () => {
    const { time, leader, replica, fetcher } = setup(5);
    const leaderLog = leader.log('t', 0);
    leaderLog.appendBatch(2, 1); // 0..1
    leaderLog.appendBatch(2, 3); // 2..3
    leaderLog.appendBatch(2, 5); // 4..5
    replica.log.appendBatch(2, 1); // 0..1
    replica.log.appendBatch(1, 2); // 2 epoch 2: a leader that never committed
    replica.log.appendBatch(1, 4); // 3 epoch 4: another one
    fetcher.start();
    await pump(time, 5);
    // Last fetched epoch 4: the leader says epoch 3 ended at 4; we know only epoch 2 below it
    // (ending at 3): truncate to 3; then epoch 2 → the leader says epoch 1 ended at 2: truncate to 2.
    expect(replica.calls).toEqual(['truncateTo 3', 'truncateTo 2', 'append 2']);
    expect(encodeBatches(replica.log.batches)).toEqual(encodeBatches(leaderLog.batches));
    fetcher.shutdown();
  });

  it('starts afresh at the leader\'s log start offset when its fetch offset fell below it', async () => {
    const { time, leader, replica, fetcher } = setup();
    const leaderLog = leader.log('t', 0);
    leaderLog.truncateFullyAndStartAt(100);
    leaderLog.appendBatch(2, 0);
    fetcher.start();
    await pump(time, 3);
    expect(leader.listOffsets).toEqual(['latest t-0', 'earliest t-0']);
    expect(replica.calls).toEqual(['truncateFullyAndStartAt 100', 'append 100']);
    expect(replica.logEndOffset).toBe(102);
    fetcher.shutdown();
  });

  it('truncates to the leader\'s end when the leader has fewer records than itself (an unclean election)', async () => {
    const { time, leader, replica, fetcher } = setup();
    leader.log('t', 0).appendBatch(2, 0);
    replica.log.appendBatch(2, 0);
    replica.log.appendBatch(3, 0);
    // A leader without epoch checks (Fetch before v12) answers out of range.
    leader.script.push({ kind: 'response', body: { errorCode: 0, partitions: [{
      topic: 't', partition: 0, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, highWatermark: -1, logStartOffset: -1, divergingEpoch: null, records: null,
    }] } });
    fetcher.start();
    await pump(time, 2);
    expect(leader.listOffsets).toEqual(['latest t-0']);
    expect(replica.calls[0]).toBe('truncateTo 2');
    expect(replica.logEndOffset).toBe(2);
    fetcher.shutdown();
  });

  it('backs off replica.fetch.backoff.ms after a disconnect, then fetches again', async () => {
    const { time, leader, replica, fetcher } = setup();
    leader.log('t', 0).appendBatch(1, 0);
    leader.script.push({ kind: 'disconnected', reason: 'connection refused' });
    fetcher.start();
    await pump(time, 3);
    expect(leader.requests).toHaveLength(1);
    expect(fetcher.fetchState('t', 0)!.kind).toBe('delayed');
    time.advance(999);
    await pump(time, 2);
    expect(leader.requests).toHaveLength(1);
    time.advance(1);
    await pump(time, 2);
    expect(leader.requests.length).toBeGreaterThan(1);
    expect(replica.logEndOffset).toBe(1);
    fetcher.shutdown();
  });

  it('parks a partition whose epoch the leader fenced until it is added with a newer epoch', async () => {
    const { time, leader, replica, fetcher } = setup(0);
    leader.epochs.set('t-0', 4);
    leader.log('t', 0).appendBatch(1, 4);
    fetcher.start();
    await pump(time, 2);
    expect(fetcher.fetchState('t', 0)!.kind).toBe('parked');
    time.advance(5_000);
    await pump(time, 3);
    expect(leader.requests).toHaveLength(1);
    fetcher.addPartitions([{ replica, leaderEpoch: 4 }]);
    await pump(time, 2);
    expect(replica.logEndOffset).toBe(1);
    fetcher.shutdown();
  });

  it('retries after the backoff when the leader does not know our epoch yet (UNKNOWN_LEADER_EPOCH)', async () => {
    const { time, leader, replica, fetcher } = setup(1);
    leader.epochs.set('t-0', 0);
    leader.log('t', 0).appendBatch(1, 0);
    fetcher.start();
    await pump(time, 2);
    expect(fetcher.fetchState('t', 0)!.kind).toBe('delayed');
    leader.epochs.set('t-0', 1);
    time.advance(1_000);
    await pump(time, 2);
    expect(replica.logEndOffset).toBe(1);
    fetcher.shutdown();
  });

  it('drops an answer for a partition removed while the fetch was in flight', async () => {
    const { time, leader, replica, fetcher } = setup();
    leader.log('t', 0).appendBatch(1, 0);
    leader.script.push((request) => {
      fetcher.removePartitions([{ topic: 't', partition: 0 }]);
      return { kind: 'response', body: { errorCode: 0, partitions: [{
        topic: 't', partition: 0, errorCode: 0, highWatermark: 1, logStartOffset: 0, divergingEpoch: null,
        records: encodeBatches([{ baseOffset: request.partitions[0]!.fetchOffset, count: 1, epoch: 0 }]),
      }] } };
    });
    fetcher.start();
    await pump(time, 2);
    expect(replica.logEndOffset).toBe(0);
    fetcher.shutdown();
  });

  it('parks a partition whose appends fail, and keeps fetching the others', async () => {
    const { time, leader, replica, fetcher } = setup();
    leader.log('t', 0).appendBatch(1, 0);
    leader.log('t', 1).appendBatch(2, 0);
    const other = new FakeReplica('t', 1);
    fetcher.addPartitions([{ replica: other, leaderEpoch: 0 }]);
    replica.appendError = ErrorCode.CORRUPT_MESSAGE;
    fetcher.start();
    await pump(time, 2);
    expect(fetcher.fetchState('t', 0)!.kind).toBe('parked');
    expect(other.logEndOffset).toBe(2);
    fetcher.shutdown();
  });
});
