/**
 * Keys and values of the records the transaction coordinator writes to `__transaction_state`, in
 * Kafka's layouts (coordinator-records/TransactionLog{Key,Value}.json, TransactionLog.scala): an
 * int16 version, then the versioned struct, encoded with the generated codecs.
 *
 * - key version 0: TransactionLogKey (transactional_id);
 * - value version 0 (what Kafka 3.x writes without transaction version 2): producer_id,
 *   producer_epoch, transaction_timeout_ms, transaction_status (a {@link TransactionState} id),
 *   transaction_partitions (null when Empty, else grouped by topic), txn_last_update_timestamp_ms,
 *   txn_start_timestamp_ms; version 1 (flexible, KIP-890's tagged fields) is read too;
 * - a null value is a tombstone: the transactional id expired (state Dead).
 */
import { decodeTransactionLogKey, encodeTransactionLogKey } from '../protocol/generated/transaction-log-key.js';
import { decodeTransactionLogValue, encodeTransactionLogValue } from '../protocol/generated/transaction-log-value.js';
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';
import type { TxnTransitMetadata } from './transaction-metadata.js';
import { TransactionState, transactionStateFromId } from './transaction-state.js';

export const TRANSACTION_LOG_KEY_VERSION = 0;
export const TRANSACTION_LOG_VALUE_VERSION = 0;

/** What a TransactionLogValue holds (the previous producer id and epoch are not persisted). */
export type TransactionLogEntry = Omit<TxnTransitMetadata, 'lastProducerId' | 'lastProducerEpoch'>;

/** TransactionLogKey v0 bytes of `transactionalId`. */
export function transactionLogKey(transactionalId: string): Buffer {
  const w = new Writer(32 + transactionalId.length * 3);
  w.int16(TRANSACTION_LOG_KEY_VERSION);
  encodeTransactionLogKey(w, TRANSACTION_LOG_KEY_VERSION, { transactionalId });
  return w.toBuffer();
}

/**
 * TransactionLogValue v0 bytes of a transit (Kafka's valueToBytes). @throws Error (a bug) for a
 * Dead transit (written as a tombstone) or an Empty one with partitions.
 */
export function transactionLogValue(transit: TxnTransitMetadata): Buffer {
  if (transit.state === TransactionState.Dead || transit.state === TransactionState.PrepareEpochFence) {
    throw new Error(`state ${transit.state} is never written as a value`);
  }
  if (transit.state === TransactionState.Empty && transit.topicPartitions.length > 0) throw new Error('an Empty transaction has no partitions');
  const byTopic = new Map<string, number[]>();
  for (const ref of transit.topicPartitions) byTopic.set(ref.topic, [...(byTopic.get(ref.topic) ?? []), ref.partition]);
  const w = new Writer(64);
  w.int16(TRANSACTION_LOG_VALUE_VERSION);
  encodeTransactionLogValue(w, TRANSACTION_LOG_VALUE_VERSION, {
    producerId: transit.producerId,
    producerEpoch: transit.producerEpoch,
    transactionTimeoutMs: transit.txnTimeoutMs,
    transactionStatus: transit.state,
    transactionPartitions: transit.state === TransactionState.Empty
      ? null
      : [...byTopic].map(([topic, partitionIds]) => ({ topic, partitionIds })),
    transactionLastUpdateTimestampMs: transit.txnLastUpdateTimestampMs,
    transactionStartTimestampMs: transit.txnStartTimestampMs,
  });
  return w.toBuffer();
}

/** The transactional id of a record key; null when malformed or of an unknown key version. */
export function readTransactionLogKey(key: Uint8Array): string | null {
  const r = new Reader(key);
  const version = r.int16();
  if (!r.ok || version !== TRANSACTION_LOG_KEY_VERSION) return null;
  const decoded = decodeTransactionLogKey(r, version);
  return r.ok ? decoded.transactionalId : null;
}

/** A TransactionLogValue (versions 0-1); null when malformed, of a newer version or an unknown state. */
export function readTransactionLogValue(value: Uint8Array): TransactionLogEntry | null {
  const r = new Reader(value);
  const version = r.int16();
  if (!r.ok || version < 0 || version > 1) return null;
  const decoded = decodeTransactionLogValue(r, version);
  if (!r.ok) return null;
  const state = transactionStateFromId(decoded.transactionStatus);
  if (state === undefined) return null;
  return {
    producerId: decoded.producerId,
    producerEpoch: decoded.producerEpoch,
    txnTimeoutMs: decoded.transactionTimeoutMs,
    state,
    topicPartitions: (decoded.transactionPartitions ?? []).flatMap((entry) => entry.partitionIds.map((partition) => ({ topic: entry.topic, partition }))),
    txnLastUpdateTimestampMs: decoded.transactionLastUpdateTimestampMs,
    txnStartTimestampMs: decoded.transactionStartTimestampMs,
  };
}
