import { buildRecordBatch } from '../record/batch-builder.js';
import { ControlRecordType, readControlRecordType, type KafkaRecord, type RecordBatchHeader } from '../record/records.js';
import type { CoordinatorProducer, CoordinatorRecord } from './coordinator-log.js';
import type { OffsetsTopicRecord } from './offsets-topic.js';

/**
 * One v2 record batch of coordinator records, as Kafka's GroupMetadataManager writes them:
 * CreateTime `timestampMs` on every record, no producer id, no compression
 * (offsets.topic.compression.codec defaults to none). Tombstones have a null value. With a
 * `producer` (TxnOffsetCommit) the batch is transactional, written with the producer's id and
 * epoch and base sequence 0, as Kafka's storeOffsets does for transactional commits.
 */
export function buildOffsetsBatch(records: readonly OffsetsTopicRecord[], timestampMs: number, producer?: CoordinatorProducer): Uint8Array {
  if (records.length === 0) throw new Error('buildOffsetsBatch: no records');
  return buildRecordBatch({
    records: records.map((record) => {
      if (record.key === null) throw new Error('coordinator records always have a key');
      return { key: record.key, value: record.value, timestamp: timestampMs };
    }),
    baseTimestamp: timestampMs,
    compression: 0,
    timestampType: 0,
    ...(producer === undefined ? {} : { isTransactional: true, producerId: producer.producerId, producerEpoch: producer.producerEpoch, baseSequence: 0 }),
  });
}

/**
 * What a coordinator replays of one batch read back from its partition: each record with the
 * producer id when the batch is transactional; a control batch (transaction marker) becomes one
 * `{ control, producerId }` entry with null key and value.
 */
export function coordinatorRecordsOf(header: RecordBatchHeader, records: readonly KafkaRecord[]): CoordinatorRecord[] {
  if (header.isControl) {
    const type = records[0] === undefined ? null : readControlRecordType(records[0]);
    if (type === null) return [];
    return [{ key: null, value: null, producerId: header.producerId, control: type === ControlRecordType.COMMIT ? 'commit' : 'abort' }];
  }
  return records.map((record) => (header.isTransactional
    ? { key: record.key, value: record.value, producerId: header.producerId }
    : { key: record.key, value: record.value }));
}
