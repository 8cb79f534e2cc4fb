/**
 * The two implementations of {@link Time}: {@link SystemTime} (the real clocks and Node's
 * timers) and {@link ManualTime} (time that moves only when a test or the simulator says so).
 *
 * ManualTime is the one hand-moved clock of the code base; `io/clock.ts` (ManualClock),
 * `coordinator/scheduler.ts` and `replication/delay-scheduler.ts` (ManualScheduler) re-export it
 * under their old names.
 */
import type { Time, TimerHandle } from './environment.js';

/** A Node timer behind the opaque handle. */
class SystemTimerHandle implements TimerHandle {
  constructor(readonly id: number, readonly timer: ReturnType<typeof setTimeout>) {}
}

/**
 * Real time: `Date.now()` (wall), `performance.now()` (monotonic), Node timers unref'd so a
 * pending timeout (a long poll, a session expiry) never keeps the process alive, and
 * `setImmediate` for {@link Time.defer}. Holds no state but a handle counter.
 */
export class SystemTime implements Time {
  private nextId = 1;

  nowMs(): number {
    return Date.now();
  }

  monotonicMs(): number {
    return performance.now();
  }

  setTimeout(task: () => void, delayMs: number): TimerHandle {
    const timer = setTimeout(task, Math.max(0, delayMs));
    timer.unref();
    return new SystemTimerHandle(this.nextId++, timer);
  }

  clearTimeout(handle: TimerHandle): void {
    if (handle instanceof SystemTimerHandle) clearTimeout(handle.timer);
  }

  defer(task: () => void): void {
    setImmediate(task);
  }
}

/** Where a {@link ManualTime} starts. */
export interface ManualTimeOptions {
  /** Initial wall-clock time, ms since the epoch. Default 1_700_000_000_000 (November 2023). */
  startMs?: number;
  /** Initial monotonic time, ms. Default 0. */
  monotonicStartMs?: number;
}

/** The default start of a {@link ManualTime}'s wall clock, ms since the epoch. */
export const MANUAL_TIME_DEFAULT_START_MS = 1_700_000_000_000;

interface ManualTask {
  readonly id: number;
  readonly dueMs: number;
  readonly task: () => void;
}

/**
 * Deterministic time for tests and the simulator.
 *
 * - Time moves only through {@link advance}, {@link set} and {@link runUntilIdle}; the wall clock
 *   and the monotonic clock move together, by the same amount.
 * - Timers due at the same instant run in the order they were scheduled; a timer runs with the
 *   clocks showing its due time, so a task that schedules another inside the window sees that
 *   one run too.
 * - Deferred tasks ({@link defer}) run, in order, before time moves: at the start of every
 *   {@link advance} and after every timer task; {@link runDeferred} runs them without moving time.
 */
export class ManualTime implements Time {
  private wallMs: number;
  private monotonicValueMs: number;
  private nextId = 1;
  private readonly timers = new Map<number, ManualTask>();
  private deferred: Array<() => void> = [];

  /** @param start the initial wall time in ms since the epoch, or {@link ManualTimeOptions} */
  constructor(start: number | ManualTimeOptions = {}) {
    const options = typeof start === 'number' ? { startMs: start } : start;
    this.wallMs = options.startMs ?? MANUAL_TIME_DEFAULT_START_MS;
    this.monotonicValueMs = options.monotonicStartMs ?? 0;
  }

  nowMs(): number {
    return this.wallMs;
  }

  monotonicMs(): number {
    return this.monotonicValueMs;
  }

  setTimeout(task: () => void, delayMs: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { id, dueMs: this.monotonicValueMs + Math.max(0, delayMs), task });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }

  defer(task: () => void): void {
    this.deferred.push(task);
  }

  /** Timers scheduled and neither run nor cancelled (deferred tasks not counted). */
  get pendingCount(): number {
    return this.timers.size;
  }

  /** Deferred tasks waiting for the next {@link runDeferred} or {@link advance}. */
  get deferredCount(): number {
    return this.deferred.length;
  }

  /** Runs deferred tasks in order (including those they defer) without moving time. */
  runDeferred(): void {
    while (this.deferred.length > 0) {
      const batch = this.deferred;
      this.deferred = [];
      for (const task of batch) task();
    }
  }

  /**
   * Moves both clocks forward by `ms`, running deferred tasks first and every timer that falls
   * due on the way at its own instant (each followed by the tasks it deferred).
   * @throws Error when `ms` is negative or NaN
   */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error(`ManualTime.advance: negative or NaN step ${ms}`);
    const targetMonotonicMs = this.monotonicValueMs + ms;
    this.runDeferred();
    for (let next = this.nextDue(targetMonotonicMs); next !== undefined; next = this.nextDue(targetMonotonicMs)) {
      this.timers.delete(next.id);
      this.moveTo(Math.max(this.monotonicValueMs, next.dueMs));
      next.task();
      this.runDeferred();
    }
    this.moveTo(targetMonotonicMs);
  }

  /**
   * Sets the wall clock to `ms` (moving time forward as {@link advance} does).
   * @throws Error when `ms` is before the current wall time
   */
  set(ms: number): void {
    if (!(ms >= this.wallMs)) throw new Error(`ManualTime.set: ${ms} is before ${this.wallMs}`);
    this.advance(ms - this.wallMs);
  }

  /**
   * Runs deferred tasks and timers, moving time to each timer's due instant, until nothing is
   * pending or the next timer lies more than `limitMs` ahead of the start (a periodic task would
   * otherwise run forever). Returns the ms time moved.
   */
  runUntilIdle(limitMs = Number.MAX_SAFE_INTEGER): number {
    const startMs = this.monotonicValueMs;
    const horizonMs = startMs + limitMs;
    this.runDeferred();
    for (let next = this.nextDue(horizonMs); next !== undefined; next = this.nextDue(horizonMs)) {
      this.advance(next.dueMs - this.monotonicValueMs);
    }
    return this.monotonicValueMs - startMs;
  }

  /** The earliest timer due at or before `limitMs` (ties: the first scheduled). */
  private nextDue(limitMs: number): ManualTask | undefined {
    let next: ManualTask | undefined;
    for (const task of this.timers.values()) {
      if (task.dueMs > limitMs) continue;
      if (next === undefined || task.dueMs < next.dueMs || (task.dueMs === next.dueMs && task.id < next.id)) next = task;
    }
    return next;
  }

  private moveTo(monotonicMs: number): void {
    this.wallMs += monotonicMs - this.monotonicValueMs;
    this.monotonicValueMs = monotonicMs;
  }
}
