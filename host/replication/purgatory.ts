import type { DelayScheduler } from './delay-scheduler.js';
import type { DelayedOperation } from './delayed-operation.js';

/** Default bound on waiting operations per purgatory. */
export const DEFAULT_MAX_DELAYED_OPERATIONS = 10_000;

/**
 * Kafka's DelayedOperationPurgatory: holds delayed operations, watched by keys (a partition,
 * `topic-partition`), until they complete on a `checkAndComplete(key)` from the code that changed
 * that key, or time out.
 *
 * Bounded: when `maxOperations` are waiting, a new operation is completed at once (a long-poll
 * Fetch then answers early with what it has) rather than queued.
 */
export class Purgatory<Op extends DelayedOperation<Event>, Event = void> {
  private readonly watchers = new Map<string, Set<Op>>();
  private readonly keysOf = new Map<Op, readonly string[]>();

  constructor(
    readonly name: string,
    private readonly scheduler: DelayScheduler,
    private readonly maxOperations: number = DEFAULT_MAX_DELAYED_OPERATIONS,
  ) {
    if (!(Number.isSafeInteger(maxOperations) && maxOperations > 0)) {
      throw new Error(`Purgatory ${name}: maxOperations must be a positive integer, got ${maxOperations}`);
    }
  }

  /** Operations waiting now. */
  get delayed(): number {
    return this.keysOf.size;
  }

  /** Operations watching `key` now. */
  watched(key: string): number {
    return this.watchers.get(key)?.size ?? 0;
  }

  /**
   * Completes `op` now if it can, else watches it under `keys` and starts its timer.
   * Returns true when it completed immediately (including when the purgatory is full).
   */
  tryCompleteElseWatch(op: Op, keys: readonly string[]): boolean {
    if (op.tryComplete()) return true;
    if (this.keysOf.size >= this.maxOperations || keys.length === 0) {
      op.forceComplete();
      return true;
    }
    this.keysOf.set(op, keys);
    for (const key of keys) {
      let set = this.watchers.get(key);
      if (set === undefined) {
        set = new Set();
        this.watchers.set(key, set);
      }
      set.add(op);
    }
    const handle = this.scheduler.setTimeout(() => {
      op.expire();
      this.unwatch(op);
    }, op.delayMs);
    op.attachTimer(() => this.scheduler.clearTimeout(handle));
    return false;
  }

  /** Re-checks the operations watching `key` after it changed; returns how many completed. */
  checkAndComplete(key: string, event?: Event): number {
    const set = this.watchers.get(key);
    if (set === undefined) return 0;
    let completed = 0;
    for (const op of [...set]) {
      if (op.isCompleted || op.tryComplete(key, event)) {
        this.unwatch(op);
        completed++;
      }
    }
    return completed;
  }

  /** Completes every waiting operation now (broker shutdown, partition removal by key). */
  completeAll(key?: string): number {
    const ops = key === undefined ? [...this.keysOf.keys()] : [...(this.watchers.get(key) ?? [])];
    for (const op of ops) {
      op.forceComplete();
      this.unwatch(op);
    }
    return ops.length;
  }

  private unwatch(op: Op): void {
    const keys = this.keysOf.get(op);
    if (keys === undefined) return;
    this.keysOf.delete(op);
    for (const key of keys) {
      const set = this.watchers.get(key);
      if (set === undefined) continue;
      set.delete(op);
      if (set.size === 0) this.watchers.delete(key);
    }
  }
}
