import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { NodeDisk } from '../../host/io/disk.js';
import { LogCleaner } from '../../host/log/log-cleaner.js';
import { ProducerStateManager } from '../../host/log/producer-state-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { buildControlBatch, buildRecordBatch } from '../../host/record/batch-builder.js';
import { ControlRecordType, iterateBatches, readBatch, readBatchHeader } from '../../host/record/records.js';
import { IsolationLevel, Partition } from '../../host/replication/partition.js';
import { openLog, readAllBatches, removeTempDirs } from '../log/log-test-helpers.js';

afterEach(removeTempDirs);

function partitionOver(log: UnifiedLog): Partition<UnifiedLog> {
  return new Partition<UnifiedLog>({
    topic: log.topic, partition: log.partition, log, localBrokerId: 0, leaderEpoch: 0,
    producerState: new ProducerStateManager({ dir: log.dir, disk: new NodeDisk() }),
  });
}

/** read_committed through the partition, skipping aborted batches and markers as a consumer does. */
function committedValues(partition: Partition<UnifiedLog>): string[] {
  const abortedProducers = new Set<number>();
  const values: string[] = [];
  for (let offset = partition.logStartOffset; offset < partition.lastStableOffset;) {
    const read = partition.readRecords({ fetchOffset: offset, maxBytes: 1 << 20, isolationLevel: IsolationLevel.READ_COMMITTED, minOneMessage: true });
    const aborted = [...(read.abortedTransactions ?? [])];
    for (const bytes of iterateBatches(read.records)) {
      const header = readBatchHeader(bytes);
      offset = header.lastOffset + 1;
      while (aborted.length > 0 && aborted[0]!.firstOffset <= header.lastOffset) abortedProducers.add(aborted.shift()!.producerId);
      const { records } = readBatch(bytes);
      if (header.isControl) {
        if (records[0]!.key!.readInt16BE(2) === ControlRecordType.ABORT) abortedProducers.delete(header.producerId);
        continue;
      }
      if (header.isTransactional && abortedProducers.has(header.producerId)) continue;
      for (const record of records) values.push(`${record.key!.toString()}=${record.value!.toString()}`);
    }
  }
  return values;
}

/** The aborted transactions a read_committed fetch from the log start lists. */
function listedAborted(partition: Partition<UnifiedLog>): { producerId: number; firstOffset: number }[] {
  const read = partition.readRecords({ fetchOffset: partition.logStartOffset, maxBytes: 1 << 20, isolationLevel: IsolationLevel.READ_COMMITTED, minOneMessage: true });
  return (read.abortedTransactions ?? []).map(({ producerId, firstOffset }) => ({ producerId, firstOffset }));
}

