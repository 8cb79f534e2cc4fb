/**
 * The group coordinator's cache of groups and committed offsets, and its persistence in
 * `__consumer_offsets` (Kafka's GroupMetadataManager.scala):
 *
 * - storeGroup: a GroupMetadataValue after a rebalance completes (the leader's SyncGroup), when a
 *   group becomes Empty, or when a static member's id is replaced without a rebalance;
 * - storeOffsets: one OffsetCommitValue per committed partition; the commit becomes visible and
 *   is acknowledged only after the append succeeded;
 * - cleanupGroupMetadata: offset tombstones for expired or deleted offsets, and a group
 *   tombstone when a group dies (not for generation-0 groups, which only ever stored offsets);
 * - load: replays a partition's records (latest wins, tombstones delete) into groups and offsets.
 *
 * No I/O of its own: batches go through the injected {@link OffsetsTopic}, time through the
 * {@link Scheduler}.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { GroupMetadataValue } from '../protocol/generated/group-metadata-value.js';
import {
  groupMetadataKey,
  groupMetadataValue,
  offsetCommitKey,
  offsetCommitValue,
  readCoordinatorRecordKey,
  readGroupMetadataValue,
  readOffsetCommitValue,
} from './coordinator-records.js';
import type {
  FetchedOffset,
  OffsetAndMetadata,
  TopicPartitionError,
  TopicPartitionOffset,
  TopicPartitionRef,
} from './coordinator-types.js';
import type { GroupCoordinatorConfig } from './group-coordinator-config.js';
import { GroupMetadata } from './group-metadata.js';
import { GroupState } from './group-state.js';
import { MemberMetadata } from './member-metadata.js';
import { buildOffsetsBatch } from './offsets-batch.js';
import { partitionForGroup, type OffsetsTopic, type OffsetsTopicRecord } from './offsets-topic.js';
import type { Scheduler } from './scheduler.js';
import { TopicPartitionMap } from './topic-partition-map.js';

/** What a load of one `__consumer_offsets` partition found. */
export interface LoadSummary {
  partition: number;
  groupsLoaded: number;
  offsetsLoaded: number;
  /** Records skipped: null keys, undecodable keys or values, record types of newer coordinators. */
  recordsSkipped: number;
}

export class GroupMetadataManager {
  private readonly groups = new Map<string, GroupMetadata>();
  private readonly ownedPartitions = new Set<number>();

  constructor(
    private readonly config: GroupCoordinatorConfig,
    private readonly offsetsTopic: OffsetsTopic,
    private readonly scheduler: Scheduler,
    private readonly logger: Logger | null,
    /** Called for each group that dies in a cleanup and leaves the cache (to cancel its timers). */
    private readonly onGroupRemoved: (group: GroupMetadata) => void = () => {},
  ) {}

