/**
 * Kafka's Sender: takes sendable batches out of the RecordAccumulator, groups them by partition
 * leader into Produce requests (one batch per partition per request), and completes, retries or
 * fails them from the answers.
 *
 * Ordering: with idempotence, at most one batch per partition is in flight, so a retried batch can
 * never be overtaken by a later one. Without idempotence up to maxInFlightPerPartition batches of
 * a partition may be in flight (pipelining, as Java's max.in.flight.requests.per.connection, default
 * 5): a batch that is retried may then land after later ones, Java's documented trade-off; 1 keeps
 * strict order. Different partitions proceed in parallel, several requests per broker.
 *
 * Idempotence (KIP-98): before the first batch the producer gets a producer id and epoch with
 * InitProducerId; each partition's batches carry consecutive base sequences, assigned when a batch
 * is first drained and kept (with the encoded bytes) across retries, so a retry of a batch the
 * broker already appended is recognised (DUPLICATE_SEQUENCE_NUMBER, or the cached answer) and not
 * written twice. UNKNOWN_PRODUCER_ID, INVALID_PRODUCER_EPOCH and OUT_OF_ORDER_SEQUENCE_NUMBER reset
 * the producer id (a new id restarts every partition at sequence 0) and the batch is resent under
 * it (KIP-360's recovery for non-transactional producers).
 *
 * Transactions: a transactional producer's id and epoch come from its TransactionManager; a
 * partition's batches wait until AddPartitionsToTxn added it to the open transaction, are sent as
 * transactional batches with the transactional id, and a failed batch fails the transaction.
 *
 * Retries: retriable errors and lost connections are retried after retry.backoff.ms until
 * delivery.timeout.ms since the batch was created (or `retries` attempts); leadership errors
 * refresh the metadata first.
 */
import { ApiKey } from '../../protocol/generated/api-keys.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { Cluster } from '../cluster.js';
import { ClientClosedError, isRetriableError, KafkaError, KafkaTimeoutError } from '../errors.js';
import { partitionKey, type ProducerBatch, type RecordAccumulator } from './record-accumulator.js';

export interface SenderOptions {
  /** -1 (all), 0 or 1. */
  acks: -1 | 0 | 1;
  /** request.timeout.ms: the broker-side Produce timeout and our wait for the answer, ms. */
  requestTimeoutMs: number;
  retryBackoffMs: number;
  /** delivery.timeout.ms: a batch not acknowledged this long after creation fails, ms. */
  deliveryTimeoutMs: number;
  /** retries: attempts after the first before a retriable error fails the batch. */
  retries: number;
  /** max.request.size: bound on one Produce request's record bytes. */
  maxRequestSize: number;
  /** CompressionType id 0-4. */
  compression: number;
  compressionLevel?: number;
  idempotent: boolean;
  /** Batches of one partition in flight at once without idempotence (with it: 1). Default 5. */
  maxInFlightPerPartition?: number;
  /** A transactional producer's transaction (implies idempotent): its producer id, partitions and failures. */
  transactions?: SenderTransactions;
}

/** What the Sender needs of a transactional producer (the TransactionManager). */
export interface SenderTransactions {
  readonly transactionalId: string;
  /** -1/-1 before initTransactions. */
  readonly producerIdAndEpoch: { producerId: number; producerEpoch: number };
  /** True when the partition is in the open transaction; else it is being added (the Sender is woken after). */
  ensurePartitionAdded(topic: string, partition: number): boolean;
  /** The error queued batches fail with (the transaction failed or the producer was fenced), else null. */
  readonly failure: Error | null;
  /** A batch of the transaction failed with `error`. */
  failed(error: Error): void;
}

const LEADERSHIP_ERRORS = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
]);
const PRODUCER_STATE_ERRORS = new Set<number>([
  ErrorCode.UNKNOWN_PRODUCER_ID, ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
]);

