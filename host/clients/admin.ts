/**
 * Admin: topics (create, delete, list, describe, configs, partitions), consumer groups (list,
 * describe, committed offsets, lag, reset, delete), partition offsets and the cluster, over the
 * Kafka protocol. Requests go where Kafka clients send them: CreateTopics / DeleteTopics /
 * CreatePartitions to the controller, group APIs to the group coordinator (FindCoordinator),
 * ListOffsets / DeleteRecords to partition leaders, ListGroups to every broker.
 *
 * Errors: per-item Kafka errors reject with KafkaError naming the item (topic, group, partition);
 * NOT_CONTROLLER, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS,
 * NOT_LEADER_OR_FOLLOWER and lost connections are retried (metadata / coordinator refreshed)
 * until requestTimeoutMs.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { describeClusterBrokers, describeQuorum, type QuorumDescription } from './admin-quorum.js';
import { alterPartitionReassignments, listPartitionReassignments, type OngoingReassignment, type PartitionReassignment } from './admin-reassignments.js';
import { Cluster, type BrokerInfo, type ClusterOptions } from './cluster.js';
import { decodeAssignment, decodeSubscription, type Subscription, type TopicPartitions } from './consumer/consumer-protocol.js';
import { ConnectionError, isRetriableError, KafkaError } from './errors.js';
import { retry } from './retry.js';
import type { Connection } from './transport/connection.js';

export type AdminOptions = Omit<ClusterOptions, 'allowAutoTopicCreation'>;

export interface NewTopic {
  topic: string;
  /** -1 (default) = the broker's num.partitions. */
  numPartitions?: number;
  /** -1 (default) = the broker's default.replication.factor. */
  replicationFactor?: number;
  /** Topic config overrides by Kafka name, e.g. `{ 'retention.ms': '86400000' }`. */
  configs?: Record<string, string>;
}

export interface PartitionDescription {
  partition: number;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
}

export interface TopicDescription {
  name: string;
  isInternal: boolean;
  partitions: PartitionDescription[];
  /** Present when asked for (includeConfigs). */
  configs?: ConfigEntry[];
}

/** Kafka's DescribeConfigs config sources. */
export const ConfigSource = {
  UNKNOWN: 0, DYNAMIC_TOPIC_CONFIG: 1, DYNAMIC_BROKER_CONFIG: 2, DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5, DYNAMIC_BROKER_LOGGER_CONFIG: 6,
} as const;

const CONFIG_SOURCE_NAMES = ['UNKNOWN', 'DYNAMIC_TOPIC_CONFIG', 'DYNAMIC_BROKER_CONFIG', 'DYNAMIC_DEFAULT_BROKER_CONFIG',
  'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG', 'DYNAMIC_BROKER_LOGGER_CONFIG'];

export interface ConfigEntry {
  name: string;
  /** null for sensitive values. */
  value: string | null;
  /** ConfigSource code. */
  source: number;
  /** Kafka's name for the source, e.g. DYNAMIC_TOPIC_CONFIG (a topic override). */
  sourceName: string;
  isDefault: boolean;
  readOnly: boolean;
  isSensitive: boolean;
}

/** Kafka's ConfigResource types. */
export const ConfigResourceType = { TOPIC: 2, BROKER: 4 } as const;

export interface ConfigResource {
  type: 'topic' | 'broker';
  /** Topic name, or the broker's node id as a string. */
  name: string;
  /** Only these keys (default all). */
  keys?: string[];
}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
}

export interface GroupMemberDescription {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** Decoded JoinGroup metadata for `consumer` groups, else null. */
  subscription: Subscription | null;
  /** Decoded assignment for `consumer` groups (empty while rebalancing). */
  assignment: TopicPartitions;
}

export interface GroupDescription {
  groupId: string;
  /** Empty, PreparingRebalance, CompletingRebalance, Stable or Dead. */
  state: string;
  protocolType: string;
  /** The chosen assignor (e.g. range) while the group has members. */
  protocol: string;
  members: GroupMemberDescription[];
}

export interface CommittedOffset {
  topic: string;
  partition: number;
  /** -1 when the group has no committed offset for the partition. */
  offset: number;
  metadata: string | null;
}

/** Where ListOffsets looks: the log start, the end (high watermark), or the first offset with timestamp >= ms. */
export type OffsetSpec = 'earliest' | 'latest' | { timestamp: number };

