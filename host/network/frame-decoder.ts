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
 * Where the gathered copy goes: with a FrameArena (the broker passes the core's, a ring in
 * WebAssembly memory) a spanning frame of one of `arenaApiKeys` (Produce) of at least
 * `arenaMinBytes` is gathered into an arena block, so the core validates and stamps its records
 * where they lie instead of copying them again. Such a frame must be handed back with
 * {@link FrameDecoder.release} once its request is done (the block is then reused; nothing may
 * keep a view of it). When the arena has no room the frame is gathered on the JS heap as before.
 * Only api keys whose handlers keep no view of the request past their completion may be listed.
 *
 * Limits: a size above `maxFrameBytes` (Kafka's `socket.request.max.bytes`) or below zero is
 * reported as soon as the 4 prefix bytes are read, before any of the body is buffered. The error
 * is sticky: once set, `next()` returns null forever and the connection is expected to close.
 */
import type { FrameArena } from '../wasm/frame-arena.js';
import type { FrameSource } from './kafka-connection.js';

export interface FrameSizeError {
  /** The announced size (int32, may be negative). */
  size: number;
  reason: 'negative-size' | 'too-large';
}

const SIZE_PREFIX_BYTES = 4;
/** The request header starts with int16 request_api_key (every header version). */
const API_KEY_BYTES = 2;

/** Optional gathering of spanning frames into a FrameArena (see the file header). */
export interface FrameDecoderOptions {
  arena?: FrameArena;
  /** Api keys whose spanning frames go to the arena. Default: none. */
  arenaApiKeys?: ReadonlySet<number>;
  /** Smallest frame (bytes, without the size prefix) gathered into the arena. Default 0. */
  arenaMinBytes?: number;
}

/** The FrameSource of a size-prefixed byte stream (TCP); see the file header. */
export class FrameDecoder implements FrameSource {
  private readonly arena: FrameArena | null;
  private readonly arenaApiKeys: ReadonlySet<number>;
  private readonly arenaMinBytes: number;
  /** Chunks (or their unread tails) in arrival order. */
  private readonly parts: Buffer[] = [];
  private bytesBuffered = 0;
  /** Size of the frame being gathered, or -1 while its prefix is incomplete. */
  private pendingFrameSize = -1;
  private sizeError: FrameSizeError | null = null;

  /** @param maxFrameBytes largest accepted frame size in bytes, excluding the 4-byte prefix. */
  constructor(private readonly maxFrameBytes: number, options: FrameDecoderOptions = {}) {
    if (!(Number.isInteger(maxFrameBytes) && maxFrameBytes >= 0)) {
      throw new Error(`FrameDecoder: maxFrameBytes must be a non-negative integer, got ${maxFrameBytes}`);
    }
    this.arena = options.arena ?? null;
    this.arenaApiKeys = options.arenaApiKeys ?? new Set();
    this.arenaMinBytes = options.arenaMinBytes ?? 0;
  }

  /** True when `frame` (as returned by next()) lies in the arena and must be given to release(). */
  isArenaFrame(frame: Buffer): boolean {
    return this.arena !== null && this.arena.owns(frame);
  }

  /**
   * Gives an arena frame's block back once its request is done (no-op for other frames).
   * @throws Error for an arena frame released twice (a bug).
   */
  release(frame: Buffer): void {
    if (this.arena !== null && this.arena.owns(frame)) this.arena.release(frame);
  }

  /** Bytes received but not yet returned as frames (prefix bytes of the pending frame excluded once read). */
  get bufferedBytes(): number {
    return this.bytesBuffered;
  }

  /** The first invalid frame size seen, or null. */
  get error(): FrameSizeError | null {
    return this.sizeError;
  }

  /** FrameSource: the size error as the connection logs it when it closes, or null. */
  get errorReason(): string | null {
    const error = this.sizeError;
    if (error === null) return null;
    return error.reason === 'negative-size'
      ? `invalid frame size ${error.size}`
      : `frame size ${error.size} exceeds socket.request.max.bytes ${this.maxFrameBytes}`;
  }

  /**
   * FrameSource: drops the buffered chunks (the connection stopped or closed). Only whole frames
   * are ever gathered into the arena, so nothing buffered holds an arena block.
   */
  discard(): void {
    this.parts.length = 0;
    this.bytesBuffered = 0;
    this.pendingFrameSize = -1;
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
    return this.take(size, true);
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
    const prefix = this.take(SIZE_PREFIX_BYTES, false);
    return prefix.readInt32BE(0);
  }

  /**
   * Removes and returns the first `length` buffered bytes; caller guarantees they are buffered.
   * A whole frame (`isFrame`) that spans chunks may be gathered into the arena.
   */
  private take(length: number, isFrame: boolean): Buffer {
    const first = this.parts[0];
    if (length === 0) return Buffer.alloc(0);
    if (first!.length >= length) {
      const frame = first!.subarray(0, length);
      this.consumeFromHead(length);
      return frame;
    }
    const target = (isFrame ? this.arenaBlockFor(length) : null) ?? Buffer.allocUnsafe(length);
    let gathered = 0;
    let partCount = 0;
    while (gathered < length) {
      const part = this.parts[partCount]!;
      const wanted = length - gathered;
      if (part.length <= wanted) {
        target.set(part, gathered);
        gathered += part.length;
        partCount++;
      } else {
        target.set(part.subarray(0, wanted), gathered);
        this.parts[partCount] = part.subarray(wanted);
        gathered += wanted;
      }
    }
    this.parts.splice(0, partCount);
    this.bytesBuffered -= length;
    return target;
  }

  /** An arena block for a buffered frame of `length` bytes when the policy allows and there is room. */
  private arenaBlockFor(length: number): Buffer | null {
    if (this.arena === null || length < this.arenaMinBytes || length < API_KEY_BYTES) return null;
    const apiKey = (this.peekByte(0) << 8) | this.peekByte(1);
    if (!this.arenaApiKeys.has(apiKey)) return null;
    return this.arena.allocate(length);
  }

  /** Buffered byte at `index` from the head; caller guarantees it is buffered. */
  private peekByte(index: number): number {
    for (const part of this.parts) {
      if (index < part.length) return part[index]!;
      index -= part.length;
    }
    throw new Error('FrameDecoder: peek past the buffered bytes (bug)');
  }

  private consumeFromHead(length: number): void {
    const first = this.parts[0]!;
    if (first.length === length) this.parts.shift();
    else this.parts[0] = first.subarray(length);
    this.bytesBuffered -= length;
  }
}