export class Sender {
  /** Batches in flight per partition key. */
  private readonly inFlight = new Map<string, number>();
  /** Partitions that may not send another batch now (at the in-flight bound). */
  private readonly busy = new Set<string>();
  private readonly maxInFlightPerPartition: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerAtMs = Infinity;
  private immediate = false;
  private stopped = false;
  private producerId = -1;
  private producerEpoch = -1;
  private initializing: Promise<void> | null = null;
  private readonly nextSequence = new Map<string, number>();
  private metadataRefresh: Promise<void> | null = null;
  /** Errors from the last InitProducerId attempts (surfaced when batches time out). */
  private lastInitError: Error | null = null;

  constructor(
    private readonly cluster: Cluster,
    private readonly accumulator: RecordAccumulator,
    private readonly options: SenderOptions,
  ) {
    this.maxInFlightPerPartition = options.idempotent ? 1 : Math.max(1, options.maxInFlightPerPartition ?? 5);
  }

  /** The producer id and epoch in use (-1 before InitProducerId or without idempotence). */
  get producerIdAndEpoch(): { producerId: number; producerEpoch: number } {
    return { producerId: this.producerId, producerEpoch: this.producerEpoch };
  }

  /** Batches on the wire. */
  get inFlightBatches(): number {
    let count = 0;
    for (const n of this.inFlight.values()) count += n;
    return count;
  }

