/**
 * Kafka's LogValidator.validateTimestamp for a leader append (KIP-937): on a CreateTime topic a
 * record whose timestamp lies more than message.timestamp.before.max.ms before the broker's
 * clock, or more than message.timestamp.after.max.ms after it, fails the append with
 * INVALID_TIMESTAMP (32); a client batch claiming LogAppendTime on a CreateTime topic too.
 *
 * Checked on each batch's first and largest timestamps (the core's batch summaries), which bound
 * its records' timestamps when they do not decrease within the batch, as producers write them.
 */
import type { BatchSummary } from '../wasm/core.js';
import { type LogConfig, timestampBounds } from './log-config.js';

/** RecordBatch.NO_TIMESTAMP. */
const NO_TIMESTAMP = -1;

/**
 * The reason the batches' timestamps are refused (Kafka's message), or null when they are
 * accepted or the topic stamps LogAppendTime itself.
 */
export function checkTimestamps(batches: readonly BatchSummary[], config: LogConfig, nowMs: number): string | null {
  if (config.messageTimestampType !== 'CreateTime') return null;
  const { beforeMaxMs, afterMaxMs } = timestampBounds(config);
  const unlimited = beforeMaxMs === Number.MAX_SAFE_INTEGER && afterMaxMs === Number.MAX_SAFE_INTEGER;
  const low = nowMs - beforeMaxMs;
  const high = nowMs + afterMaxMs;
  for (const batch of batches) {
    if (batch.timestampType === 1) return 'Invalid timestamp type in message. Producer should not set timestamp type to LogAppendTime.';
    if (unlimited) continue;
    // Two plain checks per batch: this runs on every append to a topic with a bound set.
    const problem = outOfRange(batch.baseTimestamp, batch.baseOffset, low, high) ?? outOfRange(batch.maxTimestamp, batch.offsetOfMaxTimestamp, low, high);
    if (problem !== null) return problem;
  }
  return null;
}

/** Kafka's message for a `timestamp` (of the record at `offset`) outside [low, high]; null inside or for NO_TIMESTAMP. */
function outOfRange(timestamp: number, offset: number, low: number, high: number): string | null {
  if (timestamp === NO_TIMESTAMP || (timestamp >= low && timestamp <= high)) return null;
  return `Timestamp ${timestamp} of message with offset ${offset} is out of range. The timestamp should be within [${low}, ${high}]`;
}
