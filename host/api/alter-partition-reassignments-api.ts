/**
 * AlterPartitionReassignments (api key 45), v0 (KIP-455): an administrator moves partitions to
 * new replicas or cancels a move in flight, what `kafka-reassign-partitions.sh --execute` /
 * `--cancel` and the admin clients' alterPartitionReassignments send. Any broker answers: the
 * reassignment is the controller's, forwarded to the active one when this node's is not.
 *
 * ```
 * AlterPartitionReassignments Request (Version: 0) => timeout_ms [topics]
 *   topics => name [partitions]
 *     partitions => partition_index replicas     (replicas null: cancel the reassignment)
 * AlterPartitionReassignments Response (Version: 0) => throttle_time_ms error_code error_message
 *   [responses] responses => name [partitions]
 *     partitions => partition_index error_code error_message
 * ```
 * Per partition: UNKNOWN_TOPIC_OR_PARTITION (3), INVALID_REPLICA_ASSIGNMENT (39),
 * NO_REASSIGNMENT_IN_PROGRESS (85); at the top: NOT_CONTROLLER (41) when no controller answers.
 * The answer comes once the first stage is committed; the move itself goes on in the background
 * (followers catch up, then the controller drops the removed replicas): ListPartitionReassignments
 * shows it until it is done. Rules: host/controller/reassignment-control.ts.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  type AlterPartitionReassignmentsRequest,
  type AlterPartitionReassignmentsResponseInit,
  decodeAlterPartitionReassignmentsRequest,
  encodeAlterPartitionReassignmentsResponse,
} from '../protocol/generated/alter-partition-reassignments.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { defineApi } from './api-definition.js';

export const alterPartitionReassignmentsApi = defineApi<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponseInit>({
  apiKey: ApiKey.AlterPartitionReassignments,
  name: 'AlterPartitionReassignments',
  minVersion: 0,
  maxVersion: 0,
  decode: decodeAlterPartitionReassignmentsRequest,
  encode: encodeAlterPartitionReassignmentsResponse,
  async handle(request, context) {
    const metadata = context.broker.metadata;
    if (metadata.alterPartitionReassignments === undefined) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'no controller can be reached', responses: [] };
    }
    const answer = await metadata.alterPartitionReassignments(request.topics);
    return { throttleTimeMs: 0, errorCode: answer.errorCode, errorMessage: answer.errorMessage, responses: answer.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ ...p })) })) };
  },
  errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, responses: [] }),
});
