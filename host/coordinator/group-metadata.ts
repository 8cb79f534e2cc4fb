import { CONSUMER_PROTOCOL_TYPE, parseSubscribedTopics } from './consumer-protocol.js';
import type {
  GroupOverview,
  GroupSummary,
  JoinGroupMember,
  JoinGroupResult,
  JoinProtocol,
  MemberSummary,
  SyncGroupResult,
} from './coordinator-types.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { assertValidTransition, GroupState } from './group-state.js';
import type { MemberMetadata } from './member-metadata.js';
import type { TimerHandle } from '../io/environment.js';

const EMPTY_BYTES = new Uint8Array(0);

/** The delayed operation completing the join phase (Kafka's DelayedJoin / InitialDelayedJoin). */
export interface PendingJoin {
  timer: TimerHandle;
  /**
   * Set for InitialDelayedJoin: the first rebalance of an empty group waits
   * group.initial.rebalance.delay.ms (extended while new members keep arriving, up to the
   * rebalance timeout) and is never completed early.
   */
  initial: { delayMs: number; remainingMs: number } | null;
}

/**
 * A classic consumer group: members, generation, selected protocol, leader,
 * and the state of the diagram in group-state.ts (Kafka's GroupMetadata.scala). Pure data plus
 * invariant-keeping mutations; the coordinator drives it and owns the timers stored here.
 */
export class GroupMetadata {
  readonly groupId: string;
  private currentState: GroupState;
  /** When the group entered its current state (ms); null for groups loaded from old records. */
  currentStateTimestampMs: number | null;
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  readonly members = new Map<string, MemberMetadata>();
  /** group.instance.id -> member id of the static member currently holding it. */
  private readonly staticMembers = new Map<string, string>();
  /** Member ids handed out with MEMBER_ID_REQUIRED whose second JoinGroup has not arrived. */
  private readonly pendingMembers = new Set<string>();
  /** Members sent a JoinGroup response for this generation that have not yet sent SyncGroup. */
  private readonly pendingSyncMembers = new Set<string>();
  private numMembersAwaitingJoin = 0;
  /** protocol name -> number of members supporting it. */
  private readonly supportedProtocols = new Map<string, number>();
  /** Position in ListGroups: groups are listed in the order they were created or loaded. */
  creationOrder = 0;
  /** A new member joined during the first rebalance (extends the initial rebalance delay). */
  newMemberAdded = false;
  /** Topics the `consumer` members subscribe to; null when unknown (not a consumer group or undecodable). */
  subscribedTopics: Set<string> | null = null;


  pendingJoin: PendingJoin | null = null;
  pendingSyncTimer: TimerHandle | null = null;
  readonly pendingMemberTimers = new Map<string, TimerHandle>();

  constructor(groupId: string, initialState: GroupState, nowMs: number | null) {
    this.groupId = groupId;
    this.currentState = initialState;
    this.currentStateTimestampMs = nowMs;
  }

  get state(): GroupState {
    return this.currentState;
  }

  is(state: GroupState): boolean {
    return this.currentState === state;
  }

  /** Moves along an edge of the diagram in group-state.ts; any other move is a bug and throws. */
  transitionTo(state: GroupState, nowMs: number): void {
    assertValidTransition(this.groupId, this.currentState, state);
    this.currentState = state;
    this.currentStateTimestampMs = nowMs;
  }

  /** PreparingRebalance may be entered from here (Kafka's canRebalance). */
  get canRebalance(): boolean {
    return this.is(GroupState.Empty) || this.is(GroupState.CompletingRebalance) || this.is(GroupState.Stable);
  }

  get size(): number {
    return this.members.size;
  }

  has(memberId: string): boolean {
    return this.members.has(memberId);
  }

