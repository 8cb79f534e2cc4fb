/**
 * The rebalance machinery of classic groups (the part of Kafka's GroupMetadataManager that
 * drives a group through the diagram in group-state.ts once a request or a timer moved it): the
 * join phase and its delayed completion (group.initial.rebalance.delay.ms, rebalance timeouts),
 * SyncGroup and the persisting of the leader's assignment, session expiry, and the
 * GroupMetadata records.
 *
 * Why memory changes before the append here (as in Kafka's classic group state machine): a
 * rebalance is a conversation among the members that are online now, which a coordinator that
 * fails over never resumes (a loaded group comes back Stable or Empty and its members re-join).
 * Only the outcome is durable: the GroupMetadata record written when the leader's assignment
 * arrives (the members get their assignment only once it is appended), when the group becomes
 * Empty, and when a static member's id is replaced. Those records are not replayed on append
 * (the memory they describe is already in place); loading replays them.
 *
 * Timers come from the runtime's {@link CoordinatorTimer}; their handles live on the group and
 * member objects so that a superseded timer can be cancelled.
 */
import type { Logger } from 'pino';
import type { Time } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { groupMetadataKey, groupMetadataValue } from './coordinator-records.js';
import type { CoordinatorTimer, CoordinatorWriteQueue } from './coordinator-runtime.js';
import type { JoinGroupResult, SyncGroupResult } from './coordinator-types.js';
import type { GroupCoordinatorConfig } from './group-coordinator-config.js';
import { GroupMetadata, joinError, syncError } from './group-metadata.js';
import { GroupState } from './group-state.js';
import type { MemberMetadata } from './member-metadata.js';
import { mapStoreGroupError } from './store-errors.js';

const EMPTY_BYTES = new Uint8Array(0);

/** SyncGroup, as the coordinator needs it (the wire facade fills it from any version). */
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

export class ClassicGroupRebalance {
  constructor(
    private readonly config: Readonly<GroupCoordinatorConfig>,
    private readonly time: Pick<Time, 'nowMs'>,
    private readonly timer: CoordinatorTimer,
    private readonly writes: CoordinatorWriteQueue,
    private readonly logger: Logger | null,
  ) {}

  /** Remembers a member id handed out with MEMBER_ID_REQUIRED; forgotten after `sessionTimeoutMs` (ms) if it never joins. */
  addPendingMember(group: GroupMetadata, memberId: string, sessionTimeoutMs: number): void {
    group.addPendingMember(memberId);
    this.clearPendingMemberTimer(group, memberId);
    group.pendingMemberTimers.set(memberId, this.timer.schedule(() => {
      group.pendingMemberTimers.delete(memberId);
      if (group.is(GroupState.Dead) || !group.isPendingMember(memberId)) return;
      this.logger?.info({ groupId: group.groupId, memberId }, 'pending member removed after session timeout');
      this.removePendingMemberAndUpdateGroup(group, memberId);
    }, sessionTimeoutMs));
  }

  /** Cancels the expiry of a pending member id (it joined, left, or the group died). */
  clearPendingMemberTimer(group: GroupMetadata, memberId: string): void {
    const timer = group.pendingMemberTimers.get(memberId);
    if (timer === undefined) return;
    this.timer.cancel(timer);
    group.pendingMemberTimers.delete(memberId);
  }

  /** Forgets a pending member id; a join phase that only waited for it completes. */
  removePendingMemberAndUpdateGroup(group: GroupMetadata, memberId: string): void {
    group.remove(memberId);
    this.clearPendingMemberTimer(group, memberId);
    if (group.is(GroupState.PreparingRebalance)) this.tryCompleteJoin(group);
  }

