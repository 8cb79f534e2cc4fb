/**
 * Transaction coordinator settings, Kafka's broker config names camelCased, with Kafka's defaults
 * (TransactionStateManagerConfig, TransactionLogConfig).
 */
export interface TransactionCoordinatorConfig {
  /** transaction.state.log.num.partitions: partitions of __transaction_state (a transactional id lives in abs(hash) % this). */
  transactionStateLogNumPartitions: number;
  /** transaction.max.timeout.ms: a larger transaction.timeout.ms gets INVALID_TRANSACTION_TIMEOUT (50). */
  transactionMaxTimeoutMs: number;
  /** transactional.id.expiration.ms: an id idle this long (no open transaction) is forgotten, its records tombstoned. */
  transactionalIdExpirationMs: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms: how often transactions past their timeout are aborted. */
  transactionAbortTimedOutTransactionCleanupIntervalMs: number;
  /** transaction.remove.expired.transaction.cleanup.interval.ms: how often expired transactional ids are removed. */
  transactionRemoveExpiredTransactionCleanupIntervalMs: number;
}

export const defaultTransactionCoordinatorConfig: Readonly<TransactionCoordinatorConfig> = Object.freeze({
  transactionStateLogNumPartitions: 50,
  transactionMaxTimeoutMs: 900_000,
  transactionalIdExpirationMs: 604_800_000,
  transactionAbortTimedOutTransactionCleanupIntervalMs: 10_000,
  transactionRemoveExpiredTransactionCleanupIntervalMs: 3_600_000,
});

/** How long the coordinator waits before retrying a failed write of a transaction's completion (ms). */
export const COMPLETION_RETRY_BACKOFF_MS = 100;
