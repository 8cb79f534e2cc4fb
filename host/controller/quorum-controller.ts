/**
 * QuorumController: Kafka's KRaft controller, for the embedded single node (process.roles =
 * broker,controller) and, behind a Raft metadata log, for a quorum.
 *
 * The control logic lives in Kafka's managers, state machines without I/O that answer an
 * operation with `{ records, response }` (controller-result.ts): ClusterControlManager (brokers),
 * ReplicationControlManager (topics, partitions), ConfigurationControlManager (configs),
 * ProducerIdControlManager (producer id blocks). The QuorumController runs them and owns the
 * path every change follows:
 *
 * ```
 * request ──manager validates against the latest state──► { records, response }
 *   ──replay into the latest state, MetadataLog.append (one atomic batch)──► pending write at the
 *   batch's last offset ··· handleCommit(batch) ──► replay into the committed image ──► listeners
 *   ──► the pending writes up to that offset answer, in offset order
 * ```
 *
 * Two states: the *committed image* ({@link QuorumController.image}: only committed records,
 * what every node sees, published to the listeners) and, on the active controller, the *latest
 * state* (the committed image plus the records appended but not yet committed) that the managers
 * validate against, so an operation sees the ones before it. Every node replays every committed
 * batch into its committed image, whoever wrote it. Only the active controller (the log's leader,
 * this node) writes; elsewhere every operation answers NOT_CONTROLLER (41). When the leadership is
 * lost, the pending writes answer NOT_CONTROLLER (41) and the latest state reverts to the committed
 * image.
 *
 * Every operation returns a Promise that resolves once its batch is committed (at once when there
 * is nothing to write). With the single-node log a batch is committed inside the append, so the
 * change is in the image and the listeners have run when the call returns; the Promise resolves
 * on the next microtask.
 *
 * Client input is validated and answered with Kafka error codes (values, never exceptions; the
 * Promises reject only on bugs). A failure to append to the metadata log (disk failure) answers
 * KAFKA_STORAGE_ERROR (56) and puts the controller in a failed state where every later change
 * answers the same: the log may no longer match what this process believes, so only a restart
 * (replaying the log) may continue.
 */
import { type Clock, SystemClock } from '../io/clock.js';
import type { Time } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { BrokerHeartbeatManager, DEFAULT_BROKER_SESSION_TIMEOUT_MS } from './broker-heartbeat-manager.js';
import {
  type BrokerHeartbeat, type BrokerHeartbeatReply, ClusterControlManager, type RegisterBrokerRequest, type RegisterBrokerResult,
} from './cluster-control-manager.js';
import {
  type AlterConfigsRequest,
  type AlterConfigsResult,
  ConfigurationControlManager,
  type IncrementalAlterConfigsRequest,
} from './configuration-control-manager.js';
import {
  type ApiError, type ControllerResult, type FailedResponse, METADATA_VERSION_LEVEL, NONE, controllerAssert as assert, fail, failedResults,
} from './controller-result.js';
import {
  failedAlterPartition, failedAlterPartitionReassignments, failedCreateTopics, failedDeleteTopics, failedElectLeaders,
  failedHeartbeat, failedPlain, failedProducerIds, failedRegistration,
} from './failed-responses.js';
import {
  type BrokerEndpoint, type BrokerRegistration, type ConfigResource, MetadataImage, MetadataReplayError, type PartitionRegistration, type TopicImage,
} from './metadata-image.js';
import type { ControllerLimitsConfig } from './controller-limits.js';
import { BatchChanges, type MetadataListener } from './metadata-listener.js';
import { type LeaderAndEpoch, type MetadataBatch, type MetadataLog, MetadataLogError, type MetadataLogListener } from './metadata-log.js';
import { type MetadataRecord, MetadataRecordError, decodeMetadataRecord, encodeMetadataRecord, encodeMetadataRecords, metadataRecord } from './metadata-records.js';
import { imageRecords } from './metadata-snapshot.js';
import { PendingWrites } from './pending-writes.js';
import { ProducerIdControlManager, type ProducerIdBlockResult } from './producer-id-control-manager.js';
import { type ReplicaPlacer, RoundRobinReplicaPlacer } from './replica-placer.js';
import {
  type ControllerLogger, type CreatePartitionsRequest, type CreatePartitionsResult, type CreateTopicRequest, type CreateTopicResult,
  type DeleteTopicResult, ReplicationControlManager,
} from './replication-control-manager.js';
import { alterPartition } from './alter-partition-control.js';
import { type ElectLeadersTopic, balancePartitionLeaders, electLeaders, electUncleanLeaders } from './leader-election-control.js';
import { listPartitionReassignments } from './reassignment-control.js';
import type { AlterPartitionRequest, AlterPartitionResponseInit } from '../protocol/generated/alter-partition.js';
import type { AlterPartitionReassignmentsResponseInit, ReassignableTopic } from '../protocol/generated/alter-partition-reassignments.js';
import type { ElectLeadersResponseInit } from '../protocol/generated/elect-leaders.js';
import type { ListPartitionReassignmentsResponseInit, ListPartitionReassignmentsTopics } from '../protocol/generated/list-partition-reassignments.js';
import { type RandomSource, cryptoRandomSource } from './topic-id.js';

