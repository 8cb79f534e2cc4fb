/**
 * {@link ClusterMetadata} as the API handlers see it: reads come from the broker's own
 * {@link MetadataCache} (what the BrokerMetadataPublisher was told), changes go to the
 * QuorumController (host/controller) through its validate → append → commit → replay path (so they
 * survive a restart in `__cluster_metadata-0`) and answer once committed, and producer ids come in
 * blocks through a ProducerIdManager. A change is in the cache once its promise resolves: the
 * controller publishes committed records to its listeners before it answers.
 *
 * Multi-voter mode: a change the local controller refuses with NOT_CONTROLLER (41) (it is not the
 * active one, or this node is a broker-only observer) goes to the active controller through the
 * {@link ControllerForwarder}; the forwarded change reaches this broker's cache when the metadata
 * log brings it here, shortly after the answer (as in Kafka).
 *
 * A topic created or grown by the local controller is answered once this broker has applied it to
 * its storage too ({@link ControllerClusterMetadataOptions.whenApplied}): the publisher applies
 * changes in slices over several event-loop turns, and a client told "created" (an admin, or a
 * JoinGroup / Produce that auto-created its topic) would otherwise get NOT_COORDINATOR /
 * NOT_LEADER_OR_FOLLOWER from this very broker for a few turns. The wait is bounded by the slices
 * queued when the change committed (a FIFO barrier: later changes do not extend it).
 */
import type { Time, TimerHandle } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { ProducerIdManager } from '../controller/producer-id-manager.js';
import type { QuorumController } from '../controller/quorum-controller.js';
import { ConfigResourceType } from '../controller/metadata-records.js';
import type {
  ClusterMetadata, ConfigChange, ConfigChangeResult, CreateTopicSpec, LeaderElectionResults, MetadataResult, OngoingReassignments,
  ReassignmentResults, ReassignmentTarget, TopicState,
} from '../api/cluster-metadata.js';
import type { ControllerForwarder } from './controller-forwarding.js';
import type { MetadataCache } from './metadata-cache.js';

export interface ControllerClusterMetadataOptions {
  controller: QuorumController;
  /** The broker's metadata cache: the source of every read (cluster id included). */
  cache: MetadataCache;
  /** This broker's id and current broker epoch (its registration), for producer id blocks. */
  brokerId: number;
  brokerEpoch: () => number;
  /** Multi-voter mode: where changes the local controller refuses with NOT_CONTROLLER (41) go. */
  forwarder?: ControllerForwarder;
  /**
   * Resolves once every metadata change published so far is applied to this broker's storage
   * (BrokerMetadataPublisher.whenApplied); absent: answers once committed.
   */
  whenApplied?: () => Promise<void>;
  /** The clock bounding that wait (a request's timeoutMs); absent: the wait is not bounded. */
  time?: Pick<Time, 'setTimeout' | 'clearTimeout'>;
}

/** The handlers' ClusterMetadata: reads from the cache, writes through the controller. */
export class ControllerClusterMetadata implements ClusterMetadata {
  private readonly controller: QuorumController;
  private readonly cache: MetadataCache;
  private readonly producerIds: ProducerIdManager;
  private readonly forwarder: ControllerForwarder | null;
  private readonly whenApplied: () => Promise<void>;
  private readonly time: Pick<Time, 'setTimeout' | 'clearTimeout'> | null;

  constructor(options: ControllerClusterMetadataOptions) {
    this.controller = options.controller;
    this.whenApplied = options.whenApplied ?? (() => Promise.resolve());
    this.time = options.time ?? null;
    this.cache = options.cache;
    this.forwarder = options.forwarder ?? null;
    this.producerIds = new ProducerIdManager(async () => {
      const block = await this.controller.allocateProducerIds(options.brokerId, options.brokerEpoch());
      if (block.errorCode !== ErrorCode.NOT_CONTROLLER || this.forwarder === null) return block;
      return this.forwarder.allocateProducerIds(options.brokerId, options.brokerEpoch());
    });
  }

  get clusterId(): string {
    return this.cache.clusterId;
  }

  /**
   * The controller id Metadata and DescribeCluster answer: the active controller when it is also a
   * live broker (combined mode); otherwise (controller-only nodes, or no active controller during
   * an election) a live broker: this one when it is alive, else the lowest id. Kafka's KRaft brokers
   * answer a random live broker, since any broker forwards what needs the controller; a client
   * given -1 or an unreachable node (librdkafka) waits for its next metadata refresh instead.
   * -1 only while no broker is known.
   */
  get controllerId(): number {
    const active = this.cache.controllerId;
    const alive = this.cache.brokers().filter((broker) => !broker.fenced && broker.endpoints.length > 0);
    if (alive.some((broker) => broker.brokerId === active)) return active;
    if (alive.some((broker) => broker.brokerId === this.cache.nodeId)) return this.cache.nodeId;
    return alive[0]?.brokerId ?? active;
  }

  topic(name: string): TopicState | undefined {
    return this.cache.topic(name);
  }

  topics(): TopicState[] {
    return [...this.cache.topics()];
  }

  async createTopic(spec: CreateTopicSpec, validateOnly: boolean, applyWaitMs?: number): Promise<MetadataResult> {
    const [result] = await this.controller.createTopics([{
      name: spec.name,
      numPartitions: spec.numPartitions,
      replicationFactor: spec.replicationFactor,
      ...(spec.assignments === undefined ? {} : { assignments: spec.assignments }),
      configs: Object.entries(spec.configs).map(([name, value]) => ({ name, value })),
    }], { validateOnly });
    await this.appliedIfCommitted(result!, validateOnly, applyWaitMs);
    return this.orForwarded(result!, (forwarder) => forwarder.createTopic(spec, validateOnly));
  }

