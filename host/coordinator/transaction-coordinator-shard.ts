/**
 * The transaction coordinator's state for one `__transaction_state` partition (Kafka's
 * TransactionCoordinator over the TransactionStateManager's cache entry of that partition): the
 * {@link TransactionMetadata} of every transactional id hashing to the partition, run by the
 * {@link CoordinatorRuntime}. Every change is a TransactionLogValue record appended to the
 * partition, and applied to memory only once written (see transaction-metadata.ts); records
 * replayed at load rebuild the same state.
 *
 * The protocol (KIP-98, KIP-360, KIP-890 part 1):
 * - InitProducerId bumps the epoch of the transactional id's producer id (fencing every older
 *   producer of the id), a fresh id gets a new producer id at epoch 0, an exhausted epoch a new
 *   producer id; an open transaction is aborted first under a bumped epoch (PrepareEpochFence,
 *   in memory only) and the caller is told CONCURRENT_TRANSACTIONS (51) to retry.
 * - AddPartitionsToTxn / AddOffsetsToTxn move the transaction to Ongoing with the partitions;
 *   the verify-only form answers whether partitions are already in the transaction.
 * - EndTxn writes PrepareCommit/PrepareAbort, answers, hands the markers to the marker channel
 *   ({@link TxnMarkerQueue}), and writes CompleteCommit/CompleteAbort once every partition has its
 *   marker ({@link TransactionCoordinatorShard.onMarkersWritten}). A partition loaded with a
 *   Prepare* transaction sends its markers again (failover).
 * - Transactions past transaction.timeout.ms are aborted with an epoch bump; idle ids expire.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { CoordinatorRecord, CoordinatorResult, CoordinatorShard, CoordinatorShardContext } from './coordinator-runtime.js';
import type { TopicPartitionRef } from './coordinator-types.js';
import { COMPLETION_RETRY_BACKOFF_MS, type TransactionCoordinatorConfig } from './transaction-coordinator-config.js';
import { isEpochExhausted, NO_PRODUCER_EPOCH, TransactionMetadata, type TxnTransitMetadata } from './transaction-metadata.js';
import { readTransactionLogKey, readTransactionLogValue, transactionLogKey, transactionLogValue } from './transaction-records.js';
import { isExpirationAllowed, TransactionState } from './transaction-state.js';
import { mapTransactionLogAppendError } from './transaction-errors.js';

/** A transaction's end as markers say it (WriteTxnMarkers `transaction_result`: true = commit). */
export type TransactionResult = 'commit' | 'abort';

/** What the markers of one ended transaction need, handed to the marker channel. */
export interface TxnMarkerRequest {
  readonly transactionalId: string;
  /** The `__transaction_state` partition whose shard waits for the markers. */
  readonly txnPartition: number;
  readonly coordinatorEpoch: number;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly result: TransactionResult;
  /** Partitions that need a marker. */
  readonly partitions: readonly TopicPartitionRef[];
  /** The CompleteCommit/CompleteAbort change written once every marker is. */
  readonly completion: TxnTransitMetadata;
}

/** Where a shard hands the markers of ended transactions (the marker channel manager). */
export type TxnMarkerQueue = (request: TxnMarkerRequest) => void;

/** InitProducerId's answer; producer id and epoch are -1 on errors. */
export interface InitProducerIdResult {
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

/** What InitProducerId on the shard needs: a producer id for a new or exhausted id, if it had none. */
export type InitProducerIdOutcome = { needsProducerId: true } | { needsProducerId: false; result: Promise<InitProducerIdResult> };

/** A producer id and epoch as a request names them. */
export interface ProducerIdAndEpoch {
  producerId: number;
  producerEpoch: number;
}

/** One transaction as DescribeTransactions and ListTransactions show it. */
export interface TransactionDescription {
  transactionalId: string;
  state: TransactionState;
  producerId: number;
  producerEpoch: number;
  transactionTimeoutMs: number;
  /** -1 when no transaction is open. */
  transactionStartTimeMs: number;
  topicPartitions: readonly TopicPartitionRef[];
}

const initError = (errorCode: number): InitProducerIdResult => ({ errorCode, producerId: -1, producerEpoch: -1 });

export class TransactionCoordinatorShard implements CoordinatorShard {
  private readonly transactions = new Map<string, TransactionMetadata>();

  constructor(
    private readonly context: CoordinatorShardContext,
    private readonly config: Readonly<TransactionCoordinatorConfig>,
    private readonly sendMarkers: TxnMarkerQueue,
    private readonly logger: Logger | null,
  ) {}

