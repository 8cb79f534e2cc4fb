/**
 * The producer: `send()` serializes records, picks partitions, and appends them to the
 * RecordAccumulator; the Sender batches them into Produce requests. Semantics follow Kafka's Java
 * producer 3.x: acks=all and idempotence on by default (KIP-679), batch.size 16384, linger.ms 5
 * (Kafka 4.0's default, KIP-1030), buffer.memory 32 MiB with back-pressure up to max.block.ms,
 * retries bounded by delivery.timeout.ms, murmur2 key partitioning and the sticky partitioner for
 * null keys (KIP-480).
 *
 * ```ts
 * const producer = new Producer({ bootstrapServers: ['127.0.0.1:9092'] });
 * const [meta] = await producer.send({ topic: 'orders', messages: [{ key: 'k', value: 'v' }] });
 * await producer.close();   // flushes first: nothing accepted by send() is lost
 * ```
 *
 * With a `transactionalId` (KIP-98) records are sent in transactions that commit or abort as a
 * whole, and a consumer's offsets can commit with them (consume-transform-produce, exactly once):
 * ```ts
 * const producer = new Producer({ bootstrapServers, transactionalId: 'etl-1' });
 * await producer.initTransactions();          // fences older producers of 'etl-1'
 * producer.beginTransaction();
 * await producer.send({ topic: 'out', messages });
 * await producer.sendOffsetsToTransaction([{ topic: 'in', partition: 0, offset: 42 }], consumer.groupMetadata());
 * await producer.commitTransaction();         // or abortTransaction()
 * ```
 * A producer fenced by a newer one with the same id rejects with ProducerFencedError (fatal);
 * a transaction whose record failed must be aborted (TransactionStateError, `abortable`).
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { RecordHeaderInput } from '../record/batch-builder.js';
import { CompressionType } from '../record/compression.js';
import { Cluster, type PartitionInfo } from './cluster.js';
import { ClientClosedError, KafkaError, TransactionStateError } from './errors.js';
import { murmur2Partition } from './producer/murmur2.js';
import { DefaultPartitioner, type CustomPartitioner } from './producer/partitioner.js';
import { BATCH_OVERHEAD_BYTES, estimateRecordBytes, RecordAccumulator, type AcknowledgementTarget, type PendingRecord, type RecordMetadata } from './producer/record-accumulator.js';
import { Sender } from './producer/sender.js';
import { type ConsumerGroupMetadata, TransactionManager, type TransactionOffset } from './producer/transaction-manager.js';
import type { TransportFactory } from './transport/transport.js';

export type { RecordMetadata } from './producer/record-accumulator.js';
export type { CustomPartitioner, PartitionerArgs } from './producer/partitioner.js';
export type { ConsumerGroupMetadata, TransactionOffset } from './producer/transaction-manager.js';

export type CompressionName = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

/** Turns a key or value into bytes (null stays null). */
export type Serializer<T> = (data: T, topic: string) => Uint8Array | null;

/** Record headers: an object (one value per key) or a list (repeated keys allowed). */
export type MessageHeaders = Record<string, string | Uint8Array | null> | RecordHeaderInput[];

export interface ProducerMessage<K = string | Uint8Array | null, V = string | Uint8Array | null> {
  key?: K | null;
  value: V | null;
  headers?: MessageHeaders;
  /** Explicit partition; default: the partitioner picks. */
  partition?: number;
  /** CreateTime in ms since epoch; default now. */
  timestamp?: number;
}

export interface ProducerRecord<K = string | Uint8Array | null, V = string | Uint8Array | null> extends ProducerMessage<K, V> {
  topic: string;
}

/** Sees every record before it is serialized, and every acknowledgement (Kafka ProducerInterceptor). */
export interface ProducerInterceptor<K, V> {
  onSend?(record: ProducerRecord<K, V>): ProducerRecord<K, V>;
  onAcknowledgement?(metadata: RecordMetadata | null, error: Error | null): void;
}

