/**
 * The two ends of replication in the simulation around the real ReplicaFetcher:
 *
 * - the leader's side of a replica Fetch, on the real {@link Partition} and
 *   {@link ReplicaManager}: what Kafka's Partition.fetchRecords does for a follower (epoch checks,
 *   the KIP-320 divergence check of last_fetched_epoch with Partition.lastOffsetForLeaderEpoch,
 *   the read up to the log end, the follower's fetch state, the high watermark, the purgatory);
 *   ListOffsets from a replica (earliest = log start, latest = log end);
 * - {@link FetcherReplica}: a follower Partition as the ReplicaFetcher's FetcherPartition.
 *
 * The leader's side is Partition.readRecords with the follower's replica id (what the Fetch
 * handler calls through ReplicaManager.readFromLocalLog), answered at once.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { LeaderOffset, ReplicaFetchPartition, ReplicaFetchPartitionData, ReplicaFetchRequest, ReplicaFetchResponse } from '../replication/leader-end-point.js';
import type { Partition } from '../replication/partition.js';
import type { FetcherPartition } from '../replication/partition-fetch-state.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { invalidateBatchIndex } from './replication-batch-index.js';

function partitionError(request: ReplicaFetchPartition, errorCode: number): ReplicaFetchPartitionData {
  return { topic: request.topic, partition: request.partition, errorCode, highWatermark: -1, logStartOffset: -1, divergingEpoch: null, records: null };
}

/**
 * The leader's side of one replica Fetch from `replicaId` at `nowMs` (Kafka's
 * ReplicaManager.fetchMessages → Partition.fetchRecords for a follower), answered now.
 */
export function answerReplicaFetch(replicaManager: ReplicaManager, replicaId: number, request: ReplicaFetchRequest, nowMs: number): ReplicaFetchResponse {
  let remainingBytes = request.maxBytes;
  const partitions = request.partitions.map((entry) => {
    const answer = answerPartition(replicaManager, replicaId, entry, Math.min(entry.partitionMaxBytes, remainingBytes), nowMs);
    remainingBytes = Math.max(0, remainingBytes - (answer.records?.length ?? 0));
    return answer;
  });
  return { errorCode: ErrorCode.NONE, partitions };
}

function answerPartition(replicaManager: ReplicaManager, replicaId: number, request: ReplicaFetchPartition, maxBytes: number, nowMs: number): ReplicaFetchPartitionData {
  const partition = replicaManager.getPartition(request.topic, request.partition);
  if (partition === undefined) return partitionError(request, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  // Kafka's Partition.fetchRecords for a follower: epochs, KIP-320 divergence, the read up to the
  // log end, the follower's fetch state and the high watermark (Partition.readRecords).
  const highWatermarkBefore = partition.highWatermark;
  const read = partition.readRecords({
    fetchOffset: request.fetchOffset, maxBytes, isolationLevel: 0, minOneMessage: true,
    currentLeaderEpoch: request.currentLeaderEpoch, lastFetchedEpoch: request.lastFetchedEpoch,
    replicaId, followerLogStartOffset: request.logStartOffset,
  });
  if (read.errorCode !== ErrorCode.NONE) return partitionError(request, read.errorCode);
  if (partition.highWatermark > highWatermarkBefore) {
    replicaManager.onHighWatermarkMaybeAdvanced(request.topic, request.partition, partition.lastHighWatermarkAdvanceBytes);
  }
  return {
    topic: request.topic, partition: request.partition, errorCode: ErrorCode.NONE, highWatermark: read.highWatermark,
    logStartOffset: read.logStartOffset, divergingEpoch: read.divergingEpoch ?? null,
    records: read.divergingEpoch === undefined ? Buffer.from(read.records) : null,
  };
}

/** ListOffsets from a replica: the leader's log start (-2) or log end (-1), after the epoch checks. */
export function answerReplicaListOffsets(replicaManager: ReplicaManager, topic: string, index: number, currentLeaderEpoch: number, timestamp: -1 | -2): LeaderOffset {
  const partition = replicaManager.getPartition(topic, index);
  if (partition === undefined) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, offset: -1 };
  if (currentLeaderEpoch < partition.leaderEpoch) return { errorCode: ErrorCode.FENCED_LEADER_EPOCH, offset: -1 };
  if (currentLeaderEpoch > partition.leaderEpoch) return { errorCode: ErrorCode.UNKNOWN_LEADER_EPOCH, offset: -1 };
  if (!partition.isLeader) return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, offset: -1 };
  return { errorCode: ErrorCode.NONE, offset: timestamp === -2 ? partition.logStartOffset : partition.logEndOffset };
}

/** True when a Fetch answer carries nothing for the follower yet (the leader may hold it: long poll). */
export function isEmptyAnswer(response: ReplicaFetchResponse): boolean {
  return response.partitions.every((p) => p.errorCode === ErrorCode.NONE && p.divergingEpoch === null && (p.records?.length ?? 0) === 0);
}

/**
 * A follower {@link Partition} as the ReplicaFetcher sees it (what the BrokerMetadataPublisher
 * will hand the fetcher manager); truncations also reset the simulator's batch index.
 */
export class FetcherReplica implements FetcherPartition {
  constructor(readonly partitionState: Partition) {}

  get topic(): string {
    return this.partitionState.topic;
  }

  get partition(): number {
    return this.partitionState.partition;
  }

  get logStartOffset(): number {
    return this.partitionState.logStartOffset;
  }

  get logEndOffset(): number {
    return this.partitionState.logEndOffset;
  }

  get latestEpoch(): number {
    return this.partitionState.latestEpoch;
  }

  endOffsetForEpoch(leaderEpoch: number): { leaderEpoch: number; endOffset: number } | null {
    return this.partitionState.endOffsetForEpoch(leaderEpoch);
  }

  appendRecordsAsFollower(records: Uint8Array): { errorCode: number } {
    return this.partitionState.appendRecordsAsFollower(records);
  }

  truncateTo(offset: number): void {
    this.partitionState.truncateTo(offset);
    invalidateBatchIndex(this.partitionState.log);
  }

  truncateFullyAndStartAt(offset: number): void {
    this.partitionState.truncateFullyAndStartAt(offset);
    invalidateBatchIndex(this.partitionState.log);
  }

  updateFollowerHighWatermark(leaderHighWatermark: number): boolean {
    return this.partitionState.updateFollowerHighWatermark(leaderHighWatermark);
  }

  updateFollowerLogStartOffset(leaderLogStartOffset: number): number {
    return this.partitionState.updateFollowerLogStartOffset(leaderLogStartOffset);
  }
}
