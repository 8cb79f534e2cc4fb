/**
 * Both ends of a replica Fetch in the simulation, on the real {@link Partition} and
 * {@link ReplicaManager}: what Kafka's Partition.fetchRecords does for a follower's Fetch on the
 * leader (epoch checks, the KIP-320 divergence check on last_fetched_epoch, the read up to the log
 * end, the follower's fetch state, the high watermark and the purgatory), and what its
 * ReplicaFetcherThread does with the answer (truncate on DivergingEpoch with
 * getOffsetTruncationState's rule, append the batches as they are, take the leader's high
 * watermark).
 *
 * Stand-ins, until the leader's replica Fetch handling and the ReplicaFetcher land on main: the
 * leader's epochs come from its batches (replication-batch-index.ts) rather than a
 * leader-epoch-checkpoint, and the follower's fetch state is written into the partition's
 * ReplicaState (Kafka's updateFollowerFetchState), which the Partition keeps private today.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { Partition } from '../replication/partition.js';
import type { PartitionLog } from '../replication/partition-log.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { ReplicaState } from '../replication/replica-state.js';
import { type EpochStart, endOffsetFor, epochsOf, invalidateBatchIndex } from './replication-batch-index.js';
import type { ReplicaFetchBody, ReplicaFetchResponseBody } from './replication-messages.js';

/** The leader-side state the simulation reads and writes through (private in Partition today). */
interface LeaderInternals {
  readonly remoteReplicas: Map<number, ReplicaState>;
  readonly leaderEpochStartOffset: number;
}

/** The leader's view of its followers (ReplicaState per assigned replica). */
export function remoteReplicasOf(partition: Partition): ReadonlyMap<number, ReplicaState> {
  return (partition as unknown as LeaderInternals).remoteReplicas;
}

/** The log end offset when the partition's leader became leader in this epoch. */
export function leaderEpochStartOffsetOf(partition: Partition): number {
  return (partition as unknown as LeaderInternals).leaderEpochStartOffset;
}

/** A leader's epochs: its batches' epochs, then its current epoch from its start (Kafka assigns it on becoming leader). */
export function leaderEpochsOf(partition: Partition): EpochStart[] {
  const epochs = epochsOf(partition.log);
  const last = epochs[epochs.length - 1];
  if (last === undefined || last.epoch < partition.leaderEpoch) epochs.push({ epoch: partition.leaderEpoch, startOffset: partition.logEndOffset });
  return epochs;
}

/** The epoch of a replica's last batch, -1 when it has none. */
export function lastFetchedEpochOf(log: PartitionLog): number {
  const epochs = epochsOf(log);
  return epochs[epochs.length - 1]?.epoch ?? -1;
}

function fetchError(body: ReplicaFetchBody, errorCode: number, leaderLogEndOffset = -1): ReplicaFetchResponseBody {
  return {
    kind: 'fetchResponse', requestId: body.requestId, topic: body.topic, partition: body.partition, errorCode,
    highWatermark: -1, logStartOffset: -1, leaderLogEndOffset, divergingEpoch: null, records: new Uint8Array(0),
  };
}

/**
 * The leader's side of one replica Fetch partition from `replicaId` at `nowMs` (Kafka's
 * ReplicaManager.fetchMessages → Partition.fetchRecords for a follower).
 */
