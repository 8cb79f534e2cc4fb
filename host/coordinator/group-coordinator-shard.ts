/**
 * The group coordinator's state for one `__consumer_offsets` partition (Kafka's
 * GroupCoordinatorShard): the classic groups ({@link GroupMetadataManager}) and their committed
 * offsets ({@link OffsetMetadataManager}) of the groups hashing to that partition, run by the
 * {@link CoordinatorRuntime}. It dispatches replayed records to the two managers and does what
 * needs both: the cleanups that remove offsets and then the groups left Empty without any
 * (OffsetDelete, DeleteGroups, deleted topics, offset expiry), writing their tombstones.
 */
import type { Logger } from 'pino';
import type { RandomSource } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  groupMetadataKey,
  offsetCommitKey,
  readCoordinatorRecordKey,
  readGroupMetadataValue,
  readOffsetCommitValue,
} from './coordinator-records.js';
import type { CoordinatorRecord, CoordinatorResult, CoordinatorShard, CoordinatorShardContext, CoordinatorWriteQueue } from './coordinator-runtime.js';
import type { OffsetDeleteResult, TopicPartitionError, TopicPartitionOffset, TopicPartitionRef } from './coordinator-types.js';
import type { GroupCoordinatorConfig } from './group-coordinator-config.js';
import type { GroupMetadata } from './group-metadata.js';
import { GroupMetadataManager } from './group-metadata-manager.js';
import { GroupState } from './group-state.js';
import { OffsetMetadataManager } from './offset-metadata-manager.js';

/** What loading one partition found (groupsLoaded and offsetsLoaded are set by onLoaded). */
export interface ShardLoadCounts {
  groupsLoaded: number;
  offsetsLoaded: number;
}

export class GroupCoordinatorShard implements CoordinatorShard {
  readonly groups: GroupMetadataManager;
  readonly offsets: OffsetMetadataManager;
  readonly loadCounts: ShardLoadCounts = { groupsLoaded: 0, offsetsLoaded: 0 };
  /** Where both managers queue their records; the runtime appends them. */
  readonly writes: CoordinatorWriteQueue;

  constructor(
    private readonly context: CoordinatorShardContext,
    config: Readonly<GroupCoordinatorConfig>,
    random: Pick<RandomSource, 'uuid'>,
    private readonly logger: Logger | null,
    nextCreationOrder: () => number,
  ) {
    this.writes = context.writes;
    this.groups = new GroupMetadataManager(config, context, random, logger, nextCreationOrder);
    this.offsets = new OffsetMetadataManager(config, this.groups, context.writes);
  }

  /**
   * Applies one `__consumer_offsets` record: OffsetCommit keys (versions 0-1) to the offsets,
   * GroupMetadata keys (version 2) to the groups; latest record wins, a null value deletes.
   * False for records skipped: null keys, undecodable keys or values, record types of newer
   * coordinators (key versions 3+).
   */
  replay(record: CoordinatorRecord): boolean {
    if (record.control !== undefined) {
      // A transaction marker: the producer's pending transactional offsets settle.
      this.offsets.completeTransaction(record.producerId ?? -1, record.control === 'commit');
      return true;
    }
    const key = record.key === null ? null : readCoordinatorRecordKey(record.key);
    if (key === null || key.type === 'other') return false;
    if (key.type === 'offsetCommit') {
      if (record.value === null) {
        this.offsets.replay(key.group, key.topic, key.partition, null);
        return true;
      }
      const value = readOffsetCommitValue(record.value);
      if (value === null) return false;
      this.offsets.replay(key.group, key.topic, key.partition, value, record.producerId);
      return true;
    }
    if (record.value === null) return this.groups.replay(key.group, null);
    const value = readGroupMetadataValue(record.value);
    return value !== null && this.groups.replay(key.group, value);
  }

  /** Restores the groups' sessions and counts what the load found ({@link loadCounts}). */
  onLoaded(): void {
    const groupIdsWithOffsets = this.offsets.groupIdsWithOffsets();
    this.loadCounts.groupsLoaded = this.groups.onLoaded(groupIdsWithOffsets);
    let offsetsLoaded = 0;
    for (const groupId of groupIdsWithOffsets) offsetsLoaded += this.offsets.offsetCount(groupId);
    this.loadCounts.offsetsLoaded = offsetsLoaded;
  }

  /** Every group dies; what its members wait for is answered NOT_COORDINATOR (16). */
  onUnloaded(): void {
    this.groups.onUnloaded();
  }

  /**
   * Removes offsets chosen by `selector` from each group, kills groups left Empty without
   * offsets, and queues the tombstones (offsets; the group key for dead groups of generation >
   * 0). Like Kafka the write is not awaited: a failed tombstone is logged. Returns the number of
   * offsets removed.
   */
  cleanupGroupMetadata(groups: Iterable<GroupMetadata>, selector: (group: GroupMetadata) => TopicPartitionOffset[]): number {
    let offsetsRemoved = 0;
    const nowMs = this.context.time.nowMs();
    for (const group of groups) {
      const removed = selector(group);
      if (group.is(GroupState.Empty) && !this.offsets.hasOffsets(group.groupId)) {
        group.transitionTo(GroupState.Dead, nowMs);
        this.logger?.info({ groupId: group.groupId, generationId: group.generationId }, 'group transitioned to Dead');
      }
      const tombstones: CoordinatorRecord[] = removed.map((entry) => ({
        key: offsetCommitKey(group.groupId, entry.topic, entry.partition),
        value: null,
      }));
      if (group.is(GroupState.Dead) && this.groups.removeGroup(group)) {
        this.offsets.forgetGroup(group.groupId);
        if (group.generationId > 0) tombstones.push({ key: groupMetadataKey(group.groupId), value: null });
      }
      offsetsRemoved += removed.length;
      this.context.writes.append(tombstones, (errorCode) => {
        if (errorCode !== ErrorCode.NONE) {
          this.logger?.warn({ groupId: group.groupId, errorCode }, 'failed to append tombstones; they are retried on the next cleanup');
        }
      });
    }
    return offsetsRemoved;
  }

