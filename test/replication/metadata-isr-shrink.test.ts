/**
 * Regression (found by the replication simulator, seed 5038 before its dead-life fix showed it as
 * a late ack): an ISR shrink that arrives as metadata (the controller fenced a follower) moves the
 * leader's high watermark inside becomeLeader, and the acks=all produces it completes must answer
 * then, not when their timeout expires.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { ReplicaManager } from '../../host/replication/replica-manager.js';
import { closeReplicaLogs, openReplicaLog, recordsBatch, removeTempDirs } from './replication-test-helpers.js';

afterEach(() => {
  closeReplicaLogs();
  removeTempDirs();
});

describe('an ISR shrink from the metadata', () => {
  it('answers the acks=all produces whose records the smaller ISR already holds at once', async () => {
    const time = new ManualTime({ startMs: 1_000_000, monotonicStartMs: 0 });
    const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: 1, scheduler: time });
    const log = openReplicaLog({ minInsyncReplicas: 1 });
    const state = { topic: 't', partition: 0, log, leaderEpoch: 1, replicas: [1, 2, 3] };
    replicaManager.becomeLeader({ ...state, partitionEpoch: 0, isr: [1, 2, 3] });
    let answer: number | undefined;
    void replicaManager.appendRecords({ requiredAcks: -1, timeoutMs: 60_000, entries: [{ topic: 't', partition: 0, records: recordsBatch(2) }] })
      .then(([result]) => { answer = result!.errorCode; });
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(answer).toBeUndefined();
    // The controller fenced brokers 2 and 3: the leader alone is the ISR, and the HW is its log end.
    replicaManager.becomeLeader({ ...state, partitionEpoch: 1, isr: [1] });
    expect(replicaManager.getPartition('t', 0)!.highWatermark).toBe(2);
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(answer).toBe(0);
  });
});
