/**
 * The consumer side of Kafka's classic group protocol (Java's ConsumerCoordinator /
 * AbstractCoordinator):
 *
 * ```
 *   unjoined ──JoinGroup──► (MEMBER_ID_REQUIRED: rejoin with the given member id, KIP-394)
 *      ▲                       │ joined: generation, leader, protocol
 *      │                       ▼
 *      │                 SyncGroup (the leader sends every member's assignment)
 *      │                       │ assignment
 *      │                       ▼
 *      └── needs rejoin ◄── stable (Heartbeat every heartbeat.interval.ms)
 *   (REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, subscription change)
 * ```
 * The leader computes the assignment with the assignor the coordinator chose (the first protocol
 * common to all members, in our preference order). Offsets are committed with the generation and
 * member id (OffsetCommit v7) and read back with OffsetFetch. Coordinator errors (NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS) and lost connections re-discover the
 * coordinator and retry.
 */
import { ApiKey } from '../../protocol/generated/api-keys.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { Cluster } from '../cluster.js';
import { ClientClosedError, ConnectionError, KafkaError, KafkaTimeoutError } from '../errors.js';
import { sleep } from '../retry.js';
import type { Connection } from '../transport/connection.js';
import type { Assignor } from './assignors.js';
import {
  CONSUMER_PROTOCOL_TYPE, decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription, type TopicPartitions,
} from './consumer-protocol.js';

export interface CoordinatorOptions {
  groupId: string;
  /** group.instance.id for static membership (KIP-345), or null. */
  groupInstanceId: string | null;
  /** session.timeout.ms (default 45000). */
  sessionTimeoutMs: number;
  /** max.poll.interval.ms, sent as the rebalance timeout (default 300000). */
  rebalanceTimeoutMs: number;
  /** heartbeat.interval.ms (default 3000). */
  heartbeatIntervalMs: number;
  retryBackoffMs: number;
  /** In preference order. */
  assignors: Assignor[];
  /** client.rack, sent in the subscription. */
  rackId: string | null;
}

export interface OffsetToCommit {
  topic: string;
  partition: number;
  /** The next offset to read (last processed + 1). */
  offset: number;
  metadata?: string | null;
  leaderEpoch?: number;
}

/** A commit refused because the group rebalanced (Java's CommitFailedException). */
export class CommitFailedError extends KafkaError {
  constructor(errorCode: number, groupId: string) {
    super(errorCode, `commit for group "${groupId}" failed because the group rebalanced; the partitions may now belong to another member`);
    this.name = 'CommitFailedError';
  }
}

const COORDINATOR_ERRORS = new Set<number>([
  ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
]);

export class ConsumerCoordinator {
  memberId = '';
  generationId = -1;
  protocolName: string | null = null;
  isLeader = false;
  private rejoinNeeded = true;
  private heartbeatTimer: ReturnType<typeof setTimeout> | null = null;
  private heartbeating = false;
  private lastPollMs = Date.now();
  private closed = false;
  /** Partitions owned after the last successful sync (sent as ownedPartitions). */
  private owned: TopicPartitions = {};
  /**
   * Partition counts of the subscribed topics the leader assigned with (absent topic = did not
   * exist); a change means a new assignment is needed (Java's assignment snapshot).
   */
  assignmentSnapshot: Map<string, number> | null = null;
  private assignedTopics: string[] = [];
  /** Called when a heartbeat learns that the member must rejoin (to wake a waiting poll). */
  onRejoinNeeded: () => void = () => {};

  constructor(private readonly cluster: Cluster, readonly options: CoordinatorOptions) {}

  /** True when the next poll must (re)join the group. */
  get needsRejoin(): boolean {
    return this.rejoinNeeded;
  }

  /** Asks for a rejoin at the next poll (subscription changed, partition count changed). */
  requestRejoin(): void {
    if (this.rejoinNeeded) return;
    this.rejoinNeeded = true;
    this.stopHeartbeat();
    this.onRejoinNeeded();
  }

