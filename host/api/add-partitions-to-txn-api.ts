/**
 * AddPartitionsToTxn (api key 24), v0-3: a transactional producer names the partitions it is
 * about to write in its open transaction, before its first Produce to each.
 *
 * ```
 * AddPartitionsToTxn Request (Version: 0-3) => transactional_id producer_id producer_epoch [topics]
 *   topics => name [partitions]
 * AddPartitionsToTxn Response (Version: 0-3) => throttle_time_ms [results_by_topic]
 *   results_by_topic => name [results_by_partition]  results_by_partition => partition_index partition_error_code
 * ```
 * Version notes that matter:
 * - librdkafka only sends v0 (MinVersion 0); kafkajs v1; v3 is flexible.
 * - v4-5 (KIP-890 part 1) are the brokers' batched verify-only form; kafkajs would send v5 if
 *   it were advertised (CLIENTS.md P7), so the client listeners advertise 3.
 * - One error for all partitions, as Kafka: a partition of an unknown topic fails the request
 *   (UNKNOWN_TOPIC_OR_PARTITION for it, OPERATION_NOT_ATTEMPTED for the others); else the
 *   coordinator's answer (INVALID_PRODUCER_ID_MAPPING 49, PRODUCER_FENCED 90 - INVALID_PRODUCER_EPOCH
 *   47 below v2 -, CONCURRENT_TRANSACTIONS 51, NOT_COORDINATOR 16, COORDINATOR_NOT_AVAILABLE 15).
 */
import type { TopicPartitionRef } from '../coordinator/coordinator-types.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  type AddPartitionsToTxnRequest,
  type AddPartitionsToTxnResponseInit,
  decodeAddPartitionsToTxnRequest,
  encodeAddPartitionsToTxnResponse,
} from '../protocol/generated/add-partitions-to-txn.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { defineApi } from './api-definition.js';
import { transactionCoordinatorOf } from './broker-services.js';
import { legacyProducerFenced } from './transaction-errors.js';

export const addPartitionsToTxnApi = defineApi<AddPartitionsToTxnRequest, AddPartitionsToTxnResponseInit>({
  apiKey: ApiKey.AddPartitionsToTxn,
  name: 'AddPartitionsToTxn',
  minVersion: 0,
  maxVersion: 3,
  decode: decodeAddPartitionsToTxnRequest,
  encode: encodeAddPartitionsToTxnResponse,
  async handle(request, context) {
    const { broker } = context;
    const partitions: TopicPartitionRef[] = request.v3AndBelowTopics.flatMap((topic) => topic.partitions.map((partition) => ({ topic: topic.name, partition })));
    // O(1) per partition (partitions are in index order): a search of the unknown ones per partition was quadratic.
    const isUnknown = (ref: TopicPartitionRef): boolean => broker.metadata.topic(ref.topic)?.partitions[ref.partition] === undefined;
    if (partitions.some(isUnknown)) {
      return respond(request, (ref) => (isUnknown(ref) ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.OPERATION_NOT_ATTEMPTED));
    }
    const coordinator = await transactionCoordinatorOf(broker);
    const errorCode = coordinator === undefined
      ? ErrorCode.COORDINATOR_NOT_AVAILABLE
      : await coordinator.addPartitionsToTransaction(request.v3AndBelowTransactionalId,
        { producerId: request.v3AndBelowProducerId, producerEpoch: request.v3AndBelowProducerEpoch }, partitions);
    const answered = legacyProducerFenced(errorCode, context.apiVersion, 2);
    return respond(request, () => answered);
  },
});

function respond(request: AddPartitionsToTxnRequest, errorOf: (ref: TopicPartitionRef) => number): AddPartitionsToTxnResponseInit {
  return {
    throttleTimeMs: 0,
    resultsByTopicV3AndBelow: request.v3AndBelowTopics.map((topic) => ({
      name: topic.name,
      resultsByPartition: topic.partitions.map((partition) => ({
        partitionIndex: partition,
        partitionErrorCode: errorOf({ topic: topic.name, partition }),
      })),
    })),
  };
}
