/**
 * MetadataImage: the cluster metadata as the metadata log describes it (Kafka's MetadataImage):
 * registered brokers with their endpoints, topics by name and by id with their partitions
 * (replicas, ISR, leader, leaderEpoch, partitionEpoch), topic and broker config overrides,
 * finalized feature levels, and the next producer id block. It changes only through
 * {@link MetadataImage.replay} of one metadata record at a time, so replaying the whole log
 * rebuilds exactly the same image.
 *
 * Immutable-ish: every TopicImage, PartitionRegistration, BrokerRegistration and config map handed
 * out is a frozen snapshot that a later replay replaces rather than mutates, so a reader may keep
 * it; the image object itself moves on as records are replayed.
 *
 * Replay follows Kafka's rules (ClusterControlManager, ReplicationControlManager,
 * ConfigurationControlManager, ProducerIdControlManager, FeatureControlManager replay methods).
 * A record that contradicts the image (a partition of an unknown topic, a duplicate topic id)
 * means a corrupt log or a controller bug: replay throws MetadataReplayError.
 */
import {
  type BrokerRegistrationChangeRecord,
  ConfigResourceType,
  type MetadataRecord,
  type PartitionChangeRecord,
  type PartitionRecord,
  type RegisterBrokerRecord,
} from './metadata-records.js';
import { BrokersToIsrs, type TopicIdPartition } from './brokers-to-isrs.js';
import { isReassignmentInProgress } from './partition-reassignment.js';
import { topicCollisionKey } from './topic-name.js';

/** A listener of a registered broker (RegisterBrokerRecord.EndPoints). */
export interface BrokerEndpoint {
  /** Listener name, e.g. "PLAINTEXT". */
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** Kafka's SecurityProtocol id: 0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL. */
  readonly securityProtocol: number;
}

/** A broker as registered with the controller (Kafka's BrokerRegistration). */
export interface BrokerRegistration {
  readonly brokerId: number;
  /** The offset of the RegisterBrokerRecord that created this registration (as in Kafka). */
  readonly brokerEpoch: number;
  /** 32 hex digits, one per broker process start. */
  readonly incarnationId: string;
  readonly endpoints: readonly BrokerEndpoint[];
  readonly rack: string | null;
  /** A fenced broker takes no leadership or new replicas. */
  readonly fenced: boolean;
  readonly inControlledShutdown: boolean;
}

/** One partition (Kafka's PartitionRegistration). */
export interface PartitionRegistration {
  readonly partitionId: number;
  /** Assigned replicas, preferred leader first. */
  readonly replicas: readonly number[];
  /** In-sync replicas. */
  readonly isr: readonly number[];
  readonly removingReplicas: readonly number[];
  readonly addingReplicas: readonly number[];
  /** Broker id of the leader, -1 when none. */
  readonly leader: number;
  /** 0 recovered, 1 recovering from an unclean election. */
  readonly leaderRecoveryState: number;
  /** Bumped on every leader change. */
  readonly leaderEpoch: number;
  /** Bumped on every change of the partition. */
  readonly partitionEpoch: number;
}

/** One topic. */
export interface TopicImage {
  readonly name: string;
  /** 32 lowercase hex digits (see topic-id.ts). */
  readonly topicId: string;
  /** Index = partition id, dense from 0. */
  readonly partitions: readonly PartitionRegistration[];
}

/** The config resource a set of overrides belongs to. */
export interface ConfigResource {
  /** ConfigResourceType.TOPIC (2) or ConfigResourceType.BROKER (4). */
  readonly type: number;
  /** Topic name; broker id as text, or "" for the cluster-wide broker default. */
  readonly name: string;
}

/** A metadata record that does not fit the image: corrupt metadata or a controller bug. */
export class MetadataReplayError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetadataReplayError';
  }
}

/** The PartitionChangeRecord leader value meaning "unchanged" (Kafka's NO_LEADER_CHANGE). */
export const NO_LEADER_CHANGE = -2;
/** The leader value meaning "no leader". */
export const NO_LEADER = -1;