export { AlterConfigOp } from './configuration-control-manager.js';
export { METADATA_VERSION_LEVEL } from './controller-result.js';
export { PRODUCER_ID_BLOCK_SIZE } from './producer-id-control-manager.js';
export { DEFAULT_MAX_PARTITIONS, DEFAULT_MAX_RECORDS_PER_USER_OP } from './controller-limits.js';
export type { ApiError, ControllerResult } from './controller-result.js';
export type { BrokerHeartbeat, BrokerHeartbeatReply, RegisterBrokerRequest, RegisterBrokerResult } from './cluster-control-manager.js';
export type { AlterConfigsRequest, AlterConfigsResult, IncrementalAlterConfigsRequest } from './configuration-control-manager.js';
export type { MetadataListener, PartitionsChange } from './metadata-listener.js';
export type { ProducerIdBlockResult } from './producer-id-control-manager.js';
export type {
  CreatePartitionsRequest, CreatePartitionsResult, CreateTopicRequest, CreateTopicResult, DeleteTopicResult,
} from './replication-control-manager.js';
export type { BrokerEndpoint, BrokerRegistration, ConfigResource, PartitionRegistration, TopicImage };

/** The broker configs the controller follows (a BrokerConfig fits). */
export interface ControllerConfig extends ControllerLimitsConfig {
  /** node.id: this controller's (and, combined, its broker's) id. */
  readonly nodeId: number;
  /** num.partitions: partitions of a topic created with numPartitions -1. */
  readonly numPartitions: number;
  /** default.replication.factor: replication factor of a topic created with -1. */
  readonly defaultReplicationFactor: number;
  /** delete.topic.enable: DeleteTopics answers TOPIC_DELETION_DISABLED (73) when false. */
  readonly deleteTopicEnable: boolean;
  /** unclean.leader.election.enable: topics without an override may elect outside the ISR; default false. */
  readonly uncleanLeaderElectionEnable?: boolean;
  /** metadata.log.max.record.bytes.between.snapshots; absent: no snapshots (logs that cannot store them ignore it). */
  readonly metadataLogMaxRecordBytesBetweenSnapshots?: number;
}

export interface QuorumControllerOptions {
  readonly config: ControllerConfig;
  /** The metadata log; its committed batches are replayed in the constructor. */
  readonly log: MetadataLog;
  /**
   * Default SystemClock. Broker sessions are timed on its `monotonicMs` when it has one (a
   * {@link Time}), else on `nowMs`.
   */
  readonly clock?: Clock & Partial<Pick<Time, 'monotonicMs'>>;
  /** `broker.session.timeout.ms`: see {@link QuorumController.expireBrokerSessions}; default 9 000 ms. */
  readonly brokerSessionTimeoutMs?: number;
  /** Topic ids, incarnation ids and placement starts; default node:crypto. */
  readonly random?: RandomSource;
  /** Default RoundRobinReplicaPlacer driven by `random`. */
  readonly replicaPlacer?: ReplicaPlacer;
  /** Where unclean leader elections are reported; default silent. */
  readonly logger?: ControllerLogger;
}

