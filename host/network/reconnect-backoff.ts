/**
 * Exponential reconnect backoff with jitter, as Kafka's NetworkClient applies between attempts to
 * reach a node (`reconnect.backoff.ms`, `reconnect.backoff.max.ms`; KIP-144).
 *
 * After the n-th consecutive failure the next attempt waits
 * `min(maxMs, baseMs * 2^(n-1)) * (1 ± jitter)`; a success resets the count. The jitter comes from
 * the injected RandomSource so the simulator replays it exactly.
 */
import type { RandomSource } from '../io/environment.js';

/** Kafka's defaults: `reconnect.backoff.ms` 50, `reconnect.backoff.max.ms` 1000, jitter 0.2. */
export const DEFAULT_RECONNECT_BACKOFF = { baseMs: 50, maxMs: 1000, jitter: 0.2 } as const;

export interface ReconnectBackoffOptions {
  /** First wait after a failure, ms (`reconnect.backoff.ms`). */
  readonly baseMs: number;
  /** Largest wait, ms (`reconnect.backoff.max.ms`). */
  readonly maxMs: number;
  /** Relative jitter in [0, 1): the wait is scaled by a uniform factor in [1 - jitter, 1 + jitter]. */
  readonly jitter: number;
}

/** Tracks consecutive failures of one connection and says how long to wait before the next try. */
export class ReconnectBackoff {
  private failures = 0;

  constructor(private readonly random: RandomSource, private readonly options: ReconnectBackoffOptions = DEFAULT_RECONNECT_BACKOFF) {
    if (options.baseMs < 0 || options.maxMs < options.baseMs) throw new RangeError(`bad reconnect backoff ${options.baseMs}..${options.maxMs} ms`);
    if (options.jitter < 0 || options.jitter >= 1) throw new RangeError(`reconnect backoff jitter ${options.jitter} outside [0, 1)`);
  }

  /** Consecutive failures since the last success. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Records a failed attempt and returns the wait before the next one, ms (an integer ≥ 0). */
  fail(): number {
    this.failures += 1;
    const exponent = Math.min(this.failures - 1, 30);
    const raw = Math.min(this.options.maxMs, this.options.baseMs * 2 ** exponent);
    const factor = 1 + this.options.jitter * (2 * this.random.next() - 1);
    return Math.max(0, Math.round(raw * factor));
  }

  /** Records a successful connection: the next failure starts again at `baseMs`. */
  succeed(): void {
    this.failures = 0;
  }
}
