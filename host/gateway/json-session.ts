/**
 * One `/json` WebSocket session: JSON operations in, replies and pushed records out (message
 * shapes in host/gateway/JSON-PROTOCOL.md, validation in json-messages.ts).
 *
 * Built on Kafka semantics, not on broker internals: the session drives the client library's
 * Producer and Consumer over an InProcessTransport into the broker's own request handler, so a
 * JSON producer is an idempotent Kafka producer and a JSON subscriber is a member of a Kafka
 * consumer group (JoinGroup/SyncGroup/Heartbeat, committed offsets in __consumer_offsets).
 * After `initTransactions` the session's produce goes through a transactional Producer
 * (json-transactions.ts): records commit or abort with the session's transaction.
 *
 * Push consumption under credit-based flow control: the client grants credits (`subscribe.credits`,
 * `credit.n`); the session pushes at most that many records in total, then stops. Records the
 * consumer fetched beyond the credits wait in a buffer of at most one poll's worth; while the
 * buffer is not empty, credits are 0 or the socket's buffered amount is above
 * `maxPendingPushBytes`, the consumer's partitions are *paused* (no Fetch reads the log) and the
 * session only polls to keep its group membership (rebalances happen inside poll). A `drain` or a
 * credit grant wakes it at once.
 *
 * Commits: the consumer's own auto-commit is off, because it would commit what was fetched; the
 * session commits what it *pushed* (offset of the last pushed record + 1 per partition): on
 * `commit`, every autoCommitIntervalMs when `autoCommit` is on, before partitions are revoked,
 * and on unsubscribe/close (at-least-once for the client).
 *
 * Subscription states: none → subscribed (poll loop running) → stopping (unsubscribe, socket
 * closed or gateway stop: loop ends, pushed offsets committed, group left) → none.
 */
import { Consumer, type ConsumerRecord, type TopicPartition } from '../clients/consumer.js';
import { ClientClosedError, ConnectionError, KafkaError, KafkaTimeoutError, TransactionStateError } from '../clients/errors.js';
import { Producer } from '../clients/producer.js';
import type { TransportFactory } from '../clients/transport/transport.js';
import type { Time } from '../io/environment.js';
import { SystemTime } from '../io/time.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { NetworkLogger, RequestHandler } from '../network/network-types.js';
import { inProcessTransportFactory } from './in-process-transport.js';
import { clusterTopicFetcher, type MetadataTopicLike, metadataTopicFetcher, SharedTopicList } from './json-topic-list.js';
import {
  encodeBytes,
  JsonErrorCode,
  JsonProtocolError,
  MAX_CREDITS,
  parseClientMessage,
  type ClientMessage,
  type JsonEncoding,
  type JsonId,
} from './json-messages.js';
import { JsonTransactions, transactionStateError } from './json-transactions.js';
import type { JsonSessionFactory, JsonSessionHandlers, JsonSocket } from '../network/json-socket.js';

export interface JsonSessionOptions {
  /** The broker's request handler (the same one TCP and /kafka use). */
  handler: RequestHandler;
  /** Listener name reported to the handler. */
  listenerName: string;
  logger: NetworkLogger;
  /** Operations awaiting their reply before further ones are refused (TOO_MANY_REQUESTS). Default 64. */
  maxInFlightRequests?: number;
  /** Socket buffered amount, bytes, above which pushes pause until drain. Default 1 MiB. */
  maxPendingPushBytes?: number;
  /** Approximate bytes of record data per pushed `records` message. Default 256 KiB. */
  maxPushBytes?: number;
  /** Most records one poll hands over (bounds the session's buffer). Default 500. */
  maxPollRecords?: number;
  /** How often pushed offsets are committed when autoCommit is on, ms. Default 5000. */
  autoCommitIntervalMs?: number;
  /** session.timeout.ms of the JSON subscribers' group membership. Default 45000. */
  sessionTimeoutMs?: number;
  /** heartbeat.interval.ms. Default 3000. */
  heartbeatIntervalMs?: number;
  /** Produce to an unknown topic creates it when the broker allows (auto.create.topics.enable). Default true. */
  allowAutoTopicCreation?: boolean;
  /** request.timeout.ms of the in-process clients. Default 30000. */
  requestTimeoutMs?: number;
  /** The clock of auto-commits and the waits between polls; default the system clock. */
  time?: Pick<Time, 'nowMs' | 'setTimeout' | 'clearTimeout'>;
  /** The broker's topics (MetadataCache.topics()), which `listTopics` answers from; absent: an all-topics Metadata request. */
  topics?: () => readonly MetadataTopicLike[];
}

