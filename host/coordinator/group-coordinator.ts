/**
 * The group coordinator as the API layer sees it: one method per API key, taking the generated
 * request type (as decoded for `context.apiVersion`) and resolving to the generated response
 * type for the same version. Version rules live here (what KafkaApis does in Kafka); the
 * protocol itself is {@link ClassicGroupCoordinator}.
 *
 * Version notes that matter:
 * - JoinGroup v0 has no rebalance timeout: the session timeout is used. v4+ (KIP-394): a member
 *   without id and without group.instance.id gets MEMBER_ID_REQUIRED (79) with its id first;
 *   never below v4 (kafka-python uses v2). v5+: group.instance.id (KIP-345).
 * - LeaveGroup v0-2 carry one member id and answer with one error; v3+ carry a member batch.
 * - OffsetCommit v0: no generation/member (a simple commit); v1: per-partition commit
 *   timestamp; v2-4: retention time, stored as an expire timestamp (OffsetCommitValue v1);
 *   v6+: committed leader epoch; v7+: group.instance.id.
 * - OffsetFetch v0-1: no top-level error, so a group error goes on every partition; v2+: null
 *   topics = every committed partition; v5+: committed leader epoch.
 * - DescribeGroups v3+: authorized operations on request; v4+: group.instance.id of members.
 * - TxnOffsetCommit v0-1: no generation/member (the offsets are the transaction's alone); v2+:
 *   committed leader epoch; v3+ (KIP-447): generation, member id and group.instance.id, checked
 *   when set, so a zombie member of an older generation cannot commit.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { DeleteGroupsRequest, DeleteGroupsResponse } from '../protocol/generated/delete-groups.js';
import type { DescribeGroupsRequest, DescribeGroupsResponse } from '../protocol/generated/describe-groups.js';
import type { HeartbeatRequest, HeartbeatResponse } from '../protocol/generated/heartbeat.js';
import type { JoinGroupRequest, JoinGroupResponse } from '../protocol/generated/join-group.js';
import type { LeaveGroupRequest, LeaveGroupResponse } from '../protocol/generated/leave-group.js';
import type { ListGroupsRequest, ListGroupsResponse } from '../protocol/generated/list-groups.js';
import type { OffsetCommitRequest, OffsetCommitResponse, OffsetCommitResponseTopic } from '../protocol/generated/offset-commit.js';
import type { OffsetDeleteRequest, OffsetDeleteResponse, OffsetDeleteResponseTopic } from '../protocol/generated/offset-delete.js';
import type { OffsetFetchRequest, OffsetFetchResponse, OffsetFetchResponseTopic } from '../protocol/generated/offset-fetch.js';
import type { SyncGroupRequest, SyncGroupResponse } from '../protocol/generated/sync-group.js';
import type { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../protocol/generated/txn-offset-commit.js';
import {
  ClassicGroupCoordinator,
  type ClassicGroupCoordinatorOptions,
  type LoadSummary,
} from './classic-group-coordinator.js';
import type { LeavingMember, TopicPartitionError, TopicPartitionOffset, TopicPartitionRef } from './coordinator-types.js';
import type { OffsetsTopicRecord } from './offsets-topic.js';

/** Who sent a request, as the API layer knows it. */
export interface RequestContext {
  apiVersion: number;
  /** The request header's client id ("" when null). */
  clientId: string;
  /** The peer address, e.g. "/127.0.0.1" as Kafka writes it or "127.0.0.1". */
  clientHost: string;
}

export interface GroupCoordinatorOptions extends ClassicGroupCoordinatorOptions {
  /**
   * Whether a topic partition exists (the broker's metadata). When given, OffsetCommit and
   * OffsetDelete answer UNKNOWN_TOPIC_OR_PARTITION (3) for partitions that do not, as Kafka's
   * KafkaApis does; when absent every partition is accepted.
   */
  partitionExists?: (topic: string, partition: number) => boolean;
}

/** Kafka's DescribeGroups authorized operations for a group without an authorizer: READ, DELETE, DESCRIBE. */
/** Kafka's GroupType.CLASSIC as ListGroups v5 names it (KIP-848). */
const CLASSIC_GROUP_TYPE = 'classic';
const GROUP_AUTHORIZED_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8);
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

