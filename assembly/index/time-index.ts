// Kafka's TimeIndex entry layout (12 bytes, big-endian, as in the .timeindex file):
//   timestamp int64 (ms) | relativeOffset int32
// Kafka appends only when the timestamp grows (TimeIndex.maybeAppend), so entries are strictly
// increasing in timestamp and "largest entry <= target" is a binary search.

import * as status from '../status';
import { loadI32BE, loadI64BE, storeI32BE, storeI64BE } from '../memory/bytes';

export const TIME_INDEX_ENTRY_BYTES: usize = 12;

/**
 * Kafka's maybeAppend: appends when timestamp > the last entry's, returns the count unchanged when
 * equal. Returns the entry count, or a negated status: INDEX_OUT_OF_ORDER when the timestamp or
 * the offset goes backwards, INDEX_FULL when the region has no room.
 */
export function timeIndexAppend(region: usize, capacityBytes: usize, entryCount: i32, timestamp: i64, relativeOffset: i32): i32 {
  if (entryCount < 0) return -status.INVALID_ARGUMENT;
  let entry = region + <usize>entryCount * TIME_INDEX_ENTRY_BYTES;
  if (entryCount > 0) {
    let last = entry - TIME_INDEX_ENTRY_BYTES;
    let lastTimestamp = loadI64BE(last);
    if (timestamp < lastTimestamp || relativeOffset < loadI32BE(last + 8)) return -status.INDEX_OUT_OF_ORDER;
    if (timestamp == lastTimestamp) return entryCount;
  }
  if (<usize>(entryCount + 1) * TIME_INDEX_ENTRY_BYTES > capacityBytes) return -status.INDEX_FULL;
  storeI64BE(entry, timestamp);
  storeI32BE(entry + 8, relativeOffset);
  return entryCount + 1;
}

/** Slot of the largest entry whose timestamp <= target, or -1 when there is none. */
export function timeIndexLookup(region: usize, entryCount: i32, targetTimestamp: i64): i32 {
  let low: i32 = 0;
  let high: i32 = entryCount - 1;
  let found: i32 = -1;
  while (low <= high) {
    let middle = (low + high) >>> 1;
    if (loadI64BE(region + <usize>middle * TIME_INDEX_ENTRY_BYTES) <= targetTimestamp) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}
