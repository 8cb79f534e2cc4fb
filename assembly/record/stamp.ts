// Stamping a validated fresh batch in place, as Kafka's leader does on append
// (LogValidator.assignOffsetsNonCompressed / validateMessagesAndAssignOffsetsCompressed with
// in-place assignment): baseOffset and partitionLeaderEpoch lie outside the CRC, so writing them
// costs nothing more; the timestamp type bit and maxTimestamp lie inside it, so changing them
// means one more CRC pass over the batch (DefaultRecordBatch.setMaxTimestamp).

import { loadI16BE, loadI64BE, storeI16BE, storeI32BE, storeI64BE } from '../memory/bytes';
import { crc32c } from '../crc/crc32c';
import {
  ATTRIBUTES_OFFSET, BASE_OFFSET_OFFSET, CRC_OFFSET, MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET, TIMESTAMP_TYPE_MASK,
} from './batch-layout';

/**
 * Stamps one batch of `sizeInBytes` bytes. `logAppendTimeMs` < 0 means CreateTime: the timestamp
 * type bit is cleared and maxTimestamp set to `createTimeMaxTimestamp` (the walked maximum, or
 * the header's own value for compressed batches). Otherwise the bit is set and maxTimestamp =
 * logAppendTimeMs; baseTimestamp and the record deltas stay as the producer wrote them (Kafka does
 * the same; readers of LogAppendTime batches use maxTimestamp for every record).
 * Returns true when the CRC had to be recomputed.
 */
export function stampBatch(
  batch: usize, sizeInBytes: usize, baseOffset: i64, leaderEpoch: i32,
  logAppendTimeMs: i64, createTimeMaxTimestamp: i64,
): bool {
  storeI64BE(batch + BASE_OFFSET_OFFSET, baseOffset);
  storeI32BE(batch + PARTITION_LEADER_EPOCH_OFFSET, leaderEpoch);

  let attributes = loadI16BE(batch + ATTRIBUTES_OFFSET) & 0xffff;
  let maxTimestamp = loadI64BE(batch + MAX_TIMESTAMP_OFFSET);
  let wantedAttributes: i32;
  let wantedMaxTimestamp: i64;
  if (logAppendTimeMs >= 0) {
    wantedAttributes = attributes | TIMESTAMP_TYPE_MASK;
    wantedMaxTimestamp = logAppendTimeMs;
  } else {
    wantedAttributes = attributes & ~TIMESTAMP_TYPE_MASK;
    wantedMaxTimestamp = createTimeMaxTimestamp;
  }
  if (wantedAttributes == attributes && wantedMaxTimestamp == maxTimestamp) return false;
  storeI16BE(batch + ATTRIBUTES_OFFSET, wantedAttributes);
  storeI64BE(batch + MAX_TIMESTAMP_OFFSET, wantedMaxTimestamp);
  let crcStart = batch + ATTRIBUTES_OFFSET;
  storeI32BE(batch + CRC_OFFSET, <i32>crc32c(crcStart, batch + sizeInBytes - crcStart));
  return true;
}
