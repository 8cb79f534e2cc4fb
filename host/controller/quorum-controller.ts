/**
 * QuorumController: Kafka's KRaft controller for the embedded single-node case (process.roles =
 * broker,controller), shaped so a multi-node quorum can come later.
 *
 * Every operation follows one path, as in Kafka's QuorumController:
 *
 * ```
 * request ──validate against the image──► records ──MetadataLog.append (one atomic batch)──►
 *         ──MetadataImage.replay, record by record──► listeners (onTopicCreated, ...)
 * ```
 *
 * Nothing changes the image except replay of a record that is in the log, so replaying the log at
 * start-up rebuilds the same image. The controller has no I/O of its own: the log, the clock and
 * randomness (topic ids, replica placement) are injected, and every call is synchronous.
 *
 * Broker registrations move through Kafka's states (the records written in brackets):
 *
 * ```
 * (unregistered) ──registerBroker(fenced) [RegisterBrokerRecord]──────────────► FENCED
 * (unregistered) ──registerBroker [RegisterBrokerRecord, PartitionChange*]────► UNFENCED
 * FENCED   ──unfenceBroker [BrokerRegistrationChangeRecord, PartitionChange*]─► UNFENCED
 * UNFENCED ──fenceBroker / registerBroker(fenced) [.., PartitionChange*]───────► FENCED
 * FENCED | UNFENCED ──registerBroker──► a new registration (new epoch), as above
 * FENCED | UNFENCED ──unregisterBroker [PartitionChange*, UnregisterBrokerRecord]──► (unregistered)
 * ```
 *
 * Only UNFENCED brokers lead, join new ISRs or take new replicas.
 *
 * Client input is validated and answered with Kafka error codes (values, never exceptions).
 * A failure to append to the metadata log (disk failure) answers KAFKA_STORAGE_ERROR (56) and
 * puts the controller in a failed state where every later change answers the same: the image may
 * no longer match what is on disk, so only a restart (replaying the log) may continue.
 */
import { BROKER_CONFIG_DEF_BY_NAME } from '../config/broker-config.js';
import { suggestConfigNames } from '../config/config-def.js';
import { TOPIC_CONFIG_DEF_BY_NAME, validateTopicConfigs } from '../config/topic-config.js';
import type { Clock } from '../io/clock.js';
import { SystemClock } from '../io/clock.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  type BrokerEndpoint,
  type BrokerRegistration,
  type ConfigResource,
  MetadataImage,
  MetadataReplayError,
  NO_LEADER,
  NO_LEADER_CHANGE,
  type PartitionRegistration,
  type TopicImage,
} from './metadata-image.js';
import { type MetadataLog, MetadataLogError } from './metadata-log.js';
import {
  ConfigResourceType,
  type MetadataRecord,
  MetadataRecordError,
  decodeMetadataRecord,
  encodeMetadataRecord,
  metadataRecord,
} from './metadata-records.js';
import { type ReplicaPlacer, RoundRobinReplicaPlacer } from './replica-placer.js';
import { type RandomSource, ZERO_TOPIC_ID, cryptoRandomSource, randomTopicId } from './topic-id.js';
import { CLUSTER_METADATA_TOPIC_NAME, topicCollisionKey, topicNameProblem } from './topic-name.js';

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
  /** Topic ids and placement starts; default node:crypto. */
  readonly random?: RandomSource;
  /** Default RoundRobinReplicaPlacer driven by `random`. */
  readonly replicaPlacer?: ReplicaPlacer;
}

