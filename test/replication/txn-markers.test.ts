import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import { defaultLogConfig } from '../../host/log/log-config.js';
import { ProducerStateManager } from '../../host/log/producer-state-manager.js';
import { createStorageContext } from '../../host/log/storage-context.js';
import { decodeAbortedTxns } from '../../host/log/transaction-index.js';
import { UnifiedLog } from '../../host/log/unified-log.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { iterateBatches, readBatchHeader } from '../../host/record/records.js';
import { ManualScheduler } from '../../host/replication/delay-scheduler.js';
import { ReplicaManager } from '../../host/replication/replica-manager.js';
import type { TxnMarkerEntry } from '../../host/replication/txn-markers.js';
import { readFileSync } from 'node:fs';

const roots: string[] = [];
const logs: UnifiedLog[] = [];

afterEach(() => {
  for (const log of logs.splice(0)) log.close();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function newRoot(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'txn-markers-'));
  roots.push(root);
  return root;
}

/** A broker's partition `t-0` in `root`: a UnifiedLog with its producer state, led by broker 0. */
function leader(root: string, segmentBytes = defaultLogConfig.segmentBytes): { rm: ReplicaManager<UnifiedLog>; log: UnifiedLog } {
  const dir = path.join(root, 't-0');
  const log = UnifiedLog.open({ dir, topic: 't', partition: 0, config: { ...defaultLogConfig, segmentBytes }, context: createStorageContext() });
  logs.push(log);
  const rm = new ReplicaManager<UnifiedLog>({ localBrokerId: 0, scheduler: new ManualScheduler() });
  rm.becomeLeader({ topic: 't', partition: 0, log, leaderEpoch: 0, producerState: new ProducerStateManager({ dir, disk: new NodeDisk() }) });
  return { rm, log };
}

const sequences = new Map<number, number>();

function txnBatch(producerId: number, values: string[], options: { epoch?: number; transactional?: boolean } = {}): Buffer {
  const baseSequence = sequences.get(producerId) ?? 0;
  sequences.set(producerId, baseSequence + values.length);
  return buildRecordBatch({
    records: values.map((value) => ({ value, timestamp: 1_700_000_000_000 })),
    producerId, producerEpoch: options.epoch ?? 0, baseSequence, isTransactional: options.transactional ?? true,
  });
}

async function produce(rm: ReplicaManager<UnifiedLog>, records: Buffer): Promise<number> {
  const [result] = await rm.appendRecords({ requiredAcks: -1, timeoutMs: 1000, entries: [{ topic: 't', partition: 0, records }] });
  return result!.errorCode;
}

function marker(producerId: number, commit: boolean, options: { epoch?: number; coordinatorEpoch?: number; partitions?: number[] } = {}): TxnMarkerEntry {
  return {
    producerId, producerEpoch: options.epoch ?? 0, transactionResult: commit, coordinatorEpoch: options.coordinatorEpoch ?? 0,
    topics: [{ name: 't', partitionIndexes: options.partitions ?? [0] }],
  };
}

async function markerErrors(rm: ReplicaManager<UnifiedLog>, ...markers: TxnMarkerEntry[]): Promise<number[]> {
  const results = await rm.appendTxnMarkers(markers);
  return results.flatMap((r) => r.topics.flatMap((t) => t.partitions.map((p) => p.errorCode)));
}

async function fetchCommitted(rm: ReplicaManager<UnifiedLog>, fetchOffset = 0) {
  const [result] = await rm.fetchMessages({
    maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 1, minOneMessage: true,
    partitions: [{ topic: 't', partition: 0, fetchOffset, partitionMaxBytes: 1 << 20 }],
  });
  const batches = [...iterateBatches(result!.records)].map((bytes) => readBatchHeader(bytes));
  return { ...result!, batches };
}

