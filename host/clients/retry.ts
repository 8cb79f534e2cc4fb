/**
 * Small timing helpers shared by the clients: sleeping and retrying with backoff.
 */
import { isRetriableError, KafkaTimeoutError } from './errors.js';

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface RetryOptions {
  /** Give up after this long, ms (measured from the first attempt). */
  timeoutMs: number;
  /** Wait between attempts, ms (Kafka retry.backoff.ms); doubled each time up to retryBackoffMaxMs. */
  retryBackoffMs: number;
  /** Upper bound of the backoff, ms (Kafka retry.backoff.max.ms, default 1000). */
  retryBackoffMaxMs?: number;
  /** What is being attempted, for the timeout message. */
  what: string;
  /** Called before each retry with the error that caused it (e.g. to refresh metadata). */
  onRetry?(error: unknown, attempt: number): Promise<void> | void;
  /** Extra predicate for errors to retry (default: isRetriableError). */
  shouldRetry?(error: unknown): boolean;
}

/**
 * Runs `attempt` until it resolves, retrying retriable errors with exponential backoff.
 * @throws the last non-retriable error, or KafkaTimeoutError (wrapping the last error) after timeoutMs
 */
export async function retry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  const shouldRetry = options.shouldRetry ?? isRetriableError;
  let backoff = options.retryBackoffMs;
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!shouldRetry(error)) throw error;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        const timeout = new KafkaTimeoutError(`${options.what} did not succeed within ${options.timeoutMs} ms: ${(error as Error).message}`);
        (timeout as { cause?: unknown }).cause = error;
        throw timeout;
      }
      await sleep(Math.min(backoff, remaining));
      backoff = Math.min(backoff * 2, options.retryBackoffMaxMs ?? 1000);
      await options.onRetry?.(error, n + 1);
    }
  }
}
