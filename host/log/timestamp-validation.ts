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
  for (const batch of batches) {
    if (batch.timestampType === 1) return 'Invalid timestamp type in message. Producer should not set timestamp type to LogAppendTime.';
    if (unlimited) continue;
    const low = nowMs - beforeMaxMs;
    const high = nowMs + afterMaxMs;
    for (const [timestamp, offset] of [[batch.baseTimestamp, batch.baseOffset], [batch.maxTimestamp, batch.offsetOfMaxTimestamp]] as const) {
      if (timestamp === NO_TIMESTAMP) continue;
      if (timestamp < low || timestamp > high) {
        return `Timestamp ${timestamp} of message with offset ${offset} is out of range. The timestamp should be within [${low}, ${high}]`;
      }
    }
  }
  return null;
}
