/**
 * Splits a TCP byte stream into Kafka request frames.
 *
 * Wire shape (Kafka's NetworkReceive): `int32 size` (big-endian, bytes that follow), then `size`
 * bytes of request header + body. A frame is handed out without its size prefix.
 *
 * Copying: chunks are kept as received. A frame that lies inside one chunk is returned as a
 * zero-copy view of that chunk (Node never reuses `net.Socket` read buffers, so the view stays
 * valid for as long as the caller holds it). A frame that spans chunks is gathered with exactly one
 * copy of its own bytes, only once all of them have arrived: a peer announcing a large size but
 * sending little makes us hold only what it actually sent.
 *
 * Limits: a size above `maxFrameBytes` (Kafka's `socket.request.max.bytes`) or below zero is
 * reported as soon as the 4 prefix bytes are read, before any of the body is buffered. The error
 * is sticky: once set, `next()` returns null forever and the connection is expected to close.
 */
export interface FrameSizeError {
  /** The announced size (int32, may be negative). */
  size: number;
  reason: 'negative-size' | 'too-large';
}

const SIZE_PREFIX_BYTES = 4;

export class FrameDecoder {
  /** Chunks (or their unread tails) in arrival order. */
  private readonly parts: Buffer[] = [];
  private bytesBuffered = 0;
  /** Size of the frame being gathered, or -1 while its prefix is incomplete. */
  private pendingFrameSize = -1;
  private sizeError: FrameSizeError | null = null;

  /** @param maxFrameBytes largest accepted frame size in bytes, excluding the 4-byte prefix. */
  constructor(private readonly maxFrameBytes: number) {
    if (!(Number.isInteger(maxFrameBytes) && maxFrameBytes >= 0)) {
      throw new Error(`FrameDecoder: maxFrameBytes must be a non-negative integer, got ${maxFrameBytes}`);
    }
  }

  /** Bytes received but not yet returned as frames (prefix bytes of the pending frame excluded once read). */
  get bufferedBytes(): number {
    return this.bytesBuffered;
  }

  /** The first invalid frame size seen, or null. */
  get error(): FrameSizeError | null {
    return this.sizeError;
  }

  /** Size of the frame currently being gathered, or -1 when its prefix is not complete yet. */
  get pendingSize(): number {
    return this.pendingFrameSize;
  }

  /** Adds a chunk as read from the socket. The decoder keeps a reference; the caller must not modify it. */
  push(chunk: Buffer): void {
    if (this.sizeError !== null || chunk.length === 0) return;
    this.parts.push(chunk);
    this.bytesBuffered += chunk.length;
  }

  /**
   * The next complete frame (header + body, no size prefix), or null when more bytes are needed
   * or the stream has a size error (check `error`).
   */
  next(): Buffer | null {
    if (this.sizeError !== null) return null;
    if (this.pendingFrameSize < 0) {
      if (this.bytesBuffered < SIZE_PREFIX_BYTES) return null;
      const size = this.readSizePrefix();
      if (size < 0) {
        this.fail({ size, reason: 'negative-size' });
        return null;
      }
      if (size > this.maxFrameBytes) {
        this.fail({ size, reason: 'too-large' });
        return null;
      }
      this.pendingFrameSize = size;
    }
    const size = this.pendingFrameSize;
    if (this.bytesBuffered < size) return null;
    this.pendingFrameSize = -1;
    return this.take(size);
  }

  private fail(error: FrameSizeError): void {
    this.sizeError = error;
    this.parts.length = 0;
    this.bytesBuffered = 0;
  }

  /** Reads and consumes the int32 prefix; caller guarantees 4 bytes are buffered. */
  private readSizePrefix(): number {
    const first = this.parts[0]!;
    if (first.length >= SIZE_PREFIX_BYTES) {
      const size = first.readInt32BE(0);
      this.consumeFromHead(SIZE_PREFIX_BYTES);
      return size;
    }
    // Rare: the prefix straddles chunks.
    const prefix = this.take(SIZE_PREFIX_BYTES);
    return prefix.readInt32BE(0);
  }

  /** Removes and returns the first `length` buffered bytes; caller guarantees they are buffered. */
  private take(length: number): Buffer {
    const first = this.parts[0];
    if (length === 0) return Buffer.alloc(0);
    if (first!.length >= length) {
      const frame = first!.subarray(0, length);
      this.consumeFromHead(length);
      return frame;
    }
    let gathered = 0;
    let partCount = 0;
    const pieces: Buffer[] = [];
    while (gathered < length) {
      const part = this.parts[partCount]!;
      const wanted = length - gathered;
      if (part.length <= wanted) {
        pieces.push(part);
        gathered += part.length;
        partCount++;
      } else {
        pieces.push(part.subarray(0, wanted));
        this.parts[partCount] = part.subarray(wanted);
        gathered += wanted;
      }
    }
    this.parts.splice(0, partCount);
    this.bytesBuffered -= length;
    return Buffer.concat(pieces, length);
  }

  private consumeFromHead(length: number): void {
    const first = this.parts[0]!;
    if (first.length === length) this.parts.shift();
    else this.parts[0] = first.subarray(length);
    this.bytesBuffered -= length;
  }
}
