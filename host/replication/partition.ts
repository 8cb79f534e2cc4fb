/**
 * Kafka's Partition: one topic-partition this broker holds a replica of, as its leader or as a
 * follower, with the leader epoch, partition epoch (KIP-497), replica set, in-sync replica set
 * (ISR) and high watermark rules.
 *
 * Leader: HW = the smallest log end offset among ISR members (Kafka's maybeIncrementLeaderHW),
 * `min.insync.replicas` is checked against the ISR for acks=all, and
 * `checkEnoughReplicasReachOffset` is what DelayedProduce asks. With ISR = {self} (a single
 * node, RF 1) the high watermark equals the log end offset right after every append.
 * Follower: the log is written only by `appendRecordsAsFollower` (the leader's batches with their
 * offsets and epochs, from the ReplicaFetcher), truncated by `truncateTo` /
 * `truncateFullyAndStartAt`, and its HW follows the leader's (`updateFollowerHighWatermark`);
 * Produce and consumer Fetch answer NOT_LEADER_OR_FOLLOWER (6).
 *
 * Transitions (the controller's decisions, applied by ReplicaManager.becomeLeader/becomeFollower
 * from the BrokerMetadataPublisher), each refused (false) when its leader epoch is older than the
 * current one, or equal with an older partition epoch (Kafka's stale-state rule):
 * ```
 *            makeLeader(e' >= e)                 makeFollower(e' >= e)
 *   (new) ─────────────────────► leader(e') ◄──────────────────────► follower(e', leaderId)
 *                                   │  ▲        makeLeader(e' >= e)       │  ▲
 *                                   └──┘                                  └──┘
 *                   makeLeader (same or newer epoch: new ISR/replicas)   makeFollower
 * ```
 */
import { PartitionLeaderEpochs } from './partition-leader-epochs.js';
import { PartitionProducerState } from './partition-producer-state.js';
import type { AppendOrigin, ProducerStateEntry } from '../log/producer-state-manager.js';
import {
  type FollowerAppendResult,
  type IsrCommittedEvent,
  IsolationLevel,
  type PartitionAppendResult,
  type PartitionOptions,
  type PartitionReadOptions,
  type PartitionReadResult,
  type PartitionTransition,
} from './partition-types.js';
import { SystemTime } from '../io/time.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { LogAppendResult, PartitionLog } from './partition-log.js';
import type { AlterPartitionResult, AlterPartitionSink } from './alter-partition-sink.js';
import { PartitionIsr, type PendingIsrChange } from './partition-isr.js';
import { PendingVisibleBytes } from './pending-visible-bytes.js';
import { type ReplicaState, UNKNOWN_OFFSET } from './replica-state.js';

export {
  type FollowerAppendResult,
  type IsrCommittedEvent,
  IsolationLevel,
  type PartitionAppendResult,
  type PartitionOptions,
  type PartitionReadOptions,
  type PartitionReadResult,
  type PartitionTransition,
} from './partition-types.js';

/**
 * `L` is the log type the broker uses (UnifiedLog), so handlers reach its full API
 * (fetchOffsetByTimestamp for ListOffsets, ...) through `partition.log`.
 */
export class Partition<L extends PartitionLog = PartitionLog> {
  readonly topic: string;
  readonly partition: number;
  readonly log: L;
  readonly localBrokerId: number;
  private leaderIdValue: number;
  private leaderEpochValue: number;
  private partitionEpochValue: number;
  private replicasValue: readonly number[];
  /** Committed and maximal ISR, pending proposal, followers' states. */
  private readonly isrState: PartitionIsr;
  private readonly producers: PartitionProducerState;
  private readonly logger: { error(fields: object, message: string): void } | undefined;
  private readonly time: { monotonicMs(): number };
  private readonly alterPartitionSink: AlterPartitionSink | null;
  private readonly replicaLagTimeMaxMs: number;
  private readonly isReplicaIsrEligible: (brokerId: number) => boolean;
  private readonly brokerEpochOf: (brokerId: number) => number;
  private readonly onIsrCommitted: ((partition: IsrCommittedEvent) => void) | undefined;
  private topicIdValue: string | null;
  /** Bytes of leader appends above the high watermark (wake-ups of consumers' long polls). */
  private readonly pendingVisibleBytes = new PendingVisibleBytes();
  private lastHighWatermarkAdvanceBytesValue = 0;
  /** The log end offset when this broker became leader in its current epoch; -1 on a follower. */
  private leaderEpochStartOffsetValue = UNKNOWN_OFFSET;
  /** Which leader epoch wrote which offsets (leader-epoch-checkpoint). */
  private readonly epochs: PartitionLeaderEpochs;

