import { afterEach, describe, expect, it } from 'vitest';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { getCore } from '../../host/wasm/core.js';
import { openLog, removeTempDirs } from './log-test-helpers.js';

afterEach(removeTempDirs);

const CRC_OFFSET = 17;
const ATTRIBUTES_OFFSET = 21;
const LAST_OFFSET_DELTA_OFFSET = 23;
const RECORD_COUNT_OFFSET = 57;
const RECORDS_OFFSET = 61;
const INVALID_RECORD = 87;
const CORRUPT_MESSAGE = 2;

/** Rewrites the CRC-32C (over attributes..end) so only the deliberate damage remains. */
function recrc(batch: Buffer): Buffer {
  batch.writeUInt32BE(getCore().crc32c(batch.subarray(ATTRIBUTES_OFFSET)), CRC_OFFSET);
  return batch;
}

function records(count: number): { key: Buffer; value: Buffer }[] {
  return Array.from({ length: count }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`value-${i}`.repeat(20)) }));
}

describe('UnifiedLog leader validation of compressed and control batches', () => {
  it.each([1, 2, 3, 4])('accepts a valid batch compressed with codec %i and reads its records back', (codec) => {
    const { log } = openLog();
    const batch = buildRecordBatch({ records: records(3), compression: codec, baseTimestamp: 1_700_000_000_000 });
    const result = log.appendAsLeader(batch, 0);
    expect(result.errorCode).toBe(0);
    expect(result.lastOffset - result.baseOffset).toBe(2);
    expect(log.logEndOffset).toBe(3);
  });

  it.each([1, 2, 3, 4])('rejects a codec %i batch whose compressed payload is garbage but whose CRC is valid', (codec) => {
    const { log } = openLog();
    const batch = buildRecordBatch({ records: records(3), compression: codec, baseTimestamp: 1_700_000_000_000 });
    for (let i = RECORDS_OFFSET; i < batch.length; i++) batch[i] = (i * 37 + 11) & 0xff;
    const result = log.appendAsLeader(recrc(batch), 0);
    expect([CORRUPT_MESSAGE, INVALID_RECORD]).toContain(result.errorCode);
    expect(log.logEndOffset).toBe(0);
  });

  it('rejects a compressed batch whose header claims 3 records when its payload holds 1', () => {
    const { log } = openLog();
    const batch = buildRecordBatch({ records: records(1), compression: 1, lastOffsetDelta: 2, baseTimestamp: 1_700_000_000_000 });
    batch.writeInt32BE(3, RECORD_COUNT_OFFSET);
    const result = log.appendAsLeader(recrc(batch), 0);
    expect(result.errorCode).toBe(INVALID_RECORD);
    expect(log.logEndOffset).toBe(0);
  });

  it('rejects a compressed batch whose lastOffsetDelta disagrees with its single record', () => {
    const { log } = openLog();
    const batch = buildRecordBatch({ records: records(1), compression: 2, lastOffsetDelta: 2, baseTimestamp: 1_700_000_000_000 });
    const result = log.appendAsLeader(batch, 0);
    expect(result.errorCode).toBe(INVALID_RECORD);
    expect(log.logEndOffset).toBe(0);
  });

  it('rejects a compressed batch whose record offset deltas are not 0..n-1', () => {
    const { log } = openLog();
    const batch = buildRecordBatch({
      records: [{ value: Buffer.from('a'), offsetDelta: 0 }, { value: Buffer.from('b'), offsetDelta: 2 }],
      compression: 1,
      baseTimestamp: 1_700_000_000_000,
    });
    batch.writeInt32BE(1, LAST_OFFSET_DELTA_OFFSET);
    const result = log.appendAsLeader(recrc(batch), 0);
    expect(result.errorCode).toBe(INVALID_RECORD);
    expect(log.logEndOffset).toBe(0);
  });

  it('rejects a control batch written by a client', () => {
    const { log } = openLog();
    const batch = buildRecordBatch({ records: records(1), isControl: true, isTransactional: true, producerId: 7, producerEpoch: 0 });
    const result = log.appendAsLeader(batch, 0);
    expect(result.errorCode).toBe(INVALID_RECORD);
    expect(log.logEndOffset).toBe(0);
  });
});