  /** Runs the send loop soon (coalesced), or after `delayMs`. */
  wakeup(delayMs = 0): void {
    if (this.stopped) return;
    if (delayMs <= 0) {
      if (this.immediate) return;
      this.immediate = true;
      queueMicrotask(() => {
        this.immediate = false;
        this.run();
      });
      return;
    }
    const at = Date.now() + delayMs;
    if (this.timer !== null && this.timerAtMs <= at) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerAtMs = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAtMs = Infinity;
      this.run();
    }, delayMs);
  }

  /** Stops the loop (after a flush); batches still queued are failed with ClientClosedError. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const batch of this.accumulator.takeAll()) this.fail(batch, new ClientClosedError('the producer was closed before the record was sent'));
  }

  private run(): void {
    if (this.stopped) return;
    const now = Date.now();
    const transactions = this.options.transactions;
    if (transactions !== undefined) {
      const ids = transactions.producerIdAndEpoch;
      if (ids.producerId !== this.producerId || ids.producerEpoch !== this.producerEpoch) {
        // A new epoch (initTransactions, or the bump after an abortable error) restarts sequences.
        this.producerId = ids.producerId;
        this.producerEpoch = ids.producerEpoch;
        this.nextSequence.clear();
      }
      if (this.producerId < 0) return;
    } else if (this.options.idempotent && this.producerId < 0) {
      this.initProducerId();
      return;
    }
    const { ready, nextReadyMs } = this.accumulator.ready(now, this.busy);
    const byLeader = new Map<number, { batches: ProducerBatch[]; bytes: number }>();
    const missing = new Set<string>();
    for (const batch of ready) {
      if (now - batch.createdMs >= this.options.deliveryTimeoutMs) {
        this.accumulator.drain(batch);
        this.fail(batch, this.deliveryTimeoutError(batch));
        continue;
      }
      if (transactions !== undefined) {
        const failure = transactions.failure;
        if (failure !== null) {
          this.accumulator.drain(batch);
          this.fail(batch, failure);
          continue;
        }
        // The partition joins the transaction (AddPartitionsToTxn) before its first batch is sent.
        if (!transactions.ensurePartitionAdded(batch.topic, batch.partition)) continue;
      }
      const leader = this.cluster.leaderFor(batch.topic, batch.partition);
      if (leader < 0 || !this.cluster.brokers.has(leader)) {
        missing.add(batch.topic);
        continue;
      }
      const group = byLeader.get(leader) ?? { batches: [], bytes: 0 };
      // One request stays under max.request.size; the rest go in the next round.
      if (group.batches.length > 0 && group.bytes + batch.sizeBytes > this.options.maxRequestSize) continue;
      group.batches.push(batch);
      group.bytes += batch.sizeBytes;
      byLeader.set(leader, group);
    }
    if (missing.size > 0) this.refreshMetadata([...missing]);
    let sent = false;
    for (const [leader, { batches }] of byLeader) {
      const prepared: ProducerBatch[] = [];
      for (const batch of batches) {
        this.accumulator.drain(batch);
        if (this.prepare(batch)) {
          prepared.push(batch);
          this.markInFlight(partitionKey(batch.topic, batch.partition), 1);
          sent = true;
        }
      }
      if (prepared.length > 0) void this.sendRequest(leader, prepared);
    }
    // A partition below its in-flight bound may have a next batch ready already.
    if (sent && this.maxInFlightPerPartition > 1) this.wakeup();
    else if (nextReadyMs !== Infinity) this.wakeup(Math.max(1, nextReadyMs - now));
  }

  private markInFlight(key: string, delta: number): void {
    const count = (this.inFlight.get(key) ?? 0) + delta;
    if (count <= 0) this.inFlight.delete(key);
    else this.inFlight.set(key, count);
    if (count >= this.maxInFlightPerPartition) this.busy.add(key);
    else this.busy.delete(key);
  }

  private deliveryTimeoutError(batch: ProducerBatch): Error {
    const cause = this.lastInitError === null ? '' : ` (last error: ${this.lastInitError.message})`;
    return new KafkaTimeoutError(`${batch.recordCount} record(s) for ${batch.topic}-${batch.partition} not acknowledged within delivery.timeout.ms (${this.options.deliveryTimeoutMs} ms)${cause}`);
  }

  private initProducerId(): void {
    if (this.initializing !== null) return;
    this.initializing = (async () => {
      try {
        const connection = await this.cluster.anyConnection();
        const response = await connection.request(ApiKey.InitProducerId, {
          transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1,
        });
        if (response.errorCode !== ErrorCode.NONE) throw new KafkaError(response.errorCode, 'InitProducerId');
        this.producerId = response.producerId;
        this.producerEpoch = response.producerEpoch;
        this.nextSequence.clear();
        this.lastInitError = null;
        this.wakeup();
      } catch (error) {
        this.lastInitError = error as Error;
        if (!isRetriableError(error)) {
          // Without a producer id nothing can be sent idempotently: fail what is queued.
          for (const batch of this.accumulator.takeAll()) this.fail(batch, error as Error);
        }
        this.wakeup(this.options.retryBackoffMs);
        this.expireWhileWaiting();
      } finally {
        this.initializing = null;
      }
    })();
  }

  /** Fails queued batches past delivery.timeout.ms while no producer id can be obtained. */
  private expireWhileWaiting(): void {
    const now = Date.now();
    const { ready } = this.accumulator.ready(now + this.options.deliveryTimeoutMs, this.busy);
    for (const batch of ready) {
      if (now - batch.createdMs < this.options.deliveryTimeoutMs) continue;
      this.accumulator.drain(batch);
      this.fail(batch, this.deliveryTimeoutError(batch));
    }
  }

  private refreshMetadata(topics: string[]): void {
    if (this.metadataRefresh !== null) return;
    this.metadataRefresh = this.cluster.refreshMetadata(topics)
      .then(() => undefined, () => undefined)
      .finally(() => {
        this.metadataRefresh = null;
        this.wakeup(this.options.retryBackoffMs);
      });
  }

  /** Assigns the sequence and encodes the batch on its first send. False = the batch failed. */
  private prepare(batch: ProducerBatch): boolean {
    if (batch.encoded !== null) return true;
    try {
      if (this.options.idempotent) {
        const key = partitionKey(batch.topic, batch.partition);
        const sequence = this.nextSequence.get(key) ?? 0;
        batch.producerId = this.producerId;
        batch.producerEpoch = this.producerEpoch;
        batch.baseSequence = sequence;
        // Sequences are int32 and wrap to 0 (Kafka's DefaultRecordBatch.incrementSequence).
        this.nextSequence.set(key, (sequence + batch.recordCount) % 2147483648);
      }
      // The records are already encoded in the batch's writer: this writes header and CRC.
      batch.encoded = batch.writer.build({
        compression: this.options.compression,
        ...(this.options.compressionLevel === undefined ? {} : { compressionLevel: this.options.compressionLevel }),
        producerId: batch.producerId,
        producerEpoch: batch.producerEpoch,
        baseSequence: batch.baseSequence,
        isTransactional: this.options.transactions !== undefined,
      });
      return true;
    } catch (error) {
      this.fail(batch, error as Error);
      return false;
    }
  }

  private async sendRequest(leader: number, batches: ProducerBatch[]): Promise<void> {
    const byTopic = new Map<string, { index: number; records: Uint8Array }[]>();
    for (const batch of batches) {
      const list = byTopic.get(batch.topic) ?? [];
      list.push({ index: batch.partition, records: batch.encoded! });
      byTopic.set(batch.topic, list);
    }
    const body = {
      transactionalId: this.options.transactions?.transactionalId ?? null,
      acks: this.options.acks,
      timeoutMs: this.options.requestTimeoutMs,
      topicData: [...byTopic].map(([name, partitionData]) => ({ name, partitionData })),
    };
    try {
      const connection = await this.cluster.connectionTo(leader);
      if (this.options.acks === 0) {
        await connection.sendWithoutResponse(ApiKey.Produce, body);
        for (const batch of batches) this.succeed(batch, -1, -1);
        return;
      }
      const response = await connection.request(ApiKey.Produce, body, { timeoutMs: this.options.requestTimeoutMs * 2 });
      for (const batch of batches) {
        const answer = response.responses.find((t) => t.name === batch.topic)?.partitionResponses.find((p) => p.index === batch.partition);
        if (answer === undefined) {
          this.retryOrFail(batch, new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, `Produce ${batch.topic}-${batch.partition}: no answer for the partition`));
        } else if (answer.errorCode === ErrorCode.NONE || answer.errorCode === ErrorCode.DUPLICATE_SEQUENCE_NUMBER) {
          this.succeed(batch, answer.baseOffset, answer.logAppendTimeMs);
        } else {
          this.retryOrFail(batch, new KafkaError(answer.errorCode, `Produce ${batch.topic}-${batch.partition}`));
        }
      }
    } catch (error) {
      for (const batch of batches) this.retryOrFail(batch, error as Error);
    } finally {
      for (const batch of batches) this.markInFlight(partitionKey(batch.topic, batch.partition), -1);
      this.wakeup();
    }
  }

  private succeed(batch: ProducerBatch, baseOffset: number, logAppendTimeMs: number): void {
    batch.acknowledgeAll(baseOffset, logAppendTimeMs);
    this.accumulator.complete(batch);
  }

  private fail(batch: ProducerBatch, error: Error): void {
    if (this.options.transactions !== undefined) {
      // The transaction must be aborted (its epoch bump restarts the sequences), or the producer is fenced.
      this.options.transactions.failed(error);
    } else if (batch.baseSequence >= 0 && batch.producerId === this.producerId) {
      // The batch's sequences are spent but will never be written: later batches of the
      // partition would leave a gap (OUT_OF_ORDER_SEQUENCE_NUMBER). A new producer id restarts
      // every partition at sequence 0.
      this.producerId = -1;
      this.producerEpoch = -1;
    }
    batch.failAll(error);
    this.accumulator.complete(batch);
  }

  private retryOrFail(batch: ProducerBatch, error: Error): void {
    const now = Date.now();
    const code = error instanceof KafkaError ? error.errorCode : ErrorCode.NONE;
    // A transactional producer does not renew its id by itself: such errors fail the transaction.
    const producerStateLost = this.options.idempotent && this.options.transactions === undefined && PRODUCER_STATE_ERRORS.has(code);
    const retriable = isRetriableError(error) || producerStateLost;
    if (this.stopped || !retriable || batch.attempts >= this.options.retries ||
      now + this.options.retryBackoffMs - batch.createdMs >= this.options.deliveryTimeoutMs) {
      this.fail(batch, error);
      return;
    }
    // A lost connection may be a dead leader too: the metadata is asked again (as Java's
    // NetworkClient does on a disconnect), or the batch would go to the same broker until it returns.
    if (LEADERSHIP_ERRORS.has(code) || !(error instanceof KafkaError)) {
      this.cluster.invalidate();
      this.refreshMetadata([batch.topic]);
    }
    if (producerStateLost) {
      if (batch.producerId === this.producerId) {
        this.producerId = -1;
        this.producerEpoch = -1;
      }
      batch.encoded = null;
      batch.baseSequence = -1;
    }
    this.accumulator.reenqueue(batch, now + this.options.retryBackoffMs);
  }
}