describe('LogCleaner with transactions', () => {
  it('removes aborted transactions\' batches, keeps markers and committed data, and never shadows an older value with a transactional one', () => {
    const clock = new ManualClock(1_000_000);
    const { log, context } = openLog({ clock, config: { cleanupPolicy: ['compact'], segmentBytes: 300, deleteRetentionMs: 1000 } });
    const partition = partitionOver(log);
    const append = (records: Buffer, origin: 'client' | 'coordinator' = 'client'): void => {
      expect(partition.appendRecordsToLeader(records, -1, origin).errorCode).toBe(0);
    };
    const txn = (producerId: number, baseSequence: number, key: string, value: string): Buffer =>
      buildRecordBatch({ records: [{ key, value, timestamp: clock.nowMs() }], producerId, producerEpoch: 0, baseSequence, isTransactional: true });
    const end = (producerId: number, commit: boolean): Buffer =>
      buildControlBatch({ type: commit ? 1 : 0, producerId, producerEpoch: 0, coordinatorEpoch: 0, timestamp: clock.nowMs() });
    append(buildRecordBatch({ records: [{ key: 'a', value: 'plain-1', timestamp: clock.nowMs() }] }));
    append(txn(7, 0, 'a', 'aborted-1'));
    append(txn(8, 0, 'b', 'committed-1'));
    append(txn(7, 1, 'b', 'aborted-2'));
    append(end(7, false), 'coordinator');
    append(end(8, true), 'coordinator');
    // The same producer's next transaction commits: its batches stay.
    append(txn(7, 2, 'c', 'committed-2'));
    append(end(7, true), 'coordinator');
    for (let i = 0; i < 6; i++) append(buildRecordBatch({ records: [{ key: `k${i}`, value: `v${i}`, timestamp: clock.nowMs() }] }));
    expect(log.numberOfSegments).toBeGreaterThan(2);
    const before = committedValues(partition);
    expect(before.slice(0, 3)).toEqual(['a=plain-1', 'b=committed-1', 'c=committed-2']);
    clock.advance(10);
    const stats = new LogCleaner(context).clean(log, clock.nowMs());
    expect(stats).not.toBeNull();
    expect(stats!.recordsRemoved).toBeGreaterThanOrEqual(2);
    const stored = readAllBatches(log).map((bytes) => readBatchHeader(bytes));
    expect(stored.filter((h) => h.producerId === 7 && !h.isControl).map((h) => h.baseOffset)).toEqual([6]);
    expect(stored.filter((h) => h.isControl).map((h) => h.producerId)).toEqual([7, 8, 7]);
    expect(committedValues(partition)).toEqual(before);
    // After a restart (producer state and .txnindex reloaded over the cleaned segments) too.
    log.close();
    const reopened = openLog({ clock, dir: log.dir, config: { cleanupPolicy: ['compact'], segmentBytes: 300 } }).log;
    const again = partitionOver(reopened);
    expect(committedValues(again)).toEqual(before);
    expect(again.lastStableOffset).toBe(reopened.logEndOffset);
    reopened.close();
    expect(path.basename(log.dir)).toBe('topic-0');
  });

  it('removes a marker delete.retention.ms after no data of its transaction remains, with its .txnindex entry; later transactions of the producer stay visible', () => {
    const clock = new ManualClock(1_000_000);
    const config = { cleanupPolicy: ['compact'] as ('compact' | 'delete')[], segmentBytes: 300, deleteRetentionMs: 1000 };
    const { log, context } = openLog({ clock, config });
    const partition = partitionOver(log);
    const append = (records: Buffer, origin: 'client' | 'coordinator' = 'client'): void => {
      expect(partition.appendRecordsToLeader(records, -1, origin).errorCode).toBe(0);
    };
    const txn = (baseSequence: number, key: string, value: string): Buffer =>
      buildRecordBatch({ records: [{ key, value, timestamp: clock.nowMs() }], producerId: 7, producerEpoch: 0, baseSequence, isTransactional: true });
    const end = (commit: boolean): Buffer => buildControlBatch({ type: commit ? 1 : 0, producerId: 7, producerEpoch: 0, coordinatorEpoch: 0, timestamp: clock.nowMs() });
    const filler = (from: number): void => {
      for (let i = from; i < from + 6; i++) append(buildRecordBatch({ records: [{ key: `k${i}`, value: `v${i}`, timestamp: clock.nowMs() }] }));
    };
    append(txn(0, 'a', 'aborted'));
    append(end(false), 'coordinator');
    append(txn(1, 'b', 'committed'));
    append(end(true), 'coordinator');
    filler(0);
    const markers = (): { offset: number; horizon: boolean }[] => readAllBatches(log).map((bytes) => readBatchHeader(bytes))
      .filter((h) => h.isControl).map((h) => ({ offset: h.baseOffset, horizon: h.hasDeleteHorizon }));
    const before = committedValues(partition);
    expect(before.slice(0, 1)).toEqual(['b=committed']);
    // First pass: the aborted batch goes; its marker stays with a delete horizon, the COMMIT (its data kept) as it is.
    const cleaner = new LogCleaner(context);
    expect(cleaner.clean(log, clock.nowMs())!.markersRemoved).toBe(0);
    expect(markers()).toEqual([{ offset: 1, horizon: true }, { offset: 3, horizon: false }]);
    expect(listedAborted(partition)).toEqual([{ producerId: 7, firstOffset: 0 }]);
    expect(committedValues(partition)).toEqual(before);
    // Before the horizon a pass keeps it; after, the marker and the .txnindex entry go.
    clock.advance(999);
    filler(10);
    expect(cleaner.clean(log, clock.nowMs())!.markersRemoved).toBe(0);
    clock.advance(1);
    filler(20);
    expect(cleaner.clean(log, clock.nowMs())!.markersRemoved).toBe(1);
    expect(markers()).toEqual([{ offset: 3, horizon: false }]);
    expect(listedAborted(partition)).toEqual([]);
    const after = committedValues(partition);
    expect(after.slice(0, before.length)).toEqual(before);
    // After a restart too (the .txnindex file was rewritten).
    log.close();
    const reopened = openLog({ clock, dir: log.dir, config }).log;
    const again = partitionOver(reopened);
    expect(listedAborted(again)).toEqual([]);
    expect(committedValues(again)).toEqual(after);
    expect(again.lastStableOffset).toBe(reopened.logEndOffset);
    reopened.close();
  });
});
