/**
 * LifeTime: the simulation's clock as one broker life sees it. A process that died runs nothing:
 * once `alive()` turns false, the timers and deferred tasks this life scheduled never run (the
 * shared {@link ManualTime} would otherwise fire them: a dead broker answering a produce).
 */
import type { Time, TimerHandle } from '../io/environment.js';

export class LifeTime implements Time {
  constructor(
    private readonly time: Time,
    private readonly alive: () => boolean,
  ) {}

  nowMs(): number {
    return this.time.nowMs();
  }

  monotonicMs(): number {
    return this.time.monotonicMs();
  }

  setTimeout(task: () => void, delayMs: number): TimerHandle {
    return this.time.setTimeout(() => { if (this.alive()) task(); }, delayMs);
  }

  clearTimeout(handle: TimerHandle): void {
    this.time.clearTimeout(handle);
  }

  defer(task: () => void): void {
    this.time.defer(() => { if (this.alive()) task(); });
  }
}
