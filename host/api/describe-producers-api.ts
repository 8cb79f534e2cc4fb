/**
 * DescribeProducers (api key 61), v0 (KIP-664): the producers a partition leader's log knows, for
 * admin tools finding hanging transactions (`kafka-transactions.sh describe-producers`,
 * `tributary transactions describe-producers`).
 *
 * ```
 * DescribeProducers Request (Version: 0) => [topics]  (topics => name [partition_indexes]; flexible)
 * DescribeProducers Response (Version: 0) => throttle_time_ms [topics]
 *   topics => name [partitions]
 *     partitions => partition_index error_code error_message [active_producers]
 *       active_producers => producer_id producer_epoch last_sequence last_timestamp
 *         coordinator_epoch current_txn_start_offset
 * ```
 * Kafka's rules (KafkaApis.handleDescribeProducersRequest, ReplicaManager.activeProducerState):
 * answered by the partition's leader from its producer state; a follower, or a broker not hosting
 * a partition the metadata knows, answers NOT_LEADER_OR_FOLLOWER (6), an unknown partition
 * UNKNOWN_TOPIC_OR_PARTITION (3). Per producer: last_sequence of its last batch (-1 with none),
 * last_timestamp (ms), the coordinator epoch of its last marker (-1 before one) and the first
 * offset of its open transaction (-1 when none).
 *
 * Bounded work per turn (issue 15): the partitions are answered in slices of
 * describe.producers.max.partitions.per.turn that yield to the event loop between them
 * (request-slices.ts); each answer is O(1) in the topic's size plus the partition's producers.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeDescribeProducersRequest,
  type DescribeProducersRequest,
  type DescribeProducersResponseInit,
  encodeDescribeProducersResponse,
  type PartitionResponseInit,
} from '../protocol/generated/describe-producers.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { defineApi } from './api-definition.js';
import type { BrokerServices } from './broker-services.js';
import { mapInSlices } from './request-slices.js';

export const describeProducersApi = defineApi<DescribeProducersRequest, DescribeProducersResponseInit>({
  apiKey: ApiKey.DescribeProducers,
  name: 'DescribeProducers',
  minVersion: 0,
  maxVersion: 0,
  decode: decodeDescribeProducersRequest,
  encode: encodeDescribeProducersResponse,
  async handle(request, context) {
    const { broker } = context;
    const entries = request.topics.flatMap((topic) => topic.partitionIndexes.map((partitionIndex) => ({ topic: topic.name, partitionIndex })));
    const answers = await mapInSlices(entries, broker.config.describeProducersMaxPartitionsPerTurn,
      (slice) => slice.map(({ topic, partitionIndex }) => describePartition(broker, topic, partitionIndex)), broker.defer);
    let index = 0;
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((topic) => ({ name: topic.name, partitions: topic.partitionIndexes.map(() => answers[index++]!) })),
    };
  },
});

function describePartition(broker: BrokerServices, topic: string, partitionIndex: number): PartitionResponseInit {
  const partition = broker.replicaManager.getPartition(topic, partitionIndex);
  if (partition === undefined || !partition.isLeader) {
    // Partitions are in index order 0..n-1: an O(1) check (a scan per partition made a long request quadratic).
    const known = partitionIndex >= 0 && partitionIndex < (broker.metadata.topic(topic)?.partitions.length ?? 0);
    const errorCode = partition !== undefined || known ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    return { partitionIndex, errorCode, errorMessage: null, activeProducers: [] };
  }
  return {
    partitionIndex,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    activeProducers: partition.activeProducers().map((entry) => ({
      producerId: entry.producerId,
      producerEpoch: entry.producerEpoch,
      lastSequence: entry.batches.at(-1)?.lastSequence ?? -1,
      lastTimestamp: entry.lastTimestamp,
      coordinatorEpoch: entry.coordinatorEpoch,
      currentTxnStartOffset: entry.currentTxnFirstOffset,
    })),
  };
}
