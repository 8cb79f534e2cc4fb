/**
 * The classic-protocol group coordinator, Kafka's design (kafka.coordinator.group, the
 * pre-KIP-848 protocol) on Kafka's newer structure (GroupCoordinatorService over a
 * CoordinatorRuntime): one {@link GroupCoordinatorShard} per `__consumer_offsets` partition this
 * broker leads, each a state machine without I/O whose changes are `__consumer_offsets` records.
 * This class routes a request to the shard of its group (`partitionFor`), checks the group's
 * status first (COORDINATOR_NOT_AVAILABLE before startup, NOT_COORDINATOR for a partition not
 * loaded here), and fans admin requests out to every shard.
 *
 * Every method runs to completion synchronously; answers that must wait (JoinGroup until the
 * join phase ends, SyncGroup until the leader's assignment is persisted, OffsetCommit until its
 * records are appended) are Promises resolved by later events. The protocol itself is described
 * in group-metadata-manager.ts (membership, rebalances) and offset-metadata-manager.ts (offsets).
 *
 * Offsets: OffsetCommit from a member needs the current generation; commits with generation -1
 * and no member id are accepted only while the group is Empty (or does not exist: "simple"
 * consumers that use Kafka only to store offsets). Offsets of an Empty group expire
 * offsets.retention.minutes after it became Empty (KIP-211).
 */
import type { Logger } from 'pino';
import type { RandomSource, Time, TimerHandle } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { SyncGroupParams } from './classic-group-rebalance.js';
import { CoordinatorRuntime, type CoordinatorResult } from './coordinator-runtime.js';
import type {
  GroupSummary,
  JoinGroupResult,
  LeaveGroupResult,
  LeavingMember,
  ListGroupsResult,
  OffsetAndMetadata,
  OffsetDeleteResult,
  OffsetFetchResult,
  SyncGroupResult,
  TopicPartitionError,
  TopicPartitionRef,
} from './coordinator-types.js';
import { defaultGroupCoordinatorConfig, type GroupCoordinatorConfig } from './group-coordinator-config.js';
import { GroupCoordinatorShard } from './group-coordinator-shard.js';
import type { GroupMetadata } from './group-metadata.js';
import { joinError, syncError } from './group-metadata.js';
import type { HeartbeatParams, JoinGroupParams } from './group-metadata-manager.js';
import type { CommitOffsetsParams, TxnCommitOffsetsParams } from './offset-metadata-manager.js';
import { partitionForGroup, type OffsetsTopic, type OffsetsTopicRecord } from './offsets-topic.js';

export type { HeartbeatParams, JoinGroupParams } from './group-metadata-manager.js';
export type { SyncGroupParams } from './classic-group-rebalance.js';
export type { CommitOffsetsParams, TxnCommitOffsetsParams } from './offset-metadata-manager.js';

/** What a load of one `__consumer_offsets` partition found. */
export interface LoadSummary {
  partition: number;
  groupsLoaded: number;
  offsetsLoaded: number;
  /** Records skipped: null keys, undecodable keys or values, record types of newer coordinators. */
  recordsSkipped: number;
}

export interface ClassicGroupCoordinatorOptions {
  offsetsTopic: OffsetsTopic;
  /** Wall-clock time (commit timestamps, state timestamps) and the timers of sessions, rebalances and expiry. */
  time: Pick<Time, 'nowMs' | 'setTimeout' | 'clearTimeout'>;
  /** The random part of new member ids (Kafka: a UUID); seeded in tests and the simulator. */
  random: Pick<RandomSource, 'uuid'>;
  config?: Partial<GroupCoordinatorConfig>;
  /** coordinator.max.timer.tasks.per.turn (coordinator-runtime.ts); default 500. */
  maxTimerTasksPerTurn?: number;
  logger?: Logger;
}

type ApiKind = 'join' | 'sync' | 'heartbeat' | 'leave' | 'offsetCommit' | 'txnOffsetCommit' | 'offsetFetch' | 'offsetDelete' | 'describe' | 'delete';

