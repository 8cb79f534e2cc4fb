/**
 * Pieces shared by the load generators that run in child processes (load-main.ts): the result
 * shape they print, record payloads, an in-flight window and the latency recorder (HdrHistogram
 * via hdr-histogram-js, microseconds).
 */
import * as hdr from 'hdr-histogram-js';

/** What a load generator reports on its last stdout line (one JSON object). */
export interface LoadResult {
  records: number;
  /** Payload bytes (record values only). */
  bytes: number;
  /** First send (or first fetch) → last acknowledgement (or last record), ms. */
  elapsedMs: number;
  /** End-to-end latency percentiles, microseconds (latency workloads only). */
  latencyMicros?: LatencyPercentiles;
  /** Anything the reader of the table must know about how the figure was obtained. */
  note?: string;
}

export interface LatencyPercentiles {
  count: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

/**
 * A record value of `size` bytes: printable ASCII with no newline (kcat reads one record per
 * line), the same for every record (compression is off everywhere, so content does not matter).
 */
export function payload(size: number): Buffer {
  const value = Buffer.alloc(size);
  for (let i = 0; i < size; i++) value[i] = 0x41 + (i % 26);
  return value;
}

/** Bounds the number of operations in flight; `acquire` waits for a free slot. */
export class Window {
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  private failure: unknown;

  constructor(private readonly limit: number) {}

  async acquire(): Promise<void> {
    while (this.inFlight >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.failure !== undefined) throw this.failure;
    this.inFlight++;
  }

  /** Tracks one operation: frees its slot when it settles; the first failure is rethrown by acquire/drain. */
  track(operation: Promise<unknown>): void {
    operation.then(() => this.release(), (error: unknown) => {
      this.failure ??= error;
      this.release();
    });
  }

  /** Waits until nothing is in flight. */
  async drain(): Promise<void> {
    while (this.inFlight > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.failure !== undefined) throw this.failure;
  }

  private release(): void {
    this.inFlight--;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * End-to-end latency: the producer writes `performance.now()` (a float64, ms) into the first 8
 * bytes of each value; the consumer, in the same process and so on the same clock, records
 * now − then. Records sent during the first `warmupMs` are not recorded.
 */
export class LatencyRecorder {
  private readonly histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
  private readonly startedAtMs = performance.now();
  received = 0;

  constructor(private readonly warmupMs: number) {}

  /** Stamps a value about to be sent. */
  static stamp(value: Buffer): Buffer {
    value.writeDoubleLE(performance.now(), 0);
    return value;
  }

  /** Records one received value. */
  record(value: Uint8Array): void {
    this.received++;
    const sentAtMs = Buffer.from(value.buffer, value.byteOffset, value.byteLength).readDoubleLE(0);
    if (sentAtMs - this.startedAtMs < this.warmupMs) return;
    this.histogram.recordValue(Math.max(1, Math.round((performance.now() - sentAtMs) * 1000)));
  }

  percentiles(): LatencyPercentiles {
    return {
      count: this.histogram.totalCount,
      p50: this.histogram.getValueAtPercentile(50),
      p99: this.histogram.getValueAtPercentile(99),
      p999: this.histogram.getValueAtPercentile(99.9),
      max: this.histogram.maxValue,
    };
  }
}

/**
 * Calls `send()` at `ratePerSecond` for `seconds`, catching up in bursts when a timer fires
 * late (so the offered load stays at the rate); resolves with the number of sends.
 */
export async function paced(ratePerSecond: number, seconds: number, send: () => void): Promise<number> {
  const startedAtMs = performance.now();
  const total = Math.round(ratePerSecond * seconds);
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - startedAtMs) / 1000) * ratePerSecond) + 1);
    while (sent < due) {
      send();
      sent++;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return sent;
}

/** Resolves when `condition()` holds, checking every `intervalMs`; rejects after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs: number, what: string, intervalMs = 5): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
