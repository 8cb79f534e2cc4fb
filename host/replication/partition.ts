/**
 * Kafka's Partition (leader side): one topic-partition this broker leads, with its leader epoch,
 * replica set, in-sync replica set (ISR) and high watermark rules.
 *
 * Single node for now: replicas = ISR = {localBrokerId}, so the high watermark equals the log end
 * offset right after every append. The shape is replication's: HW = the smallest log end offset
 * among ISR members (Kafka's maybeIncrementLeaderHW), `min.insync.replicas` is checked against
 * the ISR for acks=all, and `checkEnoughReplicasReachOffset` is what DelayedProduce asks.
 *
 * State: leader (epoch e) → leader (epoch e+1) on `makeLeader` with a higher epoch. Follower and
 * ISR-change transitions arrive with replication.
 */
import type { ProducerStateManager } from '../log/producer-state-manager.js';
import type { ReadBuffers } from '../log/read-buffer-pool.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { LogAppendResult, PartitionLog } from './partition-log.js';

/** Fetch isolation levels (Fetch v4+ isolation_level). */
export const IsolationLevel = { READ_UNCOMMITTED: 0, READ_COMMITTED: 1 } as const;

/** Result of a leader append for one partition: the fields of a Produce partition response. */
export interface PartitionAppendResult {
  errorCode: number;
  errorMessage: string | null;
  /** First offset of the appended (or, for a retried duplicate, the original) records; -1 on error. */
  baseOffset: number;
  lastOffset: number;
  /** -1 unless the topic uses LogAppendTime. */
  logAppendTimeMs: number;
  /** -1 on error. */
  logStartOffset: number;
  /** Bytes written to the log (0 for a duplicate or an error). */
  appendedBytes: number;
}

/** Result of a read for one partition: the fields of a Fetch partition response. */
export interface PartitionReadResult {
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  /** Whole batches, possibly empty. */
  records: Buffer;
}

export interface PartitionOptions<L extends PartitionLog = PartitionLog> {
  topic: string;
  partition: number;
  log: L;
  localBrokerId: number;
  leaderEpoch: number;
  /** Assigned replicas (broker ids), leader first. Default [localBrokerId]. */
  replicas?: readonly number[];
  /**
   * Idempotent-producer state for this partition, when the log does not keep its own (Kafka
   * keeps it inside UnifiedLog). Given one, the partition recovers it from its snapshots and the
   * log tail now, checks every append against it (duplicates → original offsets, nothing
   * written; 45/47/59 refused), snapshots it at segment rolls and at `onCleanShutdown()`, and
   * trims it when the log start offset moves (`onLogStartOffsetMaybeIncremented`, called on
   * DeleteRecords and by the broker after retention). Never pass one for a log that deduplicates itself: both would
   * write the same `.snapshot` files.
   */
  producerState?: ProducerStateManager;
  /** Where a failed producer-state snapshot is reported (the append itself still succeeds). */
  logger?: { error(fields: object, message: string): void };
}

/**
 * `L` is the log type the broker uses (UnifiedLog), so handlers reach its full API
 * (fetchOffsetByTimestamp for ListOffsets, ...) through `partition.log`.
 */
export class Partition<L extends PartitionLog = PartitionLog> {
  readonly topic: string;
  readonly partition: number;
  readonly log: L;
  readonly localBrokerId: number;
  private leaderEpochValue: number;
  private replicasValue: readonly number[];
  private readonly inSyncReplicaIds: Set<number>;
  private readonly producerState: ProducerStateManager | null;
  private lastActiveSegmentBaseOffset: number;
  /** The log start offset the producer state was last trimmed to (truncateHead). */
  private producerStateLogStartOffset: number;
  private readonly logger: { error(fields: object, message: string): void } | undefined;

  constructor(options: PartitionOptions<L>) {
    assert(options.log.topic === options.topic && options.log.partition === options.partition, 'log matches partition');
    assert(options.leaderEpoch >= 0, 'leaderEpoch >= 0');
    this.topic = options.topic;
    this.partition = options.partition;
    this.log = options.log;
    this.localBrokerId = options.localBrokerId;
    this.leaderEpochValue = options.leaderEpoch;
    this.replicasValue = options.replicas ?? [options.localBrokerId];
    this.inSyncReplicaIds = new Set([options.localBrokerId]);
    this.producerState = options.producerState ?? null;
    this.logger = options.logger;
    this.lastActiveSegmentBaseOffset = this.log.activeSegment?.baseOffset ?? -1;
    if (this.producerState !== null) {
      const log = this.log;
      this.producerState.recover(log.logStartOffset, log.logEndOffset, (fetchOffset, maxBytes) =>
        log.read(fetchOffset, maxBytes, log.logEndOffset, true).records);
    }
    this.producerStateLogStartOffset = this.log.logStartOffset;
    this.maybeIncrementLeaderHighWatermark();
  }

