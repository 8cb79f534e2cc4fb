/**
 * Kafka's RecordAccumulator: records wait here in per-partition batches until a batch is full
 * (batch.size), has waited linger.ms, or a flush/close asks for everything. The memory held by
 * waiting records is bounded by buffer.memory: `append` waits (back-pressure) while the bound is
 * exceeded, and fails after max.block.ms.
 *
 * Sizes are estimates of the uncompressed v2 encoding (Kafka's DefaultRecord.sizeInBytes shape):
 * 61 bytes of batch header, and per record its key, value and headers plus ~21 bytes of varints.
 */
import { KafkaTimeoutError } from '../errors.js';
import type { RecordHeaderInput } from '../../record/batch-builder.js';

/** Header bytes of a v2 batch. */
export const BATCH_OVERHEAD_BYTES = 61;

export interface RecordMetadata {
  topic: string;
  partition: number;
  /** -1 when unknown (acks=0). */
  offset: number;
  /** CreateTime given/assigned, or the broker's LogAppendTime. */
  timestamp: number;
}

export interface PendingRecord {
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: RecordHeaderInput[];
  timestamp: number;
  sizeBytes: number;
  resolve(metadata: RecordMetadata): void;
  reject(error: Error): void;
}

/** Estimated encoded size of one record, bytes. */
export function estimateRecordBytes(key: Uint8Array | null, value: Uint8Array | null, headers: RecordHeaderInput[]): number {
  let size = 21 + (key?.length ?? 0) + (value?.length ?? 0);
  for (const header of headers) size += 10 + header.key.length * 3 + (header.value === null ? 0 : typeof header.value === 'string' ? header.value.length * 3 : header.value.length);
  return size;
}

/** One batch for one partition, from creation until its records are acknowledged or failed. */
export class ProducerBatch {
  readonly records: PendingRecord[] = [];
  sizeBytes = BATCH_OVERHEAD_BYTES;
  /** Closed batches take no more records (drained, or full). */
  closed = false;
  attempts = 0;
  /** Not before this time (retry backoff), ms. */
  retryAtMs = 0;
  /** Assigned when first drained, kept across retries (idempotence). */
  baseSequence = -1;
  producerId = -1;
  producerEpoch = -1;
  /** The encoded batch, built once when first drained so retries send the same bytes. */
  encoded: Uint8Array | null = null;

  constructor(readonly topic: string, readonly partition: number, readonly createdMs: number) {}

  get recordCount(): number {
    return this.records.length;
  }
}

export interface AccumulatorOptions {
  /** batch.size: a batch holding this many bytes is sent without waiting for linger, bytes. */
  batchSize: number;
  /** linger.ms: how long a non-full batch waits for more records, ms. */
  lingerMs: number;
  /** buffer.memory: bytes of records waiting or in flight before append blocks. */
  bufferMemory: number;
  /** max.block.ms: how long append waits for buffer memory, ms. */
  maxBlockMs: number;
}

