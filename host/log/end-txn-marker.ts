/**
 * Kafka's EndTransactionMarker as stored: the one record of a control batch (attributes bit 5)
 * that ends a transaction. Layout (Kafka's ControlRecordType / EndTransactionMarker, version 0):
 * ```
 *   key   = version int16 (0) | type int16 (0 ABORT, 1 COMMIT)
 *   value = version int16 (0) | coordinator_epoch int32
 * ```
 * The producer state reads it from control batches (leader appends of markers, follower appends,
 * the log replay of recovery) to end the producer's open transaction; everything else treats
 * control batches as opaque bytes.
 */
import { CompressionError } from '../record/compression.js';
import { ControlRecordType, CorruptRecordError, readRecords } from '../record/records.js';
import { BatchLayout, RECORD_BATCH_OVERHEAD } from '../wasm/batch-layout.js';

export { ControlRecordType } from '../record/records.js';

/** What a COMMIT/ABORT control record says. */
export interface EndTxnMarker {
  /** ControlRecordType: 0 ABORT, 1 COMMIT. */
  controlType: number;
  /** The transaction coordinator's epoch (the `__transaction_state` partition's leader epoch). */
  coordinatorEpoch: number;
}

/**
 * The marker in the control batch stored at `bytes[position .. position + size)`, or null when
 * the batch holds no record (a marker removed by the cleaner) or its first record is not a
 * COMMIT/ABORT marker (Kafka ignores such control records for transactions too). Never throws
 * for malformed bytes (null). Control batches are never compressed (the leader refuses client
 * control batches; markers are built by the broker).
 */
export function readEndTxnMarker(bytes: Uint8Array, position: number, size: number): EndTxnMarker | null {
  if (size <= RECORD_BATCH_OVERHEAD || position + size > bytes.length) return null;
  const batch = bytes.subarray(position, position + size);
  let records;
  try {
    records = readRecords(batch, { verifyCrc: false });
  } catch (error) {
    if (error instanceof CorruptRecordError || error instanceof CompressionError) return null;
    throw error;
  }
  const record = records[0];
  if (record === undefined || record.key === null || record.key.length < 4) return null;
  const controlType = record.key.readInt16BE(2);
  if (controlType !== ControlRecordType.ABORT && controlType !== ControlRecordType.COMMIT) return null;
  const value = record.value;
  // Kafka reads the coordinator epoch from any value version >= 0 (fields it does not know follow).
  const coordinatorEpoch = value !== null && value.length >= 6 ? value.readInt32BE(2) : -1;
  return { controlType, coordinatorEpoch };
}

/**
 * The batch size (12 + batchLength) of the stored batch at `position`; the caller guarantees the
 * 12-byte log overhead is there.
 */
export function storedBatchSizeAt(bytes: Uint8Array, position: number): number {
  const at = position + BatchLayout.BATCH_LENGTH;
  return BatchLayout.LOG_OVERHEAD + (((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) | 0);
}

/**
 * Attaches the marker of every control batch among `batches` (positions and sizes inside
 * `records`, as the core's BatchSummary gives them) for the producer state; other batches are
 * returned as they are. Allocates only when there is a control batch.
 */
export function withEndTxnMarkers<B extends { position: number; sizeInBytes: number; isControl: boolean }>(
  records: Uint8Array,
  batches: readonly B[],
): readonly (B & { endTxnMarker?: EndTxnMarker | null })[] {
  if (!batches.some((batch) => batch.isControl)) return batches;
  return batches.map((batch) => batch.isControl
    ? { ...batch, endTxnMarker: readEndTxnMarker(records, batch.position, batch.sizeInBytes) }
    : batch);
}
