/**
 * QuorumController: Kafka's KRaft controller for the embedded single-node case (process.roles =
 * broker,controller), shaped so a multi-node quorum can come later.
 *
 * The control logic lives in Kafka's managers, state machines without I/O that answer an
 * operation with `{ records, response }` (controller-result.ts): ClusterControlManager (brokers),
 * ReplicationControlManager (topics, partitions), ConfigurationControlManager (configs),
 * ProducerIdControlManager (producer id blocks). The QuorumController runs them and owns the
 * path every change follows:
 *
 * ```
 * request ──manager validates against the image──► { records, response } ──MetadataLog.append
 *         (one atomic batch)──► MetadataImage.replay, record by record ──► listeners ──► response
 * ```
 *
 * Nothing changes the image except replay of a record that is in the log, so replaying the log at
 * start-up rebuilds the same image. The controller has no I/O of its own: the log, the clock and
 * randomness (topic ids, replica placement) are injected, and every call is synchronous.
 *
 * Client input is validated and answered with Kafka error codes (values, never exceptions).
 * A failure to append to the metadata log (disk failure) answers KAFKA_STORAGE_ERROR (56) and
 * puts the controller in a failed state where every later change answers the same: the image may
 * no longer match what is on disk, so only a restart (replaying the log) may continue.
 */
import type { Clock } from '../io/clock.js';
import { SystemClock } from '../io/clock.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  ClusterControlManager,
  type RegisterBrokerRequest,
  type RegisterBrokerResult,
} from './cluster-control-manager.js';
import {
  type AlterConfigsRequest,
  type AlterConfigsResult,
  ConfigurationControlManager,
  type IncrementalAlterConfigsRequest,
} from './configuration-control-manager.js';
import {
  type ApiError,
  type ControllerResult,
  type FailedResponse,
  METADATA_VERSION_LEVEL,
  NONE,
  controllerAssert as assert,
  emptyRecord,
  fail,
  failedResult,
  failedResults,
} from './controller-result.js';
import {
  type BrokerEndpoint,
  type BrokerRegistration,
  type ConfigResource,
  MetadataImage,
  MetadataReplayError,
  type PartitionRegistration,
  type TopicImage,
} from './metadata-image.js';
import { BatchChanges, type MetadataListener } from './metadata-listener.js';
import { type MetadataLog, MetadataLogError } from './metadata-log.js';
import {
  type MetadataRecord,
  MetadataRecordError,
  decodeMetadataRecord,
  encodeMetadataRecord,
  metadataRecord,
} from './metadata-records.js';
import { ProducerIdControlManager, type ProducerIdBlockResult } from './producer-id-control-manager.js';
import { type ReplicaPlacer, RoundRobinReplicaPlacer } from './replica-placer.js';
import {
  type CreatePartitionsRequest,
  type CreatePartitionsResult,
  type CreateTopicRequest,
  type CreateTopicResult,
  type DeleteTopicResult,
  ReplicationControlManager,
} from './replication-control-manager.js';
import { type RandomSource, ZERO_TOPIC_ID, cryptoRandomSource } from './topic-id.js';

export { AlterConfigOp } from './configuration-control-manager.js';
export { METADATA_VERSION_LEVEL } from './controller-result.js';
export { PRODUCER_ID_BLOCK_SIZE } from './producer-id-control-manager.js';
export { MAX_NEW_PARTITIONS_PER_REQUEST } from './replication-control-manager.js';
export type { ApiError, ControllerResult } from './controller-result.js';
export type { RegisterBrokerRequest, RegisterBrokerResult } from './cluster-control-manager.js';
export type { AlterConfigsRequest, AlterConfigsResult, IncrementalAlterConfigsRequest } from './configuration-control-manager.js';
export type { MetadataListener, PartitionsChange } from './metadata-listener.js';
export type { ProducerIdBlockResult } from './producer-id-control-manager.js';
export type {
  CreatePartitionsRequest, CreatePartitionsResult, CreateTopicRequest, CreateTopicResult, DeleteTopicResult,
} from './replication-control-manager.js';
export type { BrokerEndpoint, BrokerRegistration, ConfigResource, PartitionRegistration, TopicImage };

