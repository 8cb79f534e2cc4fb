import { describe, expect, it } from 'vitest';
import { CoreStatus, getCore } from '../../host/wasm/core.js';
import { encodeTestBatch, type TestRecord } from '../helpers/independent-batch-encoder.js';

const core = getCore();
const text = (s: string) => Buffer.from(s);

function records(n: number): TestRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    timestampDelta: i * 3,
    key: i % 3 === 0 ? null : text(`key-${i}`),
    value: i % 5 === 0 ? null : text(`value-${i}`.repeat(i % 7)),
    headers: i % 2 ? [{ key: 'h', value: text('v') }, { key: 'n', value: null }] : [],
  }));
}

describe('validateBatches', () => {
  it('accepts a batch from the independent encoder and reports its header', () => {
    const batch = encodeTestBatch({ baseOffset: 42, producerId: 7, producerEpoch: 1, baseSequence: 5, records: records(10) });
    const result = core.validateBatches(batch);
    expect(result.status).toBe(CoreStatus.OK);
    expect(result.errorCode).toBe(0);
    expect(result.validBytes).toBe(batch.length);
    expect(result.batches).toHaveLength(1);
    const summary = result.batches[0]!;
    expect(summary).toMatchObject({
      position: 0, sizeInBytes: batch.length, baseOffset: 42, magic: 2, compression: 0, timestampType: 0,
      isTransactional: false, isControl: false, lastOffsetDelta: 9, recordCount: 10,
      baseTimestamp: 1_700_000_000_000, maxTimestamp: 1_700_000_000_027,
      producerId: 7, producerEpoch: 1, baseSequence: 5, offsetOfMaxTimestamp: 51,
    });
  });

  it('accepts an empty blob with no batches', () => {
    expect(core.validateBatches(new Uint8Array(0))).toMatchObject({ status: CoreStatus.OK, validBytes: 0, batches: [] });
  });

  it('rejects a CRC mismatch as CORRUPT_MESSAGE', () => {
    const batch = encodeTestBatch({ records: records(2), crcOverride: 1234 });
    expect(core.validateBatches(batch)).toMatchObject({ status: CoreStatus.CRC_MISMATCH, errorCode: 2, validBytes: 0 });
  });
});