const EMPTY_CONFIGS: ReadonlyMap<string, string> = Object.freeze(new Map<string, string>());

interface TopicState {
  readonly name: string;
  readonly topicId: string;
  readonly partitions: PartitionRegistration[];
  /** Frozen snapshot, rebuilt after a change. */
  snapshot: TopicImage | null;
}

/** The one empty frozen array every empty list of the image shares. */
const EMPTY: readonly never[] = Object.freeze([]);

/**
 * `values` as a frozen array the image may keep: `values` itself when it is frozen already (no
 * one can change it; the controller builds its records' lists frozen, so a partition's lists are
 * shared by the latest state, the committed image and the record), else a frozen copy.
 */
function frozenArray<T>(values: readonly T[]): readonly T[] {
  if (values.length === 0) return EMPTY;
  return Object.isFrozen(values) ? values : Object.freeze([...values]);
}

function copyReassigning(reassigning: ReadonlyMap<string, ReadonlySet<number>>): Map<string, Set<number>> {
  const copy = new Map<string, Set<number>>();
  for (const [topicId, partitions] of reassigning) copy.set(topicId, new Set(partitions));
  return copy;
}

function configKey(type: number, name: string): string {
  return `${type}:${name}`;
}

export class MetadataImage {
  private readonly brokersById = new Map<number, BrokerRegistration>();
  private readonly topicsById = new Map<string, TopicState>();
  private readonly topicIdsByName = new Map<string, string>();
  /** topicCollisionKey(name) -> name, for Kafka's '.' versus '_' collision rule. */
  private readonly topicNamesByCollisionKey = new Map<string, string>();
  /** `${resourceType}:${resourceName}` -> frozen overrides. */
  private readonly configs = new Map<string, ReadonlyMap<string, string>>();
  private readonly featureLevels = new Map<string, number>();
  private nextProducerIdValue = 0;
  private partitionCount = 0;
  /** Partitions by ISR member and by leader (Kafka's BrokersToIsrs). */
  private brokersToIsrs = new BrokersToIsrs();
  /**
   * topicId -> ids of its partitions with a reassignment in flight (adding or removing replicas;
   * Kafka's ReplicationControlManager.reassigningTopics), so listing every ongoing reassignment is
   * O(answer), not a walk of every partition (issue 15). A topic with none is absent.
   */
  private reassigning = new Map<string, Set<number>>();

  /**
   * An independent image with the same content: replaying into one never changes the other.
   * The frozen snapshots are shared; O(brokers + topics + partitions) pointer copies.
   */
  copy(): MetadataImage {
    const image = new MetadataImage();
    for (const [id, broker] of this.brokersById) image.brokersById.set(id, broker);
    for (const [id, topic] of this.topicsById) image.topicsById.set(id, { ...topic, partitions: [...topic.partitions] });
    for (const [name, id] of this.topicIdsByName) image.topicIdsByName.set(name, id);
    for (const [key, name] of this.topicNamesByCollisionKey) image.topicNamesByCollisionKey.set(key, name);
    for (const [key, configs] of this.configs) image.configs.set(key, configs);
    for (const [name, level] of this.featureLevels) image.featureLevels.set(name, level);
    image.nextProducerIdValue = this.nextProducerIdValue;
    image.partitionCount = this.partitionCount;
    image.brokersToIsrs = this.brokersToIsrs.copy();
    image.reassigning = copyReassigning(this.reassigning);
    return image;
  }

