/**
 * ListPartitionReassignments (api key 46), v0 (KIP-455): the partitions whose reassignment is in
 * flight, with their replicas (the union of old and new while moving), adding and removing
 * replicas; what `kafka-reassign-partitions.sh --list` and the admin clients'
 * listPartitionReassignments send. Answered by the active controller from its committed metadata
 * (forwarded there when this node's controller is not active).
 *
 * ```
 * ListPartitionReassignments Request (Version: 0) => timeout_ms [topics]   (topics null: every topic)
 *   topics => name [partition_indexes]
 * ListPartitionReassignments Response (Version: 0) => throttle_time_ms error_code error_message
 *   [topics] topics => name [partitions]
 *     partitions => partition_index [replicas] [adding_replicas] [removing_replicas]
 * ```
 * Unknown topics and partitions, and those not being reassigned, are left out (as Kafka does);
 * NOT_CONTROLLER (41) at the top when no controller answers.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  type ListPartitionReassignmentsRequest,
  type ListPartitionReassignmentsResponseInit,
  decodeListPartitionReassignmentsRequest,
  encodeListPartitionReassignmentsResponse,
} from '../protocol/generated/list-partition-reassignments.js';
import { defineApi } from './api-definition.js';

export const listPartitionReassignmentsApi = defineApi<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponseInit>({
  apiKey: ApiKey.ListPartitionReassignments,
  name: 'ListPartitionReassignments',
  minVersion: 0,
  maxVersion: 0,
  decode: decodeListPartitionReassignmentsRequest,
  encode: encodeListPartitionReassignmentsResponse,
  async handle(request, context) {
    const metadata = context.broker.metadata;
    if (metadata.listPartitionReassignments === undefined) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'no controller can be reached', topics: [] };
    }
    const answer = await metadata.listPartitionReassignments(request.topics);
    return { throttleTimeMs: 0, errorCode: answer.errorCode, errorMessage: answer.errorMessage, topics: answer.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ ...p, replicas: [...p.replicas], addingReplicas: [...p.addingReplicas], removingReplicas: [...p.removingReplicas] })) })) };
  },
  errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, topics: [] }),
});
