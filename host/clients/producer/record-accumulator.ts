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
import { RecordBatchWriter, type RecordHeaderInput } from '../../record/batch-builder.js';
import { RECORD_BATCH_OVERHEAD } from '../../wasm/batch-layout.js';

/** Header bytes of a v2 batch (host/wasm/batch-layout.ts). */
export const BATCH_OVERHEAD_BYTES = RECORD_BATCH_OVERHEAD;

export interface RecordMetadata {
  topic: string;
  partition: number;
  /** -1 when unknown (acks=0). */
  offset: number;
  /** CreateTime given/assigned, or the broker's LogAppendTime. */
  timestamp: number;
}

/**
 * Hears the outcome of the records it appended (one send() call, or one sendRecord()): record
 * `index` of the target is acknowledged or failed exactly once.
 */
export interface AcknowledgementTarget {
  acknowledge(index: number, metadata: RecordMetadata): void;
  fail(index: number, error: Error): void;
}

/**
 * One record to append. The accumulator copies it into the batch at once and keeps no reference
 * to this object (the producer reuses one), only `target` and `index` until the outcome.
 */
export interface PendingRecord {
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: readonly RecordHeaderInput[];
  timestamp: number;
  /** Estimated size (estimateRecordBytes), bytes: counts against batch.size and buffer.memory. */
  sizeBytes: number;
  target: AcknowledgementTarget;
  index: number;
}

/** Estimated encoded size of one record, bytes. */
export function estimateRecordBytes(key: Uint8Array | null, value: Uint8Array | null, headers: readonly RecordHeaderInput[]): number {
  let size = 21 + (key?.length ?? 0) + (value?.length ?? 0);
  for (const header of headers) size += 10 + header.key.length * 3 + (header.value === null ? 0 : typeof header.value === 'string' ? header.value.length * 3 : header.value.length);
  return size;
}

/**
 * One batch for one partition, from creation until its records are acknowledged or failed.
 * Records are encoded into `writer` as they are appended; who hears about them is kept as runs
 * (target, first index, count), since one send() call's records are consecutive.
 */
export class ProducerBatch {
  sizeBytes = BATCH_OVERHEAD_BYTES;
  /** Sum of the records' estimates (what complete() returns to buffer.memory), bytes. */
  reservedBytes = 0;
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
  readonly writer: RecordBatchWriter;
  /** CreateTime of each record, ms. */
  readonly timestamps: number[] = [];
  private readonly runTargets: AcknowledgementTarget[] = [];
  private readonly runFirstIndex: number[] = [];
  private readonly runCount: number[] = [];

  constructor(readonly topic: string, readonly partition: number, readonly createdMs: number, initialCapacity = 1024) {
    this.writer = new RecordBatchWriter(initialCapacity);
  }

  get recordCount(): number {
    return this.timestamps.length;
  }

  /** Encodes the record into the batch and remembers who hears about it. @throws RangeError (timestamp) */
  add(record: PendingRecord): void {
    this.writer.append(record.key, record.value, record.headers, record.timestamp);
    this.timestamps.push(record.timestamp);
    this.sizeBytes += record.sizeBytes;
    this.reservedBytes += record.sizeBytes;
    const last = this.runTargets.length - 1;
    if (last >= 0 && this.runTargets[last] === record.target && this.runFirstIndex[last]! + this.runCount[last]! === record.index) {
      this.runCount[last]!++;
    } else {
      this.runTargets.push(record.target);
      this.runFirstIndex.push(record.index);
      this.runCount.push(1);
    }
  }

  /** Acknowledges every record: offsets from `baseOffset` (-1 = unknown), LogAppendTime if >= 0. */
  acknowledgeAll(baseOffset: number, logAppendTimeMs: number): void {
    let recordIndex = 0;
    for (let run = 0; run < this.runTargets.length; run++) {
      const target = this.runTargets[run]!;
      const first = this.runFirstIndex[run]!;
      const count = this.runCount[run]!;
      for (let i = 0; i < count; i++, recordIndex++) {
        target.acknowledge(first + i, {
          topic: this.topic,
          partition: this.partition,
          offset: baseOffset < 0 ? -1 : baseOffset + recordIndex,
          timestamp: logAppendTimeMs >= 0 ? logAppendTimeMs : this.timestamps[recordIndex]!,
        });
      }
    }
  }

