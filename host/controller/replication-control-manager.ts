/**
 * ReplicationControlManager (Kafka's name): topics, partitions, replica placement, leaders and
 * ISRs. A state machine without I/O: each operation validates against the controller's latest
 * state (every appended record, committed or not) and returns the records to commit (TopicRecord,
 * ConfigRecord for a new topic's overrides, PartitionRecord, PartitionChangeRecord,
 * RemoveTopicRecord) with the per-topic answers; {@link ReplicationControlManager.replay} applies
 * this manager's record types.
 *
 * A new partition's ISR is its unfenced replicas and its leader the first of them; a fenced
 * broker (or one in controlled shutdown, or unregistered) leaves ISRs (except as the last member)
 * and leadership, an unfenced one lets leaderless partitions elect (the records come from here,
 * the ClusterControlManager decides when). Every leader and ISR change follows one election
 * rule, partition-change-builder.ts; AlterPartition (alter-partition-control.ts) and
 * ElectLeaders and the leader balancer (leader-election-control.ts) use it too.
 */
import { validateTopicConfigs } from '../config/topic-config.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  type ApiError,
  type ControllerResult,
  NONE,
  RECORD_VERSION,
  controllerAssert as assert,
  duplicateKeys,
  emptyRecord,
  fail,
} from './controller-result.js';
import type { TopicIdPartition } from './brokers-to-isrs.js';
import { type MetadataImage, NO_LEADER, type PartitionRegistration } from './metadata-image.js';
import type { LeaderElectionContext } from './leader-election-control.js';
import { buildPartitionChange } from './partition-change-builder.js';
import { ControllerLimits, type ControllerLimitsConfig } from './controller-limits.js';
import { ConfigResourceType, type MetadataRecord, metadataRecord } from './metadata-records.js';
import type { ReplicaPlacer } from './replica-placer.js';
import { alterPartitionReassignments } from './reassignment-control.js';
import type { AlterPartitionReassignmentsResponseInit, ReassignableTopic } from '../protocol/generated/alter-partition-reassignments.js';
import { type RandomSource, ZERO_TOPIC_ID, randomTopicId } from './topic-id.js';
import { CLUSTER_METADATA_TOPIC_NAME, topicCollisionKey, topicNameProblem } from './topic-name.js';


/** The frozen empty lists new PartitionRecords share (typed as the record's mutable lists; never changed). */
const NO_BROKERS = Object.freeze([]) as unknown as number[];
const NO_DIRECTORIES = Object.freeze([]) as unknown as string[];

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

export interface CreateTopicResult extends ApiError {
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

export interface DeleteTopicResult extends ApiError {
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

export interface CreatePartitionsResult extends ApiError {
  readonly name: string;
}


/** The broker configs topic creation and deletion follow (a ControllerConfig fits). */
export interface ReplicationConfig extends ControllerLimitsConfig {
  /** num.partitions: partitions of a topic created with numPartitions -1. */
  readonly numPartitions: number;
  /** default.replication.factor: replication factor of a topic created with -1. */
  readonly defaultReplicationFactor: number;
  /** delete.topic.enable: DeleteTopics answers TOPIC_DELETION_DISABLED (73) when false. */
  readonly deleteTopicEnable: boolean;
  /** unclean.leader.election.enable: the default of the topic config of that name; default false. */
  readonly uncleanLeaderElectionEnable?: boolean;
}

/** Where the managers say what an operator must know (a pino logger fits). */
export interface ControllerLogger {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** A logger that drops everything (tests, tools). */
export const SILENT_CONTROLLER_LOGGER: ControllerLogger = { warn: () => undefined, error: () => undefined };

export interface ReplicationControlManagerOptions {
  readonly config: ReplicationConfig;
  /** The controller's latest state (appended records included). */
  readonly latest: () => MetadataImage;
  /** Topic ids. */
  readonly random: RandomSource;
  readonly replicaPlacer: ReplicaPlacer;
  /** Unclean elections are logged here; default silent. */
  readonly logger?: ControllerLogger;
}

export class ReplicationControlManager {
  private readonly config: ReplicationConfig;
  private readonly latest: () => MetadataImage;
  private readonly random: RandomSource;
  private readonly replicaPlacer: ReplicaPlacer;
  private readonly logger: ControllerLogger;
  private readonly limits: ControllerLimits;

