/**
 * The console's live rates: every `intervalMs` (1 s) the sampler reads the broker's cumulative
 * counters (messages in, bytes in, bytes out, each since start) and keeps the per-second rates of
 * the last `capacity` intervals (5 minutes) in a ring buffer, so the overview's charts draw the
 * last minutes at once and then poll only what is new (`since`). One read of the counters per
 * interval, whoever watches: opening the console adds nothing to the produce/fetch path.
 *
 * A counter that goes backwards (a source replaced, a partition deleted under a log-end-offset
 * sum) gives a rate of 0 for that interval, never a negative rate.
 */
import type { Time, TimerHandle } from '../io/environment.js';
import type { ThroughputSample } from './console-api-types.js';

/** Cumulative counts since the broker started; a field is null when its source does not know it. */
export interface ThroughputTotals {
  readonly messagesIn: number;
  readonly bytesIn: number;
  readonly bytesOut: number | null;
  readonly messagesOut: number | null;
}

export interface ThroughputSamplerOptions {
  readonly time: Pick<Time, 'nowMs' | 'monotonicMs' | 'setTimeout' | 'clearTimeout'>;
  /** Reads the counters; called once per interval. */
  readonly totals: () => ThroughputTotals;
  /** Default 1000 ms. */
  readonly intervalMs?: number;
  /** Samples kept; default 300 (5 minutes at 1 s). */
  readonly capacity?: number;
}

export class ThroughputSampler {
  readonly intervalMs: number;
  private readonly capacity: number;
  private readonly ring: ThroughputSample[] = [];
  /** Index in `ring` of the oldest sample once the ring is full. */
  private head = 0;
  private previous: { monotonicMs: number; totals: ThroughputTotals } | null = null;
  private timer: TimerHandle | null = null;

  constructor(private readonly options: ThroughputSamplerOptions) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.capacity = options.capacity ?? 300;
    if (!(this.intervalMs > 0) || !(this.capacity > 0)) throw new Error('ThroughputSampler: intervalMs and capacity must be positive');
  }

  /** Takes the first reading and samples every interval until {@link stop}. */
  start(): void {
    if (this.timer !== null) return;
    this.sample();
    const tick = (): void => {
      this.sample();
      if (this.timer !== null) this.timer = this.options.time.setTimeout(tick, this.intervalMs);
    };
    this.timer = this.options.time.setTimeout(tick, this.intervalMs);
  }

  stop(): void {
    if (this.timer !== null) this.options.time.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Reads the counters now and appends the rates since the previous reading (the timer calls this). */
  sample(): void {
    // Rates over the monotonic clock (a wall-clock step must not make a spike); stamped with the wall clock.
    const timeMs = this.options.time.nowMs();
    const monotonicMs = this.options.time.monotonicMs();
    const totals = this.options.totals();
    const previous = this.previous;
    this.previous = { monotonicMs, totals };
    if (previous === null || monotonicMs <= previous.monotonicMs) return;
    const seconds = (monotonicMs - previous.monotonicMs) / 1000;
    const rate = (now: number | null, before: number | null): number | null =>
      now === null || before === null ? null : Math.max(0, now - before) / seconds;
    this.push({
      timeMs,
      messagesInPerSec: rate(totals.messagesIn, previous.totals.messagesIn)!,
      bytesInPerSec: rate(totals.bytesIn, previous.totals.bytesIn)!,
      bytesOutPerSec: rate(totals.bytesOut, previous.totals.bytesOut),
      messagesOutPerSec: rate(totals.messagesOut, previous.totals.messagesOut),
    });
  }

  /** Samples newer than `sinceMs` (all with 0), oldest first; at most `capacity`. */
  samples(sinceMs = 0): ThroughputSample[] {
    const ordered = this.ring.length < this.capacity ? this.ring : [...this.ring.slice(this.head), ...this.ring.slice(0, this.head)];
    return ordered.filter((sample) => sample.timeMs > sinceMs);
  }

  private push(sample: ThroughputSample): void {
    if (this.ring.length < this.capacity) {
      this.ring.push(sample);
      return;
    }
    this.ring[this.head] = sample;
    this.head = (this.head + 1) % this.capacity;
  }
}
