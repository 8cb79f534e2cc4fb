/**
 * Kafka's consumer rule for read_committed, applied to a leader Partition as the transaction
 * property tests read it: Fetch READ_COMMITTED up to the last stable offset, drop control batches
 * and the batches of transactions listed as aborted (from their first offset to their ABORT
 * marker). Shared by test/replication/transactions-property and
 * test/coordinator/transactions-coordinator-property.
 */
import { expect } from 'vitest';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { ControlRecordType, iterateBatches, readBatchHeader, readRecords } from '../../host/record/records.js';
import { IsolationLevel, type Partition } from '../../host/replication/partition.js';

/** One record a read_committed consumer returns. */
export interface CommittedRecord {
  readonly offset: number;
  readonly value: string;
}

/**
 * The records a read_committed consumer of `partition` reads from offset `from` to the LSO as it
 * stands at the call (`lso`), Fetch by Fetch of at most `maxBytes` (whole first batch, KIP-74).
 * Asserts every read answers NONE with that LSO and no batch past it.
 */
export function readCommitted(partition: Partition<UnifiedLog>, from = 0, maxBytes = 1 << 20): { values: CommittedRecord[]; lso: number } {
  const lso = partition.lastStableOffset;
  const values: CommittedRecord[] = [];
  let position = from;
  while (position < lso) {
    const read = partition.readRecords({ fetchOffset: position, maxBytes, isolationLevel: IsolationLevel.READ_COMMITTED, minOneMessage: true });
    expect(read.errorCode).toBe(0);
    expect(read.lastStableOffset).toBe(lso);
    if (read.records.length === 0) break;
    const pending = [...(read.abortedTransactions ?? [])].sort((a, b) => a.firstOffset - b.firstOffset);
    const abortedProducers = new Set<number>();
    for (const bytes of iterateBatches(read.records)) {
      const header = readBatchHeader(bytes);
      expect(header.lastOffset).toBeLessThan(lso);
      while (pending.length > 0 && pending[0]!.firstOffset <= header.lastOffset) abortedProducers.add(pending.shift()!.producerId);
      const records = readRecords(bytes);
      if (header.isControl) {
        if (records[0]!.key!.readInt16BE(2) === ControlRecordType.ABORT) abortedProducers.delete(header.producerId);
      } else if (!(header.isTransactional && abortedProducers.has(header.producerId))) {
        for (const record of records) {
          if (record.offset >= position) values.push({ offset: record.offset, value: Buffer.from(record.value!).toString() });
        }
      }
      position = Math.max(position, header.lastOffset + 1);
    }
  }
  return { values, lso };
}
