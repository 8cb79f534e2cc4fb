/**
 * The shapes of a Partition's options, transitions and per-partition results (Produce and Fetch
 * fields), in their own file so partition.ts keeps to the state machine.
 */
import type { RecordError } from '../log/record-validation.js';
import type { ProducerStateManager } from '../log/producer-state-manager.js';
import type { LeaderEpochFileCache } from '../log/leader-epoch-file-cache.js';
import type { ReadBuffers } from '../log/read-buffer-pool.js';
import type { AlterPartitionSink } from './alter-partition-sink.js';
import type { PartitionLog } from './partition-log.js';

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
  /** Records refused one by one (Produce v8+ record_errors, KIP-467); absent otherwise. */
  recordErrors?: readonly RecordError[];
}

/** Result of a read for one partition: the fields of a Fetch partition response. */
export interface PartitionReadResult {
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  /** Whole batches, possibly empty. */
  records: Buffer;
  /**
   * Fetch v12+ DivergingEpoch (KIP-320): set, with no records, when the fetcher's
   * last_fetched_epoch ended in this log before its fetch offset (or is older than every epoch
   * here): the fetcher truncates to `endOffset` (at most) and fetches again. Absent otherwise.
   */
  divergingEpoch?: { epoch: number; endOffset: number };
  /**
   * read_committed reads with records: the aborted transactions overlapping them (Fetch v4+
   * aborted_transactions: producer id, first offset). Absent otherwise.
   */
  abortedTransactions?: readonly { producerId: number; firstOffset: number }[];
}

/** What `onIsrCommitted` is told: which partition, and the bytes its high watermark move made visible. */
export interface IsrCommittedEvent {
  readonly topic: string;
  readonly partition: number;
  readonly lastHighWatermarkAdvanceBytes: number;
}

/** One partition read (Partition.readRecords). */
export interface PartitionReadOptions {
  fetchOffset: number;
  maxBytes: number;
  isolationLevel: number;
  minOneMessage: boolean;
  /** Fetch v9+ current_leader_epoch; -1 / absent = not checked. */
  currentLeaderEpoch?: number;
  /** Fetch v12+ last_fetched_epoch; -1 / absent = no divergence check. */
  lastFetchedEpoch?: number;
  /** A follower's broker id (Fetch replica_id >= 0): reads up to the log end and is recorded. */
  replicaId?: number;
  /** The follower's log start offset (Fetch log_start_offset), -1 when unknown. */
  followerLogStartOffset?: number;
  /** False when a DelayedFetch reads again: the follower's position was recorded by the first read. */
  updateFetchState?: boolean;
  /** Where the records are read into (default fresh buffers); see read-buffer-pool.ts. */
  buffers?: ReadBuffers;
}

export interface PartitionOptions<L extends PartitionLog = PartitionLog> {
  topic: string;
  partition: number;
  log: L;
  localBrokerId: number;
  leaderEpoch: number;
  /** The leader's broker id; default localBrokerId (this broker leads). */
  leaderId?: number;
  /** KIP-497 partition epoch (bumped by every ISR or replica change); default 0. */
  partitionEpoch?: number;
  /** Assigned replicas (broker ids), leader first. Default [localBrokerId]. */
  replicas?: readonly number[];
  /**
   * In-sync replicas from the metadata. Default [localBrokerId] for a leader (a single node: the
   * high watermark follows the log end), the replicas for a follower.
   */
  isr?: readonly number[];
  /**
   * Idempotent-producer state for this partition, when the log does not keep its own (Kafka
   * keeps it inside UnifiedLog). Given one, the partition recovers it from its snapshots and the
   * log tail now, checks every append against it (duplicates → original offsets, nothing
   * written; 45/47/59 refused), snapshots it at segment rolls and at `onCleanShutdown()`, and
   * trims it when the log start offset moves (`onLogStartOffsetMaybeIncremented`, called on
   * DeleteRecords and by the broker after retention). Never pass one for a log that deduplicates itself: both would
   * write the same `.snapshot` files. Followers keep it too (their appends replay into it, their
   * truncations reload it), so a follower that becomes leader deduplicates retries at once.
   */
  producerState?: ProducerStateManager;
  /** Where a failed producer-state snapshot is reported (the append itself still succeeds). */
  logger?: { error(fields: object, message: string): void };
  /** Clock of the followers' caught-up times (an Environment's `time`); default a SystemTime. */
  time?: { monotonicMs(): number };
  /**
   * The partition's `leader-epoch-checkpoint` (LeaderEpochFileCache.open on the partition
   * directory), repaired against the log at construction (partition-leader-epochs.ts). Default: a
   * cache in memory only, starting empty (test logs).
   */
  leaderEpochCache?: LeaderEpochFileCache;
  /** The topic's id (32 hex digits), needed for ISR proposals (AlterPartition names topics by id). */
  topicId?: string;
  /**
   * Where the leader proposes ISR changes (the broker's AlterPartitionManager). Without one (or
   * without a topic id) the ISR is only what the metadata says: no expand, no shrink.
   */
  alterPartitionSink?: AlterPartitionSink;
  /** replica.lag.time.max.ms: an ISR follower not caught up for longer is proposed for removal. Default 30000. */
  replicaLagTimeMaxMs?: number;
  /**
   * Kafka's isReplicaIsrEligible: false for a broker that is fenced, in controlled shutdown or
   * unknown (the metadata cache). Such a follower is neither added to the ISR nor waited for by
   * the high watermark while outside it. Default: every broker is eligible.
   */
  isReplicaIsrEligible?: (brokerId: number) => boolean;
  /**
   * KIP-903: the broker epoch of a broker's current registration as this broker's metadata knows
   * it (-1 unknown). A follower's fetches are recorded with it and the leader's ISR proposals send
   * it in AlterPartition v3's new_isr_with_epochs, so the controller refuses a replica whose fetch
   * state is from an older registration than its current one (INELIGIBLE_REPLICA 107): a broker
   * that restarted (and may have lost unflushed data) rejoins only on fetches the leader saw after
   * learning its new registration. Kafka takes the epoch from Fetch v15's ReplicaState; our
   * followers fetch with v12, so a fetch of the old process that reaches the leader after it
   * learned the new epoch is not told apart. Default: -1 (nothing checked).
   */
  brokerEpochOf?: (brokerId: number) => number;
  /** Called after an ISR change committed by the controller was adopted (the high watermark may have moved). */
  onIsrCommitted?: (partition: IsrCommittedEvent) => void;
}

/** The leader/ISR state of a transition (the partition's record in the metadata). */
export interface PartitionTransition {
  leaderEpoch: number;
  /** Default: unchanged. */
  partitionEpoch?: number;
  /** Default: unchanged. */
  replicas?: readonly number[];
  /** Default: unchanged (a leader's ISR is [self] until told otherwise). */
  isr?: readonly number[];
  /** Default: unchanged. */
  topicId?: string;
}

/** Result of a follower append: offsets written and the log end after it. */
export interface FollowerAppendResult {
  /** 0, 6 NOT_LEADER_OR_FOLLOWER (this replica leads), or the log's error (1, 2, 56, 87). */
  errorCode: number;
  /** First and last offset appended; -1 on error. */
  baseOffset: number;
  lastOffset: number;
  /** The log end offset after the append (the follower's next fetch offset). */
  logEndOffset: number;
  /** Bytes written (0 on error). */
  appendedBytes: number;
}
