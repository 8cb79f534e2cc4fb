/**
 * Kafka's BrokerMetadataPublisher, in small: it hears the committed metadata changes (a
 * {@link MetadataListener} on the controller's metadata listener today; on the replicated
 * metadata log's replay once brokers and controllers are separate), writes them into the broker's
 * {@link MetadataCache}, and applies the topic changes to this broker's storage and partitions:
 *
 *   topic created / partitions added / moved / configs changed
 *       → logs created where missing (one batch), log configs updated, and for every partition
 *         this broker leads (leaderId === nodeId) a leader Partition in the ReplicaManager
 *         (the place where "become follower" goes with replication)
 *       → `__consumer_offsets` created: the group coordinator loads its partitions; partitions
 *         added to a topic: the coordinator re-checks the groups subscribed to it
 *   topic deleted → partitions removed, logs deleted (one checkpoint write), groups told
 *   broker registered / fenced / unregistered → the cache's broker list
 *
 * Order: {@link start} loads the cache from the first image without touching storage; the
 * broker then sets aside stray logs and calls {@link applyAllTopics}; changes published in
 * between (the broker's own registration electing it leader) are applied as they come, as before.
 */
import type { TopicState } from '../api/cluster-metadata.js';
import type { BrokerConfig } from '../config/broker-config.js';
import { toLogConfig } from '../config/topic-config.js';
import type { GroupCoordinator } from '../coordinator/group-coordinator.js';
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import type { BrokerRegistration, ConfigResource, MetadataImage, TopicImage } from '../controller/metadata-image.js';
import type { MetadataListener, PartitionsChange } from '../controller/metadata-listener.js';
import { ConfigResourceType } from '../controller/metadata-records.js';
import type { Disk } from '../io/disk.js';
import type { LogManager } from '../log/log-manager.js';
import { ProducerStateManager } from '../log/producer-state-manager.js';
import type { UnifiedLog } from '../log/unified-log.js';
import type { Logger } from '../observability/logger.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { MetadataCache } from './metadata-cache.js';

/** What one change did to a topic (Kafka's TopicDelta, reduced to what the broker applies). */
export interface TopicDelta {
  readonly name: string;
  /** Null when the topic was created. */
  readonly before: TopicState | null;
  /** Null when the topic was deleted. */
  readonly after: TopicState | null;
}

export interface BrokerMetadataPublisherOptions {
  readonly config: BrokerConfig;
  readonly cache: MetadataCache;
  readonly logManager: LogManager;
  readonly replicaManager: ReplicaManager<UnifiedLog>;
  readonly groupCoordinator: GroupCoordinator;
  /** Where the Partitions' producer-state snapshots are read and written. */
  readonly producerStateDisk: Disk;
  readonly logger: Logger;
}

/** Applies published metadata to the broker's cache, logs and partitions. */
export class BrokerMetadataPublisher implements MetadataListener {
  private readonly config: BrokerConfig;
  private readonly cache: MetadataCache;
  private readonly logManager: LogManager;
  private readonly replicaManager: ReplicaManager<UnifiedLog>;
  private readonly groupCoordinator: GroupCoordinator;
  private readonly producerStateDisk: Disk;
  private readonly logger: Logger;

  constructor(options: BrokerMetadataPublisherOptions) {
    this.config = options.config;
    this.cache = options.cache;
    this.logManager = options.logManager;
    this.replicaManager = options.replicaManager;
    this.groupCoordinator = options.groupCoordinator;
    this.producerStateDisk = options.producerStateDisk;
    this.logger = options.logger;
  }

  /** Loads the cache from the first image (storage untouched: see {@link applyAllTopics}). */
  start(image: MetadataImage, controllerId: number): void {
    this.cache.loadImage(image, controllerId);
  }

  /** Applies every topic in the cache to local storage and partitions (start-up). */
  applyAllTopics(): void {
    for (const topic of this.cache.topics()) this.applyTopic(topic);
  }

  // ---- MetadataListener: the controller's committed changes ----

