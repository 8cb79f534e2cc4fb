import { afterEach, describe, expect, it } from 'vitest';
import { ManualScheduler } from '../../host/replication/delay-scheduler.js';
import { Partition } from '../../host/replication/partition.js';
import { ReplicaManager } from '../../host/replication/replica-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import {
  batchEpochs,
  closeReplicaLogs,
  leaderBytes,
  openReplicaLog,
  producerStateFor,
  recordsBatch,
  removeTempDirs,
} from './replication-test-helpers.js';

afterEach(() => {
  closeReplicaLogs();
  removeTempDirs();
});

const LEADER = 1;
const FOLLOWER = 2;

function leaderPartition(log: UnifiedLog, leaderEpoch = 3): Partition<UnifiedLog> {
  return new Partition({ topic: 't', partition: 0, log, localBrokerId: LEADER, leaderEpoch });
}

function followerPartition(log: UnifiedLog, leaderEpoch = 3, withProducerState = false): Partition<UnifiedLog> {
  return new Partition({
    topic: 't', partition: 0, log, localBrokerId: FOLLOWER, leaderId: LEADER, leaderEpoch, partitionEpoch: 0,
    replicas: [LEADER, FOLLOWER], isr: [LEADER, FOLLOWER],
    ...(withProducerState ? { producerState: producerStateFor(log) } : {}),
  });
}

describe('Partition transitions', () => {
  it('refuses makeLeader and makeFollower with an older leader epoch, or the same one with an older partition epoch', () => {
    const partition = new Partition({ topic: 't', partition: 0, log: openReplicaLog(), localBrokerId: 1, leaderEpoch: 5, partitionEpoch: 7 });
    expect(partition.makeLeader({ leaderEpoch: 4, partitionEpoch: 9 })).toBe(false);
    expect(partition.makeFollower({ leaderId: 2, leaderEpoch: 4, partitionEpoch: 9 })).toBe(false);
    expect(partition.makeFollower({ leaderId: 2, leaderEpoch: 5, partitionEpoch: 6 })).toBe(false);
    expect(partition).toMatchObject({ isLeader: true, leaderId: 1, leaderEpoch: 5, partitionEpoch: 7 });
    expect(partition.makeLeader({ leaderEpoch: 5, partitionEpoch: 8, isr: [1, 3], replicas: [1, 3, 4] })).toBe(true);
    expect(partition).toMatchObject({ leaderEpoch: 5, partitionEpoch: 8, isr: [1, 3], replicas: [1, 3, 4] });
    expect(partition.makeFollower({ leaderId: 3, leaderEpoch: 6, partitionEpoch: 9, isr: [4, 3] })).toBe(true);
    expect(partition).toMatchObject({ isLeader: false, leaderId: 3, leaderEpoch: 6, partitionEpoch: 9, isr: [3, 4] });
    expect(partition.makeLeader({ leaderEpoch: 7, partitionEpoch: 10, isr: [1, 3] })).toBe(true);
    expect(partition).toMatchObject({ isLeader: true, leaderId: 1, leaderEpoch: 7 });
  });

  it('a follower refuses Produce and consumer reads with NOT_LEADER_OR_FOLLOWER, after the leader epoch check', () => {
    const partition = followerPartition(openReplicaLog());
    expect(partition.appendRecordsToLeader(recordsBatch(1), 1)).toMatchObject({ errorCode: 6, baseOffset: -1 });
    expect(partition.readRecords({ fetchOffset: 0, maxBytes: 1000, isolationLevel: 0, minOneMessage: true }).errorCode).toBe(6);
    expect(partition.readRecords({ fetchOffset: 0, maxBytes: 1000, isolationLevel: 0, minOneMessage: true, currentLeaderEpoch: 2 }).errorCode).toBe(74);
    expect(partition.readRecords({ fetchOffset: 0, maxBytes: 1000, isolationLevel: 0, minOneMessage: true, currentLeaderEpoch: 4 }).errorCode).toBe(75);
    expect(partition.deleteRecordsOnLeader(-1).errorCode).toBe(6);
    expect(partition.checkEnoughReplicasReachOffset(0)).toEqual({ done: true, errorCode: 6 });
  });
});

