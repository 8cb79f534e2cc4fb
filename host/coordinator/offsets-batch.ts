import { buildRecordBatch } from '../record/batch-builder.js';
import type { OffsetsTopicRecord } from './offsets-topic.js';

/**
 * One v2 record batch of coordinator records, as Kafka's GroupMetadataManager writes them:
 * CreateTime `timestampMs` on every record, no producer id, no compression
 * (offsets.topic.compression.codec defaults to none). Tombstones have a null value.
 */
export function buildOffsetsBatch(records: readonly OffsetsTopicRecord[], timestampMs: number): Uint8Array {
  if (records.length === 0) throw new Error('buildOffsetsBatch: no records');
  return buildRecordBatch({
    records: records.map((record) => {
      if (record.key === null) throw new Error('coordinator records always have a key');
      return { key: record.key, value: record.value, timestamp: timestampMs };
    }),
    baseTimestamp: timestampMs,
    compression: 0,
    timestampType: 0,
  });
}
