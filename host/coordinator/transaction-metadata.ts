/**
 * One transactional id as its coordinator knows it, Kafka's TransactionMetadata: the producer id
 * and epoch handed to the producer, the previous ones (for the KIP-360 retry of an epoch bump),
 * the transaction timeout, the state, the partitions of the open transaction and its timestamps.
 *
 * Every change is two steps, as in Kafka: a `prepare*` method checks the transition and returns
 * the {@link TxnTransitMetadata} the change would produce, marking it pending (no other change may
 * start meanwhile: callers answer CONCURRENT_TRANSACTIONS); the transit is written to
 * `__transaction_state` as a TransactionLogValue record, and {@link TransactionMetadata.completeTransitionTo}
 * applies it once the append succeeded ({@link TransactionMetadata.abortTransition} when it failed).
 * A replayed record is applied directly ({@link TransactionMetadata.fromRecord}).
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { TopicPartitionRef } from './coordinator-types.js';
import { assertValidTransition, TransactionState, transactionStateName } from './transaction-state.js';

/** Kafka's RecordBatch.NO_PRODUCER_ID. */
export const NO_PRODUCER_ID = -1;
/** Kafka's RecordBatch.NO_PRODUCER_EPOCH. */
export const NO_PRODUCER_EPOCH = -1;
/** Largest int16 producer epoch. */
const MAX_PRODUCER_EPOCH = 32_767;

/** Kafka's TransactionMetadata.isEpochExhausted: at Short.MaxValue - 1 a new producer id is needed. */
export function isEpochExhausted(producerEpoch: number): boolean {
  return producerEpoch >= MAX_PRODUCER_EPOCH - 1;
}

/** The values a prepared change writes (Kafka's TxnTransitMetadata); partitions sorted by topic, partition. */
export interface TxnTransitMetadata {
  readonly producerId: number;
  /** The producer id before a rotation (epoch exhausted), else NO_PRODUCER_ID. Not persisted (as Kafka 3.x). */
  readonly lastProducerId: number;
  readonly producerEpoch: number;
  /** The epoch before the last bump, for a producer's retried InitProducerId (KIP-360). Not persisted. */
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly state: TransactionState;
  readonly topicPartitions: readonly TopicPartitionRef[];
  /** Wall-clock ms when the transaction started (first partition added), -1 when none is open. */
  readonly txnStartTimestampMs: number;
  readonly txnLastUpdateTimestampMs: number;
}

/** A prepare method's answer: the transit to write, or the Kafka error code to answer. */
export type PrepareResult = { transit: TxnTransitMetadata; errorCode?: undefined } | { errorCode: number; transit?: undefined };

const partitionKey = (ref: TopicPartitionRef): string => `${ref.topic}\u0000${ref.partition}`;

