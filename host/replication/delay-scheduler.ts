/**
 * Timers as a seam, so purgatory timeouts (max.wait.ms, produce timeout_ms) run on the real
 * clock in the broker and on a hand-moved clock in tests and the simulator.
 *
 * The method names match the coordinator's `Scheduler` (host/coordinator/scheduler.ts), so the
 * broker can hand one scheduler object to both.
 */
export interface DelayScheduler {
  /** The scheduler's clock, ms (monotonic; only differences are meaningful). */
  nowMs(): number;
  /** Runs `task` once, `delayMs` (>= 0) from now; returns a handle for clearTimeout. */
  setTimeout(task: () => void, delayMs: number): unknown;
  /** Cancels a pending task; a no-op for one that already ran or was cancelled. */
  clearTimeout(handle: unknown): void;
}

/** Node timers, unref'd: a pending long poll never keeps the process alive. */
export const realTimeScheduler: DelayScheduler = {
  nowMs() {
    return performance.now();
  },
  setTimeout(task, delayMs) {
    const timer = setTimeout(task, Math.max(0, delayMs));
    timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** A scheduler whose time moves only through `advance`; due tasks run in deadline order. */
export class ManualScheduler implements DelayScheduler {
  private nowMsValue: number;
  private nextId = 0;
  private readonly pending = new Map<number, { dueMs: number; task: () => void }>();

  constructor(startMs = 0) {
    this.nowMsValue = startMs;
  }

  nowMs(): number {
    return this.nowMsValue;
  }

  /** Tasks scheduled and neither run nor cancelled. */
  get pendingCount(): number {
    return this.pending.size;
  }

  setTimeout(task: () => void, delayMs: number): number {
    const id = this.nextId++;
    this.pending.set(id, { dueMs: this.nowMsValue + Math.max(0, delayMs), task });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Moves time forward by `ms`, running every task that falls due (ties in scheduling order). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error(`ManualScheduler.advance: bad step ${ms}`);
    const targetMs = this.nowMsValue + ms;
    for (;;) {
      let nextId = -1;
      let nextDue = Infinity;
      for (const [id, timer] of this.pending) {
        if (timer.dueMs <= targetMs && timer.dueMs < nextDue) {
          nextDue = timer.dueMs;
          nextId = id;
        }
      }
      if (nextId < 0) break;
      const timer = this.pending.get(nextId)!;
      this.pending.delete(nextId);
      this.nowMsValue = Math.max(this.nowMsValue, timer.dueMs);
      timer.task();
    }
    this.nowMsValue = targetMs;
  }
}
