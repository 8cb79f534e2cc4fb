/**
 * The follower's side of an append: batches copied from the leader already carry their offsets,
 * so they are validated with the rules for stored batches and placed as they are.
 */
import type { Core, PreparedAppend } from '../wasm/core.js';
import { LogErrorCode } from './log-results.js';

/**
 * Validates `records` (batches with their offsets, as a follower fetched them) and describes them
 * as a {@link PreparedAppend} (stable bytes: `records` itself) for an append at `logEndOffset`.
 * Returns a Kafka error code instead when they do not fit: the core's CORRUPT_MESSAGE (2) /
 * INVALID_RECORD (87), CORRUPT_MESSAGE for trailing bytes or no batch, OFFSET_OUT_OF_RANGE (1)
 * when a batch starts below `logEndOffset` or below the end of the batch before it.
 */
export function prepareFollowerAppend(core: Core, records: Uint8Array, logEndOffset: number): PreparedAppend | number {
  const validation = core.validateBatches(records);
  if (validation.errorCode !== LogErrorCode.NONE) return validation.errorCode;
  if (validation.validBytes !== records.length || validation.batches.length === 0) return LogErrorCode.CORRUPT_MESSAGE;
  let expected = logEndOffset;
  let maxTimestamp = -1;
  let offsetOfMaxTimestamp = -1;
  for (const batch of validation.batches) {
    if (batch.baseOffset < expected) return LogErrorCode.OFFSET_OUT_OF_RANGE;
    expected = batch.baseOffset + batch.lastOffsetDelta + 1;
    if (batch.maxTimestamp > maxTimestamp) {
      maxTimestamp = batch.maxTimestamp;
      offsetOfMaxTimestamp = batch.offsetOfMaxTimestamp;
    }
  }
  const first = validation.batches[0]!;
  return {
    ...validation,
    bytes: Buffer.isBuffer(records) ? records : Buffer.from(records.buffer, records.byteOffset, records.byteLength),
    stable: true,
    firstOffset: first.baseOffset,
    lastOffset: expected - 1,
    maxTimestamp,
    offsetOfMaxTimestamp,
  };
}