describe('Partition as a follower', () => {
  it('appends the leader batches with their offsets and epochs, and its high watermark follows the leader, never backwards', () => {
    const leaderLog = openReplicaLog();
    const leader = leaderPartition(leaderLog, 3);
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    leader.makeLeader({ leaderEpoch: 4 });
    leader.appendRecordsToLeader(recordsBatch(3), 1);
    const followerLog = openReplicaLog();
    const follower = followerPartition(followerLog, 4);
    const appended = follower.appendRecordsAsFollower(leaderBytes(leaderLog, 0));
    expect(appended).toMatchObject({ errorCode: 0, baseOffset: 0, lastOffset: 4, logEndOffset: 5 });
    expect(appended.appendedBytes).toBe(leaderBytes(leaderLog, 0).length);
    expect(batchEpochs(followerLog)).toEqual([3, 4]);
    expect(leaderBytes(followerLog, 0)).toEqual(leaderBytes(leaderLog, 0));
    expect(follower.highWatermark).toBe(0);
    expect(follower.updateFollowerHighWatermark(3)).toBe(true);
    expect(follower.highWatermark).toBe(3);
    expect(follower.updateFollowerHighWatermark(9)).toBe(true);
    expect(follower.highWatermark).toBe(5);
    expect(follower.updateFollowerHighWatermark(2)).toBe(false);
    expect(follower.highWatermark).toBe(5);
  });

  it('refuses batches that do not continue its log end offset (the fetcher must truncate first)', () => {
    const leaderLog = openReplicaLog();
    const leader = leaderPartition(leaderLog);
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    const follower = followerPartition(openReplicaLog());
    expect(follower.appendRecordsAsFollower(leaderBytes(leaderLog, 0)).errorCode).toBe(0);
    expect(follower.appendRecordsAsFollower(leaderBytes(leaderLog, 0))).toMatchObject({ errorCode: 1, logEndOffset: 2 });
    expect(follower.appendRecordsAsFollower(new Uint8Array(0))).toMatchObject({ errorCode: 0, baseOffset: -1, logEndOffset: 2 });
    expect(leader.appendRecordsAsFollower(leaderBytes(leaderLog, 0)).errorCode).toBe(6);
  });

  it('truncateTo drops the divergent tail and the producer state learned from it', () => {
    const leaderLog = openReplicaLog();
    const leader = leaderPartition(leaderLog);
    leader.appendRecordsToLeader(recordsBatch(2, { producerId: 7, producerEpoch: 0, baseSequence: 0 }), 1);
    leader.appendRecordsToLeader(recordsBatch(2, { producerId: 7, producerEpoch: 0, baseSequence: 2 }), 1);
    const followerLog = openReplicaLog();
    const follower = followerPartition(followerLog, 3, true);
    follower.appendRecordsAsFollower(leaderBytes(leaderLog, 0));
    follower.updateFollowerHighWatermark(4);
    follower.truncateTo(2);
    expect(follower.logEndOffset).toBe(2);
    expect(follower.highWatermark).toBe(2);
    // Promoted, the follower expects sequence 2 next: the truncated batch is not a duplicate.
    follower.makeLeader({ leaderEpoch: 4 });
    expect(follower.appendRecordsToLeader(recordsBatch(2, { producerId: 7, producerEpoch: 0, baseSequence: 2 }), 1))
      .toMatchObject({ errorCode: 0, baseOffset: 2, lastOffset: 3 });
    // ...and a retry of the first batch is answered with its original offsets.
    expect(follower.appendRecordsToLeader(recordsBatch(2, { producerId: 7, producerEpoch: 0, baseSequence: 0 }), 1))
      .toMatchObject({ errorCode: 0, baseOffset: 0, lastOffset: 1, appendedBytes: 0 });
  });

  it('truncateFullyAndStartAt empties the log and starts it at the leader log start offset', () => {
    const leaderLog = openReplicaLog();
    leaderPartition(leaderLog).appendRecordsToLeader(recordsBatch(3), 1);
    const followerLog = openReplicaLog();
    const follower = followerPartition(followerLog, 3, true);
    follower.appendRecordsAsFollower(leaderBytes(leaderLog, 0));
    follower.truncateFullyAndStartAt(10);
    expect(follower).toMatchObject({ logStartOffset: 10, logEndOffset: 10, highWatermark: 10 });
  });

  it('updateFollowerLogStartOffset follows the leader log start, never past the high watermark', () => {
    const leaderLog = openReplicaLog();
    const leader = leaderPartition(leaderLog);
    for (let i = 0; i < 4; i++) leader.appendRecordsToLeader(recordsBatch(1), 1);
    const follower = followerPartition(openReplicaLog());
    follower.appendRecordsAsFollower(leaderBytes(leaderLog, 0));
    follower.updateFollowerHighWatermark(2);
    expect(follower.updateFollowerLogStartOffset(3)).toBe(0);
    expect(follower.logStartOffset).toBe(2);
  });
});

