/**
 * The broker's own view of the cluster metadata (Kafka's KRaftMetadataCache): topics with their
 * partitions (leader, leader epoch, replicas, ISR) and config overrides, the registered brokers
 * with their endpoints, the active controller and the cluster id. The API handlers read it
 * (Metadata, FindCoordinator, the leadership checks of Produce and Fetch) instead of the
 * controller object, so a broker that is not a controller answers from what it was told.
 *
 * Only the {@link BrokerMetadataPublisher} writes it, once with the whole image at start-up and
 * then topic by topic and broker by broker as the controller's committed changes are published.
 * Every TopicState handed out is frozen and replaced (never mutated) on a change, so a reader may
 * keep one.
 */
import type { BrokerEndpoint as ApiBrokerEndpoint } from '../api/broker-services.js';
import { firstTopicAtOrAfter, type PartitionState, type TopicState } from '../api/cluster-metadata.js';
import type { BrokerRegistration, MetadataImage, PartitionRegistration, TopicImage } from '../controller/metadata-image.js';
import { isInternalTopic } from '../controller/topic-name.js';
import { MetadataResponseCache } from '../api/metadata-response-cache.js';
import type { BrokerConfig } from '../config/broker-config.js';
import type { Time } from '../io/environment.js';

/** Controller id while none is known (Kafka's MetadataResponse answers -1). */
export const UNKNOWN_CONTROLLER_ID = -1;

/** The broker-side metadata cache. */
export class MetadataCache {
  /** 22-character base64url cluster id, from meta.properties. */
  readonly clusterId: string;
  /** This broker's node id. */
  readonly nodeId: number;
  private readonly topicsByName = new Map<string, TopicState>();
  private readonly brokersById = new Map<number, BrokerRegistration>();
  /** Topics in name order, rebuilt lazily after a change (Metadata for all topics asks often). */
  private sortedTopics: TopicState[] | null = null;
  /**
   * Topics replaced (same name, new state) since `sortedTopics` was built: the order holds, so
   * the next topics() copies the array with their slots replaced instead of sorting every name
   * again (a leader change at 50,000 topics: a copy of 50,000 references, not a sort of 50,000
   * strings, ~60 ms).
   */
  private readonly replacedSinceSort = new Set<string>();
  private activeControllerId = UNKNOWN_CONTROLLER_ID;
  private changes = 0;

  constructor(options: { clusterId: string; nodeId: number }) {
    this.clusterId = options.clusterId;
    this.nodeId = options.nodeId;
  }

  /**
   * Counts the writes to this cache: every write method below adds one, before it returns, so two
   * equal readings mean nothing a reader sees here (topics, partitions, brokers and their endpoints,
   * the controller) changed in between. The encoded Metadata answers are reused while it stays
   * the same (metadata-response-cache.ts); a new write method must bump it too.
   */
  get generation(): number {
    return this.changes;
  }

  /** The active controller's node id, {@link UNKNOWN_CONTROLLER_ID} (-1) while none is known. */
  get controllerId(): number {
    return this.activeControllerId;
  }

  /** The topic called `name`, or undefined. */
  topic(name: string): TopicState | undefined {
    return this.topicsByName.get(name);
  }

