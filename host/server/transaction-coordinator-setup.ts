/**
 * The broker's transaction coordinator: a TransactionCoordinator over `__transaction_state` (its
 * logs from the LogManager, its appends through the ReplicaManager), producer ids from the
 * controller's blocks, markers through {@link BrokerTxnMarkerWriter}, and the on-demand creation
 * of `__transaction_state` that FindCoordinator and InitProducerId trigger (Kafka:
 * transaction.state.log.num.partitions, .replication.factor, .min.isr, compacted, created once).
 */
import type { ClusterMetadata } from '../api/cluster-metadata.js';
import type { BrokerConfig } from '../config/broker-config.js';
import type { GroupCoordinator } from '../coordinator/group-coordinator.js';
import { TransactionCoordinator } from '../coordinator/transaction-coordinator.js';
import { TRANSACTION_STATE_TOPIC_NAME } from '../coordinator/transaction-topic.js';
import type { Environment } from '../io/environment.js';
import type { LogManager } from '../log/log-manager.js';
import type { UnifiedLog } from '../log/unified-log.js';
import { NodeChannels } from '../network/node-channels.js';
import { componentLogger, type Logger } from '../observability/logger.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { LogOffsetsTopic } from './log-offsets-topic.js';
import type { MetadataCache } from './metadata-cache.js';
import { BrokerTxnMarkerWriter } from './txn-marker-writer.js';

export interface TransactionCoordinatorSetupOptions {
  readonly config: BrokerConfig;
  readonly metadata: ClusterMetadata;
  readonly cache: MetadataCache;
  readonly logManager: LogManager;
  readonly replicaManager: ReplicaManager<UnifiedLog>;
  /**
   * The group coordinator if loaded (null: it holds no transactional offsets to complete; when it
   * loads, it reads the markers from `__consumer_offsets` with the rest of the log).
   */
  readonly groupCoordinator: () => GroupCoordinator | null;
  readonly environment: Environment;
  readonly rootLogger: Logger;
  /** How many unfenced brokers the metadata lists now (caps the topic's replication factor). */
  readonly liveBrokerCount: () => number;
}

/** The coordinator, the topic creation it shares with the API handlers, and what closes its connections. */
export interface TransactionCoordinatorSetup {
  readonly transactionCoordinator: TransactionCoordinator;
  /** Creates `__transaction_state` unless it exists (concurrent callers share one creation); resolves with a Kafka error code. */
  readonly ensureTransactionStateTopic: () => Promise<number>;
  /** Stops the coordinator and closes its marker connections. */
  shutdown(): void;
}

/** Kafka's request.timeout.ms default: how long one marker write may take before it is retried. */
const MARKER_REQUEST_TIMEOUT_MS = 30_000;

/** Builds the transaction coordinator (not started: the broker calls `startup()` with the group coordinator's). */
export function createTransactionCoordinator(options: TransactionCoordinatorSetupOptions): TransactionCoordinatorSetup {
  const { config, metadata, cache, logManager, replicaManager, environment, rootLogger } = options;
  let creation: Promise<number> | null = null;
  const ensureTransactionStateTopic = (): Promise<number> => {
    // A creation under way answers once its partitions are applied here (the cache has the topic
    // before that: a caller that only saw it there would find no coordinator for a few turns).
    if (creation !== null) return creation;
    if (metadata.topic(TRANSACTION_STATE_TOPIC_NAME) !== undefined) return Promise.resolve(ErrorCode.NONE);
    const replicationFactor = Math.max(1, Math.min(config.transactionStateLogReplicationFactor, options.liveBrokerCount()));
    creation = metadata.createTopic({
      name: TRANSACTION_STATE_TOPIC_NAME,
      numPartitions: config.transactionStateLogNumPartitions,
      replicationFactor,
      configs: {
        'cleanup.policy': 'compact',
        'segment.bytes': String(config.transactionStateLogSegmentBytes),
        'min.insync.replicas': String(Math.min(config.transactionStateLogMinIsr, replicationFactor)),
        'unclean.leader.election.enable': 'false',
      },
    }, false).then((result) => {
      creation = null;
      return result.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS ? ErrorCode.NONE : result.errorCode;
    });
    return creation;
  };
  const logger = componentLogger(rootLogger, 'transaction-coordinator');
  const channels = new NodeChannels({
    clientId: `broker-${config.nodeId}-txn-markers`,
    time: environment.time,
    random: environment.random,
    network: environment.network,
    requestTimeoutMs: MARKER_REQUEST_TIMEOUT_MS,
  });
  const markerWriter = new BrokerTxnMarkerWriter({
    nodeId: config.nodeId,
    leaderOf: (topic, partition) => cache.partition(topic, partition)?.leaderId,
    endpointOf: (brokerId) => {
      const found = cache.broker(brokerId)?.endpoints.find((candidate) => candidate.name === config.interBrokerListenerName);
      return found === undefined ? undefined : { host: found.host, port: found.port };
    },
    appendTxnMarkers: (markers, timeoutMs) => replicaManager.appendTxnMarkers(markers, timeoutMs),
    channels,
    requestTimeoutMs: MARKER_REQUEST_TIMEOUT_MS,
    onOffsetsMarkers: (producerId, partitions, result) => options.groupCoordinator()?.onTransactionCompleted(producerId, partitions, result),
  });
  const transactionCoordinator = new TransactionCoordinator({
    transactionLog: new LogOffsetsTopic({
      replicaManager,
      topic: TRANSACTION_STATE_TOPIC_NAME,
      log: (partition) => logManager.getLog(TRANSACTION_STATE_TOPIC_NAME, partition),
      ensureTopic: ensureTransactionStateTopic,
      logger,
    }),
    time: environment.time,
    maxTimerTasksPerTurn: config.coordinatorMaxTimerTasksPerTurn,
    allocateProducerId: () => metadata.allocateProducerId(),
    markerWriter,
    config: {
      transactionStateLogNumPartitions: config.transactionStateLogNumPartitions,
      transactionMaxTimeoutMs: config.transactionMaxTimeoutMs,
      transactionalIdExpirationMs: config.transactionalIdExpirationMs,
      transactionAbortTimedOutTransactionCleanupIntervalMs: config.transactionAbortTimedOutTransactionCleanupIntervalMs,
      transactionRemoveExpiredTransactionCleanupIntervalMs: config.transactionRemoveExpiredTransactionCleanupIntervalMs,
    },
    logger,
  });
  return {
    transactionCoordinator,
    ensureTransactionStateTopic,
    shutdown(): void {
      transactionCoordinator.shutdown();
      channels.close();
    },
  };
}