interface MemoryWaiter {
  bytes: number;
  resolve(): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export class RecordAccumulator {
  private readonly batches = new Map<string, ProducerBatch[]>();
  private usedBytes = 0;
  private readonly waiters: MemoryWaiter[] = [];
  private flushing = 0;
  /** Batches created and not yet done (completed or failed), for flush(). */
  private readonly incomplete = new Set<ProducerBatch>();
  private readonly doneListeners: (() => void)[] = [];

  constructor(readonly options: AccumulatorOptions, private readonly onBatchClosed: (batch: ProducerBatch) => void = () => {}) {}

  /** Bytes of records held (waiting or in flight). */
  get bufferedBytes(): number {
    return this.usedBytes;
  }

  /** Batches not yet acknowledged or failed. */
  get incompleteBatches(): number {
    return this.incomplete.size;
  }

  /** Reserves memory at once when available (no waiter queued); false = call reserve() and wait. */
  tryReserve(bytes: number): boolean {
    if (this.waiters.length > 0 || (this.usedBytes + bytes > this.options.bufferMemory && this.usedBytes > 0)) return false;
    this.usedBytes += bytes;
    return true;
  }

  /**
   * Reserves memory for a record, waiting while buffer.memory is exhausted (a record bigger than
   * the whole buffer is let through when nothing else is held, so it can still be sent).
   * @throws KafkaTimeoutError after max.block.ms
   */
  reserve(bytes: number): Promise<void> {
    if (this.waiters.length === 0 && (this.usedBytes + bytes <= this.options.bufferMemory || this.usedBytes === 0)) {
      this.usedBytes += bytes;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: MemoryWaiter = {
        bytes,
        resolve,
        reject,
        timer: setTimeout(() => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(new KafkaTimeoutError(`buffer.memory (${this.options.bufferMemory} bytes) stayed full for max.block.ms (${this.options.maxBlockMs} ms)`));
        }, this.options.maxBlockMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Returns memory to the pool and wakes waiting appends in order. */
  release(bytes: number): void {
    this.usedBytes -= bytes;
    while (this.waiters.length > 0) {
      const next = this.waiters[0]!;
      if (this.usedBytes + next.bytes > this.options.bufferMemory && this.usedBytes > 0) break;
      this.waiters.shift();
      clearTimeout(next.timer);
      this.usedBytes += next.bytes;
      next.resolve();
    }
  }

  /**
   * Adds a record (memory already reserved) to the partition's open batch or a new one.
   * @returns the batch and whether it is now full (the sender should run)
   */
  append(topic: string, partition: number, record: PendingRecord, nowMs: number): { batch: ProducerBatch; full: boolean } {
    const key = `${topic}\u0000${partition}`;
    let deque = this.batches.get(key);
    if (deque === undefined) {
      deque = [];
      this.batches.set(key, deque);
    }
    let batch = deque[deque.length - 1];
    if (batch === undefined || batch.closed || (batch.sizeBytes + record.sizeBytes > this.options.batchSize && batch.recordCount > 0)) {
      if (batch !== undefined && !batch.closed) this.close(batch);
      batch = new ProducerBatch(topic, partition, nowMs);
      deque.push(batch);
      this.incomplete.add(batch);
    }
    batch.records.push(record);
    batch.sizeBytes += record.sizeBytes;
    const full = batch.sizeBytes >= this.options.batchSize;
    if (full) this.close(batch);
    return { batch, full };
  }

  private close(batch: ProducerBatch): void {
    batch.closed = true;
    this.onBatchClosed(batch);
  }

  /**
   * Partitions whose first batch may be sent now, skipping `busy` partitions (a batch in
   * flight), and when the next one becomes sendable (ms, Infinity when none waits).
   */
  ready(nowMs: number, busy: ReadonlySet<string>): { ready: ProducerBatch[]; nextReadyMs: number } {
    const ready: ProducerBatch[] = [];
    let nextReadyMs = Infinity;
    for (const [key, deque] of this.batches) {
      const batch = deque[0];
      if (batch === undefined || busy.has(key)) continue;
      const sendable = batch.attempts > 0
        ? batch.retryAtMs
        : batch.closed || deque.length > 1 || this.flushing > 0 || this.waiters.length > 0
          ? nowMs
          : batch.createdMs + this.options.lingerMs;
      if (sendable <= nowMs) ready.push(batch);
      else nextReadyMs = Math.min(nextReadyMs, sendable);
    }
    return { ready, nextReadyMs };
  }

  /** Takes the first batch of its partition out of the accumulator (it must be that batch). */
  drain(batch: ProducerBatch): void {
    const key = `${batch.topic}\u0000${batch.partition}`;
    const deque = this.batches.get(key);
    if (deque === undefined || deque[0] !== batch) throw new Error('RecordAccumulator.drain: not the first batch of its partition');
    deque.shift();
    if (deque.length === 0) this.batches.delete(key);
    if (!batch.closed) this.close(batch);
  }

  /** Puts a batch back at the front of its partition for a retry after `retryAtMs`. */
  reenqueue(batch: ProducerBatch, retryAtMs: number): void {
    batch.attempts++;
    batch.retryAtMs = retryAtMs;
    const key = `${batch.topic}\u0000${batch.partition}`;
    const deque = this.batches.get(key) ?? [];
    deque.unshift(batch);
    this.batches.set(key, deque);
  }

  /** Marks a batch done (acknowledged or failed) and frees its memory. */
  complete(batch: ProducerBatch): void {
    if (!this.incomplete.delete(batch)) return;
    let bytes = 0;
    for (const record of batch.records) bytes += record.sizeBytes;
    this.release(bytes);
    if (this.incomplete.size === 0) for (const listener of this.doneListeners.splice(0)) listener();
  }

  /** Every batch not yet handed to the sender, in partition order (for failing them on close). */
  takeAll(): ProducerBatch[] {
    const all: ProducerBatch[] = [];
    for (const deque of this.batches.values()) all.push(...deque);
    this.batches.clear();
    return all;
  }

  /** Makes every batch sendable now until endFlush(). */
  beginFlush(): void {
    this.flushing++;
  }

  endFlush(): void {
    this.flushing--;
  }

  /** Resolves when no batch is incomplete. */
  awaitIdle(): Promise<void> {
    if (this.incomplete.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.doneListeners.push(resolve));
  }
}
