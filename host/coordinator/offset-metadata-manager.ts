/**
 * Committed offsets of the groups of one `__consumer_offsets` partition (Kafka's
 * OffsetMetadataManager): OffsetCommit, OffsetFetch, OffsetDelete and expiry, as a state machine
 * without I/O whose changes are OffsetCommit records:
 *
 * - a commit becomes visible only when its records are appended: the completion replays them
 *   into the committed offsets (what loading does with the same records), so a coordinator that
 *   loads the partition elsewhere sees exactly what this one acknowledged;
 * - removals (OffsetDelete, expiry, deleted topics, deleted groups) take effect at once and
 *   write tombstones (see {@link GroupCoordinatorShard.cleanupGroupMetadata}); like Kafka the
 *   tombstone's append is not awaited.
 *
 * Commits in flight are staged before the append, because an OffsetFetch with RequireStable
 * must answer UNSTABLE_OFFSET_COMMIT (88) for them and the expiry must not remove an offset
 * whose commit is on its way (Kafka keeps them in its pending state the same way).
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { offsetCommitKey, offsetCommitValue } from './coordinator-records.js';
import type { CoordinatorResult, CoordinatorWriteQueue } from './coordinator-runtime.js';
import type {
  FetchedOffset,
  OffsetAndMetadata,
  TopicPartitionError,
  TopicPartitionOffset,
  TopicPartitionRef,
} from './coordinator-types.js';
import type { GroupCoordinatorConfig } from './group-coordinator-config.js';
import type { GroupMetadata } from './group-metadata.js';
import type { GroupMetadataManager } from './group-metadata-manager.js';
import { GroupOffsets } from './group-offsets.js';
import { GroupState } from './group-state.js';
import { mapStoreOffsetsError } from './store-errors.js';

/** OffsetCommit, as the coordinator needs it (the wire facade fills it from any version). */
export interface CommitOffsetsParams {
  groupId: string;
  /** "" for commits outside group management. */
  memberId: string;
  groupInstanceId: string | null;
  /** -1 for commits outside group management. */
  generationId: number;
  offsets: TopicPartitionOffset[];
}

/** TxnOffsetCommit (KIP-98; v3+ with the member's generation, KIP-447): a commit inside a producer's transaction. */
export interface TxnCommitOffsetsParams extends CommitOffsetsParams {
  producerId: number;
  producerEpoch: number;
}

export class OffsetMetadataManager {
  private readonly offsetsByGroup = new Map<string, GroupOffsets>();

  constructor(
    private readonly config: Readonly<GroupCoordinatorConfig>,
    private readonly groups: GroupMetadataManager,
    private readonly writes: CoordinatorWriteQueue,
  ) {}

  /**
   * Applies one OffsetCommit record (a null value is a tombstone); a record of a transactional
   * batch (`producerId` set) is pending until that producer's marker is replayed.
   */
  replay(groupId: string, topic: string, partition: number, value: OffsetAndMetadata | null, producerId?: number): void {
    if (producerId !== undefined && value !== null) {
      this.offsetsOf(groupId).replayTransactionalOffsetCommit(producerId, topic, partition, value);
      return;
    }
    if (value === null) {
      this.offsetsByGroup.get(groupId)?.replayOffsetTombstone(topic, partition);
      return;
    }
    this.offsetsOf(groupId).replayOffsetCommit(topic, partition, value);
  }

  /** Group ids with committed (or staged) offsets. */
  groupIdsWithOffsets(): string[] {
    return [...this.offsetsByGroup].filter(([, offsets]) => offsets.hasOffsets).map(([groupId]) => groupId);
  }

  /** Whether the group has committed offsets or commits in flight (an Empty group with none dies). */
  hasOffsets(groupId: string): boolean {
    return this.offsetsByGroup.get(groupId)?.hasOffsets ?? false;
  }

  /** Committed offsets of `groupId` (staged commits not counted). */
  offsetCount(groupId: string): number {
    return this.offsetsByGroup.get(groupId)?.size ?? 0;
  }

  /** The committed offset of one partition; undefined when none. */
  committedOffset(groupId: string, topic: string, partition: number): OffsetAndMetadata | undefined {
    return this.offsetsByGroup.get(groupId)?.offset(topic, partition);
  }

