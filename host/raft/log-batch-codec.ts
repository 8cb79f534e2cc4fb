/**
 * Raft {@link LogBatch}es as Kafka RecordBatches (magic 2), the form the metadata log takes on the
 * wire (Fetch's Records) and on disk (`__cluster_metadata-0` segments), as in KRaft:
 *
 * - baseOffset = the batch's first offset; partitionLeaderEpoch = the epoch it was written in;
 * - the control attribute (bit 5) marks Raft's own control batches (the LeaderChange record);
 * - each record's value is the opaque record bytes; keys are null, timestamps the given time.
 *
 * Layout and CRC-32C: ../shared/kafka-protocol (RecordBatch v2), built and checked by host/record.
 */
import { buildRecordBatch } from '../record/batch-builder.js';
import { CorruptRecordError, iterateBatches, readBatch } from '../record/records.js';
import type { LogBatch } from './raft-log.js';

/**
 * Encodes `batches` as concatenated RecordBatches.
 * @param timestampMs the records' timestamp, wall-clock ms (the injected clock's `nowMs`)
 */
export function encodeLogBatches(batches: readonly LogBatch[], timestampMs: number): Uint8Array {
  if (batches.length === 0) return new Uint8Array(0);
  const parts = batches.map((batch) => buildRecordBatch({
    records: batch.records.map((value) => ({ value, timestamp: timestampMs })),
    baseOffset: batch.baseOffset,
    partitionLeaderEpoch: batch.epoch,
    isControl: batch.control,
    baseTimestamp: timestampMs,
    maxTimestamp: timestampMs,
  }));
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/**
 * Decodes concatenated RecordBatches into LogBatches, checking each CRC. A partial batch at the
 * end (a Fetch response cut at its byte limit) is ignored, as Kafka's consumers do.
 * @throws CorruptRecordError on a bad CRC or a malformed batch (never returns a torn batch)
 */
export function decodeLogBatches(bytes: Uint8Array): LogBatch[] {
  const out: LogBatch[] = [];
  for (const raw of iterateBatches(bytes)) {
    const { header, records } = readBatch(raw, { verifyCrc: true });
    if (header.magic !== 2) throw new CorruptRecordError(`metadata batch at offset ${header.baseOffset} has magic ${header.magic}, expected 2`);
    if (records.length !== header.lastOffsetDelta + 1) {
      throw new CorruptRecordError(`metadata batch at offset ${header.baseOffset} has gaps (${records.length} records, last offset delta ${header.lastOffsetDelta})`);
    }
    out.push({
      baseOffset: header.baseOffset,
      epoch: header.partitionLeaderEpoch,
      control: header.isControl,
      records: records.map((record) => record.value ?? new Uint8Array(0)),
    });
  }
  return out;
}
