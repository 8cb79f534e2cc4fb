import { ErrorCode } from '../protocol/generated/error-codes.js';
import { buildRecordBatch } from '../record/batch-builder.js';
import { ControlRecordType, CorruptRecordError, readBatch, readRecords } from '../record/records.js';
import { coordinatorRecordsOf } from './offsets-batch.js';
import type { OffsetsTopic, OffsetsTopicRecord } from './offsets-topic.js';

interface PendingAppend {
  partition: number;
  batch: Uint8Array;
  resolve: (errorCode: number) => void;
}

/**
 * An OffsetsTopic held in memory, for tests and the simulator: batches are decoded (CRC checked)
 * on append, so a malformed batch is caught where it was written. Knobs: `failAppendsWith`
 * answers every append with an error code; `deferAppends` makes appends return promises that
 * resolve (and become readable) only on {@link completePendingAppends}, like an append waiting
 * for replication.
 */
export class InMemoryOffsetsTopic implements OffsetsTopic {
  /** When set, appends fail with this Kafka error code and store nothing. */
  failAppendsWith: number | null = null;
  /** When true, appends complete only on completePendingAppends(). */
  deferAppends = false;
  private readonly batchesByPartition = new Map<number, Uint8Array[]>();
  private readonly pending: PendingAppend[] = [];

  append(partition: number, batch: Uint8Array): number | Promise<number> {
    if (this.failAppendsWith !== null) return this.failAppendsWith;
    try {
      readRecords(batch);
    } catch (error) {
      if (error instanceof CorruptRecordError) return ErrorCode.CORRUPT_MESSAGE;
      throw error;
    }
    const copy = Uint8Array.from(batch);
    if (!this.deferAppends) {
      this.store(partition, copy);
      return ErrorCode.NONE;
    }
    return new Promise((resolve) => this.pending.push({ partition, batch: copy, resolve }));
  }

  /** Completes deferred appends in order with `errorCode` (stored only when NONE). Returns how many. */
  completePendingAppends(errorCode: number = ErrorCode.NONE): number {
    const completed = this.pending.splice(0);
    for (const append of completed) {
      if (errorCode === ErrorCode.NONE) this.store(append.partition, append.batch);
      append.resolve(errorCode);
    }
    return completed.length;
  }

  get pendingAppendCount(): number {
    return this.pending.length;
  }

  *readAll(partition: number): Iterable<OffsetsTopicRecord> {
    for (const batch of this.batchesByPartition.get(partition) ?? []) {
      const { header, records } = readBatch(batch);
      yield* coordinatorRecordsOf(header, records);
    }
  }

  /** Appends a transaction marker (control batch) of `producerId`, as a partition leader does for WriteTxnMarkers. */
  appendMarker(partition: number, producerId: number, producerEpoch: number, commit: boolean, coordinatorEpoch = 0): void {
    const key = Buffer.alloc(4);
    key.writeInt16BE(0, 0);
    key.writeInt16BE(commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, 2);
    const value = Buffer.alloc(6);
    value.writeInt16BE(0, 0);
    value.writeInt32BE(coordinatorEpoch, 2);
    this.store(partition, buildRecordBatch({
      records: [{ key, value }], isControl: true, isTransactional: true, producerId, producerEpoch, baseSequence: -1,
    }));
  }

  /** The stored batches of a partition, oldest first. */
  batches(partition: number): readonly Uint8Array[] {
    return this.batchesByPartition.get(partition) ?? [];
  }

  /** Partitions that have at least one batch. */
  partitions(): number[] {
    return [...this.batchesByPartition.keys()].sort((a, b) => a - b);
  }

  private store(partition: number, batch: Uint8Array): void {
    let batches = this.batchesByPartition.get(partition);
    if (batches === undefined) {
      batches = [];
      this.batchesByPartition.set(partition, batches);
    }
    batches.push(batch);
  }
}
