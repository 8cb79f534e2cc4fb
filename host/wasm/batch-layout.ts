/**
 * RecordBatch v2 header layout (Kafka's DefaultRecordBatch, magic 2, KIP-98): the host's one copy,
 * imported by every host-side reader or writer of batch headers (log/batch-header.ts, the
 * producer state, the Produce handler, record/, wasm/core.ts, the clients). assembly/ keeps its
 * own copy as chained constants (assembly/record/batch-layout.ts: it is a separate compilation);
 * test/wasm/layout.test.ts checks that the two agree.
 *
 * All fields big-endian; byte offsets from the start of the batch:
 * ```
 *  0 baseOffset int64 | 8 batchLength int32 | 12 partitionLeaderEpoch int32 | 16 magic int8
 * 17 crc uint32 | 21 attributes int16 | 23 lastOffsetDelta int32 | 27 baseTimestamp int64
 * 35 maxTimestamp int64 | 43 producerId int64 | 51 producerEpoch int16 | 53 baseSequence int32
 * 57 recordsCount int32 | 61 records...
 * ```
 * batchLength counts the bytes after itself, so a batch occupies LOG_OVERHEAD (12) + batchLength
 * bytes. The CRC-32C covers ATTRIBUTES..end; baseOffset and partitionLeaderEpoch lie outside it so
 * the leader can stamp them without recomputing it.
 */
export const BatchLayout = {
  BASE_OFFSET: 0,
  BATCH_LENGTH: 8,
  /** baseOffset + batchLength: total size = LOG_OVERHEAD + batchLength. */
  LOG_OVERHEAD: 12,
  PARTITION_LEADER_EPOCH: 12,
  MAGIC: 16,
  CRC: 17,
  ATTRIBUTES: 21,
  LAST_OFFSET_DELTA: 23,
  BASE_TIMESTAMP: 27,
  MAX_TIMESTAMP: 35,
  PRODUCER_ID: 43,
  PRODUCER_EPOCH: 51,
  BASE_SEQUENCE: 53,
  RECORDS_COUNT: 57,
  /** First record; also the size of a batch without records. */
  RECORDS: 61,
} as const;

/** Size of the fixed batch header, bytes (Kafka's RECORD_BATCH_OVERHEAD): a batch is never shorter. */
export const RECORD_BATCH_OVERHEAD = BatchLayout.RECORDS;
/** The only magic stored and accepted (RecordBatch v2). */
export const MAGIC_V2 = 2;

/** Attribute bits (int16 at BatchLayout.ATTRIBUTES). */
export const BatchAttributes = {
  COMPRESSION_CODEC_MASK: 0x07,
  TIMESTAMP_TYPE_MASK: 0x08,
  TRANSACTIONAL_FLAG_MASK: 0x10,
  CONTROL_FLAG_MASK: 0x20,
  DELETE_HORIZON_FLAG_MASK: 0x40,
} as const;