function sortedPartitions(refs: Iterable<TopicPartitionRef>): TopicPartitionRef[] {
  const unique = new Map<string, TopicPartitionRef>();
  for (const ref of refs) unique.set(partitionKey(ref), { topic: ref.topic, partition: ref.partition });
  return [...unique.values()].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

export class TransactionMetadata {
  producerId: number;
  lastProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  state: TransactionState;
  /** The partitions of the open transaction, sorted. */
  topicPartitions: readonly TopicPartitionRef[];
  txnStartTimestampMs: number;
  txnLastUpdateTimestampMs: number;
  /** The state a prepared change moves to once written; null when no change is in flight. */
  pendingState: TransactionState | null = null;
  /** An epoch fence whose write failed keeps its bumped epoch for the retry (Kafka's hasFailedEpochFence). */
  hasFailedEpochFence = false;

  constructor(readonly transactionalId: string, values: TxnTransitMetadata) {
    this.producerId = values.producerId;
    this.lastProducerId = values.lastProducerId;
    this.producerEpoch = values.producerEpoch;
    this.lastProducerEpoch = values.lastProducerEpoch;
    this.txnTimeoutMs = values.txnTimeoutMs;
    this.state = values.state;
    this.topicPartitions = sortedPartitions(values.topicPartitions);
    this.txnStartTimestampMs = values.txnStartTimestampMs;
    this.txnLastUpdateTimestampMs = values.txnLastUpdateTimestampMs;
  }

  /** A transactional id seen for the first time: Empty, epoch -1 (the first bump makes it 0). */
  static fresh(transactionalId: string, producerId: number, txnTimeoutMs: number, nowMs: number): TransactionMetadata {
    return new TransactionMetadata(transactionalId, {
      producerId, lastProducerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH, lastProducerEpoch: NO_PRODUCER_EPOCH,
      txnTimeoutMs, state: TransactionState.Empty, topicPartitions: [], txnStartTimestampMs: -1, txnLastUpdateTimestampMs: nowMs,
    });
  }

  /** Metadata as a replayed record holds it (the previous id and epoch are not persisted, as in Kafka 3.x). */
  static fromRecord(transactionalId: string, values: Omit<TxnTransitMetadata, 'lastProducerId' | 'lastProducerEpoch'>): TransactionMetadata {
    return new TransactionMetadata(transactionalId, { ...values, lastProducerId: NO_PRODUCER_ID, lastProducerEpoch: NO_PRODUCER_EPOCH });
  }

  get pendingTransitionInProgress(): boolean {
    return this.pendingState !== null;
  }

  get isProducerEpochExhausted(): boolean {
    return isEpochExhausted(this.producerEpoch);
  }

  /** Whether `(topic, partition)` is part of the open transaction. */
  hasPartition(topic: string, partition: number): boolean {
    return this.topicPartitions.some((ref) => ref.topic === topic && ref.partition === partition);
  }

  /** The current values as a transit (what a record of the current state holds). */
  snapshot(): TxnTransitMetadata {
    return {
      producerId: this.producerId, lastProducerId: this.lastProducerId, producerEpoch: this.producerEpoch,
      lastProducerEpoch: this.lastProducerEpoch, txnTimeoutMs: this.txnTimeoutMs, state: this.state,
      topicPartitions: this.topicPartitions, txnStartTimestampMs: this.txnStartTimestampMs,
      txnLastUpdateTimestampMs: this.txnLastUpdateTimestampMs,
    };
  }

  /**
   * Kafka's prepareFenceProducerEpoch: bumps the epoch in memory (PrepareEpochFence is never
   * written) so that the open transaction is aborted under an epoch its old producer cannot use.
   * A fence whose write failed keeps the epoch it already bumped.
   */
  prepareFenceProducerEpoch(): TxnTransitMetadata {
    if (this.producerEpoch >= MAX_PRODUCER_EPOCH) throw new Error(`cannot fence producer ${this.producerId} at epoch ${this.producerEpoch}`);
    const producerEpoch = this.hasFailedEpochFence ? this.producerEpoch : this.producerEpoch + 1;
    return this.prepareTransitionTo({ state: TransactionState.PrepareEpochFence, producerEpoch, lastProducerEpoch: NO_PRODUCER_EPOCH });
  }

  /**
   * Kafka's prepareIncrementProducerEpoch (InitProducerId on Empty or Complete*): bumps the epoch,
   * clearing the transaction. With an expected epoch (InitProducerId v3+, KIP-360): equal to the
   * current one (or no epoch yet) bumps; equal to the previous one is a retry of a bump that
   * succeeded (answered without a new bump); anything else is PRODUCER_FENCED (90).
   */
  prepareIncrementProducerEpoch(txnTimeoutMs: number, expectedProducerEpoch: number | null, nowMs: number): PrepareResult {
    if (this.isProducerEpochExhausted) throw new Error(`no producer epoch left for producer id ${this.producerId}`);
    const bumped = this.producerEpoch + 1;
    let epochs: { producerEpoch: number; lastProducerEpoch: number };
    if (expectedProducerEpoch === null) epochs = { producerEpoch: bumped, lastProducerEpoch: NO_PRODUCER_EPOCH };
    else if (this.producerEpoch === NO_PRODUCER_EPOCH || expectedProducerEpoch === this.producerEpoch) {
      epochs = { producerEpoch: bumped, lastProducerEpoch: this.producerEpoch };
    } else if (expectedProducerEpoch === this.lastProducerEpoch) {
      epochs = { producerEpoch: this.producerEpoch, lastProducerEpoch: this.lastProducerEpoch };
    } else return { errorCode: ErrorCode.PRODUCER_FENCED };
    return {
      transit: this.prepareTransitionTo({
        state: TransactionState.Empty, ...epochs, txnTimeoutMs, topicPartitions: [], txnStartTimestampMs: -1, txnLastUpdateTimestampMs: nowMs,
      }),
    };
  }

  /**
   * Kafka's prepareProducerIdRotation: the epoch is exhausted, the producer continues under
   * `newProducerId` at epoch 0. `recordLastEpoch` (the request named its epoch) keeps the old
   * epoch so a retry of this call is recognised.
   */
  prepareProducerIdRotation(newProducerId: number, txnTimeoutMs: number, nowMs: number, recordLastEpoch: boolean): TxnTransitMetadata {
    if (this.pendingTransitionInProgress) throw new Error(`transactional id ${this.transactionalId}: a transition is already pending`);
    return this.prepareTransitionTo({
      state: TransactionState.Empty, producerId: newProducerId, producerEpoch: 0,
      lastProducerEpoch: recordLastEpoch ? this.producerEpoch : NO_PRODUCER_EPOCH, lastProducerId: this.producerId,
      txnTimeoutMs, topicPartitions: [], txnStartTimestampMs: -1, txnLastUpdateTimestampMs: nowMs,
    });
  }

  /** Kafka's prepareAddPartitions: Ongoing with `partitions` added; a new transaction starts its clock now. */
  prepareAddPartitions(partitions: readonly TopicPartitionRef[], nowMs: number): TxnTransitMetadata {
    const starting = this.state === TransactionState.Empty || this.state === TransactionState.CompleteCommit || this.state === TransactionState.CompleteAbort;
    return this.prepareTransitionTo({
      state: TransactionState.Ongoing,
      topicPartitions: sortedPartitions([...this.topicPartitions, ...partitions]),
      txnStartTimestampMs: starting ? nowMs : this.txnStartTimestampMs,
      txnLastUpdateTimestampMs: nowMs,
    });
  }

  /** Kafka's prepareAbortOrCommit: PrepareCommit or PrepareAbort, keeping the partitions for the markers. */
  prepareAbortOrCommit(state: TransactionState.PrepareCommit | TransactionState.PrepareAbort, nowMs: number): TxnTransitMetadata {
    return this.prepareTransitionTo({ state, txnLastUpdateTimestampMs: nowMs });
  }

  /** Kafka's prepareComplete: the markers are written; CompleteCommit/CompleteAbort with no partitions. */
  prepareComplete(nowMs: number): TxnTransitMetadata {
    // The abort of a fence is written: a later fence bumps again.
    this.hasFailedEpochFence = false;
    const state = this.state === TransactionState.PrepareCommit ? TransactionState.CompleteCommit : TransactionState.CompleteAbort;
    return this.prepareTransitionTo({ state, topicPartitions: [], txnLastUpdateTimestampMs: nowMs });
  }

  /**
   * The abort that completes an epoch fence starts (Kafka's endTransaction on a pending
   * PrepareEpochFence): the fence's bumped epoch becomes current in memory, without a record, and
   * the PrepareAbort about to be prepared writes it. Should that write fail, the epoch stays
   * bumped and {@link hasFailedEpochFence} is set by the caller, so the next fence does not bump again.
   */
  applyEpochFence(fencedEpoch: number): void {
    if (this.pendingState !== TransactionState.PrepareEpochFence) throw new Error(`transactional id ${this.transactionalId}: no epoch fence is pending`);
    if (fencedEpoch < this.producerEpoch) throw new Error(`transactional id ${this.transactionalId}: a fence cannot lower the epoch`);
    this.pendingState = null;
    this.producerEpoch = fencedEpoch;
    this.lastProducerEpoch = NO_PRODUCER_EPOCH;
  }

  /** Kafka's prepareDead: the id expired (transactional.id.expiration.ms); a tombstone is written. */
  prepareDead(): TxnTransitMetadata {
    return this.prepareTransitionTo({ state: TransactionState.Dead, topicPartitions: [] });
  }

  /**
   * Applies a written transit (Kafka's completeTransitionTo). @throws Error (a bug) when it is
   * not the pending change.
   */
  completeTransitionTo(transit: TxnTransitMetadata): void {
    if (this.pendingState !== transit.state) {
      throw new Error(`transactional id ${this.transactionalId}: completing ${transactionStateName(transit.state)} ` +
        `but ${this.pendingState === null ? 'nothing' : transactionStateName(this.pendingState)} is pending`);
    }
    if (transit.producerId === this.producerId && transit.producerEpoch < this.producerEpoch) {
      throw new Error(`transactional id ${this.transactionalId}: the producer epoch would go back from ${this.producerEpoch} to ${transit.producerEpoch}`);
    }
    this.producerId = transit.producerId;
    this.lastProducerId = transit.lastProducerId;
    this.producerEpoch = transit.producerEpoch;
    this.lastProducerEpoch = transit.lastProducerEpoch;
    this.txnTimeoutMs = transit.txnTimeoutMs;
    this.state = transit.state;
    this.topicPartitions = transit.topicPartitions;
    this.txnStartTimestampMs = transit.txnStartTimestampMs;
    this.txnLastUpdateTimestampMs = transit.txnLastUpdateTimestampMs;
    this.pendingState = null;
  }

  /** The write of a prepared change failed: nothing changes, another change may start. */
  abortTransition(): void {
    this.pendingState = null;
  }

  /**
   * Marks `values.state` pending and returns the full transit (current values overridden by
   * `values`). @throws Error (a bug) when a change is already pending or the transition is illegal.
   */
  private prepareTransitionTo(values: Partial<TxnTransitMetadata> & { state: TransactionState }): TxnTransitMetadata {
    if (this.pendingState !== null) {
      throw new Error(`transactional id ${this.transactionalId}: preparing ${transactionStateName(values.state)} ` +
        `while ${transactionStateName(this.pendingState)} is pending`);
    }
    assertValidTransition(this.transactionalId, this.state, values.state);
    const transit: TxnTransitMetadata = { ...this.snapshot(), ...values };
    if (transit.producerEpoch < 0 || transit.producerEpoch > MAX_PRODUCER_EPOCH) throw new Error(`producer epoch ${transit.producerEpoch} out of range`);
    this.pendingState = values.state;
    return transit;
  }
}
