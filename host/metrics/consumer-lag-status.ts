/**
 * Burrow's consumer status rules, in the broker (issue 14): each partition a group committed
 * offsets for keeps a short history of samples (time, committed offset, lag) over a sliding window
 * (consumer.lag.window.ms), and is judged from it:
 *
 * - OK: lag 0, or the consumer keeps up (none of the rules below).
 * - WARNING: the history covers the whole window, the committed offset moved, and the lag never
 *   fell and ended higher than it started (Burrow's "lag is increasing": the consumer is too slow).
 * - STALLED: lag above 0 and the committed offset has not moved for the whole window (the
 *   consumer is alive but stopped committing, or stuck on a record).
 * - STOPPED: lag above 0 and the group has no member (Empty or Dead: nobody consumes).
 *
 * A group's status is its worst partition's (STOPPED > STALLED > WARNING > OK). The rules need a
 * full window of history before WARNING or STALLED, so a group just seen is never flagged.
 * Pure: times come in as arguments (the monitor takes them from the broker's Time).
 */

/** A group's or partition's status, by increasing severity. */
export type ConsumerStatus = 'OK' | 'WARNING' | 'STALLED' | 'STOPPED';

/** Every status, by increasing severity (the order of the `/metrics` status series). */
export const CONSUMER_STATUSES: readonly ConsumerStatus[] = ['OK', 'WARNING', 'STALLED', 'STOPPED'];

/** The more severe of two statuses. */
export function worseStatus(a: ConsumerStatus, b: ConsumerStatus): ConsumerStatus {
  return CONSUMER_STATUSES.indexOf(a) >= CONSUMER_STATUSES.indexOf(b) ? a : b;
}

interface Sample {
  readonly timeMs: number;
  readonly committedOffset: number;
  readonly lag: number;
}

/** One group partition's samples within the window (plus the newest one before it, the anchor). */
export class PartitionLagHistory {
  private readonly samples: Sample[] = [];
  /** When the committed offset last changed (or was first seen), ms. */
  private committedSinceMs = -1;

  /** Adds a sample taken at `timeMs` and forgets those the window no longer needs. */
  add(timeMs: number, committedOffset: number, lag: number, windowMs: number): void {
    const last = this.samples[this.samples.length - 1];
    if (last === undefined || last.committedOffset !== committedOffset) this.committedSinceMs = timeMs;
    this.samples.push({ timeMs, committedOffset, lag });
    // Keep one sample at or before the window's start, so the history can be seen to cover it.
    const windowStart = timeMs - windowMs;
    while (this.samples.length > 2 && this.samples[1]!.timeMs <= windowStart) this.samples.shift();
  }

  /** Samples held (bounded by window / sample interval + 2). */
  get size(): number {
    return this.samples.length;
  }

  /** The status at `nowMs` for a group with (`hasMembers`) or without members. */
  evaluate(nowMs: number, windowMs: number, hasMembers: boolean): ConsumerStatus {
    const last = this.samples[this.samples.length - 1];
    if (last === undefined || last.lag <= 0) return 'OK';
    if (!hasMembers) return 'STOPPED';
    if (nowMs - this.committedSinceMs >= windowMs) return 'STALLED';
    const first = this.samples[0]!;
    if (nowMs - first.timeMs < windowMs) return 'OK';
    let growing = last.lag > first.lag;
    for (let i = 1; growing && i < this.samples.length; i++) growing = this.samples[i]!.lag >= this.samples[i - 1]!.lag;
    return growing ? 'WARNING' : 'OK';
  }
}
