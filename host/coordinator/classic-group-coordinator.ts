/**
 * The classic-protocol group coordinator, Kafka's design (kafka.coordinator.group.GroupCoordinator,
 * the pre-KIP-848 implementation), as a state machine without I/O: time and delayed operations
 * come from the injected {@link Scheduler}, persistence goes through {@link OffsetsTopic}. Every
 * method runs to completion synchronously; answers that must wait (JoinGroup until the join
 * phase ends, SyncGroup until the leader's assignment is persisted, OffsetCommit until its
 * records are appended) are Promises resolved by later events.
 *
 * Group states and their transitions are drawn in group-state.ts. The rebalance protocol:
 *
 * 1. JoinGroup. A member without a member id gets one; with JoinGroup v4+ (and no
 *    group.instance.id) it is first answered MEMBER_ID_REQUIRED (79) and must join again with
 *    that id (KIP-394). A join that changes the group (a new member, changed protocol metadata,
 *    the leader re-joining a Stable group) moves it to PreparingRebalance. The join phase ends
 *    when every known member has re-joined, or after the largest rebalance timeout; the first
 *    rebalance of an Empty group instead waits group.initial.rebalance.delay.ms (extended while
 *    new members keep arriving, KIP-134). Members that did not re-join are dropped (static
 *    members are kept), a protocol every member supports is chosen by vote, the generation
 *    increments, and every waiting JoinGroup is answered; only the leader gets the members'
 *    metadata. The group is now CompletingRebalance.
 * 2. SyncGroup. The leader sends the assignment; followers wait for it. Once the group metadata
 *    with the assignment is appended to __consumer_offsets, every member gets its assignment and
 *    the group is Stable. Members that never send SyncGroup within the rebalance timeout are
 *    removed and the group rebalances again.
 * 3. Heartbeat keeps a member's session (session.timeout.ms) alive; during a rebalance it answers
 *    REBALANCE_IN_PROGRESS (27), which is how every classic client learns it must re-join. A
 *    member whose session expires is removed and the group rebalances.
 * 4. LeaveGroup removes members at once (v3+: several, also by group.instance.id, KIP-345).
 * 5. Static members (group.instance.id, KIP-345) re-joining with a new member id take over their
 *    old slot: a Stable group with unchanged protocol does not rebalance, the old member id is
 *    fenced (FENCED_INSTANCE_ID, 82).
 *
 * Offsets: OffsetCommit from a member needs the current generation; commits with generation -1
 * and no member id are accepted only while the group is Empty (or does not exist: "simple"
 * consumers that use Kafka only to store offsets). Offsets of an Empty group expire
 * offsets.retention.minutes after it became Empty (KIP-211).
 *
 * Beyond Kafka: `onTopicPartitionsChanged` lets the broker start a rebalance of consumer groups
 * subscribed to a topic whose partition count changed. Kafka leaves that to clients (the
 * leader re-joins when its metadata shows new partitions, which the Stable-leader rule above
 * turns into a rebalance); triggering it here also covers clients that do not watch.
 *
 * Also beyond Kafka: a JoinGroup or SyncGroup that a newer request of the same member replaces
 * is answered REBALANCE_IN_PROGRESS instead of being left pending forever.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type {
  GroupSummary,
  JoinGroupResult,
  JoinProtocol,
  LeaveGroupResult,
  LeaveMemberResult,
  LeavingMember,
  ListGroupsResult,
  OffsetDeleteResult,
  OffsetFetchResult,
  SyncGroupResult,
  TopicPartitionError,
  TopicPartitionOffset,
  TopicPartitionRef,
} from './coordinator-types.js';
import {
  defaultGroupCoordinatorConfig,
  NEW_MEMBER_JOIN_TIMEOUT_MS,
  type GroupCoordinatorConfig,
} from './group-coordinator-config.js';
import { GroupMetadata, joinError, syncError } from './group-metadata.js';
import { GroupMetadataManager, type LoadSummary } from './group-metadata-manager.js';
import { GroupState } from './group-state.js';
import { MemberMetadata } from './member-metadata.js';
import type { OffsetsTopic, OffsetsTopicRecord } from './offsets-topic.js';
import type { Scheduler, TimerHandle } from './scheduler.js';

const EMPTY_BYTES = new Uint8Array(0);

/** JoinGroup, as the coordinator needs it (the wire facade fills it from any version). */
export interface JoinGroupParams {
  groupId: string;
  /** "" for a member joining for the first time. */
  memberId: string;
  groupInstanceId: string | null;
  /** JoinGroup v4+ without group.instance.id: answer MEMBER_ID_REQUIRED (79) before admitting. */
  requireKnownMemberId: boolean;
  /** JoinGroup v9+: a static leader re-joining a Stable group may skip the assignment. */
  supportSkippingAssignment: boolean;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocolType: string;
  protocols: JoinProtocol[];
  reason: string | null;
}

export interface SyncGroupParams {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** SyncGroup v5+ (null when absent): must match the group's. */
  protocolType: string | null;
  protocolName: string | null;
  /** The leader's assignment (member id -> bytes); empty from followers. */
  assignments: ReadonlyMap<string, Uint8Array>;
}

export interface HeartbeatParams {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export interface CommitOffsetsParams {
  groupId: string;
  /** "" for commits outside group management. */
  memberId: string;
  groupInstanceId: string | null;
  /** -1 for commits outside group management. */
  generationId: number;
  offsets: TopicPartitionOffset[];
}

export interface ClassicGroupCoordinatorOptions {
  offsetsTopic: OffsetsTopic;
  scheduler: Scheduler;
  config?: Partial<GroupCoordinatorConfig>;
  logger?: Logger;
  /** The random part of new member ids (Kafka: a UUID); injectable for deterministic tests. */
  memberIdSuffix?: () => string;
}

type ApiKind = 'join' | 'sync' | 'heartbeat' | 'leave' | 'offsetCommit' | 'offsetFetch' | 'offsetDelete' | 'describe' | 'delete';

export class ClassicGroupCoordinator {
  readonly config: Readonly<GroupCoordinatorConfig>;
  readonly groupManager: GroupMetadataManager;
  private readonly scheduler: Scheduler;
  private readonly offsetsTopic: OffsetsTopic;
  private readonly logger: Logger | null;
  private readonly memberIdSuffix: () => string;
  private active = false;
  private retentionTimer: TimerHandle | null = null;

