/**
 * The broker's group coordinator: a GroupCoordinator over `__consumer_offsets` (its logs from the
 * LogManager, its appends through the ReplicaManager), with the environment's time and randomness
 * (member ids), and the on-demand creation of `__consumer_offsets` that FindCoordinator and the
 * first group request trigger (Kafka: offsets.topic.num.partitions, offsets.topic.replication.factor, compacted, created once).
 */
import type { ClusterMetadata } from '../api/cluster-metadata.js';
import type { BrokerConfig } from '../config/broker-config.js';
import { GroupCoordinator } from '../coordinator/group-coordinator.js';
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import type { Environment } from '../io/environment.js';
import type { LogManager } from '../log/log-manager.js';
import type { UnifiedLog } from '../log/unified-log.js';
import { componentLogger, type Logger } from '../observability/logger.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { LogOffsetsTopic } from './log-offsets-topic.js';

export interface GroupCoordinatorSetupOptions {
  readonly config: BrokerConfig;
  readonly metadata: ClusterMetadata;
  readonly logManager: LogManager;
  readonly replicaManager: ReplicaManager<UnifiedLog>;
  readonly environment: Environment;
  readonly rootLogger: Logger;
  /** How many unfenced brokers the metadata lists now (caps the offsets topic's replication factor). */
  readonly liveBrokerCount: () => number;
}

/** The coordinator and the offsets-topic creation it shares with the API handlers. */
export interface GroupCoordinatorSetup {
  readonly groupCoordinator: GroupCoordinator;
  /** Creates `__consumer_offsets` unless it exists (concurrent callers share one creation); resolves with a Kafka error code. */
  readonly ensureOffsetsTopic: () => Promise<number>;
}

/** Builds the group coordinator (not started: the broker calls `startup()` once its partitions exist). */
export function createGroupCoordinator(options: GroupCoordinatorSetupOptions): GroupCoordinatorSetup {
  const { config, metadata, logManager, replicaManager, environment, rootLogger } = options;
  let offsetsTopicCreation: Promise<number> | null = null;
  const ensureOffsetsTopic = (): Promise<number> => {
    // A creation under way answers once its partitions are applied here (the cache has the topic
    // before that: a caller that only saw it there would find no coordinator for a few turns).
    if (offsetsTopicCreation !== null) return offsetsTopicCreation;
    if (metadata.topic(OFFSETS_TOPIC_NAME) !== undefined) return Promise.resolve(ErrorCode.NONE);
    // offsets.topic.replication.factor (Kafka's 3) capped by the live brokers, so a single node
    // and a small cluster get their groups working (Kafka refuses until enough brokers register).
    offsetsTopicCreation = metadata.createTopic({
      name: OFFSETS_TOPIC_NAME,
      numPartitions: config.offsetsTopicNumPartitions,
      replicationFactor: Math.max(1, Math.min(config.offsetsTopicReplicationFactor, options.liveBrokerCount())),
      configs: { 'cleanup.policy': 'compact', 'segment.bytes': String(config.offsetsTopicSegmentBytes) },
    }, false).then((result) => {
      offsetsTopicCreation = null;
      return result.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS ? ErrorCode.NONE : result.errorCode;
    });
    return offsetsTopicCreation;
  };
  const logger = componentLogger(rootLogger, 'group-coordinator');
  const groupCoordinator = new GroupCoordinator({
    offsetsTopic: new LogOffsetsTopic({
      replicaManager,
      log: (partition) => logManager.getLog(OFFSETS_TOPIC_NAME, partition),
      ensureTopic: ensureOffsetsTopic,
      logger,
    }),
    time: environment.time,
    random: environment.random,
    maxTimerTasksPerTurn: config.coordinatorMaxTimerTasksPerTurn,
    config: {
      groupMinSessionTimeoutMs: config.groupMinSessionTimeoutMs,
      groupMaxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
      groupInitialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
      groupMaxSize: config.groupMaxSize,
      offsetsTopicNumPartitions: config.offsetsTopicNumPartitions,
      offsetsRetentionMinutes: config.offsetsRetentionMinutes,
      offsetsRetentionCheckIntervalMs: config.offsetsRetentionCheckIntervalMs,
      offsetMetadataMaxBytes: config.offsetMetadataMaxBytes,
    },
    logger,
    // Kafka checks the metadata cache: a partition led by another broker exists too.
    partitionExists: (topic, partition) => metadata.topic(topic)?.partitions[partition] !== undefined,
  });
  return { groupCoordinator, ensureOffsetsTopic };
}