  get(memberId: string): MemberMetadata {
    const member = this.members.get(memberId);
    if (member === undefined) throw new Error(`Member ${memberId} is not in group ${this.groupId}`);
    return member;
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  get numAwaitingJoin(): number {
    return this.numMembersAwaitingJoin;
  }

  /** Largest rebalance timeout of the members: how long the join phase may wait. */
  get rebalanceTimeoutMs(): number {
    let timeoutMs = 0;
    for (const member of this.members.values()) timeoutMs = Math.max(timeoutMs, member.rebalanceTimeoutMs);
    return timeoutMs;
  }

  currentStaticMemberId(groupInstanceId: string): string | null {
    return this.staticMembers.get(groupInstanceId) ?? null;
  }

  get staticMemberCount(): number {
    return this.staticMembers.size;
  }

  /**
   * Adds `member`, owed a JoinGroup response through `callback` when given. The first member
   * fixes the protocol type and becomes leader.
   */
  add(member: MemberMetadata, callback: ((result: JoinGroupResult) => void) | null): void {
    if (this.members.size === 0) this.protocolType = member.protocolType;
    if (this.protocolType !== member.protocolType) throw new Error(`Protocol type mismatch in group ${this.groupId}`);
    if (this.members.has(member.memberId)) throw new Error(`Member ${member.memberId} already in group ${this.groupId}`);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.members.set(member.memberId, member);
    this.incSupportedProtocols(member);
    member.awaitingJoinCallback = callback;
    if (member.isAwaitingJoin) this.numMembersAwaitingJoin++;
    this.pendingMembers.delete(member.memberId);
  }

  /** Removes a member (and its pending/pending-sync marks); a new leader is the next member, if any. */
  remove(memberId: string): void {
    const member = this.members.get(memberId);
    if (member !== undefined) {
      this.members.delete(memberId);
      this.decSupportedProtocols(member);
      if (member.isAwaitingJoin) this.numMembersAwaitingJoin--;
      if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === memberId) {
        this.staticMembers.delete(member.groupInstanceId);
      }
    }
    if (this.isLeader(memberId)) {
      const next = this.members.keys().next();
      this.leaderId = next.done ? null : next.value;
    }
    this.pendingMembers.delete(memberId);
    this.pendingSyncMembers.delete(memberId);
  }