export interface PartitionOffset {
  topic: string;
  partition: number;
  /** -1 when no record has a timestamp >= the one asked for. */
  offset: number;
  /** Timestamp of that record for timestamp lookups, else -1. */
  timestamp: number;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  /** -1 when nothing is committed. */
  committedOffset: number;
  logStartOffset: number;
  /** The high watermark. */
  logEndOffset: number;
  /** logEndOffset - committedOffset (or - logStartOffset when nothing is committed). */
  lag: number;
}

export interface ClusterDescription {
  clusterId: string | null;
  controllerId: number;
  brokers: BrokerInfo[];
}

/** ListOffsets timestamps with special meaning. */
const LATEST_TIMESTAMP = -1;
const EARLIEST_TIMESTAMP = -2;
/** Broker-side timeout sent in CreateTopics / DeleteTopics / CreatePartitions, ms. */
const DEFAULT_OPERATION_TIMEOUT_MS = 15_000;

export class Admin {
  readonly cluster: Cluster;

  constructor(options: AdminOptions) {
    this.cluster = new Cluster({ ...options, allowAutoTopicCreation: false });
  }

  /** Connects to a bootstrap server. @throws ConnectionError when none is reachable */
  async connect(): Promise<void> {
    await this.cluster.connect();
  }

  async close(): Promise<void> {
    await this.cluster.close();
  }

  private get timeouts(): { timeoutMs: number; retryBackoffMs: number } {
    return { timeoutMs: this.cluster.options.requestTimeoutMs, retryBackoffMs: this.cluster.options.retryBackoffMs };
  }

  /** Runs `body` against the controller, retrying NOT_CONTROLLER after a metadata refresh. */
  private withController<T>(what: string, body: (connection: Connection) => Promise<T>): Promise<T> {
    return retry(async () => body(await this.cluster.controllerConnection()), {
      ...this.timeouts,
      what,
      shouldRetry: (error) => error instanceof ConnectionError || (error instanceof KafkaError && error.errorCode === ErrorCode.NOT_CONTROLLER),
      onRetry: async () => { await this.cluster.refreshMetadata([]).catch(() => undefined); },
    });
  }

  /** Runs `body` against a group's coordinator, re-finding it after NOT_COORDINATOR & co. */
  private withCoordinator<T>(groupId: string, what: string, body: (connection: Connection) => Promise<T>): Promise<T> {
    return retry(async () => body((await this.cluster.coordinator(groupId)).connection), {
      ...this.timeouts,
      what,
      shouldRetry: (error) => error instanceof ConnectionError || (error instanceof KafkaError && isCoordinatorError(error.errorCode)),
      onRetry: () => this.cluster.forgetCoordinator(groupId),
    });
  }

