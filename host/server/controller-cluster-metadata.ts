/**
 * {@link ClusterMetadata} over the embedded QuorumController (host/controller): reads come from
 * its MetadataImage, changes go through its validate → append → replay path (so they survive a
 * restart in `__cluster_metadata-0`), and producer ids come in blocks through a
 * ProducerIdManager. The controller's listener callbacks are turned into {@link TopicChange}s
 * for the broker.
 */
import type { MetadataImage, PartitionRegistration, TopicImage } from '../controller/metadata-image.js';
import { ProducerIdManager } from '../controller/producer-id-manager.js';
import type { QuorumController } from '../controller/quorum-controller.js';
import { isInternalTopic } from '../controller/topic-name.js';
import { ConfigResourceType } from '../controller/metadata-records.js';
import type {
  ClusterMetadata,
  CreateTopicSpec,
  MetadataResult,
  PartitionState,
  TopicChange,
  TopicState,
} from '../api/cluster-metadata.js';

export interface ControllerClusterMetadataOptions {
  controller: QuorumController;
  /** From meta.properties. */
  clusterId: string;
  /** This broker's id and current broker epoch (its registration), for producer id blocks. */
  brokerId: number;
  brokerEpoch: () => number;
}

export class ControllerClusterMetadata implements ClusterMetadata {
  readonly clusterId: string;
  private readonly controller: QuorumController;
  private readonly producerIds: ProducerIdManager;

  constructor(options: ControllerClusterMetadataOptions) {
    this.controller = options.controller;
    this.clusterId = options.clusterId;
    this.producerIds = new ProducerIdManager(() => this.controller.allocateProducerIds(options.brokerId, options.brokerEpoch()));
  }

  get controllerId(): number {
    return this.controller.nodeId;
  }

  topic(name: string): TopicState | undefined {
    const image = this.controller.image;
    const topic = image.topic(name);
    return topic === undefined ? undefined : toTopicState(topic, image);
  }

  topics(): TopicState[] {
    const image = this.controller.image;
    return image.topics()
      .map((topic) => toTopicState(topic, image))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  createTopic(spec: CreateTopicSpec, validateOnly: boolean): Promise<MetadataResult> {
    const [result] = this.controller.createTopics([{
      name: spec.name,
      numPartitions: spec.numPartitions,
      replicationFactor: spec.replicationFactor,
      configs: Object.entries(spec.configs).map(([name, value]) => ({ name, value })),
    }], { validateOnly });
    return Promise.resolve(plain(result!));
  }

  deleteTopic(name: string): Promise<MetadataResult> {
    const [result] = this.controller.deleteTopics([name]);
    return Promise.resolve(plain(result!));
  }

  createPartitions(name: string, totalCount: number, validateOnly: boolean): Promise<MetadataResult> {
    const [result] = this.controller.createPartitions([{ name, count: totalCount }], { validateOnly });
    return Promise.resolve(plain(result!));
  }

  alterTopicConfigs(name: string, overrides: Readonly<Record<string, string>>, validateOnly: boolean): Promise<MetadataResult> {
    const [result] = this.controller.alterConfigs([{
      resourceType: ConfigResourceType.TOPIC,
      resourceName: name,
      configs: Object.entries(overrides).map(([key, value]) => ({ name: key, value })),
    }], { validateOnly });
    return Promise.resolve(plain(result!));
  }

  alterBrokerConfigs(name: string, configs: readonly { name: string; value: string | null }[], validateOnly: boolean): Promise<MetadataResult> {
    const [result] = this.controller.alterConfigs([{ resourceType: ConfigResourceType.BROKER, resourceName: name, configs }], { validateOnly });
    return Promise.resolve(plain(result!));
  }

  allocateProducerId(): Promise<{ errorCode: number; producerId: number }> {
    const { errorCode, producerId } = this.producerIds.generateProducerId();
    return Promise.resolve({ errorCode, producerId });
  }

  /**
   * Calls `onChange` for every committed topic change (created, deleted, partitions added or
   * moved, configs changed), synchronously after the controller's image has it.
   * Returns the unsubscribe function.
   */
  watch(onChange: (change: TopicChange) => void): () => void {
    return this.controller.addListener({
      onTopicCreated: (topic, image) => onChange({ name: topic.name, before: null, after: toTopicState(topic, image) }),
      onTopicDeleted: (topic, image) => onChange({ name: topic.name, before: toTopicState(topic, image), after: null }),
      onPartitionsChanged: (topic, change, image) => {
        const after = toTopicState(topic, image);
        const before: TopicState = { ...after, partitions: after.partitions.slice(0, change.previousPartitionCount) };
        onChange({ name: topic.name, before, after });
      },
      onConfigChanged: (resource, _configs, image) => {
        if (resource.type !== ConfigResourceType.TOPIC) return;
        const topic = image.topic(resource.name);
        if (topic === undefined) return;
        const after = toTopicState(topic, image);
        onChange({ name: topic.name, before: after, after });
      },
    });
  }
}

function plain(result: { errorCode: number; errorMessage: string | null }): MetadataResult {
  return { errorCode: result.errorCode, errorMessage: result.errorMessage };
}

function toPartitionState(partition: PartitionRegistration): PartitionState {
  return {
    partition: partition.partitionId,
    leaderId: partition.leader,
    leaderEpoch: partition.leaderEpoch,
    replicas: partition.replicas,
    isr: partition.isr,
  };
}

/**
 * TopicState views already built, per frozen TopicImage snapshot and the config map they were
 * built with. The image replaces (never mutates) a topic's snapshot and config map on every
 * change, so an entry is valid while both are the same objects; dead snapshots drop out of the
 * WeakMap. Without it every `topic(name)` would copy all partitions: a start-up with 10,000
 * partitions asks once per partition, which was quadratic (seconds).
 */
const topicStates = new WeakMap<TopicImage, { configs: ReadonlyMap<string, string>; state: TopicState }>();

/**
 * A TopicState view of an image topic (partitions in index order). Shared and frozen: callers
 * must not modify it (copy to change, as `watch` does for `before`).
 */
export function toTopicState(topic: TopicImage, image: MetadataImage): TopicState {
  const configs = image.topicConfigs(topic.name);
  const cached = topicStates.get(topic);
  if (cached !== undefined && cached.configs === configs) return cached.state;
  const partitions = topic.partitions.map(toPartitionState);
  // The image keeps partitions dense in index order; sort only if that ever stops holding.
  if (!partitions.every((partition, index) => partition.partition === index)) {
    partitions.sort((a, b) => a.partition - b.partition);
  }
  const state: TopicState = Object.freeze({
    name: topic.name,
    topicId: topic.topicId,
    isInternal: isInternalTopic(topic.name),
    partitions: Object.freeze(partitions),
    configs,
  });
  topicStates.set(topic, { configs, state });
  return state;
}
