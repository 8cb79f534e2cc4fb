/**
 * Timers as a seam, so purgatory timeouts (max.wait.ms, produce timeout_ms) run on the real
 * clock in the broker and on a hand-moved clock in tests and the simulator.
 */
export interface DelayScheduler {
  /** Runs `callback` once after `delayMs` (>= 0) ms; returns a function that cancels it. */
  schedule(delayMs: number, callback: () => void): () => void;
}

/** setTimeout-based scheduler. Timers are unref'd: a pending long poll never keeps the process alive. */
export const realTimeScheduler: DelayScheduler = {
  schedule(delayMs, callback) {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** A scheduler whose time moves only through `advance`; due callbacks run in deadline order. */
export class ManualScheduler implements DelayScheduler {
  private nowMsValue: number;
  private nextId = 0;
  private readonly pending = new Map<number, { dueMs: number; callback: () => void }>();

  constructor(startMs = 0) {
    this.nowMsValue = startMs;
  }

  nowMs(): number {
    return this.nowMsValue;
  }

  /** Timers scheduled and neither fired nor cancelled. */
  get pendingCount(): number {
    return this.pending.size;
  }

  schedule(delayMs: number, callback: () => void): () => void {
    const id = this.nextId++;
    this.pending.set(id, { dueMs: this.nowMsValue + Math.max(0, delayMs), callback });
    return () => {
      this.pending.delete(id);
    };
  }

  /** Moves time forward by `ms`, firing every timer that falls due (ties in scheduling order). */
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
      timer.callback();
    }
    this.nowMsValue = targetMs;
  }
}