  constructor(options: PartitionOptions<L>) {
    assert(options.log.topic === options.topic && options.log.partition === options.partition, 'log matches partition');
    assert(options.leaderEpoch >= 0, 'leaderEpoch >= 0');
    this.topic = options.topic;
    this.partition = options.partition;
    this.log = options.log;
    this.localBrokerId = options.localBrokerId;
    this.leaderIdValue = options.leaderId ?? options.localBrokerId;
    this.leaderEpochValue = options.leaderEpoch;
    this.partitionEpochValue = options.partitionEpoch ?? 0;
    this.replicasValue = options.replicas ?? [options.localBrokerId];
    const leads = this.leaderIdValue === this.localBrokerId;
    this.isrState = new PartitionIsr(options.localBrokerId, options.isr ?? (leads ? [options.localBrokerId] : this.replicasValue));
    this.alterPartitionSink = options.alterPartitionSink ?? null;
    this.replicaLagTimeMaxMs = options.replicaLagTimeMaxMs ?? DEFAULT_REPLICA_LAG_TIME_MAX_MS;
    this.isReplicaIsrEligible = options.isReplicaIsrEligible ?? (() => true);
    this.brokerEpochOf = options.brokerEpochOf ?? (() => -1);
    this.onIsrCommitted = options.onIsrCommitted;
    this.topicIdValue = options.topicId ?? null;
    this.logger = options.logger;
    this.time = options.time ?? new SystemTime();
    if (options.leaderEpochCache === undefined) {
      this.epochs = PartitionLeaderEpochs.inMemory(this.log);
    } else {
      this.epochs = new PartitionLeaderEpochs(this.log, options.leaderEpochCache);
      this.epochs.repair();
    }
    this.producers = new PartitionProducerState(options.producerState ?? null, this.log, this.logger);
    if (leads) {
      this.startLeaderEpoch(true);
      this.maybeIncrementLeaderHighWatermark();
    }
  }

  /** `topic-partition`, the purgatory key and Kafka's TopicPartition.toString. */
  get key(): string {
    return partitionKey(this.topic, this.partition);
  }

  get leaderEpoch(): number {
    return this.leaderEpochValue;
  }

  /** The leader's broker id (this broker's when {@link isLeader}). */
  get leaderId(): number {
    return this.leaderIdValue;
  }

  get isLeader(): boolean {
    return this.leaderIdValue === this.localBrokerId;
  }

  /** KIP-497 partition epoch: the version of the leader/ISR/replicas state this replica knows. */
  get partitionEpoch(): number {
    return this.partitionEpochValue;
  }

  get replicas(): readonly number[] {
    return this.replicasValue;
  }

  /** The topic id (32 hex digits) from the metadata, null when not told. */
  get topicId(): string | null {
    return this.topicIdValue;
  }

  /** The ISR proposal sent to the controller and not answered yet, if any. */
  get pendingIsrChange(): PendingIsrChange | null {
    return this.isrState.pending;
  }

  /** Bytes made visible to consumers by the last high watermark move (for DelayedFetch). */
  get lastHighWatermarkAdvanceBytes(): number {
    return this.lastHighWatermarkAdvanceBytesValue;
  }

  /** The log end offset when this broker became leader in its current epoch (Kafka's leaderEpochStartOffsetOpt); -1 on a follower. */
  get leaderEpochStartOffset(): number {
    return this.leaderEpochStartOffsetValue;
  }

  /** The leader's view of follower `brokerId` (log end offset, last caught-up time); undefined on a follower. */
  followerState(brokerId: number): Readonly<ReplicaState> | undefined {
    return this.isrState.remoteReplicas.get(brokerId);
  }

  /** In-sync replica ids (committed), leader first. */
  get isr(): number[] {
    const leaderId = this.leaderIdValue;
    return [...this.isrState.isr].sort((a, b) => (a === leaderId ? -1 : b === leaderId ? 1 : a - b));
  }

  /** How many replicas the committed ISR holds ({@link isr}'s length, without its sorted copy). */
  get isrSize(): number {
    return this.isrState.isr.size;
  }

  get highWatermark(): number {
    return this.log.highWatermark;
  }

  get logEndOffset(): number {
    return this.log.logEndOffset;
  }

  get logStartOffset(): number {
    return this.log.logStartOffset;
  }

  /** LSO: below the first open (or not yet replicated) transaction; the high watermark while none is open. */
  get lastStableOffset(): number {
    return this.producers.lastStableOffset();
  }

  /**
   * Kafka's makeLeader: this broker leads from now on with `state`'s epochs, replicas and ISR
   * (controller decision, through ReplicaManager.becomeLeader). Returns false, changing nothing,
   * for a stale state: a leader epoch older than the current one, or the same leader epoch with
   * an older partition epoch.
   */
  makeLeader(state: PartitionTransition): boolean {
    if (this.isStale(state)) return false;
    this.applyTransition(this.localBrokerId, state);
    this.maybeIncrementLeaderHighWatermark();
    return true;
  }

