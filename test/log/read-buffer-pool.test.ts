import { afterEach, describe, expect, it } from 'vitest';
import { MAX_POOLED_BYTES, MIN_POOLED_BYTES, ReadBufferPool } from '../../host/log/read-buffer-pool.js';
import { makeBatch, openLog, removeTempDirs, splitBatches } from './log-test-helpers.js';

afterEach(removeTempDirs);

describe('ReadBufferPool', () => {
  it('hands a released buffer out again, also when released through a subarray', () => {
    const pool = new ReadBufferPool();
    const first = pool.acquire(100_000);
    expect(first.length).toBe(131_072);
    expect(pool.leasedBuffers).toBe(1);
    pool.release(first.subarray(0, 10));
    expect(pool.leasedBuffers).toBe(0);
    const second = pool.acquire(70_000);
    expect(second.buffer).toBe(first.buffer);
    expect(pool.reused).toBe(1);
  });

  it('keeps a buffer released twice on its free list only once', () => {
    const pool = new ReadBufferPool();
    const buffer = pool.acquire(MIN_POOLED_BYTES);
    pool.release(buffer);
    pool.release(buffer.subarray(0, 1));
    expect(pool.freeBytesHeld).toBe(MIN_POOLED_BYTES);
    expect(pool.leasedBuffers).toBe(0);
    const first = pool.acquire(MIN_POOLED_BYTES);
    const second = pool.acquire(MIN_POOLED_BYTES);
    expect(first.buffer).toBe(buffer.buffer);
    expect(second.buffer).not.toBe(buffer.buffer);
  });

  it('does not pool small, huge or foreign buffers, and keeps at most maxFreeBytes free', () => {
    const pool = new ReadBufferPool(2 * MIN_POOLED_BYTES);
    const small = pool.acquire(MIN_POOLED_BYTES - 1);
    const huge = pool.acquire(MAX_POOLED_BYTES + 1);
    expect(pool.isLeased(small) || pool.isLeased(huge)).toBe(false);
    pool.release(small);
    pool.release(Buffer.alloc(MIN_POOLED_BYTES));
    expect(pool.freeBytesHeld).toBe(0);
    const leased = [pool.acquire(MIN_POOLED_BYTES), pool.acquire(MIN_POOLED_BYTES), pool.acquire(MIN_POOLED_BYTES)];
    for (const buffer of leased) pool.release(buffer);
    expect(pool.freeBytesHeld).toBe(2 * MIN_POOLED_BYTES);
    expect(pool.leasedBuffers).toBe(0);
  });
});

describe('UnifiedLog.read into a pool', () => {
  it('returns the same bytes as fresh buffers and gives back every buffer it does not return', () => {
    const { log } = openLog({ config: { segmentBytes: 1 << 20 } });
    for (let i = 0; i < 60; i++) expect(log.appendAsLeader(makeBatch(4, { valueBytes: 2000, seed: i }), 0).errorCode).toBe(0);
    const pool = new ReadBufferPool();
    const maxBytes = 100 * 1024;
    const highWatermark = 200; // 50 of 60 batches visible
    let offset = 0;
    let reads = 0;
    while (offset < highWatermark) {
      const fresh = log.read(offset, maxBytes, highWatermark, true);
      const pooled = log.read(offset, maxBytes, highWatermark, true, pool);
      expect(pooled.errorCode).toBe(0);
      expect(pooled.records.equals(fresh.records)).toBe(true);
      expect(pool.isLeased(pooled.records)).toBe(true);
      const batches = splitBatches(pooled.records);
      offset = batches[batches.length - 1]!.readInt32BE(4) + batches[batches.length - 1]!.readInt32BE(23) + 1;
      pool.release(pooled.records);
      reads++;
    }
    expect(reads).toBeGreaterThan(3);
    // At the high watermark the read finds nothing and keeps no buffer.
    expect(log.read(highWatermark, maxBytes, highWatermark, true, pool).records.length).toBe(0);
    expect(log.read(offset, maxBytes, offset + 1, false, pool).records.length).toBe(0);
    expect(pool.leasedBuffers).toBe(0);
    expect(pool.reused).toBeGreaterThan(0);
  });
});
