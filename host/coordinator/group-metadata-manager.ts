/**
 * Classic groups of one `__consumer_offsets` partition (Kafka's GroupMetadataManager, classic
 * protocol part): membership (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), rebalances
 * (through {@link ClassicGroupRebalance}), DescribeGroups, and the replay of GroupMetadata
 * records. A state machine without I/O: time and timers come from the coordinator runtime,
 * records go to its write queue, and member ids take their random part from a
 * {@link RandomSource}.
 *
 * The rebalance protocol (group states and transitions are drawn in group-state.ts):
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
 * Beyond Kafka: `onTopicPartitionsChanged` lets the broker start a rebalance of consumer groups
 * subscribed to a topic whose partition count changed. Kafka leaves that to clients (the
 * leader re-joins when its metadata shows new partitions, which the Stable-leader rule above
 * turns into a rebalance); triggering it here also covers clients that do not watch.
 *
 * Also beyond Kafka: a JoinGroup or SyncGroup that a newer request of the same member replaces
 * is answered REBALANCE_IN_PROGRESS instead of being left pending forever.
 */
import type { Logger } from 'pino';
import type { RandomSource } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { GroupMetadataValue } from '../protocol/generated/group-metadata-value.js';
import { ClassicGroupRebalance, validateCurrentMember, type SyncGroupParams } from './classic-group-rebalance.js';
import type { CoordinatorResult, CoordinatorShardContext } from './coordinator-runtime.js';
import type {
  GroupSummary,
  JoinGroupResult,
  JoinProtocol,
  LeaveGroupResult,
  LeaveMemberResult,
  LeavingMember,
  SyncGroupResult,
} from './coordinator-types.js';
import { NEW_MEMBER_JOIN_TIMEOUT_MS, type GroupCoordinatorConfig } from './group-coordinator-config.js';
import { GroupMetadata, joinError, syncError } from './group-metadata.js';
import { GroupState } from './group-state.js';
import { MemberMetadata } from './member-metadata.js';
import { partitionForGroup } from './offsets-topic.js';

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

export interface HeartbeatParams {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export class GroupMetadataManager {
  private readonly groups = new Map<string, GroupMetadata>();
  private readonly rebalance: ClassicGroupRebalance;
  private readonly time: CoordinatorShardContext['time'];

  constructor(
    private readonly config: Readonly<GroupCoordinatorConfig>,
    private readonly context: CoordinatorShardContext,
    private readonly random: Pick<RandomSource, 'uuid'>,
    private readonly logger: Logger | null,
    /** A process-wide counter: ListGroups lists groups in the order they were created or loaded. */
    private readonly nextCreationOrder: () => number,
  ) {
    this.time = context.time;
    this.rebalance = new ClassicGroupRebalance(config, context.time, context.timer, context.writes, logger);
  }

  /** The cached group, Dead or not; undefined when unknown. */
  getGroup(groupId: string): GroupMetadata | undefined {
    return this.groups.get(groupId);
  }

  /** The group, or a new Empty one when `createIfNotExist`; undefined otherwise. */
  getOrMaybeCreateGroup(groupId: string, createIfNotExist: boolean): GroupMetadata | undefined {
    const existing = this.groups.get(groupId);
    if (existing !== undefined || !createIfNotExist) return existing;
    const group = new GroupMetadata(groupId, GroupState.Empty, this.time.nowMs());
    group.creationOrder = this.nextCreationOrder();
    this.groups.set(groupId, group);
    return group;
  }

  /** Every cached group, Dead ones excluded. */
  currentGroups(): GroupMetadata[] {
    return [...this.groups.values()].filter((group) => !group.is(GroupState.Dead));
  }

  /** Every cached group, Dead ones included. */
  allGroups(): GroupMetadata[] {
    return [...this.groups.values()];
  }

  /** Drops a dead group from the cache (cancelling its timers) when it is still the cached one. */
  removeGroup(group: GroupMetadata): boolean {
    if (this.groups.get(group.groupId) !== group) return false;
    this.groups.delete(group.groupId);
    this.rebalance.cancelGroupTimers(group);
    return true;
  }

  /**
   * Applies one GroupMetadata record: the group as its latest record describes it (Stable with
   * members, Empty without), or gone for a tombstone. False (skipped) for a value naming members
   * without a protocol.
   */
  replay(groupId: string, value: GroupMetadataValue | null): boolean {
    if (value === null) {
      this.groups.delete(groupId);
      return true;
    }
    if (value.members.length > 0 && value.protocol === null) return false;
    this.groups.set(groupId, this.groupFromValue(groupId, value));
    return true;
  }