  /**
   * Creates topics and waits until every partition has a leader.
   * @param options.ignoreExisting treat TOPIC_ALREADY_EXISTS (36) as success
   * @throws KafkaError per topic, e.g. TOPIC_ALREADY_EXISTS (36), INVALID_PARTITIONS (37),
   *   INVALID_REPLICATION_FACTOR (38), INVALID_CONFIG (40), INVALID_TOPIC_EXCEPTION (17)
   */
  async createTopics(options: { topics: NewTopic[]; validateOnly?: boolean; timeoutMs?: number; ignoreExisting?: boolean }): Promise<void> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
    const response = await this.withController('CreateTopics', (connection) => connection.request(ApiKey.CreateTopics, {
      topics: options.topics.map((topic) => ({
        name: topic.topic,
        numPartitions: topic.numPartitions ?? -1,
        replicationFactor: topic.replicationFactor ?? -1,
        assignments: [],
        configs: Object.entries(topic.configs ?? {}).map(([name, value]) => ({ name, value })),
      })),
      timeoutMs,
      validateOnly: options.validateOnly ?? false,
    }, { timeoutMs: timeoutMs + this.cluster.options.requestTimeoutMs }).then((r) => {
      if (r.topics.some((t) => t.errorCode === ErrorCode.NOT_CONTROLLER)) throw new KafkaError(ErrorCode.NOT_CONTROLLER, 'CreateTopics');
      return r;
    }));
    for (const result of response.topics) {
      if (result.errorCode === ErrorCode.NONE) continue;
      if (result.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS && options.ignoreExisting) continue;
      throw new KafkaError(result.errorCode, `CreateTopics "${result.name}"`, result.errorMessage);
    }
    if (!options.validateOnly) await this.cluster.topicMetadata(options.topics.map((t) => t.topic), timeoutMs + this.cluster.options.requestTimeoutMs, true);
  }

  /** Deletes topics. @throws KafkaError per topic, e.g. UNKNOWN_TOPIC_OR_PARTITION (3) */
  async deleteTopics(options: { topics: string[]; timeoutMs?: number }): Promise<void> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
    const response = await this.withController('DeleteTopics', async (connection) => {
      const r = await connection.request(ApiKey.DeleteTopics, { topicNames: options.topics, timeoutMs },
        { timeoutMs: timeoutMs + this.cluster.options.requestTimeoutMs });
      if (r.responses.some((t) => t.errorCode === ErrorCode.NOT_CONTROLLER)) throw new KafkaError(ErrorCode.NOT_CONTROLLER, 'DeleteTopics');
      return r;
    });
    for (const result of response.responses) {
      if (result.errorCode !== ErrorCode.NONE) throw new KafkaError(result.errorCode, `DeleteTopics "${result.name}"`);
    }
    this.cluster.invalidate();
  }

  /** Topic names, sorted. Internal topics (__consumer_offsets) only with includeInternal. */
  async listTopics(options: { includeInternal?: boolean } = {}): Promise<string[]> {
    const response = await this.cluster.refreshMetadata(null);
    return response.topics
      .filter((t) => t.errorCode === ErrorCode.NONE && (options.includeInternal || !t.isInternal))
      .map((t) => t.name)
      .sort();
  }

  /**
   * Partitions (leaders, replicas, ISR) of topics, and their configs with includeConfigs.
   * @param options.topics default: every non-internal topic
   * @throws KafkaError UNKNOWN_TOPIC_OR_PARTITION (3) for a missing topic
   */
  async describeTopics(options: { topics?: string[]; includeConfigs?: boolean } = {}): Promise<TopicDescription[]> {
    const response = await this.cluster.refreshMetadata(options.topics ?? null);
    const descriptions: TopicDescription[] = [];
    for (const topic of response.topics) {
      if (topic.errorCode !== ErrorCode.NONE) throw new KafkaError(topic.errorCode, `describe topic "${topic.name}"`);
      if (options.topics === undefined && topic.isInternal) continue;
      descriptions.push({
        name: topic.name,
        isInternal: topic.isInternal,
        partitions: topic.partitions
          .map((p) => ({
            partition: p.partitionIndex, leader: p.leaderId, leaderEpoch: p.leaderEpoch,
            replicas: p.replicaNodes, isr: p.isrNodes, offlineReplicas: p.offlineReplicas,
          }))
          .sort((a, b) => a.partition - b.partition),
      });
    }
    descriptions.sort((a, b) => a.name.localeCompare(b.name));
    if (options.includeConfigs && descriptions.length > 0) {
      const configs = await this.describeConfigs({ resources: descriptions.map((d) => ({ type: 'topic' as const, name: d.name })) });
      descriptions.forEach((description, index) => { description.configs = configs[index]!.configs; });
    }
    return descriptions;
  }

  /**
   * Configs of topics and brokers (DescribeConfigs), in the order asked.
   * @throws KafkaError per resource, e.g. UNKNOWN_TOPIC_OR_PARTITION (3)
   */
  async describeConfigs(options: { resources: ConfigResource[] }): Promise<{ resource: ConfigResource; configs: ConfigEntry[] }[]> {
    const results: { resource: ConfigResource; configs: ConfigEntry[] }[] = [];
    for (const resource of options.resources) {
      const response = await retry(async () => {
        const connection = await this.connectionForResource(resource);
        return connection.request(ApiKey.DescribeConfigs, {
          resources: [{ resourceType: resourceTypeCode(resource), resourceName: resource.name, configurationKeys: resource.keys ?? null }],
          includeSynonyms: false,
        });
      }, { ...this.timeouts, what: 'DescribeConfigs' });
      const result = response.results[0];
      if (result === undefined) throw new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, `DescribeConfigs ${resource.type} "${resource.name}": empty answer`);
      if (result.errorCode !== ErrorCode.NONE) throw new KafkaError(result.errorCode, `DescribeConfigs ${resource.type} "${resource.name}"`, result.errorMessage);
      results.push({
        resource,
        configs: result.configs
          .map((c) => ({
            name: c.name, value: c.value, source: c.configSource, sourceName: CONFIG_SOURCE_NAMES[c.configSource] ?? 'UNKNOWN',
            isDefault: c.isDefault || c.configSource === ConfigSource.DEFAULT_CONFIG, readOnly: c.readOnly, isSensitive: c.isSensitive,
          }))
          .sort((a, b) => a.name.localeCompare(b.name)),
      });
    }
    return results;
  }

  private async connectionForResource(resource: ConfigResource): Promise<Connection> {
    if (resource.type === 'broker') {
      if (this.cluster.brokers.size === 0) await this.cluster.connect();
      return this.cluster.connectionTo(Number(resource.name));
    }
    return this.cluster.anyConnection();
  }

  /**
   * Replaces the config overrides of resources (AlterConfigs: overrides not listed are removed;
   * see alterTopicConfigs for set/delete semantics).
   * @throws KafkaError per resource, e.g. INVALID_CONFIG (40), UNKNOWN_TOPIC_OR_PARTITION (3)
   */
  async alterConfigs(options: { resources: { type: 'topic' | 'broker'; name: string; configs: Record<string, string> }[]; validateOnly?: boolean }): Promise<void> {
    for (const resource of options.resources) {
      const response = await retry(async () => (await this.connectionForResource(resource)).request(ApiKey.AlterConfigs, {
        resources: [{
          resourceType: resourceTypeCode(resource),
          resourceName: resource.name,
          configs: Object.entries(resource.configs).map(([name, value]) => ({ name, value })),
        }],
        validateOnly: options.validateOnly ?? false,
      }), { ...this.timeouts, what: 'AlterConfigs' });
      for (const result of response.responses) {
        if (result.errorCode !== ErrorCode.NONE) throw new KafkaError(result.errorCode, `AlterConfigs ${resource.type} "${resource.name}"`, result.errorMessage);
      }
    }
  }

  /**
   * Sets and removes topic config overrides, keeping the others (read-modify-write over
   * DescribeConfigs + AlterConfigs, since Level A brokers have no IncrementalAlterConfigs).
   * @returns the overrides now in effect
   */
  async alterTopicConfigs(topic: string, changes: { set?: Record<string, string>; delete?: string[] }): Promise<Record<string, string>> {
    const [current] = await this.describeConfigs({ resources: [{ type: 'topic', name: topic }] });
    const overrides: Record<string, string> = {};
    for (const entry of current!.configs) {
      if (entry.source === ConfigSource.DYNAMIC_TOPIC_CONFIG && entry.value !== null) overrides[entry.name] = entry.value;
    }
    for (const name of changes.delete ?? []) delete overrides[name];
    Object.assign(overrides, changes.set ?? {});
    await this.alterConfigs({ resources: [{ type: 'topic', name: topic, configs: overrides }] });
    return overrides;
  }

  /**
   * Raises topics' partition counts to `count` (the new total).
   * @throws KafkaError per topic, e.g. INVALID_PARTITIONS (37) when count is not larger
   */
  async createPartitions(options: { topicPartitions: { topic: string; count: number }[]; validateOnly?: boolean; timeoutMs?: number }): Promise<void> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
    const response = await this.withController('CreatePartitions', async (connection) => {
      const r = await connection.request(ApiKey.CreatePartitions, {
        topics: options.topicPartitions.map((t) => ({ name: t.topic, count: t.count, assignments: null })),
        timeoutMs,
        validateOnly: options.validateOnly ?? false,
      }, { timeoutMs: timeoutMs + this.cluster.options.requestTimeoutMs });
      if (r.results.some((t) => t.errorCode === ErrorCode.NOT_CONTROLLER)) throw new KafkaError(ErrorCode.NOT_CONTROLLER, 'CreatePartitions');
      return r;
    });
    for (const result of response.results) {
      if (result.errorCode !== ErrorCode.NONE) throw new KafkaError(result.errorCode, `CreatePartitions "${result.name}"`, result.errorMessage);
    }
    this.cluster.invalidate();
  }

  /**
   * Leader elections (ElectLeaders v1+, KIP-460): `preferred` moves leadership to each partition's
   * preferred replica, `unclean` elects a live replica outside the ISR for partitions without a
   * leader (may lose records). `partitions` null: every partition (those that needed nothing are
   * left out of the answer). Per partition: 0, ELECTION_NOT_NEEDED (84),
   * PREFERRED_LEADER_NOT_AVAILABLE (80), ELIGIBLE_LEADERS_NOT_AVAILABLE (83),
   * UNKNOWN_TOPIC_OR_PARTITION (3). @throws KafkaError for a request-wide error
   */
  async electLeaders(options: { electionType: 'preferred' | 'unclean'; partitions: { topic: string; partitions: number[] }[] | null; timeoutMs?: number }):
    Promise<{ topic: string; partition: number; errorCode: number; errorMessage: string | null }[]> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
    const response = await this.withController('ElectLeaders', async (connection) => {
      const r = await connection.request(ApiKey.ElectLeaders, {
        electionType: options.electionType === 'preferred' ? 0 : 1, topicPartitions: options.partitions, timeoutMs,
      }, { timeoutMs: timeoutMs + this.cluster.options.requestTimeoutMs });
      if (r.errorCode !== ErrorCode.NONE) throw new KafkaError(r.errorCode, 'ElectLeaders');
      return r;
    });
    this.cluster.invalidate();
    return response.replicaElectionResults.flatMap((t) => t.partitionResult.map((p) => ({
      topic: t.topic, partition: p.partitionId, errorCode: p.errorCode, errorMessage: p.errorMessage,
    })));
  }

  /** Moves partitions to new replicas, or cancels moves (replicas null). {@link alterPartitionReassignments} */
  alterPartitionReassignments(options: { reassignments: PartitionReassignment[]; timeoutMs?: number }): ReturnType<typeof alterPartitionReassignments> {
    return alterPartitionReassignments((what, body) => this.withController(what, body), options.reassignments, options.timeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS);
  }
  /** The moves in flight (`topics` absent: every topic). {@link listPartitionReassignments} */
  listPartitionReassignments(options: { topics?: { topic: string; partitions: number[] }[]; timeoutMs?: number } = {}): Promise<OngoingReassignment[]> {
    return listPartitionReassignments((what, body) => this.withController(what, body), options.topics ?? null, options.timeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS);
  }

  /** Every group on every broker (ListGroups), sorted by id. */
  async listGroups(): Promise<ListedGroup[]> {
    await this.cluster.refreshMetadata([]);
    const groups = new Map<string, ListedGroup>();
    for (const nodeId of this.cluster.brokers.keys()) {
      const response = await retry(async () => (await this.cluster.connectionTo(nodeId)).request(ApiKey.ListGroups, {}),
        { ...this.timeouts, what: `ListGroups on broker ${nodeId}` });
      if (response.errorCode !== ErrorCode.NONE) throw new KafkaError(response.errorCode, `ListGroups on broker ${nodeId}`);
      for (const group of response.groups) groups.set(group.groupId, { groupId: group.groupId, protocolType: group.protocolType });
    }
    return [...groups.values()].sort((a, b) => a.groupId.localeCompare(b.groupId));
  }

  /**
   * Groups' states, members and assignments. A group that does not exist is described with
   * state `Dead` and no members, as Kafka does.
   * @throws KafkaError e.g. GROUP_AUTHORIZATION_FAILED (30)
   */
  async describeGroups(groupIds: string[]): Promise<GroupDescription[]> {
    const descriptions: GroupDescription[] = [];
    for (const groupId of groupIds) {
      const response = await this.withCoordinator(groupId, `DescribeGroups "${groupId}"`, async (connection) => {
        const r = await connection.request(ApiKey.DescribeGroups, { groups: [groupId], includeAuthorizedOperations: false });
        const group = r.groups[0];
        if (group !== undefined && group.errorCode !== ErrorCode.NONE) throw new KafkaError(group.errorCode, `DescribeGroups "${groupId}"`);
        return group;
      });
      if (response === undefined) throw new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, `DescribeGroups "${groupId}": empty answer`);
      const isConsumer = response.protocolType === 'consumer';
      descriptions.push({
        groupId: response.groupId,
        state: response.groupState,
        protocolType: response.protocolType,
        protocol: response.protocolData,
        members: response.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          subscription: isConsumer ? decodeSubscription(m.memberMetadata) : null,
          assignment: isConsumer ? decodeAssignment(m.memberAssignment)?.partitions ?? {} : {},
        })),
      });
    }
    return descriptions;
  }

  /**
   * A group's committed offsets (OffsetFetch), sorted by topic and partition.
   * @param options.topics only these topics (default: every topic the group committed to)
   */
  async fetchOffsets(options: { groupId: string; topics?: string[] }): Promise<CommittedOffset[]> {
    let topics: { name: string; partitionIndexes: number[] }[] | null = null;
    if (options.topics !== undefined) {
      const metadata = await this.cluster.topicMetadata(options.topics);
      topics = metadata.map((t) => ({ name: t.name, partitionIndexes: t.partitions.map((p) => p.partition) }));
    }
    const response = await this.withCoordinator(options.groupId, `OffsetFetch "${options.groupId}"`, async (connection) => {
      const r = await connection.request(ApiKey.OffsetFetch, { groupId: options.groupId, topics });
      if (r.errorCode !== ErrorCode.NONE) throw new KafkaError(r.errorCode, `OffsetFetch "${options.groupId}"`);
      return r;
    });
    const offsets: CommittedOffset[] = [];
    for (const topic of response.topics) {
      for (const p of topic.partitions) {
        if (p.errorCode !== ErrorCode.NONE) throw new KafkaError(p.errorCode, `OffsetFetch "${options.groupId}" ${topic.name}-${p.partitionIndex}`);
        offsets.push({ topic: topic.name, partition: p.partitionIndex, offset: p.committedOffset, metadata: p.metadata });
      }
    }
    return offsets.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  }

  /**
   * Offsets of partitions (ListOffsets to each leader): earliest (log start), latest (high
   * watermark) or the first offset whose timestamp is >= `timestamp` (-1 when none).
   * @param options.partitions default: every partition of the topic
   */
  async listOffsets(options: { topic: string; partitions?: number[]; spec: OffsetSpec }): Promise<PartitionOffset[]> {
    const timestamp = options.spec === 'earliest' ? EARLIEST_TIMESTAMP : options.spec === 'latest' ? LATEST_TIMESTAMP : options.spec.timestamp;
    return listPartitionOffsets(this.cluster, options.topic, options.partitions, timestamp, 0);
  }

  /** Earliest and latest offsets of every partition of a topic. */
  async fetchTopicOffsets(topic: string): Promise<{ partition: number; low: number; high: number }[]> {
    const [low, high] = await Promise.all([
      this.listOffsets({ topic, spec: 'earliest' }),
      this.listOffsets({ topic, spec: 'latest' }),
    ]);
    return low.map((l, index) => ({ partition: l.partition, low: l.offset, high: high[index]!.offset }));
  }

  /**
   * Committed offset, log end and lag of every partition of every topic the group has offsets
   * for or is assigned (plus `topics`), sorted.
   */
  async fetchGroupLag(groupId: string, options: { topics?: string[] } = {}): Promise<PartitionLag[]> {
    const committed = await this.fetchOffsets({ groupId });
    const [description] = await this.describeGroups([groupId]);
    const topics = new Set([...committed.map((c) => c.topic), ...(options.topics ?? [])]);
    for (const member of description?.members ?? []) for (const topic of Object.keys(member.assignment)) topics.add(topic);
    const committedOf = new Map(committed.map((c) => [`${c.topic}\u0000${c.partition}`, c.offset])); // a scan per partition was quadratic
    const lags: PartitionLag[] = [];
    for (const topic of [...topics].sort()) {
      const offsets = await this.fetchTopicOffsets(topic);
      for (const { partition, low, high } of offsets) {
        const committedOffset = committedOf.get(`${topic}\u0000${partition}`) ?? -1;
        lags.push({ topic, partition, committedOffset, logStartOffset: low, logEndOffset: high, lag: Math.max(0, high - (committedOffset >= 0 ? committedOffset : low)) });
      }
    }
    return lags;
  }

  /**
   * Commits offsets for a group that has no active members (a reset, like
   * kafka-consumer-groups --reset-offsets): an OffsetCommit with generation -1 and no member id.
   * @throws KafkaError NON_EMPTY_GROUP (68) when the group has members (stop the consumers first),
   *   or per partition (e.g. UNKNOWN_TOPIC_OR_PARTITION)
   */
  async setOffsets(options: { groupId: string; offsets: { topic: string; partition: number; offset: number }[] }): Promise<void> {
    const [description] = await this.describeGroups([options.groupId]);
    if (description !== undefined && description.state !== 'Empty' && description.state !== 'Dead') {
      throw new KafkaError(ErrorCode.NON_EMPTY_GROUP, `reset offsets of group "${options.groupId}" (state ${description.state}, ${description.members.length} member(s))`);
    }
    const byTopic = new Map<string, { partitionIndex: number; committedOffset: number; committedLeaderEpoch: number; commitTimestamp: number; committedMetadata: string | null }[]>();
    for (const o of options.offsets) {
      const list = byTopic.get(o.topic) ?? [];
      list.push({ partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: '' });
      byTopic.set(o.topic, list);
    }
    const response = await this.withCoordinator(options.groupId, `OffsetCommit "${options.groupId}"`, async (connection) => {
      const r = await connection.request(ApiKey.OffsetCommit, {
        groupId: options.groupId,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        retentionTimeMs: -1,
        topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
      });
      for (const topic of r.topics) for (const p of topic.partitions) {
        if (isCoordinatorError(p.errorCode)) throw new KafkaError(p.errorCode, `OffsetCommit "${options.groupId}"`);
      }
      return r;
    });
    for (const topic of response.topics) {
      for (const p of topic.partitions) {
        if (p.errorCode !== ErrorCode.NONE) throw new KafkaError(p.errorCode, `OffsetCommit "${options.groupId}" ${topic.name}-${p.partitionIndex}`);
      }
    }
  }

  /**
   * Resets a group's committed offsets on topics to earliest, latest, an offset or a timestamp
   * (the group must be empty, see setOffsets).
   * @param options.topics default: every topic the group has committed offsets for
   * @returns the offsets committed
   */
  async resetOffsets(options: { groupId: string; topics?: string[]; to: OffsetSpec | { offset: number } }): Promise<{ topic: string; partition: number; offset: number }[]> {
    const topics = options.topics ?? [...new Set((await this.fetchOffsets({ groupId: options.groupId })).map((c) => c.topic))];
    const offsets: { topic: string; partition: number; offset: number }[] = [];
    for (const topic of topics) {
      const to = options.to;
      if (typeof to === 'object' && 'offset' in to) {
        const bounds = await this.fetchTopicOffsets(topic);
        // Clamp into [logStart, logEnd] as kafka-consumer-groups does.
        for (const b of bounds) offsets.push({ topic, partition: b.partition, offset: Math.min(Math.max(to.offset, b.low), b.high) });
        continue;
      }
      const listed = await this.listOffsets({ topic, spec: to });
      const latest = typeof to === 'object' ? await this.listOffsets({ topic, spec: 'latest' }) : listed;
      listed.forEach((l, index) => offsets.push({ topic, partition: l.partition, offset: l.offset >= 0 ? l.offset : latest[index]!.offset }));
    }
    await this.setOffsets({ groupId: options.groupId, offsets });
    return offsets;
  }

  /**
   * Deletes groups and their offsets.
   * @throws KafkaError per group, e.g. NON_EMPTY_GROUP (68), GROUP_ID_NOT_FOUND (69)
   */
  async deleteGroups(groupIds: string[]): Promise<void> {
    for (const groupId of groupIds) {
      const response = await this.withCoordinator(groupId, `DeleteGroups "${groupId}"`, async (connection) => {
        const r = await connection.request(ApiKey.DeleteGroups, { groupsNames: [groupId] });
        const result = r.results[0];
        if (result !== undefined && isCoordinatorError(result.errorCode)) throw new KafkaError(result.errorCode, `DeleteGroups "${groupId}"`);
        return result;
      });
      if (response !== undefined && response.errorCode !== ErrorCode.NONE) throw new KafkaError(response.errorCode, `DeleteGroups "${groupId}"`);
    }
  }

  /**
   * Deletes records before `offset` in partitions (DeleteRecords to the leaders).
   * @returns the new log start offset (low watermark) per partition
   */
  async deleteRecords(options: { topic: string; partitions: { partition: number; offset: number }[] }): Promise<{ partition: number; lowWatermark: number }[]> {
    await this.cluster.topicMetadata([options.topic]);
    const results: { partition: number; lowWatermark: number }[] = [];
    for (const { partition, offset } of options.partitions) {
      const response = await retry(async () => {
        const leader = this.cluster.leaderFor(options.topic, partition);
        const connection = await this.cluster.connectionTo(leader);
        return connection.request(ApiKey.DeleteRecords, {
          topics: [{ name: options.topic, partitions: [{ partitionIndex: partition, offset }] }],
          timeoutMs: DEFAULT_OPERATION_TIMEOUT_MS,
        });
      }, { ...this.timeouts, what: 'DeleteRecords' });
      const result = response.topics[0]?.partitions[0];
      if (result === undefined) throw new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, `DeleteRecords ${options.topic}-${partition}: empty answer`);
      if (result.errorCode !== ErrorCode.NONE) throw new KafkaError(result.errorCode, `DeleteRecords ${options.topic}-${partition}`);
      results.push({ partition, lowWatermark: result.lowWatermark });
    }
    return results;
  }

  /** Cluster id, controller and brokers (from Metadata: Level A brokers have no DescribeCluster). */
  async describeCluster(): Promise<ClusterDescription> {
    await this.cluster.refreshMetadata([]);
    return {
      clusterId: this.cluster.clusterId,
      controllerId: this.cluster.controllerId,
      brokers: [...this.cluster.brokers.values()].sort((a, b) => a.nodeId - b.nodeId),
    };
  }

  /** The metadata quorum (leader, epoch, high watermark, voters' and observers' progress). {@link describeQuorum} */
  describeQuorum(): Promise<QuorumDescription> {
    return describeQuorum(this.cluster, this.timeouts);
  }

  /** The live brokers from DescribeCluster (KIP-700). {@link describeClusterBrokers} */
  describeClusterBrokers(): ReturnType<typeof describeClusterBrokers> {
    return describeClusterBrokers(this.cluster);
  }
}