export interface ProducerOptions<K = string | Uint8Array | null, V = string | Uint8Array | null> {
  bootstrapServers: string[];
  clientId?: string;
  transportFactory?: TransportFactory;
  /** -1/'all' (default), 0 or 1. */
  acks?: -1 | 0 | 1 | 'all';
  /** enable.idempotence: default true when acks is all, false otherwise (true with other acks is an error). */
  enableIdempotence?: boolean;
  /** batch.size, bytes (default 16384). */
  batchSize?: number;
  /** linger.ms (default 5). */
  lingerMs?: number;
  /** buffer.memory, bytes (default 33554432). */
  bufferMemory?: number;
  /** max.block.ms: bound on send() waiting for metadata or buffer memory (default 60000). */
  maxBlockMs?: number;
  /** delivery.timeout.ms (default 120000). */
  deliveryTimeoutMs?: number;
  /** request.timeout.ms (default 30000). */
  requestTimeoutMs?: number;
  /** Connect + ApiVersions timeout per broker connection, ms (default 10000). */
  connectTimeoutMs?: number;
  /**
   * max.in.flight.requests.per.connection (default 5, as Java), applied per partition: how many
   * batches of one partition may await their answer at once when idempotence is off (pipelining).
   * Above 1, a retried batch may land after later batches of its partition (Java's trade-off); set
   * 1 for strict order without idempotence. With idempotence one batch per partition is in flight.
   */
  maxInFlightRequestsPerConnection?: number;
  /** retries (default unbounded: delivery.timeout.ms bounds them). */
  retries?: number;
  /** retry.backoff.ms (default 100). */
  retryBackoffMs?: number;
  /** max.request.size, bytes (default 1048576); a bigger record fails with MESSAGE_TOO_LARGE (10). */
  maxRequestSize?: number;
  /** compression.type (default none). */
  compression?: CompressionName;
  /** gzip / zstd level. */
  compressionLevel?: number;
  partitioner?: CustomPartitioner;
  keySerializer?: Serializer<K>;
  valueSerializer?: Serializer<V>;
  interceptors?: ProducerInterceptor<K, V>[];
  /** Ask the broker to auto-create unknown topics (default true, as Java producers do). */
  allowAutoTopicCreation?: boolean;
  /** metadata.max.age.ms (default 300000). */
  metadataMaxAgeMs?: number;
  /** transactional.id: makes the producer transactional (needs idempotence, so acks all). */
  transactionalId?: string;
  /** transaction.timeout.ms: the coordinator aborts a transaction open longer (default 60000). */
  transactionTimeoutMs?: number;
}

const COMPRESSION_IDS: Record<CompressionName, number> = {
  none: CompressionType.NONE, gzip: CompressionType.GZIP, snappy: CompressionType.SNAPPY, lz4: CompressionType.LZ4, zstd: CompressionType.ZSTD,
};

const encoder = new TextEncoder();

type PartitionInfoList = { partitions: PartitionInfo[] };

/**
 * One send() (or sendRecord()) call: a single promise for all its records instead of one per
 * record, resolved with their metadata in order once every record is acknowledged, rejected with
 * the first failure (as Promise.all over per-record promises would be).
 */
class SendCall<K, V> implements AcknowledgementTarget {
  readonly promise: Promise<RecordMetadata[]>;
  private readonly results: RecordMetadata[];
  private remaining: number;
  private resolve!: (results: RecordMetadata[]) => void;
  private reject!: (error: Error) => void;

  constructor(count: number, private readonly interceptors: ProducerInterceptor<K, V>[] | undefined) {
    this.results = new Array<RecordMetadata>(count);
    this.remaining = count;
    this.promise = new Promise<RecordMetadata[]>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // send() may throw before returning the promise; a later failure must not go unhandled.
    this.promise.catch(() => undefined);
    if (count === 0) this.resolve(this.results);
  }

  acknowledge(index: number, metadata: RecordMetadata): void {
    if (this.interceptors !== undefined) for (const i of this.interceptors) i.onAcknowledgement?.(metadata, null);
    this.results[index] = metadata;
    if (--this.remaining === 0) this.resolve(this.results);
  }

  fail(_index: number, error: Error): void {
    if (this.interceptors !== undefined) for (const i of this.interceptors) i.onAcknowledgement?.(null, error);
    this.reject(error);
  }
}