export class ClassicGroupCoordinator {
  readonly config: Readonly<GroupCoordinatorConfig>;
  readonly runtime: CoordinatorRuntime<GroupCoordinatorShard>;
  private readonly time: Pick<Time, 'nowMs' | 'setTimeout' | 'clearTimeout'>;
  private readonly logger: Logger | null;
  private active = false;
  private retentionTimer: TimerHandle | null = null;
  private creationOrder = 0;

  constructor(options: ClassicGroupCoordinatorOptions) {
    this.config = Object.freeze({ ...defaultGroupCoordinatorConfig, ...options.config });
    this.time = options.time;
    this.logger = options.logger ?? null;
    const random = options.random;
    this.runtime = new CoordinatorRuntime({
      log: options.offsetsTopic,
      time: options.time,
      ...(options.maxTimerTasksPerTurn === undefined ? {} : { maxTimerTasksPerTurn: options.maxTimerTasksPerTurn }),
      logger: this.logger,
      buildShard: (context) => new GroupCoordinatorShard(context, this.config, random, this.logger, () => ++this.creationOrder),
    });
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  /** Starts answering requests and the periodic offset expiry. Partitions still need loading. */
  startup(): void {
    if (this.active) return;
    this.active = true;
    this.scheduleRetentionCheck();
  }

  /**
   * Loads every `__consumer_offsets` partition not owned yet from the OffsetsTopic (single-broker
   * start-up, or the topic's creation). Logs one info line with the totals (each partition's own
   * line is at debug). Returns one summary per partition loaded now.
   */
  loadAllPartitions(): LoadSummary[] {
    const summaries: LoadSummary[] = [];
    for (let partition = 0; partition < this.config.offsetsTopicNumPartitions; partition++) {
      if (!this.runtime.isLoaded(partition)) summaries.push(this.loadPartition(partition));
    }
    if (summaries.length > 0) {
      const total = { partitions: summaries.length, groupsLoaded: 0, offsetsLoaded: 0, recordsSkipped: 0 };
      for (const summary of summaries) {
        total.groupsLoaded += summary.groupsLoaded;
        total.offsetsLoaded += summary.offsetsLoaded;
        total.recordsSkipped += summary.recordsSkipped;
      }
      this.logger?.info({ event: 'coordinator.loaded', ...total },
        `loaded ${total.partitions} __consumer_offsets partitions: ${total.groupsLoaded} groups, ${total.offsetsLoaded} committed offsets`);
    }
    return summaries;
  }

  /**
   * Becomes coordinator for the groups of one `__consumer_offsets` partition by replaying its
   * records (default: `offsetsTopic.readAll(partition)`). Reloading an owned partition unloads it first.
   */
  loadPartition(partition: number, records?: Iterable<OffsetsTopicRecord>): LoadSummary {
    this.assertPartition(partition);
    if (this.runtime.isLoaded(partition)) this.unloadPartition(partition);
    const { shard, recordsSkipped } = this.runtime.load(partition, records);
    const summary = { partition, ...shard.loadCounts, recordsSkipped };
    // One line per partition at debug: a start-up loads all of them (50 by default) and
    // loadAllPartitions logs their sum once at info.
    this.logger?.debug(summary, 'loaded __consumer_offsets partition');
    return summary;
  }

  /** True while this coordinator owns the groups of `__consumer_offsets`-`partition`. */
  isPartitionLoaded(partition: number): boolean {
    return this.runtime.isLoaded(partition);
  }

  /** Stops coordinating the groups of a partition; their waiting requests get NOT_COORDINATOR (16). */
  unloadPartition(partition: number): void {
    this.assertPartition(partition);
    this.runtime.unload(partition);
  }

  /** Unloads everything and cancels every timer; later requests get COORDINATOR_NOT_AVAILABLE (15). */
  shutdown(): void {
    this.active = false;
    if (this.retentionTimer !== null) this.time.clearTimeout(this.retentionTimer);
    this.retentionTimer = null;
    for (const partition of this.runtime.loadedPartitions()) this.unloadPartition(partition);
  }

  get isActive(): boolean {
    return this.active;
  }

  /** The `__consumer_offsets` partition of a group (what FindCoordinator must agree with). */
  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.config.offsetsTopicNumPartitions);
  }

  /** The cached group (tests, admin); undefined when unknown. */
  group(groupId: string): GroupMetadata | undefined {
    return this.runtime.shard(this.partitionFor(groupId))?.groups.getGroup(groupId);
  }

  /** The committed offset of a group's partition (tests, admin); undefined when none. */
  committedOffset(groupId: string, topic: string, partition: number): OffsetAndMetadata | undefined {
    return this.runtime.shard(this.partitionFor(groupId))?.offsets.committedOffset(groupId, topic, partition);
  }

  // ---- membership ------------------------------------------------------------------------------

  /**
   * JoinGroup. Resolves at once on errors (INVALID_GROUP_ID 24, COORDINATOR_NOT_AVAILABLE 15,
   * NOT_COORDINATOR 16, and those of GroupMetadataManager.joinGroup), else when the join phase
   * completes.
   */
  joinGroup(params: JoinGroupParams): Promise<JoinGroupResult> {
    const statusError = this.validateGroupStatus(params.groupId, 'join');
    if (statusError !== null) return Promise.resolve(joinError(params.memberId, statusError));
    return this.write(params.groupId, (shard) => shard.groups.joinGroup(params));
  }

  /** SyncGroup; see ClassicGroupRebalance.syncGroup for the errors. */
  syncGroup(params: SyncGroupParams): Promise<SyncGroupResult> {
    const statusError = this.validateGroupStatus(params.groupId, 'sync');
    if (statusError !== null) {
      // While loading, the rebalance state is lost: send the member back to JoinGroup (older
      // clients do not know COORDINATOR_LOAD_IN_PROGRESS here).
      return Promise.resolve(syncError(statusError === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? ErrorCode.REBALANCE_IN_PROGRESS : statusError));
    }
    return this.write(params.groupId, (shard) => shard.groups.syncGroup(params));
  }

  /**
   * Heartbeat: NONE (0), REBALANCE_IN_PROGRESS (27) while PreparingRebalance, or
   * ILLEGAL_GENERATION (22), UNKNOWN_MEMBER_ID (25), FENCED_INSTANCE_ID (82),
   * COORDINATOR_NOT_AVAILABLE (15), NOT_COORDINATOR (16), INVALID_GROUP_ID (24).
   */
  heartbeat(params: HeartbeatParams): number {
    const statusError = this.validateGroupStatus(params.groupId, 'heartbeat');
    if (statusError !== null) return statusError === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? ErrorCode.NONE : statusError;
    return this.write(params.groupId, (shard) => shard.groups.heartbeat(params));
  }

  /**
   * LeaveGroup for one or more members (by member id, or by group.instance.id with member id ""
   * for administrative removal of static members). Per-member errors: UNKNOWN_MEMBER_ID (25),
   * FENCED_INSTANCE_ID (82). Group-level: COORDINATOR_NOT_AVAILABLE (15), NOT_COORDINATOR (16),
   * INVALID_GROUP_ID (24).
   */
  leaveGroup(groupId: string, leavingMembers: readonly LeavingMember[]): LeaveGroupResult {
    const statusError = this.validateGroupStatus(groupId, 'leave');
    if (statusError !== null) return { errorCode: statusError, members: [] };
    return this.write(groupId, (shard) => shard.groups.leaveGroup(groupId, leavingMembers));
  }

  // ---- offsets ---------------------------------------------------------------------------------

  /**
   * OffsetCommit. Resolves after the append (one error per entry, in order); see
   * OffsetMetadataManager.commitOffsets, plus the group status errors.
   */
  commitOffsets(params: CommitOffsetsParams): Promise<TopicPartitionError[]> {
    const statusError = this.validateGroupStatus(params.groupId, 'offsetCommit');
    if (statusError !== null) {
      return Promise.resolve(params.offsets.map((entry) => ({ topic: entry.topic, partition: entry.partition, errorCode: statusError })));
    }
    return this.write(params.groupId, (shard) => shard.offsets.commitOffsets(params));
  }

  /**
   * TxnOffsetCommit: offsets committed inside a producer's transaction, pending (invisible to
   * OffsetFetch, UNSTABLE_OFFSET_COMMIT with RequireStable) until its marker reaches the group's
   * `__consumer_offsets` partition. Resolves after the append; see
   * OffsetMetadataManager.commitTransactionalOffsets, plus the group status errors.
   */
  commitTransactionalOffsets(params: TxnCommitOffsetsParams): Promise<TopicPartitionError[]> {
    const statusError = this.validateGroupStatus(params.groupId, 'txnOffsetCommit');
    if (statusError !== null) {
      return Promise.resolve(params.offsets.map((entry) => ({ topic: entry.topic, partition: entry.partition, errorCode: statusError })));
    }
    return this.write(params.groupId, (shard) => shard.offsets.commitTransactionalOffsets(params));
  }

  /**
   * A transaction marker of `producerId` was appended to these `__consumer_offsets` partitions
   * (Kafka's scheduleHandleTxnCompletion): the producer's pending offsets there are committed or
   * dropped. Partitions not loaded here are skipped (their coordinator replays the marker).
   */
  onTransactionCompleted(producerId: number, partitions: readonly number[], commit: boolean): number {
    let settled = 0;
    for (const partition of partitions) {
      if (this.runtime.isLoaded(partition)) settled += this.runtime.write(partition, (shard) => shard.onTransactionCompleted(producerId, commit));
    }
    return settled;
  }

  /**
   * OffsetFetch: committed offsets of the given partitions (offset -1 when none), or of every
   * committed partition when `partitions` is null. Group-level error only for status problems.
   */
  fetchOffsets(groupId: string, requireStable: boolean, partitions: readonly TopicPartitionRef[] | null): OffsetFetchResult {
    const statusError = this.validateGroupStatus(groupId, 'offsetFetch');
    if (statusError !== null) return { errorCode: statusError, partitions: [] };
    const shard = this.runtime.shard(this.partitionFor(groupId))!;
    return { errorCode: ErrorCode.NONE, partitions: shard.offsets.fetchOffsets(groupId, requireStable, partitions) };
  }

  /**
   * OffsetDelete: removes committed offsets of an Empty group, or of topics no member of a
   * consumer group subscribes to (others: GROUP_SUBSCRIBED_TO_TOPIC, 86). Group-level errors:
   * GROUP_ID_NOT_FOUND (69), NON_EMPTY_GROUP (68, non-consumer group with members), status errors.
   */
  deleteOffsets(groupId: string, partitions: readonly TopicPartitionRef[]): OffsetDeleteResult {
    const statusError = this.validateGroupStatus(groupId, 'offsetDelete');
    if (statusError !== null) return { errorCode: statusError, partitions: [] };
    return this.write(groupId, (shard) => shard.deleteOffsets(groupId, partitions));
  }

  // ---- admin -----------------------------------------------------------------------------------

  /**
   * DescribeGroups for one group. An unknown group is reported Dead with no error (as Kafka does
   * up to DescribeGroups v5); status errors come back with state "".
   */
  describeGroup(groupId: string): GroupSummary {
    const statusError = this.validateGroupStatus(groupId, 'describe');
    if (statusError !== null) {
      return { errorCode: statusError, groupId, state: '', protocolType: '', protocol: '', members: [] };
    }
    return this.runtime.shard(this.partitionFor(groupId))!.groups.describeGroup(groupId);
  }

  /**
   * ListGroups: every live group, optionally only those in `states` (ListGroups v4+, KIP-518;
   * compared case-insensitively, as Kafka 3.9's isInStates does), in creation order.
   */
  listGroups(states: readonly string[] = []): ListGroupsResult {
    if (!this.active) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, groups: [] };
    const wanted = new Set(states.map((state) => state.toLowerCase()));
    const groups = this.runtime.loadedPartitions()
      .flatMap((partition) => this.runtime.shard(partition)!.groups.currentGroups())
      .filter((group) => wanted.size === 0 || wanted.has(group.state.toLowerCase()))
      .sort((a, b) => a.creationOrder - b.creationOrder)
      .map((group) => group.overview());
    return { errorCode: ErrorCode.NONE, groups };
  }

  /**
   * DeleteGroups: Empty groups die with their offsets (tombstones written); per group
   * NON_EMPTY_GROUP (68), GROUP_ID_NOT_FOUND (69), or a status error. Duplicate ids are answered once.
   */
  deleteGroups(groupIds: readonly string[]): { groupId: string; errorCode: number }[] {
    const errors = new Map<string, number>();
    const byPartition = new Map<number, string[]>();
    for (const groupId of groupIds) {
      if (errors.has(groupId)) continue;
      const statusError = this.validateGroupStatus(groupId, 'delete');
      errors.set(groupId, statusError ?? ErrorCode.NONE);
      if (statusError !== null) continue;
      const partition = this.partitionFor(groupId);
      byPartition.set(partition, [...(byPartition.get(partition) ?? []), groupId]);
    }
    for (const [partition, ids] of byPartition) {
      const results = this.runtime.write(partition, (shard) => shard.deleteGroups(ids));
      for (const [groupId, errorCode] of results) errors.set(groupId, errorCode);
    }
    return [...errors].map(([groupId, errorCode]) => ({ groupId, errorCode }));
  }

  // ---- topic changes ---------------------------------------------------------------------------

  /**
   * A topic's partition count changed (CreatePartitions): Stable or CompletingRebalance consumer
   * groups subscribed to it rebalance so the new partitions get assigned. Returns the group ids
   * that started rebalancing. (Kafka relies on the group leader noticing; see
   * group-metadata-manager.ts.)
   */
  onTopicPartitionsChanged(topics: Iterable<string>): string[] {
    const changed = [...topics];
    return this.runtime.writeAll((shard) => shard.groups.onTopicPartitionsChanged(changed)).flat();
  }

  /** Topics were deleted: their committed offsets go from every group (Kafka's handleDeletedPartitions). */
  onTopicsDeleted(topics: Iterable<string>): number {
    const deleted = new Set(topics);
    return this.runtime.writeAll((shard) => shard.onTopicsDeleted(deleted)).reduce((sum, n) => sum + n, 0);
  }

  /** Runs the offset expiry now (it also runs every offsets.retention.check.interval.ms). */
  cleanupExpiredOffsets(): number {
    const removed = this.runtime.writeAll((shard) => shard.cleanupExpiredOffsets()).reduce((sum, n) => sum + n, 0);
    if (removed > 0) this.logger?.info({ offsetsRemoved: removed }, 'removed expired offsets');
    return removed;
  }

  // ---- shared ----------------------------------------------------------------------------------

  /** Runs an operation on the shard of `groupId` (loaded: checked by validateGroupStatus). */
  private write<T>(groupId: string, operation: (shard: GroupCoordinatorShard) => CoordinatorResult<T>): T {
    return this.runtime.write(this.partitionFor(groupId), operation);
  }

  private validateGroupStatus(groupId: string, api: ApiKind): number | null {
    // Offset APIs, DescribeGroups and DeleteGroups accept "" for backwards compatibility.
    const emptyAllowed = api === 'offsetCommit' || api === 'offsetFetch' || api === 'describe' || api === 'delete';
    if (!emptyAllowed && groupId === '') return ErrorCode.INVALID_GROUP_ID;
    if (!this.active) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (!this.runtime.isLoaded(this.partitionFor(groupId))) return ErrorCode.NOT_COORDINATOR;
    return null;
  }

  private scheduleRetentionCheck(): void {
    this.retentionTimer = this.time.setTimeout(() => {
      this.retentionTimer = null;
      if (!this.active) return;
      this.cleanupExpiredOffsets();
      this.scheduleRetentionCheck();
    }, this.config.offsetsRetentionCheckIntervalMs);
  }

  private assertPartition(partition: number): void {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.config.offsetsTopicNumPartitions) {
      throw new Error(`__consumer_offsets partition ${partition} out of range [0, ${this.config.offsetsTopicNumPartitions})`);
    }
  }
}