  onTopicCreated(topic: TopicImage, image: MetadataImage): void {
    const after = this.cache.putTopic(topic, image.topicConfigs(topic.name));
    this.publishTopicDelta({ name: topic.name, before: null, after });
  }

  onTopicDeleted(topic: TopicImage): void {
    const before = this.cache.removeTopic(topic.name);
    if (before !== undefined) this.publishTopicDelta({ name: topic.name, before, after: null });
  }

  onPartitionsChanged(topic: TopicImage, change: PartitionsChange, image: MetadataImage): void {
    const after = this.cache.putTopic(topic, image.topicConfigs(topic.name));
    const before: TopicState = { ...after, partitions: after.partitions.slice(0, change.previousPartitionCount) };
    this.publishTopicDelta({ name: topic.name, before, after });
  }

  onConfigChanged(resource: ConfigResource, configs: ReadonlyMap<string, string>, image: MetadataImage): void {
    if (resource.type !== ConfigResourceType.TOPIC) return;
    const topic = image.topic(resource.name);
    if (topic === undefined) return;
    const after = this.cache.putTopic(topic, configs);
    this.publishTopicDelta({ name: topic.name, before: after, after });
  }

  onBrokerChanged(brokerId: number, registration: BrokerRegistration | undefined): void {
    this.cache.putBroker(brokerId, registration);
  }

  // ---- applying to storage ----

  /** Applies one topic change (the cache has it already). */
  publishTopicDelta(delta: TopicDelta): void {
    const { name, before, after } = delta;
    if (after !== null) {
      this.applyTopic(after);
      if (before === null) {
        this.logger.info({ event: 'topic.created', topic: name, partitions: after.partitions.length }, `topic ${name} created`);
        if (name === OFFSETS_TOPIC_NAME) this.groupCoordinator.loadAllPartitions();
      } else if (after.partitions.length > before.partitions.length) {
        this.logger.info({ event: 'topic.partitions_added', topic: name, partitions: after.partitions.length },
          `topic ${name} now has ${after.partitions.length} partitions`);
        this.groupCoordinator.onTopicPartitionsChanged([name]);
      }
      return;
    }
    if (before !== null) {
      for (const partition of before.partitions) this.replicaManager.removePartition(name, partition.partition);
      // One checkpoint write for the whole topic, not one per partition.
      this.logManager.deleteLogs(before.partitions.map((partition) => ({ topic: name, partition: partition.partition })));
      this.groupCoordinator.onTopicsDeleted([name]);
      this.logger.info({ event: 'topic.deleted', topic: name }, `topic ${name} deleted`);
    }
  }

  /**
   * Makes this broker the leader of every partition of `topic` it leads: creates missing logs,
   * updates log configs, and hands the ReplicaManager a leader Partition (with producer state
   * recovered from the partition directory when the log is new to it).
   */
  private applyTopic(topic: TopicState): void {
    const nodeId = this.config.nodeId;
    const logConfig = toLogConfig(topic.configs, this.config);
    // Missing logs are created in one batch (one fsync of the log directory for all of them).
    this.logManager.getOrCreateLogs(topic.partitions
      .filter((partition) => partition.leaderId === nodeId)
      .map((partition) => ({ topic: topic.name, partition: partition.partition, config: logConfig })));
    for (const partition of topic.partitions) {
      if (partition.leaderId !== nodeId) continue;
      const log = this.logManager.getOrCreateLog(topic.name, partition.partition, logConfig);
      log.updateConfig(logConfig);
      const existing = this.replicaManager.getPartition(topic.name, partition.partition);
      this.replicaManager.becomeLeader({
        topic: topic.name,
        partition: partition.partition,
        log,
        leaderEpoch: partition.leaderEpoch,
        replicas: partition.replicas,
        // UnifiedLog keeps no producer state itself: the Partition owns it (recovered from the
        // partition directory's snapshots and the log tail), which makes idempotent retries
        // answer with their original offsets, also across restarts.
        ...(existing?.log === log ? {} : {
          producerState: new ProducerStateManager({
            dir: log.dir,
            disk: this.producerStateDisk,
            producerIdExpirationMs: this.config.producerIdExpirationMs,
          }),
        }),
      });
    }
  }
}
