/**
 * Kafka's ReplicaManager: the partitions this broker holds, the Produce path into their logs and
 * the Fetch path out of them, with the purgatories that make acks=all produces and long-poll
 * fetches wait.
 *
 * Produce (`appendRecords`): per partition, in request order: unknown → UNKNOWN_TOPIC_OR_PARTITION
 * (3); internal topic from a client → INVALID_TOPIC_EXCEPTION (17); else
 * Partition.appendRecordsToLeader. acks must be -1, 0 or 1 (else INVALID_REQUIRED_ACKS, 21, for
 * every partition, nothing written). acks=-1 waits in a DelayedProduce until the high watermark
 * covers the append (immediately on a single node). Version rules (one batch per partition for
 * Produce v3+, magic) are the Produce handler's. A leader whose metadata may be stale
 * (`isMetadataCurrent`) answers a sequence gap NOT_LEADER_OR_FOLLOWER (6), not 45: see appendToPartition.
 *
 * Fetch (`fetchMessages`): reads partitions in request order, each up to
 * min(partitionMaxBytes, what is left of maxBytes); with `minOneMessage` (Fetch v3+) the first
 * partition that has data returns at least one whole batch even past those limits (KIP-74).
 * Consumers read up to the high watermark (read_uncommitted) or the last stable offset
 * (read_committed; = HW without transactions). The response goes out at once when maxWaitMs <= 0,
 * when at least minBytes were read, or when any partition had an error; otherwise a DelayedFetch
 * waits for appends or maxWaitMs.
 *
 * Everything is synchronous except the returned promises; state changes happen on the caller's
 * turn of the event loop.
 */
import type { AppendOrigin, ProducerStateManager } from '../log/producer-state-manager.js';
import { appendTxnMarkers, type TxnMarkerEntry, type TxnMarkerResult } from './txn-markers.js';
import { fetchReadBuffers, type ReadBuffers } from '../log/read-buffer-pool.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { SystemTime } from '../io/time.js';
import type { Time } from '../io/environment.js';
import { DelayedFetch, type FetchWakeEvent } from './delayed-fetch.js';
import { pendingFlushOf } from '../log/group-flush.js';
import { DelayedProduce, type ProduceAcksPending } from './delayed-produce.js';
import type { LeaderEpochFileCache } from '../log/leader-epoch-file-cache.js';
import type { AlterPartitionSink } from './alter-partition-sink.js';
import {
  DEFAULT_REPLICA_LAG_TIME_MAX_MS,
  type IsrCommittedEvent,
  Partition,
  partitionKey,
  type PartitionOptions,
  type PartitionReadResult,
} from './partition.js';
import type { PartitionLog } from './partition-log.js';
import { LocalLogRead, type LocalLogReadContext, readError } from './local-log-read.js';
import { inSlices, type RequestSlicing } from './request-slicing.js';
import { DEFAULT_MAX_DELAYED_OPERATIONS, Purgatory } from './purgatory.js';
import type { FetchParams, FetchPartitionResult, ProduceParams, ProducePartitionData, ProducePartitionResult } from './replication-types.js';

export type {
  FetchParams,
  FetchPartitionRequest,
  FetchPartitionResult,
  ProduceParams,
  ProducePartitionData,
  ProducePartitionResult,
} from './replication-types.js';

/** How long WriteTxnMarkers waits for the ISR by default (Kafka: request.timeout.ms). */
export const DEFAULT_TXN_MARKER_TIMEOUT_MS = 30_000;

/** Topics clients may not produce to (Kafka's Topic.isInternal). */
export const INTERNAL_TOPICS: ReadonlySet<string> = new Set(['__consumer_offsets', '__transaction_state']);

/** Logger subset (pino-compatible). */
export interface ReplicationLogger {
  error(fields: object, message: string): void;
}