/** Per topic-metadata object: the partitions with a leader (metadata objects are replaced, never mutated). */
const availableCache = new WeakMap<PartitionInfoList, number[]>();

function availablePartitions(info: PartitionInfoList): number[] {
  let available = availableCache.get(info);
  if (available === undefined) {
    available = info.partitions.filter((p) => p.leader >= 0).map((p) => p.partition);
    availableCache.set(info, available);
  }
  return available;
}

const NO_HEADERS: RecordHeaderInput[] = [];

/** Default serializer: strings as UTF-8, bytes as they are, null/undefined as null. */
export function defaultSerializer(data: unknown): Uint8Array | null {
  if (data === null || data === undefined) return null;
  if (typeof data === 'string') return encoder.encode(data);
  if (data instanceof Uint8Array) return data;
  throw new TypeError(`cannot serialize a ${typeof data} without a serializer: give a string, a Uint8Array, or a keySerializer/valueSerializer`);
}

function normalizeHeaders(headers: MessageHeaders | undefined): readonly RecordHeaderInput[] {
  if (headers === undefined) return NO_HEADERS;
  if (Array.isArray(headers)) return headers;
  return Object.entries(headers).map(([key, value]) => ({ key, value }));
}

function positiveInteger(value: number | undefined, fallback: number, name: string, min = 0): number {
  const result = value ?? fallback;
  if (!Number.isSafeInteger(result) || result < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  return result;
}

export class Producer<K = string | Uint8Array | null, V = string | Uint8Array | null> {
  readonly cluster: Cluster;
  private readonly accumulator: RecordAccumulator;
  private readonly sender: Sender;
  private readonly partitioner = new DefaultPartitioner();
  private readonly options: ProducerOptions<K, V>;
  private readonly maxRequestSize: number;
  private readonly maxBlockMs: number;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private closing: Promise<void> | null = null;
  private readonly transactions: TransactionManager | null;

  /** @throws RangeError for invalid options (e.g. enableIdempotence with acks other than all) */
  constructor(options: ProducerOptions<K, V>) {
    this.options = options;
    const acks = options.acks === 'all' || options.acks === undefined ? -1 : options.acks;
    if (acks !== -1 && acks !== 0 && acks !== 1) throw new RangeError(`acks must be -1 (all), 0 or 1, got ${String(options.acks)}`);
    if (options.enableIdempotence === true && acks !== -1) {
      throw new RangeError('enableIdempotence needs acks=all (-1): set acks to all or enableIdempotence to false');
    }
    const compression = COMPRESSION_IDS[options.compression ?? 'none'];
    if (compression === undefined) throw new RangeError(`compression must be none, gzip, snappy, lz4 or zstd, got ${String(options.compression)}`);
    const requestTimeoutMs = positiveInteger(options.requestTimeoutMs, 30_000, 'requestTimeoutMs', 1);
    this.maxRequestSize = positiveInteger(options.maxRequestSize, 1_048_576, 'maxRequestSize', 1);
    this.maxBlockMs = positiveInteger(options.maxBlockMs, 60_000, 'maxBlockMs');
    const retryBackoffMs = positiveInteger(options.retryBackoffMs, 100, 'retryBackoffMs');
    if (options.transactionalId !== undefined && (acks !== -1 || options.enableIdempotence === false)) {
      throw new RangeError('a transactionalId needs idempotence: acks all and enableIdempotence not false');
    }
    this.cluster = new Cluster({
      bootstrapServers: options.bootstrapServers,
      clientId: options.clientId ?? 'tributary-producer',
      requestTimeoutMs,
      retryBackoffMs,
      allowAutoTopicCreation: options.allowAutoTopicCreation ?? true,
      ...(options.metadataMaxAgeMs === undefined ? {} : { metadataMaxAgeMs: options.metadataMaxAgeMs }),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.transportFactory === undefined ? {} : { transportFactory: options.transportFactory }),
    });
    this.transactions = options.transactionalId === undefined ? null : new TransactionManager(this.cluster, {
      transactionalId: options.transactionalId,
      transactionTimeoutMs: positiveInteger(options.transactionTimeoutMs, 60_000, 'transactionTimeoutMs', 1),
      requestTimeoutMs,
      retryBackoffMs,
      maxBlockMs: this.maxBlockMs,
    }, () => this.sender.wakeup());
    this.accumulator = new RecordAccumulator({
      batchSize: positiveInteger(options.batchSize, 16_384, 'batchSize', 1),
      lingerMs: positiveInteger(options.lingerMs, 5, 'lingerMs'),
      bufferMemory: positiveInteger(options.bufferMemory, 33_554_432, 'bufferMemory', 1),
      maxBlockMs: this.maxBlockMs,
    }, (batch) => {
      const partitions = this.cluster.topics.get(batch.topic)?.partitions ?? [];
      const info = this.cluster.topics.get(batch.topic);
      this.partitioner.onBatchClosed(batch.topic, batch.partition, partitions.length, info === undefined ? [] : availablePartitions(info));
      this.sender.wakeup();
    });
    this.sender = new Sender(this.cluster, this.accumulator, {
      acks,
      requestTimeoutMs,
      retryBackoffMs,
      deliveryTimeoutMs: positiveInteger(options.deliveryTimeoutMs, 120_000, 'deliveryTimeoutMs', 1),
      retries: positiveInteger(options.retries, Number.MAX_SAFE_INTEGER, 'retries'),
      maxRequestSize: this.maxRequestSize,
      compression,
      ...(options.compressionLevel === undefined ? {} : { compressionLevel: options.compressionLevel }),
      idempotent: options.enableIdempotence ?? acks === -1,
      maxInFlightPerPartition: positiveInteger(options.maxInFlightRequestsPerConnection, 5, 'maxInFlightRequestsPerConnection', 1),
      ...(this.transactions === null ? {} : { transactions: this.transactions }),
    });
  }

  /** Connects to the cluster (optional: send() connects on demand). @throws ConnectionError */
  async connect(): Promise<void> {
    await this.cluster.connect();
  }

  /** The producer id and epoch (idempotence), -1 before the first send. */
  get producerIdAndEpoch(): { producerId: number; producerEpoch: number } {
    return this.sender.producerIdAndEpoch;
  }

  /**
   * Transactional producers: gets the transactional id's producer id and epoch from its
   * coordinator, fencing every older producer of the id (their open transaction is aborted).
   * @throws ProducerFencedError, KafkaTimeoutError (max.block.ms), TransactionStateError (called twice, or not transactional)
   */
  async initTransactions(): Promise<void> {
    await this.transactional('initTransactions').initTransactions();
  }

  /** Starts a transaction: the records sent until commit or abort belong to it. @throws TransactionStateError */
  beginTransaction(): void {
    this.transactional('beginTransaction').beginTransaction();
  }

  /**
   * Commits a consumer group's offsets with the transaction (AddOffsetsToTxn, TxnOffsetCommit):
   * they become the group's committed offsets only if the transaction commits.
   * @param offsets per partition the next offset to consume
   * @param group the consumer's groupMetadata() (its generation fences zombie members)
   */
  async sendOffsetsToTransaction(offsets: readonly TransactionOffset[], group: ConsumerGroupMetadata): Promise<void> {
    await this.transactional('sendOffsetsToTransaction').sendOffsetsToTransaction(offsets, group);
  }

  /**
   * Waits for every record of the transaction, then commits it (EndTxn). @throws
   * TransactionStateError (abortable: a record failed, abort instead), ProducerFencedError
   */
  async commitTransaction(): Promise<void> {
    await this.transactional('commitTransaction').endTransaction(true, () => this.flush());
  }

  /** Aborts the transaction: its records are never visible to read_committed consumers. @throws ProducerFencedError */
  async abortTransaction(): Promise<void> {
    await this.transactional('abortTransaction').endTransaction(false, () => this.flush());
  }

  private transactional(call: string): TransactionManager {
    if (this.state !== 'open') throw new ClientClosedError('the producer is closed');
    if (this.transactions === null) throw new TransactionStateError(`${call} needs a producer with a transactionalId`);
    return this.transactions;
  }

  /** Partitions of a topic (from metadata; auto-creates when allowed). */
  async partitionsFor(topic: string): Promise<PartitionInfo[]> {
    const [info] = await this.cluster.topicMetadata([topic], this.maxBlockMs);
    return info!.partitions;
  }

  /**
   * Sends messages to one topic; resolves when every one is acknowledged (per acks), in order.
   * @throws KafkaError (e.g. MESSAGE_TOO_LARGE 10, UNKNOWN_TOPIC_OR_PARTITION 3, a non-retriable
   *   produce error), KafkaTimeoutError (max.block.ms / delivery.timeout.ms), ClientClosedError
   */
  async send(request: { topic: string; messages: ProducerMessage<K, V>[] }): Promise<RecordMetadata[]> {
    const { messages } = request;
    const call = new SendCall<K, V>(messages.length, this.interceptorList);
    for (let index = 0; index < messages.length; index++) {
      const waiting = this.enqueue(request.topic, messages[index]!, call, index);
      if (waiting !== undefined) await waiting;
    }
    return call.promise;
  }

  /**
   * Sends one record (Java's `send(record, callback)`): the promise resolves on acknowledgement;
   * the callback, when given, is called with (error, metadata) too.
   */
  async sendRecord(record: ProducerRecord<K, V>, callback?: (error: Error | null, metadata: RecordMetadata | null) => void): Promise<RecordMetadata> {
    try {
      const call = new SendCall<K, V>(1, this.interceptorList);
      const waiting = this.enqueue(record.topic, record, call, 0);
      if (waiting !== undefined) await waiting;
      const [metadata] = await call.promise;
      callback?.(null, metadata!);
      return metadata!;
    } catch (error) {
      callback?.(error as Error, null);
      throw error;
    }
  }

  private get interceptorList(): ProducerInterceptor<K, V>[] | undefined {
    const interceptors = this.options.interceptors;
    return interceptors !== undefined && interceptors.length > 0 ? interceptors : undefined;
  }

  /**
   * Appends one record to the accumulator as record `index` of `target`. The append itself is
   * synchronous (undefined is returned) when metadata is cached and buffer memory is free, so
   * records keep the order of the calls; otherwise it waits (metadata, back-pressure) first and
   * returns the promise of the append. Failures after the record was accepted for sending reach
   * `target.fail` (and interceptors) too.
   * @throws synchronously for invalid records and a closed producer
   */
  private enqueue(topic: string, message: ProducerMessage<K, V>, target: AcknowledgementTarget, index: number): Promise<void> | undefined {
    if (this.state !== 'open') throw new ClientClosedError('the producer is closed');
    this.transactions?.assertSendable();
    let record: ProducerMessage<K, V> & { topic?: string } = message;
    const interceptors = this.options.interceptors;
    if (interceptors !== undefined && interceptors.length > 0) {
      let full: ProducerRecord<K, V> = { ...message, topic };
      for (const interceptor of interceptors) if (interceptor.onSend) full = interceptor.onSend(full);
      record = full;
      topic = full.topic;
    }
    const key = record.key === undefined || record.key === null ? null
      : (this.options.keySerializer ?? (defaultSerializer as Serializer<K>))(record.key, topic);
    const value = record.value === null ? null
      : (this.options.valueSerializer ?? (defaultSerializer as Serializer<V>))(record.value, topic);
    const headers = normalizeHeaders(record.headers);
    const nowMs = Date.now();
    const timestamp = record.timestamp ?? nowMs;
    const sizeBytes = estimateRecordBytes(key, value, headers);
    if (sizeBytes + BATCH_OVERHEAD_BYTES > this.maxRequestSize) {
      throw new KafkaError(ErrorCode.MESSAGE_TOO_LARGE, `record of about ${sizeBytes} bytes for ${topic} (max.request.size ${this.maxRequestSize})`);
    }
    const cached = this.cluster.cachedTopic(topic);
    if (cached !== undefined && this.accumulator.tryReserve(sizeBytes)) {
      const partition = this.choosePartition(topic, record.partition, key, value, cached);
      if (partition instanceof Error) {
        this.accumulator.release(sizeBytes);
        target.fail(index, partition);
        throw partition;
      }
      try {
        this.append(topic, partition, key, value, headers, timestamp, sizeBytes, target, index, nowMs);
      } catch (error) {
        target.fail(index, error as Error);
        throw error;
      }
      return undefined;
    }
    return (async () => {
      try {
        const [info] = await this.cluster.topicMetadata([topic], this.maxBlockMs);
        const partition = this.choosePartition(topic, record.partition, key, value, info!);
        if (partition instanceof Error) throw partition;
        await this.accumulator.reserve(sizeBytes);
        if (this.isClosed()) {
          this.accumulator.release(sizeBytes);
          throw new ClientClosedError('the producer is closed');
        }
        this.append(topic, partition, key, value, headers, timestamp, sizeBytes, target, index, Date.now());
      } catch (error) {
        // Interceptors hear about records that never reached the accumulator too.
        target.fail(index, error as Error);
        throw error;
      }
    })();
  }

  /** One reused carrier for append(): the accumulator copies records at once and keeps none. */
  private readonly scratch: PendingRecord = {
    key: null, value: null, headers: NO_HEADERS, timestamp: 0, sizeBytes: 0, target: { acknowledge() {}, fail() {} }, index: 0,
  };

  private append(topic: string, partition: number, key: Uint8Array | null, value: Uint8Array | null, headers: readonly RecordHeaderInput[],
    timestamp: number, sizeBytes: number, target: AcknowledgementTarget, index: number, nowMs: number): void {
    const scratch = this.scratch;
    scratch.key = key;
    scratch.value = value;
    scratch.headers = headers;
    scratch.timestamp = timestamp;
    scratch.sizeBytes = sizeBytes;
    scratch.target = target;
    scratch.index = index;
    try {
      this.accumulator.append(topic, partition, scratch, nowMs);
    } catch (error) {
      this.accumulator.release(sizeBytes);
      throw error;
    } finally {
      scratch.key = null;
      scratch.value = null;
      scratch.headers = NO_HEADERS;
    }
    // The sender sends full batches at once and sets its timer for the others' linger.ms.
    this.sender.wakeup();
  }

  /** The partition for a record (explicit, custom partitioner, or default), or the error to throw. */
  private choosePartition(topic: string, explicit: number | undefined, key: Uint8Array | null, value: Uint8Array | null, info: PartitionInfoList): number | KafkaError {
    const partitionCount = info.partitions.length;
    let partition = explicit;
    if (partition === undefined && key !== null && this.options.partitioner === undefined) {
      partition = murmur2Partition(key, partitionCount);
    } else if (partition === undefined) {
      const available = availablePartitions(info);
      const args = { topic, key, value, partitionCount, availablePartitions: available };
      partition = this.options.partitioner?.(args) ?? this.partitioner.partition(args);
    }
    if (!Number.isInteger(partition) || partition < 0 || partition >= partitionCount) {
      return new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `partition ${partition} of ${topic} (it has ${partitionCount})`);
    }
    return partition;
  }

  private isClosed(): boolean {
    return this.state === 'closed';
  }

  /** Sends everything accumulated now and resolves when all of it is acknowledged or failed. */
  async flush(): Promise<void> {
    this.accumulator.beginFlush();
    try {
      this.sender.wakeup();
      await this.accumulator.awaitIdle();
    } finally {
      this.accumulator.endFlush();
    }
  }

  /**
   * Flushes, then closes the connections. Records accepted before close() are delivered (or fail
   * with their own error); send() after close() rejects with ClientClosedError. With `timeoutMs`,
   * records still unacknowledged when it expires fail with ClientClosedError. Idempotent.
   */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    this.closing ??= (async () => {
      this.state = 'closing';
      const flushed = this.flush();
      if (options.timeoutMs === undefined) {
        await flushed;
      } else {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([flushed, new Promise<void>((resolve) => { timer = setTimeout(resolve, options.timeoutMs); })]);
        clearTimeout(timer);
      }
      this.state = 'closed';
      this.sender.stop();
      await this.cluster.close();
      await flushed;
    })();
    return this.closing;
  }
}
