/**
 * What a {@link UnifiedLog} answers: the Kafka error codes it uses, the shapes of an append and
 * of a read, and ListOffsets' special timestamps.
 */
import type { BatchSummary } from '../wasm/core.js';
import type { RecordError } from './record-validation.js';

/** Kafka error codes the log answers with (errors.json). */
export const LogErrorCode = {
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  MESSAGE_TOO_LARGE: 10,
  RECORD_LIST_TOO_LARGE: 18,
  INVALID_TIMESTAMP: 32,
  KAFKA_STORAGE_ERROR: 56,
  INVALID_RECORD: 87,
} as const;

/** ListOffsets' special timestamps (Kafka's ListOffsetsRequest). */
export const LATEST_TIMESTAMP = -1;
export const EARLIEST_TIMESTAMP = -2;
export const MAX_TIMESTAMP = -3;

/**
 * The outcome of an append. On error, offsets are -1 and `batches` is empty; a leader append
 * answered as a retried duplicate has errorCode 0, the original offsets and no batches.
 */
export interface AppendResult {
  errorCode: number;
  /** Detail for a producer-state refusal (45, 47, 59), for logs and Produce v8+ error_message. */
  errorMessage?: string;
  /** Records refused one by one (INVALID_RECORD, INVALID_TIMESTAMP): Produce v8+ record_errors. */
  recordErrors?: readonly RecordError[];
  baseOffset: number;
  lastOffset: number;
  /** The broker time stamped into LogAppendTime batches, -1 for CreateTime. */
  logAppendTimeMs: number;
  logStartOffset: number;
  /** The appended batches (positions are inside the appended blob). */
  batches: BatchSummary[];
}

/** The outcome of a read: whole batches, possibly empty. */
export interface ReadResult {
  errorCode: number;
  records: Buffer;
}
