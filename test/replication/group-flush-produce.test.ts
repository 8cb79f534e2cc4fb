import { describe, expect, it } from 'vitest';
import { FaultDisk } from '../../host/io/fault-disk.js';
import { GroupFlusher } from '../../host/log/group-flush.js';
import { defaultLogConfig } from '../../host/log/log-config.js';
import { createStorageContext } from '../../host/log/storage-context.js';
import { UnifiedLog } from '../../host/log/unified-log.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { ManualScheduler } from '../../host/replication/delay-scheduler.js';
import { ReplicaManager, type ProducePartitionResult } from '../../host/replication/replica-manager.js';

function setup(seed: number) {
  const disk = new FaultDisk(seed);
  let fsyncs = 0;
  let failing: string | null = null;
  disk.faultRule = (op) => {
    if (op.kind !== 'fsync' || !op.path.endsWith('.log')) return undefined;
    if (failing !== null) return { code: failing };
    fsyncs++;
    return undefined;
  };
  const flusher = new GroupFlusher(() => {});
  const context = createStorageContext({ disk });
  const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: 0, scheduler: new ManualScheduler() });
  for (const partition of [0, 1]) {
    const log = UnifiedLog.open({
      dir: `/d/t-${partition}`, topic: 't', partition, config: { ...defaultLogConfig, flushMessages: 1 }, context, groupFlusher: flusher,
    });
    replicaManager.becomeLeader({ topic: 't', partition, log, leaderEpoch: 0 });
  }
  return { replicaManager, flusher, fsyncs: () => fsyncs, failFsync: (code: string) => { failing = code; } };
}

const batch = (value: string) => buildRecordBatch({ records: [{ value, timestamp: 1_700_000_000_000 }] });
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Produce to flush.messages=1 partitions (group flush)', () => {
  it('answers acks=1 and acks=all produces only after the one fsync per log of their turn', async () => {
    const { replicaManager, flusher, fsyncs } = setup(1);
    const answered: ProducePartitionResult[][] = [];
    for (const acks of [1, -1, 1, -1]) {
      void replicaManager.appendRecords({
        requiredAcks: acks, timeoutMs: 30_000, entries: [{ topic: 't', partition: 0, records: batch(`a${acks}`) }, { topic: 't', partition: 1, records: batch('b') }],
      }).then((r) => answered.push(r));
    }
    await settle();
    expect(answered).toHaveLength(0);
    expect(fsyncs()).toBe(0);
    expect(replicaManager.getPartition('t', 0)!.highWatermark).toBe(0);
    flusher.flushAll();
    expect(fsyncs()).toBe(2);
    await settle();
    expect(answered).toHaveLength(4);
    for (const results of answered) for (const r of results) expect(r.errorCode).toBe(0);
    expect(answered.map((r) => r[0]!.baseOffset).sort()).toEqual([0, 1, 2, 3]);
    expect(replicaManager.getPartition('t', 0)!.highWatermark).toBe(4);
  });

  it('answers KAFKA_STORAGE_ERROR for exactly the produces of a turn whose fsync failed', async () => {
    const { replicaManager, flusher, failFsync } = setup(2);
    const first = replicaManager.appendRecords({ requiredAcks: 1, timeoutMs: 30_000, entries: [{ topic: 't', partition: 0, records: batch('ok') }] });
    flusher.flushAll();
    expect((await first)[0]!.errorCode).toBe(0);
    const turn = [1, -1].map((acks) => replicaManager.appendRecords({
      requiredAcks: acks, timeoutMs: 30_000, entries: [{ topic: 't', partition: 0, records: batch('lost') }],
    }));
    failFsync('EIO');
    flusher.flushAll();
    for (const answer of turn) expect((await answer)[0]!).toMatchObject({ errorCode: 56, baseOffset: -1 });
    expect(replicaManager.getPartition('t', 0)!.log.isOffline).toBe(true);
    expect(replicaManager.getPartition('t', 0)!.highWatermark).toBe(1);
    const after = await replicaManager.appendRecords({ requiredAcks: 1, timeoutMs: 30_000, entries: [{ topic: 't', partition: 0, records: batch('x') }] });
    expect(after[0]!.errorCode).toBe(56);
  });
});