  /** Makes this image hold what `other` holds (a loaded snapshot replaces the replayed image in place). */
  assign(other: MetadataImage): void {
    const copy = other.copy();
    for (const map of [this.brokersById, this.topicsById, this.topicIdsByName, this.topicNamesByCollisionKey, this.configs, this.featureLevels] as Map<unknown, unknown>[]) map.clear();
    for (const [id, broker] of copy.brokersById) this.brokersById.set(id, broker);
    for (const [id, topic] of copy.topicsById) this.topicsById.set(id, topic);
    for (const [name, id] of copy.topicIdsByName) this.topicIdsByName.set(name, id);
    for (const [key, name] of copy.topicNamesByCollisionKey) this.topicNamesByCollisionKey.set(key, name);
    for (const [key, configs] of copy.configs) this.configs.set(key, configs);
    for (const [name, level] of copy.featureLevels) this.featureLevels.set(name, level);
    this.nextProducerIdValue = copy.nextProducerIdValue;
    this.partitionCount = copy.partitionCount;
    this.brokersToIsrs.assign(copy.brokersToIsrs);
    this.reassigning = copy.reassigning;
  }

  /** Applies one record. @throws MetadataReplayError when the record contradicts the image */
  replay(record: MetadataRecord): void {
    switch (record.type) {
      case 'RegisterBrokerRecord': return this.replayRegisterBroker(record.data);
      case 'UnregisterBrokerRecord': {
        const existing = this.brokersById.get(record.data.brokerId);
        if (existing === undefined || existing.brokerEpoch !== record.data.brokerEpoch) {
          throw new MetadataReplayError(`UnregisterBrokerRecord for broker ${record.data.brokerId} epoch ${record.data.brokerEpoch}, which is not registered`);
        }
        this.brokersById.delete(record.data.brokerId);
        return;
      }
      case 'FenceBrokerRecord': return this.changeBroker(record.data.id, record.data.epoch, 1, 0);
      case 'UnfenceBrokerRecord': return this.changeBroker(record.data.id, record.data.epoch, -1, 0);
      case 'BrokerRegistrationChangeRecord': return this.replayBrokerRegistrationChange(record.data);
      case 'TopicRecord': {
        const { name, topicId } = record.data;
        if (this.topicIdsByName.has(name)) throw new MetadataReplayError(`TopicRecord for ${name}, which exists`);
        if (this.topicsById.has(topicId)) throw new MetadataReplayError(`TopicRecord for ${name} reuses topic id ${topicId}`);
        this.topicsById.set(topicId, { name, topicId, partitions: [], snapshot: null });
        this.topicIdsByName.set(name, topicId);
        this.topicNamesByCollisionKey.set(topicCollisionKey(name), name);
        return;
      }
      case 'PartitionRecord': return this.replayPartition(record.data);
      case 'PartitionChangeRecord': return this.replayPartitionChange(record.data);
      case 'RemoveTopicRecord': {
        const topic = this.topicsById.get(record.data.topicId);
        if (topic === undefined) throw new MetadataReplayError(`RemoveTopicRecord for unknown topic id ${record.data.topicId}`);
        this.topicsById.delete(topic.topicId);
        this.topicIdsByName.delete(topic.name);
        this.topicNamesByCollisionKey.delete(topicCollisionKey(topic.name));
        this.partitionCount -= topic.partitions.length;
        for (const partition of topic.partitions) this.brokersToIsrs.update(topic.topicId, partition.partitionId, partition, undefined);
        this.reassigning.delete(topic.topicId);
        // Kafka drops a deleted topic's configs with it (ConfigurationControlManager.deleteTopicConfigs).
        this.configs.delete(configKey(ConfigResourceType.TOPIC, topic.name));
        return;
      }
      case 'ConfigRecord': {
        const { resourceType, resourceName, name, value } = record.data;
        const key = configKey(resourceType, resourceName);
        const next = new Map(this.configs.get(key) ?? EMPTY_CONFIGS);
        if (value === null) next.delete(name);
        else next.set(name, value);
        if (next.size === 0) this.configs.delete(key);
        else this.configs.set(key, Object.freeze(next));
        return;
      }
      case 'FeatureLevelRecord': {
        if (record.data.featureLevel === 0) this.featureLevels.delete(record.data.name);
        else this.featureLevels.set(record.data.name, record.data.featureLevel);
        return;
      }
      case 'ProducerIdsRecord': {
        if (record.data.nextProducerId <= this.nextProducerIdValue) {
          throw new MetadataReplayError(`ProducerIdsRecord moves the next producer id back from ${this.nextProducerIdValue} to ${record.data.nextProducerId}`);
        }
        this.nextProducerIdValue = record.data.nextProducerId;
        return;
      }
      case 'NoOpRecord': return;
    }
  }