/** The broker configs the controller follows (a BrokerConfig fits). */
export interface ControllerConfig {
  /** node.id: this controller's (and, combined, its broker's) id. */
  readonly nodeId: number;
  /** num.partitions: partitions of a topic created with numPartitions -1. */
  readonly numPartitions: number;
  /** default.replication.factor: replication factor of a topic created with -1. */
  readonly defaultReplicationFactor: number;
  /** delete.topic.enable: DeleteTopics answers TOPIC_DELETION_DISABLED (73) when false. */
  readonly deleteTopicEnable: boolean;
}

export interface QuorumControllerOptions {
  readonly config: ControllerConfig;
  /** The metadata log; replayed in the constructor. */
  readonly log: MetadataLog;
  /** Default SystemClock. */
  readonly clock?: Clock;
  /** Topic ids, incarnation ids and placement starts; default node:crypto. */
  readonly random?: RandomSource;
  /** Default RoundRobinReplicaPlacer driven by `random`. */
  readonly replicaPlacer?: ReplicaPlacer;
}

/** The failed form of a CreateTopics item: no id, no partitions, no configs. */
const failedCreateTopics = failedResults<CreateTopicResult>((r, error) => ({
  ...r, ...error, topicId: ZERO_TOPIC_ID, numPartitions: -1, replicationFactor: -1, configs: emptyRecord(),
}));
const failedDeleteTopics = failedResults<DeleteTopicResult>((r, error) => ({ ...r, ...error, topicId: ZERO_TOPIC_ID }));
const failedRegistration = failedResult<RegisterBrokerResult>((r, error) => ({ ...r, ...error, brokerEpoch: -1 }));
const failedProducerIds = failedResult<ProducerIdBlockResult>((r, error) => ({ ...r, ...error, producerIdStart: -1, producerIdLen: 0 }));
const failedPlain = failedResult<ApiError>((r, error) => ({ ...r, ...error }));

export class QuorumController {
  private readonly config: ControllerConfig;
  private readonly log: MetadataLog;
  private readonly random: RandomSource;
  private readonly listeners: MetadataListener[] = [];
  private readonly metadataImage = new MetadataImage();
  private readonly cluster: ClusterControlManager;
  private readonly replication: ReplicationControlManager;
  private readonly configuration: ConfigurationControlManager;
  private readonly producerIds: ProducerIdControlManager;
  /** Offset of the last record replayed, -1 before any. */
  private lastAppliedOffset = -1;
  private failure: string | null = null;
  /** Injected time; kept for broker session timeouts once brokers heartbeat (multi-node). */
  readonly clock: Clock;

