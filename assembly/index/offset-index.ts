// Kafka's OffsetIndex entry layout (8 bytes, big-endian, as in the .index file):
//   relativeOffset int32 (offset - segment base offset) | position int32 (byte position in .log)
// Entries are strictly increasing in relativeOffset, so "largest entry <= target" is a binary search.

import * as status from '../status';
import { loadI32BE, storeI32BE } from '../memory/bytes';

export const OFFSET_INDEX_ENTRY_BYTES: usize = 8;

/** Appends an entry; returns the new entry count or a negated status (INDEX_FULL, INDEX_OUT_OF_ORDER). */
export function offsetIndexAppend(region: usize, capacityBytes: usize, entryCount: i32, relativeOffset: i32, position: i32): i32 {
  if (entryCount < 0) return -status.INVALID_ARGUMENT;
  let entry = region + <usize>entryCount * OFFSET_INDEX_ENTRY_BYTES;
  if (<usize>(entryCount + 1) * OFFSET_INDEX_ENTRY_BYTES > capacityBytes) return -status.INDEX_FULL;
  if (entryCount > 0 && relativeOffset <= loadI32BE(entry - OFFSET_INDEX_ENTRY_BYTES)) return -status.INDEX_OUT_OF_ORDER;
  storeI32BE(entry, relativeOffset);
  storeI32BE(entry + 4, position);
  return entryCount + 1;
}

/** Slot of the largest entry whose relativeOffset <= target, or -1 when there is none. */
export function offsetIndexLookup(region: usize, entryCount: i32, targetRelativeOffset: i32): i32 {
  let low: i32 = 0;
  let high: i32 = entryCount - 1;
  let found: i32 = -1;
  while (low <= high) {
    let middle = (low + high) >>> 1;
    if (loadI32BE(region + <usize>middle * OFFSET_INDEX_ENTRY_BYTES) <= targetRelativeOffset) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}