  /**
   * Gives a static member's slot to a new member id. A JoinGroup or SyncGroup still waiting under
   * the old id is answered FENCED_INSTANCE_ID at once (Kafka's replaceStaticMember).
   */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): MemberMetadata {
    const member = this.members.get(oldMemberId);
    if (member === undefined) throw new Error(`Cannot replace non-existing member ${oldMemberId} of group ${this.groupId}`);
    this.members.delete(oldMemberId);
    this.maybeInvokeJoinCallback(member, joinError(oldMemberId, ErrorCode.FENCED_INSTANCE_ID));
    this.maybeInvokeSyncCallback(member, syncError(ErrorCode.FENCED_INSTANCE_ID));
    member.memberId = newMemberId;
    this.members.set(newMemberId, member);
    if (this.isLeader(oldMemberId)) this.leaderId = newMemberId;
    this.staticMembers.set(groupInstanceId, newMemberId);
    if (this.pendingSyncMembers.delete(oldMemberId)) this.pendingSyncMembers.add(newMemberId);
    return member;
  }

  /** Replaces a member's protocols and timeouts; `callback` (when given) is the JoinGroup it now awaits. */
  updateMember(
    member: MemberMetadata,
    protocols: JoinProtocol[],
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    callback: ((result: JoinGroupResult) => void) | null,
  ): void {
    this.decSupportedProtocols(member);
    member.supportedProtocols = protocols;
    this.incSupportedProtocols(member);
    member.rebalanceTimeoutMs = rebalanceTimeoutMs;
    member.sessionTimeoutMs = sessionTimeoutMs;
    if (callback !== null && !member.isAwaitingJoin) this.numMembersAwaitingJoin++;
    else if (callback === null && member.isAwaitingJoin) this.numMembersAwaitingJoin--;
    member.awaitingJoinCallback = callback;
  }

  /** Delivers a JoinGroup response owed to `member`, if any. */
  maybeInvokeJoinCallback(member: MemberMetadata, result: JoinGroupResult): void {
    const callback = member.awaitingJoinCallback;
    if (callback === null) return;
    member.awaitingJoinCallback = null;
    this.numMembersAwaitingJoin--;
    if (this.numMembersAwaitingJoin < 0) throw new Error(`Negative awaiting-join count in group ${this.groupId}`);
    callback(result);
  }

  /** Delivers a SyncGroup response owed to `member`, if any; returns whether one was owed. */
  maybeInvokeSyncCallback(member: MemberMetadata, result: SyncGroupResult): boolean {
    const callback = member.awaitingSyncCallback;
    if (callback === null) return false;
    member.awaitingSyncCallback = null;
    callback(result);
    return true;
  }

  addPendingMember(memberId: string): void {
    this.pendingMembers.add(memberId);
  }

  isPendingMember(memberId: string): boolean {
    return this.pendingMembers.has(memberId);
  }

  removePendingMember(memberId: string): void {
    this.pendingMembers.delete(memberId);
  }

  get pendingMemberCount(): number {
    return this.pendingMembers.size;
  }

  addPendingSyncMember(memberId: string): void {
    this.pendingSyncMembers.add(memberId);
  }

  removePendingSyncMember(memberId: string): void {
    this.pendingSyncMembers.delete(memberId);
  }

  get allPendingSyncMembers(): string[] {
    return [...this.pendingSyncMembers];
  }

  get hasReceivedSyncFromAllMembers(): boolean {
    return this.pendingSyncMembers.size === 0;
  }

  clearPendingSyncMembers(): void {
    this.pendingSyncMembers.clear();
  }

  /** Every member re-joined and no MEMBER_ID_REQUIRED member is still expected. */
  get hasAllMembersJoined(): boolean {
    return this.members.size === this.numMembersAwaitingJoin && this.pendingMembers.size === 0;
  }

  /** Members that have not sent JoinGroup in the current rebalance. */
  notYetRejoinedMembers(): MemberMetadata[] {
    return [...this.members.values()].filter((member) => !member.isAwaitingJoin);
  }

  /**
   * Keeps the leader if it re-joined, else promotes any re-joined member; false when nobody
   * re-joined (or there is no leader at all).
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    const leader = this.members.get(this.leaderId);
    if (leader !== undefined && leader.isAwaitingJoin) return true;
    for (const member of this.members.values()) {
      if (member.isAwaitingJoin) {
        this.leaderId = member.memberId;
        return true;
      }
    }
    return false;
  }

  /**
   * Starts the next generation: with members, select the protocol and move to
   * CompletingRebalance; without, move to Empty.
   */
  initNextGeneration(nowMs: number): void {
    this.generationId++;
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo(GroupState.CompletingRebalance, nowMs);
    } else {
      this.protocolName = null;
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo(GroupState.Empty, nowMs);
    }
    this.clearPendingSyncMembers();
  }

  /**
   * Whether a member with this protocol type and protocol set may join: any non-empty type and
   * set for an empty group, else the group's type and at least one protocol every current
   * member supports.
   */
  supportsProtocols(memberProtocolType: string, memberProtocols: ReadonlySet<string>): boolean {
    if (this.is(GroupState.Empty)) return memberProtocolType.length > 0 && memberProtocols.size > 0;
    if (this.protocolType !== memberProtocolType) return false;
    for (const protocol of memberProtocols) {
      // With no members left (all gone mid-rebalance) any protocol of the right type fits, as in Kafka.
      if ((this.supportedProtocols.get(protocol) ?? 0) === this.members.size) return true;
    }
    return false;
  }

  /** Protocols supported by every member. */
  candidateProtocols(): Set<string> {
    const candidates = new Set<string>();
    for (const [protocol, count] of this.supportedProtocols) if (count === this.members.size) candidates.add(protocol);
    return candidates;
  }

  /**
   * Kafka's selectProtocol: among the protocols every member supports, each member votes for its
   * most preferred one and the most votes win. Ties (which Kafka leaves to hash order) go to the
   * protocol that got its first vote earliest in member join order, so the choice is repeatable.
   */
  selectProtocol(): string {
    if (this.members.size === 0) throw new Error(`Cannot select protocol for empty group ${this.groupId}`);
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>();
    for (const member of this.members.values()) {
      const choice = member.vote(candidates);
      votes.set(choice, (votes.get(choice) ?? 0) + 1);
    }
    let best: string | null = null;
    let bestVotes = -1;
    for (const [protocol, count] of votes) {
      if (count > bestVotes) {
        best = protocol;
        bestVotes = count;
      }
    }
    return best!;
  }

  /** The members with their metadata for the selected protocol (what the leader receives). */
  currentMemberMetadata(): JoinGroupMember[] {
    if (this.protocolName === null) throw new Error(`No protocol selected for group ${this.groupId}`);
    const protocol = this.protocolName;
    return [...this.members.values()].map((member) => ({
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId,
      metadata: member.metadata(protocol),
    }));
  }

  /** Topics of the members' `consumer` subscriptions (Kafka's computeSubscribedTopics). */
  computeSubscribedTopics(): Set<string> | null {
    if (this.protocolType !== CONSUMER_PROTOCOL_TYPE) return null;
    if (this.members.size === 0) return new Set();
    if (this.protocolName === null) return null;
    const topics = new Set<string>();
    for (const member of this.members.values()) {
      const subscribed = parseSubscribedTopics(member.metadata(this.protocolName));
      if (subscribed === null) return null;
      for (const topic of subscribed) topics.add(topic);
    }
    return topics;
  }

  isSubscribedToTopic(topic: string): boolean {
    return this.subscribedTopics?.has(topic) ?? false;
  }

  get isConsumerGroup(): boolean {
    return this.protocolType === CONSUMER_PROTOCOL_TYPE;
  }

  /** DescribeGroups view: member metadata and assignments only while Stable. */
  summary(): GroupSummary {
    const stable = this.is(GroupState.Stable);
    if (stable && this.protocolName === null) throw new Error(`Stable group ${this.groupId} has no protocol`);
    const members: MemberSummary[] = [...this.members.values()].map((member) => ({
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId,
      clientId: member.clientId,
      clientHost: member.clientHost,
      metadata: stable ? member.metadata(this.protocolName!) : EMPTY_BYTES,
      assignment: stable ? member.assignment : EMPTY_BYTES,
    }));
    return {
      errorCode: ErrorCode.NONE,
      groupId: this.groupId,
      state: this.currentState,
      protocolType: this.protocolType ?? '',
      protocol: stable ? this.protocolName! : '',
      members,
    };
  }

  overview(): GroupOverview {
    return { groupId: this.groupId, protocolType: this.protocolType ?? '', state: this.currentState };
  }

  private incSupportedProtocols(member: MemberMetadata): void {
    for (const protocol of member.protocolNames()) {
      this.supportedProtocols.set(protocol, (this.supportedProtocols.get(protocol) ?? 0) + 1);
    }
  }

  private decSupportedProtocols(member: MemberMetadata): void {
    for (const protocol of member.protocolNames()) {
      const count = (this.supportedProtocols.get(protocol) ?? 0) - 1;
      if (count < 0) throw new Error(`Negative protocol count for ${protocol} in group ${this.groupId}`);
      if (count === 0) this.supportedProtocols.delete(protocol);
      else this.supportedProtocols.set(protocol, count);
    }
  }
}

/** JoinGroupResult for an error: no generation, protocol or leader (Kafka's JoinGroupResult(memberId, error)). */
export function joinError(memberId: string, errorCode: number): JoinGroupResult {
  return {
    errorCode,
    memberId,
    generationId: -1,
    protocolType: null,
    protocolName: null,
    leaderId: '',
    skipAssignment: false,
    members: [],
  };
}

/** SyncGroupResult for an error: empty assignment. */
export function syncError(errorCode: number): SyncGroupResult {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY_BYTES };
}