describe('ReplicaManager.becomeFollower', () => {
  function setup() {
    const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: LEADER, scheduler: new ManualScheduler() });
    const log = openReplicaLog();
    return { replicaManager, log };
  }

  async function settled<T>(promise: Promise<T>): Promise<{ done: boolean; value?: T }> {
    let state: { done: boolean; value?: T } = { done: false };
    promise.then((value) => (state = { done: true, value }));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    return state;
  }

  it('answers a waiting acks=all produce NOT_LEADER_OR_FOLLOWER when the leader is demoted, and later produces too', async () => {
    const { replicaManager, log } = setup();
    replicaManager.becomeLeader({ topic: 't', partition: 0, log, leaderEpoch: 1, partitionEpoch: 0, replicas: [1, 2], isr: [1, 2] });
    const produce = replicaManager.appendRecords({ requiredAcks: -1, timeoutMs: 30_000, entries: [{ topic: 't', partition: 0, records: recordsBatch(1) }] });
    expect((await settled(produce)).done).toBe(false);
    expect(replicaManager.delayedProduceCount).toBe(1);
    const partition = replicaManager.becomeFollower({
      topic: 't', partition: 0, log, leaderId: 2, leaderEpoch: 2, partitionEpoch: 1, replicas: [1, 2], isr: [1, 2],
    });
    expect(partition).toMatchObject({ isLeader: false, leaderId: 2, leaderEpoch: 2 });
    const answered = await settled(produce);
    expect(answered.done).toBe(true);
    expect(answered.value![0]!.errorCode).toBe(6);
    const [later] = await replicaManager.appendRecords({ requiredAcks: 1, timeoutMs: 1000, entries: [{ topic: 't', partition: 0, records: recordsBatch(1) }] });
    expect(later!.errorCode).toBe(6);
  });

  it('answers a waiting consumer fetch when the leader is demoted, and consumer fetches to a follower NOT_LEADER_OR_FOLLOWER', async () => {
    const { replicaManager, log } = setup();
    replicaManager.becomeLeader({ topic: 't', partition: 0, log, leaderEpoch: 1 });
    const params = {
      maxWaitMs: 10_000, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, minOneMessage: true,
      partitions: [{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20 }],
    };
    const fetch = replicaManager.fetchMessages(params);
    expect((await settled(fetch)).done).toBe(false);
    replicaManager.becomeFollower({ topic: 't', partition: 0, log, leaderId: 2, leaderEpoch: 2, partitionEpoch: 1, replicas: [1, 2], isr: [1, 2] });
    const answered = await settled(fetch);
    expect(answered.value?.[0]?.errorCode).toBe(6);
    expect((await replicaManager.fetchMessages(params))[0]!.errorCode).toBe(6);
  });

  it('ignores a stale becomeFollower and keeps leading', () => {
    const { replicaManager, log } = setup();
    replicaManager.becomeLeader({ topic: 't', partition: 0, log, leaderEpoch: 5, partitionEpoch: 3 });
    const partition = replicaManager.becomeFollower({ topic: 't', partition: 0, log, leaderId: 2, leaderEpoch: 4, partitionEpoch: 9, replicas: [1, 2], isr: [1, 2] });
    expect(partition).toMatchObject({ isLeader: true, leaderEpoch: 5, partitionEpoch: 3 });
  });
});