  async deleteTopic(name: string): Promise<MetadataResult> {
    const [result] = await this.controller.deleteTopics([name]);
    return this.orForwarded(result!, (forwarder) => forwarder.deleteTopic(name));
  }

  async createPartitions(name: string, totalCount: number, validateOnly: boolean, applyWaitMs?: number): Promise<MetadataResult> {
    const [result] = await this.controller.createPartitions([{ name, count: totalCount }], { validateOnly });
    await this.appliedIfCommitted(result!, validateOnly, applyWaitMs);
    return this.orForwarded(result!, (forwarder) => forwarder.createPartitions(name, totalCount, validateOnly));
  }

  async alterTopicConfigs(name: string, overrides: Readonly<Record<string, string>>, validateOnly: boolean): Promise<MetadataResult> {
    const configs = Object.entries(overrides).map(([key, value]) => ({ name: key, value }));
    const [result] = await this.controller.alterConfigs([{ resourceType: ConfigResourceType.TOPIC, resourceName: name, configs }], { validateOnly });
    return this.orForwarded(result!, (forwarder) => forwarder.alterConfigs(ConfigResourceType.TOPIC, name, configs, validateOnly));
  }

  async alterBrokerConfigs(name: string, configs: readonly { name: string; value: string | null }[], validateOnly: boolean): Promise<MetadataResult> {
    const [result] = await this.controller.alterConfigs([{ resourceType: ConfigResourceType.BROKER, resourceName: name, configs }], { validateOnly });
    return this.orForwarded(result!, (forwarder) => forwarder.alterConfigs(ConfigResourceType.BROKER, name, configs, validateOnly));
  }

  async incrementalAlterConfigs(resources: readonly ConfigChange[], validateOnly: boolean): Promise<ConfigChangeResult[]> {
    if (resources.length === 0) return [];
    const results = await this.controller.incrementalAlterConfigs(resources, { validateOnly });
    const refused = results.every((r) => r.errorCode === ErrorCode.NOT_CONTROLLER);
    if (refused && this.forwarder !== null) return this.forwarder.incrementalAlterConfigs(resources, validateOnly);
    return results.map((r) => ({ resourceType: r.resourceType, resourceName: r.resourceName, errorCode: r.errorCode, errorMessage: r.errorMessage }));
  }

  async electLeaders(electionType: number, topicPartitions: readonly { topic: string; partitions: readonly number[] }[] | null): Promise<LeaderElectionResults> {
    let answer = await this.controller.electLeaders(electionType, topicPartitions);
    if (answer.errorCode === ErrorCode.NOT_CONTROLLER && this.forwarder !== null) answer = await this.forwarder.electLeaders(electionType, topicPartitions);
    return {
      errorCode: answer.errorCode ?? ErrorCode.NONE,
      results: answer.replicaElectionResults.map((r) => ({
        topic: r.topic, partitions: r.partitionResult.map((p) => ({ partitionId: p.partitionId, errorCode: p.errorCode, errorMessage: p.errorMessage })),
      })),
    };
  }

  async alterPartitionReassignments(topics: readonly ReassignmentTarget[]): Promise<ReassignmentResults> {
    const request = topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, replicas: p.replicas === null ? null : [...p.replicas] })) }));
    const answer = await this.controller.alterPartitionReassignments(request);
    if (answer.errorCode === ErrorCode.NOT_CONTROLLER && this.forwarder !== null) return this.forwarder.alterPartitionReassignments(topics);
    return { errorCode: answer.errorCode, errorMessage: answer.errorMessage, topics: answer.responses };
  }

  async listPartitionReassignments(topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null): Promise<OngoingReassignments> {
    const answer = this.controller.listPartitionReassignments(topics === null ? null : topics.map((t) => ({ name: t.name, partitionIndexes: [...t.partitionIndexes] })));
    if (answer.errorCode === ErrorCode.NOT_CONTROLLER && this.forwarder !== null) return this.forwarder.listPartitionReassignments(topics);
    return { errorCode: answer.errorCode, errorMessage: answer.errorMessage, topics: answer.topics };
  }

  /**
   * Waits for this broker's storage to catch up with a change the local controller committed (its
   * records are in the cache and queued for the publisher by now); nothing to wait for otherwise.
   */
  private async appliedIfCommitted(result: { errorCode: number }, validateOnly: boolean, waitMs: number | undefined): Promise<void> {
    if (validateOnly || result.errorCode !== ErrorCode.NONE) return;
    const applied = this.whenApplied();
    if (waitMs === undefined) return applied;
    // At most the request's timeoutMs (0: not at all): a topic of thousands of partitions is
    // applied over that many turns, and the client asked to hear back within its timeout.
    const time = this.time;
    if (time === null) return applied;
    let timer: TimerHandle | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = time.setTimeout(resolve, Math.max(0, waitMs));
    });
    await Promise.race([applied, timedOut]);
    if (timer !== undefined) time.clearTimeout(timer);
  }

  /** The local controller's answer, or the active controller's when the local one is not active. */
  private async orForwarded(
    result: { errorCode: number; errorMessage: string | null },
    forward: (forwarder: ControllerForwarder) => Promise<MetadataResult>,
  ): Promise<MetadataResult> {
    if (result.errorCode === ErrorCode.NOT_CONTROLLER && this.forwarder !== null) return forward(this.forwarder);
    return plain(result);
  }

  async allocateProducerId(): Promise<{ errorCode: number; producerId: number }> {
    const { errorCode, producerId } = await this.producerIds.generateProducerId();
    return { errorCode, producerId };
  }
}

function plain(result: { errorCode: number; errorMessage: string | null }): MetadataResult {
  return { errorCode: result.errorCode, errorMessage: result.errorMessage };
}
