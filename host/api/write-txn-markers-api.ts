/**
 * WriteTxnMarkers (api key 27), v0-1: the transaction coordinator asks the leaders of a
 * transaction's partitions to write its COMMIT or ABORT marker (KIP-98). An inter-broker API:
 * clients never send it.
 *
 * ```
 * WriteTxnMarkers Request (Version: 0-1) => [markers]
 *   markers => producer_id producer_epoch transaction_result [topics] coordinator_epoch
 *     topics => name [partition_indexes]
 * WriteTxnMarkers Response (Version: 0-1) => [markers]
 *   markers => producer_id [topics]
 *     topics => name [partitions]  (partitions => partition_index error_code)
 * ```
 * Version notes that matter: v1 is the flexible version (KIP-482), nothing else changes.
 * transaction_result false = ABORT, true = COMMIT. Each marker is appended as a control batch by
 * the partition's leader and answered once replicated (acks=all); the per-partition errors are
 * those of ReplicaManager.appendTxnMarkers (host/replication/txn-markers.ts): 3, 6, 7, 19, 20, 47,
 * 52, 56. Markers appended to `__consumer_offsets` partitions are handed to the group coordinator
 * (Kafka's scheduleHandleTxnCompletion): the transaction's pending offsets there become committed
 * or are dropped.
 */
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeWriteTxnMarkersRequest,
  encodeWriteTxnMarkersResponse,
  type WriteTxnMarkersRequest,
  type WriteTxnMarkersResponseInit,
} from '../protocol/generated/write-txn-markers.js';
import { defineApi } from './api-definition.js';
import { groupCoordinatorOf } from './broker-services.js';

export const writeTxnMarkersApi = defineApi<WriteTxnMarkersRequest, WriteTxnMarkersResponseInit>({
  apiKey: ApiKey.WriteTxnMarkers,
  name: 'WriteTxnMarkers',
  minVersion: 0,
  maxVersion: 1,
  decode: decodeWriteTxnMarkersRequest,
  encode: encodeWriteTxnMarkersResponse,
  async handle(request, context) {
    const markers = await context.broker.replicaManager.appendTxnMarkers(request.markers);
    for (const [index, result] of markers.entries()) {
      const offsets = result.topics
        .filter((topic) => topic.name === OFFSETS_TOPIC_NAME)
        .flatMap((topic) => topic.partitions.filter((partition) => partition.errorCode === ErrorCode.NONE).map((partition) => partition.partitionIndex));
      const marker = request.markers[index];
      if (offsets.length > 0 && marker !== undefined) {
        (await groupCoordinatorOf(context.broker)).onTransactionCompleted(result.producerId, offsets, marker.transactionResult ? 'commit' : 'abort');
      }
    }
    return { markers };
  },
});
