/**
 * Host-side reads of RecordBatch v2 header fields (once per batch, never per record), for the
 * storage code that walks batches already validated by the WebAssembly core. The layout (offsets,
 * diagram) is host/wasm/batch-layout.ts, the host's one copy.
 */
import { BatchLayout, RECORD_BATCH_OVERHEAD } from '../wasm/batch-layout.js';

const { BASE_OFFSET, BATCH_LENGTH, LOG_OVERHEAD, ATTRIBUTES, LAST_OFFSET_DELTA, MAX_TIMESTAMP } = BatchLayout;

/** The header fields the log needs, read from stored (already validated) bytes. */
export interface StoredBatchHeader {
  baseOffset: number;
  lastOffset: number;
  /** 12 + batchLength, bytes. */
  sizeInBytes: number;
  maxTimestamp: number;
  attributes: number;
}

/** Reads the header of the batch starting at `position` in `bytes` (needs 61 bytes there). */
export function readStoredBatchHeader(bytes: Uint8Array, position: number): StoredBatchHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset + position, RECORD_BATCH_OVERHEAD);
  const baseOffset = Number(view.getBigInt64(BASE_OFFSET));
  return {
    baseOffset,
    lastOffset: baseOffset + view.getInt32(LAST_OFFSET_DELTA),
    sizeInBytes: LOG_OVERHEAD + view.getInt32(BATCH_LENGTH),
    maxTimestamp: Number(view.getBigInt64(MAX_TIMESTAMP)),
    attributes: view.getInt16(ATTRIBUTES),
  };
}

/** Size (12 + batchLength) of the batch at `position`, or -1 when fewer than 12 bytes remain. */
export function storedBatchSize(bytes: Uint8Array, position: number): number {
  if (position + LOG_OVERHEAD > bytes.length) return -1;
  const p = position + BATCH_LENGTH;
  const batchLength = ((bytes[p]! << 24) | (bytes[p + 1]! << 16) | (bytes[p + 2]! << 8) | bytes[p + 3]!) | 0;
  return LOG_OVERHEAD + batchLength;
}
