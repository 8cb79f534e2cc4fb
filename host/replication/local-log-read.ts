/**
 * One Fetch's read of the local logs (Kafka's ReplicaManager.readFromLocalLog), partition by
 * partition in request order, each up to min(partitionMaxBytes, what is left of maxBytes); with
 * `minOneMessage` (Fetch v3+) the first partition that has data returns at least one whole batch
 * even past those limits (KIP-74). The read can stop after any partition and go on later
 * ({@link LocalLogRead.readThrough}), so a Fetch naming tens of thousands of partitions is read
 * in slices across event-loop turns (request.max.partitions.per.turn, issue 15) with the same
 * byte budget as one pass; {@link LocalLogRead.finish} then wakes what waits on partitions whose
 * high watermark a follower's fetch moved.
 */
import type { ReadBuffers } from '../log/read-buffer-pool.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { Partition, PartitionReadResult } from './partition.js';
import type { PartitionLog } from './partition-log.js';
import type { FetchParams, FetchPartitionResult } from './replication-types.js';

/** What a read needs of the ReplicaManager. */
export interface LocalLogReadContext<L extends PartitionLog> {
  getPartition(topic: string, partition: number): Partition<L> | undefined;
  readonly readBuffers: ReadBuffers;
  /** A throw from the log turned into its error code (KAFKA_STORAGE_ERROR 56, or UNKNOWN_SERVER_ERROR -1 for a bug), logged. */
  errorCodeFor(error: unknown, topic: string, partition: number, operation: string): number;
  /** A follower's fetch moved `partition`'s high watermark: wake what waits on it. */
  onHighWatermarkAdvanced(partition: Partition<L>): void;
}

export class LocalLogRead<L extends PartitionLog> {
  /** One result per partition read so far, in request order. */
  readonly results: FetchPartitionResult[] = [];
  private remainingBytes: number;
  private minOneMessage: boolean;
  private readonly replicaId: number;
  private advanced: Partition<L>[] | undefined;

  /**
   * @param updateFetchState false for a DelayedFetch reading again: a follower's position is not
   *   recorded twice (Partition.readRecords)
   */
  constructor(
    private readonly context: LocalLogReadContext<L>,
    private readonly params: FetchParams,
    private readonly updateFetchState: boolean,
  ) {
    this.remainingBytes = Math.max(0, params.maxBytes);
    this.minOneMessage = params.minOneMessage;
    this.replicaId = params.replicaId ?? -1;
  }

  /** Reads the partitions from the next unread one up to index `end` (exclusive, <= the partition count). */
  readThrough(end: number): void {
    const { context, params, replicaId, results } = this;
    for (let at = results.length; at < end; at++) {
      const request = params.partitions[at]!;
      const { topic, partition: index } = request;
      const partition = context.getPartition(topic, index);
      if (partition === undefined) {
        results.push({ topic, partition: index, ...readError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) });
        continue;
      }
      let read: PartitionReadResult;
      const highWatermarkBefore = replicaId >= 0 ? partition.highWatermark : 0;
      try {
        read = partition.readRecords({
          fetchOffset: request.fetchOffset,
          maxBytes: Math.min(Math.max(0, request.partitionMaxBytes), this.remainingBytes),
          isolationLevel: params.isolationLevel,
          minOneMessage: this.minOneMessage,
          currentLeaderEpoch: request.currentLeaderEpoch,
          lastFetchedEpoch: request.lastFetchedEpoch,
          replicaId,
          followerLogStartOffset: request.logStartOffset,
          updateFetchState: this.updateFetchState,
          buffers: context.readBuffers,
        });
      } catch (error) {
        read = readError(context.errorCodeFor(error, topic, index, 'read'));
      }
      if (replicaId >= 0 && partition.highWatermark > highWatermarkBefore) (this.advanced ??= []).push(partition);
      if (read.records.length > 0) this.minOneMessage = false;
      this.remainingBytes = Math.max(0, this.remainingBytes - read.records.length);
      // Fields copied by name: cheaper than an object spread on every read.
      results.push({
        topic,
        partition: index,
        errorCode: read.errorCode,
        highWatermark: read.highWatermark,
        lastStableOffset: read.lastStableOffset,
        logStartOffset: read.logStartOffset,
        records: read.records,
        divergingEpoch: read.divergingEpoch,
        abortedTransactions: read.abortedTransactions,
      });
    }
  }

  /** Every partition read: wakes what waits on the partitions whose high watermark moved; the results. */
  finish(): FetchPartitionResult[] {
    // After the reads: completing waiting operations may read partitions again.
    if (this.advanced !== undefined) for (const partition of this.advanced) this.context.onHighWatermarkAdvanced(partition);
    return this.results;
  }
}

/** A partition answered with `errorCode` and no records. */
export function readError(errorCode: number): PartitionReadResult {
  return { errorCode, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, records: Buffer.alloc(0) };
}
