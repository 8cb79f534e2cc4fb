import { describe, expect, it } from 'vitest';
import { BATCH_OVERHEAD_BYTES, RecordAccumulator, type PendingRecord, type ProducerBatch } from '../../../host/clients/producer/record-accumulator.js';
import { KafkaTimeoutError } from '../../../host/clients/errors.js';

function record(sizeBytes: number): PendingRecord {
  return { key: null, value: new Uint8Array(sizeBytes), headers: [], timestamp: 0, sizeBytes, target: { acknowledge() {}, fail() {} }, index: 0 };
}

function accumulator(options: Partial<{ batchSize: number; lingerMs: number; bufferMemory: number; maxBlockMs: number }> = {}, closed: ProducerBatch[] = []): RecordAccumulator {
  return new RecordAccumulator({ batchSize: 1000, lingerMs: 50, bufferMemory: 10_000, maxBlockMs: 100, ...options }, (b) => closed.push(b));
}

describe('RecordAccumulator', () => {
  it('holds a non-full batch until linger.ms has passed', () => {
    const acc = accumulator();
    acc.append('t', 0, record(100), 1000);
    expect(acc.ready(1000, new Set()).ready).toHaveLength(0);
    expect(acc.ready(1000, new Set()).nextReadyMs).toBe(1050);
    expect(acc.ready(1050, new Set()).ready).toHaveLength(1);
  });

  it('makes a batch sendable at once when it reaches batch.size, and starts a new one', () => {
    const closed: ProducerBatch[] = [];
    const acc = accumulator({ batchSize: BATCH_OVERHEAD_BYTES + 300 }, closed);
    const first = acc.append('t', 0, record(150), 0);
    expect(first.full).toBe(false);
    const second = acc.append('t', 0, record(150), 0);
    expect(second.full).toBe(true);
    expect(second.batch.sizeBytes).toBe(BATCH_OVERHEAD_BYTES + 300);
    expect(closed).toEqual([second.batch]);
    const third = acc.append('t', 0, record(10), 0);
    expect(third.batch).not.toBe(second.batch);
    expect(acc.ready(0, new Set()).ready).toEqual([second.batch]);
  });

  it('puts a record larger than batch.size in a batch of its own', () => {
    const acc = accumulator({ batchSize: 100 });
    acc.append('t', 0, record(10), 0);
    const big = acc.append('t', 0, record(500), 0);
    expect(big.batch.recordCount).toBe(1);
    expect(big.full).toBe(true);
  });

  it('skips partitions with a batch in flight and sends everything during a flush', () => {
    const acc = accumulator();
    acc.append('t', 0, record(10), 0);
    acc.append('t', 1, record(10), 0);
    acc.beginFlush();
    const { ready } = acc.ready(0, new Set(['t\u00000']));
    expect(ready.map((b) => b.partition)).toEqual([1]);
    acc.endFlush();
  });

  it('retries a re-enqueued batch before newer batches of its partition, after the backoff', () => {
    const acc = accumulator({ lingerMs: 0 });
    const first = acc.append('t', 0, record(10), 0).batch;
    acc.drain(first);
    acc.append('t', 0, record(10), 5);
    acc.reenqueue(first, 100);
    expect(acc.ready(50, new Set()).ready).toHaveLength(0);
    expect(acc.ready(100, new Set()).ready).toEqual([first]);
    expect(first.attempts).toBe(1);
  });

  it('blocks appends while buffer.memory is used up and resumes when a batch completes', async () => {
    const acc = accumulator({ bufferMemory: 200, maxBlockMs: 5_000 });
    await acc.reserve(150);
    const batch = acc.append('t', 0, record(150), 0).batch;
    let granted = false;
    const waiting = acc.reserve(100).then(() => { granted = true; });
    await Promise.resolve();
    expect(granted).toBe(false);
    acc.drain(batch);
    acc.complete(batch);
    await waiting;
    expect(granted).toBe(true);
    expect(acc.bufferedBytes).toBe(100);
  });

  it('fails an append with KafkaTimeoutError after max.block.ms of full memory', async () => {
    const acc = accumulator({ bufferMemory: 100, maxBlockMs: 20 });
    await acc.reserve(100);
    await expect(acc.reserve(10)).rejects.toBeInstanceOf(KafkaTimeoutError);
  });

  it('resolves awaitIdle when the last incomplete batch completes', async () => {
    const acc = accumulator();
    const batch = acc.append('t', 0, record(10), 0).batch;
    let idle = false;
    const done = acc.awaitIdle().then(() => { idle = true; });
    await Promise.resolve();
    expect(idle).toBe(false);
    acc.drain(batch);
    acc.complete(batch);
    await done;
    expect(idle).toBe(true);
  });
});
