/**
 * RecordBatch v2 header field offsets (Kafka's DefaultRecordBatch, KIP-98), for host code that
 * reads batch headers. The diagram and the chained definitions live in
 * assembly/record/batch-layout.ts; a test checks these values against that file.
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

/** Attribute bits (int16 at BatchLayout.ATTRIBUTES). */
export const BatchAttributes = {
  COMPRESSION_CODEC_MASK: 0x07,
  TIMESTAMP_TYPE_MASK: 0x08,
  TRANSACTIONAL_FLAG_MASK: 0x10,
  CONTROL_FLAG_MASK: 0x20,
  DELETE_HORIZON_FLAG_MASK: 0x40,
} as const;