  constructor(options: ReplicationControlManagerOptions) {
    this.logger = options.logger ?? SILENT_CONTROLLER_LOGGER;
    this.config = options.config;
    this.limits = new ControllerLimits(options.config);
    this.latest = options.latest;
    this.random = options.random;
    this.replicaPlacer = options.replicaPlacer;
  }

  /** Applies a topic record (Topic, Partition, PartitionChange, RemoveTopic) to the latest state. */
  replay(record: MetadataRecord): void {
    this.latest().replay(record);
  }

  /**
   * Kafka's CreateTopics (ReplicationControlManager.createTopics): per topic, in request order,
   * - INVALID_REQUEST (42): the name appears twice in the request; assignments given together with
   *   numPartitions or replicationFactor other than -1; creating `__cluster_metadata`
   * - INVALID_TOPIC_EXCEPTION (17): illegal name, or one colliding with an existing topic when
   *   '.' and '_' are unified
   * - TOPIC_ALREADY_EXISTS (36)
   * - INVALID_PARTITIONS (37): numPartitions 0 or below -1, or a topic that would pass
   *   max.partitions (controller-limits.ts)
   * - POLICY_VIOLATION (44) for every topic: the request would write more records than
   *   controller.max.records.per.user.op (Kafka's MAX_RECORDS_PER_USER_OP); nothing is created
   * - INVALID_REPLICATION_FACTOR (38): replicationFactor 0 or below -1, or above the number of
   *   usable (registered, unfenced) brokers
   * - INVALID_REPLICA_ASSIGNMENT (39): manual assignment with gaps, duplicates, unregistered or only
   *   fenced brokers, or unequal replica counts
   * - INVALID_CONFIG (40): a config rejected by host/config/topic-config.ts (message from there)
   * numPartitions / replicationFactor -1 take num.partitions / default.replication.factor. The
   * created topics are committed as one batch (TopicRecord, ConfigRecords, PartitionRecords per
   * topic). With `validateOnly` no records are returned; results are as if it had been (topic id zero).
   */
  createTopics(topics: readonly CreateTopicRequest[], options: { validateOnly?: boolean } = {}): ControllerResult<CreateTopicResult[]> {
    const validateOnly = options.validateOnly ?? false;
    const duplicates = duplicateKeys(topics, (t) => t.name);
    const pendingCollisionKeys = new Map<string, string>();
    const records: MetadataRecord[] = [];
    const results: CreateTopicResult[] = [];
    const failed = (r: ApiError, name: string): CreateTopicResult => ({
      ...r, name, topicId: ZERO_TOPIC_ID, numPartitions: -1, replicationFactor: -1, configs: emptyRecord(),
    });
    let newPartitions = 0;
    let plannedRecords = 0;
    for (const topic of topics) {
      if (duplicates.has(topic.name)) {
        results.push(failed(fail(ErrorCode.INVALID_REQUEST, `Topic '${topic.name}' appears more than once in the request.`), topic.name));
        continue;
      }
      const plan = this.planTopic(topic, pendingCollisionKeys, { records: plannedRecords, partitions: newPartitions });
      if ('wholeOperation' in plan) {
        return { records: [], response: topics.map((t) => failed(plan.wholeOperation, t.name)) };
      }
      if ('errorCode' in plan) {
        results.push(failed(plan, topic.name));
        continue;
      }
      newPartitions += plan.assignments.length;
      plannedRecords += 1 + Object.keys(plan.configs).length + plan.assignments.length;
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
    return { records, response: results };
  }

  /**
   * Kafka's DeleteTopics by name: a RemoveTopicRecord per topic (its partitions and configs go
   * with it), committed as one batch. Errors per topic: TOPIC_DELETION_DISABLED (73) when
   * delete.topic.enable is false, INVALID_REQUEST (42) for a name given twice,
   * UNKNOWN_TOPIC_OR_PARTITION (3); POLICY_VIOLATION (44) for every topic when it names more
   * topics than controller.max.records.per.user.op.
   */
  deleteTopics(names: readonly string[]): ControllerResult<DeleteTopicResult[]> {
    const tooLarge = this.limits.checkRecords('DeleteTopics', names.length);
    if (tooLarge !== null) return { records: [], response: names.map((name) => ({ ...tooLarge, name, topicId: ZERO_TOPIC_ID })) };
    const duplicates = duplicateKeys(names, (name) => name);
    const results: DeleteTopicResult[] = [];
    const records: MetadataRecord[] = [];
    for (const name of names) {
      const failed = (r: ApiError): DeleteTopicResult => ({ ...r, name, topicId: ZERO_TOPIC_ID });
      if (!this.config.deleteTopicEnable) {
        results.push(failed(fail(ErrorCode.TOPIC_DELETION_DISABLED, 'Topic deletion is disabled (delete.topic.enable=false).')));
        continue;
      }
      if (duplicates.has(name)) {
        results.push(failed(fail(ErrorCode.INVALID_REQUEST, `Topic '${name}' appears more than once in the request.`)));
        continue;
      }
      const topic = this.latest().topic(name);
      if (topic === undefined) {
        results.push(failed(fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`)));
        continue;
      }
      records.push(metadataRecord('RemoveTopicRecord', 0, { topicId: topic.topicId }));
      results.push({ ...NONE, name, topicId: topic.topicId });
    }
    return { records, response: results };
  }

  /**
   * Kafka's CreatePartitions: grows topics to `count` partitions, new replicas placed like the
   * existing partition 0's replication factor (or as given). Errors per topic: INVALID_REQUEST (42)
   * for a topic given twice, UNKNOWN_TOPIC_OR_PARTITION (3), INVALID_PARTITIONS (37) when `count`
   * is not larger than the current count or the cluster would pass max.partitions,
   * INVALID_REPLICA_ASSIGNMENT (39) for a bad manual assignment, INVALID_REPLICATION_FACTOR (38)
   * when too few brokers are usable; POLICY_VIOLATION (44) for every topic when the request would
   * write more records than controller.max.records.per.user.op (nothing is created).
   */
  createPartitions(topics: readonly CreatePartitionsRequest[], options: { validateOnly?: boolean } = {}): ControllerResult<CreatePartitionsResult[]> {
    const validateOnly = options.validateOnly ?? false;
    const duplicates = duplicateKeys(topics, (t) => t.name);
    const results: CreatePartitionsResult[] = [];
    const records: MetadataRecord[] = [];
    let newPartitions = 0;
    let wholeOperation: ApiError | null = null;
    for (const request of topics) {
      const name = request.name;
      const result = ((): ApiError => {
        if (duplicates.has(name)) return fail(ErrorCode.INVALID_REQUEST, `Topic '${name}' appears more than once in the request.`);
        const topic = this.latest().topic(name);
        if (topic === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
        const current = topic.partitions.length;
        if (request.count < current) {
          return fail(ErrorCode.INVALID_PARTITIONS, `The topic ${name} currently has ${current} partition(s); ${request.count} would not be an increase.`);
        }
        if (request.count === current) return fail(ErrorCode.INVALID_PARTITIONS, `Topic already has ${current} partition(s).`);
        const adding = request.count - current;
        const tooLarge = this.limits.checkRecords('CreatePartitions', newPartitions + adding, newPartitions === 0);
        if (tooLarge !== null) {
          wholeOperation = tooLarge;
          return tooLarge;
        }
        const overCluster = this.limits.checkClusterPartitions(name, this.latest().totalPartitionCount + newPartitions, adding);
        if (overCluster !== null) return overCluster;
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
          const usable = this.latest().usableBrokerIds();
          if (replicationFactor > usable.length) return this.replicationFactorTooHigh(replicationFactor, usable.length);
          assignments = this.replicaPlacer.place(current, adding, replicationFactor, usable, this.rackOf);
        }
        newPartitions += adding;
        if (!validateOnly) assignments.forEach((replicas, i) => records.push(this.partitionRecord(topic.topicId, current + i, replicas)));
        return NONE;
      })();
      if (wholeOperation !== null) return { records: [], response: topics.map((t) => ({ ...wholeOperation!, name: t.name })) };
      results.push({ ...result, name });
    }
    return { records, response: results };
  }


  /** A registered broker's `broker.rack` (null: none), for rack-aware placement. */
  private readonly rackOf = (brokerId: number): string | null => this.latest().broker(brokerId)?.rack ?? null;

  private freshTopicId(): string {
    for (;;) {
      const topicId = randomTopicId(this.random);
      if (this.latest().topicById(topicId) === undefined) return topicId;
    }
  }


  private replicationFactorTooHigh(replicationFactor: number, usable: number): ApiError {
    return fail(ErrorCode.INVALID_REPLICATION_FACTOR,
      `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ${replicationFactor} ` +
      `cannot be reached because only ${usable} broker(s) are registered.`);
  }

  /**
   * Validates one CreateTopics entry: replica lists per partition and the overrides, or an error.
   * `pending` is what the request's earlier topics add (records, partitions); the operation's
   * record limit is checked before any replica is placed, and when it is passed the answer is
   * `{ wholeOperation }`: the whole request fails, as Kafka's BoundedList makes it.
   */
  private planTopic(
    topic: CreateTopicRequest,
    pendingCollisionKeys: ReadonlyMap<string, string>,
    pending: { readonly records: number; readonly partitions: number },
  ): ApiError | { wholeOperation: ApiError } | { assignments: number[][]; configs: Record<string, string> } {
    const name = topic.name;
    if (name === CLUSTER_METADATA_TOPIC_NAME) {
      return fail(ErrorCode.INVALID_REQUEST, `Creation of internal topic ${CLUSTER_METADATA_TOPIC_NAME} is prohibited.`);
    }
    const nameProblem = topicNameProblem(name);
    if (nameProblem !== null) return fail(ErrorCode.INVALID_TOPIC_EXCEPTION, nameProblem);
    if (this.latest().topic(name) !== undefined) return fail(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    const collisionKey = topicCollisionKey(name);
    const colliding = pendingCollisionKeys.get(collisionKey) ?? this.latest().collidingTopicName(name);
    if (colliding !== undefined) return fail(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${name}' collides with existing topic: ${colliding}`);

    const manual = topic.assignments ?? [];
    let numPartitions: number;
    let replicationFactor = 0;
    if (manual.length > 0) {
      if (topic.numPartitions !== -1) {
        return fail(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but numPartitions was not set to -1.');
      }
      if (topic.replicationFactor !== -1) {
        return fail(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but replicationFactor was not set to -1.');
      }
      numPartitions = manual.length;
    } else {
      numPartitions = topic.numPartitions === -1 ? this.config.numPartitions : topic.numPartitions;
      replicationFactor = topic.replicationFactor === -1 ? this.config.defaultReplicationFactor : topic.replicationFactor;
      if (!Number.isInteger(numPartitions) || numPartitions <= 0) {
        return fail(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
      }
      if (!Number.isInteger(replicationFactor) || replicationFactor <= 0) {
        return fail(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
      }
    }
    const validation = validateTopicConfigs(topic.configs ?? [], { nullValue: 'reject' });
    if (validation.errors.length > 0) return fail(validation.errors[0]!.errorCode, validation.errors[0]!.errorMessage);
    const configs = emptyRecord();
    for (const [k, v] of Object.entries(validation.overrides)) configs[k] = v;

    // TopicRecord, ConfigRecords, PartitionRecords: bounded before any replica is placed.
    const tooLarge = this.limits.checkRecords('CreateTopics', pending.records + 1 + Object.keys(configs).length + numPartitions, pending.records === 0);
    if (tooLarge !== null) return { wholeOperation: tooLarge };
    const overCluster = this.limits.checkClusterPartitions(name, this.latest().totalPartitionCount + pending.partitions, numPartitions);
    if (overCluster !== null) return overCluster;

    let assignments: number[][];
    if (manual.length > 0) {
      const ordered = this.orderManualAssignment(manual);
      if (!Array.isArray(ordered)) return ordered;
      const checked = this.checkManualAssignment(ordered, 0);
      if (!Array.isArray(checked)) return checked;
      assignments = checked;
    } else {
      const usable = this.latest().usableBrokerIds();
      if (replicationFactor > usable.length) return this.replicationFactorTooHigh(replicationFactor, usable.length);
      assignments = this.replicaPlacer.place(0, numPartitions, replicationFactor, usable, this.rackOf);
    }
    return { assignments, configs };
  }

  /** A manual CreateTopics assignment in partition order: indexes 0..n-1, each once. */
  private orderManualAssignment(
    manual: readonly { readonly partitionIndex: number; readonly brokerIds: readonly number[] }[],
  ): ApiError | (readonly number[])[] {
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
    return ordered;
  }

  /**
   * Checks manual replica lists (partition ids `firstPartitionId`..): non-empty, no duplicate
   * broker, registered brokers, at least one unfenced per partition, equal lengths.
   */
  private checkManualAssignment(lists: readonly (readonly number[])[], firstPartitionId: number): ApiError | number[][] {
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
        if (this.latest().broker(brokerId) === undefined) {
          return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The manual partition assignment includes broker ${brokerId}, but no such broker is registered.`);
        }
      }
      if (brokerIds.every((id) => this.latest().broker(id)!.fenced)) {
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

  /**
   * A new partition: ISR = the unfenced replicas, leader = the first of them, epochs 0. Its lists
   * are frozen, so the images replaying it keep them instead of copying (metadata-image.ts).
   */
  private partitionRecord(topicId: string, partitionId: number, replicas: readonly number[]): MetadataRecord {
    const latest = this.latest();
    const isr = replicas.filter((id) => latest.broker(id)?.fenced === false);
    assert(isr.length > 0, 'a new partition has an unfenced replica');
    const frozenReplicas = Object.freeze([...replicas]);
    return metadataRecord('PartitionRecord', RECORD_VERSION.PartitionRecord, {
      partitionId, topicId, replicas: frozenReplicas as number[], isr: (isr.length === replicas.length ? frozenReplicas : Object.freeze(isr)) as number[],
      removingReplicas: NO_BROKERS, addingReplicas: NO_BROKERS,
      leader: isr[0]!, leaderRecoveryState: 0, leaderEpoch: 0, partitionEpoch: 0, directories: NO_DIRECTORIES,
      eligibleLeaderReplicas: null, lastKnownElr: null,
    });
  }

  /**
   * Kafka's handleBrokerUnfenced: every partition without a leader elects one, `brokerId` counting
   * as acceptable although the latest state still shows it fenced (its unfencing record is in
   * the same batch). Partitions of topics with unclean.leader.election.enable may elect outside
   * the ISR.
   */
  electLeadersOnUnfence(brokerId: number): MetadataRecord[] {
    const leaderless = this.latest().partitionsLedBy(NO_LEADER);
    return this.generateLeaderAndIsrUpdates(`unfence broker ${brokerId}`, NO_LEADER, brokerId, leaderless, (p) => p.leader === NO_LEADER);
  }

  /**
   * Kafka's handleBrokerFenced / handleBrokerInControlledShutdown / handleBrokerUnregistered:
   * `brokerId` leaves every ISR it is in, except as the last member (so it can lead again
   * without an unclean election), and never counts as an acceptable leader; where it led, the
   * first acceptable ISR member in replica order leads, else an out-of-sync replica when the
   * topic allows unclean elections, else nobody (-1, the partition is offline).
   */
  removeFromIsrOnFence(brokerId: number): MetadataRecord[] {
    const inIsr = this.latest().partitionsWithBrokerInIsr(brokerId);
    return this.generateLeaderAndIsrUpdates(`fence broker ${brokerId}`, brokerId, NO_LEADER, inIsr, (p) => p.isr.includes(brokerId));
  }

  /**
   * Kafka's alterPartitionReassignments (KIP-455): reassignment-control.ts has the rules; the
   * changes are one batch within controller.max.records.per.user.op.
   */
  alterPartitionReassignments(topics: readonly ReassignableTopic[]): ControllerResult<AlterPartitionReassignmentsResponseInit> {
    return alterPartitionReassignments(this.electionContext(), this.limits, topics);
  }

  /** This manager as AlterPartition and the elections see it (alter-partition-control.ts, leader-election-control.ts). */
  electionContext(): LeaderElectionContext {
    return {
      latest: this.latest,
      isActiveBroker: (brokerId) => this.isActiveBroker(brokerId),
      uncleanLeaderElectionEnabled: (topic) => this.uncleanLeaderElectionEnabled(topic),
      noteUncleanElection: (topic, partitionId, leader, why) => this.noteUncleanElection(topic, partitionId, leader, why),
    };
  }

  /** Registered, unfenced and not in a controlled shutdown: may lead and join ISRs (Kafka's ClusterControlManager.isActive). */
  isActiveBroker(brokerId: number): boolean {
    const broker = this.latest().broker(brokerId);
    return broker !== undefined && !broker.fenced && !broker.inControlledShutdown;
  }

  /**
   * unclean.leader.election.enable for `topic`: its override, else this controller's broker
   * config (Tributary has no dynamic broker configs).
   */
  uncleanLeaderElectionEnabled(topic: string): boolean {
    const override = this.latest().topicConfigs(topic).get('unclean.leader.election.enable');
    if (override !== undefined) return override.trim().toLowerCase() === 'true';
    return this.config.uncleanLeaderElectionEnable ?? false;
  }

  /** Says loudly that an unclean election chose `leader` (records the ISR had may be lost). */
  noteUncleanElection(topic: string, partitionId: number, leader: number, why: string): void {
    this.logger.error({ topic, partition: partitionId, leader, reason: why },
      `unclean leader election for ${topic}-${partitionId}: broker ${leader} was not in the ISR and now leads (${why}); records acknowledged by the old ISR may be lost`);
  }

  /**
   * Kafka's generateLeaderAndIsrUpdates: for each of the `candidates` (an index's answer, from
   * BrokersToIsrs) that `select` picks, the ISR without `brokerToRemove` and an election in which
   * `brokerToRemove` is never acceptable and `brokerToAdd` always is (besides the active
   * brokers). The work is proportional to the candidates, not to the cluster's partitions; the
   * records come in topic name, then partition order (as a walk of every topic gave them).
   */
  private generateLeaderAndIsrUpdates(
    context: string, brokerToRemove: number, brokerToAdd: number, candidates: readonly TopicIdPartition[],
    select: (p: PartitionRegistration) => boolean,
  ): MetadataRecord[] {
    const image = this.latest();
    const records: MetadataRecord[] = [];
    const isAcceptableLeader = (id: number): boolean => id !== brokerToRemove && (id === brokerToAdd || this.isActiveBroker(id));
    const named = candidates.map((c) => ({ ...c, topic: image.topicNameById(c.topicId)! }));
    named.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partitionId - b.partitionId));
    const uncleanByTopic = new Map<string, boolean>();
    for (const { topicId, partitionId, topic } of named) {
      const partition = image.partitionById(topicId, partitionId)!;
      if (!select(partition)) continue;
      let unclean = uncleanByTopic.get(topic);
      if (unclean === undefined) uncleanByTopic.set(topic, (unclean = this.uncleanLeaderElectionEnabled(topic)));
      const change = buildPartitionChange({
        topicId, partition, isAcceptableLeader, election: unclean ? 'UNCLEAN' : 'ONLINE',
        targetIsr: partition.isr.filter((id) => id !== brokerToRemove),
      });
      if (change.record === null) continue;
      if (change.unclean) this.noteUncleanElection(topic, partitionId, change.leader, context);
      records.push(change.record);
    }
    return records;
  }
}
