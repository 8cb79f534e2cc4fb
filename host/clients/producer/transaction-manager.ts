/**
 * The transactional producer's side of KIP-98 (Kafka's TransactionManager, in small): the
 * transactional id's producer id and epoch from its coordinator, the partitions of the open
 * transaction, and the requests that begin, extend and end it.
 *
 * ```
 *  uninitialized --initTransactions--> ready --beginTransaction--> inTransaction
 *        ^                               ^  <---- commit / abort ------ |
 *        |                               |                              | a record failed
 *        |                               +------- abort --------- abortableError
 *  any --PRODUCER_FENCED / INVALID_PRODUCER_EPOCH / fatal error--> fatalError (close only)
 * ```
 * - initTransactions: FindCoordinator (key type 1), InitProducerId with the transactional id
 *   (retried through CONCURRENT_TRANSACTIONS while the coordinator aborts a predecessor's
 *   transaction). After an abortable error, the abort bumps the epoch with InitProducerId v3+
 *   naming the current producer (KIP-360), so the partitions' sequences restart.
 * - Before the first batch of a partition in a transaction: AddPartitionsToTxn (the Sender asks,
 *   {@link TransactionManager.ensurePartitionAdded}).
 * - sendOffsetsToTransaction: AddOffsetsToTxn to the transaction coordinator, then
 *   TxnOffsetCommit to the group's coordinator (with the consumer's generation and member id).
 * - commit/abort: every record is acknowledged first (commit) or drained (abort), then EndTxn.
 */
import { ApiKey } from '../../protocol/generated/api-keys.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { Cluster } from '../cluster.js';
import { CoordinatorType } from '../cluster.js';
import { isRetriableError, KafkaError, ProducerFencedError, TransactionStateError } from '../errors.js';
import { retry } from '../retry.js';

export type TransactionState = 'uninitialized' | 'ready' | 'inTransaction' | 'committing' | 'aborting' | 'abortableError' | 'fatalError';

/** The consumer's group membership as sendOffsetsToTransaction needs it (Kafka's ConsumerGroupMetadata). */
export interface ConsumerGroupMetadata {
  groupId: string;
  /** -1 outside group management. */
  generationId?: number;
  /** "" outside group management. */
  memberId?: string;
  groupInstanceId?: string | null;
}

/** One partition's next offset to consume, committed with the transaction. */
export interface TransactionOffset {
  topic: string;
  partition: number;
  /** The next offset to read (last processed + 1). */
  offset: number;
  metadata?: string;
}

export interface TransactionManagerOptions {
  transactionalId: string;
  /** transaction.timeout.ms (default 60000). */
  transactionTimeoutMs: number;
  requestTimeoutMs: number;
  retryBackoffMs: number;
  /** max.block.ms: bound on initTransactions, commit and abort. */
  maxBlockMs: number;
}

const FENCING_ERRORS = new Set<number>([ErrorCode.PRODUCER_FENCED, ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]);
/** Errors that mean "ask FindCoordinator again". */
const COORDINATOR_ERRORS = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE]);

export class TransactionManager {
  private stateValue: TransactionState = 'uninitialized';
  private producerId = -1;
  private producerEpoch = -1;
  private readonly added = new Set<string>();
  private readonly adding = new Map<string, Promise<void>>();
  private lastError: Error | null = null;
  /** AddOffsetsToTxn was sent in this transaction (it has something to end even without partitions). */
  private offsetsAdded = false;

  constructor(private readonly cluster: Cluster, private readonly options: TransactionManagerOptions, private readonly wakeSender: () => void) {}

  get state(): TransactionState {
    return this.stateValue;
  }

  get transactionalId(): string {
    return this.options.transactionalId;
  }

  /** The producer id and epoch batches carry; -1 before initTransactions. */
  get producerIdAndEpoch(): { producerId: number; producerEpoch: number } {
    return { producerId: this.producerId, producerEpoch: this.producerEpoch };
  }

  /** Gets the producer id and epoch, fencing every earlier producer of the transactional id. */
  async initTransactions(): Promise<void> {
    this.require(['uninitialized'], 'initTransactions');
    await this.initProducerId(null);
    this.stateValue = 'ready';
  }

  beginTransaction(): void {
    this.require(['ready'], 'beginTransaction');
    this.added.clear();
    this.stateValue = 'inTransaction';
  }

