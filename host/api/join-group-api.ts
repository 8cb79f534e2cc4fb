/**
 * JoinGroup (api key 11), v0-5: a member joins a classic consumer group; answered when the
 * rebalance's join phase completes (the coordinator's promise).
 *
 * ```
 * JoinGroup Request (Version: 0)   => group_id session_timeout_ms member_id protocol_type [protocols]
 * JoinGroup Request (Version: 1-4) => group_id session_timeout_ms rebalance_timeout_ms member_id protocol_type [protocols]
 * JoinGroup Request (Version: 5)   => ... member_id group_instance_id protocol_type [protocols]
 *   protocols => name metadata
 * JoinGroup Response (Version: 0-1) => error_code generation_id protocol_name leader member_id [members]
 * JoinGroup Response (Version: 2-4) => throttle_time_ms error_code generation_id protocol_name leader member_id [members]
 * JoinGroup Response (Version: 5)   => ... members => member_id group_instance_id metadata
 * ```
 * Version notes that matter (rules live in the coordinator, see group-coordinator.ts):
 * - MinVersion 0 for librdkafka's balanced-consumer probe (CLIENTS.md L1); kafka-python uses v2.
 * - v4+ (KIP-394): MEMBER_ID_REQUIRED (79) for a new member without an id, never below v4.
 * - v5 (KIP-345): group_instance_id, static membership.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeJoinGroupRequest,
  encodeJoinGroupResponse,
  type JoinGroupRequest,
  type JoinGroupResponseInit,
} from '../protocol/generated/join-group.js';
import { defineApi } from './api-definition.js';
import { withOffsetsTopic } from './group-request-context.js';

export const joinGroupApi = defineApi<JoinGroupRequest, JoinGroupResponseInit>({
  apiKey: ApiKey.JoinGroup,
  name: 'JoinGroup',
  minVersion: 0,
  maxVersion: 5,
  decode: decodeJoinGroupRequest,
  encode: encodeJoinGroupResponse,
  handle: (request, context) => withOffsetsTopic(context, (coordinator, group) => coordinator.joinGroup(request, group)),
  errorResponse: (_version, errorCode) => ({
    throttleTimeMs: 0, errorCode, generationId: -1, protocolName: '', leader: '', memberId: '', members: [],
  }),
});