export function answerReplicaFetch(replicaManager: ReplicaManager, replicaId: number, body: ReplicaFetchBody, nowMs: number): ReplicaFetchResponseBody {
  const partition = replicaManager.getPartition(body.topic, body.partition);
  if (partition === undefined) return fetchError(body, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  if (body.currentLeaderEpoch < partition.leaderEpoch) return fetchError(body, ErrorCode.FENCED_LEADER_EPOCH);
  if (body.currentLeaderEpoch > partition.leaderEpoch) return fetchError(body, ErrorCode.UNKNOWN_LEADER_EPOCH);
  if (!partition.isLeader) return fetchError(body, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  if (body.lastFetchedEpoch >= 0) {
    const end = endOffsetFor(leaderEpochsOf(partition), body.lastFetchedEpoch, partition.logEndOffset);
    if (end.epoch < body.lastFetchedEpoch || end.endOffset < body.fetchOffset) {
      return {
        kind: 'fetchResponse', requestId: body.requestId, topic: body.topic, partition: body.partition, errorCode: ErrorCode.NONE,
        highWatermark: partition.highWatermark, logStartOffset: partition.logStartOffset, leaderLogEndOffset: partition.logEndOffset,
        divergingEpoch: { epoch: end.epoch, endOffset: end.endOffset }, records: new Uint8Array(0),
      };
    }
  }
  const read = partition.readRecords({
    fetchOffset: body.fetchOffset, maxBytes: body.maxBytes, isolationLevel: 0, minOneMessage: true,
    currentLeaderEpoch: body.currentLeaderEpoch, fromFollower: true,
  });
  if (read.errorCode !== ErrorCode.NONE) return fetchError(body, read.errorCode, partition.logEndOffset);
  const replica = remoteReplicasOf(partition).get(replicaId);
  if (replica !== undefined) {
    replica.updateFetchState(body.fetchOffset, body.logStartOffset, nowMs, partition.logEndOffset);
    if (partition.maybeIncrementLeaderHighWatermark()) replicaManager.onHighWatermarkMaybeAdvanced(body.topic, body.partition, 0);
  }
  return {
    kind: 'fetchResponse', requestId: body.requestId, topic: body.topic, partition: body.partition, errorCode: ErrorCode.NONE,
    highWatermark: partition.highWatermark, logStartOffset: partition.logStartOffset, leaderLogEndOffset: partition.logEndOffset,
    divergingEpoch: null, records: Buffer.from(read.records),
  };
}

/** What a follower did with one Fetch answer. */
export type FollowerOutcome = 'appended' | 'truncated' | 'stale' | 'error';

/**
 * The follower's side: applies `response` to `partition` when it still answers `request` (same
 * leader epoch, same log end offset, still a follower); see the file header.
 */
export function applyFetchResponse(partition: Partition, request: ReplicaFetchBody, response: ReplicaFetchResponseBody): FollowerOutcome {
  if (partition.isLeader || partition.leaderEpoch !== request.currentLeaderEpoch || partition.logEndOffset !== request.fetchOffset) return 'stale';
  if (response.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE && response.leaderLogEndOffset >= 0 && response.leaderLogEndOffset < partition.logEndOffset) {
    // An unclean election left the leader shorter than this replica: Kafka truncates to its end.
    truncate(partition, response.leaderLogEndOffset);
    return 'truncated';
  }
  if (response.errorCode !== ErrorCode.NONE) return 'error';
  if (response.divergingEpoch !== null) {
    truncate(partition, truncationOffset(partition, response.divergingEpoch));
    return 'truncated';
  }
  if (response.records.length > 0) {
    const appended = partition.appendRecordsAsFollower(response.records);
    if (appended.errorCode !== ErrorCode.NONE) return 'error';
  }
  if (response.highWatermark >= 0) partition.updateFollowerHighWatermark(response.highWatermark);
  return 'appended';
}

/**
 * Kafka's getOffsetTruncationState: the leader's epoch E ended at L. If this log knows E, cut at
 * min(L, our end of E); if only an older epoch, at our end of it (the next fetch finds the rest);
 * with none at or below E, at L; when the leader knows no epoch (L = -1), at the high watermark.
 * Never above the log end offset.
 */
function truncationOffset(partition: Partition, diverging: { epoch: number; endOffset: number }): number {
  const log = partition.log;
  if (diverging.epoch < 0 || diverging.endOffset < 0) return Math.min(partition.highWatermark, log.logEndOffset);
  const ours = endOffsetFor(epochsOf(log), diverging.epoch, log.logEndOffset);
  // No epoch of ours at or below E (Kafka: "not tracking leader epochs then"): the leader's end of E.
  if (ours.epoch < 0 || ours.endOffset < 0) return Math.min(diverging.endOffset, log.logEndOffset);
  const offset = ours.epoch === diverging.epoch ? Math.min(diverging.endOffset, ours.endOffset) : ours.endOffset;
  return Math.min(offset, log.logEndOffset);
}

function truncate(partition: Partition, offset: number): void {
  partition.truncateTo(offset);
  invalidateBatchIndex(partition.log);
}
