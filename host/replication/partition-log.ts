/**
 * What replication needs from a partition's log: the subset of `UnifiedLog` (host/log, see
 * CONTRACTS.md) that Partition and ReplicaManager call. Declared here structurally so a real
 * UnifiedLog and the small fakes of tests both fit.
 *
 * Idempotence: Kafka's UnifiedLog owns its ProducerStateManager; here the Partition owns one
 * (PartitionOptions.producerState) and hands it to every `appendAsLeader`, which checks the core's
 * batch summaries against it inside the append (host/log/producer-append.ts): a retried batch is
 * answered with errorCode 0 and the ORIGINAL offsets and no batches, appending nothing; sequence
 * and epoch errors (45, 47, 59) come back as the errorCode. A log that ignores the argument (the
 * small fakes of tests) must not be given a producerState.
 */

import type { DeferredCheckpoint } from '../log/partition-directory-sync.js';
import type { ProducerAppendState } from '../log/producer-append.js';
import type { AppendOrigin, ProducerBatchInfo } from '../log/producer-state-manager.js';
import type { ReadBuffers } from '../log/read-buffer-pool.js';

/** Header facts of one appended batch (a subset of BatchSummary in host/wasm/core.ts). */
export interface AppendedBatch {
  /** 12 + batchLength, bytes. */
  sizeInBytes: number;
}

/**
 * Header facts of one batch a follower appended, as the leader stamped them (BatchSummary in
 * host/wasm/core.ts satisfies it): the producer state replays them, the epoch cache takes their
 * partitionLeaderEpoch.
 */
export interface FollowerAppendedBatch extends AppendedBatch, ProducerBatchInfo {
  partitionLeaderEpoch: number;
}

/** The outcome of `appendAsFollower`. */
export interface FollowerLogAppendResult {
  /** 0, or 2 CORRUPT_MESSAGE, 87 INVALID_RECORD, 1 OFFSET_OUT_OF_RANGE (offsets go backwards), 56 KAFKA_STORAGE_ERROR. */
  errorCode: number;
  /** First and last offset appended; -1 on error. */
  baseOffset: number;
  lastOffset: number;
  /** The batches written, in offset order; empty on error. */
  batches: readonly FollowerAppendedBatch[];
}

export interface LogAppendResult {
  /** 0, or e.g. 2 CORRUPT_MESSAGE, 87 INVALID_RECORD, 10 MESSAGE_TOO_LARGE, 45/47/59, 56 KAFKA_STORAGE_ERROR. */
  errorCode: number;
  /** Offset of the first appended record (or of the original batch for a duplicate); -1 on error. */
  baseOffset: number;
  lastOffset: number;
  /** The broker time stamped under LogAppendTime, -1 under CreateTime. */
  logAppendTimeMs: number;
  logStartOffset: number;
  /** The batches written; empty for a duplicate or an error. */
  batches: readonly AppendedBatch[];
  /** Optional detail for Produce v8+ error_message. */
  errorMessage?: string;
  /** Records refused one by one, for Produce v8+ record_errors (KIP-467). */
  recordErrors?: readonly { readonly batchIndex: number; readonly message: string }[];
}

export interface LogReadResult {
  /** 0, or 1 OFFSET_OUT_OF_RANGE, 56 KAFKA_STORAGE_ERROR. */
  errorCode: number;
  /** Whole batches starting at or before fetchOffset's batch; may be empty. */
  records: Buffer;
}

/** The log configs replication reads (LogConfig names). */
export interface PartitionLogConfig {
  minInsyncReplicas: number;
  /** message.timestamp.type; absent means CreateTime. */
  messageTimestampType?: 'CreateTime' | 'LogAppendTime';
}

export interface PartitionLog {
  readonly topic: string;
  readonly partition: number;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly highWatermark: number;
  /** Optional: first offset of an open transaction bounds the LSO; absent means LSO = HW. */
  readonly lastStableOffset?: number;
  readonly config: PartitionLogConfig;
  /** Optional: lets the partition notice segment rolls (producer-state snapshots are taken there). */
  readonly activeSegment?: { readonly baseOffset: number };
  /**
   * Optional: the log flushes the partition's leader epoch checkpoint with its own files
   * (UnifiedLog.setLeaderEpochCheckpoint); a log without it gets every epoch written at once.
   */
  setLeaderEpochCheckpoint?(checkpoint: DeferredCheckpoint | null): void;
  /** Optional: the segments, oldest first (which segment's `.txnindex` an ABORT marker goes to). */
  readonly logSegments?: readonly { readonly baseOffset: number }[];
  /**
   * Validates, stamps and appends a Produce blob; `producerState`, when given, is checked before
   * the write and told of the appended batches after it (see the file header). `origin`
   * 'coordinator': the broker's own write (transaction markers allowed, no sequence checks).
   */
  appendAsLeader(records: Uint8Array, leaderEpoch: number, producerState?: ProducerAppendState, origin?: AppendOrigin): LogAppendResult;
  /** `buffers`: where the records are read into (UnifiedLog.read); fakes may ignore it. */
  read(fetchOffset: number, maxBytes: number, upperBoundOffset: number, minOneMessage: boolean, buffers?: ReadBuffers): LogReadResult;
  updateHighWatermark(offset: number): void;
  /**
   * DeleteRecords: moves the log start offset up to `offset` (<= high watermark). Returns an
   * error code: 0, 1 OFFSET_OUT_OF_RANGE, 56 KAFKA_STORAGE_ERROR.
   */
  deleteRecordsBefore(offset: number): number;
  /**
   * A follower's append: batches that already carry the leader's offsets and epochs, validated
   * and written as they are (UnifiedLog.appendAsFollower, host/log/follower-append.ts).
   */
  appendAsFollower(records: Uint8Array): FollowerLogAppendResult;
  /** Removes every batch from the one holding `offset` on (log end <= offset afterwards). */
  truncateTo(offset: number): void;
  /** Deletes everything and continues as an empty log at `offset`. */
  truncateFullyAndStartAt(offset: number): void;
}
