/**
 * Searches over a log's segment list (sorted by base offset, the last one active), shared by
 * {@link UnifiedLog}'s reads, truncation, flushes and retention.
 */
import type { LogConfig } from './log-config.js';
import { type LogSegment, MAX_RELATIVE_OFFSET } from './log-segment.js';

/** Index of the last segment with baseOffset <= `offset`, or -1 (binary search). */
export function floorSegmentIndex(segments: readonly LogSegment[], offset: number): number {
  let low = 0;
  let high = segments.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (segments[middle]!.baseOffset <= offset) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

/**
 * Kafka's deletableSegments: the leading run of `segments` satisfying `predicate` whose offsets
 * all lie below `highWatermark` (the next segment's base, or `logEndOffset` for the last one).
 * An empty active segment is never included.
 */
export function leadingDeletableSegments(
  segments: readonly LogSegment[],
  highWatermark: number,
  logEndOffset: number,
  predicate: (segment: LogSegment, next: LogSegment | undefined) => boolean,
): LogSegment[] {
  const result: LogSegment[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const next = segments[i + 1];
    const upperBound = next === undefined ? logEndOffset : next.baseOffset;
    if (next === undefined && segment.size === 0) break;
    if (highWatermark < upperBound || !predicate(segment, next)) break;
    result.push(segment);
  }
  return result;
}

/**
 * retention.bytes' predicate for {@link leadingDeletableSegments} (Kafka's shouldDelete in
 * deleteRetentionSizeBreachedSegments): oldest segments first while deleting them removes at most
 * `excessBytes` (the log's size above retention.bytes). Stateful: one use per pass.
 */
export function oldestWithin(excessBytes: number): (segment: LogSegment) => boolean {
  let excess = excessBytes;
  return (segment) => {
    if (excess - segment.size < 0) return false;
    excess -= segment.size;
    return true;
  };
}

/**
 * Kafka's shouldRoll for the `active` segment before an append of `appendBytes` bytes whose
 * largest timestamp is `maxTimestamp` and last offset `lastOffset`: segment.bytes, segment.ms (by
 * message timestamps, else by the segment's age at `nowMs`), a full index, or relative offsets out
 * of range. An empty segment never rolls.
 */
export function shouldRollSegment(
  active: LogSegment,
  config: Pick<LogConfig, 'segmentBytes' | 'segmentMs'>,
  appendBytes: number,
  maxTimestamp: number,
  lastOffset: number,
  nowMs: number,
): boolean {
  if (active.size === 0) return false;
  if (active.size > config.segmentBytes - appendBytes) return true;
  const firstTimestamp = active.firstBatchTimestamp();
  const waitedMs = firstTimestamp >= 0 ? maxTimestamp - firstTimestamp : nowMs - active.createdMs;
  if (waitedMs > config.segmentMs) return true;
  if (active.offsetIndex.isFull || active.timeIndex.isFull) return true;
  return lastOffset - active.baseOffset > MAX_RELATIVE_OFFSET;
}
