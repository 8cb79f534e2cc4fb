/**
 * The controller mutation quota (KIP-599, Kafka's ControllerMutationQuotaManager): a token bucket
 * per (principal, client id) of partition mutations (partitions created by CreateTopics and
 * CreatePartitions, partitions of the topics deleted by DeleteTopics).
 *
 * The bucket holds at most `rate x controller.quota.window.num x
 * controller.quota.window.size.seconds` tokens (the burst) and refills at `rate` tokens per
 * second (`controller.mutation.rate`, Tributary's default for Kafka's `controller_mutation_rate`
 * client quota). Two flavours, chosen by the request version, as Kafka's `newQuotaFor`:
 * - strict (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+): a mutation is refused with
 *   THROTTLING_QUOTA_EXCEEDED (89) while the bucket is below zero; one that finds it at zero or
 *   above is accepted even if it takes the bucket below zero (a single large request is never
 *   starved). The client waits throttle_time_ms before retrying.
 * - permissive (older versions, whose clients do not know error 89): every mutation is accepted
 *   and the answer is held back for the throttle time (KIP-219's broker-side throttling).
 * The throttle time is the time the bucket needs to come back to zero: `-tokens / rate` s.
 *
 * Buckets are kept for at most {@link MAX_TRACKED_CLIENTS} clients: full buckets (clients idle for
 * a burst's worth of time) are forgotten first, then the least recently created.
 */
import type { Time } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';

/** Bound on the (principal, client id) pairs whose buckets are remembered. */
export const MAX_TRACKED_CLIENTS = 10_000;
/** Kafka's principal of unauthenticated connections. */
export const ANONYMOUS_PRINCIPAL = 'User:ANONYMOUS';

/** The configs (a BrokerConfig fits). */
export interface ControllerMutationQuotaConfig {
  /** controller.mutation.rate: partition mutations per second per client; 0 disables the quota. */
  readonly controllerMutationRate: number;
  readonly controllerQuotaWindowNum: number;
  readonly controllerQuotaWindowSizeSeconds: number;
}

interface Bucket {
  tokens: number;
  lastMs: number;
}

/** A refusal: THROTTLING_QUOTA_EXCEEDED (89) with the time the client should wait, ms. */
export interface QuotaRefusal {
  readonly errorCode: number;
  readonly errorMessage: string;
  readonly throttleTimeMs: number;
}

/** The quota of one request: records its mutations and says how long its client is throttled. */
export interface ControllerMutationQuota {
  /** True when refusals are answered (THROTTLING_QUOTA_EXCEEDED) instead of delayed answers. */
  readonly strict: boolean;
  /** Records `partitions` mutations; a strict quota that is exhausted refuses instead (nothing recorded). */
  record(partitions: number): QuotaRefusal | null;
  /** How long the client is throttled now, ms (0 when within its quota). */
  throttleTimeMs(): number;
}

const UNBOUNDED: ControllerMutationQuota = { strict: false, record: () => null, throttleTimeMs: () => 0 };

export class ControllerMutationQuotaManager {
  private readonly rate: number;
  private readonly burst: number;
  private readonly buckets = new Map<string, Bucket>();

  constructor(config: ControllerMutationQuotaConfig, private readonly time: Pick<Time, 'monotonicMs' | 'setTimeout'>) {
    this.rate = config.controllerMutationRate;
    this.burst = config.controllerMutationRate * config.controllerQuotaWindowNum * config.controllerQuotaWindowSizeSeconds;
  }

  /**
   * The quota of one request of `clientId` at `apiVersion`: strict from `strictSinceVersion` on,
   * permissive below, unbounded when controller.mutation.rate is 0.
   */
  quotaFor(principal: string, clientId: string | null, apiVersion: number, strictSinceVersion: number): ControllerMutationQuota {
    if (this.rate <= 0) return UNBOUNDED;
    const key = `${principal}\u0000${clientId ?? ''}`;
    const strict = apiVersion >= strictSinceVersion;
    return {
      strict,
      record: (partitions) => {
        const bucket = this.refilled(key);
        if (strict && bucket.tokens < 0) {
          const throttleTimeMs = this.throttleMs(bucket);
          return {
            errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED, throttleTimeMs,
            errorMessage: `The throttling quota has been exceeded: client '${clientId ?? ''}' may mutate ${this.rate} partition(s) per second (controller.mutation.rate); retry after ${throttleTimeMs} ms.`,
          };
        }
        bucket.tokens -= partitions;
        return null;
      },
      throttleTimeMs: () => this.throttleMs(this.refilled(key)),
    };
  }

  /** Resolves after `delayMs` on the environment's timers (the permissive quota's held answer). */
  delay(delayMs: number): Promise<void> {
    return new Promise((resolve) => this.time.setTimeout(resolve, delayMs));
  }

  /** Buckets currently remembered. */
  get trackedClients(): number {
    return this.buckets.size;
  }

  private throttleMs(bucket: Bucket): number {
    return bucket.tokens >= 0 ? 0 : Math.round((-bucket.tokens / this.rate) * 1000);
  }

  private refilled(key: string): Bucket {
    const now = this.time.monotonicMs();
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (this.buckets.size >= MAX_TRACKED_CLIENTS) this.forgetSome(now);
      bucket = { tokens: this.burst, lastMs: now };
      this.buckets.set(key, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.burst, bucket.tokens + (this.rate * Math.max(0, now - bucket.lastMs)) / 1000);
    bucket.lastMs = now;
    return bucket;
  }

  /** Forgets full buckets (they would be created full again), else the oldest one. */
  private forgetSome(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (this.rate * (now - bucket.lastMs)) / 1000 >= this.burst) this.buckets.delete(key);
    }
    if (this.buckets.size >= MAX_TRACKED_CLIENTS) this.buckets.delete(this.buckets.keys().next().value!);
  }
}

/**
 * The request's quota from the broker's manager (unbounded when the broker has none), keyed by
 * Kafka's anonymous principal (Tributary has no authentication yet) and the header's client id.
 */
export function mutationQuotaFor(
  manager: ControllerMutationQuotaManager | undefined,
  context: { readonly clientId: string | null; readonly apiVersion: number },
  strictSinceVersion: number,
): ControllerMutationQuota {
  return manager === undefined ? UNBOUNDED : manager.quotaFor(ANONYMOUS_PRINCIPAL, context.clientId, context.apiVersion, strictSinceVersion);
}

/**
 * The response's throttle_time_ms; for a permissive quota the answer is first held back that long
 * (the client does not know THROTTLING_QUOTA_EXCEEDED).
 */
export async function throttleAnswer(manager: ControllerMutationQuotaManager | undefined, quota: ControllerMutationQuota): Promise<number> {
  const throttleTimeMs = quota.throttleTimeMs();
  if (throttleTimeMs > 0 && !quota.strict && manager !== undefined) await manager.delay(throttleTimeMs);
  return throttleTimeMs;
}