  // ---- brokers ----

  /** The registration of `brokerId`, or undefined. */
  broker(brokerId: number): BrokerRegistration | undefined {
    return this.brokersById.get(brokerId);
  }

  /** Every registered broker, by id. */
  brokers(): BrokerRegistration[] {
    return [...this.brokersById.values()].sort((a, b) => a.brokerId - b.brokerId);
  }

  /** Ids of the registered, unfenced brokers (those that may lead and take replicas), ascending. */
  usableBrokerIds(): number[] {
    return this.brokers().filter((b) => !b.fenced).map((b) => b.brokerId);
  }

  // ---- topics ----

  /** The topic called `name`, or undefined. */
  topic(name: string): TopicImage | undefined {
    const topicId = this.topicIdsByName.get(name);
    return topicId === undefined ? undefined : this.snapshotOf(this.topicsById.get(topicId)!);
  }

  /** The topic with id `topicId` (32 hex digits), or undefined. */
  topicById(topicId: string): TopicImage | undefined {
    const state = this.topicsById.get(topicId);
    return state === undefined ? undefined : this.snapshotOf(state);
  }

  /** Every topic, in name order. */
  topics(): TopicImage[] {
    return [...this.topicIdsByName.keys()].sort().map((name) => this.topic(name)!);
  }

  /**
   * The existing topic whose name equals `name` once '.' and '_' are unified (Kafka refuses to
   * create a second one), or undefined.
   */
  collidingTopicName(name: string): string | undefined {
    return this.topicNamesByCollisionKey.get(topicCollisionKey(name));
  }

  /** Topic names, in name order. */
  topicNames(): string[] {
    return [...this.topicIdsByName.keys()].sort();
  }

  get topicCount(): number {
    return this.topicsById.size;
  }

  /** Partitions across all topics. */
  get totalPartitionCount(): number {
    return this.partitionCount;
  }

  /** One partition, or undefined. */
  partition(topic: string, partitionId: number): PartitionRegistration | undefined {
    const topicId = this.topicIdsByName.get(topic);
    return topicId === undefined ? undefined : this.topicsById.get(topicId)!.partitions[partitionId];
  }

  /** One partition by topic id, or undefined. */
  partitionById(topicId: string, partitionId: number): PartitionRegistration | undefined {
    return this.topicsById.get(topicId)?.partitions[partitionId];
  }

  /** The name of the topic with id `topicId`, or undefined. */
  topicNameById(topicId: string): string | undefined {
    return this.topicsById.get(topicId)?.name;
  }

  /** The partitions whose ISR holds `brokerId` (BrokersToIsrs), in no particular order; O(answer). */
  partitionsWithBrokerInIsr(brokerId: number): TopicIdPartition[] {
    return this.brokersToIsrs.partitionsWithBrokerInIsr(brokerId);
  }

  /** The partitions `brokerId` leads, or with NO_LEADER those without a leader, in no particular order; O(answer). */
  partitionsLedBy(brokerId: number): TopicIdPartition[] {
    return this.brokersToIsrs.partitionsLedBy(brokerId);
  }

  /** True when `brokerId` leads a partition; O(1). */
  leadsAnyPartition(brokerId: number): boolean {
    return this.brokersToIsrs.leadsAny(brokerId);
  }