  /** The metadata of a transactional id (tests, admin); undefined when unknown. */
  transaction(transactionalId: string): TransactionMetadata | undefined {
    return this.transactions.get(transactionalId);
  }

  /** Every transactional id of this partition. */
  allTransactions(): IterableIterator<TransactionMetadata> {
    return this.transactions.values();
  }

  // ---- loading ---------------------------------------------------------------------------------

  /** Applies one record: the latest value of a transactional id wins, a tombstone forgets it. False when skipped. */
  replay(record: CoordinatorRecord): boolean {
    const transactionalId = record.key === null ? null : readTransactionLogKey(record.key);
    if (transactionalId === null) return false;
    if (record.value === null) {
      this.transactions.delete(transactionalId);
      return true;
    }
    const entry = readTransactionLogValue(record.value);
    if (entry === null) return false;
    this.transactions.set(transactionalId, TransactionMetadata.fromRecord(transactionalId, entry));
    return true;
  }

  /** Transactions loaded half-ended (PrepareCommit/PrepareAbort) get their markers sent again. */
  onLoaded(): void {
    const nowMs = this.context.time.nowMs();
    for (const metadata of this.transactions.values()) {
      if (metadata.state === TransactionState.PrepareCommit || metadata.state === TransactionState.PrepareAbort) {
        this.logger?.info({ transactionalId: metadata.transactionalId, state: metadata.state }, 'completing a transaction loaded in a prepare state');
        this.queueMarkers(metadata, metadata.prepareComplete(nowMs));
      }
    }
  }

  /** Nothing waits in memory: pending appends are answered NOT_COORDINATOR by the runtime. */
  onUnloaded(): void {}

  // ---- InitProducerId --------------------------------------------------------------------------

  /**
   * InitProducerId with a transactional id (Kafka's handleInitProducerId, after the request's
   * checks): `newProducerId` is a producer id from the controller's blocks when the caller already
   * has one; without it a new or exhausted id answers `needsProducerId` (call again with one).
   * Errors: PRODUCER_FENCED (90) for a stale expected producer (v3+), CONCURRENT_TRANSACTIONS (51)
   * while a change or markers are in flight and after starting the abort of an open transaction,
   * and the transaction log's append errors (COORDINATOR_NOT_AVAILABLE 15, NOT_COORDINATOR 16).
   */
  initProducerId(
    transactionalId: string, txnTimeoutMs: number, expected: ProducerIdAndEpoch | null, newProducerId: number | null,
  ): CoordinatorResult<InitProducerIdOutcome> {
    const nowMs = this.context.time.nowMs();
    let metadata = this.transactions.get(transactionalId);
    if (metadata === undefined) {
      if (newProducerId === null) return this.context.writes.result({ needsProducerId: true });
      metadata = TransactionMetadata.fresh(transactionalId, newProducerId, txnTimeoutMs, nowMs);
      this.transactions.set(transactionalId, metadata);
    }
    const answer = (result: InitProducerIdResult | Promise<InitProducerIdResult>) =>
      this.context.writes.result<InitProducerIdOutcome>({ needsProducerId: false, result: Promise.resolve(result) });
    if (expected !== null && !isValidProducerId(metadata, expected)) return answer(initError(ErrorCode.PRODUCER_FENCED));
    if (metadata.pendingTransitionInProgress) return answer(initError(ErrorCode.CONCURRENT_TRANSACTIONS));
    switch (metadata.state) {
      case TransactionState.PrepareAbort:
      case TransactionState.PrepareCommit:
        return answer(initError(ErrorCode.CONCURRENT_TRANSACTIONS));
      case TransactionState.Ongoing: {
        // Abort the open transaction under a bumped epoch; the producer retries and bumps again.
        const fence = metadata.prepareFenceProducerEpoch();
        const ended = this.endTransaction(transactionalId, fence.producerId, fence.producerEpoch, 'abort', false);
        return answer(ended.then((errorCode) => initError(errorCode === ErrorCode.NONE ? ErrorCode.CONCURRENT_TRANSACTIONS : errorCode)));
      }
      case TransactionState.Empty:
      case TransactionState.CompleteCommit:
      case TransactionState.CompleteAbort: {
        let transit: TxnTransitMetadata;
        if (metadata.isProducerEpochExhausted && (expected === null || expected.producerEpoch === metadata.producerEpoch)) {
          if (newProducerId === null) return this.context.writes.result({ needsProducerId: true });
          transit = metadata.prepareProducerIdRotation(newProducerId, txnTimeoutMs, nowMs, expected !== null);
        } else {
          const prepared = metadata.prepareIncrementProducerEpoch(txnTimeoutMs, expected?.producerEpoch ?? null, nowMs);
          if (prepared.transit === undefined) return answer(initError(prepared.errorCode));
          transit = prepared.transit;
        }
        return answer(this.writeTransit(metadata, transit).then((errorCode) => {
          if (errorCode !== ErrorCode.NONE) return initError(errorCode);
          this.logger?.info({ transactionalId, producerId: transit.producerId, producerEpoch: transit.producerEpoch }, 'initialized transactional id');
          return { errorCode, producerId: transit.producerId, producerEpoch: transit.producerEpoch };
        }));
      }
      default:
        throw new Error(`transactional id ${transactionalId} found in state ${metadata.state}`);
    }
  }