  /** The (topic, partition)s `groupId` has committed offsets for, in commit order per topic. */
  committedPartitions(groupId: string): TopicPartitionRef[] {
    const offsets = this.offsetsByGroup.get(groupId);
    if (offsets === undefined) return [];
    return [...offsets.offsets.entries()].map(([topic, partition]) => ({ topic, partition }));
  }

  /** OffsetCommit as an operation: the OffsetCommit records and the answer, resolved once they are appended. */
  commitOffsets(params: CommitOffsetsParams): CoordinatorResult<Promise<TopicPartitionError[]>> {
    const response = new Promise<TopicPartitionError[]>((resolve) => this.handleCommitOffsets(params, resolve));
    return this.writes.result(response);
  }

  /**
   * OffsetCommit. Calls back after the append (one error per entry, in order): NONE, or
   * ILLEGAL_GENERATION (22), UNKNOWN_MEMBER_ID (25), REBALANCE_IN_PROGRESS (27, while
   * CompletingRebalance), FENCED_INSTANCE_ID (82), OFFSET_METADATA_TOO_LARGE (12), the mapped
   * append error (COORDINATOR_NOT_AVAILABLE 15, NOT_COORDINATOR 16, INVALID_COMMIT_OFFSET_SIZE 28).
   * The group's status (coordinator, loaded) was checked by the caller.
   */
  private handleCommitOffsets(params: CommitOffsetsParams, callback: (errors: TopicPartitionError[]) => void): void {
    const all = (errorCode: number) =>
      callback(params.offsets.map((entry) => ({ topic: entry.topic, partition: entry.partition, errorCode })));
    let group = this.groups.getGroup(params.groupId);
    if (group === undefined) {
      // A group unknown here takes commits only from outside group management; anything else
      // comes from a generation that no longer exists.
      if (params.generationId >= 0) {
        all(ErrorCode.ILLEGAL_GENERATION);
        return;
      }
      // Created before the append (a simple consumer's "group" holds only offsets); Kafka does
      // the same, and an Empty group without offsets is removed by the next cleanup.
      group = this.groups.getOrMaybeCreateGroup(params.groupId, true)!;
    }
    const validationError = this.validateOffsetCommit(group, params);
    if (validationError !== null) {
      all(validationError);
      return;
    }
    switch (group.state) {
      case GroupState.Empty:
        this.storeOffsets(group, params.offsets, callback);
        return;
      case GroupState.Stable:
      case GroupState.PreparingRebalance: {
        // Commits during PreparingRebalance are fine: the heartbeat tells the member to re-join.
        this.groups.rescheduleSession(group, group.get(params.memberId));
        this.storeOffsets(group, params.offsets, callback);
        return;
      }
      case GroupState.CompletingRebalance:
        // The member knows the new generation from its JoinGroup response but has no assignment yet.
        all(ErrorCode.REBALANCE_IN_PROGRESS);
        return;
      case GroupState.Dead:
        throw new Error('unreachable');
    }
  }

  /** TxnOffsetCommit as an operation: the producer's transactional OffsetCommit records and the answer once appended. */
  commitTransactionalOffsets(params: TxnCommitOffsetsParams): CoordinatorResult<Promise<TopicPartitionError[]>> {
    const response = new Promise<TopicPartitionError[]>((resolve) => this.handleTxnCommitOffsets(params, resolve));
    return this.writes.result(response);
  }

