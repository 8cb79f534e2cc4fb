/**
 * OffsetDelete (api key 47), v0: deletes committed offsets of partitions a group no longer
 * consumes (KIP-496).
 *
 * ```
 * OffsetDelete Request (Version: 0) => group_id [topics]
 *   topics => name [partitions]  (partitions => partition_index)
 * OffsetDelete Response (Version: 0) => error_code throttle_time_ms [topics]
 *   topics => name [partitions]  (partitions => partition_index error_code)
 * ```
 * Version notes that matter: GROUP_SUBSCRIBED_TO_TOPIC (86) per partition while the group
 * consumes the topic; group errors (GROUP_ID_NOT_FOUND, ...) at the top level.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeOffsetDeleteRequest,
  encodeOffsetDeleteResponse,
  type OffsetDeleteRequest,
  type OffsetDeleteResponseInit,
} from '../protocol/generated/offset-delete.js';
import { defineApi } from './api-definition.js';
import { withOffsetsTopic } from './group-request-context.js';

export const offsetDeleteApi = defineApi<OffsetDeleteRequest, OffsetDeleteResponseInit>({
  apiKey: ApiKey.OffsetDelete,
  name: 'OffsetDelete',
  minVersion: 0,
  maxVersion: 0,
  decode: decodeOffsetDeleteRequest,
  encode: encodeOffsetDeleteResponse,
  handle: (request, context) => withOffsetsTopic(context, (coordinator, group) => coordinator.offsetDelete(request, group)),
  errorResponse: (_version, errorCode) => ({ errorCode, throttleTimeMs: 0, topics: [] }),
});
