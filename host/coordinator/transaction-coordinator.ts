/**
 * The transaction coordinator (Kafka's TransactionCoordinator, on the same CoordinatorRuntime as
 * the group coordinator): one {@link TransactionCoordinatorShard} per `__transaction_state`
 * partition this broker leads. This class routes a request to the shard of its transactional id
 * (`partitionFor`), checks the coordinator's status first (COORDINATOR_NOT_AVAILABLE before
 * startup, NOT_COORDINATOR for a partition not loaded here), takes producer ids from the
 * controller's blocks, runs the marker channel and the periodic aborts and expiry.
 */
import type { Logger } from 'pino';
import type { Time, TimerHandle } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { CoordinatorLog, CoordinatorRecord } from './coordinator-log.js';
import { CoordinatorRuntime } from './coordinator-runtime.js';
import type { TopicPartitionRef } from './coordinator-types.js';
import { defaultTransactionCoordinatorConfig, type TransactionCoordinatorConfig } from './transaction-coordinator-config.js';
import {
  type InitProducerIdResult,
  type ProducerIdAndEpoch,
  type TransactionDescription,
  TransactionCoordinatorShard,
  type TransactionResult,
  type TxnMarkerRequest,
} from './transaction-coordinator-shard.js';
import { TransactionMarkerChannelManager, type TxnMarkerWriter } from './transaction-marker-channel-manager.js';
import type { TransactionMetadata } from './transaction-metadata.js';
import type { TransactionState } from './transaction-state.js';
import { partitionForTransactionalId } from './transaction-topic.js';

export type { InitProducerIdResult, ProducerIdAndEpoch, TransactionDescription, TransactionResult } from './transaction-coordinator-shard.js';

export interface TransactionCoordinatorOptions {
  /** The `__transaction_state` partitions. */
  transactionLog: CoordinatorLog;
  time: Pick<Time, 'nowMs' | 'setTimeout' | 'clearTimeout'>;
  /** A new producer id from the controller's blocks (Kafka's ProducerIdManager). */
  allocateProducerId(): Promise<{ errorCode: number; producerId: number }>;
  /** Where markers are written (the partitions' leaders). */
  markerWriter: TxnMarkerWriter;
  config?: Partial<TransactionCoordinatorConfig>;
  /** coordinator.max.timer.tasks.per.turn (coordinator-runtime.ts); default 500. */
  maxTimerTasksPerTurn?: number;
  logger?: Logger | null;
}

/** One DescribeTransactions answer: the description, or an error (NOT_COORDINATOR, TRANSACTIONAL_ID_NOT_FOUND). */
export type DescribedTransaction = { errorCode: number; transactionalId: string; description: TransactionDescription | null };

export class TransactionCoordinator {
  readonly config: Readonly<TransactionCoordinatorConfig>;
  readonly runtime: CoordinatorRuntime<TransactionCoordinatorShard>;
  readonly markers: TransactionMarkerChannelManager;
  private readonly time: TransactionCoordinatorOptions['time'];
  private readonly logger: Logger | null;
  private active = false;
  private readonly timers: TimerHandle[] = [];
  /** The coordinator epoch of each loaded partition. */
  private readonly epochs = new Map<number, number>();