  /** send() is allowed: a transaction is open (a failed one still takes records until aborted). */
  assertSendable(): void {
    if (this.stateValue === 'fatalError') throw this.fatal('send');
    if (this.stateValue !== 'inTransaction' && this.stateValue !== 'abortableError') {
      throw new TransactionStateError(`cannot send in state ${this.stateValue}: call beginTransaction() first`);
    }
  }

  /**
   * Whether the partition is in the transaction; if not, starts adding it (AddPartitionsToTxn)
   * and wakes the Sender once it is. The Sender holds the partition's batches meanwhile.
   */
  ensurePartitionAdded(topic: string, partition: number): boolean {
    const key = `${topic}\u0000${partition}`;
    if (this.added.has(key)) return true;
    if (!this.adding.has(key) && this.stateValue === 'inTransaction') {
      const request = this.addPartition(topic, partition).then(() => {
        this.added.add(key);
      }, (error: unknown) => this.failed(error as Error)).finally(() => {
        this.adding.delete(key);
        this.wakeSender();
      });
      this.adding.set(key, request);
    }
    return false;
  }

  /** A batch of the transaction failed: fenced producers are done, anything else must abort. */
  failed(error: Error): void {
    if (this.stateValue === 'fatalError') return;
    this.lastError = error;
    if (error instanceof KafkaError && FENCING_ERRORS.has(error.errorCode)) {
      this.stateValue = 'fatalError';
      this.lastError = new ProducerFencedError(error.errorCode, `transactional id "${this.options.transactionalId}"`);
    } else if (this.stateValue === 'inTransaction') {
      this.stateValue = 'abortableError';
    }
    // While committing, lastError alone makes the commit fail; while aborting, nothing matters.
  }

  /** The error a batch fails with while the transaction cannot take it. */
  get failure(): Error | null {
    return this.stateValue === 'fatalError' || this.stateValue === 'abortableError' ? this.lastError : null;
  }

  /** AddOffsetsToTxn, then TxnOffsetCommit at the group's coordinator. */
  async sendOffsetsToTransaction(offsets: readonly TransactionOffset[], group: ConsumerGroupMetadata): Promise<void> {
    this.require(['inTransaction'], 'sendOffsetsToTransaction');
    await this.coordinatorRequest('AddOffsetsToTxn', async (connection) => (await connection.request(ApiKey.AddOffsetsToTxn, {
      transactionalId: this.options.transactionalId, ...this.producerIdAndEpoch, groupId: group.groupId,
    })).errorCode);
    const byTopic = new Map<string, TransactionOffset[]>();
    for (const entry of offsets) byTopic.set(entry.topic, [...(byTopic.get(entry.topic) ?? []), entry]);
    await this.request(`TxnOffsetCommit "${group.groupId}"`, group.groupId, CoordinatorType.GROUP, async (connection) => {
      const response = await connection.request(ApiKey.TxnOffsetCommit, {
        transactionalId: this.options.transactionalId, groupId: group.groupId, ...this.producerIdAndEpoch,
        generationId: group.generationId ?? -1, memberId: group.memberId ?? '', groupInstanceId: group.groupInstanceId ?? null,
        topics: [...byTopic].map(([name, entries]) => ({
          name,
          partitions: entries.map((entry) => ({ partitionIndex: entry.partition, committedOffset: entry.offset, committedLeaderEpoch: -1, committedMetadata: entry.metadata ?? '' })),
        })),
      });
      return response.topics.flatMap((topic) => topic.partitions.map((partition) => partition.errorCode)).find((code) => code !== ErrorCode.NONE) ?? ErrorCode.NONE;
    });
  }

  /**
   * EndTxn once the producer's records are settled (`drained`: the producer's flush). A commit of
   * a transaction with a failed record throws TransactionStateError (abortable): abort it.
   */
  async endTransaction(commit: boolean, drained: () => Promise<void>): Promise<void> {
    this.require(commit ? ['inTransaction'] : ['inTransaction', 'abortableError'], commit ? 'commitTransaction' : 'abortTransaction');
    const hadError = this.stateValue === 'abortableError';
    this.stateValue = commit ? 'committing' : 'aborting';
    try {
      await drained();
    } catch {
      // A failed record is reported by its own send(); the transaction's fate is decided below.
    }
    if ((this.stateValue as TransactionState) === 'fatalError') throw this.fatal(commit ? 'commitTransaction' : 'abortTransaction');
    if (commit && this.lastError !== null) {
      this.stateValue = 'abortableError';
      throw new TransactionStateError('a record of the transaction failed: abort it', true, { cause: this.lastError });
    }
    if (this.added.size > 0 || this.offsetsAdded) {
      await this.coordinatorRequest('EndTxn', async (connection) => (await connection.request(ApiKey.EndTxn, {
        transactionalId: this.options.transactionalId, ...this.producerIdAndEpoch, committed: commit,
      })).errorCode);
    }
    this.added.clear();
    this.offsetsAdded = false;
    // KIP-360: after an abortable error the epoch is bumped so that sequences restart at 0.
    if (!commit && hadError) await this.initProducerId({ producerId: this.producerId, producerEpoch: this.producerEpoch });
    this.lastError = null;
    this.stateValue = 'ready';
  }

