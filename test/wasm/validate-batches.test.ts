import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CoreStatus, getCore, type ValidationResult } from '../../host/wasm/core.js';
import {
  decodeTestRecordsStrict, encodeTestBatch, readTestBatchHeader, resignTestBatch, type TestBatch, type TestRecord,
} from '../helpers/independent-batch-encoder.js';

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

/** Batch boundaries of a blob of well-formed batches (test-side). */
function boundaries(blob: Uint8Array): number[] {
  const out = [0];
  let position = 0;
  while (position < blob.length) {
    position += 12 + readTestBatchHeader(blob, position).batchLength;
    out.push(position);
  }
  return out;
}

const recordArbitrary: fc.Arbitrary<TestRecord> = fc.record({
  timestampDelta: fc.integer({ min: -1000, max: 1_000_000 }),
  key: fc.option(fc.uint8Array({ maxLength: 20 }), { nil: null }),
  value: fc.option(fc.uint8Array({ maxLength: 200 }), { nil: null }),
  headers: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: fc.option(fc.uint8Array({ maxLength: 10 }), { nil: null }) }), { maxLength: 3 }),
});

const batchArbitrary: fc.Arbitrary<TestBatch> = fc.record({
  baseOffset: fc.nat(1_000_000),
  partitionLeaderEpoch: fc.integer({ min: -1, max: 100 }),
  baseTimestamp: fc.integer({ min: 0, max: 2_000_000_000_000 }),
  producerId: fc.constant(-1),
  transactional: fc.boolean(),
  records: fc.array(recordArbitrary, { minLength: 1, maxLength: 8 }),
});

const blobArbitrary = fc.array(batchArbitrary, { minLength: 1, maxLength: 4 }).map((batches) => Buffer.concat(batches.map(encodeTestBatch)));

/** A result is internally consistent: batches tile [0, validBytes) exactly, and OK covers everything. */
function expectConsistent(result: ValidationResult, blob: Uint8Array): void {
  let position = 0;
  for (const batch of result.batches) {
    expect(batch.position).toBe(position);
    position += batch.sizeInBytes;
  }
  expect(result.validBytes).toBe(position);
  if (result.status === CoreStatus.OK) expect(result.validBytes).toBe(blob.length);
  else expect(result.errorCode === 2 || result.errorCode === 87 || result.errorCode === 10).toBe(true);
}