  private async coordinatorConnection(): Promise<Connection> {
    return (await this.cluster.coordinator(this.options.groupId)).connection;
  }

  private forgetCoordinator(): void {
    this.cluster.forgetCoordinator(this.options.groupId);
  }

  /**
   * Joins (or rejoins) the group with `topics` as the subscription and returns this member's
   * assignment. Retries retriable errors until `deadlineMs`.
   * @throws KafkaError for fatal group errors (INCONSISTENT_GROUP_PROTOCOL 23, INVALID_SESSION_TIMEOUT 26,
   *   GROUP_MAX_SIZE_REACHED 81, FENCED_INSTANCE_ID 82, GROUP_AUTHORIZATION_FAILED 30), KafkaTimeoutError
   */
  async joinGroup(topics: string[], deadlineMs: number): Promise<TopicPartitions> {
    this.stopHeartbeat();
    this.rejoinNeeded = true;
    const metadata = encodeSubscription({
      topics, ownedPartitions: this.owned, generationId: this.generationId, rackId: this.options.rackId,
    });
    for (;;) {
      if (this.closed) throw new ClientClosedError('the consumer is closed');
      if (Date.now() > deadlineMs) throw new KafkaTimeoutError(`joining group "${this.options.groupId}" timed out`);
      let connection: Connection;
      try {
        connection = await this.coordinatorConnection();
      } catch (error) {
        if (error instanceof ConnectionError || (error instanceof KafkaError && error.retriable)) {
          this.forgetCoordinator();
          await sleep(this.options.retryBackoffMs);
          continue;
        }
        throw error;
      }
      let join;
      try {
        join = await connection.request(ApiKey.JoinGroup, {
          groupId: this.options.groupId,
          sessionTimeoutMs: this.options.sessionTimeoutMs,
          rebalanceTimeoutMs: this.options.rebalanceTimeoutMs,
          memberId: this.memberId,
          groupInstanceId: this.options.groupInstanceId,
          protocolType: CONSUMER_PROTOCOL_TYPE,
          protocols: this.options.assignors.map((a) => ({ name: a.name, metadata })),
        }, { timeoutMs: this.options.rebalanceTimeoutMs + 5_000 });
      } catch (error) {
        if (!(error instanceof ConnectionError || error instanceof KafkaTimeoutError)) throw error;
        this.forgetCoordinator();
        await sleep(this.options.retryBackoffMs);
        continue;
      }
      if (join.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
        this.memberId = join.memberId;
        continue;
      }
      if (join.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
        this.memberId = '';
        continue;
      }
      if (COORDINATOR_ERRORS.has(join.errorCode) || join.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) {
        if (COORDINATOR_ERRORS.has(join.errorCode)) this.forgetCoordinator();
        await sleep(this.options.retryBackoffMs);
        continue;
      }
      if (join.errorCode !== ErrorCode.NONE) throw new KafkaError(join.errorCode, `JoinGroup "${this.options.groupId}"`);
      this.memberId = join.memberId;
      this.generationId = join.generationId;
      this.protocolName = join.protocolName;
      this.isLeader = join.leader === join.memberId;
      if (!this.isLeader) this.assignmentSnapshot = null;
      const assignments = this.isLeader ? await this.assign(join.protocolName, join.members) : [];
      let sync;
      try {
        sync = await connection.request(ApiKey.SyncGroup, {
          groupId: this.options.groupId,
          generationId: this.generationId,
          memberId: this.memberId,
          groupInstanceId: this.options.groupInstanceId,
          assignments,
        }, { timeoutMs: this.options.rebalanceTimeoutMs + 5_000 });
      } catch (error) {
        if (!(error instanceof ConnectionError || error instanceof KafkaTimeoutError)) throw error;
        this.forgetCoordinator();
        await sleep(this.options.retryBackoffMs);
        continue;
      }
      if (sync.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) continue;
      if (sync.errorCode === ErrorCode.UNKNOWN_MEMBER_ID || sync.errorCode === ErrorCode.ILLEGAL_GENERATION) {
        if (sync.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) this.memberId = '';
        continue;
      }
      if (COORDINATOR_ERRORS.has(sync.errorCode)) {
        this.forgetCoordinator();
        await sleep(this.options.retryBackoffMs);
        continue;
      }
      if (sync.errorCode !== ErrorCode.NONE) throw new KafkaError(sync.errorCode, `SyncGroup "${this.options.groupId}"`);
      const assignment = decodeAssignment(sync.assignment);
      if (assignment === null) throw new KafkaError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `SyncGroup "${this.options.groupId}": undecodable assignment`);
      this.owned = assignment.partitions;
      this.rejoinNeeded = false;
      this.startHeartbeat();
      return assignment.partitions;
    }
  }

  /** The leader's job: run the chosen assignor over every member's subscription. */
  private async assign(protocolName: string, members: { memberId: string; groupInstanceId: string | null; metadata: Uint8Array }[]) {
    const assignor = this.options.assignors.find((a) => a.name === protocolName);
    if (assignor === undefined) throw new KafkaError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `the coordinator chose assignor "${protocolName}" which this consumer does not have`);
    const decoded = members.map((m) => {
      const subscription = decodeSubscription(m.metadata);
      if (subscription === null) throw new KafkaError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `member ${m.memberId} sent an undecodable subscription`);
      return { memberId: m.memberId, groupInstanceId: m.groupInstanceId, subscription };
    });
    const topics = [...new Set(decoded.flatMap((m) => m.subscription.topics))].sort();
    const partitionsPerTopic = new Map<string, number>();
    if (topics.length > 0) {
      const response = await this.cluster.refreshMetadata(topics);
      for (const topic of response.topics) {
        if (topic.errorCode === ErrorCode.NONE) partitionsPerTopic.set(topic.name, topic.partitions.length);
      }
    }
    this.assignmentSnapshot = new Map(partitionsPerTopic);
    this.assignedTopics = topics;
    const plan = assignor.assign(decoded, partitionsPerTopic);
    return decoded.map((m) => ({ memberId: m.memberId, assignment: encodeAssignment({ partitions: plan.get(m.memberId) ?? {} }) }));
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    this.heartbeatTimer = setTimeout(() => void this.heartbeat(), this.options.heartbeatIntervalMs);
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer !== null) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  /** Records that the application polled (max.poll.interval.ms is measured from here). */
  notePoll(): void {
    this.lastPollMs = Date.now();
  }

  private async heartbeat(): Promise<void> {
    this.heartbeatTimer = null;
    if (this.closed || this.rejoinNeeded || this.heartbeating) return;
    if (Date.now() - this.lastPollMs > this.options.rebalanceTimeoutMs) {
      // max.poll.interval.ms passed without a poll: the application is stuck, so give its
      // partitions to the others (Java's heartbeat thread does the same); the next poll rejoins.
      void this.leaveGroup();
      this.onRejoinNeeded();
      return;
    }
    this.heartbeating = true;
    const generationId = this.generationId;
    try {
      const connection = await this.coordinatorConnection();
      const response = await connection.request(ApiKey.Heartbeat, {
        groupId: this.options.groupId, generationId, memberId: this.memberId, groupInstanceId: this.options.groupInstanceId,
      });
      if (generationId !== this.generationId || this.rejoinNeeded) return;
      switch (response.errorCode) {
        case ErrorCode.NONE:
          break;
        case ErrorCode.REBALANCE_IN_PROGRESS:
          this.requestRejoin();
          return;
        case ErrorCode.UNKNOWN_MEMBER_ID:
          this.memberId = '';
          this.generationId = -1;
          this.requestRejoin();
          return;
        case ErrorCode.ILLEGAL_GENERATION:
          // The group moved on without us: our partitions may already belong to others (lost).
          this.generationId = -1;
          this.requestRejoin();
          return;
        default:
          if (COORDINATOR_ERRORS.has(response.errorCode)) this.forgetCoordinator();
          else if (response.errorCode === ErrorCode.FENCED_INSTANCE_ID) {
            this.requestRejoin();
            return;
          }
      }
    } catch {
      // A lost connection or a coordinator that moved: find it again and keep heartbeating.
      this.forgetCoordinator();
    } finally {
      this.heartbeating = false;
    }
    if (!this.closed && !this.rejoinNeeded && this.heartbeatTimer === null) {
      this.heartbeatTimer = setTimeout(() => void this.heartbeat(), this.options.heartbeatIntervalMs);
    }
  }

  /**
   * Commits offsets as this member (or, outside a group generation, as a simple consumer with
   * generation -1). Retries coordinator errors until `deadlineMs`.
   * @throws CommitFailedError when the group rebalanced (REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION,
   *   UNKNOWN_MEMBER_ID), KafkaError for other per-partition errors
   */
  async commitOffsets(offsets: OffsetToCommit[], deadlineMs: number, asGroupMember: boolean): Promise<void> {
    if (offsets.length === 0) return;
    const byTopic = new Map<string, { partitionIndex: number; committedOffset: number; committedLeaderEpoch: number; commitTimestamp: number; committedMetadata: string | null }[]>();
    for (const o of offsets) {
      const list = byTopic.get(o.topic) ?? [];
      list.push({ partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: o.leaderEpoch ?? -1, commitTimestamp: -1, committedMetadata: o.metadata ?? '' });
      byTopic.set(o.topic, list);
    }
    for (;;) {
      if (Date.now() > deadlineMs) throw new KafkaTimeoutError(`committing offsets for group "${this.options.groupId}" timed out`);
      let response;
      try {
        const connection = await this.coordinatorConnection();
        response = await connection.request(ApiKey.OffsetCommit, {
          groupId: this.options.groupId,
          generationIdOrMemberEpoch: asGroupMember ? this.generationId : -1,
          memberId: asGroupMember ? this.memberId : '',
          groupInstanceId: asGroupMember ? this.options.groupInstanceId : null,
          retentionTimeMs: -1,
          topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
        });
      } catch (error) {
        if (!(error instanceof ConnectionError || error instanceof KafkaTimeoutError || (error instanceof KafkaError && error.retriable))) throw error;
        this.forgetCoordinator();
        await sleep(this.options.retryBackoffMs);
        continue;
      }
      let retry = false;
      for (const topic of response.topics) {
        for (const p of topic.partitions) {
          if (p.errorCode === ErrorCode.NONE) continue;
          if (COORDINATOR_ERRORS.has(p.errorCode)) {
            retry = true;
            continue;
          }
          if (p.errorCode === ErrorCode.REBALANCE_IN_PROGRESS || p.errorCode === ErrorCode.ILLEGAL_GENERATION || p.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
            if (p.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) this.memberId = '';
            if (p.errorCode !== ErrorCode.REBALANCE_IN_PROGRESS) this.generationId = -1;
            this.requestRejoin();
            throw new CommitFailedError(p.errorCode, this.options.groupId);
          }
          throw new KafkaError(p.errorCode, `OffsetCommit "${this.options.groupId}" ${topic.name}-${p.partitionIndex}`);
        }
      }
      if (!retry) return;
      this.forgetCoordinator();
      await sleep(this.options.retryBackoffMs);
    }
  }

  /**
   * Committed offsets of partitions (-1 when none), keyed `topic\0partition`.
   * Retries coordinator errors and UNSTABLE_OFFSET_COMMIT until `deadlineMs`.
   */
  async fetchCommittedOffsets(partitions: TopicPartitions, deadlineMs: number): Promise<Map<string, { offset: number; metadata: string | null }>> {
    const topics = Object.entries(partitions).map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
    for (;;) {
      if (Date.now() > deadlineMs) throw new KafkaTimeoutError(`fetching committed offsets of group "${this.options.groupId}" timed out`);
      try {
        const connection = await this.coordinatorConnection();
        const response = await connection.request(ApiKey.OffsetFetch, { groupId: this.options.groupId, topics });
        if (COORDINATOR_ERRORS.has(response.errorCode)) throw new KafkaError(response.errorCode, 'OffsetFetch');
        if (response.errorCode !== ErrorCode.NONE) throw new KafkaError(response.errorCode, `OffsetFetch "${this.options.groupId}"`);
        const result = new Map<string, { offset: number; metadata: string | null }>();
        for (const topic of response.topics) {
          for (const p of topic.partitions) {
            if (COORDINATOR_ERRORS.has(p.errorCode) || p.errorCode === ErrorCode.UNSTABLE_OFFSET_COMMIT) throw new KafkaError(p.errorCode, 'OffsetFetch');
            if (p.errorCode !== ErrorCode.NONE) throw new KafkaError(p.errorCode, `OffsetFetch "${this.options.groupId}" ${topic.name}-${p.partitionIndex}`);
            result.set(`${topic.name}\u0000${p.partitionIndex}`, { offset: p.committedOffset, metadata: p.metadata });
          }
        }
        return result;
      } catch (error) {
        const retriable = error instanceof ConnectionError || error instanceof KafkaTimeoutError ||
          (error instanceof KafkaError && (COORDINATOR_ERRORS.has(error.errorCode) || error.errorCode === ErrorCode.UNSTABLE_OFFSET_COMMIT));
        if (!retriable) throw error;
        if (!(error instanceof KafkaError && error.errorCode === ErrorCode.UNSTABLE_OFFSET_COMMIT)) this.forgetCoordinator();
        await sleep(this.options.retryBackoffMs);
      }
    }
  }

  /**
   * Leaves the group (LeaveGroup) so it rebalances at once instead of after session.timeout.ms.
   * Static members do not leave (their partitions wait for them, KIP-345). Errors are ignored.
   */
  async leaveGroup(): Promise<void> {
    this.stopHeartbeat();
    const memberId = this.memberId;
    this.rejoinNeeded = true;
    this.generationId = -1;
    this.memberId = '';
    this.owned = {};
    if (memberId === '' || this.options.groupInstanceId !== null) return;
    try {
      const connection = await this.coordinatorConnection();
      await connection.request(ApiKey.LeaveGroup, {
        groupId: this.options.groupId, memberId, members: [{ memberId, groupInstanceId: null }],
      }, { timeoutMs: 5_000 });
    } catch {
      // The session timeout removes the member anyway.
    }
  }

  /**
   * The leader's check that the topics it assigned still have the partition counts it used
   * (partitions added, a subscribed topic created or deleted); asks for a rejoin when not.
   * @param current partition counts of the existing snapshotTopics, from fresh metadata
   */
  checkAssignmentSnapshot(current: ReadonlyMap<string, number>): void {
    const snapshot = this.assignmentSnapshot;
    if (!this.isLeader || snapshot === null || this.rejoinNeeded) return;
    const changed = snapshot.size !== current.size || [...current].some(([topic, count]) => snapshot.get(topic) !== count);
    if (changed) this.requestRejoin();
  }

  /** Topics the leader's last assignment covered (every member's subscription, existing or not). */
  get snapshotTopics(): string[] {
    return this.assignmentSnapshot === null ? [] : this.assignedTopics;
  }

  /** Forgets the owned partitions (they were lost or revoked before a join). */
  clearOwned(): void {
    this.owned = {};
  }

  /** Stops heartbeating; pending joins fail with ClientClosedError. */
  close(): void {
    this.closed = true;
    this.stopHeartbeat();
  }
}
