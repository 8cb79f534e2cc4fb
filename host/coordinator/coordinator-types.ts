/**
 * Domain shapes of the group coordinator (Kafka's JoinGroupResult, SyncGroupResult,
 * OffsetAndMetadata, GroupSummary, ...). The wire facade (group-coordinator.ts) maps the
 * generated request/response types onto these, so the state machine does not depend on API
 * versions. Error fields are Kafka error codes (numbers).
 */

/** One protocol a member supports, in the member's order of preference (JoinGroup `protocols`). */
export interface JoinProtocol {
  name: string;
  metadata: Uint8Array;
}

/** A member as the group leader sees it in the JoinGroup response. */
export interface JoinGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Uint8Array;
}

/** Outcome of a JoinGroup: delivered when the join phase completes (or at once on an error). */
export interface JoinGroupResult {
  errorCode: number;
  memberId: string;
  /** -1 (UNKNOWN_GENERATION_ID) on errors. */
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  /** "" when unknown. */
  leaderId: string;
  /** JoinGroup v9+: a rejoining static leader must not run the assignor. */
  skipAssignment: boolean;
  /** Non-empty only for the leader. */
  members: JoinGroupMember[];
}

/** Outcome of a SyncGroup: the member's assignment once the leader's assignment is persisted. */
export interface SyncGroupResult {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Uint8Array;
}

/** Identity of a member leaving the group (LeaveGroup v3+ `members`; v0-2 carry one member id). */
export interface LeavingMember {
  memberId: string;
  groupInstanceId: string | null;
  reason: string | null;
}

export interface LeaveMemberResult {
  memberId: string;
  groupInstanceId: string | null;
  errorCode: number;
}

export interface LeaveGroupResult {
  errorCode: number;
  members: LeaveMemberResult[];
}

/** A committed offset as Kafka keeps it (kafka.common.OffsetAndMetadata). */
export interface OffsetAndMetadata {
  offset: number;
  /** -1 when unknown (RecordBatch.NO_PARTITION_LEADER_EPOCH). */
  leaderEpoch: number;
  metadata: string;
  commitTimestampMs: number;
  /** Only from OffsetCommit v1-v4 with an explicit retention time; null otherwise. */
  expireTimestampMs: number | null;
}

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  offsetAndMetadata: OffsetAndMetadata;
}

export interface TopicPartitionError {
  topic: string;
  partition: number;
  errorCode: number;
}

export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

/** One row of an OffsetFetch answer; offset -1 and metadata "" when nothing is committed. */
export interface FetchedOffset {
  topic: string;
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string;
  errorCode: number;
}

export interface OffsetFetchResult {
  errorCode: number;
  partitions: FetchedOffset[];
}

export interface MemberSummary {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** Empty unless the group is Stable. */
  metadata: Uint8Array;
  /** Empty unless the group is Stable. */
  assignment: Uint8Array;
}

/** DescribeGroups answer for one group. `state` is "" when the coordinator could not answer. */
export interface GroupSummary {
  errorCode: number;
  groupId: string;
  state: string;
  protocolType: string;
  /** The selected protocol when Stable, else "". */
  protocol: string;
  members: MemberSummary[];
}

export interface GroupOverview {
  groupId: string;
  protocolType: string;
  state: string;
}

export interface ListGroupsResult {
  errorCode: number;
  groups: GroupOverview[];
}

export interface OffsetDeleteResult {
  /** A group-level error; when set, `partitions` is empty. */
  errorCode: number;
  partitions: TopicPartitionError[];
}
