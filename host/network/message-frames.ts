/**
 * The FrameSource of a message transport (WebSocket `/kafka`): every message is one whole request
 * frame (header + body, no size prefix), so there is nothing to split, only a bounded queue of
 * frames waiting for dispatch.
 *
 * Copying: uWebSockets.js hands a message as an ArrayBuffer over native memory that is neutered
 * when its callback returns (ARCHITECTURE.md), so `push` copies it before anything else.
 */
import type { FrameSource } from './kafka-connection.js';

/** Queued whole frames (see the file header). */
export class MessageFrames implements FrameSource {
  private readonly frames: Buffer[] = [];
  private bytes = 0;

  /** @param maxFrameBytes largest accepted message, bytes (socket.request.max.bytes) */
  constructor(private readonly maxFrameBytes: number) {}

  /** Why a message of `size` bytes is refused (above socket.request.max.bytes), or null. */
  refusal(size: number): string | null {
    return size > this.maxFrameBytes ? `message of ${size} bytes exceeds socket.request.max.bytes ${this.maxFrameBytes}` : null;
  }

  /** Copies `message` out of the transport's memory and queues it as one frame. */
  push(message: ArrayBuffer): void {
    const frame = Buffer.allocUnsafe(message.byteLength);
    frame.set(new Uint8Array(message));
    this.frames.push(frame);
    this.bytes += frame.length;
  }

  /** Frames queued (a zero-byte message counts). */
  get count(): number {
    return this.frames.length;
  }

  /** FrameSource: the oldest queued frame, or null. */
  next(): Buffer | null {
    const frame = this.frames.shift();
    if (frame === undefined) return null;
    this.bytes -= frame.length;
    return frame;
  }

  /** FrameSource: whole messages are never malformed at this layer. */
  get errorReason(): string | null {
    return null;
  }

  /** FrameSource: bytes of the queued frames. */
  get bufferedBytes(): number {
    return this.bytes;
  }

  /** FrameSource: drops every queued frame. */
  discard(): void {
    this.frames.length = 0;
    this.bytes = 0;
  }
}
