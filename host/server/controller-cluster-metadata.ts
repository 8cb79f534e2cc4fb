/**
 * {@link ClusterMetadata} as the API handlers see it: reads come from the broker's own
 * {@link MetadataCache} (what the BrokerMetadataPublisher was told), changes go to the
 * QuorumController (host/controller) through its validate → append → commit → replay path (so they
 * survive a restart in `__cluster_metadata-0`) and answer once committed, and producer ids come in
 * blocks through a ProducerIdManager. A change is in the cache once its promise resolves: the
 * controller publishes committed records to its listeners before it answers.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { ProducerIdManager } from '../controller/producer-id-manager.js';
import type { QuorumController } from '../controller/quorum-controller.js';
import { ConfigResourceType } from '../controller/metadata-records.js';
import type { ClusterMetadata, CreateTopicSpec, MetadataResult, TopicState } from '../api/cluster-metadata.js';
import type { MetadataCache } from './metadata-cache.js';

export interface ControllerClusterMetadataOptions {
  controller: QuorumController;
  /** The broker's metadata cache: the source of every read (cluster id included). */
  cache: MetadataCache;
  /** This broker's id and current broker epoch (its registration), for producer id blocks. */
  brokerId: number;
  brokerEpoch: () => number;
  /**
   * Multi-voter mode: sends a topic creation the local controller refused with NOT_CONTROLLER (41)
   * to the active controller (controller-forwarding.ts).
   */
  forwardCreateTopic?: (spec: CreateTopicSpec, validateOnly: boolean) => Promise<MetadataResult>;
}

/** The handlers' ClusterMetadata: reads from the cache, writes through the controller. */
export class ControllerClusterMetadata implements ClusterMetadata {
  private readonly controller: QuorumController;
  private readonly cache: MetadataCache;
  private readonly producerIds: ProducerIdManager;
  private readonly forwardCreateTopic: ControllerClusterMetadataOptions['forwardCreateTopic'];

  constructor(options: ControllerClusterMetadataOptions) {
    this.controller = options.controller;
    this.cache = options.cache;
    this.forwardCreateTopic = options.forwardCreateTopic;
    this.producerIds = new ProducerIdManager(() => this.controller.allocateProducerIds(options.brokerId, options.brokerEpoch()));
  }

  get clusterId(): string {
    return this.cache.clusterId;
  }

  get controllerId(): number {
    return this.cache.controllerId;
  }

  topic(name: string): TopicState | undefined {
    return this.cache.topic(name);
  }

  topics(): TopicState[] {
    return [...this.cache.topics()];
  }

  async createTopic(spec: CreateTopicSpec, validateOnly: boolean): Promise<MetadataResult> {
    const [result] = await this.controller.createTopics([{
      name: spec.name,
      numPartitions: spec.numPartitions,
      replicationFactor: spec.replicationFactor,
      ...(spec.assignments === undefined ? {} : { assignments: spec.assignments }),
      configs: Object.entries(spec.configs).map(([name, value]) => ({ name, value })),
    }], { validateOnly });
    if (result!.errorCode === ErrorCode.NOT_CONTROLLER && this.forwardCreateTopic !== undefined) return this.forwardCreateTopic(spec, validateOnly);
    return plain(result!);
  }

  async deleteTopic(name: string): Promise<MetadataResult> {
    const [result] = await this.controller.deleteTopics([name]);
    return plain(result!);
  }

  async createPartitions(name: string, totalCount: number, validateOnly: boolean): Promise<MetadataResult> {
    const [result] = await this.controller.createPartitions([{ name, count: totalCount }], { validateOnly });
    return plain(result!);
  }

  async alterTopicConfigs(name: string, overrides: Readonly<Record<string, string>>, validateOnly: boolean): Promise<MetadataResult> {
    const [result] = await this.controller.alterConfigs([{
      resourceType: ConfigResourceType.TOPIC,
      resourceName: name,
      configs: Object.entries(overrides).map(([key, value]) => ({ name: key, value })),
    }], { validateOnly });
    return plain(result!);
  }

  async alterBrokerConfigs(name: string, configs: readonly { name: string; value: string | null }[], validateOnly: boolean): Promise<MetadataResult> {
    const [result] = await this.controller.alterConfigs([{ resourceType: ConfigResourceType.BROKER, resourceName: name, configs }], { validateOnly });
    return plain(result!);
  }

  async allocateProducerId(): Promise<{ errorCode: number; producerId: number }> {
    const { errorCode, producerId } = await this.producerIds.generateProducerId();
    return { errorCode, producerId };
  }
}

function plain(result: { errorCode: number; errorMessage: string | null }): MetadataResult {
  return { errorCode: result.errorCode, errorMessage: result.errorMessage };
}
