/**
 * A ring allocator for in-flight request frames over one fixed region (in the broker: the FRAMES
 * region of WebAssembly memory, assembly/memory/layout.ts), so a Produce frame that spans socket
 * chunks is gathered with its one copy straight into memory the core can validate and stamp in
 * place.
 *
 * Shape: blocks are carved in allocation order at the write position; the oldest live block
 * bounds how far the write position may go after wrapping to the start, and the ring wraps as
 * soon as the space before the oldest live block fits the next frame. Blocks may be released
 * in any order (requests complete out of order); space comes back when every older block is
 * released too. When nothing is live the ring starts again at the region's start, so a
 * connection that completes its requests promptly keeps reusing the same (cache-warm) bytes.
 * `allocate` returns null when the region has no room (the caller gathers on the JS heap
 * instead): the arena never blocks and never grows.
 *
 * Lifetime rule for users: bytes handed out stay untouched by the arena until released; after
 * `release` they may be overwritten by the next frame, so nothing may keep a view of them.
 */
export interface FrameArena {
  /** A zero-filled-or-stale view of exactly `size` bytes (size >= 1), or null when there is no room. */
  allocate(size: number): Buffer | null;
  /** Blocks handed out and not yet reclaimed (released blocks behind an older live one count). */
  readonly liveBlocks: number;
  /** True when `bytes` lies inside the arena's region. */
  owns(bytes: Uint8Array): boolean;
  /**
   * Gives back a block returned by allocate (the view itself, not a subarray).
   * @throws Error when `frame` is not a live block of this arena (a bug: double release).
   */
  release(frame: Buffer): void;
}

/** Block starts are rounded up to this many bytes (cache lines). */
const ALIGNMENT = 64;

interface Block {
  start: number;
  end: number;
  released: boolean;
}

/** The ring allocator over `region` (see the file header). */
export class RingFrameArena implements FrameArena {
  /** Live blocks (and released ones still behind a live older block), oldest first. */
  private blocks: Block[] = [];
  /** Index of the oldest block in `blocks` (entries before it are dead and trimmed lazily). */
  private head = 0;

  constructor(private readonly region: Buffer) {}

  /** Capacity of the region, bytes. */
  get capacityBytes(): number {
    return this.region.length;
  }

  get liveBlocks(): number {
    return this.blocks.length - this.head;
  }

  allocate(size: number): Buffer | null {
    if (!(Number.isInteger(size) && size >= 1)) throw new Error(`RingFrameArena: size must be a positive integer, got ${size}`);
    const capacity = this.region.length;
    if (size > capacity) return null;
    let start: number;
    if (this.head === this.blocks.length) {
      this.blocks = [];
      this.head = 0;
      start = 0;
    } else {
      const oldest = this.blocks[this.head]!;
      const newest = this.blocks[this.blocks.length - 1]!;
      const writeAt = alignUp(newest.end);
      if (newest.start >= oldest.start) {
        // Not wrapped: free space is [0, oldest.start) and [writeAt, capacity). The low end is
        // preferred, so a steady stream of frames keeps reusing the same few (cache-warm) blocks
        // instead of walking the whole region.
        if (size <= oldest.start) start = 0;
        else if (writeAt + size <= capacity) start = writeAt;
        else return null;
      } else {
        // Wrapped: free space is [writeAt, oldest.start).
        if (writeAt + size <= oldest.start) start = writeAt;
        else return null;
      }
    }
    this.blocks.push({ start, end: start + size, released: false });
    return this.region.subarray(start, start + size);
  }

  owns(bytes: Uint8Array): boolean {
    const region = this.region;
    return bytes.buffer === region.buffer
      && bytes.byteOffset >= region.byteOffset
      && bytes.byteOffset + bytes.byteLength <= region.byteOffset + region.length;
  }

  release(frame: Buffer): void {
    const start = frame.byteOffset - this.region.byteOffset;
    const end = start + frame.length;
    let index = this.head;
    while (index < this.blocks.length) {
      const block = this.blocks[index]!;
      if (block.start === start && block.end === end && !block.released && frame.buffer === this.region.buffer) break;
      index++;
    }
    if (index === this.blocks.length) throw new Error(`RingFrameArena: release of a block that is not live (bytes ${start}..${end})`);
    this.blocks[index]!.released = true;
    while (this.head < this.blocks.length && this.blocks[this.head]!.released) this.head++;
    if (this.head > 64 && this.head * 2 > this.blocks.length) {
      this.blocks = this.blocks.slice(this.head);
      this.head = 0;
    }
  }
}

function alignUp(value: number): number {
  return Math.ceil(value / ALIGNMENT) * ALIGNMENT;
}