  /**
   * Replays the whole metadata log into the image and, on an empty log, writes the bootstrap
   * records (FeatureLevelRecord metadata.version).
   * @throws MetadataRecordError / MetadataReplayError when the log holds a record that cannot be
   *   decoded or applied (corrupt metadata: the broker must not start on it)
   * @throws MetadataLogError when the log cannot be read or the bootstrap cannot be written
   */
  constructor(options: QuorumControllerOptions) {
    this.config = options.config;
    this.log = options.log;
    this.clock = options.clock ?? new SystemClock();
    this.random = options.random ?? cryptoRandomSource;
    const latest = (): MetadataImage => this.metadataImage;
    this.replication = new ReplicationControlManager({
      config: this.config,
      latest,
      random: this.random,
      replicaPlacer: options.replicaPlacer ?? new RoundRobinReplicaPlacer((bound) => this.nextInt(bound)),
    });
    this.cluster = new ClusterControlManager({ latest, nextOffset: () => this.log.endOffset(), random: this.random, replication: this.replication });
    this.configuration = new ConfigurationControlManager(latest);
    this.producerIds = new ProducerIdControlManager(latest, this.cluster);
    for (const entry of this.log.readAll()) {
      let record: MetadataRecord;
      try {
        record = decodeMetadataRecord(entry.value);
        this.replay(record);
      } catch (error) {
        if (error instanceof MetadataRecordError || error instanceof MetadataReplayError) {
          error.message = `metadata log offset ${entry.offset}: ${error.message}`;
        }
        throw error;
      }
      assert(entry.offset > this.lastAppliedOffset, `metadata log offsets go back at ${entry.offset}`);
      this.lastAppliedOffset = entry.offset;
    }
    if (this.metadataImage.featureLevel('metadata.version') === undefined) {
      const result = this.commit([
        metadataRecord('FeatureLevelRecord', 0, { name: 'metadata.version', featureLevel: METADATA_VERSION_LEVEL }),
      ]);
      if (result.errorCode !== ErrorCode.NONE) throw new MetadataLogError(`cannot bootstrap the metadata log: ${result.errorMessage}`);
    }
  }

  /** The current metadata image (changes as records are committed; its snapshots do not). */
  get image(): MetadataImage {
    return this.metadataImage;
  }

  /** This controller's node id (Metadata's controller id). */
  get nodeId(): number {
    return this.config.nodeId;
  }

  /** Offset of the last record in the image, -1 for none. */
  get lastCommittedOffset(): number {
    return this.lastAppliedOffset;
  }

  /** Why the controller stopped accepting changes (a metadata log failure), or null. */
  get failedReason(): string | null {
    return this.failure;
  }

