import type { Time, TimerHandle } from '../io/environment.js';
import type { DelayedOperation } from './delayed-operation.js';

/** Default bound on waiting operations per purgatory. */
export const DEFAULT_MAX_DELAYED_OPERATIONS = 10_000;

interface Deadline<Op> {
  dueMs: number;
  /** Insertion order: ties expire first-in first-out. */
  seq: number;
  op: Op;
}

/**
 * Kafka's DelayedOperationPurgatory: holds delayed operations, watched by keys (a partition,
 * `topic-partition`), until they complete on a `checkAndComplete(key)` from the code that changed
 * that key, or time out.
 *
 * Bounded: when `maxOperations` are waiting, a new operation is completed at once (a long-poll
 * Fetch then answers early with what it has) rather than queued.
 *
 * Timeouts: one scheduler timer per purgatory, for the earliest deadline, over a min-heap of
 * deadlines (Kafka uses a timing wheel for the same reason): a long-poll Fetch that completes on
 * the next append (W4: thousands a second) then costs no timer start and cancel of its own.
 * Completed operations leave the heap lazily, from its top. Watcher sets stay allocated for keys
 * that were watched (one small Set per partition) instead of being created and dropped per
 * operation.
 */
export class Purgatory<Op extends DelayedOperation<Event>, Event = void> {
  private readonly watchers = new Map<string, Set<Op>>();
  private waiting = 0;
  private readonly deadlines: Deadline<Op>[] = [];
  private nextSeq = 0;
  private timer: TimerHandle | null = null;
  private timerDueMs = Infinity;

  constructor(
    readonly name: string,
    private readonly scheduler: Pick<Time, 'monotonicMs' | 'setTimeout' | 'clearTimeout'>,
    private readonly maxOperations: number = DEFAULT_MAX_DELAYED_OPERATIONS,
  ) {
    if (!(Number.isSafeInteger(maxOperations) && maxOperations > 0)) {
      throw new Error(`Purgatory ${name}: maxOperations must be a positive integer, got ${maxOperations}`);
    }
  }

  /** Operations waiting now. */
  get delayed(): number {
    return this.waiting;
  }

  /** Operations watching `key` now. */
  watched(key: string): number {
    return this.watchers.get(key)?.size ?? 0;
  }

  /**
   * Completes `op` now if it can, else watches it under `keys` until its delayMs passes.
   * Returns true when it completed immediately (including when the purgatory is full).
   */
  tryCompleteElseWatch(op: Op, keys: readonly string[]): boolean {
    if (op.tryComplete()) return true;
    if (this.waiting >= this.maxOperations || keys.length === 0) {
      op.forceComplete();
      return true;
    }
    op.watchKeys = keys;
    this.waiting++;
    for (const key of keys) {
      let set = this.watchers.get(key);
      if (set === undefined) {
        set = new Set();
        this.watchers.set(key, set);
      }
      set.add(op);
    }
    this.dropCompletedDeadlines();
    this.pushDeadline({ dueMs: this.scheduler.monotonicMs() + op.delayMs, seq: this.nextSeq++, op });
    this.armTimer();
    return false;
  }

  /** Re-checks the operations watching `key` after it changed; returns how many completed. */
  checkAndComplete(key: string, event?: Event): number {
    const set = this.watchers.get(key);
    if (set === undefined || set.size === 0) return 0;
    let completed = 0;
    if (set.size === 1) {
      // The common case (one consumer long-polling a partition): no copy of the set.
      const op = set.values().next().value as Op;
      if (op.isCompleted || op.tryComplete(key, event)) {
        this.unwatch(op);
        completed++;
      }
      return completed;
    }
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
    const ops = new Set<Op>();
    if (key === undefined) {
      for (const set of this.watchers.values()) for (const op of set) ops.add(op);
    } else {
      for (const op of this.watchers.get(key) ?? []) ops.add(op);
    }
    for (const op of ops) {
      op.forceComplete();
      this.unwatch(op);
    }
    if (key === undefined) this.watchers.clear();
    else if (this.watchers.get(key)?.size === 0) this.watchers.delete(key);
    this.dropCompletedDeadlines();
    return ops.size;
  }

  private unwatch(op: Op): void {
    const keys = op.watchKeys;
    if (keys === null) return;
    op.watchKeys = null;
    this.waiting--;
    for (const key of keys) this.watchers.get(key)?.delete(op);
  }

  /** Timer: expires every due operation, then re-arms for the next deadline. */
  private readonly onTimer = (): void => {
    this.timer = null;
    this.timerDueMs = Infinity;
    const nowMs = this.scheduler.monotonicMs();
    while (this.deadlines.length > 0 && this.deadlines[0]!.dueMs <= nowMs) {
      const { op } = this.popDeadline();
      if (op.watchKeys === null) continue;
      op.expire();
      this.unwatch(op);
    }
    this.dropCompletedDeadlines();
    this.armTimer();
  };

  /**
   * Keeps the timer set for the earliest deadline. A timer set for an earlier deadline whose
   * operation completed meanwhile stays: it fires, finds nothing due and re-arms (cheaper than
   * a cancel and a new timer per completed operation).
   */
  private armTimer(): void {
    if (this.deadlines.length === 0) return;
    const dueMs = this.deadlines[0]!.dueMs;
    if (this.timer !== null && this.timerDueMs <= dueMs) return;
    if (this.timer !== null) this.scheduler.clearTimeout(this.timer);
    this.timerDueMs = dueMs;
    this.timer = this.scheduler.setTimeout(this.onTimer, Math.max(0, dueMs - this.scheduler.monotonicMs()));
  }

  /**
   * Pops completed operations off the top of the heap (they complete roughly in deadline order).
   * Ones stuck behind a long-waiting operation are swept when they outnumber the waiting ones
   * (an O(n) rebuild, amortised over as many completions), so the heap stays O(waiting).
   */
  private dropCompletedDeadlines(): void {
    const heap = this.deadlines;
    while (heap.length > 0 && heap[0]!.op.watchKeys === null) this.popDeadline();
    if (heap.length > 2 * this.waiting + 64) {
      const live = heap.filter((entry) => entry.op.watchKeys !== null);
      heap.length = 0;
      for (const entry of live) this.pushDeadline(entry);
    }
  }

  private pushDeadline(entry: Deadline<Op>): void {
    const heap = this.deadlines;
    let i = heap.length;
    heap.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entry, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  private popDeadline(): Deadline<Op> {
    const heap = this.deadlines;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left;
        if (!before(heap[child]!, last)) break;
        heap[i] = heap[child]!;
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}

function before<Op>(a: Deadline<Op>, b: Deadline<Op>): boolean {
  return a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.seq < b.seq);
}