  /** Fails every record with `error`. */
  failAll(error: Error): void {
    for (let run = 0; run < this.runTargets.length; run++) {
      const target = this.runTargets[run]!;
      const first = this.runFirstIndex[run]!;
      const count = this.runCount[run]!;
      for (let i = 0; i < count; i++) target.fail(first + i, error);
    }
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

/** The accumulator's key of a partition (also the sender's in-flight key). */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export class RecordAccumulator {
  private readonly batches = new Map<string, ProducerBatch[]>();
  private usedBytes = 0;
  private readonly waiters: MemoryWaiter[] = [];
  private flushing = 0;
  /** Batches created and not yet done (completed or failed), for flush(). */
  private readonly incomplete = new Set<ProducerBatch>();
  private readonly doneListeners: (() => void)[] = [];
  /** The deque append() used last (only while it is in `batches`). */
  private lastTopic = '';
  private lastPartition = -1;
  private lastKey = '';
  private lastDeque: ProducerBatch[] | undefined = undefined;
  /** Encoded size of each partition's last closed batch, bytes (sizes the next one's buffer). */
  private readonly lastBatchBytes = new Map<string, number>();

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
   * Adds a record (memory already reserved) to the partition's open batch or a new one; the
   * record is encoded into the batch now and `record` itself is not kept.
   * @returns the batch and whether it is now full (the sender should run)
   * @throws RangeError for a timestamp that is not a safe integer (nothing is appended)
   */
  append(topic: string, partition: number, record: PendingRecord, nowMs: number): { batch: ProducerBatch; full: boolean } {
    // Consecutive records mostly go to one partition: skip building its key string per record.
    let deque = this.lastTopic === topic && this.lastPartition === partition ? this.lastDeque : undefined;
    const key = deque === undefined ? partitionKey(topic, partition) : this.lastKey;
    if (deque === undefined) {
      deque = this.batches.get(key);
      if (deque === undefined) {
        deque = [];
        this.batches.set(key, deque);
      }
      this.lastTopic = topic;
      this.lastPartition = partition;
      this.lastKey = key;
      this.lastDeque = deque;
    }
    let batch = deque[deque.length - 1];
    if (batch === undefined || batch.closed || (batch.sizeBytes + record.sizeBytes > this.options.batchSize && batch.recordCount > 0)) {
      if (!Number.isSafeInteger(record.timestamp)) throw new RangeError(`timestamp ${record.timestamp} is not a safe integer`);
      if (batch !== undefined && !batch.closed) this.close(batch);
      batch = new ProducerBatch(topic, partition, nowMs, this.initialCapacity(key, record.sizeBytes));
      deque.push(batch);
      this.incomplete.add(batch);
    }
    batch.add(record);
    const full = batch.sizeBytes >= this.options.batchSize;
    if (full) this.close(batch);
    return { batch, full };
  }

  /**
   * Bytes to allocate for a new batch of a partition: as much as its previous batch held (a
   * partition whose batches fill up gets batch.size at once, as Java's BufferPool gives; growing
   * a big buffer by doubling costs copies and page faults), else a small start.
   */
  private initialCapacity(key: string, recordBytes: number): number {
    const previous = this.lastBatchBytes.get(key) ?? 0;
    return Math.max(recordBytes + 64, Math.min(this.options.batchSize + 1024, Math.max(1024, Math.ceil(previous * 1.125))));
  }

  private close(batch: ProducerBatch): void {
    this.lastBatchBytes.set(partitionKey(batch.topic, batch.partition), batch.writer.sizeInBytes);
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
    const key = partitionKey(batch.topic, batch.partition);
    const deque = this.batches.get(key);
    if (deque === undefined || deque[0] !== batch) throw new Error('RecordAccumulator.drain: not the first batch of its partition');
    deque.shift();
    if (deque.length === 0) {
      this.batches.delete(key);
      if (this.lastDeque === deque) this.lastDeque = undefined;
    }
    if (!batch.closed) this.close(batch);
  }

  /** Puts a batch back at the front of its partition for a retry after `retryAtMs`. */
  reenqueue(batch: ProducerBatch, retryAtMs: number): void {
    batch.attempts++;
    batch.retryAtMs = retryAtMs;
    const key = partitionKey(batch.topic, batch.partition);
    const deque = this.batches.get(key) ?? [];
    deque.unshift(batch);
    this.batches.set(key, deque);
  }

  /** Marks a batch done (acknowledged or failed) and frees its memory. */
  complete(batch: ProducerBatch): void {
    if (!this.incomplete.delete(batch)) return;
    this.release(batch.reservedBytes);
    if (this.incomplete.size === 0) for (const listener of this.doneListeners.splice(0)) listener();
  }

  /** Every batch not yet handed to the sender, in partition order (for failing them on close). */
  takeAll(): ProducerBatch[] {
    const all: ProducerBatch[] = [];
    for (const deque of this.batches.values()) all.push(...deque);
    this.batches.clear();
    this.lastDeque = undefined;
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