interface Subscription {
  readonly consumer: Consumer;
  readonly topics: string[];
  readonly group: string | null;
  readonly autoCommit: boolean;
  readonly encoding: JsonEncoding;
  credits: number;
  /** Fetched, not yet pushed (at most one poll's worth). */
  buffer: ConsumerRecord[];
  /** Next offset to commit per partition: last pushed offset + 1. */
  readonly pushed: Map<string, { topic: string; partition: number; offset: number }>;
  readonly committed: Map<string, number>;
  nextAutoCommitMs: number;
  stopped: boolean;
  loop: Promise<void> | null;
  wake: (() => void) | null;
}

/** Poll wait while records are wanted, ms (the Fetch long-poll inside is shorter). */
const POLL_TIMEOUT_MS = 500;
/** Longest sleep while paused before polling again to keep the group membership, ms. */
const PAUSED_POLL_INTERVAL_MS = 1000;
/** Back-off after a failed poll, ms. */
const POLL_ERROR_BACKOFF_MS = 1000;

let nextSessionClientId = 1;

export class JsonSession implements JsonSessionHandlers {
  private readonly time: Pick<Time, 'nowMs' | 'setTimeout' | 'clearTimeout'>;
  private readonly maxInFlightRequests: number;
  private readonly maxPendingPushBytes: number;
  private readonly maxPushBytes: number;
  private readonly transportFactory: TransportFactory;
  private readonly clientId: string;
  private producer: Producer | null = null;
  /** The transactional producer (initTransactions); while it exists, produce goes through it. */
  private readonly transactions: JsonTransactions;
  private subscription: Subscription | null = null;
  /** A subscribe is setting up (it awaits metadata): a second one must not race it. */
  private subscribing = false;
  private inFlight = 0;
  private readonly pending = new Set<Promise<void>>();
  private closing = false;
  private stopPromise: Promise<void> | null = null;

  /**
   * @param topics the gateway's shared `listTopics` (json-topic-list.ts); default one of this session's own
   */
  constructor(
    private readonly socket: JsonSocket,
    private readonly options: JsonSessionOptions,
    private readonly topics: SharedTopicList = sharedTopicListOf(options),
  ) {
    this.time = options.time ?? new SystemTime();
    this.maxInFlightRequests = options.maxInFlightRequests ?? 64;
    this.maxPendingPushBytes = options.maxPendingPushBytes ?? 1024 * 1024;
    this.maxPushBytes = options.maxPushBytes ?? 256 * 1024;
    this.transportFactory = inProcessTransportFactory({ handler: options.handler, peer: socket.peer, listenerName: options.listenerName });
    this.clientId = `json-gateway-${nextSessionClientId++}`;
    this.transactions = new JsonTransactions({
      clientId: this.clientId,
      transportFactory: this.transportFactory,
      allowAutoTopicCreation: options.allowAutoTopicCreation ?? true,
      ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    });
  }

  onMessage(text: string): void {
    const parsed = parseClientMessage(text);
    if ('error' in parsed) {
      this.sendError(parsed.id, parsed.error);
      return;
    }
    const message = parsed.message;
    if (this.closing) {
      this.sendError(message.id, new JsonProtocolError(JsonErrorCode.SESSION_CLOSING, 'the broker is shutting down'));
      return;
    }
    if (this.inFlight >= this.maxInFlightRequests) {
      this.sendError(message.id, new JsonProtocolError(JsonErrorCode.TOO_MANY_REQUESTS, `${this.inFlight} operations are waiting for replies (limit ${this.maxInFlightRequests})`));
      return;
    }
    this.inFlight++;
    const done = this.perform(message)
      .then(
        (reply) => this.send({ id: message.id, ...reply }),
        (error: unknown) => this.sendError(message.id, this.toJsonError(error)),
      )
      .finally(() => {
        this.inFlight--;
        this.pending.delete(done);
      });
    this.pending.add(done);
  }

