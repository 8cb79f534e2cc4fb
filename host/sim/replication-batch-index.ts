/**
 * The simulator's view of one replica's log as a list of batch headers (base offset, last offset,
 * partition leader epoch, CRC, producer id, epoch and base sequence), read from the log itself and kept per log object, extended as the
 * log grows and rebuilt when it shrank or was truncated ({@link invalidateBatchIndex}).
 *
 * The invariants compare replicas batch by batch with it (same base offset, last offset, epoch
 * and CRC = same bytes: the CRC covers everything after it, and the offsets and epoch are
 * compared directly).
 */
import type { PartitionLog } from '../replication/partition-log.js';

/** One batch header. */
export interface BatchEntry {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly epoch: number;
  readonly crc: number;
  /** -1 for a batch of a non-idempotent producer. */
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
}

interface IndexState {
  readonly batches: BatchEntry[];
  /** Offsets at or above this are not indexed yet. */
  scannedTo: number;
  startOffset: number;
}

const READ_CHUNK_BYTES = 256 * 1024;
const indexes = new WeakMap<PartitionLog, IndexState>();
const versions = new WeakMap<PartitionLog, number>();

/** Forget what was read of `log` (after a truncation): its {@link batchIndexVersion} moves. */
export function invalidateBatchIndex(log: PartitionLog): void {
  indexes.delete(log);
  versions.set(log, (versions.get(log) ?? 0) + 1);
}

/** How many times `log` was truncated (what was compared below its old end may have changed). */
export function batchIndexVersion(log: PartitionLog): number {
  return versions.get(log) ?? 0;
}

/** Every batch of `log` from its start to its end, in offset order. */
export function batchesOf(log: PartitionLog): readonly BatchEntry[] {
  let state = indexes.get(log);
  if (state !== undefined && (state.scannedTo > log.logEndOffset || state.startOffset !== log.logStartOffset)) {
    invalidateBatchIndex(log);
    state = undefined;
  }
  if (state === undefined) {
    state = { batches: [], scannedTo: log.logStartOffset, startOffset: log.logStartOffset };
    indexes.set(log, state);
  }
  while (state.scannedTo < log.logEndOffset) {
    const read = log.read(state.scannedTo, READ_CHUNK_BYTES, log.logEndOffset, true);
    if (read.errorCode !== 0 || read.records.length === 0) throw new Error(`batch index: cannot read ${log.topic}-${log.partition} at ${state.scannedTo} (error ${read.errorCode})`);
    const records = read.records;
    let at = 0;
    while (at + 61 <= records.length) {
      const size = 12 + records.readInt32BE(at + 8);
      if (at + size > records.length) break;
      const baseOffset = Number(records.readBigInt64BE(at));
      const entry: BatchEntry = {
        baseOffset, lastOffset: baseOffset + records.readInt32BE(at + 23), epoch: records.readInt32BE(at + 12), crc: records.readUInt32BE(at + 17),
        producerId: Number(records.readBigInt64BE(at + 43)), producerEpoch: records.readInt16BE(at + 51), baseSequence: records.readInt32BE(at + 53),
      };
      if (entry.lastOffset >= state.scannedTo) state.batches.push(entry);
      state.scannedTo = Math.max(state.scannedTo, entry.lastOffset + 1);
      at += size;
    }
  }
  return state.batches;
}

/** The batch holding `offset`, or undefined. */
export function batchAt(log: PartitionLog, offset: number): BatchEntry | undefined {
  const batches = batchesOf(log);
  let low = 0;
  let high = batches.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const batch = batches[middle]!;
    if (batch.lastOffset < offset) low = middle + 1;
    else if (batch.baseOffset > offset) high = middle - 1;
    else return batch;
  }
  return undefined;
}