  private async initProducerId(expected: { producerId: number; producerEpoch: number } | null): Promise<void> {
    await this.coordinatorRequest('InitProducerId', async (connection) => {
      const response = await connection.request(ApiKey.InitProducerId, {
        transactionalId: this.options.transactionalId,
        transactionTimeoutMs: this.options.transactionTimeoutMs,
        producerId: expected?.producerId ?? -1,
        producerEpoch: expected?.producerEpoch ?? -1,
      });
      if (response.errorCode === ErrorCode.NONE) {
        this.producerId = response.producerId;
        this.producerEpoch = response.producerEpoch;
      }
      return response.errorCode;
    });
    this.wakeSender();
  }

  private async addPartition(topic: string, partition: number): Promise<void> {
    await this.coordinatorRequest(`AddPartitionsToTxn ${topic}-${partition}`, async (connection) => {
      const response = await connection.request(ApiKey.AddPartitionsToTxn, {
        v3AndBelowTransactionalId: this.options.transactionalId,
        v3AndBelowProducerId: this.producerId,
        v3AndBelowProducerEpoch: this.producerEpoch,
        v3AndBelowTopics: [{ name: topic, partitions: [partition] }],
      });
      return response.resultsByTopicV3AndBelow[0]?.resultsByPartition[0]?.partitionErrorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
    });
  }

  /** A request to the transaction coordinator. */
  private coordinatorRequest(what: string, send: (connection: Awaited<ReturnType<Cluster['coordinator']>>['connection']) => Promise<number>): Promise<void> {
    if (what === 'AddOffsetsToTxn') this.offsetsAdded = true;
    return this.request(what, this.options.transactionalId, CoordinatorType.TRANSACTION, send);
  }

  /**
   * Sends to the coordinator of `key` until NONE: retriable errors (CONCURRENT_TRANSACTIONS,
   * COORDINATOR_LOAD_IN_PROGRESS, lost connections) are retried, NOT_COORDINATOR,
   * COORDINATOR_NOT_AVAILABLE and a lost connection find the coordinator again; fencing errors make the producer fatal (ProducerFencedError).
   */
  private async request(what: string, key: string, type: number, send: (connection: Awaited<ReturnType<Cluster['coordinator']>>['connection']) => Promise<number>): Promise<void> {
    try {
      await retry(async () => {
        let errorCode: number;
        try {
          const { connection } = await this.cluster.coordinator(key, type);
          errorCode = await send(connection);
        } catch (error) {
          // A lost connection or an unreachable coordinator: find it again (it may have moved with
          // the leadership of its partition), as Java's TransactionManager does on a disconnect.
          if (!(error instanceof KafkaError)) this.cluster.forgetCoordinator(key, type);
          throw error;
        }
        if (errorCode === ErrorCode.NONE) return;
        if (COORDINATOR_ERRORS.has(errorCode)) this.cluster.forgetCoordinator(key, type);
        throw FENCING_ERRORS.has(errorCode) ? new ProducerFencedError(errorCode, `${what} (transactional id "${this.options.transactionalId}")`) : new KafkaError(errorCode, what);
      }, {
        timeoutMs: this.options.maxBlockMs,
        retryBackoffMs: Math.min(this.options.retryBackoffMs, 20),
        what,
        shouldRetry: (error) => !(error instanceof ProducerFencedError) && isRetriableError(error),
      });
    } catch (error) {
      this.failed(error as Error);
      throw error;
    }
  }

  private require(states: readonly TransactionState[], call: string): void {
    if (this.stateValue === 'fatalError') throw this.fatal(call);
    if (!states.includes(this.stateValue)) throw new TransactionStateError(`cannot ${call} in state ${this.stateValue}`, this.stateValue === 'abortableError');
  }

  private fatal(call: string): Error {
    return this.lastError ?? new TransactionStateError(`cannot ${call}: the producer hit a fatal error`);
  }
}