  onDrain(): void {
    const subscription = this.subscription;
    if (subscription === null) return;
    this.deliver(subscription);
    subscription.wake?.();
  }

  onClose(): void {
    this.closing = true;
    void this.shutdown().catch((error: unknown) => {
      this.options.logger.warn({ event: 'session.close_failed', peer: this.socket.peer, err: error }, 'JSON session did not close cleanly');
    });
  }

  isBusy(): boolean {
    return this.inFlight > 0 || this.subscription !== null;
  }

  stop(): Promise<void> {
    this.closing = true;
    return this.shutdown();
  }

  /** Finishes in-flight operations, ends the subscription (commit + leave), closes the producer. Idempotent. */
  private shutdown(): Promise<void> {
    this.stopPromise ??= (async () => {
      await Promise.allSettled([...this.pending]);
      const subscription = this.subscription;
      if (subscription !== null) await this.endSubscription(subscription);
      const producer = this.producer;
      this.producer = null;
      if (producer !== null) await producer.close();
      await this.transactions.close();
    })();
    return this.stopPromise;
  }

  private async perform(message: ClientMessage): Promise<Record<string, unknown>> {
    switch (message.op) {
      case 'produce':
        return this.produce(message);
      case 'subscribe':
        return this.subscribe(message);
      case 'credit': {
        const subscription = this.requireSubscription('credit');
        subscription.credits = Math.min(MAX_CREDITS, subscription.credits + message.n);
        this.deliver(subscription);
        subscription.wake?.();
        return { op: 'credited', credits: subscription.credits };
      }
      case 'commit':
        return this.commit();
      case 'listTopics':
        return this.listTopics();
      case 'unsubscribe': {
        const subscription = this.requireSubscription('unsubscribe');
        await this.endSubscription(subscription);
        return { op: 'unsubscribed' };
      }
      case 'initTransactions':
      case 'beginTransaction':
      case 'sendOffsetsToTransaction':
      case 'commitTransaction':
      case 'abortTransaction':
        return this.transactions.perform(message);
    }
  }