  /** Adds a listener; returns a function that removes it. */
  addListener(listener: MetadataListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Operations: each runs a manager and writes what it returns (errors: the manager's, plus
  // KAFKA_STORAGE_ERROR 56 when the metadata log fails).

  /** {@link ClusterControlManager.registerBroker}. */
  registerBroker(request: RegisterBrokerRequest): RegisterBrokerResult {
    return this.perform(() => this.cluster.registerBroker(request), failedRegistration);
  }

  /** {@link ClusterControlManager.unfenceBroker}. */
  unfenceBroker(brokerId: number, brokerEpoch: number): ApiError {
    return this.perform(() => this.cluster.unfenceBroker(brokerId, brokerEpoch), failedPlain);
  }

  /** {@link ClusterControlManager.fenceBroker}. */
  fenceBroker(brokerId: number, brokerEpoch: number): ApiError {
    return this.perform(() => this.cluster.fenceBroker(brokerId, brokerEpoch), failedPlain);
  }

  /** {@link ClusterControlManager.unregisterBroker}. */
  unregisterBroker(brokerId: number): ApiError {
    return this.perform(() => this.cluster.unregisterBroker(brokerId), failedPlain);
  }

  /** {@link ReplicationControlManager.createTopics}; the created topics are one batch. */
  createTopics(topics: readonly CreateTopicRequest[], options: { validateOnly?: boolean } = {}): CreateTopicResult[] {
    return this.perform(() => this.replication.createTopics(topics, options), failedCreateTopics);
  }

  /** {@link ReplicationControlManager.deleteTopics}; the deletions are one batch. */
  deleteTopics(names: readonly string[]): DeleteTopicResult[] {
    return this.perform(() => this.replication.deleteTopics(names), failedDeleteTopics);
  }

  /** {@link ReplicationControlManager.createPartitions}; the new partitions are one batch. */
  createPartitions(topics: readonly CreatePartitionsRequest[], options: { validateOnly?: boolean } = {}): CreatePartitionsResult[] {
    return this.perform(() => this.replication.createPartitions(topics, options), failedResults<CreatePartitionsResult>());
  }

  /** {@link ConfigurationControlManager.alterConfigs}. */
  alterConfigs(resources: readonly AlterConfigsRequest[], options: { validateOnly?: boolean } = {}): AlterConfigsResult[] {
    return this.perform(() => this.configuration.alterConfigs(resources, options), failedResults<AlterConfigsResult>());
  }

  /** {@link ConfigurationControlManager.incrementalAlterConfigs}. */
  incrementalAlterConfigs(resources: readonly IncrementalAlterConfigsRequest[], options: { validateOnly?: boolean } = {}): AlterConfigsResult[] {
    return this.perform(() => this.configuration.incrementalAlterConfigs(resources, options), failedResults<AlterConfigsResult>());
  }

  /** {@link ProducerIdControlManager.allocateProducerIds}. */
  allocateProducerIds(brokerId: number, brokerEpoch: number): ProducerIdBlockResult {
    return this.perform(() => this.producerIds.allocateProducerIds(brokerId, brokerEpoch), failedProducerIds);
  }

  // ---------------------------------------------------------------------------------------------
  // Internals

  /**
   * Runs `operation` on the current state and commits its records as one batch (nothing to do
   * without any); when the commit fails, the answer is `failed(response, error)`.
   */
  private perform<T>(operation: () => ControllerResult<T>, failed: FailedResponse<T>): T {
    const { records, response } = operation();
    if (records.length === 0) return response;
    const commit = this.commit(records);
    return commit.errorCode === ErrorCode.NONE ? response : failed(response, commit, false);
  }

  /** Uniform integer in [0, bound) from the injected randomness. */
  private nextInt(bound: number): number {
    const bytes = new Uint8Array(4);
    this.random.fill(bytes);
    const value = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
    return value % bound;
  }

  /** Applies one record to the state through the manager that owns its type. */
  private replay(record: MetadataRecord): void {
    switch (record.type) {
      case 'RegisterBrokerRecord':
      case 'UnregisterBrokerRecord':
      case 'FenceBrokerRecord':
      case 'UnfenceBrokerRecord':
      case 'BrokerRegistrationChangeRecord':
        return this.cluster.replay(record);
      case 'TopicRecord':
      case 'PartitionRecord':
      case 'PartitionChangeRecord':
      case 'RemoveTopicRecord':
        return this.replication.replay(record);
      case 'ConfigRecord':
        return this.configuration.replay(record);
      case 'ProducerIdsRecord':
        return this.producerIds.replay(record);
      case 'FeatureLevelRecord':
      case 'NoOpRecord':
        return this.metadataImage.replay(record);
    }
  }

  /**
   * Appends `records` to the metadata log as one batch, replays them into the image and tells
   * the listeners. Answers KAFKA_STORAGE_ERROR (56) when the log fails (then and afterwards).
   */
  private commit(records: readonly MetadataRecord[]): ApiError {
    assert(records.length > 0, 'a commit has records');
    if (this.failure !== null) return fail(ErrorCode.KAFKA_STORAGE_ERROR, this.failure);
    const values = records.map(encodeMetadataRecord);
    let baseOffset: number;
    try {
      baseOffset = this.log.append(values);
    } catch (error) {
      if (!(error instanceof MetadataLogError)) throw error;
      if (error.errorCode === ErrorCode.KAFKA_STORAGE_ERROR) {
        this.failure = `The metadata log failed; restart the broker once the disk is healthy (${error.message}).`;
        return fail(ErrorCode.KAFKA_STORAGE_ERROR, this.failure);
      }
      return fail(error.errorCode, `The metadata log refused the change: ${error.message}`);
    }
    assert(baseOffset > this.lastAppliedOffset, 'metadata log offsets grow');
    const changes = new BatchChanges();
    for (const record of records) {
      changes.note(record, this.metadataImage);
      this.replay(record);
    }
    this.lastAppliedOffset = baseOffset + records.length - 1;
    changes.publish(this.listeners, this.metadataImage);
    return NONE;
  }
}
