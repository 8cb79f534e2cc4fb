/**
 * The consumer: group membership with `subscribe()` (classic protocol, client-side assignors) or
 * manual `assign()`; `poll()`, an async iterator, and `run({ eachMessage | eachBatch })` on top;
 * auto-commit every auto.commit.interval.ms; commitSync / commitAsync; seek, pause / resume;
 * auto.offset.reset; isolation.level; rebalance listeners; a `close()` that commits and leaves.
 * Semantics and defaults follow Kafka's Java consumer 3.x (poll-driven: rebalances, auto-commits
 * and position initialisation happen inside poll; heartbeats run in the background).
 *
 * ```ts
 * const consumer = new Consumer({ bootstrapServers: ['127.0.0.1:9092'], groupId: 'billing' });
 * consumer.subscribe(['orders']);
 * for await (const record of consumer) console.log(record.offset, record.value?.toString());
 * ```
 *
 * Delivery: positions move when poll hands records out; auto-commit commits those positions on a
 * later poll, on rebalance and on close — at-least-once for code that finishes a record before
 * asking for the next one.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { listPartitionOffsets } from './admin.js';
import { Cluster } from './cluster.js';
import { BUILT_IN_ASSIGNORS, type Assignor } from './consumer/assignors.js';
import { CommitFailedError, ConsumerCoordinator, type OffsetToCommit } from './consumer/consumer-coordinator.js';
import type { TopicPartitions } from './consumer/consumer-protocol.js';
import { Fetcher, partitionKey, type FetchedRecord, type TopicPartition } from './consumer/fetcher.js';
import { ClientClosedError, KafkaError, TransactionStateError } from './errors.js';
import type { TransportFactory } from './transport/transport.js';

export type { TopicPartition } from './consumer/fetcher.js';
export { CommitFailedError } from './consumer/consumer-coordinator.js';

/** Turns fetched key/value bytes into K / V (null stays null unless the deserializer says otherwise). */
export type Deserializer<T> = (data: Buffer | null, topic: string) => T;

export interface ConsumerRecord<K = Buffer | null, V = Buffer | null> {
  topic: string;
  partition: number;
  offset: number;
  /** ms since epoch. */
  timestamp: number;
  /** 0 CreateTime, 1 LogAppendTime. */
  timestampType: number;
  key: K;
  value: V;
  headers: { key: string; value: Buffer | null }[];
  leaderEpoch: number;
}

export interface RebalanceListener {
  /** Before a rebalance takes partitions away (after the auto-commit of their positions). */
  onPartitionsRevoked?(partitions: TopicPartition[]): Promise<void> | void;
  /** After the group assigned partitions (before their positions are initialised). */
  onPartitionsAssigned?(partitions: TopicPartition[]): Promise<void> | void;
}

export type AssignorName = 'range' | 'roundrobin' | 'sticky' | 'cooperative-sticky';

