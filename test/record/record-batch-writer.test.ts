import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildRecordBatch, RecordBatchWriter, type RecordHeaderInput } from '../../host/record/batch-builder.js';
import { readBatch } from '../../host/record/records.js';

interface Input {
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: RecordHeaderInput[];
  timestamp: number;
}

const input: fc.Arbitrary<Input> = fc.record({
  key: fc.option(fc.uint8Array({ maxLength: 40 }), { nil: null }),
  value: fc.option(fc.uint8Array({ maxLength: 400 }), { nil: null }),
  headers: fc.array(fc.record({
    key: fc.string({ maxLength: 10 }),
    value: fc.option(fc.oneof(fc.uint8Array({ maxLength: 20 }), fc.string({ maxLength: 10 })), { nil: null }),
  }), { maxLength: 3 }),
  // Around now, and far from it (deltas beyond 31 bits and negative deltas).
  timestamp: fc.oneof(fc.integer({ min: 1_700_000_000_000, max: 1_700_000_100_000 }), fc.integer({ min: 0, max: 4_000_000_000_000 })),
});

const producerFields = fc.record({
  producerId: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
  producerEpoch: fc.integer({ min: -1, max: 32767 }),
  baseSequence: fc.integer({ min: -1, max: 2147483647 }),
});

function write(records: Input[], initialCapacity: number): RecordBatchWriter {
  const writer = new RecordBatchWriter(initialCapacity);
  for (const r of records) writer.append(r.key, r.value, r.headers, r.timestamp);
  return writer;
}

function asBytes(value: Uint8Array | string | null): Buffer | null {
  return value === null ? null : Buffer.from(typeof value === 'string' ? new TextEncoder().encode(value) : value);
}

describe('RecordBatchWriter', () => {
  it('writes batches byte-identical to buildRecordBatch, for every codec and producer fields', () => {
    fc.assert(fc.property(fc.array(input, { minLength: 1, maxLength: 40 }), producerFields, fc.constantFrom(0, 1, 2, 3, 4), fc.integer({ min: 1, max: 5000 }),
      (records, fields, compression, capacity) => {
        const written = write(records, capacity).build({ compression, ...fields });
        const reference = buildRecordBatch({ records, compression, ...fields });
        expect(Buffer.from(written).equals(reference)).toBe(true);
      }), { numRuns: 150 });
  });

  it('writes batches that decode to exactly the records appended (null keys and values, headers, timestamps)', () => {
    fc.assert(fc.property(fc.array(input, { minLength: 1, maxLength: 40 }), fc.constantFrom(0, 1, 2, 3, 4), (records, compression) => {
      const { header, records: decoded } = readBatch(write(records, 64).build({ compression, producerId: 7, producerEpoch: 1, baseSequence: 3 }));
      expect(header.recordCount).toBe(records.length);
      expect(header.compression).toBe(compression);
      expect([header.producerId, header.producerEpoch, header.baseSequence]).toEqual([7, 1, 3]);
      expect(header.maxTimestamp).toBe(Math.max(...records.map((r) => r.timestamp)));
      expect(decoded.map((r) => r.offset)).toEqual(records.map((_, i) => i));
      expect(decoded.map((r) => r.timestamp)).toEqual(records.map((r) => r.timestamp));
      expect(decoded.map((r) => r.key)).toEqual(records.map((r) => asBytes(r.key)));
      expect(decoded.map((r) => r.value)).toEqual(records.map((r) => asBytes(r.value)));
      expect(decoded.map((r) => r.headers)).toEqual(records.map((r) => r.headers.map((h) => ({ key: h.key, value: asBytes(h.value) }))));
    }), { numRuns: 150 });
  });

  it('rebuilds the same records under new producer fields (a retry after a producer id reset)', () => {
    const writer = write([{ key: null, value: Buffer.from('v'), headers: [], timestamp: 1_700_000_000_000 }], 16);
    const first = Buffer.from(writer.build({ compression: 0, producerId: 1, producerEpoch: 0, baseSequence: 0 }));
    const second = writer.build({ compression: 0, producerId: 2, producerEpoch: 0, baseSequence: 0 });
    expect(second.equals(first)).toBe(false);
    const { header, records } = readBatch(second);
    expect(header.producerId).toBe(2);
    expect(records[0]!.value).toEqual(Buffer.from('v'));
  });

  it('refuses a timestamp that is not a safe integer and keeps what it holds', () => {
    const writer = write([{ key: null, value: null, headers: [], timestamp: 5 }], 16);
    expect(() => writer.append(null, null, [], Number.NaN)).toThrow(RangeError);
    expect(writer.count).toBe(1);
    expect(readBatch(writer.build({ compression: 0, producerId: -1, producerEpoch: -1, baseSequence: -1 })).records).toHaveLength(1);
  });

  it('refuses to build a batch without records', () => {
    expect(() => new RecordBatchWriter().build({ compression: 0, producerId: -1, producerEpoch: -1, baseSequence: -1 })).toThrow(RangeError);
  });
});
