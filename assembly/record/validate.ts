// RecordBatch v2 validation: one call walks a whole blob of batches (a Produce `records` field, a
// follower fetch, or a segment being recovered) without allocating. Checks, in Kafka's order
// (DefaultRecordBatch.ensureValid, then LogValidator): framing and magic, CRC-32C, header counts,
// then for uncompressed batches every record's varints and lengths.
//
// Every loop is bounded by bytes: each record consumes at least one byte of its batch and each
// header at least two, and every read is checked against the enclosing record's end first.

import * as status from '../status';
import { loadI16BE, loadI32BE, loadI64BE } from '../memory/bytes';
import { readVarint, readVarlong, varintValue, varlongValue, VARINT_ERROR } from '../memory/varint';
import { crc32c } from '../crc/crc32c';
import {
  ATTRIBUTES_OFFSET, BASE_SEQUENCE_OFFSET, BASE_TIMESTAMP_OFFSET, BATCH_LENGTH_OFFSET,
  COMPRESSION_CODEC_MASK, CONTROL_FLAG_MASK, CRC_OFFSET, LAST_OFFSET_DELTA_OFFSET, LOG_OVERHEAD,
  MAGIC_OFFSET, MAGIC_V2, MAX_COMPRESSION_CODEC, MIN_BATCH_LENGTH, MIN_RECORD_SIZE,
  PRODUCER_ID_OFFSET, RECORDS_COUNT_OFFSET, RECORDS_OFFSET,
} from './batch-layout';

/** Size in bytes (LOG_OVERHEAD + batchLength) of the batch last validated successfully. */
export let batchSizeInBytes: usize = 0;
/** Largest record timestamp of the last walked batch (valid when lastRecordsWalked). */
export let walkedMaxTimestamp: i64 = 0;
/** offsetDelta of the first record holding walkedMaxTimestamp, or -1 when nothing was walked. */
export let walkedOffsetDeltaOfMaxTimestamp: i32 = -1;
/** Whether the last validated batch's records were walked (uncompressed, at least one record). */
export let lastRecordsWalked: bool = false;

/**
 * Validates the batch at `batch`, whose blob ends at `blobEnd`.
 *
 * `fresh` = true for batches a producer (or the broker itself) is appending: recordCount >= 1,
 * lastOffsetDelta == recordCount - 1, offset deltas exactly 0..n-1, and an idempotent non-control
 * batch needs baseSequence >= 0. `fresh` = false for stored batches (recovery, followers), which
 * compaction may have thinned: recordCount <= lastOffsetDelta + 1 and offset deltas strictly
 * increasing within 0..lastOffsetDelta.
 *
 * Returns a status; on OK sets batchSizeInBytes and the walked* globals.
 */
export function validateBatch(batch: usize, blobEnd: usize, fresh: bool): i32 {
  let remaining = blobEnd - batch;
  // The magic byte sits at offset 16 in every message format, so read it before trusting the
  // v2 length rules (a legacy message can be shorter than a v2 header).
  if (remaining < MAGIC_OFFSET + 1) return status.TRUNCATED_HEADER;
  let magic = <i32>load<i8>(batch + MAGIC_OFFSET);
  if (magic != MAGIC_V2) {
    return magic == 0 || magic == 1 ? status.LEGACY_MAGIC : status.UNKNOWN_MAGIC;
  }
  let batchLength = loadI32BE(batch + BATCH_LENGTH_OFFSET);
  if (batchLength < MIN_BATCH_LENGTH) return status.BATCH_TOO_SMALL;
  if (<usize>batchLength > remaining - LOG_OVERHEAD) {
    return remaining < RECORDS_OFFSET ? status.TRUNCATED_HEADER : status.TRUNCATED_BATCH;
  }
  let batchEnd = batch + LOG_OVERHEAD + <usize>batchLength;

  let storedCrc = <u32>loadI32BE(batch + CRC_OFFSET);
  if (crc32c(batch + ATTRIBUTES_OFFSET, batchEnd - (batch + ATTRIBUTES_OFFSET)) != storedCrc) {
    return status.CRC_MISMATCH;
  }

  let attributes = loadI16BE(batch + ATTRIBUTES_OFFSET);
  let compression = attributes & COMPRESSION_CODEC_MASK;
  if (compression > MAX_COMPRESSION_CODEC) return status.INVALID_COMPRESSION;

  let lastOffsetDelta = loadI32BE(batch + LAST_OFFSET_DELTA_OFFSET);
  let recordCount = loadI32BE(batch + RECORDS_COUNT_OFFSET);
  if (recordCount < 0 || lastOffsetDelta < 0) return status.INVALID_RECORD_COUNT;
  if (fresh) {
    if (recordCount == 0 || lastOffsetDelta != recordCount - 1) return status.INVALID_RECORD_COUNT;
    let isControl = (attributes & CONTROL_FLAG_MASK) != 0;
    if (!isControl && loadI64BE(batch + PRODUCER_ID_OFFSET) >= 0 && loadI32BE(batch + BASE_SEQUENCE_OFFSET) < 0) {
      return status.INVALID_SEQUENCE;
    }
  } else if (<i64>recordCount > <i64>lastOffsetDelta + 1) {
    return status.INVALID_RECORD_COUNT;
  }

  lastRecordsWalked = false;
  walkedOffsetDeltaOfMaxTimestamp = -1;
  if (compression == 0) {
    let recordsBytes = batchEnd - (batch + RECORDS_OFFSET);
    if (<usize>recordCount > recordsBytes / <usize>MIN_RECORD_SIZE) return status.INVALID_RECORD_COUNT;
    let walk = walkRecords(batch, batchEnd, recordCount, lastOffsetDelta, fresh);
    if (walk != status.OK) return walk;
    lastRecordsWalked = recordCount > 0;
  }
  batchSizeInBytes = batchEnd - batch;
  return status.OK;
}

