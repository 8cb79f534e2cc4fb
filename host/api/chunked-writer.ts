/**
 * A Writer that hands large byte fields to the socket by reference instead of copying them:
 * `nullableBytes` values of at least {@link ZERO_COPY_MIN_BYTES} (a Fetch response's record
 * blobs, read from the log into the fetch buffer pool) become separate chunks of the response, which the
 * SocketServer writes back to back with one corked writev (network-types.ts ResponseBytes).
 * Everything else is written as usual. The generated encoders run unchanged on it. A small blob
 * read into the fetch pool (read-buffer-pool.ts) is copied and given back to the pool at once;
 * a large one goes back after the socket wrote it (Connection).
 *
 * Only for encoders that never patch bytes already written before such a field (flexible ones
 * patch only inside a tagged field: see compactNullableBytes), which is why APIs opt in
 * (ApiDefinition.zeroCopyBytes).
 */
import { fetchReadBuffers, type ReadBuffers } from '../log/read-buffer-pool.js';
import { Writer } from '../protocol/writer.js';

/** Smaller blobs are cheaper to copy than to send as their own chunk. */
export const ZERO_COPY_MIN_BYTES = 16 * 1024;

export class ChunkedWriter extends Writer {
  private readonly chunks: Buffer[] = [];

  /**
   * @param initialCapacity starting size of the backing Buffer, bytes
   * @param readBuffers the broker's fetch pool, where small copied blobs go back (default the process's)
   */
  constructor(initialCapacity = 256, private readonly readBuffers: ReadBuffers = fetchReadBuffers) {
    super(initialCapacity);
  }

  override nullableBytes(data: Uint8Array | null): void {
    if (data === null || data.length < ZERO_COPY_MIN_BYTES) {
      super.nullableBytes(data);
      // Copied into the response: a fetch-pool buffer is free again (no-op for other blobs).
      if (data !== null) this.readBuffers.release(data);
      return;
    }
    this.int32(data.length);
    this.appendChunk(data);
  }

  /**
   * Flexible versions' records (Fetch v12+): the same, after a uvarint length + 1. Safe because a
   * flexible encoder patches only inside a tagged field (endTaggedField), and no tagged field
   * holds records.
   */
  override compactNullableBytes(data: Uint8Array | null): void {
    if (data === null || data.length < ZERO_COPY_MIN_BYTES) {
      super.compactNullableBytes(data);
      if (data !== null) this.readBuffers.release(data);
      return;
    }
    this.uvarint(data.length + 1);
    this.appendChunk(data);
  }

  /** Seals what was written so far as a chunk, then `data` as the next one, by reference. */
  private appendChunk(data: Uint8Array): void {
    this.chunks.push(this.toBuffer());
    this.chunks.push(Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    // The sealed chunk keeps the old backing buffer; continue in a fresh one.
    this.buf = Buffer.allocUnsafe(256);
    this.length = 0;
  }

  /** The whole output: sealed chunks, then what was written since the last one. */
  finish(): Buffer[] {
    const tail = this.toBuffer();
    return tail.length > 0 ? [...this.chunks, tail] : [...this.chunks];
  }
}