  constructor(private readonly options: TransactionCoordinatorOptions) {
    this.config = Object.freeze({ ...defaultTransactionCoordinatorConfig, ...options.config });
    this.time = options.time;
    this.logger = options.logger ?? null;
    this.markers = new TransactionMarkerChannelManager({
      writer: options.markerWriter,
      time: options.time,
      logger: this.logger,
      isCurrent: (request) => this.runtime.isLoaded(request.txnPartition) && this.epochOf(request.txnPartition) === request.coordinatorEpoch,
      onComplete: (request) => this.onMarkersWritten(request),
    });
    this.runtime = new CoordinatorRuntime({
      log: options.transactionLog,
      time: options.time,
      ...(options.maxTimerTasksPerTurn === undefined ? {} : { maxTimerTasksPerTurn: options.maxTimerTasksPerTurn }),
      logger: this.logger,
      buildShard: (context) => {
        this.epochs.set(context.partition, context.epoch);
        return new TransactionCoordinatorShard(context, this.config, (request) => this.markers.addTxnMarkersToSend(request), this.logger);
      },
    });
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  /** Starts answering and the periodic abort of timed-out transactions and expiry of idle ids. */
  startup(): void {
    if (this.active) return;
    this.active = true;
    this.schedule(() => this.abortTimedOutTransactions(), this.config.transactionAbortTimedOutTransactionCleanupIntervalMs);
    this.schedule(() => this.removeExpiredTransactionalIds(), this.config.transactionRemoveExpiredTransactionCleanupIntervalMs);
  }

  /** Unloads everything, stops the markers and timers; later requests get COORDINATOR_NOT_AVAILABLE (15). */
  shutdown(): void {
    this.active = false;
    for (const handle of this.timers.splice(0)) this.time.clearTimeout(handle);
    this.markers.shutdown();
    for (const partition of this.runtime.loadedPartitions()) this.runtime.unload(partition);
  }

  get isActive(): boolean {
    return this.active;
  }

  /**
   * Kafka's onElection: this broker leads `__transaction_state`-`partition` at leader epoch
   * `coordinatorEpoch`: its transactions are loaded (a newer epoch reloads them; transactions in a
   * prepare state get their markers sent). Returns true when it loaded them now.
   */
  onElection(partition: number, coordinatorEpoch = 0, records?: Iterable<CoordinatorRecord>): boolean {
    this.assertPartition(partition);
    if (this.runtime.isLoaded(partition)) {
      if (this.epochOf(partition) >= coordinatorEpoch) return false;
      this.runtime.unload(partition);
    }
    const { recordsReplayed, recordsSkipped } = this.runtime.load(partition, records, coordinatorEpoch);
    this.logger?.debug({ partition, coordinatorEpoch, recordsReplayed, recordsSkipped }, 'loaded __transaction_state partition');
    return true;
  }

  /** Kafka's onResignation: another broker leads the partition; its requests answer NOT_COORDINATOR (16). */
  onResignation(partition: number): boolean {
    if (!this.runtime.isLoaded(partition)) return false;
    this.runtime.unload(partition);
    this.epochs.delete(partition);
    return true;
  }

  /** The `__transaction_state` partition of a transactional id (what FindCoordinator must agree with). */
  partitionFor(transactionalId: string): number {
    return partitionForTransactionalId(transactionalId, this.config.transactionStateLogNumPartitions);
  }

  /** The metadata of a transactional id (tests, admin); undefined when unknown or not coordinated here. */
  transaction(transactionalId: string): TransactionMetadata | undefined {
    return this.runtime.shard(this.partitionFor(transactionalId))?.transaction(transactionalId);
  }

  // ---- APIs --------------------------------------------------------------------------------------

  /**
   * InitProducerId with a transactional id (Kafka's handleInitProducerId). Errors besides the
   * shard's: INVALID_REQUEST (42) for "", INVALID_TRANSACTION_TIMEOUT (50) for a timeout <= 0 or
   * above transaction.max.timeout.ms, the status errors, the producer id allocation's errors.
   */
  async initProducerId(transactionalId: string, transactionTimeoutMs: number, expected: ProducerIdAndEpoch | null): Promise<InitProducerIdResult> {
    const failure = (errorCode: number): InitProducerIdResult => ({ errorCode, producerId: -1, producerEpoch: -1 });
    if (transactionalId === '') return failure(ErrorCode.INVALID_REQUEST);
    if (transactionTimeoutMs <= 0 || transactionTimeoutMs > this.config.transactionMaxTimeoutMs) return failure(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    let newProducerId: number | null = null;
    for (;;) {
      const statusError = this.validateStatus(transactionalId);
      if (statusError !== null) return failure(statusError);
      const outcome = this.runtime.write(this.partitionFor(transactionalId),
        (shard) => shard.initProducerId(transactionalId, transactionTimeoutMs, expected, newProducerId));
      if (!outcome.needsProducerId) return outcome.result;
      if (newProducerId !== null) throw new Error('the shard asked twice for a producer id');
      const allocated = await this.options.allocateProducerId();
      if (allocated.errorCode !== ErrorCode.NONE) return failure(allocated.errorCode);
      newProducerId = allocated.producerId;
    }
  }

  /** AddPartitionsToTxn (and AddOffsetsToTxn's one partition): one error code for all partitions. */
  addPartitionsToTransaction(transactionalId: string, producer: ProducerIdAndEpoch, partitions: readonly TopicPartitionRef[]): Promise<number> {
    if (transactionalId === '') return Promise.resolve(ErrorCode.INVALID_REQUEST);
    const statusError = this.validateStatus(transactionalId);
    if (statusError !== null) return Promise.resolve(statusError);
    return this.runtime.write(this.partitionFor(transactionalId), (shard) => shard.addPartitions(transactionalId, producer, partitions));
  }

  /** The verify-only AddPartitionsToTxn (v4+): an error per partition, in order. */
  verifyPartitionsInTransaction(transactionalId: string, producer: ProducerIdAndEpoch, partitions: readonly TopicPartitionRef[]): number[] {
    const statusError = transactionalId === '' ? ErrorCode.INVALID_REQUEST : this.validateStatus(transactionalId);
    if (statusError !== null) return partitions.map(() => statusError);
    const errors = this.runtime.shard(this.partitionFor(transactionalId))!.verifyPartitions(transactionalId, producer, partitions);
    return partitions.map((ref) => errors.get(ref)!);
  }

  /** EndTxn: resolves once PrepareCommit/PrepareAbort is written (markers follow). */
  endTransaction(transactionalId: string, producer: ProducerIdAndEpoch, result: TransactionResult): Promise<number> {
    if (transactionalId === '') return Promise.resolve(ErrorCode.INVALID_REQUEST);
    const statusError = this.validateStatus(transactionalId);
    if (statusError !== null) return Promise.resolve(statusError);
    return this.runtime.write(this.partitionFor(transactionalId), (shard) => shard.endTxn(transactionalId, producer, result));
  }

  /** DescribeTransactions: per id NONE, NOT_COORDINATOR (16), COORDINATOR_NOT_AVAILABLE (15) or TRANSACTIONAL_ID_NOT_FOUND (105). */
  describeTransactions(transactionalIds: readonly string[]): DescribedTransaction[] {
    return transactionalIds.map((transactionalId) => {
      const statusError = this.validateStatus(transactionalId);
      if (statusError !== null) return { errorCode: statusError, transactionalId, description: null };
      const description = this.runtime.shard(this.partitionFor(transactionalId))!.describe(transactionalId);
      return description === undefined
        ? { errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, transactionalId, description: null }
        : { errorCode: ErrorCode.NONE, transactionalId, description };
    });
  }

  /** ListTransactions over every loaded partition; COORDINATOR_NOT_AVAILABLE before startup. */
  listTransactions(states: ReadonlySet<TransactionState>, producerIds: ReadonlySet<number>): { errorCode: number; transactions: TransactionDescription[] } {
    if (!this.active) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, transactions: [] };
    const transactions = this.runtime.loadedPartitions().flatMap((partition) => this.runtime.shard(partition)!.list(states, producerIds));
    return { errorCode: ErrorCode.NONE, transactions };
  }

  /** Aborts the transactions past their timeout now (it also runs periodically). Returns how many. */
  abortTimedOutTransactions(): number {
    return this.runtime.writeAll((shard) => shard.abortTimedOutTransactions()).reduce((sum, n) => sum + n, 0);
  }

  /** Expires idle transactional ids now (it also runs periodically). Returns how many. */
  removeExpiredTransactionalIds(): number {
    return this.runtime.writeAll((shard) => shard.removeExpiredTransactionalIds()).reduce((sum, n) => sum + n, 0);
  }

  // ---- shared ----------------------------------------------------------------------------------

  private onMarkersWritten(request: TxnMarkerRequest): void {
    if (!this.runtime.isLoaded(request.txnPartition)) return;
    this.runtime.write(request.txnPartition, (shard) => shard.onMarkersWritten(request));
  }

  private epochOf(partition: number): number {
    return this.epochs.get(partition) ?? -1;
  }

  private validateStatus(transactionalId: string): number | null {
    if (!this.active) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (!this.runtime.isLoaded(this.partitionFor(transactionalId))) return ErrorCode.NOT_COORDINATOR;
    return null;
  }

  private schedule(task: () => void, intervalMs: number): void {
    const handle = this.time.setTimeout(() => {
      const index = this.timers.indexOf(handle);
      if (index >= 0) this.timers.splice(index, 1);
      if (!this.active) return;
      task();
      this.schedule(task, intervalMs);
    }, intervalMs);
    this.timers.push(handle);
  }

  private assertPartition(partition: number): void {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.config.transactionStateLogNumPartitions) {
      throw new Error(`__transaction_state partition ${partition} out of range [0, ${this.config.transactionStateLogNumPartitions})`);
    }
  }
}
