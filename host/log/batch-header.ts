/**
 * Host-side reads of RecordBatch v2 header fields (once per batch, never per record), for the
 * storage code that walks batches already validated by the WebAssembly core.
 *
 * Layout (Kafka's DefaultRecordBatch, magic 2; big-endian):
 * ```
 *  0 baseOffset int64 | 8 batchLength int32 | 12 partitionLeaderEpoch int32 | 16 magic int8
 * 17 crc uint32 | 21 attributes int16 | 23 lastOffsetDelta int32 | 27 baseTimestamp int64
 * 35 maxTimestamp int64 | 43 producerId int64 | 51 producerEpoch int16 | 53 baseSequence int32
 * 57 recordCount int32 | 61 records...
 * ```
 * batchLength counts the bytes after itself, so a batch occupies 12 + batchLength bytes.
 */
export const BASE_OFFSET_OFFSET = 0;
export const BATCH_LENGTH_OFFSET = BASE_OFFSET_OFFSET + 8;
export const PARTITION_LEADER_EPOCH_OFFSET = BATCH_LENGTH_OFFSET + 4;
export const MAGIC_OFFSET = PARTITION_LEADER_EPOCH_OFFSET + 4;
export const CRC_OFFSET = MAGIC_OFFSET + 1;
export const ATTRIBUTES_OFFSET = CRC_OFFSET + 4;
export const LAST_OFFSET_DELTA_OFFSET = ATTRIBUTES_OFFSET + 2;
export const BASE_TIMESTAMP_OFFSET = LAST_OFFSET_DELTA_OFFSET + 4;
export const MAX_TIMESTAMP_OFFSET = BASE_TIMESTAMP_OFFSET + 8;
export const PRODUCER_ID_OFFSET = MAX_TIMESTAMP_OFFSET + 8;
export const PRODUCER_EPOCH_OFFSET = PRODUCER_ID_OFFSET + 8;
export const BASE_SEQUENCE_OFFSET = PRODUCER_EPOCH_OFFSET + 2;
export const RECORD_COUNT_OFFSET = BASE_SEQUENCE_OFFSET + 4;
/** Size of the fixed batch header, bytes. */
export const BATCH_HEADER_SIZE = RECORD_COUNT_OFFSET + 4;
/** Bytes before batchLength's end: the part of the header that says how big the batch is. */
export const LOG_OVERHEAD = BATCH_LENGTH_OFFSET + 4;

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
  const view = new DataView(bytes.buffer, bytes.byteOffset + position, BATCH_HEADER_SIZE);
  const baseOffset = Number(view.getBigInt64(BASE_OFFSET_OFFSET));
  return {
    baseOffset,
    lastOffset: baseOffset + view.getInt32(LAST_OFFSET_DELTA_OFFSET),
    sizeInBytes: LOG_OVERHEAD + view.getInt32(BATCH_LENGTH_OFFSET),
    maxTimestamp: Number(view.getBigInt64(MAX_TIMESTAMP_OFFSET)),
    attributes: view.getInt16(ATTRIBUTES_OFFSET),
  };
}

/** Size (12 + batchLength) of the batch at `position`, or -1 when fewer than 12 bytes remain. */
export function storedBatchSize(bytes: Uint8Array, position: number): number {
  if (position + LOG_OVERHEAD > bytes.length) return -1;
  const p = position + BATCH_LENGTH_OFFSET;
  const batchLength = ((bytes[p]! << 24) | (bytes[p + 1]! << 16) | (bytes[p + 2]! << 8) | bytes[p + 3]!) | 0;
  return LOG_OVERHEAD + batchLength;
}
