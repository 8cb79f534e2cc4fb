/**
 * Variant B's storage thread, host side: a Disk (host/io/disk.ts) whose `write` and `fsync` are
 * handed to a worker thread (storage-worker.ts) instead of running on the event loop.
 *
 * Handoff: the stamped bytes live in the WebAssembly core's scratch region, which is a plain
 * (non-shared) WebAssembly.Memory reused by the next prepareAppend, so the worker cannot read them
 * where they are. Each write is therefore copied once into a SharedArrayBuffer ring (64 MiB) and
 * described in a descriptor ring (op, fd, file position, ring offset, length); an Atomics.store +
 * Atomics.notify wakes the worker, which calls fs.writeSync / fs.fsyncSync on the same file
 * descriptor (descriptors are per process) and posts the completed sequence number back
 * (one postMessage per operation). Costs: one memcpy of every batch on the event loop, one
 * postMessage per operation, and the worker's wake-up.
 *
 * fsync: queued like a write; the worker groups the fsyncs of one drained window (group commit,
 * see storage-worker.ts) and reports nothing after the first of them done before they ran.
 *
 * Ordering: the worker runs operations in submission order, so a file sees its writes in order.
 * Every other Disk call (read, truncate, fileSize, close, rename, ...) first waits (Atomics.wait,
 * blocking the loop) until the ring is drained, so nothing ever reads a byte that is not written
 * yet: a Fetch after a Produce sees what was acknowledged, never a hole.
 */
import { Worker } from 'node:worker_threads';
import { NodeDisk, type Disk, type OpenMode } from '../../../host/io/disk.js';
import type { WriteBarrier } from './partition-store.js';

/** Control words (Int32Array indices). */
export const CONTROL_SUBMITTED = 0;
export const CONTROL_COMPLETED = 1;
export const CONTROL_STOP = 2;
export const CONTROL_FAILED = 3;
/** fsync calls the worker made (grouped), for the report. */
export const CONTROL_FSYNCS = 4;
export const CONTROL_WORDS = 5;
/** Descriptor layout (Float64Array, DESCRIPTOR_FIELDS per slot). */
export const DESCRIPTOR_FIELDS = 5;
export const FIELD_OP = 0;
export const FIELD_FD = 1;
export const FIELD_POSITION = 2;
export const FIELD_RING_OFFSET = 3;
export const FIELD_LENGTH = 4;
export const OP_WRITE = 1;
export const OP_FSYNC = 2;
export const DESCRIPTOR_SLOTS = 4096;
export const RING_BYTES = 64 * 1024 * 1024;

export interface StorageWorkerData {
  control: SharedArrayBuffer;
  descriptors: SharedArrayBuffer;
  ring: SharedArrayBuffer;
}

interface InFlight { seq: number; start: number; end: number }

export class WorkerDisk implements Disk, WriteBarrier {
  private readonly real = new NodeDisk();
  private readonly control: Int32Array;
  private readonly descriptors: Float64Array;
  private readonly ring: Uint8Array;
  private readonly worker: Worker;
  private submitted = 0;
  private completed = 0;
  private ringHead = 0;
  private readonly inFlight: InFlight[] = [];
  private readonly waiters: { seq: number; resolve: () => void }[] = [];
  /** Bytes copied into the ring (the handoff's copy), for the report. */
  copiedBytes = 0;
  /** Times the event loop blocked waiting for the storage thread. */
  blockingWaits = 0;
  /** fsyncs asked for (one per append with flush.messages=1). */
  fsyncRequests = 0;

  constructor(workerUrl: URL) {
    const data: StorageWorkerData = {
      control: new SharedArrayBuffer(CONTROL_WORDS * 4),
      descriptors: new SharedArrayBuffer(DESCRIPTOR_SLOTS * DESCRIPTOR_FIELDS * 8),
      ring: new SharedArrayBuffer(RING_BYTES),
    };
    this.control = new Int32Array(data.control);
    this.descriptors = new Float64Array(data.descriptors);
    this.ring = new Uint8Array(data.ring);
    // Touch every page now: a long-running broker's ring is warm after its first 64 MiB, and a
    // cold ring would charge B with first-touch page faults (costly in this VM) that A never pays.
    this.ring.fill(1);
    this.ring.fill(0);
    this.worker = new Worker(workerUrl, { workerData: data });
    this.worker.on('message', (completed: number) => this.onCompleted(completed));
    this.worker.on('error', (error) => {
      process.stderr.write(`storage worker failed: ${String(error)}\n`);
      process.exit(3);
    });
  }

