/**
 * What a client knows about the cluster: bootstrap servers, brokers by node id, topic and
 * partition metadata (leaders), the controller, group coordinators, and one connection per
 * (broker, purpose). Metadata is refreshed on demand (unknown topic, NOT_LEADER_OR_FOLLOWER,
 * LEADER_NOT_AVAILABLE, ...) and when older than metadata.max.age.ms.
 *
 * Connection purposes: a consumer's long-polling Fetch would block the group's Heartbeats if both
 * used one connection (a broker answers one connection's requests in order), so coordinator
 * traffic gets its own connection, as Java does (node id Integer.MAX_VALUE - coordinatorId).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { MetadataResponse } from '../protocol/generated/metadata.js';
import { ClientClosedError, ConnectionError, KafkaError } from './errors.js';
import { retry } from './retry.js';
import { Connection, DEFAULT_CONNECTION_OPTIONS, type ConnectionOptions } from './transport/connection.js';
import { lazyDefaultTransportFactory } from './transport/default-transport.js';
import { formatBrokerAddress, parseBrokerAddress, type BrokerAddress, type TransportFactory } from './transport/transport.js';

export interface ClusterOptions {
  /** `host:port` strings to start from (Kafka bootstrap.servers). */
  bootstrapServers: string[];
  /** client.id (default 'tributary'). */
  clientId?: string;
  /** Kafka request.timeout.ms (default 30000). */
  requestTimeoutMs?: number;
  /** Connect + ApiVersions timeout, ms (default 10000). */
  connectTimeoutMs?: number;
  /** Kafka metadata.max.age.ms (default 300000). */
  metadataMaxAgeMs?: number;
  /** Kafka retry.backoff.ms (default 100). */
  retryBackoffMs?: number;
  /** Ask the broker to create unknown topics on Metadata (producers: true, consumers/admin: false). */
  allowAutoTopicCreation?: boolean;
  /** Requests on the wire per connection (default 32). */
  maxInFlightRequests?: number;
  /** Default: TCP on Node (or the registered default transport). */
  transportFactory?: TransportFactory;
}

