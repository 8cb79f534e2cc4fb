/**
 * The timestamp of the record at an offset, as far as the batch header tells it: what consumer
 * lag in seconds measures from (the oldest record a group has not consumed,
 * host/metrics/consumer-lag-monitor.ts). Bounded work: one offset-index lookup, a header scan of
 * at most `index.interval.bytes` in one segment, and one 61-byte read; records are never decoded.
 *
 * Which timestamp: a CreateTime batch's base timestamp (its first record's), which is the record's
 * own when the offset starts the batch (consumers fetch and commit whole batches, so it usually
 * does) and otherwise at most the batch's own time span too old; a LogAppendTime batch's max
 * timestamp, the broker's append time of every record in it (Kafka's DefaultRecordBatch rule).
 */
import { BatchAttributes, BatchLayout, MAGIC_V2, RECORD_BATCH_OVERHEAD } from '../wasm/batch-layout.js';
import type { LogSegment } from './log-segment.js';
import { floorSegmentIndex } from './segment-list.js';

/** The batch holding one offset, as the lag computation needs it. */
export interface BatchTimestamp {
  /** First offset of the batch. */
  readonly baseOffset: number;
  /** The timestamp of the record at the asked offset, as described in the file header, ms. */
  readonly timestampMs: number;
}

/**
 * The batch holding `offset` (or the first batch after it, when compaction removed it) in
 * `segments` (oldest first, as UnifiedLog.logSegments), or null when none holds it or the disk
 * failed (the log's own reads report the failure; this read is advisory).
 */
export function batchTimestampAt(segments: readonly LogSegment[], offset: number): BatchTimestamp | null {
  let index = floorSegmentIndex(segments, offset);
  try {
    for (index = Math.max(0, index); index < segments.length; index++) {
      const segment = segments[index]!;
      const found = segment.translateOffset(offset);
      if (found === null) continue;
      const header = segment.readBytes(found.position, RECORD_BATCH_OVERHEAD);
      if (header.length < RECORD_BATCH_OVERHEAD) return null;
      const logAppendTime = (found.header.attributes & BatchAttributes.TIMESTAMP_TYPE_MASK) !== 0;
      const timestampMs = logAppendTime ? found.header.maxTimestamp : Number(header.readBigInt64BE(BatchLayout.BASE_TIMESTAMP));
      return { baseOffset: found.header.baseOffset, timestampMs };
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * The same timestamp from the first batch of fetched record bytes (a Fetch response's `records`,
 * which start with the batch holding the fetch offset, or the first after it): null when the
 * bytes hold no whole v2 batch header. Used where the log is on another broker (consumer lag of a
 * partition led elsewhere, host/server/remote-partition-lag.ts).
 */
export function fetchedBatchTimestamp(records: Uint8Array): BatchTimestamp | null {
  if (records.length < RECORD_BATCH_OVERHEAD) return null;
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  if (view.getInt8(BatchLayout.MAGIC) !== MAGIC_V2) return null;
  const logAppendTime = (view.getInt16(BatchLayout.ATTRIBUTES) & BatchAttributes.TIMESTAMP_TYPE_MASK) !== 0;
  const timestampMs = Number(view.getBigInt64(logAppendTime ? BatchLayout.MAX_TIMESTAMP : BatchLayout.BASE_TIMESTAMP));
  return { baseOffset: Number(view.getBigInt64(BatchLayout.BASE_OFFSET)), timestampMs };
}
