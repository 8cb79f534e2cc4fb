/**
 * The active controller's writes that are appended but not yet committed (Kafka's
 * DeferredEventQueue, keyed by offset): each waits for the batch ending at its offset to be
 * committed, then completes; the queue completes them in offset order. When the leadership is
 * lost they all fail together, and their records let the controller rebuild its uncommitted state
 * on top of the committed image.
 */
import { controllerAssert as assert } from './controller-result.js';
import type { MetadataRecord } from './metadata-records.js';

/** One appended batch waiting for its commit. */
export interface PendingWrite {
  /** Offset of the batch's last record. */
  readonly lastOffset: number;
  /** The batch's records, as applied to the controller's uncommitted state. */
  readonly records: readonly MetadataRecord[];
  /** Called once the batch is committed. */
  complete(): void;
  /** Called instead when the batch will not be committed by this controller (leadership lost). */
  fail(): void;
}

export class PendingWrites {
  private readonly queue: PendingWrite[] = [];

  /**
   * Queues `write`; its offset must be after every queued one, except for a waiter without
   * records (an answer that only needs what is appended to be committed), which may share the last.
   */
  add(write: PendingWrite): void {
    const last = this.queue[this.queue.length - 1];
    const after = last === undefined || write.lastOffset > last.lastOffset || (write.records.length === 0 && write.lastOffset === last.lastOffset);
    assert(after, 'pending writes are queued in offset order');
    this.queue.push(write);
  }

  /** Completes, in offset order, every write whose batch ends at or before `committedOffset`. */
  completeUpTo(committedOffset: number): void {
    while (this.queue.length > 0 && this.queue[0]!.lastOffset <= committedOffset) this.queue.shift()!.complete();
  }

  /** Fails every queued write, in offset order, and empties the queue. */
  failAll(): void {
    for (const write of this.queue.splice(0)) write.fail();
  }

  /** The queued writes, in offset order (their records rebuild the uncommitted state). */
  writes(): readonly PendingWrite[] {
    return this.queue;
  }

  /** The last queued write's offset, -1 when none is queued. */
  get lastOffset(): number {
    return this.queue[this.queue.length - 1]?.lastOffset ?? -1;
  }

  get size(): number {
    return this.queue.length;
  }
}