  private getProducer(): Producer {
    this.producer ??= new Producer({
      bootstrapServers: ['in-process:1'],
      clientId: this.clientId,
      transportFactory: this.transportFactory,
      lingerMs: 0,
      allowAutoTopicCreation: this.options.allowAutoTopicCreation ?? true,
      ...(this.options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: this.options.requestTimeoutMs }),
    });
    return this.producer;
  }

  private async produce(message: Extract<ClientMessage, { op: 'produce' }>): Promise<Record<string, unknown>> {
    // After initTransactions the session is a transactional producer: records go into its transaction.
    const producer = this.transactions.producer ?? this.getProducer();
    // An unknown topic fails at once (instead of waiting max.block.ms for it to appear) when the
    // broker will not create it.
    if (producer.cluster.partitionCount(message.topic) === undefined) {
      await producer.cluster.refreshMetadata([message.topic]);
      const errorCode = producer.cluster.topicError(message.topic);
      if (errorCode !== ErrorCode.NONE && errorCode !== ErrorCode.LEADER_NOT_AVAILABLE) {
        throw new KafkaError(errorCode, `topic "${message.topic}"`);
      }
    }
    const results = await producer.send({
      topic: message.topic,
      messages: message.records.map((record) => ({
        key: record.key,
        value: record.value,
        headers: record.headers,
        ...(record.partition === undefined ? {} : { partition: record.partition }),
        ...(record.timestamp === undefined ? {} : { timestamp: record.timestamp }),
      })),
    });
    return {
      op: 'produced',
      topic: message.topic,
      results: results.map((result) => ({ partition: result.partition, offset: result.offset, timestamp: result.timestamp })),
    };
  }

  private async subscribe(message: Extract<ClientMessage, { op: 'subscribe' }>): Promise<Record<string, unknown>> {
    if (this.subscription !== null || this.subscribing) {
      const topics = this.subscription?.topics.join(', ') ?? 'topics';
      throw new JsonProtocolError(JsonErrorCode.ALREADY_SUBSCRIBED, `already subscribed to ${topics}: unsubscribe first`);
    }
    if (message.autoCommit && message.group === null) throw new JsonProtocolError(JsonErrorCode.INVALID_MESSAGE, '"autoCommit" needs a "group"');
    this.subscribing = true;
    try {
      return await this.startSubscription(message);
    } finally {
      this.subscribing = false;
    }
  }

  private async startSubscription(message: Extract<ClientMessage, { op: 'subscribe' }>): Promise<Record<string, unknown>> {
    const consumer = new Consumer({
      bootstrapServers: ['in-process:1'],
      clientId: this.clientId,
      transportFactory: this.transportFactory,
      ...(message.group === null ? {} : { groupId: message.group }),
      enableAutoCommit: false,
      autoOffsetReset: message.fromBeginning ? 'earliest' : 'latest',
      isolationLevel: message.isolationLevel,
      maxPollRecords: this.options.maxPollRecords ?? 500,
      fetchMaxBytes: 4 * 1024 * 1024,
      maxPartitionFetchBytes: 1024 * 1024,
      fetchMaxWaitMs: 250,
      sessionTimeoutMs: this.options.sessionTimeoutMs ?? 45_000,
      heartbeatIntervalMs: this.options.heartbeatIntervalMs ?? 3_000,
      ...(this.options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: this.options.requestTimeoutMs }),
    });
    const subscription: Subscription = {
      consumer,
      topics: message.topics,
      group: message.group,
      autoCommit: message.autoCommit,
      encoding: message.encoding,
      credits: message.credits,
      buffer: [],
      pushed: new Map(),
      committed: new Map(),
      nextAutoCommitMs: this.time.nowMs() + (this.options.autoCommitIntervalMs ?? 5_000),
      stopped: false,
      loop: null,
      wake: null,
    };
    try {
      if (message.group === null) {
        // Without a group: read every partition of the topics (no membership, no commits).
        const topics = await consumer.cluster.topicMetadata(message.topics);
        const partitions = topics.flatMap((topic) => topic.partitions.map((p) => ({ topic: topic.name, partition: p.partition })));
        consumer.assign(partitions);
        this.sendEvent({ op: 'assigned', partitions });
      } else {
        consumer.subscribe({
          topics: message.topics,
          listener: {
            onPartitionsRevoked: (partitions) => this.onRevoked(subscription, partitions),
            onPartitionsAssigned: (partitions) => {
              this.sendEvent({ op: 'assigned', partitions });
            },
          },
        });
      }
    } catch (error) {
      await consumer.close().catch(() => undefined);
      throw error;
    }
    if (this.closing) {
      await consumer.close().catch(() => undefined);
      throw new JsonProtocolError(JsonErrorCode.SESSION_CLOSING, 'the broker is shutting down');
    }
    this.subscription = subscription;
    subscription.loop = this.runSubscription(subscription);
    return { op: 'subscribed', topics: message.topics, group: message.group, credits: subscription.credits };
  }

  private async commit(): Promise<Record<string, unknown>> {
    const subscription = this.requireSubscription('commit');
    if (subscription.group === null) throw JsonProtocolError.kafka(ErrorCode.INVALID_GROUP_ID, 'commit needs a subscription with a "group"');
    const offsets = await this.commitPushed(subscription, null);
    return { op: 'committed', offsets };
  }

  private async listTopics(): Promise<Record<string, unknown>> {
    return { op: 'topics', topics: await this.topics.list() };
  }

  private requireSubscription(op: string): Subscription {
    const subscription = this.subscription;
    if (subscription === null || subscription.stopped) throw new JsonProtocolError(JsonErrorCode.NOT_SUBSCRIBED, `${op} needs an active subscription`);
    return subscription;
  }

  /**
   * The poll loop: resumes the partitions while records are wanted (credits, empty buffer, socket
   * draining), pauses them otherwise and polls only to keep the membership.
   */
  private async runSubscription(subscription: Subscription): Promise<void> {
    const consumer = subscription.consumer;
    while (!subscription.stopped) {
      const wantRecords = this.wantsRecords(subscription);
      const assigned = consumer.assignment();
      if (wantRecords) consumer.resume(assigned);
      else consumer.pause(assigned);
      let records: ConsumerRecord[];
      try {
        records = await consumer.poll(wantRecords ? POLL_TIMEOUT_MS : 0);
      } catch (error) {
        if (subscription.stopped) break;
        this.sendError(null, this.toJsonError(error));
        await this.sleep(subscription, POLL_ERROR_BACKOFF_MS);
        continue;
      }
      if (subscription.stopped) break;
      if (records.length > 0) {
        const owned = new Set(consumer.assignment().map((p) => partitionKey(p.topic, p.partition)));
        for (const record of records) if (owned.has(partitionKey(record.topic, record.partition))) subscription.buffer.push(record);
        this.deliver(subscription);
      }
      await this.maybeAutoCommit(subscription);
      if (!this.wantsRecords(subscription)) await this.sleep(subscription, PAUSED_POLL_INTERVAL_MS);
    }
  }

  private wantsRecords(subscription: Subscription): boolean {
    return subscription.buffer.length === 0 && subscription.credits > 0 && !this.pushBlocked();
  }

  private pushBlocked(): boolean {
    return this.socket.bufferedAmount > this.maxPendingPushBytes;
  }

  /** Waits up to `ms`, or until a credit grant, a drain, or the end of the subscription. */
  private sleep(subscription: Subscription, ms: number): Promise<void> {
    if (subscription.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const time = this.time;
      const timer = time.setTimeout(done, ms);
      function done(): void {
        time.clearTimeout(timer);
        if (subscription.wake === done) subscription.wake = null;
        resolve();
      }
      subscription.wake = done;
    });
  }

  /** Pushes buffered records while credits last and the socket keeps up. */
  private deliver(subscription: Subscription): void {
    while (subscription.buffer.length > 0 && subscription.credits > 0 && !this.pushBlocked() && !this.socket.closed && !subscription.stopped) {
      const limit = Math.min(subscription.credits, subscription.buffer.length);
      const records: Record<string, unknown>[] = [];
      let bytes = 0;
      while (records.length < limit && (records.length === 0 || bytes < this.maxPushBytes)) {
        const record = subscription.buffer[records.length]!;
        bytes += recordBytes(record);
        records.push(this.recordToJson(record, subscription.encoding));
      }
      const sent = subscription.buffer.splice(0, records.length);
      subscription.credits -= sent.length;
      for (const record of sent) {
        subscription.pushed.set(partitionKey(record.topic, record.partition), { topic: record.topic, partition: record.partition, offset: record.offset + 1 });
      }
      this.sendEvent({ op: 'records', records });
    }
  }

  private recordToJson(record: ConsumerRecord, encoding: JsonEncoding): Record<string, unknown> {
    const headers: Record<string, string | null> = {};
    for (const header of record.headers) headers[header.key] = encodeBytes(header.value, encoding);
    return {
      topic: record.topic,
      partition: record.partition,
      offset: record.offset,
      timestamp: record.timestamp,
      key: encodeBytes(record.key, encoding),
      value: encodeBytes(record.value, encoding),
      headers,
    };
  }

  private async maybeAutoCommit(subscription: Subscription): Promise<void> {
    if (!subscription.autoCommit || this.time.nowMs() < subscription.nextAutoCommitMs) return;
    subscription.nextAutoCommitMs = this.time.nowMs() + (this.options.autoCommitIntervalMs ?? 5_000);
    try {
      await this.commitPushed(subscription, null);
    } catch (error) {
      // Like Java's auto-commit: logged, retried at the next interval.
      this.options.logger.debug({ event: 'session.auto_commit_failed', peer: this.socket.peer, err: error }, 'auto-commit of pushed offsets failed');
    }
  }

  /** Commits pushed offsets (of `only` partitions when given) that moved since the last commit. */
  private async commitPushed(subscription: Subscription, only: TopicPartition[] | null): Promise<{ topic: string; partition: number; offset: number }[]> {
    const keys = only === null ? null : new Set(only.map((p) => partitionKey(p.topic, p.partition)));
    const offsets = [...subscription.pushed.entries()]
      .filter(([key, value]) => (keys === null || keys.has(key)) && subscription.committed.get(key) !== value.offset)
      .map(([, value]) => value);
    if (offsets.length === 0) return [];
    await subscription.consumer.commitSync(offsets);
    for (const offset of offsets) subscription.committed.set(partitionKey(offset.topic, offset.partition), offset.offset);
    return offsets;
  }

  /** Before a rebalance takes partitions away: commit what was pushed from them, drop the rest. */
  private async onRevoked(subscription: Subscription, partitions: TopicPartition[]): Promise<void> {
    if (subscription.autoCommit) {
      try {
        await this.commitPushed(subscription, partitions);
      } catch (error) {
        this.options.logger.debug({ event: 'session.commit_failed', peer: this.socket.peer, err: error }, 'commit before revocation failed');
      }
    }
    const revoked = new Set(partitions.map((p) => partitionKey(p.topic, p.partition)));
    subscription.buffer = subscription.buffer.filter((record) => !revoked.has(partitionKey(record.topic, record.partition)));
    for (const key of revoked) {
      subscription.pushed.delete(key);
      subscription.committed.delete(key);
    }
    if (!subscription.stopped) this.sendEvent({ op: 'revoked', partitions });
  }

  /** Stops the poll loop, commits pushed offsets (autoCommit), leaves the group, closes the consumer. */
  private async endSubscription(subscription: Subscription): Promise<void> {
    if (subscription.stopped) {
      await subscription.loop;
      return;
    }
    subscription.stopped = true;
    subscription.wake?.();
    subscription.consumer.stop();
    await subscription.loop;
    if (subscription.autoCommit) {
      try {
        await this.commitPushed(subscription, null);
      } catch (error) {
        this.options.logger.debug({ event: 'session.commit_failed', peer: this.socket.peer, err: error }, 'final commit of pushed offsets failed');
      }
    }
    try {
      await subscription.consumer.close();
    } finally {
      if (this.subscription === subscription) this.subscription = null;
    }
  }

  private toJsonError(error: unknown): JsonProtocolError {
    if (error instanceof JsonProtocolError) return error;
    if (error instanceof TransactionStateError) return transactionStateError(error);
    if (error instanceof KafkaError) return JsonProtocolError.kafka(error.errorCode, error.message);
    if (error instanceof KafkaTimeoutError) return JsonProtocolError.kafka(ErrorCode.REQUEST_TIMED_OUT, error.message);
    if (error instanceof ConnectionError) return JsonProtocolError.kafka(ErrorCode.NETWORK_EXCEPTION, error.message);
    if (error instanceof ClientClosedError) return new JsonProtocolError(JsonErrorCode.SESSION_CLOSING, error.message);
    if (error instanceof RangeError || error instanceof TypeError) return new JsonProtocolError(JsonErrorCode.INVALID_MESSAGE, error.message);
    this.options.logger.error({ event: 'session.failed', peer: this.socket.peer, err: error }, 'JSON operation failed unexpectedly');
    return JsonProtocolError.kafka(ErrorCode.UNKNOWN_SERVER_ERROR, 'internal error');
  }

  private sendError(id: JsonId, error: JsonProtocolError): void {
    this.send({ id, op: 'error', error: error.toJSON() });
  }

  private sendEvent(event: Record<string, unknown>): void {
    this.send(event);
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket.closed) return;
    this.socket.send(JSON.stringify(message));
  }
}

/** The gateway's `/json` session factory over `options.handler`. */
export function createJsonSessionFactory(options: JsonSessionOptions): JsonSessionFactory {
  const topics = sharedTopicListOf(options);
  return (socket) => new JsonSession(socket, options, topics);
}

/** A SharedTopicList over the broker's handler, for the sessions of one factory. */
function sharedTopicListOf(options: JsonSessionOptions): SharedTopicList {
  if (options.topics !== undefined) return new SharedTopicList(metadataTopicFetcher(options.topics));
  const transport = inProcessTransportFactory({ handler: options.handler, peer: 'json-gateway-topics', listenerName: options.listenerName });
  return new SharedTopicList(clusterTopicFetcher(transport, options.requestTimeoutMs));
}

function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** Rough size of a record in a push, bytes (for chunking pushes). */
function recordBytes(record: ConsumerRecord): number {
  let bytes = 64 + record.topic.length + (record.key?.length ?? 0) + (record.value?.length ?? 0);
  for (const header of record.headers) bytes += header.key.length + (header.value?.length ?? 0);
  return bytes;
}
