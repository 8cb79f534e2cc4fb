/**
 * OffsetCommit (api key 8), v0-7: a group's committed offsets, persisted in `__consumer_offsets`.
 *
 * ```
 * OffsetCommit Request (Version: 0)   => group_id [topics]
 * OffsetCommit Request (Version: 1)   => group_id generation_id member_id [topics]       (+ commit_timestamp per partition)
 * OffsetCommit Request (Version: 2-4) => group_id generation_id member_id retention_time_ms [topics]
 * OffsetCommit Request (Version: 5-6) => group_id generation_id member_id [topics]       (v6: + committed_leader_epoch)
 * OffsetCommit Request (Version: 7)   => group_id generation_id member_id group_instance_id [topics]
 *   topics => name [partitions]
 *     partitions => partition_index committed_offset committed_leader_epoch committed_metadata
 * OffsetCommit Response (Version: 0-2) => [topics]
 * OffsetCommit Response (Version: 3-7) => throttle_time_ms [topics]
 *   topics => name [partitions]  (partitions => partition_index error_code)
 * ```
 * Version notes that matter: librdkafka's probe needs a range overlapping 1-2; kafka-python
 * sends v2 (retention -1), kafkajs v5, librdkafka v7. Errors are per partition (no top-level
 * error); UNKNOWN_TOPIC_OR_PARTITION for partitions that do not exist.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeOffsetCommitRequest,
  encodeOffsetCommitResponse,
  type OffsetCommitRequest,
  type OffsetCommitResponseInit,
} from '../protocol/generated/offset-commit.js';
import { defineApi } from './api-definition.js';
import { withOffsetsTopic } from './group-request-context.js';

export const offsetCommitApi = defineApi<OffsetCommitRequest, OffsetCommitResponseInit>({
  apiKey: ApiKey.OffsetCommit,
  name: 'OffsetCommit',
  minVersion: 0,
  maxVersion: 7,
  decode: decodeOffsetCommitRequest,
  encode: encodeOffsetCommitResponse,
  handle: (request, context) => withOffsetsTopic(context, (coordinator, group) => coordinator.offsetCommit(request, group)),
});