export interface ReplicaManagerOptions<L extends PartitionLog = PartitionLog> {
  localBrokerId: number;
  /** The purgatories' timers (an Environment's `time`); default a {@link SystemTime}. */
  scheduler?: Pick<Time, 'monotonicMs' | 'setTimeout' | 'clearTimeout'> & Partial<Pick<Time, 'nowMs'>>;
  /** Bound on waiting long-poll fetches; beyond it fetches answer at once. */
  maxDelayedFetches?: number;
  /** Bound on waiting acks=all produces; beyond it they answer with what the ISR has. */
  maxDelayedProduces?: number;
  logger?: ReplicationLogger;
  /**
   * Where fetches read records into: default the broker's pool (fetchReadBuffers), whose buffers
   * the TCP connection gives back after writing them (read-buffer-pool.ts).
   */
  readBuffers?: ReadBuffers;
  /**
   * Opens a partition's `leader-epoch-checkpoint` (the broker: LeaderEpochFileCache.open on the
   * log's directory) when a Partition is created for a log; default none: epochs kept in memory.
   * A disk failure opening or repairing it takes the log's directory offline (when the log can)
   * and the partition keeps its epochs in memory (every log call answers 56 then anyway).
   */
  openLeaderEpochCache?: (log: L) => LeaderEpochFileCache;
  /**
   * Where partition leaders propose ISR changes (the broker's AlterPartitionManager). Without
   * one (a single node) the ISR is what the metadata says, as before replication.
   */
  alterPartitionSink?: AlterPartitionSink;
  /** replica.lag.time.max.ms (default 30000): see Partition.maybeShrinkIsr. */
  replicaLagTimeMaxMs?: number;
  /** See PartitionOptions.isReplicaIsrEligible (the broker: from its metadata cache). */
  isReplicaIsrEligible?: (brokerId: number) => boolean;
  /** See PartitionOptions.brokerEpochOf (the broker: from its metadata cache). */
  brokerEpochOf?: (brokerId: number) => number;
  /**
   * Whether this broker's metadata is current (the broker: in touch with the controller quorum and
   * caught up, metadata-currency.ts); default always. See appendToPartition for its one use.
   */
  isMetadataCurrent?: () => boolean;
  /**
   * request.max.partitions.per.turn and the event-loop turn (request-slicing.ts): a Produce or
   * Fetch naming more partitions is worked through in slices, one per turn; appends stay in call
   * order (an append that arrives meanwhile waits for the sliced one). Absent: one turn each.
   */
  requestSlicing?: RequestSlicing;
}

/** `L` is the log type of the partitions (UnifiedLog in the broker; fakes in tests). */
export class ReplicaManager<L extends PartitionLog = PartitionLog> {
  readonly localBrokerId: number;
  private readonly partitions = new Map<string, Map<number, Partition<L>>>();
  private readonly fetchPurgatory: Purgatory<DelayedFetch, FetchWakeEvent>;
  private readonly producePurgatory: Purgatory<DelayedProduce, void>;
  private readonly logger: ReplicationLogger | undefined;
  private readonly readBuffers: ReadBuffers;
  private readonly time: Pick<Time, 'monotonicMs'>;
  /** Marker timestamps: the scheduler's wall clock when it has one (an Environment's time). */
  private readonly wallClock: Pick<Time, 'nowMs'>;
  private shuttingDown = false;

  /** Method syntax: bivariant in L, so a ReplicaManager<UnifiedLog> is still a ReplicaManager<PartitionLog>. */
  private readonly epochCaches: { open(log: L): LeaderEpochFileCache } | undefined;
  private readonly alterPartitionSink: AlterPartitionSink | undefined;
  private readonly replicaLagTimeMaxMs: number;
  private readonly isReplicaIsrEligible: ((brokerId: number) => boolean) | undefined;
  private readonly brokerEpochOf: ((brokerId: number) => number) | undefined;
  private readonly isMetadataCurrent: () => boolean;
  private readonly requestSlicing: RequestSlicing | undefined;
  /** What a LocalLogRead needs of this ReplicaManager. */
  private readonly localLogReadContext: LocalLogReadContext<L>;
  /** The last append in the FIFO of sliced appends and those queued behind them; null when it is empty. */
  private slicedAppends: Promise<void> | null = null;
  private pendingSlicedAppends = 0;

  constructor(options: ReplicaManagerOptions<L>) {
    this.localBrokerId = options.localBrokerId;
    const scheduler = options.scheduler ?? new SystemTime();
    this.time = scheduler;
    this.wallClock = scheduler.nowMs === undefined ? new SystemTime() : { nowMs: () => scheduler.nowMs!() };
    this.fetchPurgatory = new Purgatory('Fetch', scheduler, options.maxDelayedFetches ?? DEFAULT_MAX_DELAYED_OPERATIONS);
    this.producePurgatory = new Purgatory('Produce', scheduler, options.maxDelayedProduces ?? DEFAULT_MAX_DELAYED_OPERATIONS);
    this.logger = options.logger;
    this.readBuffers = options.readBuffers ?? fetchReadBuffers;
    const open = options.openLeaderEpochCache;
    this.epochCaches = open === undefined ? undefined : { open: (log) => open(log) };
    this.alterPartitionSink = options.alterPartitionSink;
    this.replicaLagTimeMaxMs = options.replicaLagTimeMaxMs ?? DEFAULT_REPLICA_LAG_TIME_MAX_MS;
    this.isReplicaIsrEligible = options.isReplicaIsrEligible;
    this.brokerEpochOf = options.brokerEpochOf;
    this.isMetadataCurrent = options.isMetadataCurrent ?? (() => true);
    this.requestSlicing = options.requestSlicing;
    this.localLogReadContext = {
      getPartition: (topic, partition) => this.getPartition(topic, partition),
      readBuffers: this.readBuffers,
      errorCodeFor: (error, topic, partition, operation) => this.errorCodeFor(error, topic, partition, operation),
      onHighWatermarkAdvanced: (partition) => this.onHighWatermarkMaybeAdvanced(partition.topic, partition.partition, partition.lastHighWatermarkAdvanceBytes),
    };
  }

