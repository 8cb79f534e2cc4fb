/**
 * Status codes of the WebAssembly core, mirrored from assembly/status.ts (a test parses that file
 * and checks both lists agree), and their mapping to Kafka error codes.
 *
 * 1..19 mean the bytes are damaged (Kafka CORRUPT_MESSAGE, 2); 20..39 mean well-framed bytes that
 * are not a valid batch or record (Kafka INVALID_RECORD, 87), as Kafka's DefaultRecordBatch /
 * LogValidator split them; 40.. are limits (MESSAGE_TOO_LARGE, 10) and host misuse.
 */
export const CoreStatus = {
  OK: 0,
  TRUNCATED_HEADER: 1,
  TRUNCATED_BATCH: 2,
  BATCH_TOO_SMALL: 3,
  CRC_MISMATCH: 4,
  UNKNOWN_MAGIC: 5,
  LEGACY_MAGIC: 20,
  INVALID_COMPRESSION: 21,
  INVALID_RECORD_COUNT: 22,
  INVALID_OFFSET_DELTA: 23,
  INVALID_RECORD_LENGTH: 24,
  MALFORMED_VARINT: 25,
  INVALID_FIELD_LENGTH: 26,
  RECORD_SIZE_MISMATCH: 27,
  INVALID_HEADER_COUNT: 28,
  INVALID_SEQUENCE: 29,
  EMPTY_RECORDS: 30,
  MESSAGE_TOO_LARGE: 40,
  INDEX_FULL: 41,
  INDEX_OUT_OF_ORDER: 42,
  INVALID_ARGUMENT: 43,
} as const;

export type CoreStatusName = keyof typeof CoreStatus;

/** Kafka error codes the core's statuses map to (values from errors.json). */
export const CoreKafkaError = {
  NONE: 0,
  UNKNOWN_SERVER_ERROR: -1,
  CORRUPT_MESSAGE: 2,
  MESSAGE_TOO_LARGE: 10,
  INVALID_RECORD: 87,
} as const;

const namesByCode = new Map<number, CoreStatusName>(
  (Object.entries(CoreStatus) as [CoreStatusName, number][]).map(([name, code]) => [code, name]),
);

/** The status's name (e.g. "CRC_MISMATCH"), or "UNKNOWN(<code>)". */
export function coreStatusName(status: number): string {
  return namesByCode.get(status) ?? `UNKNOWN(${status})`;
}

/**
 * The Kafka error code a Produce/Fetch answer carries for a core status: NONE for OK,
 * CORRUPT_MESSAGE for damaged bytes, INVALID_RECORD for invalid batches/records,
 * MESSAGE_TOO_LARGE for blobs above the core's limit, UNKNOWN_SERVER_ERROR for anything else
 * (index misuse and bad arguments are host bugs, never client input).
 */
export function kafkaErrorCodeForStatus(status: number): number {
  if (status === CoreStatus.OK) return CoreKafkaError.NONE;
  if (status >= 1 && status <= 19) return CoreKafkaError.CORRUPT_MESSAGE;
  if (status >= 20 && status <= 39) return CoreKafkaError.INVALID_RECORD;
  if (status === CoreStatus.MESSAGE_TOO_LARGE) return CoreKafkaError.MESSAGE_TOO_LARGE;
  return CoreKafkaError.UNKNOWN_SERVER_ERROR;
}
