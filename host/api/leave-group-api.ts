/**
 * LeaveGroup (api key 13), v0-3: members leave a group (consumer close), triggering a rebalance.
 *
 * ```
 * LeaveGroup Request (Version: 0-2) => group_id member_id
 * LeaveGroup Request (Version: 3)   => group_id [members]
 *   members => member_id group_instance_id
 * LeaveGroup Response (Version: 0)   => error_code
 * LeaveGroup Response (Version: 1-2) => throttle_time_ms error_code
 * LeaveGroup Response (Version: 3)   => throttle_time_ms error_code [members]
 *   members => member_id group_instance_id error_code
 * ```
 * Version notes that matter: librdkafka and kafka-python send v1 (one member), kafkajs v3
 * (KIP-345 batch); MinVersion 0 for librdkafka's probe.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeLeaveGroupRequest,
  encodeLeaveGroupResponse,
  type LeaveGroupRequest,
  type LeaveGroupResponseInit,
} from '../protocol/generated/leave-group.js';
import { defineApi } from './api-definition.js';
import { withOffsetsTopic } from './group-request-context.js';

export const leaveGroupApi = defineApi<LeaveGroupRequest, LeaveGroupResponseInit>({
  apiKey: ApiKey.LeaveGroup,
  name: 'LeaveGroup',
  minVersion: 0,
  maxVersion: 3,
  decode: decodeLeaveGroupRequest,
  encode: encodeLeaveGroupResponse,
  handle: (request, context) => withOffsetsTopic(context, (coordinator, group) => coordinator.leaveGroup(request, group)),
  errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, members: [] }),
});
