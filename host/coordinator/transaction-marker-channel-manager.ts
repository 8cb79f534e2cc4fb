/**
 * Sends the markers of ended transactions until every partition has its COMMIT or ABORT control
 * batch (Kafka's TransactionMarkerChannelManager with its TransactionMarkerRequestCompletionHandler),
 * then tells the coordinator, which writes CompleteCommit/CompleteAbort.
 *
 * The transport is a {@link TxnMarkerWriter}: the broker's is WriteTxnMarkers to each partition's
 * leader over the inter-broker listener, and an in-process append for partitions this broker
 * leads. Per partition, Kafka's rules for the answer:
 * - NONE: written;
 * - NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS(_AFTER_APPEND),
 *   REQUEST_TIMED_OUT, KAFKA_STORAGE_ERROR, COORDINATOR_LOAD_IN_PROGRESS and anything unexpected:
 *   retried after a backoff (the leader may move; a deleted topic is answered NONE by the writer);
 * - UNSUPPORTED_FOR_MESSAGE_FORMAT, UNSUPPORTED_VERSION: given up for that partition (nothing to mark);
 * - TRANSACTION_COORDINATOR_FENCED, INVALID_PRODUCER_EPOCH: this coordinator is stale (a newer one
 *   wrote the partition): sending stops and the transaction is not completed here.
 * Sending also stops when the coordinator no longer owns the transaction (`isCurrent`).
 */
import type { Logger } from 'pino';
import type { Time } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { TopicPartitionRef } from './coordinator-types.js';
import type { TransactionResult, TxnMarkerRequest } from './transaction-coordinator-shard.js';

/** The markers of one transaction, as WriteTxnMarkers carries them. */
export interface TxnMarkerEntry {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  readonly result: TransactionResult;
  readonly partitions: readonly TopicPartitionRef[];
}

/** Where markers are written: the partitions' leaders. */
export interface TxnMarkerWriter {
  /**
   * Writes one marker on each partition of `entry`; resolves with one Kafka error code per
   * partition, in order (NONE for a partition of a topic that no longer exists). Never rejects.
   */
  writeMarkers(entry: TxnMarkerEntry): Promise<number[]>;
}

export interface TransactionMarkerChannelManagerOptions {
  writer: TxnMarkerWriter;
  time: Pick<Time, 'setTimeout' | 'clearTimeout'>;
  /** Whether the coordinator still owns the transaction (its partition loaded at the request's epoch). */
  isCurrent(request: TxnMarkerRequest): boolean;
  /** Every marker is written. */
  onComplete(request: TxnMarkerRequest): void;
  logger?: Logger | null;
}

/** First wait before sending the markers still missing again (ms); doubles up to {@link MAX_RETRY_BACKOFF_MS}. */
export const RETRY_BACKOFF_MS = 50;
const MAX_RETRY_BACKOFF_MS = 1_000;

const RETRIED = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_ENOUGH_REPLICAS,
  ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, ErrorCode.REQUEST_TIMED_OUT, ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
]);
const GIVEN_UP = new Set<number>([ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT, ErrorCode.UNSUPPORTED_VERSION]);
const FENCED = new Set<number>([ErrorCode.TRANSACTION_COORDINATOR_FENCED, ErrorCode.INVALID_PRODUCER_EPOCH]);

export class TransactionMarkerChannelManager {
  private readonly inFlight = new Set<TxnMarkerRequest>();
  private stopped = false;

  constructor(private readonly options: TransactionMarkerChannelManagerOptions) {}

  /** Transactions whose markers are being sent. */
  get pendingCount(): number {
    return this.inFlight.size;
  }

  /** Starts sending the markers of `request`; an empty partition list completes at once. */
  addTxnMarkersToSend(request: TxnMarkerRequest): void {
    if (this.stopped) return;
    this.inFlight.add(request);
    void this.send(request, request.partitions, RETRY_BACKOFF_MS);
  }

  /** Stops every send (broker shutdown); nothing completes afterwards. */
  shutdown(): void {
    this.stopped = true;
    this.inFlight.clear();
  }

  private async send(request: TxnMarkerRequest, partitions: readonly TopicPartitionRef[], backoffMs: number): Promise<void> {
    if (!this.inFlight.has(request)) return;
    if (!this.options.isCurrent(request)) {
      this.inFlight.delete(request);
      return;
    }
    if (partitions.length === 0) {
      this.inFlight.delete(request);
      this.options.onComplete(request);
      return;
    }
    const errors = await this.options.writer.writeMarkers({
      producerId: request.producerId, producerEpoch: request.producerEpoch, coordinatorEpoch: request.coordinatorEpoch,
      result: request.result, partitions,
    });
    const missing: TopicPartitionRef[] = [];
    for (const [index, ref] of partitions.entries()) {
      const errorCode = errors[index] ?? ErrorCode.UNKNOWN_SERVER_ERROR;
      if (errorCode === ErrorCode.NONE || GIVEN_UP.has(errorCode)) continue;
      if (FENCED.has(errorCode)) {
        this.options.logger?.info({ transactionalId: request.transactionalId, topic: ref.topic, partition: ref.partition, errorCode },
          'a newer coordinator owns this transaction; its markers are no longer sent from here');
        this.inFlight.delete(request);
        return;
      }
      if (!RETRIED.has(errorCode)) {
        this.options.logger?.warn({ transactionalId: request.transactionalId, topic: ref.topic, partition: ref.partition, errorCode },
          'unexpected error writing a transaction marker; retrying');
      }
      missing.push(ref);
    }
    if (missing.length === 0) {
      void this.send(request, missing, backoffMs);
      return;
    }
    this.options.time.setTimeout(() => void this.send(request, missing, Math.min(backoffMs * 2, MAX_RETRY_BACKOFF_MS)), backoffMs);
  }
}
