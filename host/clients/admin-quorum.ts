/**
 * The metadata quorum and the brokers as the Admin describes them: DescribeQuorum (KIP-595/836,
 * answered by the quorum's leader through any broker) and DescribeCluster (KIP-700, the live
 * brokers), what `kafka-metadata-quorum.sh describe --status/--replication` and
 * `kafka-cluster.sh` show.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { Cluster } from './cluster.js';
import { ConnectionError, KafkaError } from './errors.js';
import { retry, type RetryOptions } from './retry.js';

const METADATA_TOPIC = '__cluster_metadata';

/** One replica of `__cluster_metadata-0`: times are wall-clock ms (-1 unknown). */
export interface QuorumReplica {
  replicaId: number;
  logEndOffset: number;
  /** The leader's high watermark minus this replica's log end offset (0 when caught up). */
  lag: number;
  lastFetchTimestamp: number;
  lastCaughtUpTimestamp: number;
}

/** The metadata quorum, from its leader. */
export interface QuorumDescription {
  leaderId: number;
  leaderEpoch: number;
  highWatermark: number;
  voters: QuorumReplica[];
  observers: QuorumReplica[];
}

/** A live broker as DescribeCluster lists it. */
export interface DescribedBroker {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

/**
 * DescribeQuorum of `__cluster_metadata-0` through any broker (retried while the quorum has no
 * leader). @throws KafkaError with the broker's or the partition's error code
 */
export async function describeQuorum(cluster: Cluster, timeouts: Omit<RetryOptions, 'what'>): Promise<QuorumDescription> {
  return retry(async () => {
    const connection = await cluster.anyConnection();
    const response = await connection.request(55, { topics: [{ topicName: METADATA_TOPIC, partitions: [{ partitionIndex: 0 }] }] });
    if (response.errorCode !== ErrorCode.NONE) throw new KafkaError(response.errorCode, 'DescribeQuorum');
    const partition = response.topics.find((t) => t.topicName === METADATA_TOPIC)?.partitions.find((p) => p.partitionIndex === 0);
    if (partition === undefined) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'DescribeQuorum');
    if (partition.errorCode !== ErrorCode.NONE) throw new KafkaError(partition.errorCode, 'DescribeQuorum');
    const replica = (r: typeof partition.currentVoters[number]): QuorumReplica => ({
      replicaId: r.replicaId,
      logEndOffset: r.logEndOffset,
      lag: Math.max(0, partition.highWatermark - r.logEndOffset),
      lastFetchTimestamp: r.lastFetchTimestamp,
      lastCaughtUpTimestamp: r.lastCaughtUpTimestamp,
    });
    return {
      leaderId: partition.leaderId,
      leaderEpoch: partition.leaderEpoch,
      highWatermark: partition.highWatermark,
      voters: partition.currentVoters.map(replica),
      observers: partition.observers.map(replica),
    };
  }, {
    ...timeouts,
    what: 'DescribeQuorum',
    shouldRetry: (error) => error instanceof ConnectionError || (error instanceof KafkaError && error.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER),
  });
}

/** DescribeCluster: the cluster id, the controller id and the live (unfenced) brokers, by id. @throws KafkaError */
export async function describeClusterBrokers(cluster: Cluster): Promise<{ clusterId: string; controllerId: number; brokers: DescribedBroker[] }> {
  const connection = await cluster.anyConnection();
  const response = await connection.request(60, { includeClusterAuthorizedOperations: false });
  if (response.errorCode !== ErrorCode.NONE) throw new KafkaError(response.errorCode, 'DescribeCluster');
  return {
    clusterId: response.clusterId,
    controllerId: response.controllerId,
    brokers: response.brokers.map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack })).sort((a, b) => a.nodeId - b.nodeId),
  };
}