  /** A transaction marker was appended to this partition: the producer's pending offsets settle. */
  onTransactionCompleted(producerId: number, commit: boolean): CoordinatorResult<number> {
    return this.writes.result(this.offsets.completeTransaction(producerId, commit));
  }

  /** OffsetDelete as an operation: the answer and the tombstones. */
  deleteOffsets(groupId: string, partitions: readonly TopicPartitionRef[]): CoordinatorResult<OffsetDeleteResult> {
    return this.writes.result(this.handleDeleteOffsets(groupId, partitions));
  }

  /**
   * OffsetDelete on a group of this shard (its status checked by the caller). Group-level
   * errors: GROUP_ID_NOT_FOUND (69), NON_EMPTY_GROUP (68); per partition NONE or
   * GROUP_SUBSCRIBED_TO_TOPIC (86), in request order.
   */
  private handleDeleteOffsets(groupId: string, partitions: readonly TopicPartitionRef[]): OffsetDeleteResult {
    const group = this.groups.getGroup(groupId);
    if (group === undefined || group.is(GroupState.Dead)) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, partitions: [] };
    const { errorCode, eligible, refused } = this.offsets.deletableOffsets(group, partitions);
    if (errorCode !== ErrorCode.NONE) return { errorCode, partitions: [] };
    const results: TopicPartitionError[] = refused;
    if (eligible.length > 0) {
      const removed = this.cleanupGroupMetadata([group], (g) => this.offsets.removeOffsets(g.groupId, eligible));
      for (const ref of eligible) results.push({ ...ref, errorCode: ErrorCode.NONE });
      this.logger?.info({ groupId, offsetsRemoved: removed }, 'deleted offsets');
    }
    const order = new Map(partitions.map((ref, index) => [`${ref.topic}\u0000${ref.partition}`, index] as const));
    results.sort((a, b) => order.get(`${a.topic}\u0000${a.partition}`)! - order.get(`${b.topic}\u0000${b.partition}`)!);
    return { errorCode: ErrorCode.NONE, partitions: results };
  }

  /** DeleteGroups as an operation: error per group id and the tombstones. */
  deleteGroups(groupIds: readonly string[]): CoordinatorResult<Map<string, number>> {
    return this.writes.result(this.handleDeleteGroups(groupIds));
  }

  /**
   * DeleteGroups for groups of this shard: Empty groups die with their offsets (tombstones
   * written); others NON_EMPTY_GROUP (68), unknown ones GROUP_ID_NOT_FOUND (69).
   */
  private handleDeleteGroups(groupIds: readonly string[]): Map<string, number> {
    const errors = new Map<string, number>();
    const eligible: GroupMetadata[] = [];
    const nowMs = this.context.time.nowMs();
    for (const groupId of groupIds) {
      const group = this.groups.getGroup(groupId);
      if (group === undefined || group.is(GroupState.Dead)) {
        errors.set(groupId, ErrorCode.GROUP_ID_NOT_FOUND);
      } else if (group.is(GroupState.Empty)) {
        group.transitionTo(GroupState.Dead, nowMs);
        eligible.push(group);
        errors.set(groupId, ErrorCode.NONE);
      } else {
        errors.set(groupId, ErrorCode.NON_EMPTY_GROUP);
      }
    }
    if (eligible.length > 0) {
      const removed = this.cleanupGroupMetadata(eligible, (group) => this.offsets.removeAllOffsets(group.groupId));
      this.logger?.info({ groups: eligible.map((group) => group.groupId), offsetsRemoved: removed }, 'deleted groups');
    }
    return errors;
  }

  /** Deleted topics as an operation: offsets removed and their tombstones. */
  onTopicsDeleted(topics: ReadonlySet<string>): CoordinatorResult<number> {
    return this.writes.result(this.handleTopicsDeleted(topics));
  }

  /** Topics were deleted: their committed offsets go from every group (Kafka's handleDeletedPartitions). */
  private handleTopicsDeleted(topics: ReadonlySet<string>): number {
    return this.cleanupGroupMetadata(this.groups.currentGroups(), (group) => this.offsets.removeOffsetsOfTopics(group.groupId, topics));
  }

  /** Offset expiry as an operation: offsets removed and their tombstones. */
  cleanupExpiredOffsets(): CoordinatorResult<number> {
    return this.writes.result(this.handleCleanupExpiredOffsets());
  }

  /** Expires offsets per offsets.retention.minutes (Kafka's periodic cleanup). */
  private handleCleanupExpiredOffsets(): number {
    const nowMs = this.context.time.nowMs();
    return this.cleanupGroupMetadata(this.groups.allGroups(), (group) => this.offsets.removeExpiredOffsets(group, nowMs));
  }
}