  /** `topic-partition`, the purgatory key and Kafka's TopicPartition.toString. */
  get key(): string {
    return partitionKey(this.topic, this.partition);
  }

  get leaderEpoch(): number {
    return this.leaderEpochValue;
  }

  get leaderId(): number {
    return this.localBrokerId;
  }

  get replicas(): readonly number[] {
    return this.replicasValue;
  }

  /** In-sync replica ids, leader first. */
  get isr(): number[] {
    return [...this.inSyncReplicaIds].sort((a, b) => (a === this.localBrokerId ? -1 : b === this.localBrokerId ? 1 : a - b));
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

  /** LSO: below the first open transaction; the high watermark while no transaction is open. */
  get lastStableOffset(): number {
    const lso = this.log.lastStableOffset;
    return lso === undefined ? this.log.highWatermark : Math.min(lso, this.log.highWatermark);
  }

  /** Re-elects this broker with a newer epoch (controller decision). Older epochs are ignored. */
  makeLeader(leaderEpoch: number, replicas?: readonly number[]): boolean {
    if (leaderEpoch < this.leaderEpochValue) return false;
    this.leaderEpochValue = leaderEpoch;
    if (replicas !== undefined) this.replicasValue = replicas;
    return true;
  }

  /**
   * Appends a Produce request's records for this partition as leader.
   * requiredAcks -1 refuses with NOT_ENOUGH_REPLICAS (19) before writing when the ISR is smaller
   * than min.insync.replicas (Kafka checks this only for acks=all). Other errors come from the
   * log (CORRUPT_MESSAGE, INVALID_RECORD, MESSAGE_TOO_LARGE, sequence errors, storage errors).
   */
  appendRecordsToLeader(records: Uint8Array, requiredAcks: number): PartitionAppendResult {
    const minInsyncReplicas = this.log.config.minInsyncReplicas;
    if (requiredAcks === -1 && this.inSyncReplicaIds.size < minInsyncReplicas) {
      return appendError(
        ErrorCode.NOT_ENOUGH_REPLICAS,
        `the ISR of ${this.key} has ${this.inSyncReplicaIds.size} replica(s), below min.insync.replicas=${minInsyncReplicas}`,
      );
    }
    // The log checks the producer state on the core's batch summaries and records the append.
    const result: LogAppendResult = this.log.appendAsLeader(records, this.leaderEpochValue, this.producerState ?? undefined);
    if (result.errorCode !== ErrorCode.NONE) return appendError(result.errorCode, result.errorMessage ?? null);
    let appendedBytes = 0;
    for (const batch of result.batches) appendedBytes += batch.sizeInBytes;
    // A retried duplicate comes back with its original offsets and no batches: nothing changed.
    if (this.producerState !== null && result.batches.length > 0) this.maybeSnapshotProducerState();
    this.maybeIncrementLeaderHighWatermark();
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
   * Forgets the producer ids idle for longer than producer.id.expiration.ms (by the timestamp of
   * their last batch) and without an open transaction; a later batch of such a producer with a
   * sequence other than 0 is refused with UNKNOWN_PRODUCER_ID (59), as in Kafka. Returns how
   * many were removed (0 for a partition without producer state).
   */
  removeExpiredProducers(nowMs: number): number {
    return this.producerState?.removeExpiredProducers(nowMs) ?? 0;
  }

  /**
   * Kafka's onLogStartOffsetIncremented: when the log start offset moved up since the last call
   * (DeleteRecords, or retention in LogManager.tick, which knows nothing of producer state),
   * forgets the producers whose last batch now lies below it and deletes the snapshots below it
   * (ProducerStateManager.truncateHead). The Partition stays the only owner of the producer
   * state; the log is only read. Returns true when it trimmed. Throws the disk's error (snapshot
   * deletion); the next call retries.
   */
  onLogStartOffsetMaybeIncremented(): boolean {
    if (this.producerState === null) return false;
    const logStartOffset = this.log.logStartOffset;
    if (logStartOffset === this.producerStateLogStartOffset) return false;
    // A lower start (a truncation below it) leaves nothing to trim.
    const moved = logStartOffset > this.producerStateLogStartOffset;
    if (moved) this.producerState.truncateHead(logStartOffset);
    this.producerStateLogStartOffset = logStartOffset;
    return moved;
  }

  /**
   * Clean shutdown: snapshots the producer state at the log end so the next start replays
   * nothing. Call before the log closes. Throws the disk's error.
   */
  onCleanShutdown(): void {
    this.producerState?.takeSnapshot();
  }

  /**
   * Reads for a consumer (upper bound HW, or LSO for read_committed) or, with `fromFollower`,
   * for a replica (upper bound LEO).
   * Errors: FENCED_LEADER_EPOCH (74) / UNKNOWN_LEADER_EPOCH (75) when `currentLeaderEpoch` (>= 0)
   * is older / newer than ours; OFFSET_OUT_OF_RANGE (1) outside [logStartOffset, logEndOffset].
   */
  readRecords(options: {
    fetchOffset: number;
    maxBytes: number;
    isolationLevel: number;
    minOneMessage: boolean;
    currentLeaderEpoch?: number;
    fromFollower?: boolean;
    /** Where the records are read into (default fresh buffers); see read-buffer-pool.ts. */
    buffers?: ReadBuffers;
  }): PartitionReadResult {
    const epochError = this.checkCurrentLeaderEpoch(options.currentLeaderEpoch ?? -1);
    if (epochError !== ErrorCode.NONE) return this.readError(epochError);
    const { fetchOffset } = options;
    if (fetchOffset < this.log.logStartOffset || fetchOffset > this.log.logEndOffset) {
      return this.readError(ErrorCode.OFFSET_OUT_OF_RANGE);
    }
    const upperBoundOffset = options.fromFollower
      ? this.log.logEndOffset
      : options.isolationLevel === IsolationLevel.READ_COMMITTED
        ? this.lastStableOffset
        : this.highWatermark;
    const highWatermark = this.highWatermark;
    const lastStableOffset = this.lastStableOffset;
    const logStartOffset = this.log.logStartOffset;
    if (fetchOffset >= upperBoundOffset || (options.maxBytes <= 0 && !options.minOneMessage)) {
      return { errorCode: ErrorCode.NONE, highWatermark, lastStableOffset, logStartOffset, records: EMPTY };
    }
    const read = this.log.read(fetchOffset, Math.max(0, options.maxBytes), upperBoundOffset, options.minOneMessage, options.buffers);
    if (read.errorCode !== ErrorCode.NONE) return this.readError(read.errorCode);
    return { errorCode: ErrorCode.NONE, highWatermark, lastStableOffset, logStartOffset, records: read.records };
  }

  /**
   * DeleteRecords on the leader (Kafka's deleteRecordsOnLeader): `offset` -1 means the high
   * watermark; above the high watermark (or below -1) → OFFSET_OUT_OF_RANGE (1). Returns the new
   * low watermark (the log start offset on a single node), -1 on error.
   */
  deleteRecordsOnLeader(offset: number): { errorCode: number; lowWatermark: number } {
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
   * NOT_ENOUGH_REPLICAS_AFTER_APPEND (20) if the ISR shrank below min.insync.replicas meanwhile.
   */
  checkEnoughReplicasReachOffset(requiredOffset: number): { done: boolean; errorCode: number } {
    if (this.highWatermark < requiredOffset) return { done: false, errorCode: ErrorCode.NONE };
    if (this.inSyncReplicaIds.size < this.log.config.minInsyncReplicas) {
      return { done: true, errorCode: ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND };
    }
    return { done: true, errorCode: ErrorCode.NONE };
  }

  /**
   * HW = min LEO over the ISR (only the leader's today). Returns true when it moved; the high
   * watermark never goes backwards.
   */
  maybeIncrementLeaderHighWatermark(): boolean {
    const newHighWatermark = this.log.logEndOffset; // min over ISR = {self}
    if (newHighWatermark <= this.log.highWatermark) return false;
    this.log.updateHighWatermark(newHighWatermark);
    assert(this.log.highWatermark <= this.log.logEndOffset, 'hw <= leo');
    return true;
  }

  /**
   * After an append the log recorded in the producer state: snapshots it if the append rolled a
   * segment (Kafka snapshots at every roll).
   */
  private maybeSnapshotProducerState(): void {
    const producerState = this.producerState!;
    const activeSegmentBaseOffset = this.log.activeSegment?.baseOffset ?? -1;
    if (activeSegmentBaseOffset !== this.lastActiveSegmentBaseOffset) {
      this.lastActiveSegmentBaseOffset = activeSegmentBaseOffset;
      try {
        producerState.takeSnapshot();
      } catch (error) {
        // A snapshot only shortens the next recovery; the append is durable in the log already.
        this.logger?.error({ topic: this.topic, partition: this.partition, err: error }, 'producer-state snapshot failed');
      }
    }
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
/** DeleteRecords' "up to the high watermark" offset (Kafka's DeleteRecordsRequest.HIGH_WATERMARK). */
const DELETE_TO_HIGH_WATERMARK = -1;

function appendError(errorCode: number, errorMessage: string | null): PartitionAppendResult {
  return { errorCode, errorMessage, baseOffset: -1, lastOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, appendedBytes: 0 };
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}
