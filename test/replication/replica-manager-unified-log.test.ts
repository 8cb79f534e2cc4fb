import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import { defaultLogConfig } from '../../host/log/log-config.js';
import { ProducerStateManager } from '../../host/log/producer-state-manager.js';
import { ReadBufferPool } from '../../host/log/read-buffer-pool.js';
import { createStorageContext } from '../../host/log/storage-context.js';
import { UnifiedLog } from '../../host/log/unified-log.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { readRecords } from '../../host/record/records.js';
import { ManualScheduler } from '../../host/replication/delay-scheduler.js';
import { ReplicaManager } from '../../host/replication/replica-manager.js';

const dirs: string[] = [];
const logs: UnifiedLog[] = [];

afterEach(() => {
  for (const log of logs.splice(0)) log.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openLog(topic: string, partition: number): UnifiedLog {
  const root = mkdtempSync(path.join(tmpdir(), 'replica-manager-'));
  dirs.push(root);
  const log = UnifiedLog.open({
    dir: path.join(root, `${topic}-${partition}`),
    topic,
    partition,
    config: { ...defaultLogConfig },
    context: createStorageContext(),
  });
  logs.push(log);
  return log;
}

function batchOf(values: string[]): Buffer {
  return buildRecordBatch({ records: values.map((value) => ({ value, timestamp: 1_700_000_000_000 })) });
}

describe('ReplicaManager over a real UnifiedLog', () => {
  it('reads fetches into its buffer pool and gives back a read that goes to the purgatory', async () => {
    const scheduler = new ManualScheduler();
    const readBuffers = new ReadBufferPool();
    const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: 0, scheduler, readBuffers });
    replicaManager.becomeLeader({ topic: 'big', partition: 0, log: openLog('big', 0), leaderEpoch: 0 });
    const values = Array.from({ length: 40 }, (_, i) => String(i).padEnd(2000, '.'));
    expect((await replicaManager.appendRecords({ requiredAcks: 1, timeoutMs: 1000, entries: [{ topic: 'big', partition: 0, records: batchOf(values) }] }))[0]!.errorCode).toBe(0);
    const fetch = (minBytes: number) => replicaManager.fetchMessages({
      maxWaitMs: 500,
      minBytes,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      minOneMessage: true,
      partitions: [{ topic: 'big', partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20 }],
    });
    const [now] = await fetch(1);
    expect(readBuffers.isLeased(now!.records)).toBe(true);
    const direct = replicaManager.getPartition('big', 0)!.log.read(0, 1 << 20, 40, true).records;
    expect(now!.records.equals(direct)).toBe(true);
    readBuffers.release(now!.records);
    // Not enough bytes yet: the first read is given back while the fetch waits.
    const waiting = fetch(1 << 20);
    expect(replicaManager.delayedFetchCount).toBe(1);
    expect(readBuffers.leasedBuffers).toBe(0);
    scheduler.advance(500);
    const [late] = await waiting;
    expect(late!.records.equals(direct)).toBe(true);
    expect(readBuffers.leasedBuffers).toBe(1);
    expect(readBuffers.reused).toBeGreaterThan(0);
  });

  it('produces, moves the high watermark and fetches the records back', async () => {
    const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: 0, scheduler: new ManualScheduler() });
    replicaManager.becomeLeader({ topic: 'orders', partition: 0, log: openLog('orders', 0), leaderEpoch: 2 });
    const produced = await replicaManager.appendRecords({
      requiredAcks: -1,
      timeoutMs: 1000,
      entries: [
        { topic: 'orders', partition: 0, records: batchOf(['a', 'b']) },
        { topic: 'orders', partition: 0, records: batchOf(['c']) },
      ],
    });
    expect(produced.map((r) => [r.errorCode, r.baseOffset, r.lastOffset])).toEqual([
      [0, 0, 1],
      [0, 2, 2],
    ]);
    const [fetched] = await replicaManager.fetchMessages({
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      isolationLevel: 1,
      minOneMessage: true,
      partitions: [{ topic: 'orders', partition: 0, fetchOffset: 1, partitionMaxBytes: 1 << 20 }],
    });
    expect(fetched).toMatchObject({ errorCode: 0, highWatermark: 3, lastStableOffset: 3, logStartOffset: 0 });
    // Whole batches: the first one starts before the fetch offset, as in Kafka.
    const values: string[] = [];
    let position = 0;
    while (position < fetched!.records.length) {
      const size = 12 + fetched!.records.readInt32BE(position + 8);
      const batch = fetched!.records.subarray(position, position + size);
      expect(batch.readInt32BE(12)).toBe(2); // partitionLeaderEpoch stamped by the leader
      for (const record of readRecords(batch)) values.push(Buffer.from(record.value!).toString());
      position += size;
    }
    expect(values).toEqual(['a', 'b', 'c']);
    // Handlers reach the full log API through the partition (ListOffsets by timestamp).
    expect(replicaManager.getPartition('orders', 0)!.log.fetchOffsetByTimestamp(0)).toMatchObject({ offset: 0 });
  });

  it('fails only the partition whose batch has a bad CRC', async () => {
    const replicaManager = new ReplicaManager({ localBrokerId: 0, scheduler: new ManualScheduler() });
    replicaManager.becomeLeader({ topic: 't', partition: 0, log: openLog('t', 0), leaderEpoch: 0 });
    replicaManager.becomeLeader({ topic: 't', partition: 1, log: openLog('t', 1), leaderEpoch: 0 });
    const corrupt = batchOf(['x']);
    corrupt[corrupt.length - 1] ^= 0xff;
    const results = await replicaManager.appendRecords({
      requiredAcks: 1,
      timeoutMs: 0,
      entries: [
        { topic: 't', partition: 0, records: corrupt },
        { topic: 't', partition: 1, records: batchOf(['y']) },
      ],
    });
    expect(results.map((r) => r.errorCode)).toEqual([2, 0]);
    expect(replicaManager.getPartition('t', 0)!.logEndOffset).toBe(0);
  });

  it('wakes a long poll on the real append path', async () => {
    const replicaManager = new ReplicaManager({ localBrokerId: 0, scheduler: new ManualScheduler() });
    replicaManager.becomeLeader({ topic: 't', partition: 0, log: openLog('t', 0), leaderEpoch: 0 });
    let done = false;
    const pending = replicaManager
      .fetchMessages({
        maxWaitMs: 10_000,
        minBytes: 1,
        maxBytes: 1 << 20,
        isolationLevel: 0,
        minOneMessage: true,
        partitions: [{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20 }],
      })
      .then((results) => {
        done = true;
        return results;
      });
    await Promise.resolve();
    expect(done).toBe(false);
    await replicaManager.appendRecords({ requiredAcks: 0, timeoutMs: 0, entries: [{ topic: 't', partition: 0, records: batchOf(['z']) }] });
    const [result] = await pending;
    expect(result!.highWatermark).toBe(1);
    expect(result!.records.length).toBeGreaterThan(0);
  });
});