export class GroupCoordinator {
  readonly classic: ClassicGroupCoordinator;
  private readonly partitionExists: (topic: string, partition: number) => boolean;
  private readonly nowMs: () => number;

  constructor(options: GroupCoordinatorOptions) {
    this.classic = new ClassicGroupCoordinator(options);
    this.partitionExists = options.partitionExists ?? (() => true);
    this.nowMs = () => options.time.nowMs();
  }

  // ---- lifecycle (see ClassicGroupCoordinator) ---------------------------------------------------

  startup(): void {
    this.classic.startup();
  }

  loadAllPartitions(): LoadSummary[] {
    return this.classic.loadAllPartitions();
  }

  loadPartition(partition: number, records?: Iterable<OffsetsTopicRecord>): LoadSummary {
    return this.classic.loadPartition(partition, records);
  }

  unloadPartition(partition: number): void {
    this.classic.unloadPartition(partition);
  }

  /**
   * Kafka's onElection: this broker now leads `__consumer_offsets`-`partition`, so it coordinates
   * the partition's groups (loaded from its records). Nothing happens when they are loaded already.
   * Returns true when it loaded them now.
   */
  onElection(partition: number): boolean {
    if (this.classic.isPartitionLoaded(partition)) return false;
    this.classic.loadPartition(partition);
    return true;
  }

  /**
   * Kafka's onResignation: another broker leads `__consumer_offsets`-`partition` now (or this one
   * no longer hosts it): its groups are unloaded and their requests answer NOT_COORDINATOR (16).
   * Returns true when they were loaded.
   */
  onResignation(partition: number): boolean {
    if (!this.classic.isPartitionLoaded(partition)) return false;
    this.classic.unloadPartition(partition);
    return true;
  }

  shutdown(): void {
    this.classic.shutdown();
  }

  partitionFor(groupId: string): number {
    return this.classic.partitionFor(groupId);
  }

  onTopicPartitionsChanged(topics: Iterable<string>): string[] {
    return this.classic.onTopicPartitionsChanged(topics);
  }

  onTopicsDeleted(topics: Iterable<string>): number {
    return this.classic.onTopicsDeleted(topics);
  }

  /**
   * A COMMIT or ABORT marker of `producerId` was appended to these `__consumer_offsets`
   * partitions: the offsets its transaction committed there become visible or are dropped.
   */
  onTransactionCompleted(producerId: number, partitions: readonly number[], result: 'commit' | 'abort'): number {
    return this.classic.onTransactionCompleted(producerId, partitions, result === 'commit');
  }

  // ---- APIs --------------------------------------------------------------------------------------

  /** JoinGroup (api key 11), v0-5; resolves when the join phase completes. */
  async joinGroup(request: JoinGroupRequest, context: RequestContext): Promise<JoinGroupResponse> {
    const version = context.apiVersion;
    const result = await this.classic.joinGroup({
      groupId: request.groupId,
      memberId: request.memberId,
      groupInstanceId: version >= 5 ? request.groupInstanceId : null,
      requireKnownMemberId: version >= 4 && (version < 5 || request.groupInstanceId === null),
      supportSkippingAssignment: version >= 9,
      clientId: context.clientId,
      clientHost: context.clientHost,
      rebalanceTimeoutMs: version === 0 ? request.sessionTimeoutMs : request.rebalanceTimeoutMs,
      sessionTimeoutMs: request.sessionTimeoutMs,
      protocolType: request.protocolType,
      protocols: request.protocols.map((protocol) => ({ name: protocol.name, metadata: protocol.metadata })),
      reason: null,
    });
    return {
      throttleTimeMs: 0,
      errorCode: result.errorCode,
      generationId: result.generationId,
      protocolName: result.protocolName ?? '',
      leader: result.leaderId,
      memberId: result.memberId,
      members: result.members.map((member) => ({
        memberId: member.memberId,
        groupInstanceId: member.groupInstanceId,
        metadata: member.metadata,
      })),
    };
  }

