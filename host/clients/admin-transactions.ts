/**
 * Transactions as an admin sees them (KIP-664, what `kafka-transactions.sh` sends):
 * ListTransactions (api key 66) to every broker (each lists the transactional ids it
 * coordinates), DescribeTransactions (api key 65) to the coordinator of each id (FindCoordinator
 * key type 1), DescribeProducers (api key 61) to each partition's leader, and the abort of a
 * transactional id's open transaction by fencing it.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { CoordinatorType, type Cluster } from './cluster.js';
import { KafkaError } from './errors.js';

/** One transactional id as ListTransactions lists it. */
export interface TransactionListing {
  transactionalId: string;
  producerId: number;
  /** Kafka's state name: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort. */
  state: string;
  /** The broker coordinating it. */
  coordinatorId: number;
}

/** One transactional id as DescribeTransactions describes it. */
export interface TransactionDescription {
  transactionalId: string;
  state: string;
  producerId: number;
  producerEpoch: number;
  transactionTimeoutMs: number;
  /** -1 when no transaction is open. */
  transactionStartTimeMs: number;
  partitions: { topic: string; partition: number }[];
  coordinatorId: number;
}

/**
 * Every transactional id of the cluster, optionally filtered by state names, producer ids and
 * (brokers with ListTransactions v1) a minimum running time. @throws KafkaError for a broker's error
 */
export async function listTransactions(cluster: Cluster, filters: { states?: string[]; producerIds?: number[]; minDurationMs?: number } = {}): Promise<TransactionListing[]> {
  await cluster.refreshMetadata([]);
  const listings = await Promise.all([...cluster.brokers.keys()].map(async (nodeId) => {
    const connection = await cluster.connectionTo(nodeId);
    const response = await connection.request(ApiKey.ListTransactions, {
      stateFilters: filters.states ?? [], producerIdFilters: filters.producerIds ?? [], durationFilter: filters.minDurationMs ?? -1,
    });
    if (response.errorCode !== ErrorCode.NONE) throw new KafkaError(response.errorCode, `ListTransactions on broker ${nodeId}`);
    return response.transactionStates.map((txn) => ({
      transactionalId: txn.transactionalId, producerId: txn.producerId, state: txn.transactionState, coordinatorId: nodeId,
    }));
  }));
  return listings.flat().sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : a.transactionalId > b.transactionalId ? 1 : 0));
}

/** The state of each transactional id from its coordinator. @throws KafkaError (e.g. TRANSACTIONAL_ID_NOT_FOUND 105) */
export async function describeTransactions(cluster: Cluster, transactionalIds: readonly string[]): Promise<TransactionDescription[]> {
  return Promise.all(transactionalIds.map(async (transactionalId) => {
    const { nodeId, connection } = await cluster.coordinator(transactionalId, CoordinatorType.TRANSACTION);
    const response = await connection.request(ApiKey.DescribeTransactions, { transactionalIds: [transactionalId] });
    const state = response.transactionStates[0];
    if (state === undefined) throw new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, `DescribeTransactions "${transactionalId}": no answer`);
    if (state.errorCode !== ErrorCode.NONE) {
      if (state.errorCode === ErrorCode.NOT_COORDINATOR) cluster.forgetCoordinator(transactionalId, CoordinatorType.TRANSACTION);
      throw new KafkaError(state.errorCode, `DescribeTransactions "${transactionalId}"`);
    }
    return {
      transactionalId,
      state: state.transactionState,
      producerId: state.producerId,
      producerEpoch: state.producerEpoch,
      transactionTimeoutMs: state.transactionTimeoutMs,
      transactionStartTimeMs: state.transactionStartTimeMs,
      partitions: state.topics.flatMap((topic) => topic.partitions.map((partition) => ({ topic: topic.topic, partition }))),
      coordinatorId: nodeId,
    };
  }));
}

/**
 * Aborts the open transaction of `transactionalId` by fencing its producer: an InitProducerId
 * with the id makes the coordinator bump the epoch and abort the transaction (markers on every
 * partition), as a new producer instance would. The fenced producer gets PRODUCER_FENCED on its
 * next call. Resolves once the coordinator answered the abort started (CONCURRENT_TRANSACTIONS)
 * or the id had nothing open. @throws KafkaError
 */