describe('idempotent produce through Partition-held producer state over a real UnifiedLog', () => {
  function idempotentBatch(baseSequence: number, values: string[], producerEpoch = 0): Buffer {
    return buildRecordBatch({
      producerId: 4000,
      producerEpoch,
      baseSequence,
      records: values.map((value) => ({ value, timestamp: 1_700_000_000_000 })),
    });
  }

  function open(dir: string, segmentBytes = defaultLogConfig.segmentBytes, retentionBytes = defaultLogConfig.retentionBytes): UnifiedLog {
    const config = { ...defaultLogConfig, segmentBytes, retentionBytes };
    const log = UnifiedLog.open({ dir, topic: 'idem', partition: 0, config, context: createStorageContext() });
    logs.push(log);
    return log;
  }

  function leader(dir: string, log: UnifiedLog, isMetadataCurrent?: () => boolean): ReplicaManager<UnifiedLog> {
    const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: 0, scheduler: new ManualScheduler(), ...(isMetadataCurrent ? { isMetadataCurrent } : {}) });
    replicaManager.becomeLeader({ topic: 'idem', partition: 0, log, leaderEpoch: 0, producerState: new ProducerStateManager({ dir, disk: new NodeDisk() }) });
    return replicaManager;
  }

  async function produce(replicaManager: ReplicaManager<UnifiedLog>, records: Buffer) {
    const [result] = await replicaManager.appendRecords({ requiredAcks: -1, timeoutMs: 1000, entries: [{ topic: 'idem', partition: 0, records }] });
    return result!;
  }

  function tempPartitionDir(): string {
    const root = mkdtempSync(path.join(tmpdir(), 'idempotent-'));
    dirs.push(root);
    return path.join(root, 'idem-0');
  }

  it('acknowledges a retried batch with its original offsets and refuses sequence gaps and old epochs', async () => {
    const dir = tempPartitionDir();
    const log = open(dir);
    const replicaManager = leader(dir, log);
    expect(await produce(replicaManager, idempotentBatch(0, ['a', 'b']))).toMatchObject({ errorCode: 0, baseOffset: 0, lastOffset: 1 });
    expect(await produce(replicaManager, idempotentBatch(2, ['c']))).toMatchObject({ errorCode: 0, baseOffset: 2 });
    expect(await produce(replicaManager, idempotentBatch(0, ['a', 'b']))).toMatchObject({ errorCode: 0, baseOffset: 0, lastOffset: 1, appendedBytes: 0 });
    expect(log.logEndOffset).toBe(3);
    expect((await produce(replicaManager, idempotentBatch(9, ['x']))).errorCode).toBe(45);
    expect((await produce(replicaManager, idempotentBatch(0, ['new epoch'], 1))).errorCode).toBe(0);
    expect((await produce(replicaManager, idempotentBatch(3, ['old epoch'], 0))).errorCode).toBe(47);
    expect(log.logEndOffset).toBe(4);
  });

  it('answers a sequence gap NOT_LEADER_OR_FOLLOWER while its metadata is not current (a leader cut off from the quorum: issue 11), 45 once it is', async () => {
    const dir = tempPartitionDir();
    const log = open(dir);
    let current = true;
    const replicaManager = leader(dir, log, () => current);
    expect(await produce(replicaManager, idempotentBatch(0, ['a']))).toMatchObject({ errorCode: 0, baseOffset: 0 });
    current = false;
    // The producer had sequences 1..4 acknowledged by the leader elected while this one was cut off.
    const stale = await produce(replicaManager, idempotentBatch(5, ['f']));
    expect(stale).toMatchObject({ errorCode: 6, baseOffset: -1 });
    expect(stale.errorMessage).toContain('metadata is not current');
    // ...and a newer epoch that does not start at 0 (the producer bumped it elsewhere) alike.
    expect((await produce(replicaManager, idempotentBatch(3, ['g'], 1))).errorCode).toBe(6);
    // Everything else is unchanged: the next sequence, a retried duplicate.
    expect(await produce(replicaManager, idempotentBatch(1, ['b']))).toMatchObject({ errorCode: 0, baseOffset: 1 });
    expect(await produce(replicaManager, idempotentBatch(0, ['a']))).toMatchObject({ errorCode: 0, baseOffset: 0, appendedBytes: 0 });
    current = true;
    expect((await produce(replicaManager, idempotentBatch(5, ['f']))).errorCode).toBe(45);
    expect(log.logEndOffset).toBe(2);
  });

  it('keeps deduplicating after an unclean restart (log tail replay) and after a clean one (snapshot)', async () => {
    const dir = tempPartitionDir();
    let log = open(dir);
    let replicaManager = leader(dir, log);
    await produce(replicaManager, idempotentBatch(0, ['a']));
    await produce(replicaManager, idempotentBatch(1, ['b', 'c']));
    log.close();

    // Unclean: no snapshot was written; recovery replays batch headers from the log.
    log = open(dir);
    replicaManager = leader(dir, log);
    expect(await produce(replicaManager, idempotentBatch(1, ['b', 'c']))).toMatchObject({ errorCode: 0, baseOffset: 1, appendedBytes: 0 });
    expect((await produce(replicaManager, idempotentBatch(3, ['d']))).baseOffset).toBe(3);
    replicaManager.shutdown();
    log.close();
    expect(readdirSync(dir).filter((name) => name.endsWith('.snapshot'))).toEqual(['00000000000000000004.snapshot']);

    log = open(dir);
    replicaManager = leader(dir, log);
    expect(await produce(replicaManager, idempotentBatch(3, ['d']))).toMatchObject({ errorCode: 0, baseOffset: 3, appendedBytes: 0 });
    expect(log.logEndOffset).toBe(4);
  });

  it('forgets a producer idle for longer than producer.id.expiration.ms (then any next sequence is accepted, KIP-360)', async () => {
    const dir = tempPartitionDir();
    const log = open(dir);
    const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: 0, scheduler: new ManualScheduler() });
    const producerState = new ProducerStateManager({ dir, disk: new NodeDisk(), producerIdExpirationMs: 60_000 });
    replicaManager.becomeLeader({ topic: 'idem', partition: 0, log, leaderEpoch: 0, producerState });
    await produce(replicaManager, idempotentBatch(0, ['a']));
    const lastBatchMs = 1_700_000_000_000;
    expect(replicaManager.getPartition('idem', 0)!.removeExpiredProducers(lastBatchMs + 59_999)).toBe(0);
    expect((await produce(replicaManager, idempotentBatch(5, ['gap']))).errorCode).toBe(45);
    expect(replicaManager.getPartition('idem', 0)!.removeExpiredProducers(lastBatchMs + 60_000)).toBe(1);
    expect(producerState.producerCount).toBe(0);
    expect((await produce(replicaManager, idempotentBatch(5, ['gap']))).errorCode).toBe(0);
  });

  it('forgets producers whose batches retention deleted once the log start offset moved, and their snapshots below it', async () => {
    const dir = tempPartitionDir();
    const log = open(dir, 200, 400);
    const replicaManager = leader(dir, log);
    expect((await produce(replicaManager, idempotentBatch(0, ['x'.repeat(60)]))).errorCode).toBe(0);
    for (let i = 0; i < 8; i++) {
      const plain = buildRecordBatch({ records: [{ value: 'y'.repeat(60), timestamp: 1_700_000_000_000 }] });
      expect((await produce(replicaManager, plain)).errorCode).toBe(0);
    }
    const partition = replicaManager.getPartition('idem', 0)!;
    expect(partition.onLogStartOffsetMaybeIncremented()).toBe(false);
    // LogManager.tick's retention, which knows nothing of producer state.
    expect(log.maintain(Date.now())).toBeGreaterThan(0);
    expect(log.logStartOffset).toBeGreaterThan(0);
    expect((await produce(replicaManager, idempotentBatch(5, ['gap']))).errorCode).toBe(45);
    const snapshotOffsets = (): number[] =>
      readdirSync(dir).filter((name) => name.endsWith('.snapshot')).map((name) => Number(name.slice(0, 20)));
    expect(snapshotOffsets().some((offset) => offset < partition.logStartOffset)).toBe(true);
    expect(partition.onLogStartOffsetMaybeIncremented()).toBe(true);
    expect(partition.onLogStartOffsetMaybeIncremented()).toBe(false);
    expect((await produce(replicaManager, idempotentBatch(5, ['gap']))).errorCode).toBe(0); // KIP-360: no state, any sequence
    expect(snapshotOffsets().every((offset) => offset >= partition.logStartOffset)).toBe(true);
  });

  it('forgets producers whose batches DeleteRecords removed', async () => {
    const dir = tempPartitionDir();
    const log = open(dir);
    const replicaManager = leader(dir, log);
    await produce(replicaManager, idempotentBatch(0, ['a']));
    await produce(replicaManager, buildRecordBatch({ records: [{ value: 'b', timestamp: 1_700_000_000_000 }] }));
    expect(replicaManager.deleteRecords([{ topic: 'idem', partition: 0, offset: 1 }])).toEqual([
      { topic: 'idem', partition: 0, errorCode: 0, lowWatermark: 1 },
    ]);
    expect((await produce(replicaManager, idempotentBatch(5, ['gap']))).errorCode).toBe(0); // KIP-360: no state, any sequence
    expect(replicaManager.getPartition('idem', 0)!.onLogStartOffsetMaybeIncremented()).toBe(false);
  });

  it('snapshots producer state when an append rolls the segment', async () => {
    const dir = tempPartitionDir();
    const log = open(dir, 200);
    const replicaManager = leader(dir, log);
    for (let sequence = 0; sequence < 6; sequence++) {
      expect((await produce(replicaManager, idempotentBatch(sequence, ['x'.repeat(60)]))).errorCode).toBe(0);
    }
    expect(log.numberOfSegments).toBeGreaterThan(1);
    expect(readdirSync(dir).some((name) => name.endsWith('.snapshot'))).toBe(true);
  });
});