// Skips a length-prefixed field (key, value, header value); `minLength` is -1 when null is legal.
// Returns the cursor after it or VARINT_ERROR with `fieldStatus` set.
let fieldStatus: i32 = status.OK;

@inline function skipField(cursor: usize, recordEnd: usize, minLength: i32): usize {
  cursor = readVarint(cursor, recordEnd);
  if (cursor == VARINT_ERROR) {
    fieldStatus = status.MALFORMED_VARINT;
    return VARINT_ERROR;
  }
  let length = varintValue;
  if (length < minLength || (length > 0 && <usize>length > recordEnd - cursor)) {
    fieldStatus = status.INVALID_FIELD_LENGTH;
    return VARINT_ERROR;
  }
  return length > 0 ? cursor + <usize>length : cursor;
}

function walkRecords(batch: usize, batchEnd: usize, recordCount: i32, lastOffsetDelta: i32, fresh: bool): i32 {
  let baseTimestamp = loadI64BE(batch + BASE_TIMESTAMP_OFFSET);
  let maxTimestamp = i64.MIN_VALUE;
  let offsetDeltaOfMax: i32 = -1;
  let previousOffsetDelta: i32 = -1;
  let cursor = batch + RECORDS_OFFSET;
  for (let i: i32 = 0; i < recordCount; i++) {
    cursor = readVarint(cursor, batchEnd);
    if (cursor == VARINT_ERROR) return status.MALFORMED_VARINT;
    let length = varintValue;
    if (length <= 0 || <usize>length > batchEnd - cursor) return status.INVALID_RECORD_LENGTH;
    let recordEnd = cursor + <usize>length;
    cursor++; // attributes int8, unused; length >= 1 keeps it inside the record

    cursor = readVarlong(cursor, recordEnd);
    if (cursor == VARINT_ERROR) return status.MALFORMED_VARINT;
    let timestamp = baseTimestamp + varlongValue;

    cursor = readVarint(cursor, recordEnd);
    if (cursor == VARINT_ERROR) return status.MALFORMED_VARINT;
    let offsetDelta = varintValue;
    if (fresh) {
      if (offsetDelta != i) return status.INVALID_OFFSET_DELTA;
    } else if (offsetDelta <= previousOffsetDelta || offsetDelta > lastOffsetDelta) {
      return status.INVALID_OFFSET_DELTA;
    }
    previousOffsetDelta = offsetDelta;
    if (timestamp > maxTimestamp) {
      maxTimestamp = timestamp;
      offsetDeltaOfMax = offsetDelta;
    }

    cursor = skipField(cursor, recordEnd, -1); // key
    if (cursor == VARINT_ERROR) return fieldStatus;
    cursor = skipField(cursor, recordEnd, -1); // value
    if (cursor == VARINT_ERROR) return fieldStatus;

    cursor = readVarint(cursor, recordEnd);
    if (cursor == VARINT_ERROR) return status.MALFORMED_VARINT;
    let headerCount = varintValue;
    // Each header needs at least two bytes (two 1-byte length varints).
    if (headerCount < 0 || <usize>headerCount > (recordEnd - cursor) >> 1) return status.INVALID_HEADER_COUNT;
    for (let h: i32 = 0; h < headerCount; h++) {
      cursor = skipField(cursor, recordEnd, 0); // header key: never null
      if (cursor == VARINT_ERROR) return fieldStatus;
      cursor = skipField(cursor, recordEnd, -1); // header value
      if (cursor == VARINT_ERROR) return fieldStatus;
    }
    if (cursor != recordEnd) return status.RECORD_SIZE_MISMATCH;
  }
  if (cursor != batchEnd) return status.RECORD_SIZE_MISMATCH;
  walkedMaxTimestamp = maxTimestamp;
  walkedOffsetDeltaOfMaxTimestamp = offsetDeltaOfMax;
  return status.OK;
}