export class QuorumController implements MetadataLogListener {
  private readonly config: ControllerConfig;
  private readonly log: MetadataLog;
  private readonly random: RandomSource;
  private readonly listeners: MetadataListener[] = [];
  /** Committed records only: what {@link image} shows and the listeners hear. */
  private readonly committed = new MetadataImage();
  /** The managers' state: `committed` itself while inactive, a copy plus uncommitted records while active. */
  private latest: MetadataImage = this.committed;
  private readonly pending = new PendingWrites();
  private readonly cluster: ClusterControlManager;
  private readonly replication: ReplicationControlManager;
  private readonly configuration: ConfigurationControlManager;
  private readonly producerIds: ProducerIdControlManager;
  /** Offset of the last committed record replayed, -1 before any. */
  private lastCommitted = -1;
  /** Bytes of records committed since the last snapshot (written or loaded). */
  private bytesSinceSnapshot = 0;
  /** The epoch this controller writes in while active; -1 while not. */
  private writeEpoch = -1;
  /** The offset the next appended record gets (while active). */
  private nextWriteOffset = 0;
  private leader: LeaderAndEpoch = { leaderId: -1, epoch: 0 };
  private failure: string | null = null;
  /** Set when the bootstrap records could not be appended on becoming active. */
  private bootstrapFailure: ApiError | null = null;
  /**
   * The records of the batches this controller appended, keyed by the encoded values array it
   * handed the log: a log that commits that same array (the embedded single-node log, inside the
   * append) lets {@link handleCommit} replay the records instead of decoding what was just encoded.
   * An entry is dropped once its batch is committed; a log that hands back other arrays (Raft,
   * which reads the batch back) is decoded as any other leader's.
   */
  private readonly ownBatches = new WeakMap<readonly Uint8Array[], readonly MetadataRecord[]>();
  /** Injected time: broker sessions. */
  readonly clock: Clock & Partial<Pick<Time, 'monotonicMs'>>;
  /** When each broker was last heard from (active controller only; rebuilt on becoming active). */
  private readonly heartbeats: BrokerHeartbeatManager;

