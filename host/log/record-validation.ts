/**
 * The per-record checks of Kafka 3.9's LogValidator.validateRecord for a leader append, with the
 * per-record errors Produce v8+ returns (KIP-467, `record_errors`):
 *  - validateKey: on a topic whose cleanup.policy includes `compact`, a record without a key is
 *    refused: INVALID_RECORD (87), "Compacted topic cannot accept message without key in topic
 *    partition <tp>.";
 *  - validateTimestamp: on a CreateTime topic, a record whose timestamp lies outside
 *    [now - message.timestamp.before.max.ms, now + message.timestamp.after.max.ms], or any record
 *    of a batch that claims LogAppendTime: INVALID_TIMESTAMP (32).
 * A record is checked for its key first, then its timestamp (one error per record, as Kafka).
 * Like Kafka's processRecordErrors, the partition's error is INVALID_TIMESTAMP when any record
 * error is one, else INVALID_RECORD, and its message names at most the first three errors.
 *
 * Cost: nothing is walked unless the topic is compacted or the batch headers already show a
 * timestamp out of range (timestamp-validation.ts on the core's summaries); then each record's
 * header varints are read (compressed sections as the validation decompressed them), and
 * every record's timestamp is checked (on compacted topics also those between the header's
 * first and largest, which the header check alone lets through).
 */
import { decompress, DEFAULT_MAX_DECOMPRESSED_BYTES } from '../record/compression.js';
import { BatchLayout } from '../wasm/batch-layout.js';
import type { BatchSummary } from '../wasm/core.js';
import type { DecompressedSections } from './compressed-batch-validation.js';
import { hasCompactPolicy, type LogConfig, timestampBounds } from './log-config.js';
import { LogErrorCode } from './log-results.js';
import { checkTimestamps } from './timestamp-validation.js';

/** One entry of Produce v8+ record_errors: the record's index in its batch and why it was refused. */
export interface RecordError {
  readonly batchIndex: number;
  readonly message: string;
}

/** A leader append refused for per-record reasons. */
export interface RecordValidationFailure {
  readonly errorCode: number;
  readonly errorMessage: string;
  readonly recordErrors: readonly RecordError[];
}

/** Calls `visit(index, timestampDelta, keyLength)` per record of an uncompressed records section. */
function walkRecords(section: Uint8Array, visit: (index: number, timestampDelta: number, keyLength: number) => void): void {
  let at = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const byte = section[at++];
      if (byte === undefined) throw new RangeError('truncated varint');
      result += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
      scale *= 128;
    }
    throw new RangeError('varint too long');
  };
  for (let index = 0; at < section.length; index++) {
    const length = varint();
    const end = at + length;
    at++; // attributes
    const timestampDelta = varint();
    varint(); // offsetDelta
    visit(index, timestampDelta, varint());
    at = end;
  }
}

/**
 * Kafka's per-record checks of the client `batches` in `records` (see the file header) on a
 * log with `config` at broker time `nowMs`; `topic` and `partition` name it in messages.
 * Returns null when every record passes. Never throws for client bytes (records that do not
 * parse were refused before, by the core or the compressed-batch validation). `sections`: the
 * compressed batches' sections as checkClientBatches decompressed them (else decompressed here).
 */
export function validateRecords(
  records: Uint8Array, batches: readonly BatchSummary[], config: LogConfig, nowMs: number, topic: string, partition: number,
  sections?: DecompressedSections,
): RecordValidationFailure | null {
  const compacted = hasCompactPolicy(config);
  const timestampProblem = checkTimestamps(batches, config, nowMs);
  if (!compacted && timestampProblem === null) return null;
  const topicPartition = `${topic}-${partition}`;
  const { beforeMaxMs, afterMaxMs } = timestampBounds(config);
  const createTime = config.messageTimestampType === 'CreateTime';
  const errors: { code: number; error: RecordError }[] = [];
  for (let i = 0; i < batches.length; i++) {
    const batch = batches[i]!;
    const body = records.subarray(batch.position + BatchLayout.RECORDS, batch.position + batch.sizeInBytes);
    try {
      const section = batch.compression === 0 ? body : sections?.[i] ?? decompress(batch.compression, body, DEFAULT_MAX_DECOMPRESSED_BYTES);
      walkRecords(section, (index, timestampDelta, keyLength) => {
        if (compacted && keyLength < 0) {
          errors.push({ code: LogErrorCode.INVALID_RECORD, error: { batchIndex: index, message: `Compacted topic cannot accept message without key in topic partition ${topicPartition}.` } });
          return;
        }
        if (!createTime) return;
        if (batch.timestampType === 1) {
          errors.push({ code: LogErrorCode.INVALID_TIMESTAMP, error: { batchIndex: index, message: 'Invalid timestamp type in message. Producer should not set timestamp type to LogAppendTime.' } });
          return;
        }
        const timestamp = batch.baseTimestamp + timestampDelta;
        if (timestamp !== -1 && (nowMs - timestamp > beforeMaxMs || timestamp - nowMs > afterMaxMs)) {
          errors.push({ code: LogErrorCode.INVALID_TIMESTAMP, error: { batchIndex: index, message: `Timestamp ${timestamp} of message with offset ${batch.baseOffset + index} is out of range. The timestamp should be within [${nowMs - beforeMaxMs}, ${nowMs + afterMaxMs}]` } });
        }
      });
    } catch {
      return { errorCode: LogErrorCode.CORRUPT_MESSAGE, errorMessage: 'records of the batch do not parse', recordErrors: [] };
    }
  }
  if (errors.length === 0) {
    return timestampProblem === null ? null : { errorCode: LogErrorCode.INVALID_TIMESTAMP, errorMessage: timestampProblem, recordErrors: [] };
  }
  const recordErrors = errors.map((e) => e.error);
  if (errors.some((e) => e.code === LogErrorCode.INVALID_TIMESTAMP)) {
    return { errorCode: LogErrorCode.INVALID_TIMESTAMP, errorMessage: 'One or more records have been rejected due to invalid timestamp', recordErrors };
  }
  const shown = recordErrors.slice(0, 3).map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.message}')`).join(', ');
  return {
    errorCode: LogErrorCode.INVALID_RECORD,
    errorMessage: `One or more records have been rejected due to ${recordErrors.length} record errors in total, and only showing the first three errors at most: [${shown}]`,
    recordErrors,
  };
}