  /** The `__consumer_offsets` partition of `groupId`. */
  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.config.offsetsTopicNumPartitions);
  }

  isPartitionOwned(partition: number): boolean {
    return this.ownedPartitions.has(partition);
  }

  /** This coordinator has loaded (and so owns) the partition of `groupId`. */
  isGroupLocal(groupId: string): boolean {
    return this.ownedPartitions.has(this.partitionFor(groupId));
  }

  getGroup(groupId: string): GroupMetadata | undefined {
    return this.groups.get(groupId);
  }

  /** The group, or a new Empty one when `createIfNotExist`; undefined otherwise. */
  getOrMaybeCreateGroup(groupId: string, createIfNotExist: boolean): GroupMetadata | undefined {
    const existing = this.groups.get(groupId);
    if (existing !== undefined || !createIfNotExist) return existing;
    const group = new GroupMetadata(groupId, GroupState.Empty, this.scheduler.nowMs());
    this.groups.set(groupId, group);
    return group;
  }

  /** The group is ours and does not exist (or is Dead): GROUP_ID_NOT_FOUND rather than NOT_COORDINATOR. */
  groupNotExists(groupId: string): boolean {
    if (!this.isGroupLocal(groupId)) return false;
    const group = this.groups.get(groupId);
    return group === undefined || group.is(GroupState.Dead);
  }

  /** Every cached group, Dead ones excluded. */
  currentGroups(): GroupMetadata[] {
    return [...this.groups.values()].filter((group) => !group.is(GroupState.Dead));
  }

  /**
   * Persists the group's metadata with the given assignment (member id -> bytes; every member
   * must have one) and reports the mapped append error: COORDINATOR_NOT_AVAILABLE (15) for
   * replication-type failures, NOT_COORDINATOR (16) for NOT_LEADER_OR_FOLLOWER or
   * KAFKA_STORAGE_ERROR, UNKNOWN_SERVER_ERROR (-1) for oversized records (Kafka's storeGroup).
   */
  storeGroup(group: GroupMetadata, assignment: ReadonlyMap<string, Uint8Array>, callback: (errorCode: number) => void): void {
    const partition = this.partitionFor(group.groupId);
    if (!this.ownedPartitions.has(partition)) {
      callback(ErrorCode.NOT_COORDINATOR);
      return;
    }
    const value = groupMetadataValue({
      protocolType: group.protocolType ?? '',
      generation: group.generationId,
      protocol: group.protocolName,
      leader: group.leaderId,
      currentStateTimestamp: group.currentStateTimestampMs ?? -1,
      members: [...group.members.values()].map((member) => {
        if (group.protocolName === null) throw new Error(`Non-empty group ${group.groupId} without a protocol`);
        const memberAssignment = assignment.get(member.memberId);
        if (memberAssignment === undefined) throw new Error(`No assignment for member ${member.memberId} of ${group.groupId}`);
        return {
          memberId: member.memberId,
          groupInstanceId: member.groupInstanceId,
          clientId: member.clientId,
          clientHost: member.clientHost,
          rebalanceTimeout: member.rebalanceTimeoutMs,
          sessionTimeout: member.sessionTimeoutMs,
          subscription: member.metadata(group.protocolName),
          assignment: memberAssignment,
        };
      }),
    });
    this.append(partition, [{ key: groupMetadataKey(group.groupId), value }], (errorCode) => {
      callback(mapStoreGroupError(errorCode));
    });
  }

  /**
   * Appends the commits and, once the append succeeded, makes them the group's committed
   * offsets. `callback` gets one error per input entry, in order: OFFSET_METADATA_TOO_LARGE (12)
   * for metadata longer than offset.metadata.max.bytes, else the mapped append error
   * (Kafka's storeOffsets).
   */
  storeOffsets(
    group: GroupMetadata,
    offsets: readonly TopicPartitionOffset[],
    callback: (errors: TopicPartitionError[]) => void,
  ): void {
    const metadataFits = (entry: TopicPartitionOffset) =>
      entry.offsetAndMetadata.metadata.length <= this.config.offsetMetadataMaxBytes;
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
    const partition = this.partitionFor(group.groupId);
    if (!this.ownedPartitions.has(partition)) {
      respond(ErrorCode.NOT_COORDINATOR);
      return;
    }
    const records = filtered.map((entry) => ({
      key: offsetCommitKey(group.groupId, entry.topic, entry.partition),
      value: offsetCommitValue(entry.offsetAndMetadata),
    }));
    group.prepareOffsetCommit(filtered);
    this.append(partition, records, (errorCode) => {
      if (errorCode === ErrorCode.NONE) {
        if (!group.is(GroupState.Dead)) {
          for (const entry of filtered) group.onOffsetCommitAppend(entry.topic, entry.partition, entry.offsetAndMetadata);
        }
      } else if (!group.is(GroupState.Dead)) {
        for (const entry of filtered) group.failPendingOffsetWrite(entry.topic, entry.partition, entry.offsetAndMetadata);
      }
      respond(mapStoreOffsetsError(errorCode));
    });
  }

  /**
   * Committed offsets of `groupId`: for the given partitions (offset -1 and metadata "" where
   * nothing is committed), or for every committed partition when `partitions` is null. With
   * `requireStable`, a partition whose commit is still being written answers
   * UNSTABLE_OFFSET_COMMIT (88). Answered whatever the group's state, since groups may use Kafka
   * only to store offsets (Kafka's getOffsets).
   */
  getOffsets(groupId: string, requireStable: boolean, partitions: readonly TopicPartitionRef[] | null): FetchedOffset[] {
    const none = (ref: TopicPartitionRef, errorCode: number = ErrorCode.NONE): FetchedOffset => ({
      topic: ref.topic,
      partition: ref.partition,
      offset: -1,
      leaderEpoch: -1,
      metadata: '',
      errorCode,
    });
    const group = this.groups.get(groupId);
    if (group === undefined || group.is(GroupState.Dead)) return (partitions ?? []).map((ref) => none(ref));
    const refs = partitions ?? [...group.offsets.entries()].map(([topic, partition]) => ({ topic, partition }));
    return refs.map((ref) => {
      if (requireStable && group.hasPendingOffsetCommit(ref.topic, ref.partition)) {
        return none(ref, ErrorCode.UNSTABLE_OFFSET_COMMIT);
      }
      const committed = group.offset(ref.topic, ref.partition);
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
   * Replays one `__consumer_offsets` partition and takes ownership of it. Latest record wins per
   * key; a null value deletes. Groups with metadata come back Stable (members) or Empty (none);
   * groups that only have offsets come back Empty with no protocol type. Undecodable records are
   * skipped and counted (logged) rather than failing the load. `onGroupLoaded` runs per group.
   */
  load(partition: number, records: Iterable<OffsetsTopicRecord>, onGroupLoaded: (group: GroupMetadata) => void): LoadSummary {
    if (this.ownedPartitions.has(partition)) throw new Error(`__consumer_offsets-${partition} is already loaded`);
    const loadedOffsets = new Map<string, TopicPartitionMap<OffsetAndMetadata>>();
    const loadedGroups = new Map<string, GroupMetadataValue>();
    let recordsSkipped = 0;
    for (const record of records) {
      const key = record.key === null ? null : readCoordinatorRecordKey(record.key);
      if (key === null || key.type === 'other') {
        recordsSkipped++;
        continue;
      }
      if (key.type === 'offsetCommit') {
        let offsets = loadedOffsets.get(key.group);
        if (record.value === null) {
          offsets?.delete(key.topic, key.partition);
          continue;
        }
        const value = readOffsetCommitValue(record.value);
        if (value === null) {
          recordsSkipped++;
          continue;
        }
        if (offsets === undefined) {
          offsets = new TopicPartitionMap();
          loadedOffsets.set(key.group, offsets);
        }
        offsets.set(key.topic, key.partition, value);
      } else {
        if (record.value === null) {
          loadedGroups.delete(key.group);
          continue;
        }
        const value = readGroupMetadataValue(record.value);
        if (value === null || (value.members.length > 0 && value.protocol === null)) {
          recordsSkipped++;
          continue;
        }
        loadedGroups.set(key.group, value);
      }
    }

    this.ownedPartitions.add(partition);
    let groupsLoaded = 0;
    let offsetsLoaded = 0;
    const groupIds = new Set([...loadedGroups.keys(), ...[...loadedOffsets.keys()]]);
    for (const groupId of groupIds) {
      if (this.partitionFor(groupId) !== partition) {
        // A record in the wrong partition (e.g. written with another partition count): Kafka
        // loads it anyway, but no request would ever reach it here.
        this.logger?.warn({ groupId, partition }, 'group found in a __consumer_offsets partition it does not hash to');
      }
      const value = loadedGroups.get(groupId);
      const group = value === undefined ? new GroupMetadata(groupId, GroupState.Empty, null) : this.groupFromValue(groupId, value);
      const offsets = loadedOffsets.get(groupId);
      if (offsets !== undefined) {
        group.initializeOffsets(
          [...offsets.entries()].map(([topic, topicPartition, offsetAndMetadata]) => ({
            topic,
            partition: topicPartition,
            offsetAndMetadata,
          })),
        );
        offsetsLoaded += offsets.size;
      }
      if (value === undefined && !group.hasOffsets) continue;
      this.groups.set(groupId, group);
      groupsLoaded++;
      onGroupLoaded(group);
    }
    const summary = { partition, groupsLoaded, offsetsLoaded, recordsSkipped };
    // One line per partition at debug: a start-up loads all of them (50 by default) and
    // loadAllPartitions logs their sum once at info.
    this.logger?.debug(summary, 'loaded __consumer_offsets partition');
    return summary;
  }

  /** Drops ownership of a partition; `onGroupUnloaded` runs for each of its groups first. */
  unload(partition: number, onGroupUnloaded: (group: GroupMetadata) => void): void {
    for (const [groupId, group] of this.groups) {
      if (this.partitionFor(groupId) !== partition) continue;
      onGroupUnloaded(group);
      this.groups.delete(groupId);
    }
    this.ownedPartitions.delete(partition);
  }

  /**
   * Removes offsets chosen by `selector` from each group, kills groups left Empty without
   * offsets, and writes the tombstones (offsets; the group key for dead groups of generation >
   * 0). Like Kafka the write is not awaited: a lost tombstone is written again on the next pass.
   * Returns the number of offsets removed.
   */
  cleanupGroupMetadata(groups: Iterable<GroupMetadata>, selector: (group: GroupMetadata) => TopicPartitionOffset[]): number {
    let offsetsRemoved = 0;
    const nowMs = this.scheduler.nowMs();
    for (const group of groups) {
      const removed = selector(group);
      if (group.is(GroupState.Empty) && !group.hasOffsets) {
        group.transitionTo(GroupState.Dead, nowMs);
        this.logger?.info({ groupId: group.groupId, generationId: group.generationId }, 'group transitioned to Dead');
      }
      const tombstones: OffsetsTopicRecord[] = removed.map((entry) => ({
        key: offsetCommitKey(group.groupId, entry.topic, entry.partition),
        value: null,
      }));
      if (group.is(GroupState.Dead) && this.groups.get(group.groupId) === group) {
        this.groups.delete(group.groupId);
        this.onGroupRemoved(group);
        if (group.generationId > 0) tombstones.push({ key: groupMetadataKey(group.groupId), value: null });
      }
      offsetsRemoved += removed.length;
      const partition = this.partitionFor(group.groupId);
      if (tombstones.length > 0 && this.ownedPartitions.has(partition)) {
        this.append(partition, tombstones, (errorCode) => {
          if (errorCode !== ErrorCode.NONE) {
            this.logger?.warn({ groupId: group.groupId, errorCode }, 'failed to append tombstones; they are retried on the next cleanup');
          }
        });
      }
    }
    return offsetsRemoved;
  }

  /** Expires offsets per offsets.retention.minutes across all groups (Kafka's periodic cleanup). */
  cleanupExpiredOffsets(): number {
    const nowMs = this.scheduler.nowMs();
    const retentionMs = this.config.offsetsRetentionMinutes * 60_000;
    const removed = this.cleanupGroupMetadata([...this.groups.values()], (group) => group.removeExpiredOffsets(nowMs, retentionMs));
    if (removed > 0) this.logger?.info({ offsetsRemoved: removed }, 'removed expired offsets');
    return removed;
  }

  private groupFromValue(groupId: string, value: GroupMetadataValue): GroupMetadata {
    const state = value.members.length === 0 ? GroupState.Empty : GroupState.Stable;
    const group = new GroupMetadata(groupId, state, value.currentStateTimestamp === -1 ? null : value.currentStateTimestamp);
    group.generationId = value.generation;
    group.protocolType = value.protocolType.length === 0 ? null : value.protocolType;
    group.protocolName = value.protocol;
    for (const stored of value.members) {
      const member = new MemberMetadata({
        memberId: stored.memberId,
        groupInstanceId: stored.groupInstanceId,
        clientId: stored.clientId,
        clientHost: stored.clientHost,
        rebalanceTimeoutMs: stored.rebalanceTimeout === -1 ? stored.sessionTimeout : stored.rebalanceTimeout,
        sessionTimeoutMs: stored.sessionTimeout,
        protocolType: value.protocolType,
        supportedProtocols: [{ name: value.protocol!, metadata: stored.subscription }],
      });
      member.assignment = stored.assignment;
      group.add(member, null);
    }
    group.leaderId = value.leader !== null && group.has(value.leader) ? value.leader : group.leaderId;
    group.subscribedTopics = group.computeSubscribedTopics();
    return group;
  }

  private append(partition: number, records: OffsetsTopicRecord[], callback: (errorCode: number) => void): void {
    const batch = buildOffsetsBatch(records, this.scheduler.nowMs());
    const result = this.offsetsTopic.append(partition, batch);
    if (typeof result === 'number') {
      callback(result);
      return;
    }
    result.then(callback, (error: unknown) => {
      this.logger?.error({ err: error, partition }, 'append to __consumer_offsets failed');
      callback(ErrorCode.UNKNOWN_SERVER_ERROR);
    });
  }
}

/** Kafka's storeGroup mapping of log append errors to coordinator errors. */
export function mapStoreGroupError(errorCode: number): number {
  if (errorCode === ErrorCode.REQUEST_TIMED_OUT) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  return mapAppendError(errorCode, ErrorCode.UNKNOWN_SERVER_ERROR);
}

/** Kafka's storeOffsets mapping of log append errors to OffsetCommit errors. */
export function mapStoreOffsetsError(errorCode: number): number {
  return mapAppendError(errorCode, ErrorCode.INVALID_COMMIT_OFFSET_SIZE);
}

/**
 * What storeGroup and storeOffsets share: a missing or under-replicated __consumer_offsets
 * partition is COORDINATOR_NOT_AVAILABLE (retry), a moved or offline one NOT_COORDINATOR (look the
 * coordinator up again), a batch too large `tooLargeErrorCode`; anything else passes through.
 */
function mapAppendError(errorCode: number, tooLargeErrorCode: number): number {
  switch (errorCode) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return tooLargeErrorCode;
    default:
      return errorCode;
  }
}