  /**
   * Replays the committed metadata log into the image, registers with the log and, when it makes
   * this node the leader and the log is empty, writes the bootstrap records (FeatureLevelRecord
   * metadata.version).
   * @throws MetadataRecordError / MetadataReplayError when the log holds a record that cannot be
   *   decoded or applied (corrupt metadata: the broker must not start on it)
   * @throws MetadataLogError when the log cannot be read or the bootstrap cannot be written
   */
  constructor(options: QuorumControllerOptions) {
    this.config = options.config;
    this.log = options.log;
    this.clock = options.clock ?? new SystemClock();
    this.random = options.random ?? cryptoRandomSource;
    this.heartbeats = new BrokerHeartbeatManager(options.brokerSessionTimeoutMs ?? DEFAULT_BROKER_SESSION_TIMEOUT_MS);
    const latest = (): MetadataImage => this.latest;
    this.replication = new ReplicationControlManager({
      config: this.config,
      latest,
      random: this.random,
      replicaPlacer: options.replicaPlacer ?? new RoundRobinReplicaPlacer((bound) => this.nextInt(bound)),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
    this.cluster = new ClusterControlManager({ latest, nextOffset: () => this.nextWriteOffset, random: this.random, replication: this.replication });
    this.configuration = new ConfigurationControlManager(latest);
    this.producerIds = new ProducerIdControlManager(latest, this.cluster);
    for (const batch of this.log.readCommitted(0)) this.handleCommit(batch);
    this.log.register(this);
    if (this.bootstrapFailure !== null) {
      throw new MetadataLogError(`cannot bootstrap the metadata log: ${this.bootstrapFailure.errorMessage}`, { errorCode: this.bootstrapFailure.errorCode });
    }
  }

  /** The committed metadata image (changes as batches are committed; its snapshots do not). */
  get image(): MetadataImage {
    return this.committed;
  }

  /** This controller's node id (Metadata's controller id). */
  get nodeId(): number {
    return this.config.nodeId;
  }

  /** Offset of the last record in the image (the last committed one), -1 for none. */
  get lastCommittedOffset(): number {
    return this.lastCommitted;
  }

  /** Whether this controller is the active one (leads the metadata log) and accepts changes. */
  get isActive(): boolean {
    return this.writeEpoch >= 0;
  }

  /** The metadata log's leader as last heard (leaderId -1: none known). */
  get leaderAndEpoch(): LeaderAndEpoch {
    return this.leader;
  }

  /** Appended batches not yet committed (their operations have not answered). */
  get pendingWriteCount(): number {
    return this.pending.size;
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
  // Operations: each runs a manager on the latest state, appends what it returns and answers once
  // that is committed. Errors: the manager's; NOT_CONTROLLER (41) on a controller that is not
  // active or loses the leadership before the commit; KAFKA_STORAGE_ERROR (56) when the metadata
  // log fails; the log's refusal of the batch (e.g. MESSAGE_TOO_LARGE 10).

  /**
   * {@link ClusterControlManager.registerBroker}; a registration the active controller accepts
   * starts the broker's session (it counts as heard from now).
   * A fenced registration (a remote broker's BrokerRegistration) whose incarnation id differs from
   * that of a current unfenced registration with a live session answers
   * DUPLICATE_BROKER_REGISTRATION (101), as Kafka does: two processes with one node.id must not
   * take turns; the new one is accepted once the old one's session expired and it was fenced, or
   * when `previousBrokerEpoch` names the current registration (the same broker after a clean restart).
   */
  registerBroker(request: RegisterBrokerRequest & { readonly previousBrokerEpoch?: number }): Promise<RegisterBrokerResult> {
    return this.perform(() => {
      const duplicate = this.duplicateRegistration(request);
      if (duplicate !== null) return { records: [], response: { ...duplicate, brokerEpoch: -1 } };
      const result = this.cluster.registerBroker(request);
      if (this.isActive && result.response.errorCode === ErrorCode.NONE) this.heartbeats.touch(request.brokerId, this.sessionNowMs());
      return result;
    }, failedRegistration);
  }

  /**
   * {@link ClusterControlManager.processBrokerHeartbeat} (BrokerHeartbeat, api key 63): unfences a
   * caught-up broker, fences on `wantFence`, runs a controlled shutdown on `wantShutDown`; each
   * heartbeat of the current registration renews the broker's session on the active controller.
   * Errors: STALE_BROKER_EPOCH (77) (register again), NOT_CONTROLLER (41), KAFKA_STORAGE_ERROR (56);
   * on any error `isFenced` is true.
   */
  brokerHeartbeat(heartbeat: BrokerHeartbeat): Promise<BrokerHeartbeatReply> {
    return this.perform(() => {
      const result = this.cluster.processBrokerHeartbeat(heartbeat);
      if (this.isActive && result.response.errorCode === ErrorCode.NONE) this.heartbeats.touch(heartbeat.brokerId, this.sessionNowMs());
      return result;
    }, failedHeartbeat);
  }

  /** {@link ClusterControlManager.unfenceBroker}. */
  unfenceBroker(brokerId: number, brokerEpoch: number): Promise<ApiError> {
    return this.perform(() => this.cluster.unfenceBroker(brokerId, brokerEpoch), failedPlain);
  }

  /** {@link ClusterControlManager.fenceBroker}. */
  fenceBroker(brokerId: number, brokerEpoch: number): Promise<ApiError> {
    return this.perform(() => this.cluster.fenceBroker(brokerId, brokerEpoch), failedPlain);
  }

  /** {@link ClusterControlManager.unregisterBroker}; the broker's session ends. */
  unregisterBroker(brokerId: number): Promise<ApiError> {
    return this.perform(() => {
      const result = this.cluster.unregisterBroker(brokerId);
      if (result.response.errorCode === ErrorCode.NONE) this.heartbeats.remove(brokerId);
      return result;
    }, failedPlain);
  }

  /**
   * Session expiry (Kafka's fencing of stale brokers): on the active controller, fences every
   * registered unfenced broker not heard from (BrokerRegistration or BrokerHeartbeat) for more
   * than `broker.session.timeout.ms`, each through {@link fenceBroker}'s records (it leaves ISRs,
   * leadership moves). Returns the ids fenced, ascending, once their batches are committed; []
   * on a controller that is not active. The caller drives it on its timer
   * ({@link nextBrokerSessionExpiryDelayMs} says when); only run it where every broker heartbeats
   * (the embedded single node registers its broker unfenced and never heartbeats).
   */
  async expireBrokerSessions(): Promise<number[]> {
    if (!this.isActive) return [];
    const unfenced = this.latest.brokers().filter((b) => !b.fenced);
    const expired = this.heartbeats.expired(unfenced.map((b) => b.brokerId), this.sessionNowMs());
    const fenced = await Promise.all(expired.map(async (brokerId) => {
      const epoch = this.latest.broker(brokerId)!.brokerEpoch;
      const result = await this.fenceBroker(brokerId, epoch);
      return result.errorCode === ErrorCode.NONE ? brokerId : -1;
    }));
    return fenced.filter((id) => id >= 0);
  }

  /**
   * ms until {@link expireBrokerSessions} may next find an expired session: the earliest
   * `last contact + broker.session.timeout.ms + 1` of the unfenced brokers, minus now (0 when
   * one is due); null when not active or no broker is unfenced.
   */
  nextBrokerSessionExpiryDelayMs(): number | null {
    if (!this.isActive) return null;
    const now = this.sessionNowMs();
    let earliest: number | null = null;
    for (const broker of this.latest.brokers()) {
      if (broker.fenced) continue;
      const last = this.heartbeats.lastContact(broker.brokerId) ?? now;
      const delay = Math.max(0, last + this.heartbeats.sessionTimeoutMs + 1 - now);
      if (earliest === null || delay < earliest) earliest = delay;
    }
    return earliest;
  }

  /** `broker.session.timeout.ms` this controller applies, ms. */
  get brokerSessionTimeoutMs(): number {
    return this.heartbeats.sessionTimeoutMs;
  }

  /** {@link ReplicationControlManager.createTopics}; the created topics are one batch. */
  createTopics(topics: readonly CreateTopicRequest[], options: { validateOnly?: boolean } = {}): Promise<CreateTopicResult[]> {
    return this.perform(() => this.replication.createTopics(topics, options), failedCreateTopics);
  }

  /** {@link ReplicationControlManager.deleteTopics}; the deletions are one batch. */
  deleteTopics(names: readonly string[]): Promise<DeleteTopicResult[]> {
    return this.perform(() => this.replication.deleteTopics(names), failedDeleteTopics);
  }

  /** {@link ReplicationControlManager.createPartitions}; the new partitions are one batch. */
  createPartitions(topics: readonly CreatePartitionsRequest[], options: { validateOnly?: boolean } = {}): Promise<CreatePartitionsResult[]> {
    return this.perform(() => this.replication.createPartitions(topics, options), failedResults<CreatePartitionsResult>());
  }

  /** {@link ConfigurationControlManager.alterConfigs}. */
  alterConfigs(resources: readonly AlterConfigsRequest[], options: { validateOnly?: boolean } = {}): Promise<AlterConfigsResult[]> {
    return this.afterUncleanChange(resources, this.perform(() => this.configuration.alterConfigs(resources, options), failedResults<AlterConfigsResult>()));
  }

  /** {@link ConfigurationControlManager.incrementalAlterConfigs}. */
  incrementalAlterConfigs(resources: readonly IncrementalAlterConfigsRequest[], options: { validateOnly?: boolean } = {}): Promise<AlterConfigsResult[]> {
    return this.afterUncleanChange(resources, this.perform(() => this.configuration.incrementalAlterConfigs(resources, options), failedResults<AlterConfigsResult>()));
  }

  /** A committed change that may allow unclean elections runs them for the offline partitions at once (Kafka does too). */
  private async afterUncleanChange<R extends readonly ApiError[]>(
    resources: readonly { readonly configs: readonly { readonly name: string }[] }[], done: Promise<R>,
  ): Promise<R> {
    const results = await done;
    const touched = resources.some((r, i) => results[i]?.errorCode === ErrorCode.NONE && r.configs.some((c) => c.name === 'unclean.leader.election.enable'));
    if (touched) await this.electUncleanLeaders();
    return results;
  }

  /**
   * AlterPartition (api key 56, `version` 0-3) from a partition leader: alter-partition-control.ts
   * has the rules. A proposal answered without a new record (already applied) still waits until
   * everything appended before it is committed, so no answer describes uncommitted state.
   * NOT_CONTROLLER (41) and KAFKA_STORAGE_ERROR (56) come back as the top-level error code.
   */
  alterPartition(request: AlterPartitionRequest, version: number): Promise<AlterPartitionResponseInit> {
    return this.perform(() => alterPartition({
      ...this.replication.electionContext(),
      checkBrokerEpoch: (brokerId, brokerEpoch) => this.cluster.checkBrokerEpoch(brokerId, brokerEpoch),
    }, request, version), failedAlterPartition, { readAfterWrites: true });
  }

  /**
   * ElectLeaders (api key 43): `electionType` 0 PREFERRED or 1 UNCLEAN, `topicPartitions` null for
   * every partition; rules in leader-election-control.ts. Answers once the elections are committed.
   */
  electLeaders(electionType: number, topicPartitions: readonly ElectLeadersTopic[] | null): Promise<ElectLeadersResponseInit> {
    return this.perform(() => electLeaders(this.replication.electionContext(), electionType, topicPartitions), failedElectLeaders, { readAfterWrites: true });
  }

  /**
   * One round of `auto.leader.rebalance.enable`'s preferred leader balancing with
   * `leader.imbalance.per.broker.percentage` (leader-election-control.ts). Answers how many
   * leaders moved once committed (0 on a controller that is not active).
   */
  balancePartitionLeaders(imbalancePercentage: number): Promise<number> {
    if (!this.isActive) return Promise.resolve(0);
    return this.perform(() => balancePartitionLeaders(this.replication.electionContext(), imbalancePercentage), () => 0);
  }

  /**
   * Unclean elections for the leaderless partitions whose topic allows them (Kafka's
   * maybeElectUncleanLeaders; also run after a change of unclean.leader.election.enable). Answers
   * how many partitions got a leader (0 on a controller that is not active).
   */
  electUncleanLeaders(): Promise<number> {
    if (!this.isActive) return Promise.resolve(0);
    return this.perform(() => electUncleanLeaders(this.replication.electionContext()), () => 0);
  }

  /**
   * AlterPartitionReassignments (api key 45, KIP-455): rules in reassignment-control.ts; the
   * changes are one batch, answered once committed (NOT_CONTROLLER 41 at the top level when not).
   */
  alterPartitionReassignments(topics: readonly ReassignableTopic[]): Promise<AlterPartitionReassignmentsResponseInit> {
    return this.perform(() => this.replication.alterPartitionReassignments(topics), failedAlterPartitionReassignments);
  }

  /**
   * ListPartitionReassignments (api key 46) from the committed image; NOT_CONTROLLER (41) at the
   * top level on a controller that is not active (the broker asks the active one).
   */
  listPartitionReassignments(topics: readonly ListPartitionReassignmentsTopics[] | null): ListPartitionReassignmentsResponseInit {
    if (!this.isActive) return { throttleTimeMs: 0, ...this.notController(), topics: [] };
    return listPartitionReassignments(this.committed, topics);
  }

  /** {@link ProducerIdControlManager.allocateProducerIds}. */
  allocateProducerIds(brokerId: number, brokerEpoch: number): Promise<ProducerIdBlockResult> {
    return this.perform(() => this.producerIds.allocateProducerIds(brokerId, brokerEpoch), failedProducerIds);
  }

  // ---------------------------------------------------------------------------------------------
  // The metadata log's listener

  /**
   * A committed batch (ours or another leader's): replays it into the committed image, tells the
   * listeners, then answers the pending writes it completes. Records at or below the last
   * committed offset (handed before) are skipped.
   * @throws MetadataRecordError / MetadataReplayError for a record that cannot be decoded or
   *   applied (message prefixed with its offset); the first listener exception, after the batch
   *   is committed and the pending writes answered
   */
  handleCommit(batch: MetadataBatch): void {
    if (batch.lastOffset <= this.lastCommitted) return;
    assert(batch.lastOffset - batch.baseOffset + 1 === batch.records.length, `committed batch ${batch.baseOffset}-${batch.lastOffset} has ${batch.records.length} records`);
    // Records handed before (a log replaying from its start, a batch delivered again) are skipped.
    const alreadyApplied = Math.max(0, this.lastCommitted + 1 - batch.baseOffset);
    const changes = new BatchChanges();
    // Our own batch: the records it was encoded from (decoding them gives the same records).
    const own = this.ownBatches.get(batch.records);
    this.ownBatches.delete(batch.records);
    const values = batch.records;
    for (let index = alreadyApplied; index < values.length; index++) {
      try {
        const record = own !== undefined && own.length === values.length ? own[index]! : decodeMetadataRecord(values[index]!);
        changes.note(record, this.committed);
        this.committed.replay(record);
      } catch (error) {
        if (error instanceof MetadataRecordError || error instanceof MetadataReplayError) {
          error.message = `metadata log offset ${batch.baseOffset + index}: ${error.message}`;
        }
        throw error;
      }
    }
    this.lastCommitted = batch.lastOffset;
    this.bytesSinceSnapshot += batch.records.reduce((sum, value) => sum + value.length, 0);
    this.maybeSnapshot();
    // Our own batches are in the latest state since their append; another leader's are not (the
    // log promises none arrive while we lead, but rebuilding keeps the states consistent anyway).
    if (this.isActive && batch.epoch !== this.writeEpoch) this.revertToCommitted();
    try {
      changes.publish(this.listeners, this.committed);
    } finally {
      this.pending.completeUpTo(this.lastCommitted);
    }
  }

  /**
   * The log starts at a snapshot (Kafka's MetadataLoader handling a snapshot): the committed image
   * becomes the snapshot's, listeners hear what differs from the replayed one, and commits go on at
   * `endOffset`. @throws MetadataRecordError / MetadataReplayError for a corrupt snapshot
   */
  handleLoadSnapshot(endOffset: number, records: readonly Uint8Array[]): void {
    const image = new MetadataImage();
    for (const value of records) image.replay(decodeMetadataRecord(value));
    const before = this.committed.copy();
    this.committed.assign(image);
    this.lastCommitted = endOffset - 1;
    this.bytesSinceSnapshot = 0;
    this.revertToCommitted();
    try {
      BatchChanges.between(before, this.committed).publish(this.listeners, this.committed);
    } finally {
      this.pending.completeUpTo(this.lastCommitted);
    }
  }

  /**
   * The log's leader changed: a controller that led another epoch renounces (its pending writes
   * answer NOT_CONTROLLER 41, its latest state reverts to the committed image); one named leader
   * claims (becomes active in that epoch and, on an empty log, writes the bootstrap records).
   */
  handleLeaderChange(leader: LeaderAndEpoch): void {
    this.leader = leader;
    if (this.isActive && (leader.leaderId !== this.config.nodeId || leader.epoch !== this.writeEpoch)) this.renounce();
    if (!this.isActive && leader.leaderId === this.config.nodeId) this.claim(leader.epoch);
  }

  // ---------------------------------------------------------------------------------------------
  // Internals

  /**
   * Runs `operation` on the latest state and writes its records as one batch (nothing to do
   * without any); answers once the batch is committed, or `failed(response, error)` when it is
   * not appended or not committed.
   */
  private async perform<T>(operation: () => ControllerResult<T>, failed: FailedResponse<T>, options: { readAfterWrites?: boolean } = {}): Promise<T> {
    const { records, response } = operation();
    if (!this.isActive) return failed(response, this.notController(), true);
    if (records.length === 0) {
      // The answer may describe the records of writes still pending (the latest state): wait for
      // their commit (Kafka does for every write event). Only our pending writes count: the log's
      // end may be a record the controller never sees committed (Raft's leader-change record).
      const lastPending = this.pending.lastOffset;
      if (options.readAfterWrites !== true || lastPending <= this.lastCommitted) return response;
      const outcome = await this.awaitCommit(lastPending, []);
      return outcome.errorCode === ErrorCode.NONE ? response : failed(response, outcome, true);
    }
    const appended = this.append(records);
    if (typeof appended !== 'number') return failed(response, appended, appended.errorCode === ErrorCode.NOT_CONTROLLER);
    const outcome = await this.awaitCommit(appended, records);
    return outcome.errorCode === ErrorCode.NONE ? response : failed(response, outcome, true);
  }

  /**
   * Applies `records` to the latest state and appends them as one batch; returns the batch's last
   * offset, or why it was not appended: KAFKA_STORAGE_ERROR (56, then and afterwards),
   * NOT_CONTROLLER (41), or the log's refusal. On any failure the latest state reverts.
   */
  private append(records: readonly MetadataRecord[]): number | ApiError {
    assert(records.length > 0, 'a write has records');
    if (this.failure !== null) return fail(ErrorCode.KAFKA_STORAGE_ERROR, this.failure);
    const values = encodeMetadataRecords(records);
    for (const record of records) this.replay(record);
    this.ownBatches.set(values, records);
    let lastOffset: number;
    try {
      lastOffset = this.log.append(this.writeEpoch, values);
    } catch (error) {
      // Whatever happened (also a listener's exception after the commit), rebuild from what is committed.
      this.revertToCommitted();
      if (!(error instanceof MetadataLogError)) throw error;
      if (error.errorCode === ErrorCode.KAFKA_STORAGE_ERROR) {
        this.failure = `The metadata log failed; restart the broker once the disk is healthy (${error.message}).`;
        return fail(ErrorCode.KAFKA_STORAGE_ERROR, this.failure);
      }
      if (error.errorCode === ErrorCode.NOT_CONTROLLER) return this.notController();
      return fail(error.errorCode, `The metadata log refused the change: ${error.message}`);
    }
    assert(lastOffset >= this.nextWriteOffset + records.length - 1, 'metadata log offsets grow');
    this.nextWriteOffset = lastOffset + 1;
    return lastOffset;
  }

  /** Resolves with NONE once the batch ending at `lastOffset` is committed, NOT_CONTROLLER (41) if it will not be. */
  private awaitCommit(lastOffset: number, records: readonly MetadataRecord[]): Promise<ApiError> {
    return new Promise((resolve) => {
      this.pending.add({ lastOffset, records, complete: () => resolve(NONE), fail: () => resolve(this.notController()) });
      this.pending.completeUpTo(this.lastCommitted);
    });
  }

  /** Becomes the active controller of `epoch`: writes go on top of a copy of the committed image. */
  private claim(epoch: number): void {
    this.writeEpoch = epoch;
    this.latest = this.committed.copy();
    this.nextWriteOffset = this.log.endOffset();
    // Session times are not in the log: every registered broker counts as heard from now.
    this.heartbeats.resetAll(this.committed.brokers().map((b) => b.brokerId), this.sessionNowMs());
    if (this.latest.featureLevel('metadata.version') !== undefined) return;
    const records = [metadataRecord('FeatureLevelRecord', 0, { name: 'metadata.version', featureLevel: METADATA_VERSION_LEVEL })];
    const appended = this.append(records);
    if (typeof appended === 'number') void this.awaitCommit(appended, records);
    else if (appended.errorCode !== ErrorCode.NOT_CONTROLLER) this.bootstrapFailure = appended;
  }

  /** Stops being active: the pending writes answer NOT_CONTROLLER (41), the uncommitted state is dropped. */
  private renounce(): void {
    this.writeEpoch = -1;
    this.revertToCommitted();
    this.pending.failAll();
  }

  /** Writes the committed image as a snapshot once `metadataLogMaxRecordBytesBetweenSnapshots` were committed since the last. */
  private maybeSnapshot(): void {
    const limit = this.config.metadataLogMaxRecordBytesBetweenSnapshots;
    if (limit === undefined || this.log.createSnapshot === undefined || this.bytesSinceSnapshot < limit) return;
    this.bytesSinceSnapshot = 0;
    this.log.createSnapshot(this.lastCommitted + 1, imageRecords(this.committed).map(encodeMetadataRecord));
  }

  /**
   * Rebuilds the latest state from the committed image: while inactive it is the committed image
   * itself; while active, a copy with the still pending writes' records replayed on top.
   */
  private revertToCommitted(): void {
    if (!this.isActive) {
      this.latest = this.committed;
      return;
    }
    this.latest = this.committed.copy();
    for (const write of this.pending.writes()) {
      if (write.lastOffset > this.lastCommitted) for (const record of write.records) this.replay(record);
    }
    this.nextWriteOffset = Math.max(this.nextWriteOffset, this.log.endOffset());
  }

  /** The time broker sessions are measured on, ms. */
  private sessionNowMs(): number {
    return this.clock.monotonicMs !== undefined ? this.clock.monotonicMs() : this.clock.nowMs();
  }

  /** DUPLICATE_BROKER_REGISTRATION (101) for a fenced registration racing a live one of another incarnation (see registerBroker); null otherwise. */
  private duplicateRegistration(request: RegisterBrokerRequest & { readonly previousBrokerEpoch?: number }): ApiError | null {
    if (request.fenced !== true || !this.isActive || request.incarnationId === undefined) return null;
    const existing = this.latest.broker(request.brokerId);
    if (existing === undefined || existing.fenced || existing.incarnationId === request.incarnationId) return null;
    if (request.previousBrokerEpoch === existing.brokerEpoch) return null;
    const last = this.heartbeats.lastContact(request.brokerId);
    if (last === undefined || this.sessionNowMs() - last > this.heartbeats.sessionTimeoutMs) return null;
    return fail(ErrorCode.DUPLICATE_BROKER_REGISTRATION,
      `Broker ${request.brokerId} is registered by another process (incarnation ${existing.incarnationId}) whose session is live; retry after broker.session.timeout.ms (${this.heartbeats.sessionTimeoutMs} ms).`);
  }

  private notController(): ApiError {
    const leader = this.leader.leaderId >= 0 ? `node ${this.leader.leaderId} (epoch ${this.leader.epoch})` : 'not known yet';
    return fail(ErrorCode.NOT_CONTROLLER, `Node ${this.config.nodeId} is not the active controller; the active controller is ${leader}.`);
  }

  /** Uniform integer in [0, bound) from the injected randomness. */
  private nextInt(bound: number): number {
    const bytes = new Uint8Array(4);
    this.random.fill(bytes);
    const value = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
    return value % bound;
  }

  /** Applies one record to the latest state through the manager that owns its type. */
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
        return this.latest.replay(record);
    }
  }
}