  /** Answers a JoinGroup that the member's newer JoinGroup replaces (see the file header). */
  supersedeJoinCallback(group: GroupMetadata, member: MemberMetadata): void {
    const callback = member.awaitingJoinCallback;
    if (callback === null) return;
    group.updateMember(member, member.supportedProtocols, member.rebalanceTimeoutMs, member.sessionTimeoutMs, null);
    callback(joinError(member.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
  }

  // ---- rebalance machinery ---------------------------------------------------------------------

  /** Starts a rebalance unless one is already in its join phase (or the group is Dead). */
  maybePrepareRebalance(group: GroupMetadata, reason: string): void {
    if (group.canRebalance) this.prepareRebalance(group, reason);
  }

  /**
   * Moves the group to PreparingRebalance and arms the join phase's end: the initial delay for an
   * Empty group, else the largest rebalance timeout (completing at once when everyone is in).
   * A bug (throws) when a join phase is already pending.
   */
  prepareRebalance(group: GroupMetadata, reason: string): void {
    if (group.is(GroupState.CompletingRebalance)) this.resetAndPropagateAssignmentError(group, ErrorCode.REBALANCE_IN_PROGRESS);
    this.removeSyncExpiration(group);
    if (group.pendingJoin !== null) throw new Error(`Group ${group.groupId} already has a pending join`);
    const wasEmpty = group.is(GroupState.Empty);
    group.transitionTo(GroupState.PreparingRebalance, this.time.nowMs());
    this.logger?.info({ groupId: group.groupId, generationId: group.generationId, reason }, 'preparing to rebalance group');
    if (wasEmpty) {
      const delayMs = this.config.groupInitialRebalanceDelayMs;
      this.scheduleInitialJoin(group, delayMs, Math.max(group.rebalanceTimeoutMs - delayMs, 0));
    } else {
      group.pendingJoin = {
        timer: this.timer.schedule(() => this.onJoinTimerExpired(group), group.rebalanceTimeoutMs),
        initial: null,
      };
      this.tryCompleteJoin(group);
    }
  }

  private scheduleInitialJoin(group: GroupMetadata, delayMs: number, remainingMs: number): void {
    group.pendingJoin = {
      timer: this.timer.schedule(() => this.onInitialJoinTimerExpired(group), delayMs),
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
  tryCompleteJoin(group: GroupMetadata): void {
    const pendingJoin = group.pendingJoin;
    if (pendingJoin === null || pendingJoin.initial !== null || !group.hasAllMembersJoined) return;
    this.timer.cancel(pendingJoin.timer);
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
        timer: this.timer.schedule(() => this.onJoinTimerExpired(group), group.rebalanceTimeoutMs),
        initial: null,
      };
      this.tryCompleteJoin(group);
      return;
    }
    group.initNextGeneration(this.time.nowMs());
    if (group.is(GroupState.Empty)) {
      this.logger?.info({ groupId: group.groupId, generationId: group.generationId }, 'group is now empty');
      this.storeGroup(group, new Map(), (errorCode) => {
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
    group.pendingSyncTimer = this.timer.schedule(() => {
      group.pendingSyncTimer = null;
      this.onExpirePendingSync(group, generationId);
    }, group.rebalanceTimeoutMs);
  }

  private removeSyncExpiration(group: GroupMetadata): void {
    if (group.pendingSyncTimer === null) return;
    this.timer.cancel(group.pendingSyncTimer);
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

  /** (Re)starts a member's session: it is removed after `timeoutMs` (ms) without a request. */
  scheduleHeartbeatExpiration(group: GroupMetadata, member: MemberMetadata, timeoutMs: number): void {
    if (member.heartbeatTimer !== null) this.timer.cancel(member.heartbeatTimer);
    const memberId = member.memberId;
    member.heartbeatTimer = this.timer.schedule(() => {
      member.heartbeatTimer = null;
      this.onExpireHeartbeat(group, member, memberId);
    }, timeoutMs);
  }

  /** Cancels a member's session expiry. */
  removeHeartbeatForLeavingMember(member: MemberMetadata): void {
    if (member.heartbeatTimer === null) return;
    this.timer.cancel(member.heartbeatTimer);
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

  /** Removes a member (answering what it waits for with UNKNOWN_MEMBER_ID) and rebalances what remains. */
  removeMemberAndUpdateGroup(group: GroupMetadata, member: MemberMetadata, reason: string): void {
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

  /**
   * SyncGroup on a known group. The leader's call persists the assignment; every member's call
   * is answered once it is persisted (or at once in a Stable group). Errors: ILLEGAL_GENERATION
   * (22), UNKNOWN_MEMBER_ID (25), REBALANCE_IN_PROGRESS (27), INCONSISTENT_GROUP_PROTOCOL (23),
   * FENCED_INSTANCE_ID (82), COORDINATOR_NOT_AVAILABLE (15).
   */
  syncGroup(group: GroupMetadata, params: SyncGroupParams, callback: (result: SyncGroupResult) => void): void {
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
    this.storeGroup(group, assignment, (errorCode) => {
      // The group may have moved on (a join, a leave) while the append was in flight.
      if (!group.is(GroupState.CompletingRebalance) || group.generationId !== generationId) return;
      if (errorCode !== ErrorCode.NONE) {
        this.resetAndPropagateAssignmentError(group, errorCode);
        this.maybePrepareRebalance(group, 'error when storing the group assignment during SyncGroup');
        return;
      }
      for (const member of group.members.values()) member.assignment = assignment.get(member.memberId) ?? EMPTY_BYTES;
      this.propagateAssignment(group, ErrorCode.NONE);
      group.transitionTo(GroupState.Stable, this.time.nowMs());
    });
  }

  private validateSyncGroup(group: GroupMetadata, params: SyncGroupParams): number | null {
    if (group.is(GroupState.Dead)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const memberError = validateCurrentMember(group, params.memberId, params.groupInstanceId, this.logger);
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


  /**
   * Persists the group's metadata with the given assignment (member id -> bytes; every member
   * must have one) and reports the mapped append error: COORDINATOR_NOT_AVAILABLE (15) for
   * replication-type failures, NOT_COORDINATOR (16) for NOT_LEADER_OR_FOLLOWER or
   * KAFKA_STORAGE_ERROR, UNKNOWN_SERVER_ERROR (-1) for oversized records (Kafka's storeGroup).
   */
  storeGroup(group: GroupMetadata, assignment: ReadonlyMap<string, Uint8Array>, callback: (errorCode: number) => void): void {
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
    this.writes.append([{ key: groupMetadataKey(group.groupId), value }], (errorCode) => callback(mapStoreGroupError(errorCode)));
  }

  /** Cancels every timer of a group (it dies or is unloaded). */
  cancelGroupTimers(group: GroupMetadata): void {
    if (group.pendingJoin !== null) {
      this.timer.cancel(group.pendingJoin.timer);
      group.pendingJoin = null;
    }
    this.removeSyncExpiration(group);
    for (const memberId of [...group.pendingMemberTimers.keys()]) this.clearPendingMemberTimer(group, memberId);
    for (const member of group.members.values()) this.removeHeartbeatForLeavingMember(member);
  }


  /** A successful JoinGroup answer for `member` in the current generation; the members' metadata only for the leader. */
  joinResultFor(group: GroupMetadata, member: MemberMetadata, includeMembers: boolean): JoinGroupResult {
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
}

/**
 * A static member's group.instance.id must map to `memberId` (else FENCED_INSTANCE_ID, or
 * UNKNOWN_MEMBER_ID when unmapped); any member id must be in the group (UNKNOWN_MEMBER_ID).
 */
export function validateCurrentMember(group: GroupMetadata, memberId: string, groupInstanceId: string | null, logger: Logger | null): number | null {
  if (groupInstanceId !== null) {
    const currentMemberId = group.currentStaticMemberId(groupInstanceId);
    if (currentMemberId === null) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (currentMemberId !== memberId) {
      logger?.info({ groupId: group.groupId, memberId, groupInstanceId, currentMemberId }, 'static member fenced');
      return ErrorCode.FENCED_INSTANCE_ID;
    }
    return null;
  }
  return group.has(memberId) ? null : ErrorCode.UNKNOWN_MEMBER_ID;
}
