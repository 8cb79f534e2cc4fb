// The exported surface of Tributary's WebAssembly core, loaded only by host/wasm/core.ts.
// Every export takes (ptr, len, ...) into the one host-created memory and returns an i32 status,
// length or count; no export allocates, throws, or works per record on the host's behalf.
// Results too large for a return value go to the result area (record/result-layout.ts).

import * as status from './status';
import {
  ARENA_BYTES, ARENA_PTR, CRC_TABLES_PTR, FRAMES_BYTES, FRAMES_PTR, MEMORY_BYTES, MEMORY_PAGES, RESULT_PTR, SCRATCH_BYTES, SCRATCH_PTR,
  STAGING_BYTES, STAGING_PTR, STATIC_LIMIT,
} from './memory/layout';
import { loadI32BE, loadI64BE } from './memory/bytes';
import { crc32cUpdate as crc32cContinue } from './crc/crc32c';
import { LAST_OFFSET_DELTA_OFFSET, MAX_TIMESTAMP_OFFSET } from './record/batch-layout';
import {
  batchSizeInBytes, lastRecordsWalked, validateBatch, walkedMaxTimestamp, walkedOffsetDeltaOfMaxTimestamp,
} from './record/validate';
import { stampBatch } from './record/stamp';
import {
  ENTRY_BYTES, ENTRY_FLAGS_OFFSET, ENTRY_OFFSET_DELTA_OF_MAX_TIMESTAMP_OFFSET, ENTRY_POSITION_OFFSET,
  ENTRY_SIZE_OFFSET, FLAG_RECORDS_WALKED, FLAG_REWRITTEN, MAX_RESULT_ENTRIES, MIN_BATCH_BYTES,
  RESULT_BATCH_COUNT_OFFSET, RESULT_ENTRIES_PTR, RESULT_ERROR_POSITION_OFFSET, RESULT_VALID_BYTES_OFFSET,
} from './record/result-layout';
import * as offsetIndex from './index/offset-index';
import * as timeIndex from './index/time-index';

// The result area must hold one entry per batch of a full scratch region.
assert(MAX_RESULT_ENTRIES >= SCRATCH_BYTES / MIN_BATCH_BYTES + 1, 'result area too small for scratch');
assert(__heap_base <= CRC_TABLES_PTR, 'static data overlaps the CRC tables');

// 2^63 as f64: the first value past int64.
const I64_LIMIT: f64 = 9223372036854775808.0;

@inline function inMemory(ptr: usize, len: usize): bool {
  return ptr >= STATIC_LIMIT && len <= MEMORY_BYTES && ptr <= MEMORY_BYTES - len;
}

// ---- layout, read once by the host ----
export function memoryPages(): i32 { return MEMORY_PAGES; }
export function staticEnd(): usize { return __heap_base; }
export function resultPtr(): usize { return RESULT_PTR; }
export function stagingPtr(): usize { return STAGING_PTR; }
export function stagingBytes(): usize { return STAGING_BYTES; }
export function scratchPtr(): usize { return SCRATCH_PTR; }
export function scratchBytes(): usize { return SCRATCH_BYTES; }
export function framesPtr(): usize { return FRAMES_PTR; }
export function framesBytes(): usize { return FRAMES_BYTES; }
export function arenaPtr(): usize { return ARENA_PTR; }
export function arenaBytes(): usize { return ARENA_BYTES; }

// ---- CRC-32C ----
/** CRC-32C of [ptr, ptr+len), continuing from `crc` (0 to start). 0 for a range outside memory. */
export function crc32cUpdate(crc: u32, ptr: usize, len: usize): u32 {
  if (!inMemory(ptr, len)) return 0;
  return crc32cContinue(crc, ptr, len);
}

// ---- batches ----
function finish(count: usize, validBytes: usize, errorPosition: usize): void {
  store<u32>(RESULT_PTR + RESULT_BATCH_COUNT_OFFSET, <u32>count);
  store<u32>(RESULT_PTR + RESULT_VALID_BYTES_OFFSET, <u32>validBytes);
  store<u32>(RESULT_PTR + RESULT_ERROR_POSITION_OFFSET, <u32>errorPosition);
}

@inline function writeEntry(index: usize, position: usize, size: usize, offsetDeltaOfMax: i32, flags: u32): void {
  let entry = RESULT_ENTRIES_PTR + index * ENTRY_BYTES;
  store<u32>(entry + ENTRY_POSITION_OFFSET, <u32>position);
  store<u32>(entry + ENTRY_SIZE_OFFSET, <u32>size);
  store<i32>(entry + ENTRY_OFFSET_DELTA_OF_MAX_TIMESTAMP_OFFSET, offsetDeltaOfMax);
  store<u32>(entry + ENTRY_FLAGS_OFFSET, flags);
}

/**
 * Validates every batch of the blob [ptr, ptr+len) without changing it (recovery, followers):
 * stored-batch rules (see validateBatch, fresh = false) unless `fresh` != 0.
 * Returns OK or the status of the first bad batch; the result area describes the leading valid
 * batches either way. An empty blob is OK with no batches.
 */