  /**
   * The partitions with a reassignment in flight (adding or removing replicas not empty), by
   * topic in name order, partition ids ascending; O(answer log answer), whatever the cluster's size.
   */
  reassigningPartitions(): { topic: TopicImage; partitions: PartitionRegistration[] }[] {
    const topics = [...this.reassigning.keys()].map((topicId) => this.snapshotOf(this.topicsById.get(topicId)!));
    topics.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return topics.map((topic) => ({
      topic,
      partitions: [...this.reassigning.get(topic.topicId)!].sort((a, b) => a - b).map((id) => topic.partitions[id]!),
    }));
  }

  // ---- configs ----

  /** A topic's config overrides (Kafka name -> text); empty when it has none or does not exist. */
  topicConfigs(topic: string): ReadonlyMap<string, string> {
    return this.configs.get(configKey(ConfigResourceType.TOPIC, topic)) ?? EMPTY_CONFIGS;
  }

  /** Dynamic broker config overrides of broker `resourceName` ("" = cluster-wide default). */
  brokerConfigs(resourceName: string): ReadonlyMap<string, string> {
    return this.configs.get(configKey(ConfigResourceType.BROKER, resourceName)) ?? EMPTY_CONFIGS;
  }

  /** Overrides of any resource. */
  resourceConfigs(resource: ConfigResource): ReadonlyMap<string, string> {
    return this.configs.get(configKey(resource.type, resource.name)) ?? EMPTY_CONFIGS;
  }

  // ---- features, producer ids ----

  /** A finalized feature level (e.g. "metadata.version"), or undefined when not set. */
  featureLevel(name: string): number | undefined {
    return this.featureLevels.get(name);
  }