export async function abortTransaction(cluster: Cluster, transactionalId: string, transactionTimeoutMs = 60_000): Promise<{ producerId: number; producerEpoch: number }> {
  const { connection } = await cluster.coordinator(transactionalId, CoordinatorType.TRANSACTION);
  const response = await connection.request(ApiKey.InitProducerId, { transactionalId, transactionTimeoutMs, producerId: -1, producerEpoch: -1 });
  if (response.errorCode !== ErrorCode.NONE && response.errorCode !== ErrorCode.CONCURRENT_TRANSACTIONS) {
    throw new KafkaError(response.errorCode, `abort the transaction of "${transactionalId}"`);
  }
  return { producerId: response.producerId, producerEpoch: response.producerEpoch };
}

/** One producer a partition leader knows (DescribeProducers). */
export interface ProducerStateDescription {
  producerId: number;
  producerEpoch: number;
  /** Last sequence written, -1 when unknown. */
  lastSequence: number;
  /** Timestamp of its last batch, ms. */
  lastTimestamp: number;
  /** Coordinator epoch of its last transaction marker, -1 before one. */
  coordinatorEpoch: number;
  /** First offset of its open transaction, -1 when none. */
  currentTransactionStartOffset: number;
}

/**
 * The active producers of each of `partitions` of `topic` (in that order), asked of the partitions'
 * leaders with one DescribeProducers per leader (as kafka-transactions.sh describe-producers does).
 * @throws KafkaError for the first partition in error: UNKNOWN_TOPIC_OR_PARTITION (3) for a
 *   partition the metadata does not list, LEADER_NOT_AVAILABLE (5) for one without a leader, else
 *   the leader's answer (NOT_LEADER_OR_FOLLOWER 6, ...)
 */
export async function describeProducers(cluster: Cluster, topic: string, partitions: readonly number[]): Promise<{ partition: number; leaderId: number; producers: ProducerStateDescription[] }[]> {
  await cluster.refreshMetadata([topic]);
  const byLeader = new Map<number, number[]>();
  for (const partition of partitions) {
    if (!(partition >= 0 && partition < (cluster.partitionCount(topic) ?? 0))) {
      throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `describe producers of ${topic}-${partition}`);
    }
    const leaderId = cluster.leaderFor(topic, partition);
    if (leaderId < 0) throw new KafkaError(ErrorCode.LEADER_NOT_AVAILABLE, `describe producers of ${topic}-${partition}: no leader`);
    let list = byLeader.get(leaderId);
    if (list === undefined) byLeader.set(leaderId, list = []);
    list.push(partition);
  }
  const described = new Map<number, { partition: number; leaderId: number; producers: ProducerStateDescription[] }>();
  await Promise.all([...byLeader].map(async ([leaderId, partitionIndexes]) => {
    const connection = await cluster.connectionTo(leaderId);
    const response = await connection.request(ApiKey.DescribeProducers, { topics: [{ name: topic, partitionIndexes }] });
    const answers = new Map((response.topics[0]?.partitions ?? []).map((answer) => [answer.partitionIndex, answer]));
    for (const partition of partitionIndexes) {
      const answer = answers.get(partition);
      if (answer === undefined) throw new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, `DescribeProducers ${topic}-${partition}: no answer`);
      if (answer.errorCode !== ErrorCode.NONE) throw new KafkaError(answer.errorCode, `describe producers of ${topic}-${partition}`);
      described.set(partition, {
        partition,
        leaderId,
        producers: answer.activeProducers.map((p) => ({
          producerId: p.producerId, producerEpoch: p.producerEpoch, lastSequence: p.lastSequence, lastTimestamp: p.lastTimestamp,
          coordinatorEpoch: p.coordinatorEpoch, currentTransactionStartOffset: p.currentTxnStartOffset,
        })),
      });
    }
  }));
  return partitions.map((partition) => described.get(partition)!);
}
