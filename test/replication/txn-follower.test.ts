import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import { ProducerStateManager } from '../../host/log/producer-state-manager.js';
import { decodeAbortedTxns, txnIndexFileName } from '../../host/log/transaction-index.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { buildControlBatch, buildRecordBatch } from '../../host/record/batch-builder.js';
import { IsolationLevel, Partition } from '../../host/replication/partition.js';
import { openLog, removeTempDirs } from '../log/log-test-helpers.js';

afterEach(removeTempDirs);

function replica(localBrokerId: number, leaderId: number): { partition: Partition<UnifiedLog>; log: UnifiedLog } {
  const { log } = openLog();
  const partition = new Partition<UnifiedLog>({
    topic: log.topic, partition: log.partition, log, localBrokerId, leaderId, leaderEpoch: 0, replicas: [0, 1], isr: [0, 1],
    producerState: new ProducerStateManager({ dir: log.dir, disk: new NodeDisk() }),
  });
  return { partition, log };
}

describe('transaction markers on a follower', () => {
  it('copies the producer state and the .txnindex, so a new leader keeps the LSO and the aborted transactions', () => {
    const leader = replica(0, 0);
    const follower = replica(1, 0);
    const txn = (producerId: number, baseSequence: number, value: string): Buffer =>
      buildRecordBatch({ records: [{ value }], producerId, producerEpoch: 0, baseSequence, isTransactional: true });
    const marker = (producerId: number, commit: boolean): Buffer =>
      buildControlBatch({ type: commit ? 1 : 0, producerId, producerEpoch: 0, coordinatorEpoch: 3 });
    expect(leader.partition.appendRecordsToLeader(txn(7, 0, 'a'), 1).errorCode).toBe(0);  // 0
    expect(leader.partition.appendRecordsToLeader(txn(8, 0, 'b'), 1).errorCode).toBe(0);  // 1, stays open
    expect(leader.partition.appendRecordsToLeader(txn(7, 1, 'c'), 1).errorCode).toBe(0);  // 2
    expect(leader.partition.appendRecordsToLeader(marker(7, false), 1, 'coordinator').errorCode).toBe(0); // 3
    const copied = leader.log.read(0, 1 << 20, leader.log.logEndOffset, true).records;
    expect(follower.partition.appendRecordsAsFollower(copied).errorCode).toBe(0);
    const file = path.join(follower.log.dir, txnIndexFileName(0));
    expect(existsSync(file)).toBe(true);
    expect(decodeAbortedTxns(readFileSync(file))).toEqual([{ producerId: 7, firstOffset: 0, lastOffset: 3, lastStableOffset: 1 }]);
    follower.partition.updateFollowerHighWatermark(4);
    // The follower is elected: its LSO stops at producer 8's open transaction; the abort is listed.
    expect(follower.partition.makeLeader({ leaderEpoch: 1, isr: [1] })).toBe(true);
    expect(follower.partition.lastStableOffset).toBe(1);
    const read = follower.partition.readRecords({ fetchOffset: 0, maxBytes: 1 << 20, isolationLevel: IsolationLevel.READ_COMMITTED, minOneMessage: true });
    expect(read.abortedTransactions).toEqual([{ producerId: 7, firstOffset: 0 }]);
    // A marker older than producer 7's last coordinator epoch is fenced on the new leader too.
    const stale = buildControlBatch({ type: 1, producerId: 7, producerEpoch: 0, coordinatorEpoch: 2 });
    expect(follower.partition.appendRecordsToLeader(stale, 1, 'coordinator').errorCode).toBe(52);
    expect(follower.partition.appendRecordsToLeader(marker(8, true), 1, 'coordinator').errorCode).toBe(0);
    expect(follower.partition.lastStableOffset).toBe(follower.log.logEndOffset);
  });
});