  constructor(options: ClassicGroupCoordinatorOptions) {
    this.config = Object.freeze({ ...defaultGroupCoordinatorConfig, ...options.config });
    this.scheduler = options.scheduler;
    this.offsetsTopic = options.offsetsTopic;
    this.logger = options.logger ?? null;
    this.memberIdSuffix = options.memberIdSuffix ?? randomUUID;
    this.groupManager = new GroupMetadataManager(this.config, this.offsetsTopic, this.scheduler, this.logger, (group) => this.cancelGroupTimers(group));
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
      if (!this.groupManager.isPartitionOwned(partition)) summaries.push(this.loadPartition(partition));
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
    if (this.groupManager.isPartitionOwned(partition)) this.unloadPartition(partition);
    return this.groupManager.load(partition, records ?? this.offsetsTopic.readAll(partition), (group) => this.onGroupLoaded(group));
  }

  /** Stops coordinating the groups of a partition; their waiting requests get NOT_COORDINATOR (16). */
  unloadPartition(partition: number): void {
    this.assertPartition(partition);
    this.groupManager.unload(partition, (group) => this.onGroupUnloaded(group));
  }

  /** Unloads everything and cancels every timer; later requests get COORDINATOR_NOT_AVAILABLE (15). */
  shutdown(): void {
    this.active = false;
    if (this.retentionTimer !== null) this.scheduler.clearTimeout(this.retentionTimer);
    this.retentionTimer = null;
    for (let partition = 0; partition < this.config.offsetsTopicNumPartitions; partition++) {
      if (this.groupManager.isPartitionOwned(partition)) this.unloadPartition(partition);
    }
  }

  get isActive(): boolean {
    return this.active;
  }

  /** The `__consumer_offsets` partition of a group (what FindCoordinator must agree with). */
  partitionFor(groupId: string): number {
    return this.groupManager.partitionFor(groupId);
  }

  /** The cached group (tests, admin); undefined when unknown. */
  group(groupId: string): GroupMetadata | undefined {
    return this.groupManager.getGroup(groupId);
  }

  // ---- JoinGroup -------------------------------------------------------------------------------

  /**
   * JoinGroup. Resolves at once on errors (INVALID_GROUP_ID 24, COORDINATOR_NOT_AVAILABLE 15,
   * NOT_COORDINATOR 16, INVALID_SESSION_TIMEOUT 26, UNKNOWN_MEMBER_ID 25,
   * INCONSISTENT_GROUP_PROTOCOL 23, MEMBER_ID_REQUIRED 79, FENCED_INSTANCE_ID 82,
   * GROUP_MAX_SIZE_REACHED 81), else when the join phase completes.
   */
  joinGroup(params: JoinGroupParams): Promise<JoinGroupResult> {
    return new Promise((resolve) => this.handleJoinGroup(params, resolve));
  }