  /** Every config resource with overrides and its overrides, in `type:name` order. */
  configResources(): { resource: ConfigResource; configs: ReadonlyMap<string, string> }[] {
    return [...this.configs.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, configs]) => {
        const colon = key.indexOf(':');
        return { resource: { type: Number(key.slice(0, colon)), name: key.slice(colon + 1) }, configs };
      });
  }

  /** Every finalized feature level, by name. */
  featureLevelEntries(): [string, number][] {
    return [...this.featureLevels.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The first producer id of the next block the controller hands out (0 before any). */
  get nextProducerId(): number {
    return this.nextProducerIdValue;
  }

  /**
   * A plain, canonically ordered description of the whole image (brokers, topics, configs,
   * features, producer ids), for comparing images and for debugging.
   */
  toJSON(): object {
    const configs = [...this.configs.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, map]) => [key, [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
    return {
      brokers: this.brokers(),
      topics: this.topics(),
      configs,
      features: [...this.featureLevels.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      nextProducerId: this.nextProducerIdValue,
    };
  }

  // ---- replay helpers ----

  private snapshotOf(state: TopicState): TopicImage {
    if (state.snapshot === null) {
      state.snapshot = Object.freeze({ name: state.name, topicId: state.topicId, partitions: frozenArray(state.partitions) });
    }
    return state.snapshot;
  }

  /** Keeps {@link reassigning} in step with a partition's new registration. */
  private noteReassigning(topicId: string, partition: PartitionRegistration): void {
    let partitions = this.reassigning.get(topicId);
    if (isReassignmentInProgress(partition)) {
      if (partitions === undefined) this.reassigning.set(topicId, (partitions = new Set()));
      partitions.add(partition.partitionId);
    } else if (partitions !== undefined && partitions.delete(partition.partitionId) && partitions.size === 0) {
      this.reassigning.delete(topicId);
    }
  }

  private replayRegisterBroker(data: RegisterBrokerRecord): void {
    this.brokersById.set(data.brokerId, Object.freeze({
      brokerId: data.brokerId,
      brokerEpoch: data.brokerEpoch,
      incarnationId: data.incarnationId,
      endpoints: frozenArray(data.endPoints.map((e) => Object.freeze({ name: e.name, host: e.host, port: e.port, securityProtocol: e.securityProtocol }))),
      rack: data.rack,
      fenced: data.fenced,
      inControlledShutdown: data.inControlledShutdown,
    }));
  }

  private replayBrokerRegistrationChange(data: BrokerRegistrationChangeRecord): void {
    this.changeBroker(data.brokerId, data.brokerEpoch, data.fenced, data.inControlledShutdown);
  }

  /** fenced: 1 fence, -1 unfence, 0 unchanged; inControlledShutdown: 1 enter, 0 unchanged. */
  private changeBroker(brokerId: number, brokerEpoch: number, fenced: number, inControlledShutdown: number): void {
    const existing = this.brokersById.get(brokerId);
    if (existing === undefined || existing.brokerEpoch !== brokerEpoch) {
      throw new MetadataReplayError(`broker change for broker ${brokerId} epoch ${brokerEpoch}, which is not registered`);
    }
    this.brokersById.set(brokerId, Object.freeze({
      ...existing,
      fenced: fenced === 1 ? true : fenced === -1 ? false : existing.fenced,
      inControlledShutdown: inControlledShutdown === 1 ? true : existing.inControlledShutdown,
    }));
  }

  private replayPartition(data: PartitionRecord): void {
    const topic = this.topicsById.get(data.topicId);
    if (topic === undefined) throw new MetadataReplayError(`PartitionRecord for unknown topic id ${data.topicId}`);
    if (data.partitionId < 0 || data.partitionId > topic.partitions.length) {
      throw new MetadataReplayError(`PartitionRecord for ${topic.name}-${data.partitionId} leaves a gap (topic has ${topic.partitions.length} partitions)`);
    }
    const registration: PartitionRegistration = Object.freeze({
      partitionId: data.partitionId,
      replicas: frozenArray(data.replicas),
      isr: frozenArray(data.isr),
      removingReplicas: frozenArray(data.removingReplicas),
      addingReplicas: frozenArray(data.addingReplicas),
      leader: data.leader,
      leaderRecoveryState: data.leaderRecoveryState,
      leaderEpoch: data.leaderEpoch,
      partitionEpoch: data.partitionEpoch,
    });
    if (data.partitionId === topic.partitions.length) this.partitionCount++;
    this.brokersToIsrs.update(data.topicId, data.partitionId, topic.partitions[data.partitionId], registration);
    this.noteReassigning(data.topicId, registration);
    topic.partitions[data.partitionId] = registration;
    topic.snapshot = null;
  }

  private replayPartitionChange(data: PartitionChangeRecord): void {
    const topic = this.topicsById.get(data.topicId);
    const existing = topic?.partitions[data.partitionId];
    if (topic === undefined || existing === undefined) {
      throw new MetadataReplayError(`PartitionChangeRecord for unknown partition ${data.topicId}-${data.partitionId}`);
    }
    // Kafka's PartitionRegistration.merge: any leader value other than NO_LEADER_CHANGE (even the
    // same leader) starts a new leader epoch; every change starts a new partition epoch.
    const leaderChanged = data.leader !== NO_LEADER_CHANGE;
    const next: PartitionRegistration = Object.freeze({
      partitionId: existing.partitionId,
      replicas: data.replicas === null ? existing.replicas : frozenArray(data.replicas),
      isr: data.isr === null ? existing.isr : frozenArray(data.isr),
      removingReplicas: data.removingReplicas === null ? existing.removingReplicas : frozenArray(data.removingReplicas),
      addingReplicas: data.addingReplicas === null ? existing.addingReplicas : frozenArray(data.addingReplicas),
      leader: leaderChanged ? data.leader : existing.leader,
      leaderRecoveryState: data.leaderRecoveryState === -1 ? existing.leaderRecoveryState : data.leaderRecoveryState,
      leaderEpoch: leaderChanged ? existing.leaderEpoch + 1 : existing.leaderEpoch,
      partitionEpoch: existing.partitionEpoch + 1,
    });
    this.brokersToIsrs.update(data.topicId, data.partitionId, existing, next);
    this.noteReassigning(data.topicId, next);
    topic.partitions[data.partitionId] = next;
    topic.snapshot = null;
  }
}