  /**
   * Every record is replayed: groups that only have offsets come back Empty with no protocol
   * type, sessions restart. Returns the number of groups.
   */
  onLoaded(groupIdsWithOffsets: Iterable<string>): number {
    for (const groupId of groupIdsWithOffsets) {
      if (!this.groups.has(groupId)) this.groups.set(groupId, new GroupMetadata(groupId, GroupState.Empty, null));
    }
    for (const group of this.groups.values()) {
      group.creationOrder = this.nextCreationOrder();
      if (partitionForGroup(group.groupId, this.config.offsetsTopicNumPartitions) !== this.context.partition) {
        // A record in the wrong partition (e.g. written with another partition count): Kafka
        // loads it anyway, but no request would ever reach it here.
        this.logger?.warn({ groupId: group.groupId, partition: this.context.partition }, 'group found in a __consumer_offsets partition it does not hash to');
      }
      this.onGroupLoaded(group);
    }
    return this.groups.size;
  }

  /** The partition is unloaded: every group dies and what waits is answered NOT_COORDINATOR (16). */
  onUnloaded(): void {
    // One line per partition, not per group (a shutdown with 5,000 groups logged 5,000 lines).
    if (this.groups.size > 0) this.logger?.info({ partition: this.context.partition, groups: this.groups.size }, `unloading the metadata of ${this.groups.size} group(s)`);
    for (const group of this.groups.values()) this.onGroupUnloaded(group);
    this.groups.clear();
  }

  /** SyncGroup as an operation: the answer (resolved once the assignment is appended) and the records. */
  syncGroup(params: SyncGroupParams): CoordinatorResult<Promise<SyncGroupResult>> {
    const response = new Promise<SyncGroupResult>((resolve) => this.handleSyncGroup(params, resolve));
    return this.context.writes.result(response);
  }