  // ---- AddPartitionsToTxn / AddOffsetsToTxn ----------------------------------------------------

  /**
   * Adds partitions to the transaction (Kafka's handleAddPartitionsToTransaction); one error for
   * all: INVALID_PRODUCER_ID_MAPPING (49) for an unknown id or another producer id,
   * PRODUCER_FENCED (90) for another epoch, CONCURRENT_TRANSACTIONS (51) while a change or the
   * markers of the previous transaction are in flight, or an append error.
   */
  addPartitions(transactionalId: string, producer: ProducerIdAndEpoch, partitions: readonly TopicPartitionRef[]): CoordinatorResult<Promise<number>> {
    const metadata = this.transactions.get(transactionalId);
    const error = this.checkProducer(metadata, producer);
    if (error !== null) return this.context.writes.result(Promise.resolve(error));
    const m = metadata!;
    if (m.state === TransactionState.Ongoing && partitions.every((ref) => m.hasPartition(ref.topic, ref.partition))) {
      return this.context.writes.result(Promise.resolve(ErrorCode.NONE));
    }
    const transit = m.prepareAddPartitions(partitions, this.context.time.nowMs());
    return this.context.writes.result(this.writeTransit(m, transit));
  }

  /**
   * The verify-only AddPartitionsToTxn (v4+, KIP-890 part 1: a partition leader asks before the
   * first transactional append): NONE per partition in the open transaction, TRANSACTION_ABORTABLE
   * (120) for the others; or one error for all (INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED,
   * CONCURRENT_TRANSACTIONS while the transaction is ending).
   */
  verifyPartitions(transactionalId: string, producer: ProducerIdAndEpoch, partitions: readonly TopicPartitionRef[]): Map<TopicPartitionRef, number> {
    const metadata = this.transactions.get(transactionalId);
    let error: number | null = null;
    if (metadata === undefined || metadata.producerId !== producer.producerId) error = ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    else if (metadata.producerEpoch !== producer.producerEpoch) error = ErrorCode.PRODUCER_FENCED;
    else if (metadata.state === TransactionState.PrepareCommit || metadata.state === TransactionState.PrepareAbort) error = ErrorCode.CONCURRENT_TRANSACTIONS;
    return new Map(partitions.map((ref) => [ref, error ?? (metadata!.hasPartition(ref.topic, ref.partition) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE)]));
  }

  // ---- EndTxn ------------------------------------------------------------------------------------

  /** EndTxn as an operation (see {@link endTransaction}). */
  endTxn(transactionalId: string, producer: ProducerIdAndEpoch, result: TransactionResult): CoordinatorResult<Promise<number>> {
    return this.context.writes.result(this.endTransaction(transactionalId, producer.producerId, producer.producerEpoch, result, true));
  }

