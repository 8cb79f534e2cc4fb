import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import { LEADER_EPOCH_CHECKPOINT_FILE, LeaderEpochFileCache } from '../../host/log/leader-epoch-file-cache.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { ManualScheduler } from '../../host/replication/delay-scheduler.js';
import { Partition } from '../../host/replication/partition.js';
import { ReplicaManager } from '../../host/replication/replica-manager.js';
import { closeReplicaLogs, leaderBytes, openReplicaLog, recordsBatch, removeTempDirs } from './replication-test-helpers.js';

afterEach(() => {
  closeReplicaLogs();
  removeTempDirs();
});

const disk = new NodeDisk();

/** The checkpoint file after the log's flush (assignments are written there, truncations at once). */
function checkpointText(log: UnifiedLog): string {
  log.flush();
  return fs.readFileSync(path.join(log.dir, LEADER_EPOCH_CHECKPOINT_FILE), 'utf8');
}

function partitionOver(log: UnifiedLog, options: { leaderId?: number; leaderEpoch: number; replicas?: number[] }): Partition<UnifiedLog> {
  return new Partition({
    topic: 't', partition: 0, log, localBrokerId: 1, leaderEpoch: options.leaderEpoch,
    leaderId: options.leaderId ?? 1, replicas: options.replicas ?? [1, 2], isr: [1],
    leaderEpochCache: LeaderEpochFileCache.open(disk, log.dir),
  });
}

/** Reopens `log`'s directory as a new log (the old one closed cleanly). */
function reopen(log: UnifiedLog): UnifiedLog {
  log.close();
  return openReplicaLog({ dir: log.dir });
}