  /** SyncGroup (the group's status was checked by the caller); see ClassicGroupRebalance.syncGroup. */
  private handleSyncGroup(params: SyncGroupParams, callback: (result: SyncGroupResult) => void): void {
    const group = this.groups.get(params.groupId);
    if (group === undefined) {
      callback(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
      return;
    }
    this.rebalance.syncGroup(group, params, callback);
  }

  /** A member's session restarts (a request from it arrived). */
  rescheduleSession(group: GroupMetadata, member: MemberMetadata): void {
    this.rebalance.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
  }

  /** See {@link validateCurrentMember}: UNKNOWN_MEMBER_ID (25), FENCED_INSTANCE_ID (82) or null. */
  validateCurrentMember(group: GroupMetadata, memberId: string, groupInstanceId: string | null): number | null {
    return validateCurrentMember(group, memberId, groupInstanceId, this.logger);
  }

  /** JoinGroup as an operation: the answer (resolved when the join phase ends) and the records. */
  joinGroup(params: JoinGroupParams): CoordinatorResult<Promise<JoinGroupResult>> {
    const response = new Promise<JoinGroupResult>((resolve) => this.handleJoinGroup(params, resolve));
    return this.context.writes.result(response);
  }

  /**
   * JoinGroup (the group's status was checked by the caller). Calls back at once on errors
   * (INVALID_SESSION_TIMEOUT 26, UNKNOWN_MEMBER_ID 25, INCONSISTENT_GROUP_PROTOCOL 23,
   * MEMBER_ID_REQUIRED 79, FENCED_INSTANCE_ID 82, GROUP_MAX_SIZE_REACHED 81,
   * COORDINATOR_NOT_AVAILABLE 15), else when the join phase completes.
   */
  private handleJoinGroup(params: JoinGroupParams, callback: (result: JoinGroupResult) => void): void {
    if (params.sessionTimeoutMs < this.config.groupMinSessionTimeoutMs || params.sessionTimeoutMs > this.config.groupMaxSessionTimeoutMs) {
      callback(joinError(params.memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
      return;
    }
    const isUnknownMember = params.memberId === '';
    // A group is created only by a member without id; a member id for a group we do not know is stale.
    const group = this.getOrMaybeCreateGroup(params.groupId, isUnknownMember);
    if (group === undefined) {
      callback(joinError(params.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      return;
    }
    if (!this.acceptJoiningMember(group, params.memberId)) {
      const member = group.members.get(params.memberId);
      if (member !== undefined) {
        group.maybeInvokeJoinCallback(member, joinError(params.memberId, ErrorCode.GROUP_MAX_SIZE_REACHED));
        this.rebalance.removeHeartbeatForLeavingMember(member);
      }
      group.remove(params.memberId);
      callback(joinError('', ErrorCode.GROUP_MAX_SIZE_REACHED));
    } else if (isUnknownMember) {
      this.doNewMemberJoinGroup(group, params, callback);
    } else {
      this.doCurrentMemberJoinGroup(group, params, callback);
    }
    if (group.is(GroupState.PreparingRebalance)) this.rebalance.tryCompleteJoin(group);
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
    const newMemberId = `${params.groupInstanceId ?? params.clientId}-${this.random.uuid()}`;
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
      this.rebalance.addPendingMember(group, newMemberId, params.sessionTimeoutMs);
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
          callback(this.rebalance.joinResultFor(group, member, group.isLeader(memberId)));
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
          callback(this.rebalance.joinResultFor(group, member, false));
        }
        return;
      case GroupState.Empty:
      case GroupState.Dead:
        // Unreachable (validateCurrentMember found the member), but answer the client sanely.
        callback(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
        return;
    }
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
    this.rebalance.clearPendingMemberTimer(group, memberId);
    group.add(member, callback);
    // New members cannot heartbeat before their first JoinGroup response, so they get the
    // longer new-member timeout instead of their session timeout.
    this.rebalance.scheduleHeartbeatExpiration(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS);
    this.rebalance.maybePrepareRebalance(group, `adding new member ${memberId} with group instance id ${params.groupInstanceId}`);
  }

  private updateMemberAndRebalance(
    group: GroupMetadata,
    member: MemberMetadata,
    params: JoinGroupParams,
    callback: (result: JoinGroupResult) => void,
    reason: string,
  ): void {
    this.rebalance.supersedeJoinCallback(group, member);
    group.updateMember(member, params.protocols, params.rebalanceTimeoutMs, params.sessionTimeoutMs, callback);
    this.rebalance.maybePrepareRebalance(group, reason);
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
    this.rebalance.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
    const oldProtocols = member.supportedProtocols;
    const oldRebalanceTimeoutMs = member.rebalanceTimeoutMs;
    const oldSessionTimeoutMs = member.sessionTimeoutMs;
    group.updateMember(member, params.protocols, params.rebalanceTimeoutMs, params.sessionTimeoutMs, callback);

    switch (group.state) {
      case GroupState.Stable: {
        if (group.protocolName !== group.selectProtocol()) {
          this.rebalance.maybePrepareRebalance(group, `static member ${newMemberId} changed the protocol the group would select`);
          return;
        }
        // Same protocol: persist the new member id, no rebalance.
        const assignment = new Map([...group.members.values()].map((m) => [m.memberId, m.assignment] as const));
        this.rebalance.storeGroup(group, assignment, (errorCode) => {
          if (errorCode !== ErrorCode.NONE) {
            // With an asynchronous append the group may have moved on and answered this join already.
            if (member.awaitingJoinCallback !== callback) return;
            this.logger?.warn({ groupId: group.groupId, errorCode }, 'failed to persist the new member id of a static member; reverting');
            group.updateMember(member, oldProtocols, oldRebalanceTimeoutMs, oldSessionTimeoutMs, null);
            if (group.has(newMemberId)) {
              const restored = group.replaceStaticMember(groupInstanceId, newMemberId, oldMemberId);
              this.rebalance.scheduleHeartbeatExpiration(group, restored, restored.sessionTimeoutMs);
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
            group.maybeInvokeJoinCallback(member, { ...this.rebalance.joinResultFor(group, member, isLeader), skipAssignment: isLeader });
          } else {
            // Before JoinGroup v9 the old leader id is returned, so a re-joining static leader
            // acts as a follower and does not compute an assignment a Stable group would ignore.
            group.maybeInvokeJoinCallback(member, { ...this.rebalance.joinResultFor(group, member, false), leaderId: currentLeader });
          }
        });
        return;
      }
      case GroupState.CompletingRebalance:
        // The leader may already be assigning to the old member id: rebalance so the new id gets
        // an assignment.
        this.rebalance.prepareRebalance(group, `static member ${newMemberId} replaced ${oldMemberId} during CompletingRebalance`);
        return;
      case GroupState.PreparingRebalance:
        return;
      case GroupState.Empty:
      case GroupState.Dead:
        throw new Error(`Group ${group.groupId} is ${group.state} while static member ${groupInstanceId} re-joins`);
    }
  }

  /** Heartbeat as an operation (it writes nothing, but a session restarts). */
  heartbeat(params: HeartbeatParams): CoordinatorResult<number> {
    return this.context.writes.result(this.handleHeartbeat(params));
  }

  /**
   * Heartbeat: NONE (0), REBALANCE_IN_PROGRESS (27) while PreparingRebalance, or
   * ILLEGAL_GENERATION (22), UNKNOWN_MEMBER_ID (25), FENCED_INSTANCE_ID (82),
   * COORDINATOR_NOT_AVAILABLE (15), NOT_COORDINATOR (16), INVALID_GROUP_ID (24).
   */
  private handleHeartbeat(params: HeartbeatParams): number {
    const group = this.groups.get(params.groupId);
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
        this.rebalance.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
        return ErrorCode.NONE;
      case GroupState.PreparingRebalance:
        this.rebalance.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
        return ErrorCode.REBALANCE_IN_PROGRESS;
      case GroupState.Dead:
        throw new Error('unreachable');
    }
  }

  /** LeaveGroup as an operation: the answer (at once) and the records (a group left Empty is written). */
  leaveGroup(groupId: string, leavingMembers: readonly LeavingMember[]): CoordinatorResult<LeaveGroupResult> {
    return this.context.writes.result(this.handleLeaveGroup(groupId, leavingMembers));
  }

  /**
   * LeaveGroup for one or more members (by member id, or by group.instance.id with member id ""
   * for administrative removal of static members). Per-member errors: UNKNOWN_MEMBER_ID (25),
   * FENCED_INSTANCE_ID (82). Group-level: COORDINATOR_NOT_AVAILABLE (15), NOT_COORDINATOR (16),
   * INVALID_GROUP_ID (24).
   */
  private handleLeaveGroup(groupId: string, leavingMembers: readonly LeavingMember[]): LeaveGroupResult {
    const group = this.groups.get(groupId);
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
        this.rebalance.removePendingMemberAndUpdateGroup(group, leaving.memberId);
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
    this.rebalance.removeMemberAndUpdateGroup(group, member, `removing member ${memberId} on LeaveGroup; client reason: ${reason ?? 'not provided'}`);
  }

  /**
   * DescribeGroups for one group. An unknown group is reported Dead with no error (as Kafka does
   * up to DescribeGroups v5); status errors come back with state "".
   */
  describeGroup(groupId: string): GroupSummary {
    const group = this.groups.get(groupId);
    if (group === undefined) {
      return { errorCode: ErrorCode.NONE, groupId, state: GroupState.Dead, protocolType: '', protocol: '', members: [] };
    }
    return group.summary();
  }

  /** A subscribed topic's partition count changed, as an operation; see below. */
  onTopicPartitionsChanged(topics: Iterable<string>): CoordinatorResult<string[]> {
    return this.context.writes.result(this.handleTopicPartitionsChanged(topics));
  }

  /**
   * A topic's partition count changed (CreatePartitions): Stable or CompletingRebalance consumer
   * groups subscribed to it rebalance so the new partitions get assigned. Returns the group ids
   * that started rebalancing. (Kafka relies on the group leader noticing; see the file header.)
   */
  private handleTopicPartitionsChanged(topics: Iterable<string>): string[] {
    const changed = new Set(topics);
    const rebalanced: string[] = [];
    for (const group of this.currentGroups()) {
      if (!group.is(GroupState.Stable) && !group.is(GroupState.CompletingRebalance)) continue;
      if (![...changed].some((topic) => group.isSubscribedToTopic(topic))) continue;
      this.rebalance.prepareRebalance(group, `partition count of a subscribed topic changed`);
      rebalanced.push(group.groupId);
    }
    return rebalanced;
  }

  private onGroupLoaded(group: GroupMetadata): void {
    if (!group.is(GroupState.Stable) && !group.is(GroupState.Empty)) throw new Error(`Loaded group ${group.groupId} is ${group.state}`);
    for (const member of group.members.values()) this.rebalance.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
    if (group.is(GroupState.Stable) && group.size > this.config.groupMaxSize) {
      this.rebalance.prepareRebalance(group, `freshly-loaded group is over capacity (${group.size} > group.max.size ${this.config.groupMaxSize})`);
    }
  }

  private onGroupUnloaded(group: GroupMetadata): void {
    group.transitionTo(GroupState.Dead, this.time.nowMs());
    this.rebalance.cancelGroupTimers(group);
    for (const member of [...group.members.values()]) {
      group.maybeInvokeJoinCallback(member, joinError(member.memberId, ErrorCode.NOT_COORDINATOR));
      group.maybeInvokeSyncCallback(member, syncError(ErrorCode.NOT_COORDINATOR));
    }
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
}

function protocolNames(protocols: readonly JoinProtocol[]): Set<string> {
  return new Set(protocols.map((protocol) => protocol.name));
}
