/**
 * Keeps a repeated warning from flooding the log: a client that reconnects in a loop against a
 * full listener would otherwise write one line per attempt (thousands per second). Per key, the
 * first event logs at once; later ones within `intervalMs` are only counted, and the next one
 * after the interval logs with `suppressed`: how many were dropped since the last line.
 *
 * Memory: one entry per distinct key, at most `maxKeys` (the oldest entry is evicted beyond it),
 * so keys such as peer addresses cannot grow it without bound.
 */

/** Whether to log this event, and how many events of its key were dropped since the last line. */
export interface ThrottleDecision {
  readonly log: boolean;
  /** Events of this key not logged since its previous line (0 on the first). */
  readonly suppressed: number;
}

interface KeyState {
  lastLoggedMs: number;
  suppressed: number;
}

/** The interval between two lines of one key, ms. */
export const DEFAULT_LOG_THROTTLE_INTERVAL_MS = 10_000;
/** Keys remembered. */
export const DEFAULT_LOG_THROTTLE_MAX_KEYS = 1_024;

export class LogThrottle {
  private readonly keys = new Map<string, KeyState>();

  constructor(
    /** Milliseconds between two lines of one key. */
    private readonly intervalMs = DEFAULT_LOG_THROTTLE_INTERVAL_MS,
    private readonly maxKeys = DEFAULT_LOG_THROTTLE_MAX_KEYS,
  ) {}

  /** Records one event of `key` at `nowMs` (a monotonic clock, ms) and says whether to log it. */
  check(key: string, nowMs: number): ThrottleDecision {
    const state = this.keys.get(key);
    if (state === undefined) {
      if (this.keys.size >= this.maxKeys) this.keys.delete(this.keys.keys().next().value!);
      this.keys.set(key, { lastLoggedMs: nowMs, suppressed: 0 });
      return { log: true, suppressed: 0 };
    }
    if (nowMs - state.lastLoggedMs < this.intervalMs) {
      state.suppressed++;
      return { log: false, suppressed: state.suppressed };
    }
    const suppressed = state.suppressed;
    state.lastLoggedMs = nowMs;
    state.suppressed = 0;
    return { log: true, suppressed };
  }
}
