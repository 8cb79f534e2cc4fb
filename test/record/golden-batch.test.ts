import { describe, expect, it } from 'vitest';
import { CoreStatus, getCore } from '../../host/wasm/core.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { readBatch } from '../../host/record/records.js';
import { GOLDEN_BATCH, GOLDEN_CRC } from './fixtures/golden-batch.js';

const core = getCore();

describe('a hand-derived golden batch', () => {
  it('has the layout the spec gives: 61-byte header + 13-byte record', () => {
    expect(GOLDEN_BATCH.length).toBe(74);
    expect(GOLDEN_BATCH.readInt32BE(8)).toBe(GOLDEN_BATCH.length - 12);
  });

  it('carries a CRC the core computes identically', () => {
    expect(core.crc32c(GOLDEN_BATCH.subarray(21))).toBe(GOLDEN_CRC);
  });

  it('is accepted by the core with the header fields it encodes', () => {
    const result = core.validateBatches(GOLDEN_BATCH, { fresh: true });
    expect(result.status).toBe(CoreStatus.OK);
    expect(result.batches[0]).toEqual({
      position: 0, sizeInBytes: 74, baseOffset: 0, partitionLeaderEpoch: 0, magic: 2, attributes: 0,
      compression: 0, timestampType: 0, isTransactional: false, isControl: false, lastOffsetDelta: 0,
      recordCount: 1, baseTimestamp: 1_700_000_000_000, maxTimestamp: 1_700_000_000_000,
      producerId: -1, producerEpoch: -1, baseSequence: -1, offsetOfMaxTimestamp: 0,
    });
  });

  it('decodes to its one record', () => {
    const { records } = readBatch(GOLDEN_BATCH);
    expect(records).toHaveLength(1);
    expect(records[0]!.offset).toBe(0);
    expect(records[0]!.timestamp).toBe(1_700_000_000_000);
    expect(records[0]!.key!.toString()).toBe('k');
    expect(records[0]!.value!.toString()).toBe('hello');
    expect(records[0]!.headers).toEqual([]);
  });

  it('is reproduced byte for byte by buildRecordBatch', () => {
    const built = buildRecordBatch({
      records: [{ key: 'k', value: 'hello', timestamp: 1_700_000_000_000 }],
      partitionLeaderEpoch: 0,
    });
    expect(built.toString('hex')).toBe(GOLDEN_BATCH.toString('hex'));
  });

  it('stamps like Kafka: offset 1000, epoch 5, CRC unchanged under CreateTime', () => {
    const prepared = core.prepareAppend(GOLDEN_BATCH, 1000, 5, -1);
    expect(prepared.bytes.readBigInt64BE(0)).toBe(1000n);
    expect(prepared.bytes.readInt32BE(12)).toBe(5);
    expect(prepared.bytes.readUInt32BE(17)).toBe(GOLDEN_CRC);
    expect(prepared.bytes.subarray(16).equals(GOLDEN_BATCH.subarray(16))).toBe(true);
  });
});
