import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CoreStatus, getCore } from '../../host/wasm/core.js';
import {
  encodeTestBatch, readTestBatchHeader, testBatchCrcValid, type TestBatch, type TestRecord,
} from '../helpers/independent-batch-encoder.js';

const core = getCore();

function records(n: number, deltas?: number[]): TestRecord[] {
  return Array.from({ length: n }, (_, i) => ({ timestampDelta: deltas?.[i] ?? i, value: Buffer.from(`v${i}`) }));
}

function headers(bytes: Uint8Array) {
  const out = [];
  let position = 0;
  while (position < bytes.length) {
    const header = readTestBatchHeader(bytes, position);
    out.push({ ...header, crcValid: testBatchCrcValid(bytes, position), position });
    position += 12 + header.batchLength;
  }
  return out;
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
    expect(prepared.bytes.length).toBe(blob.length);
    expect(prepared.batches.map((b) => b.baseOffset)).toEqual([100, 103, 104]);
    const stamped = headers(prepared.bytes);
    expect(stamped.map((h) => h.baseOffset)).toEqual([100, 103, 104]);
    expect(stamped.every((h) => h.partitionLeaderEpoch === 7 && h.crcValid)).toBe(true);
    // Only the stamped fields changed.
    const original = Buffer.from(blob);
    for (const h of stamped) {
      original.fill(0, h.position, h.position + 8);
      original.fill(0, h.position + 12, h.position + 16);
    }
    const copy = Buffer.from(prepared.bytes);
    for (const h of stamped) {
      copy.fill(0, h.position, h.position + 8);
      copy.fill(0, h.position + 12, h.position + 16);
    }
    expect(copy.equals(original)).toBe(true);
  });

  it('decodes varlongs exactly at every length boundary (the corrected maxTimestamp shows the value)', () => {
    const deltas = [0, 63, 64, -64, -65, 8191, 8192, -8192, -8193, 2 ** 20, 2 ** 31 - 1, -(2 ** 31), 2 ** 40, -(2 ** 40), 2 ** 52, -(2 ** 52)];
    for (const delta of deltas) {
      const batch = encodeTestBatch({ baseTimestamp: 1000, maxTimestamp: 12345, records: [{ timestampDelta: delta, key: Buffer.alloc(Math.abs(delta) % 9000, 1) }] });
      const prepared = core.prepareAppend(batch, 0, 0, -1);
      expect([delta, prepared.status, readTestBatchHeader(prepared.bytes).maxTimestamp]).toEqual([delta, CoreStatus.OK, 1000 + delta]);
      expect(testBatchCrcValid(prepared.bytes)).toBe(true);
    }
  });

  it('decodes varints exactly at every length boundary (the offset of max timestamp shows the offset delta)', () => {
    for (const offsetDelta of [0, 63, 64, 8191, 8192, 2 ** 20, 2 ** 27, 2 ** 31 - 2]) {
      const batch = encodeTestBatch({ baseOffset: 0, records: [{ offsetDelta }], lastOffsetDelta: offsetDelta + 1 });
      const result = core.validateBatches(batch);
      expect([offsetDelta, result.status, result.batches[0]?.offsetOfMaxTimestamp]).toEqual([offsetDelta, CoreStatus.OK, offsetDelta]);
    }
  });

  it('reports the largest timestamp and the first offset holding it', () => {
    const blob = Buffer.concat([
      encodeTestBatch({ records: records(3, [5, 50, 7]) }),
      encodeTestBatch({ records: records(3, [1, 50, 2]) }),
    ]);
    const prepared = core.prepareAppend(blob, 10, 0, -1);
    expect(prepared.maxTimestamp).toBe(1_700_000_000_050);
    expect(prepared.offsetOfMaxTimestamp).toBe(11);
    expect(prepared.batches.map((b) => b.offsetOfMaxTimestamp)).toEqual([11, 14]);
  });

  it('sets the LogAppendTime bit and maxTimestamp on every batch and recomputes the CRC', () => {
    const blob = Buffer.concat([encodeTestBatch({ records: records(4) }), encodeTestBatch({ records: records(2) })]);
    const prepared = core.prepareAppend(blob, 0, 0, 1_800_000_000_000);
    expect(prepared.status).toBe(CoreStatus.OK);
    for (const header of headers(prepared.bytes)) {
      expect(header.attributes & 0x08).toBe(0x08);
      expect(header.maxTimestamp).toBe(1_800_000_000_000);
      expect(header.baseTimestamp).toBe(1_700_000_000_000);
      expect(header.crcValid).toBe(true);
    }
    expect(prepared.batches.every((b) => b.timestampType === 1)).toBe(true);
    expect(prepared.maxTimestamp).toBe(1_800_000_000_000);
    expect(prepared.offsetOfMaxTimestamp).toBe(0);
  });

  it('updates the CRC exactly for a large batch (the CRC is patched, not recomputed)', () => {
    const blob = encodeTestBatch({ records: [{ value: Buffer.alloc(300_000, 3) }, { value: Buffer.alloc(5, 1), timestampDelta: 77 }] });
    for (const logAppendTimeMs of [1_800_000_000_000, -1, 0, 2 ** 52]) {
      const prepared = core.prepareAppend(blob, 3, 1, logAppendTimeMs);
      expect(testBatchCrcValid(prepared.bytes)).toBe(true);
    }
    const lying = encodeTestBatch({ records: [{ value: Buffer.alloc(300_000, 3) }], maxTimestamp: -(2 ** 50) });
    expect(testBatchCrcValid(core.prepareAppend(lying, 0, 0, -1).bytes)).toBe(true);
  });

  it('for CreateTime corrects a wrong maxTimestamp and a client-set LogAppendTime bit, as Kafka does', () => {
    const blob = encodeTestBatch({ records: records(3, [0, 9, 4]), maxTimestamp: 5, logAppendTime: true });
    const prepared = core.prepareAppend(blob, 0, 0, -1);
    const [header] = headers(prepared.bytes);
    expect(header!.maxTimestamp).toBe(1_700_000_000_009);
    expect(header!.attributes & 0x08).toBe(0);
    expect(header!.crcValid).toBe(true);
  });

  it('keeps a compressed batch maxTimestamp (records are opaque to the core)', () => {
    const blob = encodeTestBatch({ compression: 1, rawRecords: Buffer.from('gzip payload'), recordCount: 3, lastOffsetDelta: 2, maxTimestamp: 1234 });
    const prepared = core.prepareAppend(blob, 5, 0, -1);
    expect(prepared.status).toBe(CoreStatus.OK);
    expect(prepared.maxTimestamp).toBe(1234);
    expect(prepared.offsetOfMaxTimestamp).toBe(7);
    expect(prepared.lastOffset).toBe(7);
    expect(headers(prepared.bytes)[0]!.crcValid).toBe(true);
  });

  it('rejects an empty blob as INVALID_RECORD', () => {
    expect(core.prepareAppend(new Uint8Array(0), 0, 0, -1)).toMatchObject({ status: CoreStatus.EMPTY_RECORDS, errorCode: 87 });
  });

  it('applies fresh-batch rules and returns no bytes on failure', () => {
    const compacted = encodeTestBatch({ records: [{ offsetDelta: 0 }, { offsetDelta: 2 }], lastOffsetDelta: 2 });
    const result = core.prepareAppend(Buffer.concat([encodeTestBatch({ records: records(1) }), compacted]), 0, 0, -1);
    expect(result).toMatchObject({ status: CoreStatus.INVALID_RECORD_COUNT, errorCode: 87, lastOffset: -1, maxTimestamp: -1 });
    expect(result.bytes.length).toBe(0);
    expect(result.batches).toHaveLength(1);
  });

  it('rejects a blob larger than the scratch region as MESSAGE_TOO_LARGE', () => {
    const result = core.prepareAppend(new Uint8Array(core.maxBlobBytes + 1), 0, 0, -1);
    expect(result).toMatchObject({ status: CoreStatus.MESSAGE_TOO_LARGE, errorCode: 10, batches: [] });
  });

  it('throws for arguments only a host bug produces', () => {
    const blob = encodeTestBatch({ records: records(1) });
    expect(() => core.prepareAppend(blob, -1, 0, -1)).toThrow();
    expect(() => core.prepareAppend(blob, 1.5, 0, -1)).toThrow();
    expect(() => core.prepareAppend(blob, 2 ** 60, 0, -1)).toThrow();
    expect(() => core.prepareAppend(blob, 0, 2 ** 31, -1)).toThrow();
  });

  it('keeps its bytes intact across crc32c and index calls (only validate/prepare reuse scratch)', () => {
    const prepared = core.prepareAppend(encodeTestBatch({ records: records(3) }), 5, 1, -1);
    const copy = Buffer.from(prepared.bytes);
    core.crc32c(Buffer.alloc(3 << 20, 7));
    const region = core.allocIndex(64)!;
    core.offsetIndexAppend(region, 0, 1, 2);
    core.offsetIndexLookup(region, 1, 1);
    core.freeIndex(region);
    expect(prepared.bytes.equals(copy)).toBe(true);
  });

  it('leaves the input untouched (it stamps a copy in WebAssembly memory)', () => {
    const blob = encodeTestBatch({ records: records(2) });
    const before = Buffer.from(blob);
    core.prepareAppend(blob, 99, 3, 1_800_000_000_000);
    expect(blob.equals(before)).toBe(true);
  });

  it('validates and stamps records lying in the frame ring where they lie, with the same result as a copy', () => {
    const blob = Buffer.concat([encodeTestBatch({ records: records(3) }), encodeTestBatch({ records: records(2) })]);
    const expected = core.prepareAppend(blob, 40, 2, -1);
    const expectedBytes = Buffer.from(expected.bytes);
    expect(expected.stable).toBe(false);
    const frame = core.frameArena.allocate(blob.length + 7)!;
    try {
      blob.copy(frame, 7); // records start somewhere inside the request frame
      const inFrame = frame.subarray(7);
      const prepared = core.prepareAppend(inFrame, 40, 2, -1);
      expect(prepared.stable).toBe(true);
      expect(prepared.bytes.buffer).toBe(inFrame.buffer);
      expect(prepared.bytes.byteOffset).toBe(inFrame.byteOffset);
      expect(Buffer.from(prepared.bytes).equals(expectedBytes)).toBe(true);
      expect(Buffer.from(inFrame).equals(expectedBytes)).toBe(true);
      expect(prepared.batches).toEqual(expected.batches);
      expect([prepared.firstOffset, prepared.lastOffset, prepared.maxTimestamp, prepared.offsetOfMaxTimestamp])
        .toEqual([expected.firstOffset, expected.lastOffset, expected.maxTimestamp, expected.offsetOfMaxTimestamp]);
      // Later core calls (which reuse scratch) leave in-place bytes alone.
      core.prepareAppend(encodeTestBatch({ records: records(1) }), 0, 0, -1);
      expect(Buffer.from(prepared.bytes).equals(expectedBytes)).toBe(true);
    } finally {
      core.frameArena.release(frame);
    }
  });

  it('rejects a corrupt batch lying in the frame ring exactly as a copied one', () => {
    const good = encodeTestBatch({ records: records(2) });
    const bad = Buffer.concat([good, encodeTestBatch({ records: records(2) })]);
    bad[bad.length - 1] ^= 0xff; // damages the second batch's last record, so its CRC fails
    const copied = core.prepareAppend(bad, 0, 0, -1);
    const frame = core.frameArena.allocate(bad.length)!;
    try {
      bad.copy(frame);
      const inPlace = core.prepareAppend(frame, 0, 0, -1);
      expect(inPlace.status).toBe(CoreStatus.CRC_MISMATCH);
      expect([inPlace.status, inPlace.errorCode, inPlace.validBytes, inPlace.bytes.length])
        .toEqual([copied.status, copied.errorCode, copied.validBytes, 0]);
      expect(inPlace.batches).toEqual(copied.batches);
    } finally {
      core.frameArena.release(frame);
    }
  });

  it('keeps every CRC valid for random blobs, offsets, epochs and timestamp types', () => {
    const batch: fc.Arbitrary<TestBatch> = fc.record({
      records: fc.array(fc.record({ timestampDelta: fc.integer({ min: -5, max: 5000 }), value: fc.uint8Array({ maxLength: 40 }) }), { minLength: 1, maxLength: 6 }),
      maxTimestamp: fc.option(fc.nat(), { nil: undefined }),
      logAppendTime: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(batch, { minLength: 1, maxLength: 4 }),
        fc.nat(2 ** 40),
        fc.integer({ min: -1, max: 2 ** 31 - 1 }),
        fc.oneof(fc.constant(-1), fc.nat(2 ** 42)),
        (batches, firstOffset, leaderEpoch, logAppendTimeMs) => {
          const blob = Buffer.concat(batches.map(encodeTestBatch));
          const prepared = core.prepareAppend(blob, firstOffset, leaderEpoch, logAppendTimeMs);
          expect(prepared.status).toBe(CoreStatus.OK);
          let next = firstOffset;
          const stamped = headers(prepared.bytes);
          stamped.forEach((header, i) => {
            expect(header.crcValid).toBe(true);
            expect(header.baseOffset).toBe(next);
            expect(header.partitionLeaderEpoch).toBe(leaderEpoch);
            expect((header.attributes & 0x08) !== 0).toBe(logAppendTimeMs >= 0);
            if (logAppendTimeMs >= 0) expect(header.maxTimestamp).toBe(logAppendTimeMs);
            else {
              const deltas = batches[i]!.records!.map((r) => r.timestampDelta ?? 0);
              expect(header.maxTimestamp).toBe(header.baseTimestamp + Math.max(...deltas));
            }
            next += header.lastOffsetDelta + 1;
          });
          expect(prepared.lastOffset).toBe(next - 1);
          // The stamped blob is itself a valid stored blob.
          expect(core.validateBatches(Buffer.from(prepared.bytes)).status).toBe(CoreStatus.OK);
        },
      ),
      { numRuns: 300 },
    );
  });
});
