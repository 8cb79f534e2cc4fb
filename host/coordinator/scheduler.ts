/**
 * The coordinator's only window on time. The group coordinator is a state machine without I/O:
 * "now" and every delayed operation (session expiry, rebalance timeouts, the initial rebalance
 * delay, offset expiry) come through this interface, so tests and the simulator drive time
 * deterministically with {@link ManualScheduler} while the broker uses {@link SystemScheduler}.
 *
 * Once host/io/clock.ts exports a scheduler of its own, an adapter satisfying this interface is
 * all the coordinator needs.
 */
export interface Scheduler {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
  /** Runs `task` once, `delayMs` (>= 0) from now. */
  setTimeout(task: () => void, delayMs: number): TimerHandle;
  /** Cancels a pending task; a no-op for one that already ran or was cancelled. */
  clearTimeout(handle: TimerHandle): void;
}

/** Opaque token returned by {@link Scheduler.setTimeout}. */
export interface TimerHandle {
  readonly id: number;
}

/** Real time: Date.now() and node timers (unref'd so a pending expiry never keeps a process alive). */
export class SystemScheduler implements Scheduler {
  private nextId = 1;
  private readonly timers = new Map<number, ReturnType<typeof setTimeout>>();

  nowMs(): number {
    return Date.now();
  }

  setTimeout(task: () => void, delayMs: number): TimerHandle {
    const id = this.nextId++;
    const timer = setTimeout(() => {
      this.timers.delete(id);
      task();
    }, Math.max(0, delayMs));
    timer.unref?.();
    this.timers.set(id, timer);
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    const timer = this.timers.get(handle.id);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.timers.delete(handle.id);
    }
  }
}

interface ManualTask {
  id: number;
  dueMs: number;
  task: () => void;
}

/**
 * Deterministic time for tests and the simulator: time moves only through {@link advance}, and
 * tasks due at the same instant run in the order they were scheduled.
 */
export class ManualScheduler implements Scheduler {
  private currentMs: number;
  private nextId = 1;
  private readonly tasks = new Map<number, ManualTask>();

  constructor(startMs = 1_700_000_000_000) {
    this.currentMs = startMs;
  }

  nowMs(): number {
    return this.currentMs;
  }

  setTimeout(task: () => void, delayMs: number): TimerHandle {
    const id = this.nextId++;
    this.tasks.set(id, { id, dueMs: this.currentMs + Math.max(0, delayMs), task });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.tasks.delete(handle.id);
  }

  /** Number of tasks still waiting to run. */
  get pendingCount(): number {
    return this.tasks.size;
  }

  /**
   * Moves time forward by `ms`, running every task that falls due on the way at its own instant
   * (so a task that schedules another inside the window sees it run too).
   */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error(`ManualScheduler.advance: ms must be >= 0, got ${ms}`);
    const targetMs = this.currentMs + ms;
    for (;;) {
      let next: ManualTask | undefined;
      for (const task of this.tasks.values()) {
        if (task.dueMs > targetMs) continue;
        if (next === undefined || task.dueMs < next.dueMs || (task.dueMs === next.dueMs && task.id < next.id)) next = task;
      }
      if (next === undefined) break;
      this.tasks.delete(next.id);
      this.currentMs = Math.max(this.currentMs, next.dueMs);
      next.task();
    }
    this.currentMs = targetMs;
  }
}
