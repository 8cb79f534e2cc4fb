import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkedWriter, ZERO_COPY_MIN_BYTES } from '../../host/api/chunked-writer.js';
import { fetchReadBuffers } from '../../host/log/read-buffer-pool.js';
import { encodeFetchResponse, type FetchResponseInit } from '../../host/protocol/generated/fetch.js';
import { Writer } from '../../host/protocol/writer.js';

const blob = fc.oneof(
  fc.constant(null),
  fc.integer({ min: 0, max: 64 }).map((n) => Buffer.alloc(n, 7)),
  fc.tuple(fc.integer({ min: ZERO_COPY_MIN_BYTES - 1, max: ZERO_COPY_MIN_BYTES + 64 }), fc.integer({ min: 0, max: 255 })).map(([n, b]) => Buffer.alloc(n, b)),
);

const fetchResponse: fc.Arbitrary<FetchResponseInit> = fc.record({
  throttleTimeMs: fc.integer({ min: 0, max: 1000 }),
  errorCode: fc.integer({ min: 0, max: 100 }),
  sessionId: fc.constant(0),
  responses: fc.array(fc.record({
    topic: fc.string({ maxLength: 10 }),
    partitions: fc.array(fc.record({
      partitionIndex: fc.integer({ min: 0, max: 100 }),
      errorCode: fc.integer({ min: 0, max: 100 }),
      highWatermark: fc.integer({ min: -1, max: 1e9 }),
      lastStableOffset: fc.integer({ min: -1, max: 1e9 }),
      logStartOffset: fc.integer({ min: -1, max: 1e9 }),
      abortedTransactions: fc.constant([]),
      preferredReadReplica: fc.constant(-1),
      records: blob,
    }), { maxLength: 3 }),
  }), { maxLength: 3 }),
});

describe('ChunkedWriter', () => {
  it('produces exactly the bytes of the plain Writer for every Fetch response version', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 11 }), fetchResponse, (version, response) => {
      const plain = new Writer();
      plain.int32(99);
      encodeFetchResponse(plain, version, response);
      const chunked = new ChunkedWriter();
      chunked.int32(99);
      encodeFetchResponse(chunked, version, response);
      // Buffer.equals rather than toEqual: a byte-wise deep compare of 16 KiB blobs is slow.
      expect(Buffer.concat(chunked.finish()).equals(plain.toBuffer())).toBe(true);
    }), { numRuns: 200 });
  });

  it('hands large blobs over by reference and copies small ones', () => {
    const large = Buffer.alloc(ZERO_COPY_MIN_BYTES, 1);
    const small = Buffer.alloc(10, 2);
    const w = new ChunkedWriter();
    w.nullableBytes(small);
    w.nullableBytes(large);
    w.int16(5);
    const chunks = w.finish();
    expect(chunks).toHaveLength(3);
    expect(chunks[1]).toBe(large);
    expect(chunks[0]!.length).toBe(4 + 10 + 4);
    expect(chunks[2]).toEqual(Buffer.from([0, 5]));
  });

  it('gives a small blob read into the fetch pool back once it is copied, and keeps a large one leased', () => {
    const smallRead = fetchReadBuffers.acquire(1 << 20);
    const largeRead = fetchReadBuffers.acquire(1 << 20);
    smallRead.fill(3, 0, 100);
    const w = new ChunkedWriter();
    w.nullableBytes(smallRead.subarray(0, 100));
    w.nullableBytes(largeRead.subarray(0, ZERO_COPY_MIN_BYTES));
    const chunks = w.finish();
    expect(fetchReadBuffers.isLeased(smallRead)).toBe(false);
    expect(chunks[0]!.subarray(4, 104).equals(Buffer.alloc(100, 3))).toBe(true);
    // The socket gives the large one back after writing it (Connection).
    expect(fetchReadBuffers.isLeased(chunks[1]!)).toBe(true);
    fetchReadBuffers.release(largeRead);
  });
});