  /** SyncGroup (api key 14), v0-3; resolves once the leader's assignment is persisted. */
  async syncGroup(request: SyncGroupRequest, context: RequestContext): Promise<SyncGroupResponse> {
    const assignments = new Map<string, Uint8Array>();
    for (const assignment of request.assignments) assignments.set(assignment.memberId, assignment.assignment);
    const result = await this.classic.syncGroup({
      groupId: request.groupId,
      generationId: request.generationId,
      memberId: request.memberId,
      groupInstanceId: context.apiVersion >= 3 ? request.groupInstanceId : null,
      protocolType: null,
      protocolName: null,
      assignments,
    });
    return { throttleTimeMs: 0, errorCode: result.errorCode, assignment: result.assignment };
  }

  /** Heartbeat (api key 12), v0-3. */
  async heartbeat(request: HeartbeatRequest, context: RequestContext): Promise<HeartbeatResponse> {
    const errorCode = this.classic.heartbeat({
      groupId: request.groupId,
      generationId: request.generationId,
      memberId: request.memberId,
      groupInstanceId: context.apiVersion >= 3 ? request.groupInstanceId : null,
    });
    return { throttleTimeMs: 0, errorCode };
  }

  /** LeaveGroup (api key 13), v0-3: one member id up to v2, a member batch from v3. */
  async leaveGroup(request: LeaveGroupRequest, context: RequestContext): Promise<LeaveGroupResponse> {
    const batch = context.apiVersion >= 3;
    const leaving: LeavingMember[] = batch
      ? request.members.map((member) => ({ memberId: member.memberId, groupInstanceId: member.groupInstanceId, reason: null }))
      : [{ memberId: request.memberId, groupInstanceId: null, reason: null }];
    const result = this.classic.leaveGroup(request.groupId, leaving);
    if (!batch) {
      // v0-2 have room for one error: the group's, else the member's.
      const memberError = result.members.find((member) => member.errorCode !== ErrorCode.NONE)?.errorCode ?? ErrorCode.NONE;
      return { throttleTimeMs: 0, errorCode: result.errorCode !== ErrorCode.NONE ? result.errorCode : memberError, members: [] };
    }
    return { throttleTimeMs: 0, errorCode: result.errorCode, members: result.members };
  }

  /** OffsetCommit (api key 8), v0-7; resolves after the commit's records are appended. */
  async offsetCommit(request: OffsetCommitRequest, context: RequestContext): Promise<OffsetCommitResponse> {
    const version = context.apiVersion;
    const nowMs = this.nowMs();
    const retentionTimeMs = version >= 2 && version <= 4 ? request.retentionTimeMs : -1;
    const { errors, offsets } = this.knownPartitionOffsets(request.topics, (partition) => ({
      offset: partition.committedOffset,
      leaderEpoch: version >= 6 ? partition.committedLeaderEpoch : -1,
      metadata: partition.committedMetadata ?? '',
      commitTimestampMs: version === 1 && partition.commitTimestamp !== -1 ? partition.commitTimestamp : nowMs,
      expireTimestampMs: retentionTimeMs === -1 ? null : nowMs + retentionTimeMs,
    }));
    if (offsets.length > 0) {
      errors.push(...await this.classic.commitOffsets({
        groupId: request.groupId,
        memberId: version >= 1 ? request.memberId : '',
        groupInstanceId: version >= 7 ? request.groupInstanceId : null,
        generationId: version >= 1 ? request.generationIdOrMemberEpoch : -1,
        offsets,
      }));
    }
    const topics: OffsetCommitResponseTopic[] = partitionErrorCodes(request.topics, errors);
    return { throttleTimeMs: 0, topics };
  }