describe('leader-epoch-checkpoint of a data partition', () => {
  it('records each leader epoch at the log end where it started, and answers endOffsetForEpoch as Kafka', () => {
    const log = openReplicaLog();
    const leader = partitionOver(log, { leaderEpoch: 3 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    leader.makeLeader({ leaderEpoch: 5 });
    leader.appendRecordsToLeader(recordsBatch(3), 1);
    expect(checkpointText(log)).toBe('0\n2\n3 0\n5 2\n');
    expect(leader.endOffsetForEpoch(3)).toEqual({ leaderEpoch: 3, endOffset: 2 });
    expect(leader.endOffsetForEpoch(4)).toEqual({ leaderEpoch: 3, endOffset: 2 });
    expect(leader.endOffsetForEpoch(5)).toEqual({ leaderEpoch: 5, endOffset: 5 });
    expect(leader.endOffsetForEpoch(2)).toEqual({ leaderEpoch: 2, endOffset: 0 });
    expect(leader.endOffsetForEpoch(6)).toBeNull();
    expect(leader.latestEpoch).toBe(5);
  });

  it('survives a reopen, and a follower truncation removes the epochs past the new log end', () => {
    const leaderLog = openReplicaLog();
    const leader = partitionOver(leaderLog, { leaderEpoch: 1 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    leader.makeLeader({ leaderEpoch: 2 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    leader.makeLeader({ leaderEpoch: 4 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);

    let followerLog = openReplicaLog();
    let follower = partitionOver(followerLog, { leaderId: 2, leaderEpoch: 4 });
    follower.appendRecordsAsFollower(leaderBytes(leaderLog, 0));
    expect(checkpointText(followerLog)).toBe('0\n3\n1 0\n2 2\n4 4\n');

    followerLog = reopen(followerLog);
    follower = partitionOver(followerLog, { leaderId: 2, leaderEpoch: 4 });
    expect(follower.endOffsetForEpoch(2)).toEqual({ leaderEpoch: 2, endOffset: 4 });
    follower.truncateTo(3);
    expect(follower.logEndOffset).toBe(2);
    expect(checkpointText(followerLog)).toBe('0\n1\n1 0\n');
    expect(follower.endOffsetForEpoch(1)).toEqual({ leaderEpoch: 1, endOffset: 2 });
    // Kafka: an epoch above every known one is unknown (UNDEFINED_EPOCH_OFFSET).
    expect(follower.endOffsetForEpoch(4)).toBeNull();

    followerLog = reopen(followerLog);
    follower = partitionOver(followerLog, { leaderId: 2, leaderEpoch: 4 });
    expect(follower.latestEpoch).toBe(1);
    follower.truncateFullyAndStartAt(6);
    expect(checkpointText(followerLog)).toBe('0\n0\n');
  });

  it('a truncation at the log end still drops an epoch assigned there by a leadership that appended nothing (else every Fetch diverges again)', () => {
    const log = openReplicaLog();
    const partition = partitionOver(log, { leaderEpoch: 1 });
    partition.appendRecordsToLeader(recordsBatch(2), 1);
    partition.makeLeader({ leaderEpoch: 2 });
    expect(checkpointText(log)).toBe('0\n2\n1 0\n2 2\n');
    partition.makeFollower({ leaderId: 2, leaderEpoch: 3 });
    // The new leader never had epoch 2: its DivergingEpoch answer is epoch 1 ending at 2, our log end.
    partition.truncateTo(2);
    expect(partition.logEndOffset).toBe(2);
    expect(partition.latestEpoch).toBe(1);
    expect(checkpointText(log)).toBe('0\n1\n1 0\n');
  });

  it('keeps its epochs when a restarted broker replays the leaderships it once held (found by the Jepsen-style checker)', () => {
    // Epochs 1 (offsets 0-1), 2 (2-3) and 4 (4-5), written as a follower, then a clean restart.
    const leaderLog = openReplicaLog();
    const leader = partitionOver(leaderLog, { leaderEpoch: 1 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    leader.makeLeader({ leaderEpoch: 2 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    leader.makeLeader({ leaderEpoch: 4 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    let followerLog = openReplicaLog();
    partitionOver(followerLog, { leaderId: 2, leaderEpoch: 4 }).appendRecordsAsFollower(leaderBytes(leaderLog, 0));
    followerLog = reopen(followerLog);
    // At start-up the metadata log is replayed change by change: this broker led epoch 2 once,
    // then follows epoch 4 and 5. The old leadership must not rewrite the checkpoint.
    const replayed = partitionOver(followerLog, { leaderEpoch: 1, leaderId: 2 });
    replayed.makeLeader({ leaderEpoch: 2 });
    replayed.makeFollower({ leaderId: 2, leaderEpoch: 4 });
    replayed.makeFollower({ leaderId: 2, leaderEpoch: 5 });
    expect(checkpointText(followerLog)).toBe('0\n3\n1 0\n2 2\n4 4\n');
    expect(replayed.endOffsetForEpoch(2)).toEqual({ leaderEpoch: 2, endOffset: 4 });
    expect(replayed.endOffsetForEpoch(3)).toEqual({ leaderEpoch: 2, endOffset: 4 });
  });

  it('is repaired at open: epochs past the log end dropped, missing tail epochs read back from the batches', () => {
    const leaderLog = openReplicaLog();
    const leader = partitionOver(leaderLog, { leaderEpoch: 1 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    leader.makeLeader({ leaderEpoch: 3 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);

    // A crash after an epoch was assigned and before its batch was written: the cache runs ahead.
    let log = reopen(leaderLog);
    fs.writeFileSync(path.join(log.dir, LEADER_EPOCH_CHECKPOINT_FILE), '0\n3\n1 0\n3 2\n7 4\n');
    let partition = partitionOver(log, { leaderEpoch: 3 });
    expect(checkpointText(log)).toBe('0\n2\n1 0\n3 2\n');

    // A crash after a follower's write and before its epoch assignment: the tail is read again.
    log = reopen(log);
    fs.writeFileSync(path.join(log.dir, LEADER_EPOCH_CHECKPOINT_FILE), '0\n1\n1 0\n');
    partition = partitionOver(log, { leaderEpoch: 3 });
    expect(checkpointText(log)).toBe('0\n2\n1 0\n3 2\n');

    // No checkpoint at all (a crash before the log's first flush took the deferred assignments):
    // a log of one segment is read again from its start.
    log = reopen(log);
    fs.rmSync(path.join(log.dir, LEADER_EPOCH_CHECKPOINT_FILE));
    partition = partitionOver(log, { leaderEpoch: 3 });
    expect(checkpointText(log)).toBe('0\n2\n1 0\n3 2\n');
    expect(partition.endOffsetForEpoch(1)).toEqual({ leaderEpoch: 1, endOffset: 2 });
    expect(partition.endOffsetForEpoch(3)).toEqual({ leaderEpoch: 3, endOffset: 4 });
  });

  it('without a checkpoint, a log of several segments (written before epochs were kept) claims the last batch\'s epoch from the log start', () => {
    const log = openReplicaLog({ segmentBytes: 100 });
    const leader = partitionOver(log, { leaderEpoch: 1 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    leader.makeLeader({ leaderEpoch: 3 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    expect(log.numberOfSegments).toBeGreaterThan(1);
    const reopened = reopen(log);
    fs.rmSync(path.join(reopened.dir, LEADER_EPOCH_CHECKPOINT_FILE));
    const partition = partitionOver(reopened, { leaderEpoch: 3 });
    // A follower of an older epoch truncates to the start: safe.
    expect(checkpointText(reopened)).toBe('0\n1\n3 0\n');
    expect(partition.endOffsetForEpoch(1)).toEqual({ leaderEpoch: 1, endOffset: 0 });
  });

  it('drops the epochs below a log start offset moved by DeleteRecords, keeping the one that covers it', () => {
    const log = openReplicaLog();
    const leader = partitionOver(log, { leaderEpoch: 1, replicas: [1] });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    leader.makeLeader({ leaderEpoch: 2 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    leader.makeLeader({ leaderEpoch: 3 });
    leader.appendRecordsToLeader(recordsBatch(2), 1);
    expect(leader.deleteRecordsOnLeader(3).errorCode).toBe(0);
    expect(checkpointText(log)).toBe('0\n2\n2 3\n3 4\n');
  });

  it('is repaired at open when DeleteRecords moved the epochs up and the log start offset was lost in a crash (sim seed 2553)', () => {
    const log = openReplicaLog();
    const leader = partitionOver(log, { leaderEpoch: 0, replicas: [1] });
    leader.appendRecordsToLeader(recordsBatch(3), 1);
    leader.makeLeader({ leaderEpoch: 4 });
    leader.appendRecordsToLeader(recordsBatch(3), 1);
    expect(leader.deleteRecordsOnLeader(5).errorCode).toBe(0);
    expect(checkpointText(log)).toBe('0\n1\n4 5\n');

    // The crash loses the log start offset (checkpointed later): the log starts at 0 again, with
    // epoch 0 in [0..2] and epoch 4 in [3..5], while the cache says epoch 4 starts at 5.
    const reopened = reopen(log);
    expect(reopened.logStartOffset).toBe(0);
    const partition = partitionOver(reopened, { leaderEpoch: 6, replicas: [1] });
    expect(checkpointText(reopened)).toBe('0\n3\n0 0\n4 3\n6 6\n');
    // A follower whose epoch-0 batch ends at offset 3 is told where it diverged (was 0 → 5: none).
    expect(partition.endOffsetForEpoch(0)).toEqual({ leaderEpoch: 0, endOffset: 3 });
  });

  it('is repaired at open by claiming the earliest epoch from the log start when the head contradicts the cache', () => {
    const log = openReplicaLog();
    const leader = partitionOver(log, { leaderEpoch: 5, replicas: [1] });
    leader.appendRecordsToLeader(recordsBatch(3), 1);
    leader.appendRecordsToLeader(recordsBatch(3), 1);
    const reopened = reopen(log);
    fs.writeFileSync(path.join(reopened.dir, LEADER_EPOCH_CHECKPOINT_FILE), '0\n1\n2 4\n');
    partitionOver(reopened, { leaderEpoch: 5, replicas: [1] });
    // The head's epoch 5 is above the cache's earliest 2: the head is not trusted, epoch 2 is
    // claimed from the log start, and the tail repair then reads epoch 5 back from offset 0.
    expect(checkpointText(reopened)).toBe('0\n1\n5 0\n');
  });

  it('an empty single-replica log writes no checkpoint until its log is flushed after its first append', () => {
    const log = openReplicaLog();
    const leader = partitionOver(log, { leaderEpoch: 0, replicas: [1] });
    expect(fs.existsSync(path.join(log.dir, LEADER_EPOCH_CHECKPOINT_FILE))).toBe(false);
    expect(leader.lastOffsetForLeaderEpoch(-1, 0)).toEqual({ errorCode: 0, leaderEpoch: -1, endOffset: -1 });
    leader.appendRecordsToLeader(recordsBatch(1), 1);
    expect(fs.existsSync(path.join(log.dir, LEADER_EPOCH_CHECKPOINT_FILE))).toBe(false);
    expect(checkpointText(log)).toBe('0\n1\n0 0\n');
  });
});

describe('OffsetForLeaderEpoch on the ReplicaManager', () => {
  it('answers the leader end offsets with Kafka errors for epochs, followers and unknown partitions', () => {
    const replicaManager = new ReplicaManager<UnifiedLog>({
      localBrokerId: 1, scheduler: new ManualScheduler(), openLeaderEpochCache: (log) => LeaderEpochFileCache.open(disk, log.dir),
    });
    const leaderLog = openReplicaLog();
    const leader = replicaManager.becomeLeader({ topic: 't', partition: 0, log: leaderLog, leaderEpoch: 2, replicas: [1, 2] });
    leader.appendRecordsToLeader(recordsBatch(3), 1);
    leader.makeLeader({ leaderEpoch: 4 });
    leader.appendRecordsToLeader(recordsBatch(1), 1);
    const ask = (currentLeaderEpoch: number, leaderEpoch: number, partition = 0) =>
      replicaManager.lastOffsetForLeaderEpoch([{ topic: 't', partition, currentLeaderEpoch, leaderEpoch }])[0];
    expect(ask(4, 2)).toEqual({ errorCode: 0, leaderEpoch: 2, endOffset: 3 });
    expect(ask(-1, 3)).toEqual({ errorCode: 0, leaderEpoch: 2, endOffset: 3 });
    expect(ask(4, 4)).toEqual({ errorCode: 0, leaderEpoch: 4, endOffset: 4 });
    expect(ask(4, 9)).toEqual({ errorCode: 0, leaderEpoch: -1, endOffset: -1 });
    expect(ask(3, 2)).toMatchObject({ errorCode: 74 });
    expect(ask(5, 2)).toMatchObject({ errorCode: 75 });
    expect(ask(4, 2, 1)).toMatchObject({ errorCode: 3 });
    const follower = openReplicaLog();
    follower.close();
    const followerLog = openReplicaLog({ dir: path.join(path.dirname(path.dirname(follower.dir)), 'f', 't-0') });
    replicaManager.becomeFollower({ topic: 't', partition: 0, log: followerLog, leaderId: 2, leaderEpoch: 5, partitionEpoch: 0, replicas: [1, 2], isr: [1, 2] });
    expect(ask(5, 2)).toMatchObject({ errorCode: 6, leaderEpoch: -1, endOffset: -1 });
    expect(ask(4, 2)).toMatchObject({ errorCode: 74 });
  });
});