function resourceTypeCode(resource: { type: 'topic' | 'broker' }): number {
  return resource.type === 'topic' ? ConfigResourceType.TOPIC : ConfigResourceType.BROKER;
}

/** Errors after which a group request must go to a re-discovered coordinator. */
export function isCoordinatorError(code: number): boolean {
  return code === ErrorCode.NOT_COORDINATOR || code === ErrorCode.COORDINATOR_NOT_AVAILABLE || code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
}

/**
 * ListOffsets for one topic, grouped by leader, retrying leader changes.
 * @param timestamp -1 latest, -2 earliest, else ms
 * @param isolationLevel 0 read_uncommitted, 1 read_committed
 */
export async function listPartitionOffsets(
  cluster: Cluster, topic: string, partitions: number[] | undefined, timestamp: number, isolationLevel: number,
): Promise<PartitionOffset[]> {
  return retry(async () => {
    const [info] = await cluster.topicMetadata([topic]);
    const wanted = partitions ?? info!.partitions.map((p) => p.partition);
    const byLeader = new Map<number, number[]>();
    for (const partition of wanted) {
      const leader = cluster.leaderFor(topic, partition);
      if (leader < 0) throw new KafkaError(info!.partitions[partition] === undefined ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.LEADER_NOT_AVAILABLE, `ListOffsets ${topic}-${partition}`);
      (byLeader.get(leader) ?? byLeader.set(leader, []).get(leader)!).push(partition); // not a copy per partition: n²/2 for n partitions
    }
    const results: PartitionOffset[] = [];
    await Promise.all([...byLeader].map(async ([leader, list]) => {
      const connection = await cluster.connectionTo(leader);
      const response = await connection.request(ApiKey.ListOffsets, {
        replicaId: -1,
        isolationLevel,
        topics: [{ name: topic, partitions: list.map((partitionIndex) => ({ partitionIndex, timestamp, maxNumOffsets: 1 })) }],
      });
      for (const t of response.topics) {
        for (const p of t.partitions) {
          if (p.errorCode !== ErrorCode.NONE) {
            if (p.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER || p.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) cluster.invalidate();
            throw new KafkaError(p.errorCode, `ListOffsets ${topic}-${p.partitionIndex}`);
          }
          results.push({ topic, partition: p.partitionIndex, offset: p.offset, timestamp: p.timestamp });
        }
      }
    }));
    return results.sort((a, b) => a.partition - b.partition);
  }, {
    timeoutMs: cluster.options.requestTimeoutMs,
    retryBackoffMs: cluster.options.retryBackoffMs,
    what: `ListOffsets ${topic}`,
    // A topic the metadata says does not exist stays missing: fail now instead of at the timeout.
    shouldRetry: (error) => isRetriableError(error) &&
      !(error instanceof KafkaError && error.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && cluster.topicError(topic) === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
  });
}