export interface ConsumerOptions<K = Buffer | null, V = Buffer | null> {
  bootstrapServers: string[];
  clientId?: string;
  transportFactory?: TransportFactory;
  /** group.id: needed for subscribe() and commits. */
  groupId?: string;
  /** group.instance.id (static membership). */
  groupInstanceId?: string;
  /** session.timeout.ms (default 45000). */
  sessionTimeoutMs?: number;
  /** heartbeat.interval.ms (default 3000). */
  heartbeatIntervalMs?: number;
  /** max.poll.interval.ms, the rebalance timeout (default 300000). */
  maxPollIntervalMs?: number;
  /** auto.offset.reset: where to start without a committed offset (default latest). */
  autoOffsetReset?: 'earliest' | 'latest' | 'none';
  /** enable.auto.commit (default true when groupId is set). */
  enableAutoCommit?: boolean;
  /** auto.commit.interval.ms (default 5000). */
  autoCommitIntervalMs?: number;
  /** fetch.min.bytes (default 1). */
  fetchMinBytes?: number;
  /** fetch.max.bytes (default 52428800). */
  fetchMaxBytes?: number;
  /** fetch.max.wait.ms (default 500). */
  fetchMaxWaitMs?: number;
  /** max.partition.fetch.bytes (default 1048576). */
  maxPartitionFetchBytes?: number;
  /** max.poll.records (default 500). */
  maxPollRecords?: number;
  /** isolation.level (default read_uncommitted). */
  isolationLevel?: 'read_uncommitted' | 'read_committed';
  /**
   * partition.assignment.strategy, in preference order (default range, roundrobin). When every
   * assignor is cooperative (cooperative-sticky), rebalances are incremental (KIP-429).
   */
  partitionAssignors?: (AssignorName | Assignor)[];
  /** check.crcs (default true). */
  checkCrcs?: boolean;
  /** client.rack. */
  rackId?: string;
  /** request.timeout.ms (default 30000). */
  requestTimeoutMs?: number;
  /** Connect + ApiVersions timeout per broker connection, ms (default 10000). */
  connectTimeoutMs?: number;
  /**
   * metadata.max.age.ms (default 300000): also how often the group leader checks the subscribed
   * topics for new partitions (a change rebalances the group).
   */
  metadataMaxAgeMs?: number;
  /** retry.backoff.ms (default 100). */
  retryBackoffMs?: number;
  /** default.api.timeout.ms: bound on commitSync, committed, offset lookups (default 60000). */
  defaultApiTimeoutMs?: number;
  keyDeserializer?: Deserializer<K>;
  valueDeserializer?: Deserializer<V>;
}

export interface EachMessagePayload<K, V> {
  topic: string;
  partition: number;
  message: ConsumerRecord<K, V>;
}

export interface EachBatchPayload<K, V> {
  topic: string;
  partition: number;
  messages: ConsumerRecord<K, V>[];
  highWatermark: number;
}

export interface RunOptions<K, V> {
  eachMessage?(payload: EachMessagePayload<K, V>): Promise<void> | void;
  eachBatch?(payload: EachBatchPayload<K, V>): Promise<void> | void;
  /** poll timeout per round, ms (default 1000). */
  pollTimeoutMs?: number;
}

export class Consumer<K = Buffer | null, V = Buffer | null> {
  readonly cluster: Cluster;
  private readonly fetcher: Fetcher;
  private readonly coordinator: ConsumerCoordinator | null;
  private readonly options: ConsumerOptions<K, V>;
  private readonly autoCommit: boolean;
  private readonly autoCommitIntervalMs: number;
  private readonly defaultApiTimeoutMs: number;
  private readonly maxPollRecords: number;
  private readonly metadataMaxAgeMs: number;
  private nextMetadataCheckMs = 0;
  /** Incremental (KIP-429) rebalances instead of revoke-everything ones. */
  private readonly cooperative: boolean;
  private subscribedTopics: string[] | null = null;
  private listener: RebalanceListener = {};
  private joined = false;
  private nextAutoCommitMs = 0;
  /** Offsets last committed, to skip commits that change nothing. */
  private readonly lastCommitted = new Map<string, number>();
  private state: 'open' | 'closing' | 'closed' = 'open';
  /** The active run() loop, awaited by close(). */
  private runLoop: Promise<void> | null = null;
  /** run() loops and async iterators in progress (stop() ends them). */
  private loops = 0;
  private stopRequested = false;
  private closing: Promise<void> | null = null;