/** Kafka error code and message (null when NONE). */
export interface ControllerResult {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/** One topic of CreateTopics (the CreatableTopic fields). */
export interface CreateTopicRequest {
  readonly name: string;
  /** -1: num.partitions (only -1 together with `assignments`). */
  readonly numPartitions: number;
  /** -1: default.replication.factor (only -1 together with `assignments`). */
  readonly replicationFactor: number;
  /** Manual assignment: partition index -> broker ids; empty/absent for automatic placement. */
  readonly assignments?: readonly { readonly partitionIndex: number; readonly brokerIds: readonly number[] }[];
  /** Topic config overrides; null values are refused (INVALID_CONFIG), as in Kafka. */
  readonly configs?: readonly { readonly name: string; readonly value: string | null }[];
}

export interface CreateTopicResult extends ControllerResult {
  readonly name: string;
  /** The new topic's id (32 hex digits); all zeros on error and for validateOnly. */
  readonly topicId: string;
  /** The partition count the topic has (or would have); -1 on error. */
  readonly numPartitions: number;
  /** The replication factor the topic has (or would have); -1 on error. */
  readonly replicationFactor: number;
  /** The topic's config overrides as stored; empty on error. */
  readonly configs: Readonly<Record<string, string>>;
}

export interface DeleteTopicResult extends ControllerResult {
  readonly name: string;
  /** The deleted topic's id; all zeros on error. */
  readonly topicId: string;
}

/** One topic of CreatePartitions. */
export interface CreatePartitionsRequest {
  readonly name: string;
  /** The new total partition count. */
  readonly count: number;
  /** Broker ids for each new partition; null/absent for automatic placement. */
  readonly assignments?: readonly { readonly brokerIds: readonly number[] }[] | null;
}

export interface CreatePartitionsResult extends ControllerResult {
  readonly name: string;
}

/** One resource of AlterConfigs: its configs replace all of its current overrides. */
export interface AlterConfigsRequest {
  /** ConfigResourceType.TOPIC (2) or ConfigResourceType.BROKER (4). */
  readonly resourceType: number;
  readonly resourceName: string;
  readonly configs: readonly { readonly name: string; readonly value: string | null }[];
}

/** Kafka's AlterConfigOp.OpType codes (IncrementalAlterConfigs, KIP-339). */
export const AlterConfigOp = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

/** One resource of IncrementalAlterConfigs: each config is changed by its operation, the others are kept. */
export interface IncrementalAlterConfigsRequest {
  /** ConfigResourceType.TOPIC (2) or ConfigResourceType.BROKER (4). */
  readonly resourceType: number;
  readonly resourceName: string;
  readonly configs: readonly {
    readonly name: string;
    /** AlterConfigOp: SET 0, DELETE 1, APPEND 2, SUBTRACT 3. */
    readonly configOperation: number;
    readonly value: string | null;
  }[];
}

export interface AlterConfigsResult extends ControllerResult {
  readonly resourceType: number;
  readonly resourceName: string;
}

/** A broker registering itself (Kafka's BrokerRegistrationRequest, reduced). */
export interface RegisterBrokerRequest {
  readonly brokerId: number;
  /** 32 hex digits identifying this process start; random when absent. */
  readonly incarnationId?: string;
  readonly endpoints: readonly BrokerEndpoint[];
  readonly rack?: string | null;
  /**
   * Register fenced (Kafka's way: a heartbeat unfences once the broker caught up) or, default for
   * the embedded case, unfenced at once: a combined node is caught up by construction.
   */
  readonly fenced?: boolean;
}

export interface RegisterBrokerResult extends ControllerResult {
  /** The new registration's epoch (the offset of its RegisterBrokerRecord); -1 on error. */
  readonly brokerEpoch: number;
}

/** A block of producer ids (Kafka's AllocateProducerIds response). */
export interface ProducerIdBlockResult extends ControllerResult {
  /** First id of the block; -1 on error. */
  readonly producerIdStart: number;
  /** Ids in the block (PRODUCER_ID_BLOCK_SIZE); 0 on error. */
  readonly producerIdLen: number;
}

/** What changed in the partitions of an existing topic. */
export interface PartitionsChange {
  /** The partition count before (new partitions are ids previousPartitionCount .. count-1). */
  readonly previousPartitionCount: number;
  /** Partitions added or changed (leader, ISR, replicas), ascending. */
  readonly changedPartitionIds: readonly number[];
}

/**
 * Hears every committed change, after the image has it. Called synchronously inside the
 * operation that made the change; deletions first, then creations, partition changes, config
 * changes, broker changes. A listener must not call back into the controller's writing methods.
 * An exception from a listener is a bug: the others still run, then the first one is rethrown
 * (the change itself is committed).
 */
export interface MetadataListener {
  /** A topic and its partitions were created (its configs are in the image already). */
  onTopicCreated?(topic: TopicImage, image: MetadataImage): void;
  /** A topic was deleted; `topic` is how it was just before. Its configs are gone too. */
  onTopicDeleted?(topic: TopicImage, image: MetadataImage): void;
  /** Partitions were added to an existing topic, or their leader/ISR/replicas changed. */
  onPartitionsChanged?(topic: TopicImage, change: PartitionsChange, image: MetadataImage): void;
  /** The overrides of a topic (not a just-created one) or a broker resource changed. */
  onConfigChanged?(resource: ConfigResource, configs: ReadonlyMap<string, string>, image: MetadataImage): void;
  /** A broker registered, was fenced/unfenced, or unregistered (`registration` undefined). */
  onBrokerChanged?(brokerId: number, registration: BrokerRegistration | undefined, image: MetadataImage): void;
}

/** Producer ids per AllocateProducerIds block (Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE). */
export const PRODUCER_ID_BLOCK_SIZE = 1000;
/**
 * Bound on partitions created by one request (CreateTopics across its topics, or
 * CreatePartitions), so one request's records stay a bounded metadata batch (~60 bytes each).
 */
export const MAX_NEW_PARTITIONS_PER_REQUEST = 100_000;
/** The metadata.version this controller writes records for (Kafka's IBP_3_6_IV2): RegisterBrokerRecord v2, PartitionRecord v0. */
export const METADATA_VERSION_LEVEL = 14;
/** Versions of the records this controller writes. */
const RECORD_VERSION = { RegisterBrokerRecord: 2, PartitionRecord: 0, PartitionChangeRecord: 0, BrokerRegistrationChangeRecord: 1 } as const;

const NONE: ControllerResult = Object.freeze({ errorCode: ErrorCode.NONE, errorMessage: null });
const LARGEST_PRODUCER_ID = Number.MAX_SAFE_INTEGER;

function fail(errorCode: number, errorMessage: string): ControllerResult {
  return { errorCode, errorMessage };
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`QuorumController assertion failed: ${message}`);
}

function emptyRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/** The keys that occur more than once in `items` (Kafka answers every copy INVALID_REQUEST). */
function duplicateKeys<T>(items: readonly T[], key: (item: T) => string): Set<string> {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) duplicates.add(k);
    else seen.add(k);
  }
  return duplicates;
}

/** A config resource's identity within one request. */
function resourceKey(resource: { readonly resourceType: number; readonly resourceName: string }): string {
  return `${resource.resourceType}:${resource.resourceName}`;
}

/** What one committed batch changed, for the listeners. */
interface BatchEffects {
  deleted: TopicImage[];
  created: Set<string>;
  /** topic id -> previous partition count and changed ids */
  partitions: Map<string, { previousPartitionCount: number; changed: Set<number> }>;
  configs: Map<string, ConfigResource>;
  brokers: Set<number>;
}

