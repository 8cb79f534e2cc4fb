// Stamping a validated fresh batch in place, as Kafka's leader does on append
// (LogValidator.assignOffsetsNonCompressed / validateMessagesAndAssignOffsetsCompressed with
// in-place assignment): baseOffset and partitionLeaderEpoch lie outside the CRC, so writing them
// costs nothing more; the timestamp type bit and maxTimestamp lie inside it, so changing them
// changes the CRC (DefaultRecordBatch.setMaxTimestamp).
//
// Kafka recomputes that CRC with a second pass over the batch. We update it instead: CRC-32C is
// affine, so for two messages of equal length CRC(new) = CRC(old) ^ raw(old ^ new), where raw is
// the register with zero initial value and no final xor. old ^ new is zero except the 2 attribute
// bytes and 8 maxTimestamp bytes near the start, so raw(old ^ new) is the register over those
// first 22 bytes shifted over the remaining zero bytes (multiplication by x^(8n) mod P, O(log n)).
// The old CRC was verified by validateBatch just before, so the update is exact.

import { loadI16BE, loadI32BE, loadI64BE, storeI16BE, storeI32BE, storeI64BE } from '../memory/bytes';
import { crc32cRawByte, crc32cShiftZeros } from '../crc/crc32c';
import {
  ATTRIBUTES_LENGTH, ATTRIBUTES_OFFSET, BASE_OFFSET_OFFSET, CRC_OFFSET, MAX_TIMESTAMP_LENGTH, MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET, TIMESTAMP_TYPE_MASK,
} from './batch-layout';

/**
 * Stamps one batch of `sizeInBytes` bytes. `logAppendTimeMs` < 0 means CreateTime: the timestamp
 * type bit is cleared and maxTimestamp set to `createTimeMaxTimestamp` (the walked maximum, or
 * the header's own value for compressed batches). Otherwise the bit is set and maxTimestamp =
 * logAppendTimeMs; baseTimestamp and the record deltas stay as the producer wrote them (Kafka does
 * the same; readers of LogAppendTime batches use maxTimestamp for every record).
 * Returns true when attributes/maxTimestamp changed and the CRC was updated.
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

  // raw(old ^ new) over the covered range [ATTRIBUTES_OFFSET, end).
  let attributesDiff = <u32>(attributes ^ wantedAttributes);
  let register = crc32cRawByte(0, (attributesDiff >>> 8) & 0xff);
  register = crc32cRawByte(register, attributesDiff & 0xff);
  register = crc32cShiftZeros(register, MAX_TIMESTAMP_OFFSET - (ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH));
  let maxTimestampDiff = <u64>(maxTimestamp ^ wantedMaxTimestamp);
  for (let shift: i32 = 56; shift >= 0; shift -= 8) {
    register = crc32cRawByte(register, <u32>(maxTimestampDiff >>> <u64>shift) & 0xff);
  }
  let diffEnd = MAX_TIMESTAMP_OFFSET + MAX_TIMESTAMP_LENGTH;
  register = crc32cShiftZeros(register, sizeInBytes - diffEnd);
  let storedCrc = <u32>loadI32BE(batch + CRC_OFFSET);
  storeI32BE(batch + CRC_OFFSET, <i32>(storedCrc ^ register));
  return true;
}