describe('validateBatches', () => {
  it('accepts a batch from the independent encoder and reports its header', () => {
    const batch = encodeTestBatch({ baseOffset: 42, producerId: 7, producerEpoch: 1, baseSequence: 5, records: records(10) });
    const result = core.validateBatches(batch);
    expect(result.status).toBe(CoreStatus.OK);
    expect(result.errorCode).toBe(0);
    expect(result.validBytes).toBe(batch.length);
    expect(result.batches).toHaveLength(1);
    expect(result.batches[0]).toMatchObject({
      position: 0, sizeInBytes: batch.length, baseOffset: 42, magic: 2, compression: 0, timestampType: 0,
      isTransactional: false, isControl: false, lastOffsetDelta: 9, recordCount: 10,
      baseTimestamp: 1_700_000_000_000, maxTimestamp: 1_700_000_000_027,
      producerId: 7, producerEpoch: 1, baseSequence: 5, offsetOfMaxTimestamp: 51,
    });
  });

  it('reports flags, codec and timestamp type from the attributes', () => {
    const batch = encodeTestBatch({ transactional: true, control: true, logAppendTime: true, compression: 4, producerId: 3, producerEpoch: 0, baseSequence: -1, records: [], recordCount: 1, rawRecords: text('opaque zstd bytes') });
    const summary = core.validateBatches(batch).batches[0]!;
    expect(summary).toMatchObject({ compression: 4, timestampType: 1, isTransactional: true, isControl: true, attributes: 0x3c, recordCount: 1 });
    // Compressed: records are not walked, so the offset of max timestamp is the batch's last offset.
    expect(summary.offsetOfMaxTimestamp).toBe(summary.baseOffset + summary.lastOffsetDelta);
  });

  it('accepts an empty blob with no batches', () => {
    expect(core.validateBatches(new Uint8Array(0))).toMatchObject({ status: CoreStatus.OK, validBytes: 0, batches: [] });
  });

  it('accepts a multi-batch blob and reports every batch in order', () => {
    const blob = Buffer.concat([1, 4, 2].map((n, i) => encodeTestBatch({ baseOffset: i * 10, records: records(n) })));
    const result = core.validateBatches(blob);
    expect(result.status).toBe(CoreStatus.OK);
    expect(result.batches.map((b) => [b.position, b.baseOffset, b.recordCount])).toEqual([
      [0, 0, 1], [boundaries(blob)[1], 10, 4], [boundaries(blob)[2], 20, 2],
    ]);
  });

  describe('rejects', () => {
    const cases: [string, TestBatch | Buffer, number][] = [
      ['a CRC mismatch', { records: records(2), crcOverride: 1234 }, CoreStatus.CRC_MISMATCH],
      ['a legacy magic', { records: records(1), magic: 1 }, CoreStatus.LEGACY_MAGIC],
      ['an unknown magic', { records: records(1), magic: 3 }, CoreStatus.UNKNOWN_MAGIC],
      ['an unknown compression codec', { records: records(1), compression: 5 }, CoreStatus.INVALID_COMPRESSION],
      ['a negative record count', { records: records(1), recordCount: -1 }, CoreStatus.INVALID_RECORD_COUNT],
      ['a negative lastOffsetDelta', { records: records(1), lastOffsetDelta: -1 }, CoreStatus.INVALID_RECORD_COUNT],
      ['more records than lastOffsetDelta allows', { records: records(3), lastOffsetDelta: 1 }, CoreStatus.INVALID_RECORD_COUNT],
      ['a record count larger than the records', { records: records(2), recordCount: 3, lastOffsetDelta: 2 }, CoreStatus.MALFORMED_VARINT],
      ['a record count smaller than the records', { records: records(3), recordCount: 2, lastOffsetDelta: 1 }, CoreStatus.RECORD_SIZE_MISMATCH],
      ['offset deltas out of order', { records: [{ offsetDelta: 1 }, { offsetDelta: 0 }] }, CoreStatus.INVALID_OFFSET_DELTA],
      ['an offset delta beyond lastOffsetDelta', { records: [{ offsetDelta: 0 }, { offsetDelta: 5 }], lastOffsetDelta: 4 }, CoreStatus.INVALID_OFFSET_DELTA],
      ['a record length past the batch', { rawRecords: Uint8Array.from([0x7e, 0, 0, 0, 1, 1, 0]), recordCount: 1 }, CoreStatus.INVALID_RECORD_LENGTH],
      ['a zero record length', { rawRecords: Uint8Array.from([0, 0, 0, 0, 0, 0, 0]), recordCount: 1 }, CoreStatus.INVALID_RECORD_LENGTH],
      ['a key length below -1', { rawRecords: Uint8Array.from([12, 0, 0, 0, 3, 1, 0]), recordCount: 1 }, CoreStatus.INVALID_FIELD_LENGTH],
      ['a value running past its record', { rawRecords: Uint8Array.from([12, 0, 0, 0, 1, 10, 0]), recordCount: 1 }, CoreStatus.INVALID_FIELD_LENGTH],
      ['a varint longer than 5 bytes', { rawRecords: Uint8Array.from([22, 0, 0, 0, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00, 1, 0]), recordCount: 1 }, CoreStatus.MALFORMED_VARINT],
      ['a negative header count', { rawRecords: Uint8Array.from([12, 0, 0, 0, 1, 1, 1]), recordCount: 1 }, CoreStatus.INVALID_HEADER_COUNT],
      ['a null header key', { rawRecords: Uint8Array.from([16, 0, 0, 0, 1, 1, 2, 1, 1]), recordCount: 1 }, CoreStatus.INVALID_FIELD_LENGTH],
      ['bytes left over inside a record', { rawRecords: Uint8Array.from([14, 0, 0, 0, 1, 1, 0, 9]), recordCount: 1 }, CoreStatus.RECORD_SIZE_MISMATCH],
      ['bytes left over after the records', { rawRecords: Uint8Array.from([12, 0, 0, 0, 1, 1, 0, 0]), recordCount: 1 }, CoreStatus.RECORD_SIZE_MISMATCH],
    ];
    for (const [name, input, expected] of cases) {
      it(name, () => {
        const blob = Buffer.isBuffer(input) ? input : encodeTestBatch(input);
        const result = core.validateBatches(blob);
        expect(result.status).toBe(expected);
        expect(result.errorCode).toBe(expected < 20 ? 2 : 87);
        expect(result.validBytes).toBe(0);
        expect(result.batches).toEqual([]);
      });
    }

    it('a batchLength below the v2 header size', () => {
      const blob = encodeTestBatch({ records: records(1) });
      blob.writeInt32BE(48, 8);
      expect(core.validateBatches(blob).status).toBe(CoreStatus.BATCH_TOO_SMALL);
      blob.writeInt32BE(-5, 8);
      expect(core.validateBatches(blob).status).toBe(CoreStatus.BATCH_TOO_SMALL);
    });

    it('a batchLength past the end of the blob', () => {
      const blob = encodeTestBatch({ records: records(1) });
      blob.writeInt32BE(blob.length, 8);
      expect(core.validateBatches(blob).status).toBe(CoreStatus.TRUNCATED_BATCH);
    });

    it('a bad second batch after a good first one, reporting the first', () => {
      const good = encodeTestBatch({ records: records(2) });
      const bad = encodeTestBatch({ records: records(2), crcOverride: 0 });
      const result = core.validateBatches(Buffer.concat([good, bad, good]));
      expect(result).toMatchObject({ status: CoreStatus.CRC_MISMATCH, validBytes: good.length });
      expect(result.batches).toHaveLength(1);
    });
  });

  describe('stored-batch rules (the default) versus fresh-batch rules', () => {
    const compacted = encodeTestBatch({
      records: [{ offsetDelta: 0 }, { offsetDelta: 3 }, { offsetDelta: 7 }], lastOffsetDelta: 9,
    });
    const emptied = encodeTestBatch({ records: [], lastOffsetDelta: 4, recordCount: 0, producerId: 5, producerEpoch: 0, baseSequence: 0 });

    it('accepts a batch thinned by compaction as stored, rejects it as fresh', () => {
      expect(core.validateBatches(compacted).status).toBe(CoreStatus.OK);
      expect(core.validateBatches(compacted, { fresh: true }).status).toBe(CoreStatus.INVALID_RECORD_COUNT);
    });

    it('accepts an emptied batch kept for producer state as stored, rejects it as fresh', () => {
      const result = core.validateBatches(emptied);
      expect(result.status).toBe(CoreStatus.OK);
      expect(result.batches[0]).toMatchObject({ recordCount: 0, lastOffsetDelta: 4 });
      expect(core.validateBatches(emptied, { fresh: true }).status).toBe(CoreStatus.INVALID_RECORD_COUNT);
    });

    it('rejects an idempotent batch without a base sequence only as fresh', () => {
      const batch = encodeTestBatch({ records: records(1), producerId: 9, producerEpoch: 0, baseSequence: -1 });
      expect(core.validateBatches(batch).status).toBe(CoreStatus.OK);
      expect(core.validateBatches(batch, { fresh: true }).status).toBe(CoreStatus.INVALID_SEQUENCE);
      const control = encodeTestBatch({ records: records(1), producerId: 9, producerEpoch: 0, baseSequence: -1, control: true, transactional: true });
      expect(core.validateBatches(control, { fresh: true }).status).toBe(CoreStatus.OK);
    });
  });

  describe('under damage', () => {
    it('handles every truncation of a multi-batch blob: whole leading batches, then a status', () => {
      const blob = Buffer.concat([records(3), records(1), records(6)].map((r) => encodeTestBatch({ records: r })));
      const edges = boundaries(blob);
      for (let length = 0; length < blob.length; length++) {
        const result = core.validateBatches(blob.subarray(0, length));
        const whole = edges.filter((edge) => edge <= length);
        const lastWhole = whole[whole.length - 1]!;
        expectConsistent(result, blob.subarray(0, length));
        expect(result.validBytes).toBe(lastWhole);
        expect(result.batches).toHaveLength(whole.length - 1);
        if (lastWhole === length) expect(result.status).toBe(CoreStatus.OK);
        else expect([CoreStatus.TRUNCATED_HEADER, CoreStatus.TRUNCATED_BATCH]).toContain(result.status);
      }
    });

    it('detects every single-bit flip inside the CRC-checked bytes and the framing', () => {
      fc.assert(
        fc.property(blobArbitrary, fc.nat(), fc.nat(7), (blob, where, bit) => {
          const edges = boundaries(blob);
          const position = where % blob.length;
          const batchStart = edges.filter((edge) => edge <= position).pop()!;
          const offsetInBatch = position - batchStart;
          const damaged = Buffer.from(blob);
          damaged[position]! ^= 1 << bit;
          const result = core.validateBatches(damaged);
          expectConsistent(result, damaged);
          const unchecked = offsetInBatch < 8 || (offsetInBatch >= 12 && offsetInBatch < 16);
          if (unchecked) {
            // baseOffset and partitionLeaderEpoch lie outside the CRC by design: the flip must
            // show up verbatim in the summary.
            expect(result.status).toBe(CoreStatus.OK);
            const index = edges.indexOf(batchStart);
            const header = readTestBatchHeader(damaged, batchStart);
            expect(result.batches[index]!.baseOffset).toBe(header.baseOffset);
            expect(result.batches[index]!.partitionLeaderEpoch).toBe(header.partitionLeaderEpoch);
          } else {
            expect(result.status).not.toBe(CoreStatus.OK);
            expect(result.validBytes).toBeLessThanOrEqual(batchStart);
          }
        }),
        { numRuns: 400 },
      );
    });

    it('never accepts a blob with several random byte changes in checked bytes', () => {
      fc.assert(
        fc.property(blobArbitrary, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }), (blob, changes) => {
          const damaged = Buffer.from(blob);
          const edges = boundaries(blob);
          let touchedChecked = false;
          for (const [where, xor] of changes) {
            const position = where % blob.length;
            const offsetInBatch = position - edges.filter((edge) => edge <= position).pop()!;
            if (offsetInBatch < 8 || (offsetInBatch >= 12 && offsetInBatch < 16)) continue;
            damaged[position]! ^= xor;
            touchedChecked = true;
          }
          const changed = !damaged.equals(blob);
          const result = core.validateBatches(damaged);
          expectConsistent(result, damaged);
          if (touchedChecked && changed) expect(result.status).not.toBe(CoreStatus.OK);
        }),
        { numRuns: 300 },
      );
    });

    it('agrees with an independent strict decoder on records mutated under a valid CRC', () => {
      // Mutating the records section and re-signing gets past the CRC, exercising the record walk.
      fc.assert(
        fc.property(
          fc.array(recordArbitrary, { minLength: 1, maxLength: 5 }),
          fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 3 }),
          fc.integer({ min: -2, max: 2 }),
          (recs, changes, countChange) => {
            const batch = encodeTestBatch({ records: recs });
            for (const [where, value] of changes) {
              const position = 61 + (where % (batch.length - 61));
              batch[position] = value;
            }
            const recordCount = recs.length + countChange;
            batch.writeInt32BE(recordCount, 57);
            batch.writeInt32BE(recordCount - 1, 23);
            resignTestBatch(batch);
            const result = core.validateBatches(batch, { fresh: true });
            const decoded = recordCount >= 1 ? decodeTestRecordsStrict(batch.subarray(61), recordCount) : null;
            expect(result.status === CoreStatus.OK).toBe(decoded !== null);
            if (decoded !== null) {
              const base = readTestBatchHeader(batch).baseTimestamp;
              const max = decoded.reduce((m, r) => (BigInt(base) + r.timestampDelta > m ? BigInt(base) + r.timestampDelta : m), -(2n ** 63n));
              const firstMax = decoded.find((r) => BigInt(base) + r.timestampDelta === max)!;
              expect(result.batches[0]!.offsetOfMaxTimestamp).toBe(firstMax.offsetDelta);
            }
          },
        ),
        { numRuns: 1000 },
      );
    });

    it('returns a status for arbitrary bytes and never throws', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
          const result = core.validateBatches(bytes);
          expectConsistent(result, bytes);
          expect(result.status === CoreStatus.OK).toBe(bytes.length === 0);
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('for blobs larger than the scratch region', () => {
    it('validates whole batches chunk by chunk and reports a truncated tail', () => {
      const value = Buffer.alloc(1 << 20, 7);
      const batch = encodeTestBatch({ records: [{ value }] });
      const count = Math.ceil(core.maxBlobBytes / batch.length) + 2;
      const blob = Buffer.alloc(batch.length * count + 100);
      for (let i = 0; i < count; i++) batch.copy(blob, i * batch.length);
      batch.copy(blob, batch.length * count, 0, 100);
      const result = core.validateBatches(blob);
      expect(result.status).toBe(CoreStatus.TRUNCATED_BATCH);
      expect(result.validBytes).toBe(batch.length * count);
      expect(result.batches).toHaveLength(count);
      expect(result.batches[count - 1]!.position).toBe(batch.length * (count - 1));
    });

    it('rejects a single batch larger than the scratch region as MESSAGE_TOO_LARGE', () => {
      const blob = Buffer.alloc(core.maxBlobBytes + 100);
      blob.writeInt32BE(blob.length - 12, 8);
      blob[16] = 2;
      const result = core.validateBatches(blob);
      expect(result).toMatchObject({ status: CoreStatus.MESSAGE_TOO_LARGE, errorCode: 10, validBytes: 0 });
    });
  });
});