  /**
   * Kafka's endTransaction: writes PrepareCommit/PrepareAbort and resolves NONE once written (the
   * markers follow). Errors: INVALID_PRODUCER_ID_MAPPING (49), PRODUCER_FENCED (90; from a
   * client any other epoch, internally only an older one), CONCURRENT_TRANSACTIONS (51) while a
   * change is in flight or the same end is being completed, INVALID_TXN_STATE (48) for an end
   * that contradicts the state or with no transaction; an end already completed is NONE.
   */
  private endTransaction(transactionalId: string, producerId: number, producerEpoch: number, result: TransactionResult, isFromClient: boolean): Promise<number> {
    const metadata = this.transactions.get(transactionalId);
    if (metadata === undefined || metadata.producerId !== producerId) return Promise.resolve(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    if ((isFromClient && producerEpoch !== metadata.producerEpoch) || producerEpoch < metadata.producerEpoch) return Promise.resolve(ErrorCode.PRODUCER_FENCED);
    const fencing = metadata.pendingState === TransactionState.PrepareEpochFence;
    if (metadata.pendingTransitionInProgress && !fencing) return Promise.resolve(ErrorCode.CONCURRENT_TRANSACTIONS);
    const commit = result === 'commit';
    switch (metadata.state) {
      case TransactionState.Ongoing:
        break;
      case TransactionState.CompleteCommit:
        return Promise.resolve(commit ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE);
      case TransactionState.CompleteAbort:
        return Promise.resolve(commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.NONE);
      case TransactionState.PrepareCommit:
        return Promise.resolve(commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
      case TransactionState.PrepareAbort:
        return Promise.resolve(commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS);
      default:
        return Promise.resolve(ErrorCode.INVALID_TXN_STATE);
    }
    const isEpochFence = fencing && !commit;
    if (isEpochFence) metadata.applyEpochFence(producerEpoch);
    const prepared = metadata.prepareAbortOrCommit(commit ? TransactionState.PrepareCommit : TransactionState.PrepareAbort, this.context.time.nowMs());
    return this.writeTransit(metadata, prepared).then((errorCode) => {
      if (errorCode !== ErrorCode.NONE) {
        if (isEpochFence) metadata.hasFailedEpochFence = true;
        return errorCode;
      }
      this.queueMarkers(metadata, metadata.prepareComplete(this.context.time.nowMs()));
      return ErrorCode.NONE;
    });
  }

  /**
   * Every marker of a transaction is written: its CompleteCommit/CompleteAbort is appended (retried
   * after a failed append while this shard is loaded). A request for a change no longer pending
   * (the id moved on or was reloaded) is ignored.
   */
  onMarkersWritten(request: TxnMarkerRequest): CoordinatorResult<void> {
    const metadata = this.transactions.get(request.transactionalId);
    if (metadata === undefined || metadata.pendingState !== request.completion.state || metadata.producerEpoch !== request.completion.producerEpoch ||
      request.coordinatorEpoch !== this.context.epoch) {
      this.logger?.warn({ transactionalId: request.transactionalId }, 'markers written for a transaction that is no longer completing; ignored');
      return this.context.writes.result(undefined);
    }
    void this.writeCompletion(metadata, request.completion);
    return this.context.writes.result(undefined);
  }

  // ---- timeouts and expiry -------------------------------------------------------------------

  /**
   * Aborts Ongoing transactions older than their transaction.timeout.ms with an epoch bump
   * (Kafka's abortTimedOutTransactions), fencing their producer. Returns how many it started.
   */
  abortTimedOutTransactions(): CoordinatorResult<number> {
    const nowMs = this.context.time.nowMs();
    let aborted = 0;
    for (const metadata of [...this.transactions.values()]) {
      if (metadata.pendingTransitionInProgress || metadata.state !== TransactionState.Ongoing) continue;
      if (metadata.txnStartTimestampMs + metadata.txnTimeoutMs >= nowMs) continue;
      const fence = metadata.prepareFenceProducerEpoch();
      this.logger?.info({ transactionalId: metadata.transactionalId, producerId: fence.producerId, producerEpoch: fence.producerEpoch },
        'aborting a transaction past its timeout');
      void this.endTransaction(metadata.transactionalId, fence.producerId, fence.producerEpoch, 'abort', false);
      aborted++;
    }
    return this.context.writes.result(aborted);
  }

  /**
   * Forgets transactional ids idle for transactional.id.expiration.ms with no open transaction
   * (Kafka's removeExpiredTransactionalIds): a tombstone each, removed from memory once written.
   */
  removeExpiredTransactionalIds(): CoordinatorResult<number> {
    const nowMs = this.context.time.nowMs();
    let expired = 0;
    for (const metadata of [...this.transactions.values()]) {
      if (metadata.pendingTransitionInProgress || !isExpirationAllowed(metadata.state)) continue;
      if (metadata.txnLastUpdateTimestampMs + this.config.transactionalIdExpirationMs > nowMs) continue;
      const dead = metadata.prepareDead();
      expired++;
      void this.writeTransit(metadata, dead).then((errorCode) => {
        if (errorCode === ErrorCode.NONE) this.transactions.delete(metadata.transactionalId);
      });
    }
    return this.context.writes.result(expired);
  }

  // ---- admin -----------------------------------------------------------------------------------

  /** DescribeTransactions of one id; undefined when unknown here. */
  describe(transactionalId: string): TransactionDescription | undefined {
    const metadata = this.transactions.get(transactionalId);
    return metadata === undefined ? undefined : describe(metadata);
  }

  /** ListTransactions: every id of this partition (state Dead excluded), optionally filtered. */
  list(states: ReadonlySet<TransactionState>, producerIds: ReadonlySet<number>): TransactionDescription[] {
    const found: TransactionDescription[] = [];
    for (const metadata of this.transactions.values()) {
      if (metadata.state === TransactionState.Dead) continue;
      if (states.size > 0 && !states.has(metadata.state)) continue;
      if (producerIds.size > 0 && !producerIds.has(metadata.producerId)) continue;
      found.push(describe(metadata));
    }
    return found;
  }

  // ---- shared ----------------------------------------------------------------------------------

  /** The producer checks every transaction request starts with; null when they pass. */
  private checkProducer(metadata: TransactionMetadata | undefined, producer: ProducerIdAndEpoch): number | null {
    if (metadata === undefined || metadata.producerId !== producer.producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (metadata.producerEpoch !== producer.producerEpoch) return ErrorCode.PRODUCER_FENCED;
    if (metadata.pendingTransitionInProgress) return ErrorCode.CONCURRENT_TRANSACTIONS;
    if (metadata.state === TransactionState.PrepareCommit || metadata.state === TransactionState.PrepareAbort) return ErrorCode.CONCURRENT_TRANSACTIONS;
    return null;
  }

  /**
   * Appends the record of a prepared change; resolves with NONE once written and applied, or the
   * mapped append error (the change dropped).
   */
  private writeTransit(metadata: TransactionMetadata, transit: TxnTransitMetadata): Promise<number> {
    return new Promise((resolve) => {
      this.context.writes.append([this.recordOf(metadata.transactionalId, transit)], (appendError) => {
        const errorCode = mapTransactionLogAppendError(appendError);
        if (errorCode === ErrorCode.NONE) metadata.completeTransitionTo(transit);
        else {
          this.logger?.info({ transactionalId: metadata.transactionalId, state: transit.state, errorCode: appendError }, 'transaction log append failed');
          metadata.abortTransition();
        }
        resolve(errorCode);
      });
    });
  }

  /** Appends a Complete* change, retrying after COMPLETION_RETRY_BACKOFF_MS until written or unloaded. */
  private writeCompletion(metadata: TransactionMetadata, completion: TxnTransitMetadata): void {
    this.context.writes.append([this.recordOf(metadata.transactionalId, completion)], (appendError) => {
      if (appendError === ErrorCode.NONE) {
        metadata.completeTransitionTo(completion);
        this.logger?.debug({ transactionalId: metadata.transactionalId, state: completion.state }, 'transaction completed');
        return;
      }
      if (mapTransactionLogAppendError(appendError) === ErrorCode.NOT_COORDINATOR) return;
      this.context.timer.schedule(() => this.writeCompletion(metadata, completion), COMPLETION_RETRY_BACKOFF_MS);
    });
  }

  private queueMarkers(metadata: TransactionMetadata, completion: TxnTransitMetadata): void {
    this.sendMarkers({
      transactionalId: metadata.transactionalId,
      txnPartition: this.context.partition,
      coordinatorEpoch: this.context.epoch,
      producerId: metadata.producerId,
      producerEpoch: metadata.producerEpoch,
      result: completion.state === TransactionState.CompleteCommit ? 'commit' : 'abort',
      partitions: metadata.topicPartitions,
      completion,
    });
  }

  private recordOf(transactionalId: string, transit: TxnTransitMetadata): CoordinatorRecord {
    return {
      key: transactionLogKey(transactionalId),
      value: transit.state === TransactionState.Dead ? null : transactionLogValue(transit),
    };
  }
}

/**
 * Kafka's isValidProducerId for InitProducerId v3+: the expected producer is acceptable when the
 * id has no epoch yet, names the current producer id, or names the previous one with an exhausted
 * epoch (a retry after a rotation).
 */
function isValidProducerId(metadata: TransactionMetadata, expected: ProducerIdAndEpoch): boolean {
  return metadata.producerEpoch === NO_PRODUCER_EPOCH ||
    expected.producerId === metadata.producerId ||
    (expected.producerId === metadata.lastProducerId && isEpochExhausted(expected.producerEpoch));
}

function describe(metadata: TransactionMetadata): TransactionDescription {
  return {
    transactionalId: metadata.transactionalId,
    state: metadata.state,
    producerId: metadata.producerId,
    producerEpoch: metadata.producerEpoch,
    transactionTimeoutMs: metadata.txnTimeoutMs,
    transactionStartTimeMs: metadata.txnStartTimestampMs,
    topicPartitions: metadata.topicPartitions,
  };
}
