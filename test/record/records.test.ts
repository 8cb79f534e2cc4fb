import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CoreStatus, getCore } from '../../host/wasm/core.js';
import { buildControlBatch, buildRecordBatch, type RecordInput } from '../../host/record/batch-builder.js';
import { CompressionType, compress } from '../../host/record/compression.js';
import {
  ControlRecordType, CorruptRecordError, iterateBatches, readBatch, readControlRecordType, readRecords,
} from '../../host/record/records.js';
import { encodeTestBatch, encodeTestRecord, type TestRecord } from '../helpers/independent-batch-encoder.js';

const core = getCore();
const codecs = [0, 1, 2, 3, 4];

const recordInput: fc.Arbitrary<RecordInput> = fc.record({
  key: fc.option(fc.uint8Array({ maxLength: 30 }), { nil: null }),
  value: fc.option(fc.uint8Array({ maxLength: 300 }), { nil: null }),
  headers: fc.array(fc.record({ key: fc.string({ maxLength: 10 }), value: fc.option(fc.uint8Array({ maxLength: 20 }), { nil: null }) }), { maxLength: 3 }),
  timestamp: fc.integer({ min: 0, max: 4_000_000_000_000 }),
});

function bytesEqual(a: Uint8Array | null, b: Uint8Array | null | undefined): boolean {
  if (a === null || b === null || b === undefined) return a === null && (b === null || b === undefined);
  return Buffer.from(a).equals(Buffer.from(b));
}