export function validateBatches(ptr: usize, len: usize, fresh: i32): i32 {
  if (!inMemory(ptr, len)) return status.INVALID_ARGUMENT;
  let end = ptr + len;
  let cursor = ptr;
  let count: usize = 0;
  while (cursor < end) {
    let batchStatus = validateBatch(cursor, end, fresh != 0);
    if (batchStatus != status.OK) {
      finish(count, cursor - ptr, cursor - ptr);
      return batchStatus;
    }
    if (count >= MAX_RESULT_ENTRIES) {
      finish(count, cursor - ptr, cursor - ptr);
      return status.MESSAGE_TOO_LARGE;
    }
    writeEntry(count, cursor - ptr, batchSizeInBytes, walkedOffsetDeltaOfMaxTimestamp,
      lastRecordsWalked ? FLAG_RECORDS_WALKED : 0);
    count++;
    cursor += batchSizeInBytes;
  }
  finish(count, len, len);
  return status.OK;
}

/**
 * Validates the fresh batches of a Produce blob [ptr, ptr+len) and stamps each as it passes:
 * baseOffset from `firstOffset` on (each batch takes lastOffsetDelta + 1 offsets),
 * partitionLeaderEpoch = `leaderEpoch`, and the timestamps (see stampBatch; logAppendTimeMs < 0
 * means CreateTime). Returns OK, EMPTY_RECORDS for a blob without batches, or the status of the
 * first bad batch (the leading batches are then already stamped; the caller discards the blob).
 */
export function prepareAppend(ptr: usize, len: usize, firstOffset: f64, leaderEpoch: i32, logAppendTimeMs: f64): i32 {
  if (!inMemory(ptr, len)) return status.INVALID_ARGUMENT;
  if (!(firstOffset >= 0 && firstOffset < I64_LIMIT)) return status.INVALID_ARGUMENT;
  if (!(logAppendTimeMs < I64_LIMIT && logAppendTimeMs > -I64_LIMIT)) return status.INVALID_ARGUMENT;
  let appendTime: i64 = logAppendTimeMs >= 0 ? <i64>logAppendTimeMs : -1;
  let nextOffset = <i64>firstOffset;
  let end = ptr + len;
  let cursor = ptr;
  let count: usize = 0;
  while (cursor < end) {
    let batchStatus = validateBatch(cursor, end, true);
    if (batchStatus != status.OK) {
      finish(count, cursor - ptr, cursor - ptr);
      return batchStatus;
    }
    if (count >= MAX_RESULT_ENTRIES) {
      finish(count, cursor - ptr, cursor - ptr);
      return status.MESSAGE_TOO_LARGE;
    }
    let size = batchSizeInBytes;
    let walked = lastRecordsWalked;
    let createTimeMax = walked ? walkedMaxTimestamp : loadI64BE(cursor + MAX_TIMESTAMP_OFFSET);
    let rewritten = stampBatch(cursor, size, nextOffset, leaderEpoch, appendTime, createTimeMax);
    let offsetDeltaOfMax = appendTime >= 0 ? 0 : walkedOffsetDeltaOfMaxTimestamp;
    writeEntry(count, cursor - ptr, size, offsetDeltaOfMax,
      (walked ? FLAG_RECORDS_WALKED : 0) | (rewritten ? FLAG_REWRITTEN : 0));
    nextOffset += <i64>loadI32BE(cursor + LAST_OFFSET_DELTA_OFFSET) + 1;
    count++;
    cursor += size;
  }
  finish(count, len, len);
  return count == 0 ? status.EMPTY_RECORDS : status.OK;
}

// ---- indexes ----
export function offsetIndexAppend(region: usize, capacityBytes: usize, entryCount: i32, relativeOffset: i32, position: i32): i32 {
  if (!inMemory(region, capacityBytes)) return -status.INVALID_ARGUMENT;
  return offsetIndex.offsetIndexAppend(region, capacityBytes, entryCount, relativeOffset, position);
}

export function offsetIndexLookup(region: usize, entryCount: i32, targetRelativeOffset: i32): i32 {
  if (entryCount < 0 || !inMemory(region, <usize>entryCount * offsetIndex.OFFSET_INDEX_ENTRY_BYTES)) return -status.INVALID_ARGUMENT;
  return offsetIndex.offsetIndexLookup(region, entryCount, targetRelativeOffset);
}

export function timeIndexAppend(region: usize, capacityBytes: usize, entryCount: i32, timestamp: f64, relativeOffset: i32): i32 {
  if (!inMemory(region, capacityBytes)) return -status.INVALID_ARGUMENT;
  if (!(timestamp < I64_LIMIT && timestamp >= -I64_LIMIT)) return -status.INVALID_ARGUMENT;
  return timeIndex.timeIndexAppend(region, capacityBytes, entryCount, <i64>timestamp, relativeOffset);
}

/** Targets outside int64 clamp to its ends, so the answer stays "largest entry <= target". */
export function timeIndexLookup(region: usize, entryCount: i32, targetTimestamp: f64): i32 {
  if (entryCount < 0 || !inMemory(region, <usize>entryCount * timeIndex.TIME_INDEX_ENTRY_BYTES)) return -status.INVALID_ARGUMENT;
  if (targetTimestamp != targetTimestamp) return -status.INVALID_ARGUMENT; // NaN
  let target: i64 = targetTimestamp >= I64_LIMIT ? i64.MAX_VALUE
    : targetTimestamp < -I64_LIMIT ? i64.MIN_VALUE : <i64>targetTimestamp;
  return timeIndex.timeIndexLookup(region, entryCount, target);
}
