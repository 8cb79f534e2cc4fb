/**
 * OffsetFetch (api key 9), v0-5: a group's committed offsets.
 *
 * ```
 * OffsetFetch Request (Version: 0-5) => group_id [topics]      (v2+: null topics = every committed partition)
 *   topics => name [partition_indexes]
 * OffsetFetch Response (Version: 0-1) => [topics]
 * OffsetFetch Response (Version: 2)   => [topics] error_code
 * OffsetFetch Response (Version: 3-5) => throttle_time_ms [topics] error_code
 *   topics => name [partitions]
 *     partitions => partition_index committed_offset committed_leader_epoch(v5+) metadata error_code
 * ```
 * Version notes that matter: capped at 5 to keep librdkafka off flexible v6/v7 (CLIENTS.md
 * Level A); kafkajs has no v0 (sends v4); kafka-python v1 consumer / v3 admin. A group-level
 * error goes on every partition for v0-1 and in error_code from v2.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeOffsetFetchRequest,
  encodeOffsetFetchResponse,
  type OffsetFetchRequest,
  type OffsetFetchResponseInit,
} from '../protocol/generated/offset-fetch.js';
import { defineApi } from './api-definition.js';
import { withOffsetsTopic } from './group-request-context.js';

export const offsetFetchApi = defineApi<OffsetFetchRequest, OffsetFetchResponseInit>({
  apiKey: ApiKey.OffsetFetch,
  name: 'OffsetFetch',
  minVersion: 0,
  maxVersion: 5,
  decode: decodeOffsetFetchRequest,
  encode: encodeOffsetFetchResponse,
  handle: (request, context) => withOffsetsTopic(context, (coordinator, group) => coordinator.offsetFetch(request, group)),
  errorResponse: (version, errorCode) => (version >= 2 ? { throttleTimeMs: 0, topics: [], errorCode } : null),
});
