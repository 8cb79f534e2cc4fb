/**
 * Kafka's fetchOffsetByTimestamp over a log's segments (ListOffsets): the time index narrows the
 * search to one batch per segment, and records are decoded only in the batch where the answer
 * lies (CreateTime batches).
 */
import { readRecords } from '../record/records.js';
import { BatchAttributes, BatchLayout } from '../wasm/batch-layout.js';
import type { StoredBatchHeader } from './batch-header.js';
import { MAX_TIMESTAMP } from './log-results.js';
import type { LogSegment } from './log-segment.js';

/**
 * The first record at or after `logStartOffset` whose timestamp is >= `timestampMs`, as
 * (offset, timestamp), searching `segments` oldest first; null when none. MAX_TIMESTAMP (-3)
 * gives the first record with the largest timestamp. LATEST and EARLIEST are the caller's (they
 * need no search). Throws DiskError.
 */
export function findOffsetByTimestamp(segments: readonly LogSegment[], logStartOffset: number, timestampMs: number): { offset: number; timestamp: number } | null {
  if (timestampMs === MAX_TIMESTAMP) {
    let best: LogSegment | null = null;
    for (const segment of segments) {
      if (segment.maxTimestampSoFar >= 0 && (best === null || segment.maxTimestampSoFar > best.maxTimestampSoFar)) best = segment;
    }
    if (best === null) return null;
    const maxTimestamp = best.maxTimestampSoFar;
    return best.searchForTimestamp(maxTimestamp, logStartOffset, (batch, header) =>
      firstRecordAtOrAfter(batch, header, maxTimestamp, logStartOffset));
  }
  for (const segment of segments) {
    if (segment.maxTimestampSoFar < timestampMs || segment.nextOffset <= logStartOffset) continue;
    const found = segment.searchForTimestamp(timestampMs, logStartOffset, (batch, header) =>
      firstRecordAtOrAfter(batch, header, timestampMs, logStartOffset));
    if (found !== null) return found;
  }
  return null;
}

/**
 * The first record of `batch` with offset >= `startingOffset` and timestamp >= `timestampMs`.
 * LogAppendTime batches carry one timestamp for all records, so no decoding is needed.
 */
function firstRecordAtOrAfter(batch: Buffer, header: StoredBatchHeader, timestampMs: number, startingOffset: number): { offset: number; timestamp: number } | null {
  if ((header.attributes & BatchAttributes.TIMESTAMP_TYPE_MASK) !== 0) {
    return { offset: Math.max(header.baseOffset, startingOffset), timestamp: header.maxTimestamp };
  }
  if (batch.length < header.sizeInBytes || header.sizeInBytes < BatchLayout.LOG_OVERHEAD) return null;
  for (const record of readRecords(batch, { verifyCrc: false })) {
    if (record.offset >= startingOffset && record.timestamp >= timestampMs) return { offset: record.offset, timestamp: record.timestamp };
  }
  return null;
}
