/**
 * How many bytes a high watermark move makes readable for consumers, without reading the log: a
 * leader whose high watermark lags its log end (followers in the ISR still copying) notes each
 * append's end offset and size here; when the high watermark passes an append's end, its bytes
 * have become visible. The long-poll fetches of consumers count those bytes against their
 * min_bytes (DelayedFetch), as Kafka's DelayedFetch counts them from log positions.
 *
 * Bounded: beyond {@link MAX_PENDING_APPENDS} appends waiting, sizes are no longer tracked and a
 * move reports {@link UNKNOWN_VISIBLE_BYTES} (waiting fetches then read again at once: an early
 * answer, never a lost one) until the high watermark has caught up with the log end.
 */

/** Appends tracked at most while the high watermark lags. */
export const MAX_PENDING_APPENDS = 4096;
/** Reported when the sizes were not tracked: large enough to complete any waiting fetch. */
export const UNKNOWN_VISIBLE_BYTES = 0x7fffffff;

export class PendingVisibleBytes {
  /** End offsets (exclusive) of appends above the high watermark, ascending. */
  private readonly endOffsets: number[] = [];
  private readonly sizes: number[] = [];
  private head = 0;
  private overflowed = false;

  /** Notes an append ending at `endOffset` (exclusive) of `bytes`, not yet below the high watermark. */
  add(endOffset: number, bytes: number): void {
    if (this.overflowed) return;
    if (this.endOffsets.length - this.head >= MAX_PENDING_APPENDS) {
      this.overflowed = true;
      this.clear();
      return;
    }
    this.endOffsets.push(endOffset);
    this.sizes.push(bytes);
  }

  /**
   * The high watermark moved to `highWatermark`: returns the bytes of the appends it now covers
   * (UNKNOWN_VISIBLE_BYTES after an overflow) and forgets them. `logEndOffset` ends an overflow
   * once the high watermark reached it.
   */
  takeVisible(highWatermark: number, logEndOffset: number): number {
    if (this.overflowed) {
      if (highWatermark >= logEndOffset) this.overflowed = false;
      return UNKNOWN_VISIBLE_BYTES;
    }
    if (this.endOffsets.length === 0) return 0;
    let bytes = 0;
    while (this.head < this.endOffsets.length && this.endOffsets[this.head]! <= highWatermark) {
      bytes += this.sizes[this.head]!;
      this.head++;
    }
    if (this.head === this.endOffsets.length) this.clear();
    else if (this.head > 1024) this.compact();
    return bytes;
  }

  /** Forgets everything (a leadership change, a truncation). */
  clear(): void {
    this.endOffsets.length = 0;
    this.sizes.length = 0;
    this.head = 0;
  }

  private compact(): void {
    this.endOffsets.splice(0, this.head);
    this.sizes.splice(0, this.head);
    this.head = 0;
  }
}