export class QuorumController {
  private readonly config: ControllerConfig;
  private readonly log: MetadataLog;
  private readonly random: RandomSource;
  private readonly replicaPlacer: ReplicaPlacer;
  private readonly listeners: MetadataListener[] = [];
  private readonly metadataImage = new MetadataImage();
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
    this.replicaPlacer = options.replicaPlacer ?? new RoundRobinReplicaPlacer((bound) => this.nextInt(bound));
    for (const entry of this.log.readAll()) {
      let record: MetadataRecord;
      try {
        record = decodeMetadataRecord(entry.value);
        this.metadataImage.replay(record);
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
  // Brokers

  /**
   * Registers (or re-registers after a restart) a broker: a RegisterBrokerRecord whose offset
   * becomes the broker epoch. A re-registration replaces the previous one (single node: the old
   * registration belongs to a process that is gone). Registering unfenced elects the broker leader
   * of the partitions that have none and list it in their ISR; re-registering an unfenced broker
   * as fenced takes it out of ISRs and leadership as {@link fenceBroker} does.
   * Errors: INVALID_REQUEST (42) for a negative id or a malformed incarnation id,
   * KAFKA_STORAGE_ERROR (56).
   */
  registerBroker(request: RegisterBrokerRequest): RegisterBrokerResult {
    const failed = (r: ControllerResult): RegisterBrokerResult => ({ ...r, brokerEpoch: -1 });
    if (!Number.isInteger(request.brokerId) || request.brokerId < 0) {
      return failed(fail(ErrorCode.INVALID_REQUEST, `Broker id ${request.brokerId} is not a non-negative integer.`));
    }
    const incarnationId = request.incarnationId ?? randomTopicId(this.random);
    if (!/^[0-9a-f]{32}$/.test(incarnationId)) {
      return failed(fail(ErrorCode.INVALID_REQUEST, `Incarnation id ${incarnationId} is not 32 lowercase hex digits.`));
    }
    const fenced = request.fenced ?? false;
    const brokerEpoch = this.log.endOffset();
    const records: MetadataRecord[] = [metadataRecord('RegisterBrokerRecord', RECORD_VERSION.RegisterBrokerRecord, {
      brokerId: request.brokerId,
      isMigratingZkBroker: false,
      incarnationId,
      brokerEpoch,
      endPoints: request.endpoints.map((e) => ({ name: e.name, host: e.host, port: e.port, securityProtocol: e.securityProtocol })),
      features: [{ name: 'metadata.version', minSupportedVersion: 1, maxSupportedVersion: METADATA_VERSION_LEVEL }],
      rack: request.rack ?? null,
      fenced,
      inControlledShutdown: false,
      logDirs: [],
    })];
    const existing = this.metadataImage.broker(request.brokerId);
    if (!fenced) records.push(...this.electLeadersOnUnfence(request.brokerId));
    else if (existing !== undefined && !existing.fenced) records.push(...this.removeFromIsrOnFence(request.brokerId));
    const result = this.commit(records);
    if (result.errorCode !== ErrorCode.NONE) return failed(result);
    assert(this.metadataImage.broker(request.brokerId)?.brokerEpoch === brokerEpoch, 'broker epoch is the record offset');
    return { ...NONE, brokerEpoch };
  }

  /**
   * Unfences a registered broker (Kafka: a heartbeat from a caught-up broker) and elects it leader
   * where partitions have none and list it in their ISR.
   * Errors: STALE_BROKER_EPOCH (77) when `brokerEpoch` is not the current registration's,
   * KAFKA_STORAGE_ERROR (56).
   */
  unfenceBroker(brokerId: number, brokerEpoch: number): ControllerResult {
    const check = this.checkBrokerEpoch(brokerId, brokerEpoch);
    if (check !== null) return check;
    if (!this.metadataImage.broker(brokerId)!.fenced) return NONE;
    return this.commit([
      metadataRecord('BrokerRegistrationChangeRecord', RECORD_VERSION.BrokerRegistrationChangeRecord, {
        brokerId, brokerEpoch, fenced: -1, inControlledShutdown: 0, logDirs: [],
      }),
      ...this.electLeadersOnUnfence(brokerId),
    ]);
  }

  /**
   * Fences a broker (Kafka: a missed session or a controlled shutdown): it leaves every ISR it is
   * in unless it is the last member, and gives up leadership to another ISR member (or to none).
   * Errors: STALE_BROKER_EPOCH (77), KAFKA_STORAGE_ERROR (56).
   */
  fenceBroker(brokerId: number, brokerEpoch: number): ControllerResult {
    const check = this.checkBrokerEpoch(brokerId, brokerEpoch);
    if (check !== null) return check;
    if (this.metadataImage.broker(brokerId)!.fenced) return NONE;
    return this.commit([
      metadataRecord('BrokerRegistrationChangeRecord', RECORD_VERSION.BrokerRegistrationChangeRecord, {
        brokerId, brokerEpoch, fenced: 1, inControlledShutdown: 0, logDirs: [],
      }),
      ...this.removeFromIsrOnFence(brokerId),
    ]);
  }

  /**
   * Removes a broker's registration (Kafka's UnregisterBroker), after fencing it.
   * Errors: BROKER_ID_NOT_REGISTERED (102), KAFKA_STORAGE_ERROR (56).
   */
  unregisterBroker(brokerId: number): ControllerResult {
    const registration = this.metadataImage.broker(brokerId);
    if (registration === undefined) return fail(ErrorCode.BROKER_ID_NOT_REGISTERED, `Broker ${brokerId} is not registered.`);
    const records: MetadataRecord[] = registration.fenced ? [] : this.removeFromIsrOnFence(brokerId);
    records.push(metadataRecord('UnregisterBrokerRecord', 0, { brokerId, brokerEpoch: registration.brokerEpoch }));
    return this.commit(records);
  }

  // ---------------------------------------------------------------------------------------------
  // Topics

  /**
   * Kafka's CreateTopics (ReplicationControlManager.createTopics): per topic, in request order,
   * - INVALID_REQUEST (42): the name appears twice in the request; assignments given together with
   *   numPartitions or replicationFactor other than -1; creating `__cluster_metadata`
   * - INVALID_TOPIC_EXCEPTION (17): illegal name, or one colliding with an existing topic when
   *   '.' and '_' are unified
   * - TOPIC_ALREADY_EXISTS (36)
   * - INVALID_PARTITIONS (37): numPartitions 0 or below -1, or over MAX_NEW_PARTITIONS_PER_REQUEST
   * - INVALID_REPLICATION_FACTOR (38): replicationFactor 0 or below -1, or above the number of
   *   usable (registered, unfenced) brokers
   * - INVALID_REPLICA_ASSIGNMENT (39): manual assignment with gaps, duplicates, unregistered or only
   *   fenced brokers, or unequal replica counts
   * - INVALID_CONFIG (40): a config rejected by host/config/topic-config.ts (message from there)
   * - KAFKA_STORAGE_ERROR (56): the metadata log failed
   * numPartitions / replicationFactor -1 take num.partitions / default.replication.factor. The
   * created topics are committed as one batch (TopicRecord, ConfigRecords, PartitionRecords per
   * topic). With `validateOnly` nothing is written; results are as if it had been (topic id zero).
   */
  createTopics(topics: readonly CreateTopicRequest[], options: { validateOnly?: boolean } = {}): CreateTopicResult[] {
    const validateOnly = options.validateOnly ?? false;
    const duplicates = duplicateKeys(topics, (t) => t.name);
    const pendingCollisionKeys = new Map<string, string>();
    const records: MetadataRecord[] = [];
    const results: CreateTopicResult[] = [];
    let newPartitions = 0;
    for (const topic of topics) {
      const failed = (r: ControllerResult): CreateTopicResult => ({
        ...r, name: topic.name, topicId: ZERO_TOPIC_ID, numPartitions: -1, replicationFactor: -1, configs: emptyRecord(),
      });
      if (duplicates.has(topic.name)) {
        results.push(failed(fail(ErrorCode.INVALID_REQUEST, `Topic '${topic.name}' appears more than once in the request.`)));
        continue;
      }
      const plan = this.planTopic(topic, pendingCollisionKeys, MAX_NEW_PARTITIONS_PER_REQUEST - newPartitions);
      if ('errorCode' in plan) {
        results.push(failed(plan));
        continue;
      }
      newPartitions += plan.assignments.length;
      pendingCollisionKeys.set(topicCollisionKey(topic.name), topic.name);
      const topicId = validateOnly ? ZERO_TOPIC_ID : this.freshTopicId();
      if (!validateOnly) {
        records.push(metadataRecord('TopicRecord', 0, { name: topic.name, topicId }));
        for (const [name, value] of Object.entries(plan.configs)) {
          records.push(metadataRecord('ConfigRecord', 0, { resourceType: ConfigResourceType.TOPIC, resourceName: topic.name, name, value }));
        }
        plan.assignments.forEach((replicas, partitionId) => records.push(this.partitionRecord(topicId, partitionId, replicas)));
      }
      results.push({
        ...NONE, name: topic.name, topicId, numPartitions: plan.assignments.length,
        replicationFactor: plan.assignments[0]!.length, configs: plan.configs,
      });
    }
    // With records to commit (not validateOnly), every successful result is a topic in the batch.
    return this.commitPlanned(results, records, (r, commit) => (
      { ...r, ...commit, topicId: ZERO_TOPIC_ID, numPartitions: -1, replicationFactor: -1, configs: emptyRecord() }
    ));
  }

  /**
   * Kafka's DeleteTopics by name: a RemoveTopicRecord per topic (its partitions and configs go
   * with it), committed as one batch. Errors per topic: TOPIC_DELETION_DISABLED (73) when
   * delete.topic.enable is false, INVALID_REQUEST (42) for a name given twice,
   * UNKNOWN_TOPIC_OR_PARTITION (3), KAFKA_STORAGE_ERROR (56).
   */
  deleteTopics(names: readonly string[]): DeleteTopicResult[] {
    const duplicates = duplicateKeys(names, (name) => name);
    const results: DeleteTopicResult[] = [];
    const records: MetadataRecord[] = [];
    for (const name of names) {
      const failed = (r: ControllerResult): DeleteTopicResult => ({ ...r, name, topicId: ZERO_TOPIC_ID });
      if (!this.config.deleteTopicEnable) {
        results.push(failed(fail(ErrorCode.TOPIC_DELETION_DISABLED, 'Topic deletion is disabled (delete.topic.enable=false).')));
        continue;
      }
      if (duplicates.has(name)) {
        results.push(failed(fail(ErrorCode.INVALID_REQUEST, `Topic '${name}' appears more than once in the request.`)));
        continue;
      }
      const topic = this.metadataImage.topic(name);
      if (topic === undefined) {
        results.push(failed(fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`)));
        continue;
      }
      records.push(metadataRecord('RemoveTopicRecord', 0, { topicId: topic.topicId }));
      results.push({ ...NONE, name, topicId: topic.topicId });
    }
    return this.commitPlanned(results, records, (r, commit) => ({ ...r, ...commit, topicId: ZERO_TOPIC_ID }));
  }

  /**
   * Kafka's CreatePartitions: grows topics to `count` partitions, new replicas placed like the
   * existing partition 0's replication factor (or as given). Errors per topic: INVALID_REQUEST (42)
   * for a topic given twice, UNKNOWN_TOPIC_OR_PARTITION (3), INVALID_PARTITIONS (37) when `count`
   * is not larger than the current count (or the request adds over
   * MAX_NEW_PARTITIONS_PER_REQUEST), INVALID_REPLICA_ASSIGNMENT (39) for a bad manual assignment,
   * INVALID_REPLICATION_FACTOR (38) when too few brokers are usable, KAFKA_STORAGE_ERROR (56).
   */
  createPartitions(topics: readonly CreatePartitionsRequest[], options: { validateOnly?: boolean } = {}): CreatePartitionsResult[] {
    const validateOnly = options.validateOnly ?? false;
    const duplicates = duplicateKeys(topics, (t) => t.name);
    const results: CreatePartitionsResult[] = [];
    const records: MetadataRecord[] = [];
    let newPartitions = 0;
    for (const request of topics) {
      const name = request.name;
      const result = ((): ControllerResult => {
        if (duplicates.has(name)) return fail(ErrorCode.INVALID_REQUEST, `Topic '${name}' appears more than once in the request.`);
        const topic = this.metadataImage.topic(name);
        if (topic === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
        const current = topic.partitions.length;
        if (request.count < current) {
          return fail(ErrorCode.INVALID_PARTITIONS, `The topic ${name} currently has ${current} partition(s); ${request.count} would not be an increase.`);
        }
        if (request.count === current) return fail(ErrorCode.INVALID_PARTITIONS, `Topic already has ${current} partition(s).`);
        const adding = request.count - current;
        if (adding > MAX_NEW_PARTITIONS_PER_REQUEST - newPartitions) {
          return fail(ErrorCode.INVALID_PARTITIONS, `Adding ${adding} partition(s) exceeds the limit of ${MAX_NEW_PARTITIONS_PER_REQUEST} new partitions per request.`);
        }
        let assignments: number[][];
        if (request.assignments !== undefined && request.assignments !== null) {
          if (request.assignments.length !== adding) {
            return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
              `Attempted to add ${adding} additional partition(s), but only ${request.assignments.length} assignment(s) were specified.`);
          }
          const checked = this.checkManualAssignment(request.assignments.map((a) => a.brokerIds), current);
          if (!Array.isArray(checked)) return checked;
          assignments = checked;
        } else {
          const replicationFactor = topic.partitions[0]?.replicas.length ?? 1;
          const usable = this.metadataImage.usableBrokerIds();
          if (replicationFactor > usable.length) return this.replicationFactorTooHigh(replicationFactor, usable.length);
          assignments = this.replicaPlacer.place(current, adding, replicationFactor, usable);
        }
        newPartitions += adding;
        if (!validateOnly) assignments.forEach((replicas, i) => records.push(this.partitionRecord(topic.topicId, current + i, replicas)));
        return NONE;
      })();
      results.push({ ...result, name });
    }
    return this.commitPlanned(results, records);
  }

  // ---------------------------------------------------------------------------------------------
  // Configs

  /**
   * Kafka's (legacy) AlterConfigs: each resource's configs replace all of its overrides (what is
   * not given returns to the default); one ConfigRecord per changed key (null value = removed).
   * - TOPIC (2): UNKNOWN_TOPIC_OR_PARTITION (3) for a missing topic; INVALID_CONFIG (40) with
   *   host/config/topic-config.ts's message for an unknown name or bad value (null values are
   *   ignored, as Kafka does for legacy AlterConfigs)
   * - BROKER (4): name "" (cluster default) or a registered broker's id, else INVALID_REQUEST (42);
   *   Tributary has no dynamic broker configs, so any known broker config answers INVALID_REQUEST
   *   ("Cannot update these configs dynamically", Kafka's answer for read-only configs) and an
   *   unknown name INVALID_CONFIG (40); an empty list is accepted
   * - any other resource type: INVALID_REQUEST (42); a resource given twice: INVALID_REQUEST (42)
   * - KAFKA_STORAGE_ERROR (56)
   */
  alterConfigs(resources: readonly AlterConfigsRequest[], options: { validateOnly?: boolean } = {}): AlterConfigsResult[] {
    return this.alterResourceConfigs(resources, options.validateOnly ?? false, (resource, records) => {
      if (resource.resourceType === ConfigResourceType.TOPIC) return this.planTopicConfigs(resource, records);
      if (resource.resourceType === ConfigResourceType.BROKER) return this.checkBrokerConfigs(resource);
      return fail(ErrorCode.INVALID_REQUEST,
        `AlterConfigs is only supported for topics (2) and brokers (4), but resource type is ${resource.resourceType}.`);
    });
  }

  /**
   * Kafka's IncrementalAlterConfigs (KIP-339): per config SET (needs a value), DELETE (back to
   * the default), APPEND / SUBTRACT (LIST configs such as cleanup.policy: add missing elements to,
   * or remove elements from, the override or else the default); the result is validated as a
   * whole. Errors as {@link alterConfigs}, plus INVALID_CONFIG (40) for APPEND/SUBTRACT on a
   * non-LIST config, INVALID_REQUEST (42) for an unknown operation or a config named twice.
   */
  incrementalAlterConfigs(resources: readonly IncrementalAlterConfigsRequest[], options: { validateOnly?: boolean } = {}): AlterConfigsResult[] {
    return this.alterResourceConfigs(resources, options.validateOnly ?? false, (resource, records) => {
      const names = new Set<string>();
      for (const c of resource.configs) {
        if (names.has(c.name)) return fail(ErrorCode.INVALID_REQUEST, `Config ${c.name} appears more than once for the resource.`);
        names.add(c.name);
        if (!Object.values(AlterConfigOp).includes(c.configOperation as 0)) {
          return fail(ErrorCode.INVALID_REQUEST, `Unknown config operation ${c.configOperation} for ${c.name}.`);
        }
      }
      if (resource.resourceType === ConfigResourceType.BROKER) {
        return this.checkBrokerConfigs({ ...resource, configs: resource.configs.map((c) => ({ name: c.name, value: c.value })) });
      }
      if (resource.resourceType !== ConfigResourceType.TOPIC) {
        return fail(ErrorCode.INVALID_REQUEST,
          `IncrementalAlterConfigs is only supported for topics (2) and brokers (4), but resource type is ${resource.resourceType}.`);
      }
      const topic = resource.resourceName;
      if (this.metadataImage.topic(topic) === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${topic}' does not exist.`);
      const next = new Map(this.metadataImage.topicConfigs(topic));
      for (const c of resource.configs) {
        if (c.configOperation === AlterConfigOp.DELETE) {
          next.delete(c.name);
          continue;
        }
        if (c.value === null) return fail(ErrorCode.INVALID_CONFIG, `Null value not supported for topic config ${c.name}; give a value.`);
        if (c.configOperation === AlterConfigOp.SET) {
          next.set(c.name, c.value);
          continue;
        }
        const def = TOPIC_CONFIG_DEF_BY_NAME.get(c.name);
        if (def !== undefined && def.type !== 'LIST') {
          return fail(ErrorCode.INVALID_CONFIG, `Can't ${c.configOperation === AlterConfigOp.APPEND ? 'APPEND' : 'SUBTRACT'} to key ${c.name} because its type is not LIST.`);
        }
        const parts = (text: string | null | undefined): string[] => (text ?? '').split(',').map((p) => p.trim()).filter((p) => p.length > 0);
        const list = parts(next.get(c.name) ?? def?.defaultValue);
        for (const element of parts(c.value)) {
          const at = list.indexOf(element);
          if (c.configOperation === AlterConfigOp.APPEND && at < 0) list.push(element);
          if (c.configOperation === AlterConfigOp.SUBTRACT && at >= 0) list.splice(at, 1);
        }
        next.set(c.name, list.join(','));
      }
      const entries = [...next].map(([name, value]) => ({ name, value }));
      return this.planTopicConfigs({ resourceType: ConfigResourceType.TOPIC, resourceName: topic, configs: entries }, records);
    });
  }

  /**
   * The frame of AlterConfigs and IncrementalAlterConfigs: per resource in request order, a
   * resource given twice answers INVALID_REQUEST (42), any other is `plan`ned (ConfigRecords go
   * to `records`, null under validateOnly); then the planned records are committed as one batch.
   */
  private alterResourceConfigs<R extends AlterConfigsRequest | IncrementalAlterConfigsRequest>(
    resources: readonly R[],
    validateOnly: boolean,
    plan: (resource: R, records: MetadataRecord[] | null) => ControllerResult,
  ): AlterConfigsResult[] {
    const duplicates = duplicateKeys(resources, resourceKey);
    const results: AlterConfigsResult[] = [];
    const records: MetadataRecord[] = [];
    for (const resource of resources) {
      const result = duplicates.has(resourceKey(resource))
        ? fail(ErrorCode.INVALID_REQUEST, 'The resource appears more than once in the request.')
        : plan(resource, validateOnly ? null : records);
      results.push({ ...result, resourceType: resource.resourceType, resourceName: resource.resourceName });
    }
    return this.commitPlanned(results, records);
  }

  /**
   * Commits the records a multi-item request planned as one batch (nothing to do without any).
   * When the commit fails, every result that had succeeded becomes `failed(result, commitError)`
   * (by default the result with the commit's error code and message): the batch is all or none.
   */
  private commitPlanned<T extends ControllerResult>(
    results: T[],
    records: readonly MetadataRecord[],
    failed: (result: T, commit: ControllerResult) => T = (result, commit) => ({ ...result, ...commit }),
  ): T[] {
    if (records.length === 0) return results;
    const commit = this.commit(records);
    if (commit.errorCode === ErrorCode.NONE) return results;
    return results.map((r) => (r.errorCode === ErrorCode.NONE ? failed(r, commit) : r));
  }

  // ---------------------------------------------------------------------------------------------
  // Producer ids

  /**
   * Kafka's AllocateProducerIds: the next block of PRODUCER_ID_BLOCK_SIZE (1000) ids for a
   * broker, persisted by a ProducerIdsRecord before it is handed out, so ids never repeat, also
   * across restarts. Errors: STALE_BROKER_EPOCH (77) when the broker is not registered with that
   * epoch, UNKNOWN_SERVER_ERROR (-1) when ids are exhausted, KAFKA_STORAGE_ERROR (56).
   */
  allocateProducerIds(brokerId: number, brokerEpoch: number): ProducerIdBlockResult {
    const failed = (r: ControllerResult): ProducerIdBlockResult => ({ ...r, producerIdStart: -1, producerIdLen: 0 });
    const check = this.checkBrokerEpoch(brokerId, brokerEpoch);
    if (check !== null) return failed(check);
    const start = this.metadataImage.nextProducerId;
    if (start > LARGEST_PRODUCER_ID - PRODUCER_ID_BLOCK_SIZE) return failed(fail(ErrorCode.UNKNOWN_SERVER_ERROR, 'Exhausted all producerIds.'));
    const commit = this.commit([
      metadataRecord('ProducerIdsRecord', 0, { brokerId, brokerEpoch, nextProducerId: start + PRODUCER_ID_BLOCK_SIZE }),
    ]);
    if (commit.errorCode !== ErrorCode.NONE) return failed(commit);
    return { ...NONE, producerIdStart: start, producerIdLen: PRODUCER_ID_BLOCK_SIZE };
  }

  // ---------------------------------------------------------------------------------------------
  // Internals

  /** Uniform integer in [0, bound) from the injected randomness. */
  private nextInt(bound: number): number {
    const bytes = new Uint8Array(4);
    this.random.fill(bytes);
    const value = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
    return value % bound;
  }

  private freshTopicId(): string {
    for (;;) {
      const topicId = randomTopicId(this.random);
      if (this.metadataImage.topicById(topicId) === undefined) return topicId;
    }
  }

  private checkBrokerEpoch(brokerId: number, brokerEpoch: number): ControllerResult | null {
    const registration = this.metadataImage.broker(brokerId);
    if (registration === undefined) return fail(ErrorCode.STALE_BROKER_EPOCH, `Broker ${brokerId} is not registered.`);
    if (registration.brokerEpoch !== brokerEpoch) {
      return fail(ErrorCode.STALE_BROKER_EPOCH, `Broker ${brokerId} epoch ${brokerEpoch} is not the current epoch ${registration.brokerEpoch}.`);
    }
    return null;
  }

  private replicationFactorTooHigh(replicationFactor: number, usable: number): ControllerResult {
    return fail(ErrorCode.INVALID_REPLICATION_FACTOR,
      `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ${replicationFactor} ` +
      `cannot be reached because only ${usable} broker(s) are registered.`);
  }

  /** Validates one CreateTopics entry: replica lists per partition and the overrides, or an error. */
  private planTopic(
    topic: CreateTopicRequest,
    pendingCollisionKeys: ReadonlyMap<string, string>,
    partitionBudget: number,
  ): ControllerResult | { assignments: number[][]; configs: Record<string, string> } {
    const name = topic.name;
    if (name === CLUSTER_METADATA_TOPIC_NAME) {
      return fail(ErrorCode.INVALID_REQUEST, `Creation of internal topic ${CLUSTER_METADATA_TOPIC_NAME} is prohibited.`);
    }
    const nameProblem = topicNameProblem(name);
    if (nameProblem !== null) return fail(ErrorCode.INVALID_TOPIC_EXCEPTION, nameProblem);
    if (this.metadataImage.topic(name) !== undefined) return fail(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    const collisionKey = topicCollisionKey(name);
    const colliding = pendingCollisionKeys.get(collisionKey) ?? this.metadataImage.collidingTopicName(name);
    if (colliding !== undefined) return fail(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${name}' collides with existing topic: ${colliding}`);

    let assignments: number[][];
    const manual = topic.assignments ?? [];
    if (manual.length > 0) {
      if (topic.numPartitions !== -1) {
        return fail(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but numPartitions was not set to -1.');
      }
      if (topic.replicationFactor !== -1) {
        return fail(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but replicationFactor was not set to -1.');
      }
      if (manual.length > partitionBudget) {
        return fail(ErrorCode.INVALID_PARTITIONS, `The request creates more than ${MAX_NEW_PARTITIONS_PER_REQUEST} partitions.`);
      }
      const byIndex = new Map<number, readonly number[]>();
      for (const a of manual) {
        if (byIndex.has(a.partitionIndex)) {
          return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Partition ${a.partitionIndex} is assigned more than once.`);
        }
        byIndex.set(a.partitionIndex, a.brokerIds);
      }
      const ordered: (readonly number[])[] = [];
      for (let i = 0; i < manual.length; i++) {
        const brokerIds = byIndex.get(i);
        if (brokerIds === undefined) {
          return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            `Partitions should be a consecutive 0-based integer sequence; partition ${i} is missing from the manual assignment.`);
        }
        ordered.push(brokerIds);
      }
      const checked = this.checkManualAssignment(ordered, 0);
      if (!Array.isArray(checked)) return checked;
      assignments = checked;
    } else {
      const numPartitions = topic.numPartitions === -1 ? this.config.numPartitions : topic.numPartitions;
      const replicationFactor = topic.replicationFactor === -1 ? this.config.defaultReplicationFactor : topic.replicationFactor;
      if (!Number.isInteger(numPartitions) || numPartitions <= 0) {
        return fail(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
      }
      if (numPartitions > partitionBudget) {
        return fail(ErrorCode.INVALID_PARTITIONS,
          `Number of partitions ${numPartitions} exceeds the limit of ${MAX_NEW_PARTITIONS_PER_REQUEST} new partitions per request.`);
      }
      if (!Number.isInteger(replicationFactor) || replicationFactor <= 0) {
        return fail(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
      }
      const usable = this.metadataImage.usableBrokerIds();
      if (replicationFactor > usable.length) return this.replicationFactorTooHigh(replicationFactor, usable.length);
      assignments = this.replicaPlacer.place(0, numPartitions, replicationFactor, usable);
    }

    const validation = validateTopicConfigs(topic.configs ?? [], { nullValue: 'reject' });
    if (validation.errors.length > 0) return fail(validation.errors[0]!.errorCode, validation.errors[0]!.errorMessage);
    const configs = emptyRecord();
    for (const [k, v] of Object.entries(validation.overrides)) configs[k] = v;
    return { assignments, configs };
  }

  /**
   * Checks manual replica lists (partition ids `firstPartitionId`..): non-empty, no duplicate
   * broker, registered brokers, at least one unfenced per partition, equal lengths.
   */
  private checkManualAssignment(lists: readonly (readonly number[])[], firstPartitionId: number): ControllerResult | number[][] {
    let expectedLength = -1;
    for (let i = 0; i < lists.length; i++) {
      const partitionId = firstPartitionId + i;
      const brokerIds = lists[i]!;
      if (brokerIds.length === 0) {
        return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The manual partition assignment includes an empty replica list for partition ${partitionId}.`);
      }
      if (new Set(brokerIds).size !== brokerIds.length) {
        return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The manual partition assignment includes a duplicate broker for partition ${partitionId}: [${brokerIds.join(', ')}].`);
      }
      for (const brokerId of brokerIds) {
        if (this.metadataImage.broker(brokerId) === undefined) {
          return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The manual partition assignment includes broker ${brokerId}, but no such broker is registered.`);
        }
      }
      if (brokerIds.every((id) => this.metadataImage.broker(id)!.fenced)) {
        return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          `All brokers specified in the manual partition assignment for partition ${partitionId} are fenced.`);
      }
      if (expectedLength >= 0 && brokerIds.length !== expectedLength) {
        return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          `The manual partition assignment includes a partition with ${brokerIds.length} replica(s), but this is not consistent with previous partitions, which have ${expectedLength} replica(s).`);
      }
      expectedLength = brokerIds.length;
    }
    return lists.map((l) => [...l]);
  }

  /** A new partition: ISR = the unfenced replicas, leader = the first of them, epochs 0. */
  private partitionRecord(topicId: string, partitionId: number, replicas: readonly number[]): MetadataRecord {
    const isr = replicas.filter((id) => this.metadataImage.broker(id)?.fenced === false);
    assert(isr.length > 0, 'a new partition has an unfenced replica');
    return metadataRecord('PartitionRecord', RECORD_VERSION.PartitionRecord, {
      partitionId, topicId, replicas: [...replicas], isr, removingReplicas: [], addingReplicas: [],
      leader: isr[0]!, leaderRecoveryState: 0, leaderEpoch: 0, partitionEpoch: 0, directories: [],
      eligibleLeaderReplicas: null, lastKnownElr: null,
    });
  }

  private partitionChange(topicId: string, partitionId: number, change: { isr?: number[]; leader?: number }): MetadataRecord {
    return metadataRecord('PartitionChangeRecord', RECORD_VERSION.PartitionChangeRecord, {
      partitionId, topicId, isr: change.isr ?? null, leader: change.leader ?? NO_LEADER_CHANGE,
      replicas: null, removingReplicas: null, addingReplicas: null, leaderRecoveryState: -1, directories: null,
      eligibleLeaderReplicas: null, lastKnownElr: null,
    });
  }

  /** Partitions without a leader whose ISR holds `brokerId` get it as leader. */
  private electLeadersOnUnfence(brokerId: number): MetadataRecord[] {
    const records: MetadataRecord[] = [];
    for (const topic of this.metadataImage.topics()) {
      for (const p of topic.partitions) {
        if (p.leader === NO_LEADER && p.isr.includes(brokerId)) records.push(this.partitionChange(topic.topicId, p.partitionId, { leader: brokerId }));
      }
    }
    return records;
  }

  /**
   * `brokerId` leaves every ISR it is in, except as the last member (Kafka keeps the last ISR
   * member so that it can lead again without an unclean election); where it led, the next ISR
   * member that is unfenced leads, or nobody.
   */
  private removeFromIsrOnFence(brokerId: number): MetadataRecord[] {
    const records: MetadataRecord[] = [];
    const usable = (id: number): boolean => id !== brokerId && this.metadataImage.broker(id)?.fenced === false;
    for (const topic of this.metadataImage.topics()) {
      for (const p of topic.partitions) {
        if (!p.isr.includes(brokerId)) continue;
        const isr = p.isr.length > 1 ? p.isr.filter((id) => id !== brokerId) : [...p.isr];
        const change: { isr?: number[]; leader?: number } = {};
        if (isr.length !== p.isr.length) change.isr = isr;
        if (p.leader === brokerId) change.leader = isr.find(usable) ?? NO_LEADER;
        if (change.isr !== undefined || change.leader !== undefined) records.push(this.partitionChange(topic.topicId, p.partitionId, change));
      }
    }
    return records;
  }

  /** TOPIC resource of AlterConfigs: validates, and appends ConfigRecords for the differences to `records` (null = validate only). */
  private planTopicConfigs(resource: AlterConfigsRequest, records: MetadataRecord[] | null): ControllerResult {
    const name = resource.resourceName;
    if (this.metadataImage.topic(name) === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
    const validation = validateTopicConfigs(resource.configs, { nullValue: 'ignore' });
    if (validation.errors.length > 0) return fail(validation.errors[0]!.errorCode, validation.errors[0]!.errorMessage);
    if (records === null) return NONE;
    const current = this.metadataImage.topicConfigs(name);
    const wanted = new Map(Object.entries(validation.overrides));
    for (const [k, v] of wanted) {
      if (current.get(k) !== v) records.push(metadataRecord('ConfigRecord', 0, { resourceType: ConfigResourceType.TOPIC, resourceName: name, name: k, value: v }));
    }
    for (const k of current.keys()) {
      if (!wanted.has(k)) records.push(metadataRecord('ConfigRecord', 0, { resourceType: ConfigResourceType.TOPIC, resourceName: name, name: k, value: null }));
    }
    return NONE;
  }

  private checkBrokerConfigs(resource: AlterConfigsRequest): ControllerResult {
    const name = resource.resourceName;
    if (name !== '') {
      if (!/^\d+$/.test(name)) return fail(ErrorCode.INVALID_REQUEST, `Broker id must be an integer, but it is '${name}'.`);
      if (this.metadataImage.broker(Number(name)) === undefined) return fail(ErrorCode.INVALID_REQUEST, `Broker ${name} is not registered.`);
    }
    const unknown = resource.configs.find((c) => !BROKER_CONFIG_DEF_BY_NAME.has(c.name));
    if (unknown !== undefined) {
      const suggestions = suggestConfigNames(unknown.name, BROKER_CONFIG_DEF_BY_NAME.keys());
      const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.join(' or ')}?` : '';
      return fail(ErrorCode.INVALID_CONFIG, `Unknown broker config name: ${unknown.name}.${hint}`);
    }
    if (resource.configs.length > 0) {
      return fail(ErrorCode.INVALID_REQUEST,
        `Cannot update these configs dynamically: ${resource.configs.map((c) => c.name).join(', ')}. ` +
        'Tributary has no dynamic broker configs: set them in server.properties or with --override and restart the broker.');
    }
    return NONE;
  }

  /**
   * Appends `records` to the metadata log as one batch, replays them into the image and tells
   * the listeners. Answers KAFKA_STORAGE_ERROR (56) when the log fails (then and afterwards).
   */
  private commit(records: readonly MetadataRecord[]): ControllerResult {
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
    const effects: BatchEffects = { deleted: [], created: new Set(), partitions: new Map(), configs: new Map(), brokers: new Set() };
    for (const record of records) {
      this.noteEffects(record, effects);
      this.metadataImage.replay(record);
    }
    this.lastAppliedOffset = baseOffset + records.length - 1;
    this.publish(effects);
    return NONE;
  }

  /** Records what `record` (about to be replayed) changes. */
  private noteEffects(record: MetadataRecord, effects: BatchEffects): void {
    switch (record.type) {
      case 'TopicRecord':
        effects.created.add(record.data.topicId);
        return;
      case 'PartitionRecord':
      case 'PartitionChangeRecord': {
        const topicId = record.data.topicId;
        if (effects.created.has(topicId)) return;
        let entry = effects.partitions.get(topicId);
        if (entry === undefined) {
          entry = { previousPartitionCount: this.metadataImage.topicById(topicId)?.partitions.length ?? 0, changed: new Set() };
          effects.partitions.set(topicId, entry);
        }
        entry.changed.add(record.data.partitionId);
        return;
      }
      case 'RemoveTopicRecord': {
        const topicId = record.data.topicId;
        const before = this.metadataImage.topicById(topicId);
        if (before !== undefined && !effects.created.delete(topicId)) effects.deleted.push(before);
        effects.partitions.delete(topicId);
        if (before !== undefined) effects.configs.delete(`${ConfigResourceType.TOPIC}:${before.name}`);
        return;
      }
      case 'ConfigRecord': {
        const { resourceType, resourceName } = record.data;
        if (resourceType === ConfigResourceType.TOPIC) {
          // A just-created topic's configs come with onTopicCreated (its TopicRecord is replayed already).
          const topicId = this.metadataImage.topic(resourceName)?.topicId;
          if (topicId !== undefined && effects.created.has(topicId)) return;
        }
        effects.configs.set(`${resourceType}:${resourceName}`, { type: resourceType, name: resourceName });
        return;
      }
      case 'RegisterBrokerRecord':
      case 'UnregisterBrokerRecord':
      case 'BrokerRegistrationChangeRecord':
        effects.brokers.add(record.data.brokerId);
        return;
      case 'FenceBrokerRecord':
      case 'UnfenceBrokerRecord':
        effects.brokers.add(record.data.id);
        return;
      default:
        return;
    }
  }

  private publish(effects: BatchEffects): void {
    if (this.listeners.length === 0) return;
    const image = this.metadataImage;
    const calls: ((l: MetadataListener) => void)[] = [];
    for (const topic of effects.deleted) calls.push((l) => l.onTopicDeleted?.(topic, image));
    for (const topicId of effects.created) {
      const topic = image.topicById(topicId);
      if (topic !== undefined) calls.push((l) => l.onTopicCreated?.(topic, image));
    }
    for (const [topicId, entry] of effects.partitions) {
      const topic = image.topicById(topicId);
      if (topic === undefined) continue;
      const change: PartitionsChange = {
        previousPartitionCount: entry.previousPartitionCount,
        changedPartitionIds: [...entry.changed].sort((a, b) => a - b),
      };
      calls.push((l) => l.onPartitionsChanged?.(topic, change, image));
    }
    for (const resource of effects.configs.values()) {
      if (resource.type === ConfigResourceType.TOPIC && image.topic(resource.name) === undefined) continue;
      const configs = image.resourceConfigs(resource);
      calls.push((l) => l.onConfigChanged?.(resource, configs, image));
    }
    for (const brokerId of effects.brokers) {
      const registration = image.broker(brokerId);
      calls.push((l) => l.onBrokerChanged?.(brokerId, registration, image));
    }
    let firstError: unknown = null;
    for (const call of calls) {
      for (const listener of [...this.listeners]) {
        try {
          call(listener);
        } catch (error) {
          firstError ??= error;
        }
      }
    }
    if (firstError !== null) throw firstError;
  }
}

export type { BrokerEndpoint, BrokerRegistration, ConfigResource, PartitionRegistration, TopicImage };