  /**
   * TxnOffsetCommit (api key 28), v0-3; resolves after the transactional records are appended. A
   * producer id that no producer can have (negative, or past 2^53 - 1) answers every partition
   * INVALID_PRODUCER_ID_MAPPING (49) (found by the fuzzer: the batch builder threw).
   */
  async txnOffsetCommit(request: TxnOffsetCommitRequest, context: RequestContext): Promise<TxnOffsetCommitResponse> {
    const version = context.apiVersion;
    if (!Number.isSafeInteger(request.producerId) || request.producerId < 0) {
      return {
        throttleTimeMs: 0,
        topics: request.topics.map((topic) => ({
          name: topic.name,
          partitions: topic.partitions.map((partition) => ({ partitionIndex: partition.partitionIndex, errorCode: ErrorCode.INVALID_PRODUCER_ID_MAPPING })),
        })),
      };
    }
    const nowMs = this.nowMs();
    const { errors, offsets } = this.knownPartitionOffsets(request.topics, (partition) => ({
      offset: partition.committedOffset,
      leaderEpoch: version >= 2 ? partition.committedLeaderEpoch : -1,
      metadata: partition.committedMetadata ?? '',
      commitTimestampMs: nowMs,
      expireTimestampMs: null,
    }));
    if (offsets.length > 0) {
      errors.push(...await this.classic.commitTransactionalOffsets({
        groupId: request.groupId,
        memberId: version >= 3 ? request.memberId : '',
        groupInstanceId: version >= 3 ? request.groupInstanceId : null,
        generationId: version >= 3 ? request.generationId : -1,
        offsets,
        producerId: request.producerId,
        producerEpoch: request.producerEpoch,
      }));
    }
    return { throttleTimeMs: 0, topics: partitionErrorCodes(request.topics, errors) };
  }