  /** Long-poll fetches waiting now. */
  get delayedFetchCount(): number {
    return this.fetchPurgatory.delayed;
  }

  /** acks=all produces waiting now. */
  get delayedProduceCount(): number {
    return this.producePurgatory.delayed;
  }

  /**
   * Makes this broker the leader of `topic`-`partition` over `log` (a new partition, a newer
   * epoch for an existing one, or a follower promoted). Returns the Partition; when the state is
   * stale (Partition.makeLeader refused it) the partition is left as it was: compare its
   * leaderEpoch / partitionEpoch with the ones passed to tell. Without `isr` a new partition
   * starts with ISR [self] and an existing one keeps its ISR.
   * Called by the BrokerMetadataPublisher for every partition whose metadata names this broker
   * leader (a ReplicaFetcher for the partition must be stopped by the caller).
   */
  becomeLeader(options: {
    topic: string;
    partition: number;
    log: L;
    leaderEpoch: number;
    partitionEpoch?: number;
    replicas?: readonly number[];
    isr?: readonly number[];
    /** The topic's id: needed (with an AlterPartitionSink) for ISR proposals. */
    topicId?: string;
    /** See PartitionOptions.producerState: only for logs that do not deduplicate themselves. */
    producerState?: ProducerStateManager;
  }): Partition<L> {
    const existing = this.getPartition(options.topic, options.partition);
    if (existing !== undefined && existing.log === options.log) {
      const highWatermarkBefore = existing.highWatermark;
      existing.makeLeader(options);
      // A smaller ISR (the controller fenced a follower) may move the HW: answer what it completes.
      if (existing.highWatermark > highWatermarkBefore) {
        this.onHighWatermarkMaybeAdvanced(options.topic, options.partition, existing.lastHighWatermarkAdvanceBytes);
      }
      return existing;
    }
    return this.addPartition(this.createPartition(options));
  }

  /**
   * Makes this broker a follower of `leaderId` for `topic`-`partition` over `log` (a new
   * partition, a newer epoch, or a leader demoted). Returns the Partition; a stale state changes
   * nothing (compare the partition's leaderEpoch / partitionEpoch with the ones passed).
   * A leader demoted here answers its waiting acks=all produces NOT_LEADER_OR_FOLLOWER (6) and its
   * waiting fetches at once; from now on Produce and consumer Fetch to it answer
   * NOT_LEADER_OR_FOLLOWER.
   * Called by the BrokerMetadataPublisher for every partition whose metadata names another
   * broker leader and this one a replica; the caller then (re)starts the partition's
   * ReplicaFetcher towards `leaderId` (which truncates, appends with
   * Partition.appendRecordsAsFollower and takes the leader's high watermark with
   * Partition.updateFollowerHighWatermark).
   */
  becomeFollower(options: {
    topic: string;
    partition: number;
    log: L;
    leaderId: number;
    leaderEpoch: number;
    partitionEpoch: number;
    replicas: readonly number[];
    isr: readonly number[];
    topicId?: string;
    /** See PartitionOptions.producerState. */
    producerState?: ProducerStateManager;
  }): Partition<L> {
    const existing = this.getPartition(options.topic, options.partition);
    if (existing !== undefined && existing.log === options.log) {
      const wasLeader = existing.isLeader;
      if (existing.makeFollower(options) && wasLeader) this.completeDelayedRequests(existing.key);
      return existing;
    }
    const partition = this.addPartition(this.createPartition(options));
    // A replaced partition (a new log) may have had waiting operations.
    this.completeDelayedRequests(partition.key);
    return partition;
  }

