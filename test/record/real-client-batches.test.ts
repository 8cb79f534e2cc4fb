import { describe, expect, it } from 'vitest';
import { CoreStatus, getCore } from '../../host/wasm/core.js';
import { readBatch } from '../../host/record/records.js';
import { testBatchCrcValid } from '../helpers/independent-batch-encoder.js';
import { KAFKA_PYTHON_BATCHES_HEX } from './fixtures/kafka-python-batches.js';

const core = getCore();
const batches = Object.fromEntries(
  Object.entries(KAFKA_PYTHON_BATCHES_HEX).map(([name, hex]) => [name, Buffer.from(hex, 'hex')]),
) as Record<keyof typeof KAFKA_PYTHON_BATCHES_HEX, Buffer>;

describe('batches written by kafka-python 2.0.2 (captured from its own encoder)', () => {
  for (const [name, batch] of Object.entries(batches)) {
    it(`${name}: the core accepts it as a fresh batch and records.ts decodes every record`, () => {
      const result = core.validateBatches(batch, { fresh: true });
      expect(result.status).toBe(CoreStatus.OK);
      const summary = result.batches[0]!;
      expect(summary).toMatchObject({
        sizeInBytes: batch.length, magic: 2, recordCount: 3, lastOffsetDelta: 2,
        baseTimestamp: 1_700_000_000_000, maxTimestamp: 1_700_000_000_005, partitionLeaderEpoch: 0,
      });
      const { records } = readBatch(batch);
      expect(records.map((r) => r.offset)).toEqual([0, 1, 2]);
      expect(records.map((r) => r.timestamp)).toEqual([1_700_000_000_000, 1_700_000_000_005, 1_699_999_999_990]);
      expect(records.map((r) => r.key?.toString() ?? null)).toEqual(['key-0', null, 'key-2']);
      expect(records[0]!.value!.toString()).toBe('value-0');
      expect(records[1]!.value!.toString()).toBe('value-1 '.repeat(20));
      expect(records[2]!.value).toBeNull();
      expect(records[1]!.headers.map((h) => [h.key, h.value?.toString() ?? null])).toEqual([['trace', 'abc'], ['empty', null]]);
    });
  }

  it('reports codec, producer fields and the transactional flag as written', () => {
    expect(core.validateBatches(batches.gzip).batches[0]).toMatchObject({ compression: 1, producerId: -1, producerEpoch: -1, baseSequence: -1 });
    expect(core.validateBatches(batches.idempotent).batches[0]).toMatchObject({ compression: 0, producerId: 4242, producerEpoch: 3, baseSequence: 17, isTransactional: false });
    expect(core.validateBatches(batches.transactionalGzip).batches[0]).toMatchObject({ compression: 1, producerId: 4243, producerEpoch: 0, isTransactional: true });
  });

  it('stays valid for kafka-python consumers after LogAppendTime stamping (they verify CRCs)', () => {
    const prepared = core.prepareAppend(Buffer.concat(Object.values(batches)), 1000, 2, 1_800_000_000_000);
    expect(prepared.status).toBe(CoreStatus.OK);
    let position = 0;
    for (const summary of prepared.batches) {
      expect(testBatchCrcValid(prepared.bytes, position)).toBe(true);
      position += summary.sizeInBytes;
    }
    expect(prepared.lastOffset).toBe(1000 + 4 * 3 - 1);
  });
});