  /**
   * Every topic, in name order (a shared array: do not modify). A change hands out a new array;
   * one handed out before never changes (the Metadata answers compare their TopicStates).
   */
  topics(): TopicState[] {
    if (this.sortedTopics === null) {
      this.sortedTopics = [...this.topicsByName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      this.replacedSinceSort.clear();
    } else if (this.replacedSinceSort.size > 0) {
      const sorted = this.sortedTopics.slice();
      for (const name of this.replacedSinceSort) sorted[slotOf(sorted, name)] = this.topicsByName.get(name)!;
      this.sortedTopics = sorted;
      this.replacedSinceSort.clear();
    }
    return this.sortedTopics;
  }

  /** One partition of a topic, or undefined when either is unknown. */
  partition(topic: string, partition: number): PartitionState | undefined {
    return this.topicsByName.get(topic)?.partitions[partition];
  }

  /** The leader of a partition: its broker id, -1 when it has none, undefined when unknown. */
  leaderId(topic: string, partition: number): number | undefined {
    return this.partition(topic, partition)?.leaderId;
  }

  /** A registered broker, or undefined. */
  broker(brokerId: number): BrokerRegistration | undefined {
    return this.brokersById.get(brokerId);
  }

  /** Every registered broker, fenced or not, by id. */
  brokers(): BrokerRegistration[] {
    return [...this.brokersById.values()].sort((a, b) => a.brokerId - b.brokerId);
  }

  /**
   * The unfenced brokers as clients reach them through `listenerName`, by id (Kafka answers
   * Metadata with the endpoints of the listener the request came in on). A broker without an
   * endpoint of that name is listed with its first endpoint; one without endpoints is left out.
   */
  aliveBrokerEndpoints(listenerName: string): ApiBrokerEndpoint[] {
    const endpoints: ApiBrokerEndpoint[] = [];
    for (const broker of this.brokers()) {
      if (broker.fenced) continue;
      const endpoint = broker.endpoints.find((candidate) => candidate.name === listenerName) ?? broker.endpoints[0];
      if (endpoint === undefined) continue;
      endpoints.push({ nodeId: broker.brokerId, host: endpoint.host, port: endpoint.port, rack: broker.rack });
    }
    return endpoints;
  }

  // ---- writes: the BrokerMetadataPublisher's only ----

  /** Replaces the whole content with `image` (the first image a broker is given). */
  loadImage(image: MetadataImage, controllerId: number): void {
    this.topicsByName.clear();
    this.brokersById.clear();
    for (const topic of image.topics()) this.topicsByName.set(topic.name, toTopicState(topic, image.topicConfigs(topic.name)));
    for (const broker of image.brokers()) this.brokersById.set(broker.brokerId, broker);
    this.sortedTopics = null;
    this.activeControllerId = controllerId;
    this.changes++;
  }

  /** Sets (creates or replaces) one topic; returns its new state. */
  putTopic(topic: TopicImage, configs: ReadonlyMap<string, string>): TopicState {
    const state = toTopicState(topic, configs);
    const existed = this.topicsByName.has(topic.name);
    this.topicsByName.set(topic.name, state);
    if (existed && this.sortedTopics !== null) this.replacedSinceSort.add(topic.name);
    else this.sortedTopics = null;
    this.changes++;
    return state;
  }

  /** Forgets one topic; returns how it was, or undefined when unknown. */
  removeTopic(name: string): TopicState | undefined {
    const before = this.topicsByName.get(name);
    if (before !== undefined) {
      this.topicsByName.delete(name);
      this.sortedTopics = null;
      this.changes++;
    }
    return before;
  }

  /** Sets a broker's registration, or forgets the broker (`registration` undefined). */
  putBroker(brokerId: number, registration: BrokerRegistration | undefined): void {
    if (registration === undefined) this.brokersById.delete(brokerId);
    else this.brokersById.set(brokerId, registration);
    this.changes++;
  }

  /** Records the active controller (-1: none known). */
  setControllerId(controllerId: number): void {
    if (controllerId === this.activeControllerId) return;
    this.activeControllerId = controllerId;
    this.changes++;
  }
}

/** The index of the topic called `name` in `sorted` (in name order; it is there), by binary search. */
function slotOf(sorted: readonly TopicState[], name: string): number {
  const low = firstTopicAtOrAfter(sorted, name);
  if (sorted[low]?.name !== name) throw new Error(`assertion failed: topic ${name} is not in the sorted topics`);
  return low;
}

function toPartitionState(partition: PartitionRegistration): PartitionState {
  return {
    partition: partition.partitionId,
    leaderId: partition.leader,
    leaderEpoch: partition.leaderEpoch,
    partitionEpoch: partition.partitionEpoch,
    replicas: partition.replicas,
    isr: partition.isr,
  };
}

/** A frozen TopicState view of an image topic with its config overrides (partitions in index order). */
export function toTopicState(topic: TopicImage, configs: ReadonlyMap<string, string>): TopicState {
  const partitions = topic.partitions.map(toPartitionState);
  // The image keeps partitions dense in index order; sort only if that ever stops holding.
  if (!partitions.every((partition, index) => partition.partition === index)) {
    partitions.sort((a, b) => a.partition - b.partition);
  }
  return Object.freeze({
    name: topic.name,
    topicId: topic.topicId,
    isInternal: isInternalTopic(topic.name),
    partitions: Object.freeze(partitions),
    configs,
  });
}

/**
 * The broker's reused all-topics Metadata answers over `cache`'s generation
 * (metadata.response.cache.max.bytes, metadata.response.max.partitions.per.turn; slices deferred on `time`).
 */
export function metadataResponseCache(config: BrokerConfig, cache: MetadataCache, time: Pick<Time, 'defer'>): MetadataResponseCache {
  return new MetadataResponseCache({
    maxBytes: config.metadataResponseCacheMaxBytes,
    generation: () => cache.generation,
    maxPartitionsPerTurn: config.metadataResponseMaxPartitionsPerTurn,
    defer: (task) => time.defer(task),
  });
}
