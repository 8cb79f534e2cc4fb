/**
 * What a control manager's operation gives back (Kafka's ControllerResult): the metadata records
 * it wants committed and the response to give once they are. A manager never writes; the
 * QuorumController appends `records` as one batch and answers `response` when the metadata log
 * reports the batch committed (or answers the operation's failure when it is not).
 *
 * Also the small shared vocabulary of the managers: the error shape of every answer (Kafka's
 * ApiError: error code + message), the record versions this controller writes, and the helpers
 * every manager uses on requests.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { MetadataRecord } from './metadata-records.js';

/** Kafka error code and message (null when NONE): the shape of every controller answer. */
export interface ApiError {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/** The records an operation wants committed (possibly none) and its answer once they are. */
export interface ControllerResult<T> {
  readonly records: readonly MetadataRecord[];
  readonly response: T;
}

/**
 * Turns an operation's planned response into its failure when the batch is not committed:
 * `error` is the reason (KAFKA_STORAGE_ERROR 56, NOT_CONTROLLER 41, a refusal of the log);
 * `everything` says whether every item fails (NOT_CONTROLLER: the answer was computed on state
 * that is gone) or only those that had succeeded (the batch was refused; validation errors stand).
 */
export type FailedResponse<T> = (response: T, error: ApiError, everything: boolean) => T;

/** The metadata.version this controller writes records for (Kafka's IBP_3_6_IV2): RegisterBrokerRecord v2, PartitionRecord v0. */
export const METADATA_VERSION_LEVEL = 14;

/** Versions of the records this controller writes. */
export const RECORD_VERSION = {
  RegisterBrokerRecord: 2,
  PartitionRecord: 0,
  PartitionChangeRecord: 0,
  BrokerRegistrationChangeRecord: 1,
} as const;

/** The answer "no error". */
export const NONE: ApiError = Object.freeze({ errorCode: ErrorCode.NONE, errorMessage: null });

/** An error answer. */
export function fail(errorCode: number, errorMessage: string): ApiError {
  return { errorCode, errorMessage };
}

/** A result with nothing to write. */
export function answer<T>(response: T): ControllerResult<T> {
  return { records: [], response };
}

/** Invariant check that stays on in production (a failure is a controller bug). */
export function controllerAssert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`QuorumController assertion failed: ${message}`);
}

/** A prototype-less string map (config overrides as given back to clients). */
export function emptyRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/** The keys that occur more than once in `items` (Kafka answers every copy INVALID_REQUEST). */
export function duplicateKeys<T>(items: readonly T[], key: (item: T) => string): Set<string> {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) duplicates.add(k);
    else seen.add(k);
  }
  return duplicates;
}

/**
 * The FailedResponse of a one-item answer: `failedOne` gives the item's failed form (e.g. with
 * its topic id zeroed). An item that had already failed keeps its error unless `everything`.
 */
export function failedResult<R extends ApiError>(failedOne: (result: R, error: ApiError) => R): FailedResponse<R> {
  return (result, error, everything) => (everything || result.errorCode === ErrorCode.NONE ? failedOne(result, error) : result);
}

/** The FailedResponse of a per-item answer (CreateTopics, AlterConfigs, ...): {@link failedResult} per item. */
export function failedResults<R extends ApiError>(
  failedOne: (result: R, error: ApiError) => R = (result, error) => ({ ...result, ...error }),
): FailedResponse<R[]> {
  const one = failedResult(failedOne);
  return (results, error, everything) => results.map((r) => one(r, error, everything));
}