  /** @throws RangeError for invalid options */
  constructor(options: ConsumerOptions<K, V>) {
    this.options = options;
    const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    const retryBackoffMs = options.retryBackoffMs ?? 100;
    this.cluster = new Cluster({
      bootstrapServers: options.bootstrapServers,
      clientId: options.clientId ?? 'tributary-consumer',
      requestTimeoutMs,
      retryBackoffMs,
      allowAutoTopicCreation: false,
      ...(options.metadataMaxAgeMs === undefined ? {} : { metadataMaxAgeMs: options.metadataMaxAgeMs }),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.transportFactory === undefined ? {} : { transportFactory: options.transportFactory }),
    });
    this.fetcher = new Fetcher(this.cluster, {
      minBytes: options.fetchMinBytes ?? 1,
      maxBytes: options.fetchMaxBytes ?? 52_428_800,
      maxWaitMs: options.fetchMaxWaitMs ?? 500,
      partitionMaxBytes: options.maxPartitionFetchBytes ?? 1_048_576,
      isolationLevel: options.isolationLevel === 'read_committed' ? 1 : 0,
      checkCrcs: options.checkCrcs ?? true,
      rackId: options.rackId ?? '',
    });
    const assignors = (options.partitionAssignors ?? ['range', 'roundrobin']).map((a) => {
      if (typeof a !== 'string') return a;
      const assignor = BUILT_IN_ASSIGNORS[a];
      if (assignor === undefined) throw new RangeError(`unknown assignor "${a}": use range, roundrobin, sticky or cooperative-sticky`);
      return assignor;
    });
    if (assignors.length === 0) throw new RangeError('partitionAssignors is empty');
    // Java's rule: the incremental protocol only when every configured assignor supports it.
    this.cooperative = assignors.every((a) => a.rebalanceProtocol === 'COOPERATIVE');
    this.coordinator = options.groupId === undefined ? null : new ConsumerCoordinator(this.cluster, {
      groupId: options.groupId,
      groupInstanceId: options.groupInstanceId ?? null,
      sessionTimeoutMs: options.sessionTimeoutMs ?? 45_000,
      rebalanceTimeoutMs: options.maxPollIntervalMs ?? 300_000,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 3_000,
      retryBackoffMs,
      assignors,
      rackId: options.rackId ?? null,
    });
    if (this.coordinator !== null) this.coordinator.onRejoinNeeded = () => this.fetcher.wake();
    if (options.enableAutoCommit === true && options.groupId === undefined) throw new RangeError('enableAutoCommit needs a groupId');
    this.autoCommit = options.enableAutoCommit ?? options.groupId !== undefined;
    this.autoCommitIntervalMs = options.autoCommitIntervalMs ?? 5_000;
    this.defaultApiTimeoutMs = options.defaultApiTimeoutMs ?? 60_000;
    this.maxPollRecords = options.maxPollRecords ?? 500;
    this.metadataMaxAgeMs = options.metadataMaxAgeMs ?? 300_000;
  }

  /** Connects to the cluster (optional: poll() connects on demand). @throws ConnectionError */
  async connect(): Promise<void> {
    await this.cluster.connect();
  }

  /** The member id in the group ('' before joining). */
  get memberId(): string {
    return this.coordinator?.memberId ?? '';
  }

  /** The group generation (-1 before joining). */
  get generationId(): number {
    return this.coordinator?.generationId ?? -1;
  }

  /** For sendOffsetsToTransaction (Kafka's groupMetadata(); KIP-447 fences zombies by it). @throws TransactionStateError without groupId */
  groupMetadata(): { groupId: string; generationId: number; memberId: string; groupInstanceId: string | null } {
    if (this.options.groupId === undefined) throw new TransactionStateError('groupMetadata() needs a consumer with a groupId');
    return { groupId: this.options.groupId, generationId: this.generationId, memberId: this.memberId, groupInstanceId: this.options.groupInstanceId ?? null };
  }

  private assertOpen(): void {
    if (this.state !== 'open') throw new ClientClosedError('the consumer is closed');
  }

  private requireGroup(what: string): ConsumerCoordinator {
    if (this.coordinator === null) throw new RangeError(`${what} needs a groupId`);
    return this.coordinator;
  }

  /**
   * Subscribes to topics as a member of the group (joined at the next poll). Replaces any earlier
   * subscription; a changed subscription rebalances the group.
   * @throws RangeError without a groupId or after assign()
   */
  subscribe(topics: string[] | { topics: string[]; listener?: RebalanceListener }): void {
    this.assertOpen();
    const coordinator = this.requireGroup('subscribe()');
    const list = Array.isArray(topics) ? topics : topics.topics;
    if (!Array.isArray(topics) && topics.listener !== undefined) this.listener = topics.listener;
    if (list.length === 0) throw new RangeError('subscribe() needs at least one topic (use unsubscribe() to stop)');
    if (this.subscribedTopics === null && this.fetcher.assignment().length > 0) throw new RangeError('subscribe() after assign(): call unsubscribe() first');
    const sorted = [...new Set(list)].sort();
    const changed = this.subscribedTopics === null || sorted.join('\u0000') !== this.subscribedTopics.join('\u0000');
    this.subscribedTopics = sorted;
    if (changed && this.joined) coordinator.requestRejoin();
  }

  /** Topics subscribed to ([] when not subscribed). */
  subscription(): string[] {
    return [...(this.subscribedTopics ?? [])];
  }

  /** Leaves the group (after committing when auto-commit is on) and drops every partition. */
  async unsubscribe(): Promise<void> {
    await this.revokeAll();
    if (this.coordinator !== null && this.joined) await this.coordinator.leaveGroup();
    this.joined = false;
    this.subscribedTopics = null;
    this.fetcher.setAssignment([]);
  }

  /**
   * Reads exactly these partitions, without group membership (commits, when a groupId is set,
   * are made as a simple consumer). @throws RangeError when subscribed
   */
  assign(partitions: TopicPartition[]): void {
    this.assertOpen();
    if (this.subscribedTopics !== null) throw new RangeError('assign() while subscribed: call unsubscribe() first');
    this.fetcher.setAssignment(partitions);
  }

  /** The partitions currently assigned (by the group or by assign()). */
  assignment(): TopicPartition[] {
    return this.fetcher.assignment();
  }

  /**
   * Fetches records: joins / rebalances the group when needed, initialises positions (committed
   * offset, else auto.offset.reset), auto-commits when due, then returns buffered records or waits
   * up to `timeoutMs` for some. Returns [] on timeout.
   * @throws KafkaError (e.g. OFFSET_OUT_OF_RANGE with auto.offset.reset=none), ClientClosedError
   */
  async poll(timeoutMs = 1000): Promise<ConsumerRecord<K, V>[]> {
    this.assertOpen();
    const deadline = Date.now() + timeoutMs;
    this.coordinator?.notePoll();
    for (;;) {
      if (this.state !== 'open' || (this.stopRequested && this.loops > 0)) return [];
      if (this.subscribedTopics !== null) await this.maybeCheckGroupMetadata();
      if (this.subscribedTopics !== null && (!this.joined || this.coordinator!.needsRejoin)) await this.rejoin();
      await this.maybeAutoCommit();
      await this.updatePositions();
      const error = this.fetcher.takeError();
      if (error !== undefined) throw error;
      const fetched = this.fetcher.drain(this.maxPollRecords);
      if (fetched.length > 0) {
        // Prefetch the next round while the caller works on this one.
        this.fetcher.sendFetches();
        if (this.options.keyDeserializer === undefined && this.options.valueDeserializer === undefined) return fetched as unknown as ConsumerRecord<K, V>[];
        return fetched.map((r) => this.deserialize(r));
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return [];
      this.fetcher.sendFetches();
      await this.fetcher.waitForData(remaining);
    }
  }

  private deserialize(record: FetchedRecord): ConsumerRecord<K, V> {
    if (this.options.keyDeserializer === undefined && this.options.valueDeserializer === undefined) {
      return record as unknown as ConsumerRecord<K, V>;
    }
    const key = this.options.keyDeserializer ? this.options.keyDeserializer(record.key, record.topic) : (record.key as K);
    const value = this.options.valueDeserializer ? this.options.valueDeserializer(record.value, record.topic) : (record.value as V);
    return {
      topic: record.topic, partition: record.partition, offset: record.offset, timestamp: record.timestamp,
      timestampType: record.timestampType, key, value, headers: record.headers, leaderEpoch: record.leaderEpoch,
    };
  }

  /**
   * Rejoins the group and installs the new assignment. Eager: revoke everything (commit +
   * listener) first. Cooperative: commit, keep what we own during the join, then revoke only what
   * the new assignment leaves out and rejoin at once if anything was revoked (KIP-429); partitions
   * of a generation we were fenced from count as lost and are dropped first.
   */
  private async rejoin(): Promise<void> {
    const coordinator = this.coordinator!;
    const fenced = coordinator.generationId < 0;
    if (!this.cooperative || fenced) {
      await this.revokeAll();
      // Eager members still report what they had, which the sticky assignor uses; lost ones do not.
      if (fenced) coordinator.clearOwned();
    } else {
      await this.commitBeforeRebalance();
    }
    const deadline = Date.now() + (this.options.maxPollIntervalMs ?? 300_000) + (this.options.sessionTimeoutMs ?? 45_000);
    const assigned = toList(await coordinator.joinGroup(this.subscribedTopics!, deadline));
    this.joined = true;
    const key = (tp: TopicPartition): string => partitionKey(tp.topic, tp.partition);
    const before = new Set(this.fetcher.assignment().map(key));
    const after = new Set(assigned.map(key));
    const revoked = this.fetcher.assignment().filter((tp) => !after.has(key(tp)));
    const added = assigned.filter((tp) => !before.has(key(tp)));
    if (revoked.length > 0) await this.listener.onPartitionsRevoked?.(revoked);
    this.fetcher.setAssignment(assigned);
    for (const tp of revoked) this.lastCommitted.delete(key(tp));
    await this.listener.onPartitionsAssigned?.(this.cooperative ? added : assigned);
    // Partitions we gave up can only go to their new owner in a follow-up rebalance.
    if (this.cooperative && revoked.length > 0) coordinator.requestRejoin();
  }

  /**
   * The group leader refreshes the metadata of every subscribed topic each metadata.max.age.ms
   * and rebalances when partition counts changed or a topic appeared or vanished.
   */
  private async maybeCheckGroupMetadata(): Promise<void> {
    const coordinator = this.coordinator!;
    if (!this.joined || !coordinator.isLeader || Date.now() < this.nextMetadataCheckMs) return;
    this.nextMetadataCheckMs = Date.now() + this.metadataMaxAgeMs;
    const topics = coordinator.snapshotTopics;
    if (topics.length === 0) return;
    try {
      const response = await this.cluster.refreshMetadata(topics);
      const current = new Map<string, number>();
      for (const topic of response.topics) if (topic.errorCode === ErrorCode.NONE) current.set(topic.name, topic.partitions.length);
      coordinator.checkAssignmentSnapshot(current);
    } catch {
      // Unreachable metadata is retried at the next interval; fetching goes on meanwhile.
    }
  }

  private async commitBeforeRebalance(): Promise<void> {
    if (!this.autoCommit) return;
    try {
      await this.commitConsumed();
    } catch (error) {
      // A commit the rebalance made stale is expected here; the next owner re-reads those records.
      if (!(error instanceof CommitFailedError)) throw error;
    }
  }

  private async revokeAll(): Promise<void> {
    if (!this.joined || this.fetcher.assignment().length === 0) return;
    await this.commitBeforeRebalance();
    await this.listener.onPartitionsRevoked?.(this.fetcher.assignment());
    this.fetcher.setAssignment([]);
    this.lastCommitted.clear();
  }

  private async maybeAutoCommit(): Promise<void> {
    if (!this.autoCommit || Date.now() < this.nextAutoCommitMs) return;
    this.nextAutoCommitMs = Date.now() + this.autoCommitIntervalMs;
    try {
      await this.commitConsumed();
    } catch {
      // Java logs a failed auto-commit and tries again at the next interval.
    }
  }

  /** Initialises positions from committed offsets, then the reset policy. */
  private async updatePositions(): Promise<void> {
    const missing = this.fetcher.partitionsNeedingPosition();
    if (missing.length > 0 && this.coordinator !== null) {
      const committed = await this.coordinator.fetchCommittedOffsets(toMap(missing), Date.now() + this.defaultApiTimeoutMs);
      for (const { topic, partition } of missing) {
        const offset = committed.get(partitionKey(topic, partition))?.offset ?? -1;
        if (offset >= 0 && this.fetcher.isAssigned(topic, partition)) {
          this.fetcher.seek(topic, partition, offset);
          this.lastCommitted.set(partitionKey(topic, partition), offset);
        }
      }
    }
    const toReset = [...this.fetcher.partitionsNeedingPosition(), ...this.fetcher.partitionsNeedingReset()];
    if (toReset.length === 0) return;
    const policy = this.options.autoOffsetReset ?? 'latest';
    if (policy === 'none') {
      const tp = toReset[0]!;
      throw new KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE, `no valid offset for ${tp.topic}-${tp.partition} and auto.offset.reset is none`);
    }
    await this.seekToSpec(toReset, policy === 'earliest' ? -2 : -1);
  }

  /** ListOffsets for partitions (timestamp -2 earliest, -1 latest, else ms) and seeks there. */
  private async seekToSpec(partitions: TopicPartition[], timestamp: number): Promise<void> {
    const isolation = this.options.isolationLevel === 'read_committed' ? 1 : 0;
    for (const [topic, list] of Object.entries(toMap(partitions))) {
      const offsets = await listPartitionOffsets(this.cluster, topic, list, timestamp, isolation);
      const latest = timestamp >= 0 && offsets.some((o) => o.offset < 0)
        ? await listPartitionOffsets(this.cluster, topic, list, -1, isolation) : [];
      for (const o of offsets) {
        if (!this.fetcher.isAssigned(topic, o.partition)) continue;
        // No record at or after the timestamp: start at the end, as Java's offsetsForTimes users do.
        const offset = o.offset >= 0 ? o.offset : latest.find((l) => l.partition === o.partition)?.offset ?? 0;
        this.fetcher.seek(topic, o.partition, offset);
      }
    }
  }

  /** Next offset to read of an assigned partition (initialising it if needed). */
  async position(partition: TopicPartition): Promise<number> {
    if (this.fetcher.position(partition.topic, partition.partition) === null) await this.updatePositions();
    return this.fetcher.position(partition.topic, partition.partition)!;
  }

  /** Sets the next offset to read. @throws RangeError when the partition is not assigned */
  seek(partition: TopicPartition, offset: number): void {
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`offset must be an integer >= 0, got ${offset}`);
    this.fetcher.seek(partition.topic, partition.partition, offset);
  }

  /** Moves to the log start of partitions (default: all assigned). */
  async seekToBeginning(partitions: TopicPartition[] = this.assignment()): Promise<void> {
    await this.seekToSpec(partitions, -2);
  }

  /** Moves to the end (high watermark / last stable offset) of partitions (default: all assigned). */
  async seekToEnd(partitions: TopicPartition[] = this.assignment()): Promise<void> {
    await this.seekToSpec(partitions, -1);
  }

  /** Moves to the first record with timestamp >= `timestampMs` (the end when none). */
  async seekToTimestamp(timestampMs: number, partitions: TopicPartition[] = this.assignment()): Promise<void> {
    await this.seekToSpec(partitions, timestampMs);
  }

  /** Stops fetching from partitions (records already fetched are kept for resume). */
  pause(partitions: TopicPartition[]): void {
    for (const p of partitions) this.fetcher.setPaused(p.topic, p.partition, true);
  }

  resume(partitions: TopicPartition[]): void {
    for (const p of partitions) this.fetcher.setPaused(p.topic, p.partition, false);
  }

  paused(): TopicPartition[] {
    return this.fetcher.pausedPartitions();
  }

  /** High watermark and lag of an assigned partition from the last fetch (-1 unknown). */
  lag(partition: TopicPartition): { highWatermark: number; lag: number } {
    return this.fetcher.lag(partition.topic, partition.partition);
  }

  /** Committed offsets of partitions (-1 when none). @throws RangeError without a groupId */
  async committed(partitions: TopicPartition[]): Promise<{ topic: string; partition: number; offset: number }[]> {
    const coordinator = this.requireGroup('committed()');
    const committed = await coordinator.fetchCommittedOffsets(toMap(partitions), Date.now() + this.defaultApiTimeoutMs);
    return partitions.map(({ topic, partition }) => ({ topic, partition, offset: committed.get(partitionKey(topic, partition))?.offset ?? -1 }));
  }

  /**
   * Commits offsets and waits for the answer. Default: the positions of every assigned partition
   * (everything handed out by poll).
   * @throws CommitFailedError after a rebalance, KafkaError, KafkaTimeoutError (default.api.timeout.ms)
   */
  async commitSync(offsets?: OffsetToCommit[]): Promise<void> {
    const coordinator = this.requireGroup('commitSync()');
    const toCommit = offsets ?? this.fetcher.positions();
    await coordinator.commitOffsets(toCommit, Date.now() + this.defaultApiTimeoutMs, this.subscribedTopics !== null);
    for (const o of toCommit) this.lastCommitted.set(partitionKey(o.topic, o.partition), o.offset);
  }

  /**
   * Commits without the caller waiting (the promise is there for those who want it; failures go
   * to the callback and never become unhandled rejections).
   */
  commitAsync(offsets?: OffsetToCommit[], callback?: (error: Error | null, offsets: OffsetToCommit[]) => void): Promise<void> {
    const toCommit = offsets ?? this.fetcher.positions();
    const done = this.commitSync(toCommit).then(
      () => callback?.(null, toCommit),
      (error: Error) => {
        callback?.(error, toCommit);
        if (callback === undefined) throw error;
      },
    );
    done.catch(() => undefined);
    return done;
  }

  /** Commits positions that moved since the last commit. */
  private async commitConsumed(): Promise<void> {
    if (this.coordinator === null) return;
    const changed = this.fetcher.positions().filter((p) => this.lastCommitted.get(partitionKey(p.topic, p.partition)) !== p.offset);
    if (changed.length === 0) return;
    await this.commitSync(changed);
  }

  /**
   * Yields records one by one until close() or stop(). Leaving the loop early (break, return,
   * throw) rewinds the partitions to the first record not yet yielded, so nothing is skipped.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<ConsumerRecord<K, V>> {
    this.loops++;
    this.stopRequested = false;
    let pending: ConsumerRecord<K, V>[] = [];
    try {
      while (this.state === 'open' && !this.stopRequested) {
        pending = await this.pollOrClosed(1000);
        while (pending.length > 0) {
          const record = pending.shift()!;
          yield record;
        }
      }
    } finally {
      this.loops--;
      this.rewindUnprocessed(pending);
    }
  }

  /** poll(), but [] instead of ClientClosedError when close() raced it. */
  private async pollOrClosed(timeoutMs: number): Promise<ConsumerRecord<K, V>[]> {
    try {
      return await this.poll(timeoutMs);
    } catch (error) {
      if (error instanceof ClientClosedError && this.state !== 'open') return [];
      throw error;
    }
  }

  /** Seeks each partition back to its first record in `records` (handed out but not processed). */
  private rewindUnprocessed(records: ConsumerRecord<K, V>[]): void {
    const first = new Map<string, ConsumerRecord<K, V>>();
    for (const record of records) {
      const key = partitionKey(record.topic, record.partition);
      if (!first.has(key)) first.set(key, record);
    }
    for (const record of first.values()) this.rewind(record.topic, record.partition, record.offset);
  }

  /**
   * Polls in a loop and hands records to `eachMessage` (one at a time, in order per partition) or
   * `eachBatch` (per partition), until stop() or close(); close() waits for the record or batch
   * in hand. When a handler throws, its partition is sought back to the first unprocessed record
   * (so nothing is skipped) and run() rejects with that error.
   */
  run(options: RunOptions<K, V>): Promise<void> {
    if (options.eachMessage === undefined && options.eachBatch === undefined) return Promise.reject(new RangeError('run() needs eachMessage or eachBatch'));
    if (this.runLoop !== null) return Promise.reject(new RangeError('run() is already running'));
    this.stopRequested = false;
    this.loops++;
    this.runLoop = this.runRounds(options).finally(() => {
      this.loops--;
      this.runLoop = null;
    });
    return this.runLoop;
  }

  private async runRounds(options: RunOptions<K, V>): Promise<void> {
    while (this.state === 'open' && !this.stopRequested) {
      const records = await this.pollOrClosed(options.pollTimeoutMs ?? 1000);
      const byPartition = new Map<string, ConsumerRecord<K, V>[]>();
      for (const record of records) {
        const key = partitionKey(record.topic, record.partition);
        const list = byPartition.get(key);
        if (list === undefined) byPartition.set(key, [record]);
        else list.push(record);
      }
      const lists = [...byPartition.values()];
      for (let i = 0; i < lists.length; i++) {
        const list = lists[i]!;
        const { topic, partition } = list[0]!;
        if (this.stopRequested) {
          this.rewindUnprocessed(lists.slice(i).flat());
          return;
        }
        if (options.eachBatch !== undefined) {
          try {
            const highWatermark = this.fetcher.isAssigned(topic, partition) ? this.lag({ topic, partition }).highWatermark : -1;
            await options.eachBatch({ topic, partition, messages: list, highWatermark });
          } catch (error) {
            this.rewindUnprocessed(lists.slice(i).flat());
            throw error;
          }
          continue;
        }
        for (let j = 0; j < list.length; j++) {
          const message = list[j]!;
          if (this.stopRequested) {
            this.rewindUnprocessed([...list.slice(j), ...lists.slice(i + 1).flat()]);
            return;
          }
          try {
            await options.eachMessage!({ topic, partition, message });
          } catch (error) {
            this.rewindUnprocessed([...list.slice(j), ...lists.slice(i + 1).flat()]);
            throw error;
          }
        }
      }
    }
  }

  private rewind(topic: string, partition: number, offset: number): void {
    if (this.fetcher.isAssigned(topic, partition)) this.fetcher.seek(topic, partition, offset);
  }

  /** Makes run() and the async iterator return after the current record/batch. */
  stop(): void {
    this.stopRequested = true;
    this.fetcher.wake();
  }

  /**
   * Commits consumed positions (auto-commit on), leaves the group, and closes connections.
   * Idempotent. Commit failures do not prevent the close (they are reported via the rejection
   * only when nothing else went wrong).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopRequested = true;
      this.fetcher.close();
      this.fetcher.wake();
      // Let run() finish the record or batch in hand so its position is what gets committed.
      if (this.runLoop !== null) await this.runLoop.catch(() => undefined);
      let failure: unknown;
      try {
        if (this.autoCommit && this.joined) await this.commitConsumed();
        else if (this.autoCommit && this.subscribedTopics === null && this.coordinator !== null) await this.commitConsumed();
      } catch (error) {
        if (!(error instanceof CommitFailedError)) failure = error;
      }
      this.state = 'closing';
      if (this.coordinator !== null) {
        if (this.joined) await this.coordinator.leaveGroup();
        this.coordinator.close();
      }
      this.state = 'closed';
      await this.cluster.close();
      if (failure !== undefined) throw failure;
    })();
    return this.closing;
  }
}

function toMap(partitions: TopicPartition[]): TopicPartitions {
  const map: TopicPartitions = {};
  for (const { topic, partition } of partitions) (map[topic] ??= []).push(partition);
  return map;
}

function toList(partitions: TopicPartitions): TopicPartition[] {
  return Object.entries(partitions).flatMap(([topic, list]) => list.map((partition) => ({ topic, partition })))
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}