  /** Every partition's onIsrCommitted: one function for all, not a closure per partition (96 bytes each, issue 15). */
  private readonly isrCommitted = (event: IsrCommittedEvent): void =>
    this.onHighWatermarkMaybeAdvanced(event.topic, event.partition, event.lastHighWatermarkAdvanceBytes);

  /** A Partition over `options.log` with its leader epoch checkpoint (see openLeaderEpochCache). */
  private createPartition(options: Omit<PartitionOptions<L>, 'localBrokerId'>): Partition<L> {
    const base = {
      ...options,
      localBrokerId: this.localBrokerId,
      logger: this.logger,
      time: this.time,
      ...(this.alterPartitionSink === undefined ? {} : { alterPartitionSink: this.alterPartitionSink }),
      replicaLagTimeMaxMs: this.replicaLagTimeMaxMs,
      ...(this.isReplicaIsrEligible === undefined ? {} : { isReplicaIsrEligible: this.isReplicaIsrEligible }),
      ...(this.brokerEpochOf === undefined ? {} : { brokerEpochOf: this.brokerEpochOf }),
      onIsrCommitted: this.isrCommitted,
    };
    if (this.epochCaches === undefined) return new Partition<L>(base);
    try {
      return new Partition<L>({ ...base, leaderEpochCache: this.epochCaches.open(options.log) });
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name !== 'DiskError') throw error;
      (options.log as { storageFailure?(error: unknown): number }).storageFailure?.(error);
      this.logger?.error({ topic: options.topic, partition: options.partition, err: error }, 'leader-epoch-checkpoint unusable: log directory offline');
      return new Partition<L>(base);
    }
  }

  private addPartition(partition: Partition<L>): Partition<L> {
    let byIndex = this.partitions.get(partition.topic);
    if (byIndex === undefined) {
      byIndex = new Map();
      this.partitions.set(partition.topic, byIndex);
    }
    byIndex.set(partition.partition, partition);
    return partition;
  }

  /** Lets waiting produces and fetches of a partition that lost leadership answer now. */
  private completeDelayedRequests(key: string): void {
    this.producePurgatory.checkAndComplete(key);
    this.fetchPurgatory.checkAndComplete(key);
  }

  /** Stops leading a partition (topic deleted); waiting fetches and produces on it answer now. */
  removePartition(topic: string, partition: number): boolean {
    const byIndex = this.partitions.get(topic);
    if (byIndex === undefined || !byIndex.delete(partition)) return false;
    if (byIndex.size === 0) this.partitions.delete(topic);
    const key = partitionKey(topic, partition);
    this.fetchPurgatory.completeAll(key);
    this.producePurgatory.completeAll(key);
    return true;
  }

  getPartition(topic: string, partition: number): Partition<L> | undefined {
    return this.partitions.get(topic)?.get(partition);
  }

  /** Partitions of a topic (index order), empty when unknown. */
  partitionsOf(topic: string): Partition<L>[] {
    const byIndex = this.partitions.get(topic);
    if (byIndex === undefined) return [];
    return [...byIndex.values()].sort((a, b) => a.partition - b.partition);
  }

  allPartitions(): Partition<L>[] {
    const all: Partition<L>[] = [];
    for (const byIndex of this.partitions.values()) all.push(...byIndex.values());
    return all;
  }

  /**
   * Every partition, one at a time, without a list of them all: for a reader that walks them
   * over several event-loop turns (`/metrics`). As Map iteration goes, a partition added before
   * the walk reaches its place is visited and one removed before it is reached is not.
   */
  *eachPartition(): Generator<Partition<L>> {
    for (const byIndex of this.partitions.values()) yield* byIndex.values();
  }

  /**
   * Appends a Produce request's partitions; resolves with one result per entry, in entry order.
   * For acks=0 the caller sends no response but still awaits (or ignores) the result.
   * Partitions whose log flushes per append (flush.messages reached: group-flush.ts) are answered
   * after the event-loop turn's group fsync; a failed fsync answers KAFKA_STORAGE_ERROR (56) for
   * them, never an ack.
   */
  appendRecords(params: ProduceParams): Promise<ProducePartitionResult[]> {
    const { requiredAcks } = params;
    if (requiredAcks !== -1 && requiredAcks !== 0 && requiredAcks !== 1) {
      return Promise.resolve(
        params.entries.map((e) => produceError(e, ErrorCode.INVALID_REQUIRED_ACKS, `acks must be -1, 0 or 1, got ${requiredAcks}`)),
      );
    }
    const slicing = this.requestSlicing;
    if (slicing !== undefined && (this.slicedAppends !== null || params.entries.length > slicing.maxPartitionsPerTurn)) {
      return this.appendAfterSlices(params, slicing);
    }
    const append = this.produceAppend(params);
    append.appendThrough(params.entries.length);
    return append.answer();
  }

  /**
   * A Produce appended in slices (request-slicing.ts), or one arriving while such a one is under
   * way: appends run in call order through one FIFO, so a producer's pipelined requests reach
   * each partition in the order sent (its sequence numbers), as in one turn each. The FIFO waits
   * for the appends only, never for acks=all.
   */
  private appendAfterSlices(params: ProduceParams, slicing: RequestSlicing): Promise<ProducePartitionResult[]> {
    this.pendingSlicedAppends++;
    const appended = (this.slicedAppends ?? Promise.resolve()).then(async () => {
      const append = this.produceAppend(params);
      await inSlices(params.entries.length, slicing, (end) => append.appendThrough(end));
      // Wrapped: the FIFO must not wait for the answer (acks=all waits for followers).
      return { answer: append.answer() };
    });
    this.slicedAppends = appended.then(() => undefined, () => undefined).then(() => {
      if (--this.pendingSlicedAppends === 0) this.slicedAppends = null;
    });
    return appended.then(({ answer }) => answer);
  }

  /** One Produce's appends, entry by entry in order up to `end` (exclusive), then its answer. */
  private produceAppend(params: ProduceParams): { appendThrough(end: number): void; answer(): Promise<ProducePartitionResult[]> } {
    const { requiredAcks } = params;
    // The broker's own writes (internal topics allowed) are the coordinators' (Kafka's AppendOrigin.COORDINATOR).
    const origin = params.origin ?? (params.internalTopicsAllowed === true ? 'coordinator' : 'client');
    const results: ProducePartitionResult[] = [];
    const waiting: ProduceAcksPending[] = [];
    let flushes: { index: number; flush: Promise<number> }[] | undefined;
    return {
      appendThrough: (end) => {
        for (let index = results.length; index < end; index++) {
          const entry = params.entries[index]!;
          const result = this.appendToPartition(entry, requiredAcks, params.internalTopicsAllowed ?? false, origin);
          results.push(result);
          if (result.errorCode !== ErrorCode.NONE) continue;
          // Also a retried duplicate: its original may be in the same unflushed turn.
          const flush = this.pendingFlushFor(entry);
          if (flush !== null) (flushes ??= []).push({ index, flush });
          else if (result.appendedBytes > 0) this.onLeaderAppended(entry.topic, entry.partition, result);
          // A retried duplicate waits too: its original records must be covered by the HW.
          if (requiredAcks === -1 && result.lastOffset >= 0) {
            waiting.push({ topic: entry.topic, partition: entry.partition, requiredOffset: result.lastOffset + 1, result });
          }
        }
      },
      answer: () => (flushes !== undefined ? this.answerAfterGroupFlush(params, results, waiting, flushes) : this.answerProduce(params.timeoutMs, results, waiting)),
    };
  }

  /**
   * Waits for the group flushes the appends need, turns a failed one into KAFKA_STORAGE_ERROR (56)
   * for its partitions (the log already took its directory offline), wakes fetches and acks=all
   * produces for the now visible records, then answers as usual.
   */
  private async answerAfterGroupFlush(
    params: ProduceParams,
    results: ProducePartitionResult[],
    waiting: ProduceAcksPending[],
    flushes: readonly { index: number; flush: Promise<number> }[],
  ): Promise<ProducePartitionResult[]> {
    const codes = await Promise.all(flushes.map((f) => f.flush));
    let failed: Set<ProducePartitionResult> | undefined;
    for (let i = 0; i < flushes.length; i++) {
      const { index } = flushes[i]!;
      const entry = params.entries[index]!;
      const result = results[index]!;
      if (codes[i] !== ErrorCode.NONE) {
        (failed ??= new Set()).add(result);
        results[index] = produceError(entry, ErrorCode.KAFKA_STORAGE_ERROR, null);
      } else if (result.appendedBytes > 0) {
        this.onLeaderAppended(entry.topic, entry.partition, result);
      }
    }
    const stillWaiting = failed === undefined ? waiting : waiting.filter((w) => !failed.has(w.result));
    return this.answerProduce(params.timeoutMs, results, stillWaiting);
  }

  /** The group flush `entry`'s partition log waits for, or null (group-flush.ts). */
  private pendingFlushFor(entry: ProducePartitionData): Promise<number> | null {
    const partition = this.getPartition(entry.topic, entry.partition);
    return partition === undefined ? null : pendingFlushOf(partition.log);
  }

  /** Answers now, or once acks=all is satisfied (DelayedProduce). */
  private answerProduce(timeoutMs: number, results: ProducePartitionResult[], waiting: ProduceAcksPending[]): Promise<ProducePartitionResult[]> {
    if (waiting.length === 0) return Promise.resolve(results);
    // The common single-node case: the append already moved the high watermark past every
    // waiting offset, so DelayedProduce's first tryComplete would answer at once. Answer here the
    // same way (same checks, same error codes) without the operation, its keys and a Promise executor.
    if (this.allAcksReached(waiting)) return Promise.resolve(results);
    return new Promise((resolve) => {
      const delayed = new DelayedProduce(timeoutMs, waiting, results, (t, p) => this.getPartition(t, p), resolve);
      this.producePurgatory.tryCompleteElseWatch(delayed, delayed.keys);
    });
  }

  /**
   * WriteTxnMarkers (in-process entry point of the transaction coordinator, and API 27's): appends
   * each marker's COMMIT/ABORT control batch to its partitions and resolves once replicated
   * (acks=all); one result per marker, never rejects. Contract and error codes: txn-markers.ts.
   */
  appendTxnMarkers(markers: readonly TxnMarkerEntry[], timeoutMs = DEFAULT_TXN_MARKER_TIMEOUT_MS): Promise<TxnMarkerResult[]> {
    return appendTxnMarkers((params) => this.appendRecords(params), markers, timeoutMs, this.wallClock.nowMs());
  }

  /** Answers a Fetch now or after a long poll; one result per requested partition, in order. */
  fetchMessages(params: FetchParams): Promise<FetchPartitionResult[]> {
    const read = this.readLocalLogs(params, true);
    return Array.isArray(read) ? this.answerFetch(params, read) : read.then((results) => this.answerFetch(params, results));
  }

  /**
   * readFromLocalLog, in slices of request.max.partitions.per.turn partitions across event-loop
   * turns when the Fetch names more (request-slicing.ts): the first read and a long poll's last.
   */
  private readLocalLogs(params: FetchParams, updateFetchState: boolean): FetchPartitionResult[] | Promise<FetchPartitionResult[]> {
    const slicing = this.requestSlicing;
    if (slicing === undefined || params.partitions.length <= slicing.maxPartitionsPerTurn) return this.readFromLocalLog(params, updateFetchState);
    const read = new LocalLogRead(this.localLogReadContext, params, updateFetchState);
    return inSlices(params.partitions.length, slicing, (end) => read.readThrough(end)).then(() => read.finish());
  }

  /** Answers a Fetch from its first read: now, or through a DelayedFetch (long poll). */
  private answerFetch(params: FetchParams, results: FetchPartitionResult[]): Promise<FetchPartitionResult[]> {
    let bytesReadable = 0;
    let anyError = false;
    for (const r of results) {
      bytesReadable += r.records.length;
      // A diverging epoch is answered at once too (Kafka's hasDivergingEpoch).
      if (r.errorCode !== ErrorCode.NONE || r.divergingEpoch !== undefined) anyError = true;
    }
    if (
      params.maxWaitMs <= 0 ||
      params.partitions.length === 0 ||
      bytesReadable >= params.minBytes ||
      anyError ||
      this.shuttingDown
    ) {
      return Promise.resolve(results);
    }
    // Too little to answer: the DelayedFetch reads again when it completes; nobody else holds these.
    for (const r of results) this.readBuffers.release(r.records);
    return new Promise((resolve) => {
      const delayed = new DelayedFetch(
        params,
        bytesReadable,
        (topic, partition) => this.getPartition(topic, partition)?.isLeader === true,
        (p) => this.readLocalLogs(p, false),
        resolve,
      );
      this.fetchPurgatory.tryCompleteElseWatch(delayed, delayed.keys);
    });
  }

  /**
   * Reads every requested partition once, without waiting (Kafka's readFromLocalLog).
   * Exposed for DelayedFetch and for callers that never long-poll. The records buffers come from
   * `readBuffers` (the fetch pool): a caller that is done with them may give them back; one that
   * keeps them must simply never release them.
   * A follower's fetch (`params.replicaId` >= 0) reads up to the log end and records the
   * follower's position (Partition.readRecords), unless `updateFetchState` is false (a DelayedFetch
   * reading again); a high watermark moved by it wakes what waits on the partition.
   */
  readFromLocalLog(params: FetchParams, updateFetchState = true): FetchPartitionResult[] {
    const read = new LocalLogRead(this.localLogReadContext, params, updateFetchState);
    read.readThrough(params.partitions.length);
    return read.finish();
  }

  /**
   * Kafka's periodic ISR expiration (ReplicaManager.maybeShrinkIsr, scheduled by the broker's
   * housekeeping, Kafka every replica.lag.time.max.ms / 2): every partition this broker leads
   * proposes an ISR without its followers that lag by more than replica.lag.time.max.ms
   * (Partition.maybeShrinkIsr). Returns how many proposals were sent.
   */
  maybeShrinkIsr(): number {
    let proposed = 0;
    for (const partition of this.allPartitions()) {
      if (partition.maybeShrinkIsr()) proposed++;
    }
    return proposed;
  }

  /**
   * DeleteRecords for each (topic, partition, offset); one result per entry, in order.
   * Errors per partition: UNKNOWN_TOPIC_OR_PARTITION (3), OFFSET_OUT_OF_RANGE (1),
   * KAFKA_STORAGE_ERROR (56). Offset -1 deletes up to the high watermark. Completes at once on a
   * single node (Kafka's DelayedDeleteRecords waits for followers' log start offsets).
   */
  deleteRecords(
    entries: readonly { topic: string; partition: number; offset: number }[],
  ): { topic: string; partition: number; errorCode: number; lowWatermark: number }[] {
    return entries.map(({ topic, partition: index, offset }) => {
      const partition = this.getPartition(topic, index);
      if (partition === undefined) return { topic, partition: index, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, lowWatermark: -1 };
      try {
        return { topic, partition: index, ...partition.deleteRecordsOnLeader(offset) };
      } catch (error) {
        return { topic, partition: index, errorCode: this.errorCodeFor(error, topic, index, 'deleteRecords'), lowWatermark: -1 };
      }
    });
  }

  /**
   * OffsetForLeaderEpoch (Kafka's ReplicaManager.lastOffsetForLeaderEpoch): per entry, in order,
   * Partition.lastOffsetForLeaderEpoch; a partition not held here → UNKNOWN_TOPIC_OR_PARTITION
   * (3; the handler answers NOT_LEADER_OR_FOLLOWER, 6, when the metadata knows it); an offline
   * log directory → KAFKA_STORAGE_ERROR (56). `currentLeaderEpoch` -1 skips the epoch check.
   */
  lastOffsetForLeaderEpoch(
    entries: readonly { topic: string; partition: number; currentLeaderEpoch: number; leaderEpoch: number }[],
  ): { errorCode: number; leaderEpoch: number; endOffset: number }[] {
    return entries.map(({ topic, partition: index, currentLeaderEpoch, leaderEpoch }) => {
      const partition = this.getPartition(topic, index);
      if (partition === undefined) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, leaderEpoch: -1, endOffset: -1 };
      if ((partition.log as { isOffline?: boolean }).isOffline === true) return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, leaderEpoch: -1, endOffset: -1 };
      return partition.lastOffsetForLeaderEpoch(currentLeaderEpoch, leaderEpoch);
    });
  }

  /**
   * Wakes what waits on a partition whose high watermark may have moved (after an append, a
   * follower fetch, an ISR change): acks=all produces, and long-poll fetches with the byte count
   * newly visible to consumers.
   */
  onHighWatermarkMaybeAdvanced(topic: string, partition: number, newlyVisibleBytes: number): void {
    const key = partitionKey(topic, partition);
    this.producePurgatory.checkAndComplete(key);
    this.fetchPurgatory.checkAndComplete(key, { newlyVisibleBytes, newlyAppendedBytes: 0 });
  }

  /**
   * After a leader append of `result.appendedBytes`: followers' long polls may answer; consumers'
   * and acks=all produces only when the high watermark covers the append (at once on a single
   * node; with followers when they have copied it: readFromLocalLog).
   */
  private onLeaderAppended(topic: string, partition: number, result: ProducePartitionResult): void {
    const key = partitionKey(topic, partition);
    const visible = (this.getPartition(topic, partition)?.highWatermark ?? 0) > result.lastOffset;
    if (visible) this.producePurgatory.checkAndComplete(key);
    this.fetchPurgatory.checkAndComplete(key, { newlyVisibleBytes: visible ? result.appendedBytes : 0, newlyAppendedBytes: result.appendedBytes });
  }

  /**
   * Broker shutdown, before the logs close: answers every waiting fetch and produce now (and
   * from now on fetches never wait, so the SocketServer's graceful stop drains fast), then
   * snapshots each partition's producer state (Partition.onCleanShutdown). A failed snapshot is
   * logged and skipped (the next start replays the log tail instead). Appends still work after
   * it; their producer state is rebuilt from the log tail at the next start.
   */
  shutdown(): void {
    this.shuttingDown = true;
    this.fetchPurgatory.completeAll();
    this.producePurgatory.completeAll();
    for (const partition of this.allPartitions()) {
      try {
        partition.onCleanShutdown();
      } catch (error) {
        this.logger?.error({ topic: partition.topic, partition: partition.partition, err: error }, 'producer-state snapshot failed');
      }
    }
  }

  /**
   * True when every waiting partition's high watermark already covers its offset; then sets each
   * result's errorCode as DelayedProduce.checkWaiting would (NOT_LEADER_OR_FOLLOWER for a partition
   * gone, NOT_ENOUGH_REPLICAS_AFTER_APPEND below min.insync.replicas). Changes nothing otherwise.
   */
  private allAcksReached(waiting: readonly ProduceAcksPending[]): boolean {
    for (const w of waiting) {
      const partition = this.getPartition(w.topic, w.partition);
      if (partition !== undefined && !partition.checkEnoughReplicasReachOffset(w.requiredOffset).done) return false;
    }
    for (const w of waiting) {
      const partition = this.getPartition(w.topic, w.partition);
      w.result.errorCode = partition === undefined
        ? ErrorCode.NOT_LEADER_OR_FOLLOWER
        : partition.checkEnoughReplicasReachOffset(w.requiredOffset).errorCode;
    }
    return true;
  }

  private appendToPartition(entry: ProducePartitionData, requiredAcks: number, internalTopicsAllowed: boolean, origin: AppendOrigin): ProducePartitionResult {
    if (INTERNAL_TOPICS.has(entry.topic) && !internalTopicsAllowed) {
      return produceError(entry, ErrorCode.INVALID_TOPIC_EXCEPTION, `cannot append to internal topic ${entry.topic}`);
    }
    const partition = this.getPartition(entry.topic, entry.partition);
    if (partition === undefined) return produceError(entry, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null);
    try {
      const r = partition.appendRecordsToLeader(entry.records ?? EMPTY, requiredAcks, origin);
      // A producer ahead of this leader's sequences had batches acknowledged by another leader: a
      // broker cut off from the controller quorum (or still catching up) may lead no more, and
      // librdkafka before 2.1 (Metadata v4, no leader epochs) follows such a broker's stale
      // Metadata and takes a head-of-line 45 as fatal. NOT_LEADER_OR_FOLLOWER is retried after a
      // metadata refresh; a current leader answers 45 as Kafka does (issue 11).
      if (r.errorCode === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER && !this.isMetadataCurrent()) {
        return produceError(entry, ErrorCode.NOT_LEADER_OR_FOLLOWER,
          `broker ${this.localBrokerId} may no longer lead ${partition.key}: its metadata is not current (${r.errorMessage ?? 'sequence gap'})`);
      }
      // Fields copied by name: cheaper than an object spread on every append.
      return {
        topic: entry.topic,
        partition: entry.partition,
        errorCode: r.errorCode,
        errorMessage: r.errorMessage,
        baseOffset: r.baseOffset,
        lastOffset: r.lastOffset,
        logAppendTimeMs: r.logAppendTimeMs,
        logStartOffset: r.logStartOffset,
        appendedBytes: r.appendedBytes,
        recordErrors: r.recordErrors,
      };
    } catch (error) {
      return produceError(entry, this.errorCodeFor(error, entry.topic, entry.partition, 'append'), null);
    }
  }

  /** A throw from the log: a disk failure (KAFKA_STORAGE_ERROR, 56) or a bug (UNKNOWN_SERVER_ERROR, -1). */
  private errorCodeFor(error: unknown, topic: string, partition: number, operation: string): number {
    const isDiskError = (error as { name?: unknown } | null)?.name === 'DiskError';
    this.logger?.error({ topic, partition, operation, err: error }, isDiskError ? 'log I/O failed' : 'log operation failed (bug)');
    return isDiskError ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}

const EMPTY = new Uint8Array(0);

function produceError(entry: { topic: string; partition: number }, errorCode: number, errorMessage: string | null): ProducePartitionResult {
  return {
    topic: entry.topic,
    partition: entry.partition,
    errorCode,
    errorMessage,
    baseOffset: -1,
    lastOffset: -1,
    logAppendTimeMs: -1,
    logStartOffset: -1,
    appendedBytes: 0,
  };
}
