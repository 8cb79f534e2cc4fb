/**
 * The transaction coordinator's broker configs (Kafka's TransactionStateManagerConfig and
 * TransactionLogConfig names and defaults). Part of brokerConfigDefs().
 */
import type { ConfigDef, ConfigValue } from './config-def.js';

export const TRANSACTION_CONFIG_DEFS: readonly ConfigDef[] = [
  { name: 'transaction.state.log.num.partitions', type: 'INT', defaultValue: '50', min: 1,
    doc: 'Partitions of __transaction_state (fixed once the topic exists); a transactional id lives in abs(hash) modulo this.' },
  { name: 'transaction.state.log.replication.factor', type: 'SHORT', defaultValue: '3', min: 1,
    doc: 'Replication factor of __transaction_state, capped by the brokers alive when it is created (Kafka refuses instead).' },
  { name: 'transaction.state.log.min.isr', type: 'INT', defaultValue: '2', min: 1,
    doc: 'min.insync.replicas of __transaction_state, capped by its replication factor.' },
  { name: 'transaction.state.log.segment.bytes', type: 'INT', defaultValue: '104857600', min: 1,
    doc: 'segment.bytes of __transaction_state.' },
  { name: 'transaction.max.timeout.ms', type: 'INT', defaultValue: '900000', min: 1,
    doc: 'Largest transaction.timeout.ms a producer may ask for (InitProducerId answers INVALID_TRANSACTION_TIMEOUT beyond).' },
  { name: 'transactional.id.expiration.ms', type: 'INT', defaultValue: '604800000', min: 1,
    doc: 'A transactional id with no transaction for this many milliseconds is forgotten (its producer id and epoch with it).' },
  { name: 'transaction.abort.timed.out.transaction.cleanup.interval.ms', type: 'INT', defaultValue: '10000', min: 1,
    doc: 'How often transactions open longer than their transaction.timeout.ms are aborted (fencing their producer), in milliseconds.' },
  { name: 'transaction.remove.expired.transaction.cleanup.interval.ms', type: 'INT', defaultValue: '3600000', min: 1,
    doc: 'How often transactional ids past transactional.id.expiration.ms are removed, in milliseconds.' },
];

/** The parsed transaction configs (part of BrokerConfig). */
export interface TransactionConfigs {
  readonly transactionStateLogNumPartitions: number;
  readonly transactionStateLogReplicationFactor: number;
  readonly transactionStateLogMinIsr: number;
  readonly transactionStateLogSegmentBytes: number;
  readonly transactionMaxTimeoutMs: number;
  readonly transactionalIdExpirationMs: number;
  readonly transactionAbortTimedOutTransactionCleanupIntervalMs: number;
  readonly transactionRemoveExpiredTransactionCleanupIntervalMs: number;
}

/** Reads the transaction configs from the validated values (`get` returns a config's parsed value by name). */
export function transactionConfigs(get: <T extends ConfigValue>(name: string) => T): TransactionConfigs {
  return {
    transactionStateLogNumPartitions: get('transaction.state.log.num.partitions'),
    transactionStateLogReplicationFactor: get('transaction.state.log.replication.factor'),
    transactionStateLogMinIsr: get('transaction.state.log.min.isr'),
    transactionStateLogSegmentBytes: get('transaction.state.log.segment.bytes'),
    transactionMaxTimeoutMs: get('transaction.max.timeout.ms'),
    transactionalIdExpirationMs: get('transactional.id.expiration.ms'),
    transactionAbortTimedOutTransactionCleanupIntervalMs: get('transaction.abort.timed.out.transaction.cleanup.interval.ms'),
    transactionRemoveExpiredTransactionCleanupIntervalMs: get('transaction.remove.expired.transaction.cleanup.interval.ms'),
  };
}
