/**
 * DeleteRecords (api key 21), v0-1: moves partitions' log start offsets up (KIP-107).
 *
 * ```
 * DeleteRecords Request (Version: 0-1) => [topics] timeout_ms
 *   topics => name [partitions]  (partitions => partition_index offset)
 * DeleteRecords Response (Version: 0-1) => throttle_time_ms [topics]
 *   topics => name [partitions]  (partitions => partition_index low_watermark error_code)
 * ```
 * Version notes that matter: offset -1 means the high watermark; above the high watermark
 * OFFSET_OUT_OF_RANGE (1); the answer carries the new low watermark (log start offset).
 * Segments entirely below it are deleted at once. v1 only changes throttling.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeDeleteRecordsRequest,
  encodeDeleteRecordsResponse,
  type DeleteRecordsRequest,
  type DeleteRecordsResponseInit,
} from '../protocol/generated/delete-records.js';
import { defineApi } from './api-definition.js';
import { mapInSlices } from './request-slices.js';

export const deleteRecordsApi = defineApi<DeleteRecordsRequest, DeleteRecordsResponseInit>({
  apiKey: ApiKey.DeleteRecords,
  name: 'DeleteRecords',
  minVersion: 0,
  maxVersion: 1,
  decode: decodeDeleteRecordsRequest,
  encode: encodeDeleteRecordsResponse,
  async handle(request, context) {
    const entries = request.topics.flatMap((topic) =>
      topic.partitions.map((partition) => ({ topic: topic.name, partition: partition.partitionIndex, offset: partition.offset })));
    const { replicaManager, defer, config } = context.broker;
    const results = await mapInSlices(entries, config.deleteRecordsMaxPartitionsPerTurn, (slice) => replicaManager.deleteRecords(slice), defer);
    let index = 0;
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((topic) => ({
        name: topic.name,
        partitions: topic.partitions.map((partition) => {
          const result = results[index++]!;
          return { partitionIndex: partition.partitionIndex, lowWatermark: result.lowWatermark, errorCode: result.errorCode };
        }),
      })),
    };
  },
});
