/**
 * Reusable buffers for consumer reads (the Fetch path: segment file → buffer → socket).
 *
 * Why: reading each fetch into a fresh `Buffer.allocUnsafe(1 MiB)` made the kernel hand out and
 * fault in fresh pages for every read (and the allocator unmap them again later): in a W2 CPU
 * profile 43–48 % of the broker's time sat in `readSync` into new memory. A read into a buffer
 * that was used before costs only the page-cache copy.
 *
 * Lifetime (the rule that keeps a buffer from being overwritten while the socket holds it):
 *   acquire(size) ─► the read fills it ─► the response carries it (whole or a subarray)
 *   ─► the socket's write callback for that chunk (no error) ─► release(chunk) ─► free list
 * Only the owner of the last reference may call release: the TCP Connection after the write
 * callback of the chunk, the ChunkedWriter after copying a small blob into the response, the
 * reader itself when it drops a buffer it filled. A buffer that is never released (a response
 * that was not written, a WebSocket connection, an error) is simply garbage-collected; that costs
 * speed, never correctness. Releasing a buffer that is not leased (not from this pool, or
 * released already) does nothing, so a double release cannot free a buffer leased again since.
 *
 * Identity is the backing ArrayBuffer: each pooled buffer owns a whole ArrayBuffer
 * (Buffer.allocUnsafeSlow), so a subarray of it releases the whole buffer.
 *
 * Bounded: sizes are rounded up to a power of two from {@link MIN_POOLED_BYTES} to
 * {@link MAX_POOLED_BYTES} (larger or smaller reads get plain fresh buffers), and at most
 * `maxFreeBytes` of free buffers are kept.
 */

/** Smaller reads come from Node's own slab allocator and are cheap. */
export const MIN_POOLED_BYTES = 64 * 1024;
/** Larger reads (rare: a huge first batch, fetch.max.bytes above this per partition) are not pooled. */
export const MAX_POOLED_BYTES = 16 * 1024 * 1024;
/** Default bound on the free buffers kept: 64 MiB. */
export const DEFAULT_MAX_FREE_BYTES = 64 * 1024 * 1024;

/** What the read path asks of a buffer source (the pool, or fresh buffers for other readers). */
export interface ReadBuffers {
  /** A buffer of at least `size` bytes, contents undefined; the caller uses the first `size`. */
  acquire(size: number): Buffer;
  /** Gives a buffer (or a subarray of it) back; no-op for buffers this source does not lease. */
  release(buffer: Uint8Array): void;
}

/** Fresh buffers, never reused: for readers that keep what they read (coordinators, recovery). */
export const freshReadBuffers: ReadBuffers = {
  acquire: (size) => Buffer.allocUnsafe(size),
  release: () => {},
};

/**
 * The pool described above: `acquire(size)` returns a leased buffer of the next power of two
 * ≥ `size` bytes (64 KiB–16 MiB; outside that, a fresh unpooled buffer); `release` returns it to
 * its size class unless `maxFreeBytes` (bytes) of free buffers are already kept.
 * @throws Error when `maxFreeBytes` is not a non-negative safe integer (a bug, not client input)
 */
export class ReadBufferPool implements ReadBuffers {
  /** Free buffers per size class (index = log2 of the size). */
  private readonly free: Buffer[][] = [];
  private readonly leased = new WeakSet<ArrayBufferLike>();
  private freeBytes = 0;
  private leasedCount = 0;
  private reusedCount = 0;

  constructor(private readonly maxFreeBytes: number = DEFAULT_MAX_FREE_BYTES) {
    if (!Number.isSafeInteger(maxFreeBytes) || maxFreeBytes < 0) throw new Error(`ReadBufferPool: bad maxFreeBytes ${maxFreeBytes}`);
  }

  /** Buffers handed out and not yet released (leaked ones count until the process ends). */
  get leasedBuffers(): number {
    return this.leasedCount;
  }

  /** Bytes held on the free lists. */
  get freeBytesHeld(): number {
    return this.freeBytes;
  }

  /** How many acquires were served from the free lists. */
  get reused(): number {
    return this.reusedCount;
  }

  acquire(size: number): Buffer {
    if (size < MIN_POOLED_BYTES || size > MAX_POOLED_BYTES) return Buffer.allocUnsafe(size);
    const sizeClass = classOf(size);
    const list = this.free[sizeClass];
    let buffer = list?.pop();
    if (buffer !== undefined) {
      this.freeBytes -= buffer.length;
      this.reusedCount++;
    } else {
      buffer = Buffer.allocUnsafeSlow(2 ** sizeClass);
    }
    this.leased.add(buffer.buffer);
    this.leasedCount++;
    return buffer;
  }

  /** True when `buffer` (or the buffer it is a subarray of) is leased from this pool now. */
  isLeased(buffer: Uint8Array): boolean {
    return this.leased.has(buffer.buffer);
  }

  release(buffer: Uint8Array): void {
    const backing = buffer.buffer;
    if (!this.leased.delete(backing)) return;
    this.leasedCount--;
    const whole = Buffer.from(backing);
    if (this.freeBytes + whole.length > this.maxFreeBytes) return;
    const sizeClass = classOf(whole.length);
    (this.free[sizeClass] ??= []).push(whole);
    this.freeBytes += whole.length;
  }
}

/** log2 of the power of two at or above `size`. */
function classOf(size: number): number {
  return Math.max(0, Math.ceil(Math.log2(size)));
}

/**
 * The broker's one pool for consumer fetches: ReplicaManager reads into it, the TCP Connection
 * and the ChunkedWriter give buffers back (see the lifetime rule above).
 */
export const fetchReadBuffers = new ReadBufferPool();