  /**
   * Kafka's doTxnCommitOffsets: an unknown group is created; a member id, when given, must be a
   * member (UNKNOWN_MEMBER_ID 25, FENCED_INSTANCE_ID 82), a generation, when given, the current
   * one (ILLEGAL_GENERATION 22). The offsets stay pending until the transaction's marker.
   */
  private handleTxnCommitOffsets(params: TxnCommitOffsetsParams, callback: (errors: TopicPartitionError[]) => void): void {
    const all = (errorCode: number) =>
      callback(params.offsets.map((entry) => ({ topic: entry.topic, partition: entry.partition, errorCode })));
    const group = this.groups.getGroup(params.groupId) ?? this.groups.getOrMaybeCreateGroup(params.groupId, true)!;
    if (group.is(GroupState.Dead)) return all(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (params.memberId !== '' || params.groupInstanceId !== null) {
      const memberError = this.groups.validateCurrentMember(group, params.memberId, params.groupInstanceId);
      if (memberError !== null) return all(memberError);
    }
    if (params.generationId >= 0 && params.generationId !== group.generationId) return all(ErrorCode.ILLEGAL_GENERATION);
    this.storeOffsets(group, params.offsets, callback, { producerId: params.producerId, producerEpoch: params.producerEpoch });
  }

  /**
   * The transaction of `producerId` ended (its marker on this `__consumer_offsets` partition):
   * its pending offsets, in every group of the partition, become committed or are dropped.
   * Returns how many offsets it settled.
   */
  completeTransaction(producerId: number, commit: boolean): number {
    let settled = 0;
    for (const offsets of this.offsetsByGroup.values()) settled += offsets.completeTransaction(producerId, commit);
    return settled;
  }

  private validateOffsetCommit(group: GroupMetadata, params: CommitOffsetsParams): number | null {
    if (group.is(GroupState.Dead)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (params.generationId >= 0 || params.memberId !== '' || params.groupInstanceId !== null) {
      const memberError = this.groups.validateCurrentMember(group, params.memberId, params.groupInstanceId);
      if (memberError !== null) return memberError;
      if (params.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
      return null;
    }
    // Only members may commit to a group that has members.
    if (!group.is(GroupState.Empty)) return ErrorCode.UNKNOWN_MEMBER_ID;
    return null;
  }

  /**
   * Appends commits to a validated group: queues the records and, once appended, replays them.
   * `callback` gets one error per input entry, in order: OFFSET_METADATA_TOO_LARGE (12) for
   * metadata longer than offset.metadata.max.bytes, else the mapped append error (Kafka's
   * storeOffsets). With a `producer` (TxnOffsetCommit) the records are that producer's
   * transactional batch and the offsets stay pending until its transaction ends.
   */
  storeOffsets(
    group: GroupMetadata, offsets: readonly TopicPartitionOffset[], callback: (errors: TopicPartitionError[]) => void,
    producer?: { producerId: number; producerEpoch: number },
  ): void {
    const metadataFits = (entry: TopicPartitionOffset) => entry.offsetAndMetadata.metadata.length <= this.config.offsetMetadataMaxBytes;
    const respond = (errorCode: number) =>
      callback(offsets.map((entry) => ({
        topic: entry.topic,
        partition: entry.partition,
        errorCode: metadataFits(entry) ? errorCode : ErrorCode.OFFSET_METADATA_TOO_LARGE,
      })));
    const filtered = offsets.filter(metadataFits);
    if (filtered.length === 0) {
      respond(ErrorCode.OFFSET_METADATA_TOO_LARGE);
      return;
    }
    const records = filtered.map((entry) => ({
      key: offsetCommitKey(group.groupId, entry.topic, entry.partition),
      value: offsetCommitValue(entry.offsetAndMetadata),
    }));
    const staged = this.offsetsOf(group.groupId);
    if (producer !== undefined) {
      for (const entry of filtered) staged.replayTransactionalOffsetCommit(producer.producerId, entry.topic, entry.partition, entry.offsetAndMetadata);
    } else staged.prepareOffsetCommit(filtered);
    this.writes.append(records, (errorCode) => {
      // A group deleted while its commit was in flight lost its staged commits with it.
      if (!group.is(GroupState.Dead)) {
        for (const entry of filtered) {
          if (producer !== undefined) {
            if (errorCode !== ErrorCode.NONE) staged.failTransactionalOffsetWrite(producer.producerId, entry.topic, entry.partition, entry.offsetAndMetadata);
          } else if (errorCode === ErrorCode.NONE) staged.onOffsetCommitAppend(entry.topic, entry.partition, entry.offsetAndMetadata);
          else staged.failPendingOffsetWrite(entry.topic, entry.partition, entry.offsetAndMetadata);
        }
      }
      respond(mapStoreOffsetsError(errorCode));
    }, producer);
  }

  /**
   * Committed offsets of `groupId`: for the given partitions (offset -1 and metadata "" where
   * nothing is committed), or for every committed partition when `partitions` is null. With
   * `requireStable`, a partition whose commit is still being written answers
   * UNSTABLE_OFFSET_COMMIT (88). Answered whatever the group's state, since groups may use Kafka
   * only to store offsets (Kafka's getOffsets).
   */
  fetchOffsets(groupId: string, requireStable: boolean, partitions: readonly TopicPartitionRef[] | null): FetchedOffset[] {
    const none = (ref: TopicPartitionRef, errorCode: number = ErrorCode.NONE): FetchedOffset => ({
      topic: ref.topic,
      partition: ref.partition,
      offset: -1,
      leaderEpoch: -1,
      metadata: '',
      errorCode,
    });
    const group = this.groups.getGroup(groupId);
    const offsets = this.offsetsByGroup.get(groupId);
    if (group === undefined || group.is(GroupState.Dead) || offsets === undefined) return (partitions ?? []).map((ref) => none(ref));
    const refs = partitions ?? this.committedPartitions(groupId);
    return refs.map((ref) => {
      if (requireStable && offsets.hasPendingOffsetCommit(ref.topic, ref.partition)) return none(ref, ErrorCode.UNSTABLE_OFFSET_COMMIT);
      const committed = offsets.offset(ref.topic, ref.partition);
      if (committed === undefined) return none(ref);
      return {
        topic: ref.topic,
        partition: ref.partition,
        offset: committed.offset,
        leaderEpoch: committed.leaderEpoch,
        metadata: committed.metadata,
        errorCode: ErrorCode.NONE,
      };
    });
  }

  /**
   * Which of `partitions` OffsetDelete may remove from a live group: all of an Empty group's, or
   * of a consumer group those of topics no member subscribes to (the others answer
   * GROUP_SUBSCRIBED_TO_TOPIC, 86). A non-consumer group with members: NON_EMPTY_GROUP (68).
   */
  deletableOffsets(group: GroupMetadata, partitions: readonly TopicPartitionRef[]): { errorCode: number; eligible: TopicPartitionRef[]; refused: TopicPartitionError[] } {
    if (group.is(GroupState.Empty)) return { errorCode: ErrorCode.NONE, eligible: [...partitions], refused: [] };
    if (!group.isConsumerGroup) return { errorCode: ErrorCode.NON_EMPTY_GROUP, eligible: [], refused: [] };
    const eligible: TopicPartitionRef[] = [];
    const refused: TopicPartitionError[] = [];
    for (const ref of partitions) {
      if (group.isSubscribedToTopic(ref.topic)) refused.push({ ...ref, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC });
      else eligible.push(ref);
    }
    return { errorCode: ErrorCode.NONE, eligible, refused };
  }

  /** Removes offsets of `partitions` (and their staged commits); returns those that existed. */
  removeOffsets(groupId: string, partitions: readonly TopicPartitionRef[]): TopicPartitionOffset[] {
    return this.offsetsByGroup.get(groupId)?.removeOffsets(partitions) ?? [];
  }

  /** Removes every committed offset of the group (DeleteGroups); returns them. */
  removeAllOffsets(groupId: string): TopicPartitionOffset[] {
    return this.removeOffsets(groupId, this.committedPartitions(groupId));
  }

  /** Removes the offsets of `group` expired at `nowMs` (see GroupOffsets.removeExpiredOffsets). */
  removeExpiredOffsets(group: GroupMetadata, nowMs: number): TopicPartitionOffset[] {
    const retentionMs = this.config.offsetsRetentionMinutes * 60_000;
    return this.offsetsByGroup.get(group.groupId)?.removeExpiredOffsets(group, nowMs, retentionMs) ?? [];
  }

  /** Removes the offsets of every group on `topics` (Kafka's handleDeletedPartitions). */
  removeOffsetsOfTopics(groupId: string, topics: ReadonlySet<string>): TopicPartitionOffset[] {
    return this.removeOffsets(groupId, this.committedPartitions(groupId).filter((ref) => topics.has(ref.topic)));
  }

  /** A group died and left the cache: its staged commits go with it (their completions find it Dead). */
  forgetGroup(groupId: string): void {
    this.offsetsByGroup.delete(groupId);
  }

  private offsetsOf(groupId: string): GroupOffsets {
    let offsets = this.offsetsByGroup.get(groupId);
    if (offsets === undefined) {
      offsets = new GroupOffsets();
      this.offsetsByGroup.set(groupId, offsets);
    }
    return offsets;
  }
}
