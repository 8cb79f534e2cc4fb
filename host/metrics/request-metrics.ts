/**
 * Kafka's RequestMetrics (kafka.network:type=RequestMetrics,request=<api>): requests answered and
 * their total time (RequestsPerSec, TotalTimeMs) per API, errors per API and error code
 * (ErrorsPerSec), and Kafka's RequestChannel RequestQueueSize (here: requests dispatched to a
 * handler and not answered yet).
 *
 * Cost on the hot path: the request dispatcher calls {@link recordRequest} once per request: two
 * typed-array increments and a short scan of the bucket bounds; no labels, strings or objects.
 * The histogram is Prometheus-shaped (cumulative buckets are built when scraped).
 */

/** Upper bounds of the TotalTimeMs histogram buckets, ms (a long-poll Fetch counts its wait). */
export const REQUEST_TIME_BUCKETS_MS: readonly number[] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];

/** Api keys below this are tracked (Kafka's keys reach 80-odd; unknown keys are refused before a handler). */
const API_KEY_SLOTS = 128;
const BUCKETS = REQUEST_TIME_BUCKETS_MS.length + 1; // + the +Inf bucket

/** One API's request totals as {@link RequestMetrics.apis} reports them. */
export interface ApiRequestTotals {
  readonly apiKey: number;
  /** Requests answered (or, for acks=0 Produce, handled). */
  readonly requests: number;
  /** Sum of their total times, ms. */
  readonly totalTimeMsSum: number;
  /** Per bucket of {@link REQUEST_TIME_BUCKETS_MS} (then +Inf): requests that took at most that long (not cumulative). */
  readonly bucketCounts: readonly number[];
}

/** Error answers of one API with one error code. */
export interface ApiErrorTotals {
  readonly apiKey: number;
  readonly errorCode: number;
  readonly count: number;
}

export class RequestMetrics {
  private readonly requests = new Float64Array(API_KEY_SLOTS);
  private readonly timeSums = new Float64Array(API_KEY_SLOTS);
  private readonly buckets = new Float64Array(API_KEY_SLOTS * BUCKETS);
  /** (apiKey << 16 | errorCode & 0xffff) → count. */
  private readonly errors = new Map<number, number>();
  /** Requests handed to a handler and not answered yet (Kafka's RequestQueueSize, the closest here). */
  inFlight = 0;

  /** One request of `apiKey` answered after `durationMs`. */
  recordRequest(apiKey: number, durationMs: number): void {
    if (apiKey < 0 || apiKey >= API_KEY_SLOTS) return;
    this.requests[apiKey]!++;
    this.timeSums[apiKey]! += durationMs;
    let bucket = 0;
    while (bucket < REQUEST_TIME_BUCKETS_MS.length && durationMs > REQUEST_TIME_BUCKETS_MS[bucket]!) bucket++;
    this.buckets[apiKey * BUCKETS + bucket]!++;
  }

  /** `count` answers of `apiKey` carrying `errorCode` (a Kafka error code, never 0). */
  recordError(apiKey: number, errorCode: number, count = 1): void {
    const key = apiKey * 65536 + (errorCode & 0xffff);
    this.errors.set(key, (this.errors.get(key) ?? 0) + count);
  }

  /** Every API that answered at least one request, by api key. */
  apis(): ApiRequestTotals[] {
    const out: ApiRequestTotals[] = [];
    for (let apiKey = 0; apiKey < API_KEY_SLOTS; apiKey++) {
      const requests = this.requests[apiKey]!;
      if (requests === 0) continue;
      out.push({
        apiKey,
        requests,
        totalTimeMsSum: this.timeSums[apiKey]!,
        bucketCounts: Array.from(this.buckets.subarray(apiKey * BUCKETS, (apiKey + 1) * BUCKETS)),
      });
    }
    return out;
  }

  /** Error answers by api key and error code. */
  errorTotals(): ApiErrorTotals[] {
    return [...this.errors].map(([key, count]) => ({ apiKey: Math.floor(key / 65536), errorCode: ((key % 65536) << 16) >> 16, count }));
  }
}