  /**
   * Splits a commit's partitions into those of unknown topics/partitions (UNKNOWN_TOPIC_OR_PARTITION, 3)
   * and the offsets to store, built by `toOffset` (shared by OffsetCommit and TxnOffsetCommit).
   */
  private knownPartitionOffsets<P extends { readonly partitionIndex: number }>(
    topics: readonly { readonly name: string; readonly partitions: readonly P[] }[],
    toOffset: (partition: P) => TopicPartitionOffset['offsetAndMetadata'],
  ): { errors: TopicPartitionError[]; offsets: TopicPartitionOffset[] } {
    const errors: TopicPartitionError[] = [];
    const offsets: TopicPartitionOffset[] = [];
    for (const topic of topics) {
      for (const partition of topic.partitions) {
        if (this.partitionExists(topic.name, partition.partitionIndex)) {
          offsets.push({ topic: topic.name, partition: partition.partitionIndex, offsetAndMetadata: toOffset(partition) });
        } else {
          errors.push({ topic: topic.name, partition: partition.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
        }
      }
    }
    return { errors, offsets };
  }

  /** OffsetFetch (api key 9), v0-5. */
  async offsetFetch(request: OffsetFetchRequest, context: RequestContext): Promise<OffsetFetchResponse> {
    const version = context.apiVersion;
    const requested: TopicPartitionRef[] | null = request.topics === null
      ? null
      : request.topics.flatMap((topic) => topic.partitionIndexes.map((partition) => ({ topic: topic.name, partition })));
    const result = this.classic.fetchOffsets(request.groupId, false, version >= 2 ? requested : requested ?? []);
    const byTopic = new Map<string, OffsetFetchResponseTopic>();
    const add = (topic: string, partition: OffsetFetchResponseTopic['partitions'][number]) => {
      let entry = byTopic.get(topic);
      if (entry === undefined) {
        entry = { name: topic, partitions: [] };
        byTopic.set(topic, entry);
      }
      entry.partitions.push(partition);
    };
    if (result.errorCode !== ErrorCode.NONE) {
      if (version < 2) {
        // No top-level error field before v2: Kafka puts the group error on every partition.
        for (const ref of requested ?? []) {
          add(ref.topic, { partitionIndex: ref.partition, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: result.errorCode });
        }
      }
      return { throttleTimeMs: 0, topics: [...byTopic.values()], errorCode: result.errorCode };
    }
    for (const fetched of result.partitions) {
      add(fetched.topic, {
        partitionIndex: fetched.partition,
        committedOffset: fetched.offset,
        committedLeaderEpoch: fetched.leaderEpoch,
        metadata: fetched.metadata,
        errorCode: fetched.errorCode,
      });
    }
    return { throttleTimeMs: 0, topics: [...byTopic.values()], errorCode: ErrorCode.NONE };
  }

  /** OffsetDelete (api key 47), v0. */
  async offsetDelete(request: OffsetDeleteRequest, _context: RequestContext): Promise<OffsetDeleteResponse> {
    const errors: TopicPartitionError[] = [];
    const eligible: TopicPartitionRef[] = [];
    for (const topic of request.topics) {
      for (const partition of topic.partitions) {
        if (this.partitionExists(topic.name, partition.partitionIndex)) eligible.push({ topic: topic.name, partition: partition.partitionIndex });
        else errors.push({ topic: topic.name, partition: partition.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
      }
    }
    const result = this.classic.deleteOffsets(request.groupId, eligible);
    if (result.errorCode !== ErrorCode.NONE) return { errorCode: result.errorCode, throttleTimeMs: 0, topics: [] };
    errors.push(...result.partitions);
    const errorOf = new Map(errors.map((error) => [`${error.topic}\u0000${error.partition}`, error.errorCode] as const));
    const topics: OffsetDeleteResponseTopic[] = request.topics.map((topic) => ({
      name: topic.name,
      partitions: topic.partitions.map((partition) => ({
        partitionIndex: partition.partitionIndex,
        errorCode: errorOf.get(`${topic.name}\u0000${partition.partitionIndex}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR,
      })),
    }));
    return { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics };
  }

  /** DescribeGroups (api key 15), v0-4. */
  async describeGroups(request: DescribeGroupsRequest, context: RequestContext): Promise<DescribeGroupsResponse> {
    const includeOperations = context.apiVersion >= 3 && request.includeAuthorizedOperations;
    return {
      throttleTimeMs: 0,
      groups: request.groups.map((groupId) => {
        const summary = this.classic.describeGroup(groupId);
        return {
          errorCode: summary.errorCode,
          groupId,
          groupState: summary.state,
          protocolType: summary.protocolType,
          protocolData: summary.protocol,
          members: summary.members.map((member) => ({
            memberId: member.memberId,
            groupInstanceId: member.groupInstanceId,
            clientId: member.clientId,
            clientHost: member.clientHost,
            memberMetadata: member.metadata,
            memberAssignment: member.assignment,
          })),
          authorizedOperations: includeOperations && summary.errorCode === ErrorCode.NONE ? GROUP_AUTHORIZED_OPERATIONS : AUTHORIZED_OPERATIONS_OMITTED,
        };
      }),
    };
  }

  /**
   * ListGroups (api key 16), v0-5: v4+ keeps only the groups whose state is in `statesFilter`
   * (KIP-518), v5+ only those whose type is in `typesFilter` (KIP-848; every group here is
   * `classic`); both case-insensitive, empty = all, as in Kafka 3.9. Each group carries its state
   * (v4+) and type (v5+; the encoder drops them for older versions).
   */
  async listGroups(request: ListGroupsRequest, _context: RequestContext): Promise<ListGroupsResponse> {
    const types = request.typesFilter.map((type) => type.toLowerCase());
    const result = this.classic.listGroups(request.statesFilter);
    const groups = types.length === 0 || types.includes(CLASSIC_GROUP_TYPE) ? result.groups : [];
    return {
      throttleTimeMs: 0,
      errorCode: result.errorCode,
      groups: groups.map((group) => ({ groupId: group.groupId, protocolType: group.protocolType, groupState: group.state, groupType: CLASSIC_GROUP_TYPE })),
    };
  }

  /** DeleteGroups (api key 42), v0-1. */
  async deleteGroups(request: DeleteGroupsRequest, _context: RequestContext): Promise<DeleteGroupsResponse> {
    return { throttleTimeMs: 0, results: this.classic.deleteGroups(request.groupsNames) };
  }
}

/**
 * The per-partition response of a commit, in request order: each partition's error code from
 * `errors`, UNKNOWN_SERVER_ERROR (-1) for one the commit left unanswered.
 */
function partitionErrorCodes(
  topics: readonly { readonly name: string; readonly partitions: readonly { readonly partitionIndex: number }[] }[],
  errors: readonly TopicPartitionError[],
): { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[] {
  const errorOf = new Map(errors.map((error) => [`${error.topic}\u0000${error.partition}`, error.errorCode] as const));
  return topics.map((topic) => ({
    name: topic.name,
    partitions: topic.partitions.map((partition) => ({
      partitionIndex: partition.partitionIndex,
      errorCode: errorOf.get(`${topic.name}\u0000${partition.partitionIndex}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR,
    })),
  }));
}
