import { describe, expect, it } from 'vitest';
import { CoreStatus, getCore } from '../../host/wasm/core.js';
import { encodeTestBatch, readTestBatchHeader, testBatchCrcValid, type TestRecord } from '../helpers/independent-batch-encoder.js';

const core = getCore();

function records(n: number, deltas?: number[]): TestRecord[] {
  return Array.from({ length: n }, (_, i) => ({ timestampDelta: deltas?.[i] ?? i, value: Buffer.from(`v${i}`) }));
}

describe('prepareAppend', () => {
  it('stamps base offsets and leader epoch across batches and keeps every CRC valid', () => {
    const blob = Buffer.concat([
      encodeTestBatch({ records: records(3) }),
      encodeTestBatch({ records: records(1) }),
      encodeTestBatch({ records: records(5) }),
    ]);
    const prepared = core.prepareAppend(blob, 100, 7, -1);
    expect(prepared.status).toBe(CoreStatus.OK);
    expect(prepared.firstOffset).toBe(100);
    expect(prepared.lastOffset).toBe(108);
    expect(prepared.batches.map((b) => b.baseOffset)).toEqual([100, 103, 104]);
    const bytes = Buffer.from(prepared.bytes);
    let position = 0;
    for (const expectedBase of [100, 103, 104]) {
      const header = readTestBatchHeader(bytes, position);
      expect(header.baseOffset).toBe(expectedBase);
      expect(header.partitionLeaderEpoch).toBe(7);
      expect(testBatchCrcValid(bytes, position)).toBe(true);
      position += 12 + header.batchLength;
    }
  });

  it('sets the LogAppendTime bit and maxTimestamp and recomputes the CRC', () => {
    const blob = encodeTestBatch({ records: records(4) });
    const prepared = core.prepareAppend(blob, 0, 0, 1_800_000_000_000);
    expect(prepared.status).toBe(CoreStatus.OK);
    const header = readTestBatchHeader(prepared.bytes);
    expect(header.attributes & 0x08).toBe(0x08);
    expect(header.maxTimestamp).toBe(1_800_000_000_000);
    expect(header.baseTimestamp).toBe(1_700_000_000_000);
    expect(testBatchCrcValid(prepared.bytes)).toBe(true);
    expect(prepared.maxTimestamp).toBe(1_800_000_000_000);
    expect(prepared.offsetOfMaxTimestamp).toBe(0);
  });

  it('rejects an empty blob as INVALID_RECORD', () => {
    expect(core.prepareAppend(new Uint8Array(0), 0, 0, -1)).toMatchObject({ status: CoreStatus.EMPTY_RECORDS, errorCode: 87 });
  });
});