export interface BrokerInfo {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface PartitionInfo {
  partition: number;
  /** -1 while no leader is available. */
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
  errorCode: number;
}

export interface TopicInfo {
  name: string;
  isInternal: boolean;
  /** Sorted by partition id. */
  partitions: PartitionInfo[];
}

/** Purposes that get separate connections to the same broker. */
export type ConnectionPurpose = 'default' | 'coordinator' | 'fetch';

/** Coordinator kinds of FindCoordinator (KeyType). */
export const CoordinatorType = { GROUP: 0, TRANSACTION: 1 } as const;

const RETRIABLE_METADATA_ERRORS = new Set<number>([ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);

export class Cluster {
  readonly options: Required<Omit<ClusterOptions, 'transportFactory'>>;
  private readonly connectionOptions: ConnectionOptions;
  private readonly bootstrap: BrokerAddress[];
  private readonly connections = new Map<string, Connection>();
  private readonly brokerMap = new Map<number, BrokerInfo>();
  private readonly topicMap = new Map<string, TopicInfo>();
  /** Metadata objects whose every partition has a leader (see cachedTopic). */
  private readonly completeTopics = new WeakSet<TopicInfo>();
  /** Topics whose last metadata answer was an error, with that error code. */
  private readonly topicErrors = new Map<string, number>();
  private readonly coordinators = new Map<string, number>();
  /** Metadata requests in flight by topic set, so concurrent callers share one. */
  private readonly refreshing = new Map<string, Promise<MetadataResponse>>();
  private lastRefreshMs = 0;
  private closed = false;
  clusterId: string | null = null;
  controllerId = -1;

  /** @throws RangeError for a malformed bootstrap server or an empty list */
  constructor(options: ClusterOptions) {
    if (options.bootstrapServers.length === 0) throw new RangeError('bootstrapServers is empty: give at least one host:port');
    this.bootstrap = options.bootstrapServers.map(parseBrokerAddress);
    this.options = {
      bootstrapServers: options.bootstrapServers,
      clientId: options.clientId ?? DEFAULT_CONNECTION_OPTIONS.clientId,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_CONNECTION_OPTIONS.requestTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECTION_OPTIONS.connectTimeoutMs,
      metadataMaxAgeMs: options.metadataMaxAgeMs ?? 300_000,
      retryBackoffMs: options.retryBackoffMs ?? 100,
      allowAutoTopicCreation: options.allowAutoTopicCreation ?? false,
      maxInFlightRequests: options.maxInFlightRequests ?? DEFAULT_CONNECTION_OPTIONS.maxInFlightRequests,
    };
    this.connectionOptions = {
      clientId: this.options.clientId,
      requestTimeoutMs: this.options.requestTimeoutMs,
      connectTimeoutMs: this.options.connectTimeoutMs,
      maxInFlightRequests: this.options.maxInFlightRequests,
      maxFrameBytes: DEFAULT_CONNECTION_OPTIONS.maxFrameBytes,
      transportFactory: options.transportFactory ?? lazyDefaultTransportFactory(),
    };
  }

  /** Brokers from the last metadata answer, by node id. */
  get brokers(): ReadonlyMap<number, BrokerInfo> {
    return this.brokerMap;
  }

  /** Topics known from metadata answers. */
  get topics(): ReadonlyMap<string, TopicInfo> {
    return this.topicMap;
  }

  /**
   * Connects to a bootstrap server and loads the broker list (Metadata with no topics).
   * @throws ConnectionError when no bootstrap server answers within the request timeout
   */
  async connect(): Promise<void> {
    // One pass over the bootstrap servers first, so an unreachable cluster fails fast.
    await this.anyConnection();
    await this.refreshMetadata([]);
  }

  /**
   * Fetches metadata for `topics` (null = every topic) and merges it into the cache. Concurrent
   * calls for the same work share one request. Topics missing from an all-topics answer are dropped.
   * @throws ConnectionError when no broker can be reached
   */
  refreshMetadata(topics: string[] | null = null): Promise<MetadataResponse> {
    if (this.closed) return Promise.reject(new ClientClosedError());
    const key = topics === null ? '\u0000all' : [...new Set(topics)].sort().join('\u0000');
    let pending = this.refreshing.get(key);
    if (pending === undefined) {
      pending = this.fetchMetadata(topics).finally(() => this.refreshing.delete(key));
      this.refreshing.set(key, pending);
    }
    return pending;
  }

  private async fetchMetadata(topics: string[] | null): Promise<MetadataResponse> {
    const response = await retry(async () => {
      const connection = await this.anyConnection();
      return connection.request(ApiKey.Metadata, {
        topics: topics === null ? null : topics.map((name) => ({ name })),
        allowAutoTopicCreation: this.options.allowAutoTopicCreation,
      });
    }, { timeoutMs: this.options.requestTimeoutMs, retryBackoffMs: this.options.retryBackoffMs, what: 'Metadata' });
    this.applyMetadata(response, topics);
    return response;
  }

  private applyMetadata(response: MetadataResponse, requested: string[] | null): void {
    this.lastRefreshMs = Date.now();
    if (response.brokers.length > 0) {
      this.brokerMap.clear();
      for (const broker of response.brokers) {
        this.brokerMap.set(broker.nodeId, { nodeId: broker.nodeId, host: broker.host, port: broker.port, rack: broker.rack });
      }
    }
    this.clusterId = response.clusterId;
    this.controllerId = response.controllerId;
    if (requested === null) {
      const names = new Set(response.topics.map((topic) => topic.name));
      for (const name of [...this.topicMap.keys()]) if (!names.has(name)) this.topicMap.delete(name);
    }
    for (const topic of response.topics) {
      if (topic.errorCode !== ErrorCode.NONE) {
        this.topicErrors.set(topic.name, topic.errorCode);
        if (topic.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) this.topicMap.delete(topic.name);
        continue;
      }
      this.topicErrors.delete(topic.name);
      this.topicMap.set(topic.name, {
        name: topic.name,
        isInternal: topic.isInternal,
        partitions: topic.partitions
          .map((p) => ({
            partition: p.partitionIndex,
            leader: p.leaderId,
            leaderEpoch: p.leaderEpoch,
            replicas: p.replicaNodes,
            isr: p.isrNodes,
            offlineReplicas: p.offlineReplicas,
            errorCode: p.errorCode,
          }))
          .sort((a, b) => a.partition - b.partition),
      });
    }
  }

  /** The error code of the last metadata answer for `topic` (NONE when it was fine or never asked). */
  topicError(topic: string): number {
    return this.topicErrors.get(topic) ?? ErrorCode.NONE;
  }

  /**
   * Metadata for `topics`, refreshing when any is unknown, has a partition without a leader, or
   * the cache is older than metadata.max.age.ms. Retries LEADER_NOT_AVAILABLE /
   * UNKNOWN_TOPIC_OR_PARTITION (a topic being created) until `timeoutMs`.
   * @param awaitCreation the topics were just created: UNKNOWN_TOPIC_OR_PARTITION from a broker
   *   whose metadata has not caught up with the controller yet is retried too
   * @throws KafkaError UNKNOWN_TOPIC_OR_PARTITION (3) when a topic does not exist (and is not auto-created)
   */
  async topicMetadata(topics: string[], timeoutMs = this.options.requestTimeoutMs, awaitCreation = false): Promise<TopicInfo[]> {
    const ready = (): boolean => topics.every((name) => {
      const info = this.topicMap.get(name);
      return info !== undefined && info.partitions.length > 0 && info.partitions.every((p) => p.leader >= 0);
    });
    if (ready() && Date.now() - this.lastRefreshMs < this.options.metadataMaxAgeMs) return topics.map((name) => this.topicMap.get(name)!);
    return retry(async () => {
      await this.refreshMetadata(topics);
      for (const name of topics) {
        const error = this.topicErrors.get(name);
        if (error !== undefined) throw new KafkaError(error, `Metadata for topic "${name}"`);
      }
      if (!ready()) throw new KafkaError(ErrorCode.LEADER_NOT_AVAILABLE, `Metadata for ${topics.join(', ')}`);
      return topics.map((name) => this.topicMap.get(name)!);
    }, {
      timeoutMs,
      retryBackoffMs: this.options.retryBackoffMs,
      what: `Metadata for ${topics.join(', ')}`,
      shouldRetry: (error) => error instanceof KafkaError
        ? RETRIABLE_METADATA_ERRORS.has(error.errorCode) && (error.errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || this.options.allowAutoTopicCreation || awaitCreation)
        : error instanceof ConnectionError,
    });
  }

  /**
   * The cached metadata of a topic when it is fresh (younger than metadata.max.age.ms) and every
   * partition has a leader; undefined otherwise (call topicMetadata). A synchronous fast path.
   */
  cachedTopic(topic: string): TopicInfo | undefined {
    if (Date.now() - this.lastRefreshMs >= this.options.metadataMaxAgeMs) return undefined;
    const info = this.topicMap.get(topic);
    if (info === undefined) return undefined;
    // Checked once per metadata object (they are replaced on refresh, never changed): this runs per record.
    if (!this.completeTopics.has(info)) {
      if (info.partitions.length === 0 || info.partitions.some((p) => p.leader < 0)) return undefined;
      this.completeTopics.add(info);
    }
    return info;
  }

  /** Cached partition count of a topic, or undefined when unknown. */
  partitionCount(topic: string): number | undefined {
    return this.topicMap.get(topic)?.partitions.length;
  }

  /** Cached leader of a partition (-1 unknown). */
  leaderFor(topic: string, partition: number): number {
    return this.topicMap.get(topic)?.partitions[partition]?.leader ?? -1;
  }

  /** Marks the cache stale so the next topicMetadata() asks the broker (after NOT_LEADER & co). */
  invalidate(): void {
    this.lastRefreshMs = 0;
  }

  /**
   * The connection for `purpose` to broker `nodeId`, connected and negotiated.
   * @throws ConnectionError (unknown node id or unreachable broker)
   */
  async connectionTo(nodeId: number, purpose: ConnectionPurpose = 'default'): Promise<Connection> {
    this.assertOpen();
    const broker = this.brokerMap.get(nodeId);
    if (broker === undefined) throw new ConnectionError(`broker ${nodeId} is not in the cluster metadata`);
    return this.open(`${purpose}:${nodeId}`, { host: broker.host, port: broker.port });
  }

  /**
   * A connection to any broker: an already-open one if possible, else the known brokers, else the
   * bootstrap servers, in order. @throws ConnectionError when none can be reached
   */
  async anyConnection(): Promise<Connection> {
    this.assertOpen();
    // Never a fetch connection: a long-polling Fetch would hold the request up.
    for (const [key, connection] of this.connections) {
      if (connection.isReady && !key.startsWith('fetch:')) return connection;
    }
    const candidates: [string, BrokerAddress][] = [
      ...[...this.brokerMap.values()].map((b): [string, BrokerAddress] => [`default:${b.nodeId}`, { host: b.host, port: b.port }]),
      ...this.bootstrap.map((address): [string, BrokerAddress] => [`bootstrap:${formatBrokerAddress(address)}`, address]),
    ];
    const failures: string[] = [];
    for (const [key, address] of candidates) {
      try {
        return await this.open(key, address);
      } catch (error) {
        failures.push(`${formatBrokerAddress(address)}: ${(error as Error).message}`);
      }
    }
    throw new ConnectionError(`no broker reachable (${failures.join('; ')})`);
  }

  /** Connection to the controller (CreateTopics, DeleteTopics, CreatePartitions). */
  async controllerConnection(): Promise<Connection> {
    if (this.controllerId < 0 || !this.brokerMap.has(this.controllerId)) await this.refreshMetadata([]);
    if (this.controllerId < 0) return this.anyConnection();
    return this.connectionTo(this.controllerId);
  }

  /**
   * The coordinator of a group (or transactional id), found with FindCoordinator and cached.
   * Retries COORDINATOR_NOT_AVAILABLE / COORDINATOR_LOAD_IN_PROGRESS until the request timeout.
   * @returns the coordinator's node id and a dedicated 'coordinator' connection to it
   */
  async coordinator(key: string, type: number = CoordinatorType.GROUP): Promise<{ nodeId: number; connection: Connection }> {
    const cacheKey = `${type}:${key}`;
    const known = this.coordinators.get(cacheKey);
    if (known !== undefined && this.brokerMap.has(known)) {
      return { nodeId: known, connection: await this.connectionTo(known, 'coordinator') };
    }
    const nodeId = await retry(async () => {
      const connection = await this.anyConnection();
      const response = await connection.request(ApiKey.FindCoordinator, { key, keyType: type });
      if (response.errorCode !== ErrorCode.NONE) throw new KafkaError(response.errorCode, `FindCoordinator "${key}"`, response.errorMessage);
      if (!this.brokerMap.has(response.nodeId) || this.brokerMap.get(response.nodeId)!.port !== response.port) {
        this.brokerMap.set(response.nodeId, { nodeId: response.nodeId, host: response.host, port: response.port, rack: null });
      }
      return response.nodeId;
    }, { timeoutMs: this.options.requestTimeoutMs, retryBackoffMs: this.options.retryBackoffMs, what: `FindCoordinator "${key}"` });
    this.coordinators.set(cacheKey, nodeId);
    return { nodeId, connection: await this.connectionTo(nodeId, 'coordinator') };
  }

  /** Forgets a cached coordinator (after NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or a lost connection). */
  forgetCoordinator(key: string, type: number = CoordinatorType.GROUP): void {
    this.coordinators.delete(`${type}:${key}`);
  }

  private async open(key: string, address: BrokerAddress): Promise<Connection> {
    let connection = this.connections.get(key);
    if (connection === undefined || connection.isClosed) {
      connection = new Connection(address, this.connectionOptions);
      const created = connection;
      this.connections.set(key, created);
      created.onClose(() => {
        if (this.connections.get(key) === created) this.connections.delete(key);
      });
    }
    await connection.connect();
    return connection;
  }

  private assertOpen(): void {
    if (this.closed) throw new ClientClosedError();
  }

  /** Closes every connection. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((connection) => connection.close()));
  }
}
