/**
 * Time as a seam: production code asks a {@link Clock}; tests and simulators move a
 * {@link ManualClock} by hand so time-based behaviour (segment.ms, retention.ms, flush.ms) is
 * deterministic.
 */
export interface Clock {
  /** Wall-clock milliseconds since the Unix epoch. */
  nowMs(): number;
}

/** The real wall clock (`Date.now()`). */
export class SystemClock implements Clock {
  nowMs(): number {
    return Date.now();
  }
}

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  private currentMs: number;

  /** @param startMs initial time, ms since the epoch */
  constructor(startMs = 1_700_000_000_000) {
    this.currentMs = startMs;
  }

  nowMs(): number {
    return this.currentMs;
  }

  /** Moves time forward by `ms` (>= 0). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error(`ManualClock.advance: negative or NaN step ${ms}`);
    this.currentMs += ms;
  }

  /** Sets the time; it may not go backwards. */
  set(ms: number): void {
    if (!(ms >= this.currentMs)) throw new Error(`ManualClock.set: ${ms} is before ${this.currentMs}`);
    this.currentMs = ms;
  }
}