  /**
   * Kafka's makeFollower: `leaderId` leads from now on; this replica only copies it (through
   * ReplicaManager.becomeFollower; the ReplicaFetcher then fetches from `leaderId`). Returns false,
   * changing nothing, for a stale state (as {@link makeLeader}). The log is left as it is: the
   * fetcher truncates a divergent tail (OffsetForLeaderEpoch / Fetch's diverging epoch) before
   * appending.
   */
  makeFollower(state: PartitionTransition & { leaderId: number }): boolean {
    assert(state.leaderId !== this.localBrokerId, 'makeFollower names another broker as leader');
    if (this.isStale(state)) return false;
    this.applyTransition(state.leaderId, state);
    return true;
  }

  /**
   * Appends a Produce request's records for this partition as leader.
   * NOT_LEADER_OR_FOLLOWER (6) on a follower. requiredAcks -1 refuses with NOT_ENOUGH_REPLICAS
   * (19) before writing when the ISR is smaller
   * than min.insync.replicas (Kafka checks this only for acks=all). Other errors come from the
   * log (CORRUPT_MESSAGE, INVALID_RECORD, MESSAGE_TOO_LARGE, sequence, epoch and transaction
   * errors, storage errors). `origin` 'coordinator' for the broker's own writes (markers).
   */
  appendRecordsToLeader(records: Uint8Array, requiredAcks: number, origin: AppendOrigin = 'client'): PartitionAppendResult {
    if (this.leaderIdValue !== this.localBrokerId) {
      return appendError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${this.localBrokerId} is not the leader of ${this.key}`);
    }
    const minInsyncReplicas = this.log.config.minInsyncReplicas;
    const inSyncReplicas = this.isrState.isr.size;
    if (requiredAcks === -1 && inSyncReplicas < minInsyncReplicas) {
      return appendError(
        ErrorCode.NOT_ENOUGH_REPLICAS,
        `the ISR of ${this.key} has ${inSyncReplicas} replica(s), below min.insync.replicas=${minInsyncReplicas}`,
      );
    }
    // Before writing, as Kafka; written to the checkpoint at the log's flush (partition-leader-epochs.ts).
    this.epochs.assignAtLogEnd(this.leaderEpochValue);
    // The log checks the producer state on the core's batch summaries and records the append.
    const result: LogAppendResult = this.log.appendAsLeader(records, this.leaderEpochValue, this.producers.manager ?? undefined, origin);
    if (result.errorCode !== ErrorCode.NONE) return { ...appendError(result.errorCode, result.errorMessage ?? null), recordErrors: result.recordErrors };
    let appendedBytes = 0;
    for (const batch of result.batches) appendedBytes += batch.sizeInBytes;
    // A retried duplicate comes back with its original offsets and no batches: nothing changed.
    if (result.batches.length > 0) this.producers.maybeSnapshot();
    this.maybeIncrementLeaderHighWatermark();
    // Replicated: the records become visible when the followers have them (see pending-visible-bytes.ts).
    if (appendedBytes > 0 && this.log.highWatermark <= result.lastOffset && this.isrState.maximalIsr.size > 1) {
      this.pendingVisibleBytes.add(result.lastOffset + 1, appendedBytes);
    }
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      baseOffset: result.baseOffset,
      lastOffset: result.lastOffset,
      logAppendTimeMs: result.logAppendTimeMs,
      logStartOffset: result.logStartOffset,
      appendedBytes,
    };
  }

  /**
   * Kafka's appendRecordsToFollowerOrFutureReplica, called by the ReplicaFetcher with the
   * `records` of a Fetch response from the leader: whole batches with the leader's offsets and
   * partition leader epochs, written as they are (UnifiedLog.appendAsFollower). The first batch
   * must start at the log end offset or later (else OFFSET_OUT_OF_RANGE, 1: the fetcher
   * truncates first). The producer state records them. NOT_LEADER_OR_FOLLOWER (6) when this
   * replica leads (a fetch response that arrived after a leadership change: drop it).
   * Empty `records` append nothing (errorCode 0).
   */
  appendRecordsAsFollower(records: Uint8Array): FollowerAppendResult {
    if (this.leaderIdValue === this.localBrokerId) return followerAppendError(ErrorCode.NOT_LEADER_OR_FOLLOWER, this.log.logEndOffset);
    if (records.length === 0) {
      return { errorCode: ErrorCode.NONE, baseOffset: -1, lastOffset: -1, logEndOffset: this.log.logEndOffset, appendedBytes: 0 };
    }
    const result = this.log.appendAsFollower(records);
    if (result.errorCode !== ErrorCode.NONE) return followerAppendError(result.errorCode, this.log.logEndOffset);
    let appendedBytes = 0;
    for (const batch of result.batches) appendedBytes += batch.sizeInBytes;
    this.epochs.onFollowerAppend(result.batches);
    this.producers.onFollowerAppend(records, result.batches);
    return { errorCode: ErrorCode.NONE, baseOffset: result.baseOffset, lastOffset: result.lastOffset, logEndOffset: this.log.logEndOffset, appendedBytes };
  }

  /**
   * Kafka's truncateTo on a follower: removes the records from the batch holding `offset` on
   * (the divergent tail found with OffsetForLeaderEpoch / a Fetch's DivergingEpoch), then reloads
   * the producer state for the shorter log. When `offset` >= the log end offset the log stays,
   * but epochs starting at or past its end still go (Kafka's UnifiedLog.truncateTo): a replica
   * that was elected leader and assigned its epoch at the log end, then lost leadership before
   * appending, holds an epoch the new leader never had, and every Fetch would diverge on it again.
   * The log clamps the high watermark to its new end. A disk failure takes the log directory
   * offline (every later call answers KAFKA_STORAGE_ERROR, 56).
   */
  truncateTo(offset: number): void {
    assert(Number.isSafeInteger(offset) && offset >= 0, 'truncation offset >= 0');
    assert(this.leaderIdValue !== this.localBrokerId, 'only a follower truncates');
    if (offset >= this.log.logEndOffset) {
      this.epochs.afterTruncation();
      return;
    }
    this.log.truncateTo(offset);
    this.afterTruncation();
  }

  /**
   * Kafka's truncateFullyAndStartAt on a follower: the leader no longer has the records this
   * replica would fetch next (its fetch offset is below the leader's log start offset): deletes
   * everything and starts an empty log at `offset` (the leader's log start offset). Producer
   * state starts empty there too.
   */
  truncateFullyAndStartAt(offset: number): void {
    assert(Number.isSafeInteger(offset) && offset >= 0, 'new start offset >= 0');
    assert(this.leaderIdValue !== this.localBrokerId, 'only a follower truncates');
    this.log.truncateFullyAndStartAt(offset);
    this.producers.truncateFullyAndStartAt(offset);
    this.afterTruncation();
  }

  /**
   * A follower learns the leader's high watermark from every Fetch response: its own becomes
   * min(leaderHighWatermark, log end offset), never lower than it was. Returns true when it
   * moved (the ReplicaManager then wakes nothing: followers serve no consumers).
   */
  updateFollowerHighWatermark(leaderHighWatermark: number): boolean {
    assert(this.leaderIdValue !== this.localBrokerId, 'only a follower takes the leader\'s high watermark');
    const target = Math.min(leaderHighWatermark, this.log.logEndOffset);
    if (target <= this.log.highWatermark) return false;
    this.log.updateHighWatermark(target);
    assert(this.log.highWatermark <= this.log.logEndOffset, 'hw <= leo');
    return true;
  }

  /**
   * A follower learns the leader's log start offset from every Fetch response (Kafka's
   * LeaderOffsetIncremented): records below min(it, the high watermark) are deleted here too.
   * Returns the log's error code (0, 56).
   */
  updateFollowerLogStartOffset(leaderLogStartOffset: number): number {
    assert(this.leaderIdValue !== this.localBrokerId, 'only a follower takes the leader\'s log start offset');
    const target = Math.min(leaderLogStartOffset, this.log.highWatermark);
    if (target <= this.log.logStartOffset) return ErrorCode.NONE;
    const errorCode = this.log.deleteRecordsBefore(target);
    if (errorCode === ErrorCode.NONE) this.onLogStartOffsetMaybeIncremented();
    return errorCode;
  }

  /** The producers this partition's log knows (DescribeProducers, KIP-664); none without producer state. */
  activeProducers(): Readonly<ProducerStateEntry>[] {
    return [...(this.producers.manager?.activeProducers() ?? [])];
  }

  /**
   * Forgets the producer ids idle for longer than producer.id.expiration.ms (by the timestamp of
   * their last batch) and without an open transaction; a later batch of such a producer with a
   * sequence other than 0 is refused with UNKNOWN_PRODUCER_ID (59), as in Kafka. Returns how
   * many were removed (0 for a partition without producer state).
   */
  removeExpiredProducers(nowMs: number): number {
    return this.producers.manager?.removeExpiredProducers(nowMs) ?? 0;
  }

  /**
   * Kafka's onLogStartOffsetIncremented: when the log start offset moved up since the last call
   * (DeleteRecords, or retention in LogManager.tick, which knows nothing of producer state),
   * forgets the producers whose last batch now lies below it and deletes the snapshots below it
   * (ProducerStateManager.truncateHead). The Partition stays the only owner of the producer
   * state; the log is only read. The leader epochs before it go too (truncateFromStart).
   * Returns true when it trimmed. Throws the disk's error (snapshot deletion, checkpoint write);
   * the next call retries.
   */
  onLogStartOffsetMaybeIncremented(): boolean {
    return this.producers.onLogStartOffsetMaybeIncremented(() => this.epochs.afterLogStartOffsetMoved());
  }

  /**
   * Clean shutdown: snapshots the producer state at the log end so the next start replays
   * nothing. Call before the log closes. Throws the disk's error.
   */
  onCleanShutdown(): void {
    this.producers.takeSnapshot();
  }

  /**
   * Kafka's fetchRecords: reads for a consumer (upper bound HW, or LSO for read_committed) or,
   * with `replicaId` >= 0, for a follower (upper bound LEO; the follower's fetch offset is then
   * recorded as its log end offset: {@link updateFollowerFetchState}).
   * Errors, in Kafka's order: FENCED_LEADER_EPOCH (74) / UNKNOWN_LEADER_EPOCH (75) when
   * `currentLeaderEpoch` (>= 0) is older / newer than ours; NOT_LEADER_OR_FOLLOWER (6) on a
   * follower (no KIP-392 fetching from followers); for a replica id not among the replicas
   * UNKNOWN_LEADER_EPOCH with a current leader epoch, else NOT_LEADER_OR_FOLLOWER (the follower
   * retries); with `lastFetchedEpoch` (KIP-320) OFFSET_OUT_OF_RANGE (1) when that epoch is unknown
   * here or the fetch offset is below the log start, else a DivergingEpoch answer when the epoch
   * ended here before the fetch offset; OFFSET_OUT_OF_RANGE (1) outside [logStartOffset,
   * logEndOffset]. HW, LSO and log start are the values before the read (Kafka's).
   */
  readRecords(options: PartitionReadOptions): PartitionReadResult {
    const currentLeaderEpoch = options.currentLeaderEpoch ?? -1;
    const epochError = this.checkCurrentLeaderEpoch(currentLeaderEpoch);
    if (epochError !== ErrorCode.NONE) return this.readError(epochError);
    if (this.leaderIdValue !== this.localBrokerId) return this.readError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const replicaId = options.replicaId ?? -1;
    const follower = replicaId >= 0 ? this.isrState.remoteReplicas.get(replicaId) : undefined;
    if (replicaId >= 0 && follower === undefined) {
      return this.readError(currentLeaderEpoch >= 0 ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.NOT_LEADER_OR_FOLLOWER);
    }
    const { fetchOffset } = options;
    const highWatermark = this.highWatermark;
    const lastStableOffset = this.lastStableOffset;
    const logStartOffset = this.log.logStartOffset;
    const logEndOffset = this.log.logEndOffset;
    const lastFetchedEpoch = options.lastFetchedEpoch ?? -1;
    if (lastFetchedEpoch >= 0) {
      const end = this.epochs.endOffsetFor(lastFetchedEpoch);
      if (end.endOffset < 0 || end.epoch < 0 || fetchOffset < logStartOffset) return this.readError(ErrorCode.OFFSET_OUT_OF_RANGE);
      if (end.epoch < lastFetchedEpoch || end.endOffset < fetchOffset) {
        return { errorCode: ErrorCode.NONE, highWatermark, lastStableOffset, logStartOffset, records: EMPTY, divergingEpoch: { epoch: end.epoch, endOffset: end.endOffset } };
      }
    }
    if (fetchOffset < logStartOffset || fetchOffset > logEndOffset) return this.readError(ErrorCode.OFFSET_OUT_OF_RANGE);
    const upperBoundOffset = follower !== undefined
      ? logEndOffset
      : options.isolationLevel === IsolationLevel.READ_COMMITTED
        ? lastStableOffset
        : highWatermark;
    let records: Buffer = EMPTY;
    if (fetchOffset < upperBoundOffset && (options.maxBytes > 0 || options.minOneMessage)) {
      const read = this.log.read(fetchOffset, Math.max(0, options.maxBytes), upperBoundOffset, options.minOneMessage, options.buffers);
      if (read.errorCode !== ErrorCode.NONE) return this.readError(read.errorCode);
      records = read.records;
    }
    const aborted = follower === undefined && options.isolationLevel === IsolationLevel.READ_COMMITTED && records.length > 0
      ? this.producers.abortedTransactions(fetchOffset, upperBoundOffset) : undefined;
    if (follower !== undefined && options.updateFetchState !== false) {
      this.updateFollowerFetchState(follower, fetchOffset, options.followerLogStartOffset ?? -1, logEndOffset);
    }
    return { errorCode: ErrorCode.NONE, highWatermark, lastStableOffset, logStartOffset, records, abortedTransactions: aborted };
  }

  /**
   * Kafka's updateFollowerFetchState: a follower fetched at `fetchOffset`, so that is its log end
   * offset (ReplicaState.updateFetchState, with the leader's log end offset before the read);
   * then the follower may join the ISR and the high watermark may move. Returns true when the
   * high watermark moved ({@link lastHighWatermarkAdvanceBytes} says how many bytes it made
   * visible).
   */
  private updateFollowerFetchState(follower: ReplicaState, fetchOffset: number, followerLogStartOffset: number, leaderLogEndOffset: number): boolean {
    const previousLogEndOffset = follower.logEndOffset;
    follower.updateFetchState(fetchOffset, followerLogStartOffset, this.time.monotonicMs(), leaderLogEndOffset, this.brokerEpochOf(follower.brokerId));
    this.maybeExpandIsr(follower);
    if (previousLogEndOffset === follower.logEndOffset) return false;
    return this.maybeIncrementLeaderHighWatermark();
  }

  /**
   * DeleteRecords on the leader (Kafka's deleteRecordsOnLeader): `offset` -1 means the high
   * watermark; above the high watermark (or below -1) → OFFSET_OUT_OF_RANGE (1). Returns the new
   * low watermark (the log start offset on a single node), -1 on error. NOT_LEADER_OR_FOLLOWER
   * (6) on a follower.
   */
  deleteRecordsOnLeader(offset: number): { errorCode: number; lowWatermark: number } {
    if (this.leaderIdValue !== this.localBrokerId) return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, lowWatermark: -1 };
    const target = offset === DELETE_TO_HIGH_WATERMARK ? this.highWatermark : offset;
    if (!Number.isSafeInteger(target) || target < 0 || target > this.highWatermark) {
      return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, lowWatermark: -1 };
    }
    const errorCode = this.log.deleteRecordsBefore(target);
    if (errorCode !== ErrorCode.NONE) return { errorCode, lowWatermark: -1 };
    this.onLogStartOffsetMaybeIncremented();
    return { errorCode: ErrorCode.NONE, lowWatermark: this.log.logStartOffset };
  }

  /**
   * For DelayedProduce (acks=all): done once the high watermark reached `requiredOffset`;
   * NOT_ENOUGH_REPLICAS_AFTER_APPEND (20) if the ISR shrank below min.insync.replicas meanwhile;
   * done with NOT_LEADER_OR_FOLLOWER (6) once this broker no longer leads (the records may
   * never be committed).
   */
  checkEnoughReplicasReachOffset(requiredOffset: number): { done: boolean; errorCode: number } {
    if (this.leaderIdValue !== this.localBrokerId) return { done: true, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
    if (this.highWatermark < requiredOffset) return { done: false, errorCode: ErrorCode.NONE };
    if (this.isrState.maximalIsr.size < this.log.config.minInsyncReplicas) {
      return { done: true, errorCode: ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND };
    }
    return { done: true, errorCode: ErrorCode.NONE };
  }

  /**
   * Kafka's UnifiedLog.endOffsetForEpoch: the largest epoch <= `leaderEpoch` this replica's log
   * knows and the offset where it ended (exclusive; the log end offset for the latest epoch), or
   * null when unknown (no epoch at or below it, or above every known one).
   */
  endOffsetForEpoch(leaderEpoch: number): { leaderEpoch: number; endOffset: number } | null {
    const found = this.epochs.endOffsetFor(leaderEpoch);
    if (found.endOffset < 0) return null;
    return { leaderEpoch: found.epoch, endOffset: found.endOffset };
  }

  /** The latest leader epoch in this replica's log, -1 when none (a follower's lastFetchedEpoch). */
  get latestEpoch(): number {
    return this.epochs.latestEpoch();
  }

  /**
   * Kafka's Partition.lastOffsetForLeaderEpoch (OffsetForLeaderEpoch, key 23), answered by the
   * leader only: FENCED_LEADER_EPOCH (74) / UNKNOWN_LEADER_EPOCH (75) when `currentLeaderEpoch`
   * (>= 0; -1 skips the check) is older / newer than ours, then NOT_LEADER_OR_FOLLOWER (6) on a
   * follower; otherwise errorCode 0 with {@link endOffsetForEpoch}, or epoch -1 and offset -1
   * (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET) when it is unknown.
   */
  lastOffsetForLeaderEpoch(currentLeaderEpoch: number, leaderEpoch: number): { errorCode: number; leaderEpoch: number; endOffset: number } {
    const epochError = this.checkCurrentLeaderEpoch(currentLeaderEpoch);
    if (epochError !== ErrorCode.NONE) return { errorCode: epochError, leaderEpoch: -1, endOffset: -1 };
    if (this.leaderIdValue !== this.localBrokerId) return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, leaderEpoch: -1, endOffset: -1 };
    const found = this.endOffsetForEpoch(leaderEpoch);
    return { errorCode: ErrorCode.NONE, leaderEpoch: found?.leaderEpoch ?? -1, endOffset: found?.endOffset ?? -1 };
  }

  /**
   * Kafka's maybeIncrementLeaderHW: HW = the smallest log end offset over the maximal ISR (the
   * leader's own and each in-sync follower's, from its last fetch; a follower not heard from since
   * this broker became leader holds it where it is; see PartitionIsr.highWatermarkCandidate).
   * Returns true when it moved; the high watermark never goes backwards. On a follower: false.
   */
  maybeIncrementLeaderHighWatermark(): boolean {
    if (this.leaderIdValue !== this.localBrokerId) return false;
    const logEndOffset = this.log.logEndOffset;
    const previous = this.log.highWatermark;
    const candidate = this.isrState.highWatermarkCandidate(logEndOffset, this.time, this.replicaLagTimeMaxMs, this.canAlterIsr, this.isReplicaIsrEligible);
    if (candidate <= previous) return false;
    this.log.updateHighWatermark(candidate);
    const highWatermark = this.log.highWatermark;
    assert(highWatermark <= logEndOffset, 'hw <= leo');
    if (highWatermark <= previous) return false;
    this.lastHighWatermarkAdvanceBytesValue = this.pendingVisibleBytes.takeVisible(highWatermark, logEndOffset);
    return true;
  }

  /**
   * Kafka's maybeShrinkIsr, called periodically (ReplicaManager.maybeShrinkIsr): proposes to the
   * controller an ISR without the followers that have not caught up with this leader's log end
   * within replica.lag.time.max.ms. Nothing on a follower, without an AlterPartitionSink or topic
   * id, or while another proposal is pending. Returns true when a proposal was sent.
   */
  maybeShrinkIsr(): boolean {
    if (this.leaderIdValue !== this.localBrokerId || !this.canAlterIsr) return false;
    const newIsr = this.isrState.shrinkCandidate(this.log.logEndOffset, this.time.monotonicMs(), this.replicaLagTimeMaxMs);
    if (newIsr === null) return false;
    this.submitIsrChange({ kind: 'shrink', newIsr });
    return true;
  }

  /** Kafka's maybeExpandIsr: a follower that caught up joins the ISR (through the controller). */
  private maybeExpandIsr(follower: ReplicaState): void {
    if (!this.canAlterIsr) return;
    const newIsr = this.isrState.expandCandidate(follower, this.log.highWatermark, this.leaderEpochStartOffsetValue);
    if (newIsr !== null && this.isReplicaIsrEligible(follower.brokerId)) this.submitIsrChange({ kind: 'expand', newIsr });
  }

  /** ISR changes need the controller (a sink) and the topic's id (AlterPartition v2+ names topics by id). */
  private get canAlterIsr(): boolean {
    return this.alterPartitionSink !== null && this.topicIdValue !== null;
  }

  /** Sends `change` to the controller; the answer arrives later (onAlterPartitionResult). */
  private submitIsrChange(change: PendingIsrChange): void {
    this.isrState.propose(change);
    const item = {
      topicId: this.topicIdValue!,
      topic: this.topic,
      partition: this.partition,
      leaderEpoch: this.leaderEpochValue,
      partitionEpoch: this.partitionEpochValue,
      newIsr: change.newIsr,
      newIsrWithEpochs: this.isrState.withBrokerEpochs(change.newIsr),
    };
    void this.alterPartitionSink!.submit(item).then((result) => this.onAlterPartitionResult(change, result));
  }

  /**
   * Kafka's handleAlterPartitionUpdate / handleAlterPartitionError: adopts the committed ISR and
   * partition epoch when the answer is for the proposal still pending and for this leader epoch
   * (and not older than what the metadata already told); OPERATION_NOT_ATTEMPTED (55) and
   * INELIGIBLE_REPLICA (107) mean nothing was applied: back to the committed state; other errors
   * leave the proposal pending until the next metadata update (makeLeader) replaces the state.
   * A commit may move the high watermark and settle waiting produces (onIsrCommitted).
   */
  private onAlterPartitionResult(change: PendingIsrChange, result: AlterPartitionResult): void {
    if (this.isrState.pending !== change || this.leaderIdValue !== this.localBrokerId) return;
    if (result.errorCode !== ErrorCode.NONE) {
      if (result.errorCode === ErrorCode.OPERATION_NOT_ATTEMPTED || result.errorCode === ErrorCode.INELIGIBLE_REPLICA) this.isrState.abandonPending();
      return;
    }
    if (result.leaderEpoch !== this.leaderEpochValue || result.partitionEpoch < this.partitionEpochValue) return;
    this.isrState.commit(result.isr);
    this.partitionEpochValue = result.partitionEpoch;
    this.lastHighWatermarkAdvanceBytesValue = 0;
    this.maybeIncrementLeaderHighWatermark();
    this.onIsrCommitted?.(this);
  }

  /** Kafka's stale-state rule for makeLeader/makeFollower. */
  private isStale(state: PartitionTransition): boolean {
    if (state.leaderEpoch < this.leaderEpochValue) return true;
    return state.leaderEpoch === this.leaderEpochValue && (state.partitionEpoch ?? this.partitionEpochValue) < this.partitionEpochValue;
  }

  private applyTransition(leaderId: number, state: PartitionTransition): void {
    assert(state.leaderEpoch >= 0, 'leaderEpoch >= 0');
    const wasLeader = this.leaderIdValue === this.localBrokerId;
    const isNewLeaderEpoch = state.leaderEpoch > this.leaderEpochValue;
    this.leaderIdValue = leaderId;
    this.leaderEpochValue = state.leaderEpoch;
    if (state.partitionEpoch !== undefined) this.partitionEpochValue = state.partitionEpoch;
    if (state.replicas !== undefined) this.replicasValue = state.replicas;
    if (state.topicId !== undefined) this.topicIdValue = state.topicId;
    // The metadata is the controller's committed state: a pending proposal is over either way.
    if (state.isr !== undefined) this.isrState.commit(state.isr);
    if (leaderId !== this.localBrokerId) {
      this.isrState.updateReplicaSet([]);
      this.leaderEpochStartOffsetValue = UNKNOWN_OFFSET;
      this.pendingVisibleBytes.clear();
    } else if (!wasLeader || isNewLeaderEpoch) {
      this.startLeaderEpoch(!wasLeader);
    } else {
      this.isrState.updateReplicaSet(this.replicasValue);
    }
  }

  /**
   * A new leader epoch on this broker (Kafka's makeLeader): the epoch starts at the log end
   * offset, and every follower's state is reset (ReplicaState.reset).
   */
  private startLeaderEpoch(isNewLeader: boolean): void {
    const logEndOffset = this.log.logEndOffset;
    this.leaderEpochStartOffsetValue = logEndOffset;
    this.pendingVisibleBytes.clear();
    // An empty single-replica log waits for its first append (no checkpoint write per new
    // partition); otherwise OffsetForLeaderEpoch must know the epoch at once, as in Kafka.
    if (this.replicasValue.length > 1 || logEndOffset > this.log.logStartOffset) this.epochs.assignAtLogEnd(this.leaderEpochValue);
    this.isrState.updateReplicaSet(this.replicasValue);
    this.isrState.resetReplicas(this.time.monotonicMs(), logEndOffset, isNewLeader);
  }

  /** After a follower truncation: epochs and producer state cut to the shorter log. */
  private afterTruncation(): void {
    this.epochs.afterTruncation();
    this.producers.recover();
  }

  private checkCurrentLeaderEpoch(requestEpoch: number): number {
    if (requestEpoch < 0) return ErrorCode.NONE;
    if (requestEpoch < this.leaderEpochValue) return ErrorCode.FENCED_LEADER_EPOCH;
    if (requestEpoch > this.leaderEpochValue) return ErrorCode.UNKNOWN_LEADER_EPOCH;
    return ErrorCode.NONE;
  }

  /** Kafka answers a failed partition read with -1 offsets (UnifiedLog.UnknownOffset). */
  private readError(errorCode: number): PartitionReadResult {
    return { errorCode, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, records: EMPTY };
  }
}

/** `topic-partition` (unambiguous: the partition number follows the last dash). */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

const EMPTY = Buffer.alloc(0);
/** Kafka's default replica.lag.time.max.ms: 30 s. */
export const DEFAULT_REPLICA_LAG_TIME_MAX_MS = 30_000;
/** DeleteRecords' "up to the high watermark" offset (Kafka's DeleteRecordsRequest.HIGH_WATERMARK). */
const DELETE_TO_HIGH_WATERMARK = -1;

function followerAppendError(errorCode: number, logEndOffset: number): FollowerAppendResult {
  return { errorCode, baseOffset: -1, lastOffset: -1, logEndOffset, appendedBytes: 0 };
}

function appendError(errorCode: number, errorMessage: string | null): PartitionAppendResult {
  return { errorCode, errorMessage, baseOffset: -1, lastOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, appendedBytes: 0 };
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}