describe('transaction markers on a leader partition', () => {
  it('holds read_committed readers at the first offset of an open transaction until its COMMIT', async () => {
    sequences.clear();
    const { rm } = leader(newRoot());
    expect(await produce(rm, txnBatch(-1, ['plain']))).toBe(0);
    expect(await produce(rm, txnBatch(7, ['a', 'b']))).toBe(0); // offsets 1-2
    expect(await produce(rm, txnBatch(-1, ['after']))).toBe(0); // offset 3
    const partition = rm.getPartition('t', 0)!;
    expect(partition.highWatermark).toBe(4);
    expect(partition.lastStableOffset).toBe(1);
    const open = await fetchCommitted(rm);
    expect(open.lastStableOffset).toBe(1);
    expect(open.batches.map((b) => b.baseOffset)).toEqual([0]);
    expect(await markerErrors(rm, marker(7, true))).toEqual([0]);
    expect(partition.lastStableOffset).toBe(5);
    const committed = await fetchCommitted(rm);
    expect(committed.batches.map((b) => [b.baseOffset, b.isControl])).toEqual([[0, false], [1, false], [3, false], [4, true]]);
    expect(committed.abortedTransactions).toEqual([]);
  });

  it('lists an aborted transaction for read_committed fetches and writes it to the segment .txnindex', async () => {
    sequences.clear();
    const root = newRoot();
    const { rm } = leader(root);
    await produce(rm, txnBatch(7, ['a']));      // 0
    await produce(rm, txnBatch(8, ['x']));      // 1 (another open txn)
    await produce(rm, txnBatch(7, ['b']));      // 2
    expect(await markerErrors(rm, marker(7, false))).toEqual([0]); // ABORT at 3
    expect(rm.getPartition('t', 0)!.lastStableOffset).toBe(1);
    expect(await markerErrors(rm, marker(8, true))).toEqual([0]);  // COMMIT at 4
    const read = await fetchCommitted(rm);
    expect(read.lastStableOffset).toBe(5);
    expect(read.abortedTransactions).toEqual([{ producerId: 7, firstOffset: 0 }]);
    const index = decodeAbortedTxns(readFileSync(path.join(root, 't-0', `${'0'.padStart(20, '0')}.txnindex`)));
    // The LSO after the ABORT marker was producer 8's first offset.
    expect(index).toEqual([{ producerId: 7, firstOffset: 0, lastOffset: 3, lastStableOffset: 1 }]);
    // A read past the aborted range does not list it.
    expect((await fetchCommitted(rm, 4)).abortedTransactions).toEqual([]);
  });

  it('fences markers with an older producer epoch (47) or coordinator epoch (52)', async () => {
    sequences.clear();
    const { rm } = leader(newRoot());
    await produce(rm, txnBatch(7, ['a']));
    expect(await markerErrors(rm, marker(7, false, { epoch: 1, coordinatorEpoch: 5 }))).toEqual([0]);
    expect(await markerErrors(rm, marker(7, true, { epoch: 0, coordinatorEpoch: 5 }))).toEqual([47]);
    expect(await markerErrors(rm, marker(7, true, { epoch: 1, coordinatorEpoch: 4 }))).toEqual([52]);
    // The fenced producer's epoch-0 writes are refused; the new epoch starts at sequence 0.
    expect(await produce(rm, txnBatch(7, ['late']))).toBe(47);
    sequences.set(7, 0);
    expect(await produce(rm, txnBatch(7, ['new'], { epoch: 1 }))).toBe(0);
    expect(rm.getPartition('t', 0)!.lastStableOffset).toBe(2);
  });

  it('answers INVALID_REQUEST (42) for a marker with a negative or unsafe producer id and writes nothing (found by the fuzzer)', async () => {
    const { rm, log } = leader(newRoot());
    const end = log.logEndOffset;
    expect(await markerErrors(rm, marker(-2, true), marker(-Number.MAX_SAFE_INTEGER, false, { partitions: [0, 1] }), marker(2 ** 56, true))).toEqual([42, 42, 42, 42]);
    expect(log.logEndOffset).toBe(end);
  });

  it('refuses a plain write of a producer inside its open transaction with INVALID_TXN_STATE (48)', async () => {
    sequences.clear();
    const { rm } = leader(newRoot());
    await produce(rm, txnBatch(7, ['a']));
    expect(await produce(rm, txnBatch(7, ['plain'], { transactional: false }))).toBe(48);
    await markerErrors(rm, marker(7, true));
    sequences.set(7, 1);
    expect(await produce(rm, txnBatch(7, ['plain'], { transactional: false }))).toBe(0);
  });

  it('answers NOT_LEADER_OR_FOLLOWER on a follower and UNKNOWN_TOPIC_OR_PARTITION for a partition it does not have', async () => {
    const root = newRoot();
    const dir = path.join(root, 't-0');
    const log = UnifiedLog.open({ dir, topic: 't', partition: 0, config: { ...defaultLogConfig }, context: createStorageContext() });
    logs.push(log);
    const rm = new ReplicaManager<UnifiedLog>({ localBrokerId: 0, scheduler: new ManualScheduler() });
    rm.becomeFollower({ topic: 't', partition: 0, log, leaderEpoch: 0, leaderId: 1, replicas: [0, 1], isr: [0, 1] });
    expect(await markerErrors(rm, marker(7, true, { partitions: [0, 3] }))).toEqual([6, 3]);
    expect(log.logEndOffset).toBe(0);
  });

  it.each([
    ['keeps the LSO and the aborted transactions across a restart without a clean shutdown', []],
    ['rebuilds the .txnindex and the LSO from the log when the snapshots and indexes are lost', ['.txnindex', '.snapshot']],
    ['rebuilds a lost .txnindex past the newest snapshot and keeps open transactions from it', ['.txnindex:last']],
  ])('%s', async (_name, lost) => {
    sequences.clear();
    const root = newRoot();
    const first = leader(root, 300);
    for (let i = 0; i < 6; i++) await produce(first.rm, txnBatch(7, [`a${i}`]));
    await markerErrors(first.rm, marker(7, false));
    await produce(first.rm, txnBatch(9, ['open']));
    for (let i = 0; i < 4; i++) await produce(first.rm, txnBatch(-1, [`plain${i}`]));
    const before = first.rm.getPartition('t', 0)!;
    const lso = before.lastStableOffset;
    const aborted = (await fetchCommitted(first.rm)).abortedTransactions;
    expect(first.log.numberOfSegments).toBeGreaterThan(1);
    // Simulated SIGKILL: no flush, no clean-shutdown snapshot; then the files named lost.
    first.log.closeWithoutFlush();
    logs.splice(logs.indexOf(first.log), 1);
    const names = readdirSync(path.join(root, 't-0')).sort();
    const snapshots = names.filter((name) => name.endsWith('.snapshot'));
    for (const name of names) {
      const newest = snapshots[snapshots.length - 1]!;
      const gone = lost.some((suffix) => suffix === '.txnindex:last'
        ? name.endsWith('.txnindex') && name.slice(0, 20) >= newest.slice(0, 20)
        : name.endsWith(suffix));
      if (gone) rmSync(path.join(root, 't-0', name));
    }
    const second = leader(root, 300);
    second.log.updateHighWatermark(second.log.logEndOffset);
    const after = second.rm.getPartition('t', 0)!;
    expect(after.lastStableOffset).toBe(lso);
    expect((await fetchCommitted(second.rm)).abortedTransactions).toEqual(aborted);
  });
});