  private handleJoinGroup(params: JoinGroupParams, callback: (result: JoinGroupResult) => void): void {
    const statusError = this.validateGroupStatus(params.groupId, 'join');
    if (statusError !== null) {
      callback(joinError(params.memberId, statusError));
      return;
    }
    if (params.sessionTimeoutMs < this.config.groupMinSessionTimeoutMs || params.sessionTimeoutMs > this.config.groupMaxSessionTimeoutMs) {
      callback(joinError(params.memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
      return;
    }
    const isUnknownMember = params.memberId === '';
    // A group is created only by a member without id; a member id for a group we do not know is stale.
    const group = this.groupManager.getOrMaybeCreateGroup(params.groupId, isUnknownMember);
    if (group === undefined) {
      callback(joinError(params.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      return;
    }
    if (!this.acceptJoiningMember(group, params.memberId)) {
      const member = group.members.get(params.memberId);
      if (member !== undefined) {
        group.maybeInvokeJoinCallback(member, joinError(params.memberId, ErrorCode.GROUP_MAX_SIZE_REACHED));
        this.removeHeartbeatForLeavingMember(member);
      }
      group.remove(params.memberId);
      callback(joinError('', ErrorCode.GROUP_MAX_SIZE_REACHED));
    } else if (isUnknownMember) {
      this.doNewMemberJoinGroup(group, params, callback);
    } else {
      this.doCurrentMemberJoinGroup(group, params, callback);
    }
    if (group.is(GroupState.PreparingRebalance)) this.tryCompleteJoin(group);
  }

  private acceptJoiningMember(group: GroupMetadata, memberId: string): boolean {
    switch (group.state) {
      case GroupState.Empty:
      case GroupState.Dead:
        return true;
      case GroupState.PreparingRebalance:
        // Counting members already waiting (not the size) kicks out the last re-joiners when
        // group.max.size was lowered.
        return (group.has(memberId) && group.get(memberId).isAwaitingJoin) || group.numAwaitingJoin < this.config.groupMaxSize;
      case GroupState.CompletingRebalance:
      case GroupState.Stable:
        return group.has(memberId) || group.size < this.config.groupMaxSize;
    }
  }

  private doNewMemberJoinGroup(group: GroupMetadata, params: JoinGroupParams, callback: (result: JoinGroupResult) => void): void {
    if (group.is(GroupState.Dead)) {
      // Deleted or unloaded under us: the client rediscovers the coordinator and retries.
      callback(joinError('', ErrorCode.COORDINATOR_NOT_AVAILABLE));
      return;
    }
    if (!group.supportsProtocols(params.protocolType, protocolNames(params.protocols))) {
      callback(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
      return;
    }
    const newMemberId = `${params.groupInstanceId ?? params.clientId}-${this.memberIdSuffix()}`;
    if (params.groupInstanceId !== null) {
      const oldMemberId = group.currentStaticMemberId(params.groupInstanceId);
      if (oldMemberId !== null) {
        this.logger?.info({ groupId: group.groupId, groupInstanceId: params.groupInstanceId, oldMemberId, newMemberId }, 'static member re-joins with a new member id');
        this.updateStaticMemberAndRebalance(group, oldMemberId, newMemberId, params, callback);
      } else {
        this.addMemberAndRebalance(group, params, newMemberId, callback);
      }
    } else if (params.requireKnownMemberId) {
      // KIP-394: hand out the id first so that a client which times out and retries does not
      // leave a trail of unknown members behind.
      this.addPendingMember(group, newMemberId, params.sessionTimeoutMs);
      callback(joinError(newMemberId, ErrorCode.MEMBER_ID_REQUIRED));
    } else {
      this.addMemberAndRebalance(group, params, newMemberId, callback);
    }
  }

  private doCurrentMemberJoinGroup(group: GroupMetadata, params: JoinGroupParams, callback: (result: JoinGroupResult) => void): void {
    const memberId = params.memberId;
    if (group.is(GroupState.Dead)) {
      callback(joinError(memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
      return;
    }
    if (!group.supportsProtocols(params.protocolType, protocolNames(params.protocols))) {
      callback(joinError(memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
      return;
    }
    if (group.isPendingMember(memberId)) {
      if (params.groupInstanceId !== null) {
        // Pending ids are only handed to dynamic members; a static id with one is not ours.
        callback(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
        return;
      }
      this.addMemberAndRebalance(group, params, memberId, callback);
      return;
    }
    const memberError = this.validateCurrentMember(group, memberId, params.groupInstanceId);
    if (memberError !== null) {
      callback(joinError(memberId, memberError));
      return;
    }
    const member = group.get(memberId);
    switch (group.state) {
      case GroupState.PreparingRebalance:
        this.updateMemberAndRebalance(group, member, params, callback, 'member joins during PreparingRebalance');
        return;
      case GroupState.CompletingRebalance:
        if (member.matches(params.protocols)) {
          // The member lost its JoinGroup response: give it this generation again.
          callback(this.joinResultFor(group, member, group.isLeader(memberId)));
        } else {
          this.updateMemberAndRebalance(group, member, params, callback, 'member changed its metadata during CompletingRebalance');
        }
        return;
      case GroupState.Stable:
        if (group.isLeader(memberId)) {
          // The leader re-joins to have changes it alone sees (e.g. a topic's partition count)
          // reassigned.
          this.updateMemberAndRebalance(group, member, params, callback, 'leader re-joins a Stable group');
        } else if (!member.matches(params.protocols)) {
          this.updateMemberAndRebalance(group, member, params, callback, 'member changed its metadata (subscription)');
        } else {
          callback(this.joinResultFor(group, member, false));
        }
        return;
      case GroupState.Empty:
      case GroupState.Dead:
        // Unreachable (validateCurrentMember found the member), but answer the client sanely.
        callback(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
        return;
    }
  }

  private joinResultFor(group: GroupMetadata, member: MemberMetadata, includeMembers: boolean): JoinGroupResult {
    return {
      errorCode: ErrorCode.NONE,
      memberId: member.memberId,
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      leaderId: group.leaderId ?? '',
      skipAssignment: false,
      members: includeMembers ? group.currentMemberMetadata() : [],
    };
  }

  private addMemberAndRebalance(
    group: GroupMetadata,
    params: JoinGroupParams,
    memberId: string,
    callback: (result: JoinGroupResult) => void,
  ): void {
    const member = new MemberMetadata({
      memberId,
      groupInstanceId: params.groupInstanceId,
      clientId: params.clientId,
      clientHost: params.clientHost,
      rebalanceTimeoutMs: params.rebalanceTimeoutMs,
      sessionTimeoutMs: params.sessionTimeoutMs,
      protocolType: params.protocolType,
      supportedProtocols: params.protocols,
    });
    member.isNew = true;
    // A new member during the first rebalance extends the initial delay (KIP-134).
    if (group.is(GroupState.PreparingRebalance) && group.generationId === 0) group.newMemberAdded = true;
    this.clearPendingMemberTimer(group, memberId);
    group.add(member, callback);
    // New members cannot heartbeat before their first JoinGroup response, so they get the
    // longer new-member timeout instead of their session timeout.
    this.scheduleHeartbeatExpiration(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS);
    this.maybePrepareRebalance(group, `adding new member ${memberId} with group instance id ${params.groupInstanceId}`);
  }

  private updateMemberAndRebalance(
    group: GroupMetadata,
    member: MemberMetadata,
    params: JoinGroupParams,
    callback: (result: JoinGroupResult) => void,
    reason: string,
  ): void {
    this.supersedeJoinCallback(group, member);
    group.updateMember(member, params.protocols, params.rebalanceTimeoutMs, params.sessionTimeoutMs, callback);
    this.maybePrepareRebalance(group, reason);
  }

  private updateStaticMemberAndRebalance(
    group: GroupMetadata,
    oldMemberId: string,
    newMemberId: string,
    params: JoinGroupParams,
    callback: (result: JoinGroupResult) => void,
  ): void {
    const currentLeader = group.leaderId ?? '';
    const groupInstanceId = params.groupInstanceId!;
    const member = group.replaceStaticMember(groupInstanceId, oldMemberId, newMemberId);
    // The old id's expiry timer would now find nobody; give the new id a fresh session.
    this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
    const oldProtocols = member.supportedProtocols;
    const oldRebalanceTimeoutMs = member.rebalanceTimeoutMs;
    const oldSessionTimeoutMs = member.sessionTimeoutMs;
    group.updateMember(member, params.protocols, params.rebalanceTimeoutMs, params.sessionTimeoutMs, callback);

    switch (group.state) {
      case GroupState.Stable: {
        if (group.protocolName !== group.selectProtocol()) {
          this.maybePrepareRebalance(group, `static member ${newMemberId} changed the protocol the group would select`);
          return;
        }
        // Same protocol: persist the new member id, no rebalance.
        const assignment = new Map([...group.members.values()].map((m) => [m.memberId, m.assignment] as const));
        this.groupManager.storeGroup(group, assignment, (errorCode) => {
          if (errorCode !== ErrorCode.NONE) {
            // With an asynchronous append the group may have moved on and answered this join already.
            if (member.awaitingJoinCallback !== callback) return;
            this.logger?.warn({ groupId: group.groupId, errorCode }, 'failed to persist the new member id of a static member; reverting');
            group.updateMember(member, oldProtocols, oldRebalanceTimeoutMs, oldSessionTimeoutMs, null);
            if (group.has(newMemberId)) {
              const restored = group.replaceStaticMember(groupInstanceId, newMemberId, oldMemberId);
              this.scheduleHeartbeatExpiration(group, restored, restored.sessionTimeoutMs);
            }
            callback({
              ...joinError('', errorCode),
              generationId: group.generationId,
              protocolType: group.protocolType,
              protocolName: group.protocolName,
              leaderId: currentLeader,
            });
          } else if (params.supportSkippingAssignment) {
            const isLeader = group.isLeader(newMemberId);
            group.maybeInvokeJoinCallback(member, { ...this.joinResultFor(group, member, isLeader), skipAssignment: isLeader });
          } else {
            // Before JoinGroup v9 the old leader id is returned, so a re-joining static leader
            // acts as a follower and does not compute an assignment a Stable group would ignore.
            group.maybeInvokeJoinCallback(member, { ...this.joinResultFor(group, member, false), leaderId: currentLeader });
          }
        });
        return;
      }
      case GroupState.CompletingRebalance:
        // The leader may already be assigning to the old member id: rebalance so the new id gets
        // an assignment.
        this.prepareRebalance(group, `static member ${newMemberId} replaced ${oldMemberId} during CompletingRebalance`);
        return;
      case GroupState.PreparingRebalance:
        return;
      case GroupState.Empty:
      case GroupState.Dead:
        throw new Error(`Group ${group.groupId} is ${group.state} while static member ${groupInstanceId} re-joins`);
    }
  }

  private addPendingMember(group: GroupMetadata, memberId: string, sessionTimeoutMs: number): void {
    group.addPendingMember(memberId);
    this.clearPendingMemberTimer(group, memberId);
    group.pendingMemberTimers.set(memberId, this.scheduler.setTimeout(() => {
      group.pendingMemberTimers.delete(memberId);
      if (group.is(GroupState.Dead) || !group.isPendingMember(memberId)) return;
      this.logger?.info({ groupId: group.groupId, memberId }, 'pending member removed after session timeout');
      this.removePendingMemberAndUpdateGroup(group, memberId);
    }, sessionTimeoutMs));
  }

  private clearPendingMemberTimer(group: GroupMetadata, memberId: string): void {
    const timer = group.pendingMemberTimers.get(memberId);
    if (timer === undefined) return;
    this.scheduler.clearTimeout(timer);
    group.pendingMemberTimers.delete(memberId);
  }

  private removePendingMemberAndUpdateGroup(group: GroupMetadata, memberId: string): void {
    group.remove(memberId);
    this.clearPendingMemberTimer(group, memberId);
    if (group.is(GroupState.PreparingRebalance)) this.tryCompleteJoin(group);
  }

  /** Answers a JoinGroup that the member's newer JoinGroup replaces (see the file header). */
  private supersedeJoinCallback(group: GroupMetadata, member: MemberMetadata): void {
    const callback = member.awaitingJoinCallback;
    if (callback === null) return;
    group.updateMember(member, member.supportedProtocols, member.rebalanceTimeoutMs, member.sessionTimeoutMs, null);
    callback(joinError(member.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
  }

  // ---- rebalance machinery ---------------------------------------------------------------------

  private maybePrepareRebalance(group: GroupMetadata, reason: string): void {
    if (group.canRebalance) this.prepareRebalance(group, reason);
  }

  private prepareRebalance(group: GroupMetadata, reason: string): void {
    if (group.is(GroupState.CompletingRebalance)) this.resetAndPropagateAssignmentError(group, ErrorCode.REBALANCE_IN_PROGRESS);
    this.removeSyncExpiration(group);
    if (group.pendingJoin !== null) throw new Error(`Group ${group.groupId} already has a pending join`);
    const wasEmpty = group.is(GroupState.Empty);
    group.transitionTo(GroupState.PreparingRebalance, this.scheduler.nowMs());
    this.logger?.info({ groupId: group.groupId, generationId: group.generationId, reason }, 'preparing to rebalance group');
    if (wasEmpty) {
      const delayMs = this.config.groupInitialRebalanceDelayMs;
      this.scheduleInitialJoin(group, delayMs, Math.max(group.rebalanceTimeoutMs - delayMs, 0));
    } else {
      group.pendingJoin = {
        timer: this.scheduler.setTimeout(() => this.onJoinTimerExpired(group), group.rebalanceTimeoutMs),
        initial: null,
      };
      this.tryCompleteJoin(group);
    }
  }

  private scheduleInitialJoin(group: GroupMetadata, delayMs: number, remainingMs: number): void {
    group.pendingJoin = {
      timer: this.scheduler.setTimeout(() => this.onInitialJoinTimerExpired(group), delayMs),
      initial: { delayMs, remainingMs },
    };
  }

  private onInitialJoinTimerExpired(group: GroupMetadata): void {
    const initial = group.pendingJoin?.initial;
    if (initial === undefined || initial === null) throw new Error(`Group ${group.groupId} lost its initial join`);
    group.pendingJoin = null;
    if (group.newMemberAdded && initial.remainingMs !== 0) {
      group.newMemberAdded = false;
      const delayMs = Math.min(this.config.groupInitialRebalanceDelayMs, initial.remainingMs);
      const remainingMs = Math.max(initial.remainingMs - initial.delayMs, 0);
      this.scheduleInitialJoin(group, delayMs, remainingMs);
    } else {
      this.onCompleteJoin(group);
    }
  }

  private onJoinTimerExpired(group: GroupMetadata): void {
    group.pendingJoin = null;
    this.onCompleteJoin(group);
  }

  /** Completes the join phase early once everyone is in (the initial delay never completes early). */
  private tryCompleteJoin(group: GroupMetadata): void {
    const pendingJoin = group.pendingJoin;
    if (pendingJoin === null || pendingJoin.initial !== null || !group.hasAllMembersJoined) return;
    this.scheduler.clearTimeout(pendingJoin.timer);
    group.pendingJoin = null;
    this.onCompleteJoin(group);
  }

  private onCompleteJoin(group: GroupMetadata): void {
    if (group.is(GroupState.Dead)) {
      this.logger?.info({ groupId: group.groupId }, 'group is dead, skipping rebalance stage');
      return;
    }
    if (!group.is(GroupState.PreparingRebalance)) throw new Error(`Group ${group.groupId} completes a join while ${group.state}`);
    for (const member of group.notYetRejoinedMembers()) {
      if (member.isStaticMember) continue;
      this.logger?.info({ groupId: group.groupId, memberId: member.memberId }, 'removing member that did not re-join');
      group.remove(member.memberId);
      this.removeHeartbeatForLeavingMember(member);
    }
    if (!group.maybeElectNewJoinedLeader() && group.size > 0) {
      // Only static members are left and none re-joined: wait for them (or their session expiry).
      this.logger?.error({ groupId: group.groupId }, 'could not complete rebalance because no members re-joined');
      group.pendingJoin = {
        timer: this.scheduler.setTimeout(() => this.onJoinTimerExpired(group), group.rebalanceTimeoutMs),
        initial: null,
      };
      this.tryCompleteJoin(group);
      return;
    }
    group.initNextGeneration(this.scheduler.nowMs());
    if (group.is(GroupState.Empty)) {
      this.logger?.info({ groupId: group.groupId, generationId: group.generationId }, 'group is now empty');
      this.groupManager.storeGroup(group, new Map(), (errorCode) => {
        // Safe to ignore: an empty generation has no members to confuse if the old one comes back.
        if (errorCode !== ErrorCode.NONE) this.logger?.warn({ groupId: group.groupId, errorCode }, 'failed to write empty group metadata');
      });
      return;
    }
    this.logger?.info({ groupId: group.groupId, generationId: group.generationId, members: group.size, protocol: group.protocolName }, 'stabilized group');
    for (const member of [...group.members.values()]) {
      group.maybeInvokeJoinCallback(member, this.joinResultFor(group, member, group.isLeader(member.memberId)));
      this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
      member.isNew = false;
      group.addPendingSyncMember(member.memberId);
    }
    this.schedulePendingSync(group);
  }

  private schedulePendingSync(group: GroupMetadata): void {
    this.removeSyncExpiration(group);
    const generationId = group.generationId;
    group.pendingSyncTimer = this.scheduler.setTimeout(() => {
      group.pendingSyncTimer = null;
      this.onExpirePendingSync(group, generationId);
    }, group.rebalanceTimeoutMs);
  }

  private removeSyncExpiration(group: GroupMetadata): void {
    if (group.pendingSyncTimer === null) return;
    this.scheduler.clearTimeout(group.pendingSyncTimer);
    group.pendingSyncTimer = null;
  }

  private onExpirePendingSync(group: GroupMetadata, generationId: number): void {
    if (generationId !== group.generationId) return;
    if (!group.is(GroupState.CompletingRebalance) && !group.is(GroupState.Stable)) return;
    if (group.hasReceivedSyncFromAllMembers) return;
    const pending = group.allPendingSyncMembers;
    for (const memberId of pending) {
      const member = group.members.get(memberId);
      group.remove(memberId);
      if (member !== undefined) this.removeHeartbeatForLeavingMember(member);
    }
    this.prepareRebalance(group, `removing ${pending.join(', ')} on pending sync request expiration`);
  }

  private resetAndPropagateAssignmentError(group: GroupMetadata, errorCode: number): void {
    if (!group.is(GroupState.CompletingRebalance)) throw new Error(`Group ${group.groupId} is ${group.state}, not CompletingRebalance`);
    for (const member of group.members.values()) member.assignment = EMPTY_BYTES;
    this.propagateAssignment(group, errorCode);
  }

  private propagateAssignment(group: GroupMetadata, errorCode: number): void {
    const ok = errorCode === ErrorCode.NONE;
    for (const member of [...group.members.values()]) {
      const delivered = group.maybeInvokeSyncCallback(member, {
        errorCode,
        protocolType: ok ? group.protocolType : null,
        protocolName: ok ? group.protocolName : null,
        assignment: member.assignment,
      });
      // A session that expired while waiting for the assignment was ignored: restart it.
      if (delivered) this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
    }
  }

  // ---- heartbeats and session expiry -------------------------------------------------------------

  private scheduleHeartbeatExpiration(group: GroupMetadata, member: MemberMetadata, timeoutMs: number): void {
    if (member.heartbeatTimer !== null) this.scheduler.clearTimeout(member.heartbeatTimer);
    const memberId = member.memberId;
    member.heartbeatTimer = this.scheduler.setTimeout(() => {
      member.heartbeatTimer = null;
      this.onExpireHeartbeat(group, member, memberId);
    }, timeoutMs);
  }

  private removeHeartbeatForLeavingMember(member: MemberMetadata): void {
    if (member.heartbeatTimer === null) return;
    this.scheduler.clearTimeout(member.heartbeatTimer);
    member.heartbeatTimer = null;
  }

  private onExpireHeartbeat(group: GroupMetadata, member: MemberMetadata, memberId: string): void {
    if (group.is(GroupState.Dead)) return;
    if (group.members.get(memberId) !== member) return;
    // Members waiting in a rebalance need no heartbeat; new members expire regardless.
    if (!member.isNew && (member.isAwaitingJoin || member.isAwaitingSync)) return;
    this.logger?.info({ groupId: group.groupId, memberId }, 'member session expired, removing it from the group');
    this.removeMemberAndUpdateGroup(group, member, `removing member ${memberId} on heartbeat expiration`);
  }

  private removeMemberAndUpdateGroup(group: GroupMetadata, member: MemberMetadata, reason: string): void {
    // A new member may time out with its JoinGroup pending: answer it so the client re-joins.
    group.maybeInvokeJoinCallback(member, joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    group.maybeInvokeSyncCallback(member, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    group.remove(member.memberId);
    this.removeHeartbeatForLeavingMember(member);
    switch (group.state) {
      case GroupState.Dead:
      case GroupState.Empty:
        return;
      case GroupState.Stable:
      case GroupState.CompletingRebalance:
        this.maybePrepareRebalance(group, reason);
        return;
      case GroupState.PreparingRebalance:
        this.tryCompleteJoin(group);
        return;
    }
  }

  /**
   * Heartbeat: NONE (0), REBALANCE_IN_PROGRESS (27) while PreparingRebalance, or
   * ILLEGAL_GENERATION (22), UNKNOWN_MEMBER_ID (25), FENCED_INSTANCE_ID (82),
   * COORDINATOR_NOT_AVAILABLE (15), NOT_COORDINATOR (16), INVALID_GROUP_ID (24).
   */
  heartbeat(params: HeartbeatParams): number {
    const statusError = this.validateGroupStatus(params.groupId, 'heartbeat');
    if (statusError !== null) return statusError === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? ErrorCode.NONE : statusError;
    const group = this.groupManager.getGroup(params.groupId);
    if (group === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is(GroupState.Dead)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const memberError = this.validateCurrentMember(group, params.memberId, params.groupInstanceId);
    if (memberError !== null) return memberError;
    if (params.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    const member = group.get(params.memberId);
    switch (group.state) {
      case GroupState.Empty:
        return ErrorCode.UNKNOWN_MEMBER_ID;
      case GroupState.CompletingRebalance:
      case GroupState.Stable:
        // Clients may heartbeat between their JoinGroup response and SyncGroup.
        this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
        return ErrorCode.NONE;
      case GroupState.PreparingRebalance:
        this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
        return ErrorCode.REBALANCE_IN_PROGRESS;
      case GroupState.Dead:
        throw new Error('unreachable');
    }
  }

  // ---- SyncGroup -------------------------------------------------------------------------------

  /**
   * SyncGroup. The leader's call persists the assignment; every member's call resolves once it
   * is persisted (or at once in a Stable group). Errors: ILLEGAL_GENERATION (22),
   * UNKNOWN_MEMBER_ID (25), REBALANCE_IN_PROGRESS (27), INCONSISTENT_GROUP_PROTOCOL (23),
   * FENCED_INSTANCE_ID (82), COORDINATOR_NOT_AVAILABLE (15), NOT_COORDINATOR (16).
   */
  syncGroup(params: SyncGroupParams): Promise<SyncGroupResult> {
    return new Promise((resolve) => this.handleSyncGroup(params, resolve));
  }

  private handleSyncGroup(params: SyncGroupParams, callback: (result: SyncGroupResult) => void): void {
    const statusError = this.validateGroupStatus(params.groupId, 'sync');
    if (statusError !== null) {
      // While loading, the rebalance state is lost: send the member back to JoinGroup (older
      // clients do not know COORDINATOR_LOAD_IN_PROGRESS here).
      callback(syncError(statusError === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? ErrorCode.REBALANCE_IN_PROGRESS : statusError));
      return;
    }
    const group = this.groupManager.getGroup(params.groupId);
    if (group === undefined) {
      callback(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
      return;
    }
    const validationError = this.validateSyncGroup(group, params);
    if (validationError !== null) {
      callback(syncError(validationError));
      return;
    }
    switch (group.state) {
      case GroupState.Empty:
        callback(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
        return;
      case GroupState.PreparingRebalance:
        callback(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
        return;
      case GroupState.CompletingRebalance: {
        const member = group.get(params.memberId);
        const superseded = member.awaitingSyncCallback;
        member.awaitingSyncCallback = callback;
        superseded?.(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
        this.removePendingSyncMember(group, params.memberId);
        if (group.isLeader(params.memberId)) this.storeLeaderAssignment(group, params);
        return;
      }
      case GroupState.Stable: {
        this.removePendingSyncMember(group, params.memberId);
        const member = group.get(params.memberId);
        callback({ errorCode: ErrorCode.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment });
        this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
        return;
      }
      case GroupState.Dead:
        throw new Error('unreachable');
    }
  }

  private storeLeaderAssignment(group: GroupMetadata, params: SyncGroupParams): void {
    this.logger?.info({ groupId: group.groupId, generationId: group.generationId, members: group.size, staticMembers: group.staticMemberCount }, 'assignment received from leader');
    const assignment = new Map<string, Uint8Array>();
    for (const memberId of group.members.keys()) {
      // Members the leader left out get an empty assignment.
      assignment.set(memberId, params.assignments.get(memberId) ?? EMPTY_BYTES);
    }
    const generationId = group.generationId;
    this.groupManager.storeGroup(group, assignment, (errorCode) => {
      // The group may have moved on (a join, a leave) while the append was in flight.
      if (!group.is(GroupState.CompletingRebalance) || group.generationId !== generationId) return;
      if (errorCode !== ErrorCode.NONE) {
        this.resetAndPropagateAssignmentError(group, errorCode);
        this.maybePrepareRebalance(group, 'error when storing the group assignment during SyncGroup');
        return;
      }
      for (const member of group.members.values()) member.assignment = assignment.get(member.memberId) ?? EMPTY_BYTES;
      this.propagateAssignment(group, ErrorCode.NONE);
      group.transitionTo(GroupState.Stable, this.scheduler.nowMs());
    });
  }

  private validateSyncGroup(group: GroupMetadata, params: SyncGroupParams): number | null {
    if (group.is(GroupState.Dead)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const memberError = this.validateCurrentMember(group, params.memberId, params.groupInstanceId);
    if (memberError !== null) return memberError;
    if (params.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    if (params.protocolType !== null && group.protocolType !== params.protocolType) return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
    if (params.protocolName !== null && group.protocolName !== params.protocolName) return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
    return null;
  }

  private removePendingSyncMember(group: GroupMetadata, memberId: string): void {
    group.removePendingSyncMember(memberId);
    if (group.hasReceivedSyncFromAllMembers) this.removeSyncExpiration(group);
  }

  // ---- LeaveGroup ------------------------------------------------------------------------------

  /**
   * LeaveGroup for one or more members (by member id, or by group.instance.id with member id ""
   * for administrative removal of static members). Per-member errors: UNKNOWN_MEMBER_ID (25),
   * FENCED_INSTANCE_ID (82). Group-level: COORDINATOR_NOT_AVAILABLE (15), NOT_COORDINATOR (16),
   * INVALID_GROUP_ID (24).
   */
  leaveGroup(groupId: string, leavingMembers: readonly LeavingMember[]): LeaveGroupResult {
    const statusError = this.validateGroupStatus(groupId, 'leave');
    if (statusError !== null) return { errorCode: statusError, members: [] };
    const group = this.groupManager.getGroup(groupId);
    const result = (leaving: LeavingMember, errorCode: number): LeaveMemberResult => ({
      memberId: leaving.memberId,
      groupInstanceId: leaving.groupInstanceId,
      errorCode,
    });
    if (group === undefined) {
      return { errorCode: ErrorCode.NONE, members: leavingMembers.map((leaving) => result(leaving, ErrorCode.UNKNOWN_MEMBER_ID)) };
    }
    if (group.is(GroupState.Dead)) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    const members = leavingMembers.map((leaving) => {
      if (leaving.memberId === '') {
        const currentMemberId = leaving.groupInstanceId === null ? null : group.currentStaticMemberId(leaving.groupInstanceId);
        if (currentMemberId === null) return result(leaving, ErrorCode.UNKNOWN_MEMBER_ID);
        this.removeCurrentMemberFromGroup(group, currentMemberId, leaving.reason);
        return result(leaving, ErrorCode.NONE);
      }
      if (group.isPendingMember(leaving.memberId)) {
        this.removePendingMemberAndUpdateGroup(group, leaving.memberId);
        return result(leaving, ErrorCode.NONE);
      }
      const memberError = this.validateCurrentMember(group, leaving.memberId, leaving.groupInstanceId);
      if (memberError !== null) return result(leaving, memberError);
      this.removeCurrentMemberFromGroup(group, leaving.memberId, leaving.reason);
      return result(leaving, ErrorCode.NONE);
    });
    return { errorCode: ErrorCode.NONE, members };
  }

  private removeCurrentMemberFromGroup(group: GroupMetadata, memberId: string, reason: string | null): void {
    const member = group.get(memberId);
    this.logger?.info({ groupId: group.groupId, memberId, reason }, 'member left the group');
    this.removeMemberAndUpdateGroup(group, member, `removing member ${memberId} on LeaveGroup; client reason: ${reason ?? 'not provided'}`);
  }

  // ---- offsets ---------------------------------------------------------------------------------

  /**
   * OffsetCommit. Resolves after the append (one error per entry, in order): NONE, or
   * ILLEGAL_GENERATION (22), UNKNOWN_MEMBER_ID (25), REBALANCE_IN_PROGRESS (27, while
   * CompletingRebalance), FENCED_INSTANCE_ID (82), OFFSET_METADATA_TOO_LARGE (12), the mapped
   * append error (COORDINATOR_NOT_AVAILABLE 15, NOT_COORDINATOR 16, INVALID_COMMIT_OFFSET_SIZE 28),
   * or a group status error.
   */
  commitOffsets(params: CommitOffsetsParams): Promise<TopicPartitionError[]> {
    return new Promise((resolve) => this.handleCommitOffsets(params, resolve));
  }

  private handleCommitOffsets(params: CommitOffsetsParams, callback: (errors: TopicPartitionError[]) => void): void {
    const all = (errorCode: number) =>
      callback(params.offsets.map((entry) => ({ topic: entry.topic, partition: entry.partition, errorCode })));
    const statusError = this.validateGroupStatus(params.groupId, 'offsetCommit');
    if (statusError !== null) {
      all(statusError);
      return;
    }
    let group = this.groupManager.getGroup(params.groupId);
    if (group === undefined) {
      // A group unknown here takes commits only from outside group management; anything else
      // comes from a generation that no longer exists.
      if (params.generationId >= 0) {
        all(ErrorCode.ILLEGAL_GENERATION);
        return;
      }
      group = this.groupManager.getOrMaybeCreateGroup(params.groupId, true)!;
    }
    const validationError = this.validateOffsetCommit(group, params);
    if (validationError !== null) {
      all(validationError);
      return;
    }
    switch (group.state) {
      case GroupState.Empty:
        this.groupManager.storeOffsets(group, params.offsets, callback);
        return;
      case GroupState.Stable:
      case GroupState.PreparingRebalance: {
        // Commits during PreparingRebalance are fine: the heartbeat tells the member to re-join.
        const member = group.get(params.memberId);
        this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
        this.groupManager.storeOffsets(group, params.offsets, callback);
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

  private validateOffsetCommit(group: GroupMetadata, params: CommitOffsetsParams): number | null {
    if (group.is(GroupState.Dead)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (params.generationId >= 0 || params.memberId !== '' || params.groupInstanceId !== null) {
      const memberError = this.validateCurrentMember(group, params.memberId, params.groupInstanceId);
      if (memberError !== null) return memberError;
      if (params.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
      return null;
    }
    // Only members may commit to a group that has members.
    if (!group.is(GroupState.Empty)) return ErrorCode.UNKNOWN_MEMBER_ID;
    return null;
  }

  /**
   * OffsetFetch: committed offsets of the given partitions (offset -1 when none), or of every
   * committed partition when `partitions` is null. Group-level error only for status problems.
   */
  fetchOffsets(groupId: string, requireStable: boolean, partitions: readonly TopicPartitionRef[] | null): OffsetFetchResult {
    const statusError = this.validateGroupStatus(groupId, 'offsetFetch');
    if (statusError !== null) return { errorCode: statusError, partitions: [] };
    return { errorCode: ErrorCode.NONE, partitions: this.groupManager.getOffsets(groupId, requireStable, partitions) };
  }

  /**
   * OffsetDelete: removes committed offsets of an Empty group, or of topics no member of a
   * consumer group subscribes to (others: GROUP_SUBSCRIBED_TO_TOPIC, 86). Group-level errors:
   * GROUP_ID_NOT_FOUND (69), NON_EMPTY_GROUP (68, non-consumer group with members), status errors.
   */
  deleteOffsets(groupId: string, partitions: readonly TopicPartitionRef[]): OffsetDeleteResult {
    const statusError = this.validateGroupStatus(groupId, 'offsetDelete');
    if (statusError !== null) return { errorCode: statusError, partitions: [] };
    const group = this.groupManager.getGroup(groupId);
    if (group === undefined || group.is(GroupState.Dead)) {
      return { errorCode: this.groupManager.groupNotExists(groupId) ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.NOT_COORDINATOR, partitions: [] };
    }
    let eligible: TopicPartitionRef[];
    const results: TopicPartitionError[] = [];
    if (group.is(GroupState.Empty)) {
      eligible = [...partitions];
    } else if (group.isConsumerGroup) {
      eligible = [];
      for (const ref of partitions) {
        if (group.isSubscribedToTopic(ref.topic)) results.push({ ...ref, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC });
        else eligible.push(ref);
      }
    } else {
      return { errorCode: ErrorCode.NON_EMPTY_GROUP, partitions: [] };
    }
    if (eligible.length > 0) {
      const removed = this.groupManager.cleanupGroupMetadata([group], (g) => g.removeOffsets(eligible));
      for (const ref of eligible) results.push({ ...ref, errorCode: ErrorCode.NONE });
      this.logger?.info({ groupId, offsetsRemoved: removed }, 'deleted offsets');
    }
    const order = new Map(partitions.map((ref, index) => [`${ref.topic}\u0000${ref.partition}`, index] as const));
    results.sort((a, b) => order.get(`${a.topic}\u0000${a.partition}`)! - order.get(`${b.topic}\u0000${b.partition}`)!);
    return { errorCode: ErrorCode.NONE, partitions: results };
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
    const group = this.groupManager.getGroup(groupId);
    if (group === undefined) {
      return { errorCode: ErrorCode.NONE, groupId, state: GroupState.Dead, protocolType: '', protocol: '', members: [] };
    }
    return group.summary();
  }

  /** ListGroups: every live group, optionally only those in `states` (ListGroups v4+). */
  listGroups(states: readonly string[] = []): ListGroupsResult {
    if (!this.active) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, groups: [] };
    const wanted = new Set(states);
    const groups = this.groupManager
      .currentGroups()
      .filter((group) => wanted.size === 0 || wanted.has(group.state))
      .map((group) => group.overview());
    return { errorCode: ErrorCode.NONE, groups };
  }

  /**
   * DeleteGroups: Empty groups die with their offsets (tombstones written); per group
   * NON_EMPTY_GROUP (68), GROUP_ID_NOT_FOUND (69), or a status error. Duplicate ids are answered once.
   */
  deleteGroups(groupIds: readonly string[]): { groupId: string; errorCode: number }[] {
    const errors = new Map<string, number>();
    const eligible: GroupMetadata[] = [];
    const nowMs = this.scheduler.nowMs();
    for (const groupId of groupIds) {
      if (errors.has(groupId)) continue;
      const statusError = this.validateGroupStatus(groupId, 'delete');
      if (statusError !== null) {
        errors.set(groupId, statusError);
        continue;
      }
      const group = this.groupManager.getGroup(groupId);
      if (group === undefined || group.is(GroupState.Dead)) {
        errors.set(groupId, this.groupManager.groupNotExists(groupId) ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.NOT_COORDINATOR);
      } else if (group.is(GroupState.Empty)) {
        group.transitionTo(GroupState.Dead, nowMs);
        eligible.push(group);
        errors.set(groupId, ErrorCode.NONE);
      } else {
        errors.set(groupId, ErrorCode.NON_EMPTY_GROUP);
      }
    }
    if (eligible.length > 0) {
      const removed = this.groupManager.cleanupGroupMetadata(eligible, (group) => group.removeAllOffsets());
      this.logger?.info({ groups: eligible.map((group) => group.groupId), offsetsRemoved: removed }, 'deleted groups');
    }
    return [...errors].map(([groupId, errorCode]) => ({ groupId, errorCode }));
  }

  // ---- topic changes ---------------------------------------------------------------------------

  /**
   * A topic's partition count changed (CreatePartitions): Stable or CompletingRebalance consumer
   * groups subscribed to it rebalance so the new partitions get assigned. Returns the group ids
   * that started rebalancing. (Kafka relies on the group leader noticing; see the file header.)
   */
  onTopicPartitionsChanged(topics: Iterable<string>): string[] {
    const changed = new Set(topics);
    const rebalanced: string[] = [];
    for (const group of this.groupManager.currentGroups()) {
      if (!group.is(GroupState.Stable) && !group.is(GroupState.CompletingRebalance)) continue;
      if (![...changed].some((topic) => group.isSubscribedToTopic(topic))) continue;
      this.prepareRebalance(group, `partition count of a subscribed topic changed`);
      rebalanced.push(group.groupId);
    }
    return rebalanced;
  }

  /** Topics were deleted: their committed offsets go from every group (Kafka's handleDeletedPartitions). */
  onTopicsDeleted(topics: Iterable<string>): number {
    const deleted = new Set(topics);
    return this.groupManager.cleanupGroupMetadata(this.groupManager.currentGroups(), (group) =>
      group.removeOffsets(
        [...group.offsets.entries()].filter(([topic]) => deleted.has(topic)).map(([topic, partition]) => ({ topic, partition })),
      ),
    );
  }

  /** Runs the offset expiry now (it also runs every offsets.retention.check.interval.ms). */
  cleanupExpiredOffsets(): number {
    return this.groupManager.cleanupExpiredOffsets();
  }

  // ---- shared checks -----------------------------------------------------------------------------

  private validateGroupStatus(groupId: string, api: ApiKind): number | null {
    // Offset APIs, DescribeGroups and DeleteGroups accept "" for backwards compatibility.
    const emptyAllowed = api === 'offsetCommit' || api === 'offsetFetch' || api === 'describe' || api === 'delete';
    if (!emptyAllowed && groupId === '') return ErrorCode.INVALID_GROUP_ID;
    if (!this.active) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (!this.groupManager.isGroupLocal(groupId)) return ErrorCode.NOT_COORDINATOR;
    return null;
  }

  /**
   * A static member's group.instance.id must map to `memberId` (else FENCED_INSTANCE_ID, or
   * UNKNOWN_MEMBER_ID when unmapped); any member id must be in the group (UNKNOWN_MEMBER_ID).
   */
  private validateCurrentMember(group: GroupMetadata, memberId: string, groupInstanceId: string | null): number | null {
    if (groupInstanceId !== null) {
      const currentMemberId = group.currentStaticMemberId(groupInstanceId);
      if (currentMemberId === null) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (currentMemberId !== memberId) {
        this.logger?.info({ groupId: group.groupId, memberId, groupInstanceId, currentMemberId }, 'static member fenced');
        return ErrorCode.FENCED_INSTANCE_ID;
      }
      return null;
    }
    return group.has(memberId) ? null : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  private onGroupLoaded(group: GroupMetadata): void {
    if (!group.is(GroupState.Stable) && !group.is(GroupState.Empty)) throw new Error(`Loaded group ${group.groupId} is ${group.state}`);
    for (const member of group.members.values()) this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
    if (group.is(GroupState.Stable) && group.size > this.config.groupMaxSize) {
      this.prepareRebalance(group, `freshly-loaded group is over capacity (${group.size} > group.max.size ${this.config.groupMaxSize})`);
    }
  }

  private onGroupUnloaded(group: GroupMetadata): void {
    this.logger?.info({ groupId: group.groupId, generationId: group.generationId }, 'unloading group metadata');
    group.transitionTo(GroupState.Dead, this.scheduler.nowMs());
    this.cancelGroupTimers(group);
    for (const member of [...group.members.values()]) {
      group.maybeInvokeJoinCallback(member, joinError(member.memberId, ErrorCode.NOT_COORDINATOR));
      group.maybeInvokeSyncCallback(member, syncError(ErrorCode.NOT_COORDINATOR));
    }
  }

  private cancelGroupTimers(group: GroupMetadata): void {
    if (group.pendingJoin !== null) {
      this.scheduler.clearTimeout(group.pendingJoin.timer);
      group.pendingJoin = null;
    }
    this.removeSyncExpiration(group);
    for (const memberId of [...group.pendingMemberTimers.keys()]) this.clearPendingMemberTimer(group, memberId);
    for (const member of group.members.values()) this.removeHeartbeatForLeavingMember(member);
  }

  private scheduleRetentionCheck(): void {
    this.retentionTimer = this.scheduler.setTimeout(() => {
      this.retentionTimer = null;
      if (!this.active) return;
      this.groupManager.cleanupExpiredOffsets();
      this.scheduleRetentionCheck();
    }, this.config.offsetsRetentionCheckIntervalMs);
  }

  private assertPartition(partition: number): void {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.config.offsetsTopicNumPartitions) {
      throw new Error(`__consumer_offsets partition ${partition} out of range [0, ${this.config.offsetsTopicNumPartitions})`);
    }
  }
}

function protocolNames(protocols: readonly JoinProtocol[]): Set<string> {
  return new Set(protocols.map((protocol) => protocol.name));
}