describe('readRecords', () => {
  it('decodes a batch from the independent encoder: offsets, timestamps, keys, values, headers', () => {
    const records: TestRecord[] = [
      { timestampDelta: 0, key: Buffer.from('a'), value: Buffer.from('1'), headers: [{ key: 'trace', value: Buffer.from('x') }] },
      { timestampDelta: -5, key: null, value: null, headers: [{ key: 'empty', value: null }] },
      { timestampDelta: 3_000_000_000, key: Buffer.alloc(0), value: Buffer.alloc(200, 1) },
    ];
    const batch = encodeTestBatch({ baseOffset: 500, baseTimestamp: 1_000_000, records });
    const decoded = readRecords(batch);
    expect(decoded.map((r) => r.offset)).toEqual([500, 501, 502]);
    expect(decoded.map((r) => r.timestamp)).toEqual([1_000_000, 999_995, 3_001_000_000]);
    expect(decoded[0]!.key!.toString()).toBe('a');
    expect(decoded[0]!.headers).toEqual([{ key: 'trace', value: Buffer.from('x') }]);
    expect(decoded[1]!.key).toBeNull();
    expect(decoded[1]!.value).toBeNull();
    expect(decoded[1]!.headers).toEqual([{ key: 'empty', value: null }]);
    expect(decoded[2]!.key!.length).toBe(0);
    expect(decoded[2]!.value!.length).toBe(200);
  });

  it('decodes compressed batches from the independent encoder for every codec', () => {
    const records: TestRecord[] = Array.from({ length: 20 }, (_, i) => ({ timestampDelta: i, value: Buffer.from(`value ${i}`) }));
    const section = Buffer.from(records.flatMap((r, i) => encodeTestRecord(r, i)));
    for (const codec of codecs.slice(1)) {
      const batch = encodeTestBatch({ compression: codec, rawRecords: compress(codec, section), recordCount: 20, lastOffsetDelta: 19 });
      const decoded = readRecords(batch);
      expect(decoded.map((r) => r.value!.toString())).toEqual(records.map((r) => r.value!.toString()));
    }
  });

  it('keeps original offsets of a compacted batch', () => {
    const batch = encodeTestBatch({ baseOffset: 10, records: [{ offsetDelta: 0 }, { offsetDelta: 4 }], lastOffsetDelta: 6 });
    expect(readRecords(batch).map((r) => r.offset)).toEqual([10, 14]);
  });

  it('gives every record of a LogAppendTime batch the batch maxTimestamp', () => {
    const batch = encodeTestBatch({ logAppendTime: true, maxTimestamp: 42, records: [{ timestampDelta: 1 }, { timestampDelta: 2 }] });
    expect(readRecords(batch).map((r) => r.timestamp)).toEqual([42, 42]);
  });

  it('returns views into the batch rather than copies', () => {
    const batch = encodeTestBatch({ records: [{ value: Buffer.from('view') }] });
    const [record] = readRecords(batch);
    expect(record!.value!.buffer).toBe(batch.buffer);
  });

  it('throws CorruptRecordError on a CRC mismatch unless verification is off', () => {
    const batch = encodeTestBatch({ records: [{ value: Buffer.from('x') }], crcOverride: 1 });
    expect(() => readRecords(batch)).toThrow(CorruptRecordError);
    expect(readRecords(batch, { verifyCrc: false })).toHaveLength(1);
  });

  it('throws only CorruptRecordError, never anything else, for damaged batches', () => {
    const good = buildRecordBatch({ records: [{ key: 'k', value: 'v', headers: [{ key: 'h', value: 'w' }] }, { value: 'second' }] });
    fc.assert(
      fc.property(fc.nat(), fc.nat(255), fc.nat(good.length), (where, value, cut) => {
        const damaged = Buffer.from(good);
        damaged[where % good.length] = value;
        for (const candidate of [damaged, damaged.subarray(0, cut)]) {
          for (const verifyCrc of [true, false]) {
            try {
              const records = readRecords(candidate, { verifyCrc });
              expect(Array.isArray(records)).toBe(true);
            } catch (error) {
              expect(error).toBeInstanceOf(CorruptRecordError);
              expect((error as CorruptRecordError).errorCode).toBe(2);
            }
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('splits a blob into whole batches and skips a partial tail', () => {
    const a = buildRecordBatch({ records: [{ value: 'a' }] });
    const b = buildRecordBatch({ records: [{ value: 'b' }, { value: 'c' }] });
    const blob = Buffer.concat([a, b, b.subarray(0, 30)]);
    const batches = [...iterateBatches(blob)];
    expect(batches.map((batch) => batch.length)).toEqual([a.length, b.length]);
    expect(batches.flatMap((batch) => readRecords(batch)).map((r) => r.value!.toString())).toEqual(['a', 'b', 'c']);
  });
});

describe('buildRecordBatch', () => {
  it('builds batches the core accepts as fresh and records.ts decodes back, for every codec', () => {
    fc.assert(
      fc.property(
        fc.array(recordInput, { minLength: 1, maxLength: 10 }),
        fc.constantFrom(...codecs),
        fc.record({ producerId: fc.nat(1000), producerEpoch: fc.nat(100), baseSequence: fc.nat(1000) }),
        fc.boolean(),
        (inputs, compression, producer, idempotent) => {
          const batch = buildRecordBatch({ records: inputs, compression, ...(idempotent ? producer : {}) });
          const result = core.validateBatches(batch, { fresh: true });
          expect(result.status).toBe(CoreStatus.OK);
          const summary = result.batches[0]!;
          expect(summary.compression).toBe(compression);
          expect(summary.recordCount).toBe(inputs.length);
          expect(summary.baseTimestamp).toBe(inputs[0]!.timestamp);
          expect(summary.maxTimestamp).toBe(Math.max(...inputs.map((r) => r.timestamp!)));
          expect(summary.producerId).toBe(idempotent ? producer.producerId : -1);
          const { header, records } = readBatch(batch);
          expect(header.recordCount).toBe(inputs.length);
          records.forEach((record, i) => {
            const input = inputs[i]!;
            expect(record.offset).toBe(i);
            expect(record.timestamp).toBe(input.timestamp);
            expect(bytesEqual(record.key, input.key as Uint8Array | null)).toBe(true);
            expect(bytesEqual(record.value, input.value as Uint8Array | null)).toBe(true);
            expect(record.headers.map((h) => h.key)).toEqual(input.headers!.map((h) => h.key));
            record.headers.forEach((h, j) => expect(bytesEqual(h.value, input.headers![j]!.value as Uint8Array | null)).toBe(true));
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('sets the attribute flags and producer fields it is given', () => {
    const batch = buildRecordBatch({
      records: [{ value: 'x', timestamp: 5 }], baseOffset: 77, partitionLeaderEpoch: 3, isTransactional: true,
      timestampType: 1, producerId: 9, producerEpoch: 2, baseSequence: 11, compression: CompressionType.GZIP,
    });
    const { header } = readBatch(batch);
    expect(header).toMatchObject({
      baseOffset: 77, partitionLeaderEpoch: 3, isTransactional: true, isControl: false, timestampType: 1,
      compression: 1, producerId: 9, producerEpoch: 2, baseSequence: 11, lastOffset: 77,
    });
  });

  it('builds a compacted batch keeping offset deltas and lastOffsetDelta, valid as a stored batch', () => {
    const batch = buildRecordBatch({ records: [{ value: 'a', offsetDelta: 1 }, { value: 'b', offsetDelta: 5 }], lastOffsetDelta: 8, baseOffset: 100 });
    expect(core.validateBatches(batch).status).toBe(CoreStatus.OK);
    expect(readRecords(batch).map((r) => r.offset)).toEqual([101, 105]);
    expect(readBatch(batch).header.lastOffset).toBe(108);
    const empty = buildRecordBatch({ records: [], lastOffsetDelta: 3, producerId: 4, producerEpoch: 0, baseSequence: 0 });
    expect(core.validateBatches(empty)).toMatchObject({ status: CoreStatus.OK });
  });

  it('writes a delete horizon into baseTimestamp with bit 6 and keeps record timestamps exact', () => {
    const batch = buildRecordBatch({ records: [{ key: 'k', value: null, timestamp: 1000 }], deleteHorizonMs: 90_000 });
    const { header, records } = readBatch(batch);
    expect(header.hasDeleteHorizon).toBe(true);
    expect(header.baseTimestamp).toBe(90_000);
    expect(records[0]!.timestamp).toBe(1000);
  });

  it('builds control batches with a transaction marker', () => {
    const batch = buildControlBatch({ type: ControlRecordType.COMMIT, producerId: 12, producerEpoch: 3, coordinatorEpoch: 7 });
    expect(core.validateBatches(batch, { fresh: true }).batches[0]).toMatchObject({ isControl: true, isTransactional: true, producerId: 12 });
    const [record] = readRecords(batch);
    expect(readControlRecordType(record!)).toBe(ControlRecordType.COMMIT);
    expect(record!.value!.readInt32BE(2)).toBe(7);
  });

  it('rejects inputs outside Kafka field ranges', () => {
    expect(() => buildRecordBatch({ records: [] })).toThrow(RangeError);
    expect(() => buildRecordBatch({ records: [{ offsetDelta: 2 }, { offsetDelta: 2 }] })).toThrow(RangeError);
    expect(() => buildRecordBatch({ records: [{}], producerEpoch: 40000 })).toThrow(RangeError);
    expect(() => buildRecordBatch({ records: [{}], compression: 9 })).toThrow(RangeError);
  });
});
