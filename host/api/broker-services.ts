/**
 * What the API handlers reach of the broker: one object built by the composition root
 * (host/broker.ts) and handed to every request through its context. Handlers depend on these
 * narrow shapes, not on how the broker wires them, so handler tests can pass small fakes.
 */
import type { AutoCreateRefusalLog } from './auto-topic-creation.js';
import type { ControllerMutationQuotaManager } from './controller-mutation-quota.js';
import type { BrokerConfig } from '../config/broker-config.js';
import type { GroupCoordinator } from '../coordinator/group-coordinator.js';
import type { TransactionCoordinator } from '../coordinator/transaction-coordinator.js';
import type { PartitionLog } from '../replication/partition-log.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { ClusterMetadata } from './cluster-metadata.js';
import type { MetadataResponseCache } from './metadata-response-cache.js';
import type { BrokerTopicMetrics } from '../metrics/broker-topic-metrics.js';
import type { RequestMetrics } from '../metrics/request-metrics.js';

/** An endpoint clients can connect to. */
export interface BrokerEndpoint {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

/** The log operations handlers need beyond replication (ListOffsets by time); UnifiedLog has them. */
export interface PartitionLogAccess {
  /** Kafka's fetchOffsetByTimestamp: -1 latest (log end), -2 earliest, else the first record with timestamp >= t. */
  fetchOffsetByTimestamp(timestampMs: number): { offset: number; timestamp: number } | null;
  /** True when the log's directory failed (reads answer KAFKA_STORAGE_ERROR). */
  readonly isOffline: boolean;
}

/** One replica of the metadata quorum as DescribeQuorum reports it (times wall-clock ms, -1 unknown). */
export interface QuorumReplicaState {
  readonly replicaId: number;
  readonly logEndOffset: number;
  readonly lastFetchTimestamp: number;
  readonly lastCaughtUpTimestamp: number;
}

/** The metadata quorum as its leader describes it (DescribeQuorum's partition data). */
export interface QuorumDescription {
  /** 0, or NOT_LEADER_OR_FOLLOWER (6) / REQUEST_TIMED_OUT (7) when the leader could not be asked. */
  readonly errorCode: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly highWatermark: number;
  readonly currentVoters: readonly QuorumReplicaState[];
  readonly observers: readonly QuorumReplicaState[];
}

export interface BrokerServices {
  readonly config: BrokerConfig;
  readonly nodeId: number;
  readonly metadata: ClusterMetadata;
  readonly replicaManager: ReplicaManager<PartitionLog & PartitionLogAccess>;
  /** The group coordinator once loaded (see {@link loadGroupCoordinator}); absent before. */
  readonly groupCoordinator?: GroupCoordinator;
  /**
   * Loads the group coordinator where the broker loads it lazily (after start-up, with the first
   * group request, or at start-up when `__consumer_offsets` exists); resolves with it.
   */
  loadGroupCoordinator?(): Promise<GroupCoordinator>;
  /** The transaction coordinator; absent where the broker runs none (handlers answer COORDINATOR_NOT_AVAILABLE). */
  readonly transactionCoordinator?: TransactionCoordinator;
  /**
   * Loads the transaction coordinator where the broker loads it lazily (after start-up, or with the
   * first request that needs it); resolves with it, or undefined where the broker runs none.
   */
  loadTransactionCoordinator?(): Promise<TransactionCoordinator | undefined>;
  /**
   * The brokers as clients reach them through `listenerName` (Kafka answers Metadata with the
   * endpoints of the listener the request came in on).
   */
  brokers(listenerName: string): BrokerEndpoint[];
  /** Creates `__consumer_offsets` if it does not exist yet; resolves with a Kafka error code. */
  ensureOffsetsTopic(): Promise<number>;
  /** Creates `__transaction_state` if it does not exist yet; resolves with a Kafka error code (absent: COORDINATOR_NOT_AVAILABLE). */
  ensureTransactionStateTopic?(): Promise<number>;
  /** Wall clock, ms since the epoch. */
  nowMs(): number;
  /** KIP-599 controller mutation quotas (CreateTopics, CreatePartitions, DeleteTopics, auto-creation); none: unbounded. */
  readonly controllerMutationQuota?: ControllerMutationQuotaManager;
  /**
   * Throttle of the `auto_create.refused` warn lines (auto-topic-creation.ts), one per broker;
   * none: one line per request that had refusals.
   */
  readonly autoCreateRefusalLog?: AutoCreateRefusalLog;
  /** The metadata quorum, from its leader (DescribeQuorum). */
  describeQuorum(): Promise<QuorumDescription>;
  /**
   * Messages and bytes in/out per topic (Produce and consumer Fetch count into it once per
   * partition); none: not counted.
   */
  readonly topicMetrics?: BrokerTopicMetrics;
  /** Requests per API and error answers (the dispatcher and the Produce/Fetch handlers count into it). */
  readonly requestMetrics?: RequestMetrics;
  /**
   * Runs a task in a later event-loop turn (the Environment's `time.defer`): handlers working
   * through very long partition or group lists yield through it between slices
   * (request-slices.ts, issue 15). Absent: no yielding (every slice at once).
   */
  readonly defer?: (task: () => void) => void;
  /**
   * The encoded all-topics Metadata answers, reused until the metadata cache changes
   * (metadata.response.cache.max.bytes). Absent: every answer is built and encoded afresh.
   */
  readonly metadataResponseCache?: MetadataResponseCache;
  /**
   * The broker's `queued.max.response.bytes` pool (network/response-memory-pool.ts): while it is
   * over its budget, Fetch v3+ answers with the first record batch only (KIP-74's minimum), so a
   * connection holds one batch rather than fetch.max.bytes. Absent: never over.
   */
  readonly responseMemory?: {
    readonly overCapacity: boolean;
    /** Counts a Fetch's expected bytes until the current synchronous task (the dispatch loop that read it) ends. */
    holdUntilTaskEnds(bytes: number): void;
  };
}

/**
 * The broker's transaction coordinator, waiting for it where it is still loading; undefined where
 * the broker runs none (the caller answers COORDINATOR_NOT_AVAILABLE, 15).
 */
export async function transactionCoordinatorOf(broker: BrokerServices): Promise<TransactionCoordinator | undefined> {
  return broker.transactionCoordinator ?? (await broker.loadTransactionCoordinator?.());
}

/**
 * The broker's group coordinator, loaded first where the broker loads it lazily (a single node
 * that has no `__consumer_offsets` yet imports it after start-up or with the first group request).
 * @throws Error when the broker runs none (the dispatcher answers the request's error response)
 */
export async function groupCoordinatorOf(broker: BrokerServices): Promise<GroupCoordinator> {
  const coordinator = broker.groupCoordinator ?? await broker.loadGroupCoordinator?.();
  if (coordinator === undefined) throw new Error('this broker runs no group coordinator');
  return coordinator;
}