  afterPendingWrites(): Promise<void> | null {
    if (this.completed >= this.submitted) return null;
    const seq = this.submitted;
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  write(fd: number, data: Uint8Array, position: number): void {
    if (data.length > RING_BYTES / 4) {
      this.drain();
      this.real.write(fd, data, position);
      return;
    }
    const start = this.reserve(data.length);
    this.ring.set(data, start);
    this.copiedBytes += data.length;
    this.submit(OP_WRITE, fd, position, start, data.length);
  }

  /** fsync calls the storage thread made (fewer than fsyncRequests when grouped). */
  get fsyncsDone(): number {
    return Atomics.load(this.control, CONTROL_FSYNCS);
  }

  fsync(fd: number): void {
    this.fsyncRequests++;
    this.submit(OP_FSYNC, fd, 0, 0, 0);
  }

  open(filePath: string, mode: OpenMode): number { return this.real.open(filePath, mode); }
  close(fd: number): void { this.drain(); this.real.close(fd); }
  read(fd: number, target: Uint8Array, targetOffset: number, length: number, position: number): number {
    this.drain();
    return this.real.read(fd, target, targetOffset, length, position);
  }
  fileSize(fd: number): number { this.drain(); return this.real.fileSize(fd); }
  truncate(fd: number, length: number): void { this.drain(); this.real.truncate(fd, length); }
  size(filePath: string): number { this.drain(); return this.real.size(filePath); }
  exists(filePath: string): boolean { return this.real.exists(filePath); }
  rename(from: string, to: string): void { this.drain(); this.real.rename(from, to); }
  delete(filePath: string): void { this.drain(); this.real.delete(filePath); }
  list(dir: string): string[] { return this.real.list(dir); }
  isDirectory(filePath: string): boolean { return this.real.isDirectory(filePath); }
  mkdir(dir: string): void { this.real.mkdir(dir); }
  fsyncDir(dir: string): void { this.drain(); this.real.fsyncDir(dir); }

  /** Stops the worker after it has drained. */
  async stop(): Promise<void> {
    this.drain();
    Atomics.store(this.control, CONTROL_STOP, 1);
    Atomics.add(this.control, CONTROL_SUBMITTED, 0);
    Atomics.notify(this.control, CONTROL_SUBMITTED);
    await this.worker.terminate();
  }

  private submit(op: number, fd: number, position: number, ringOffset: number, length: number): void {
    // A full descriptor ring waits for the worker (backpressure on the event loop).
    while (this.submitted - this.observeCompleted() >= DESCRIPTOR_SLOTS) this.waitForProgress();
    const seq = this.submitted + 1;
    const base = (seq % DESCRIPTOR_SLOTS) * DESCRIPTOR_FIELDS;
    this.descriptors[base + FIELD_OP] = op;
    this.descriptors[base + FIELD_FD] = fd;
    this.descriptors[base + FIELD_POSITION] = position;
    this.descriptors[base + FIELD_RING_OFFSET] = ringOffset;
    this.descriptors[base + FIELD_LENGTH] = length;
    this.submitted = seq;
    if (length > 0) this.inFlight.push({ seq, start: ringOffset, end: ringOffset + length });
    // Atomics.store orders the descriptor writes above before the worker's Atomics.load.
    Atomics.store(this.control, CONTROL_SUBMITTED, seq);
    Atomics.notify(this.control, CONTROL_SUBMITTED);
  }

  /** A free contiguous ring range of `length` bytes, waiting for the worker when the ring is full. */
  private reserve(length: number): number {
    for (;;) {
      this.observeCompleted();
      let start = this.ringHead;
      if (start + length > RING_BYTES) start = 0;
      const end = start + length;
      const overlaps = this.inFlight.some((entry) => entry.start < end && start < entry.end);
      if (!overlaps) {
        this.ringHead = end;
        return start;
      }
      this.waitForProgress();
    }
  }

  private observeCompleted(): number {
    const completed = Atomics.load(this.control, CONTROL_COMPLETED);
    if (Atomics.load(this.control, CONTROL_FAILED) !== 0) throw new Error('storage worker: a write failed');
    while (this.inFlight.length > 0 && this.inFlight[0]!.seq <= completed) this.inFlight.shift();
    return completed;
  }

  private waitForProgress(): void {
    const completed = Atomics.load(this.control, CONTROL_COMPLETED);
    if (completed >= this.submitted) return;
    this.blockingWaits++;
    Atomics.wait(this.control, CONTROL_COMPLETED, completed, 1000);
  }

  private drain(): void {
    while (this.observeCompleted() < this.submitted) this.waitForProgress();
  }

  private onCompleted(completed: number): void {
    if (completed > this.completed) this.completed = completed;
    while (this.waiters.length > 0 && this.waiters[0]!.seq <= this.completed) this.waiters.shift()!.resolve();
  }
}
