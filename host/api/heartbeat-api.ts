/**
 * Heartbeat (api key 12), v0-3: keeps a member alive; REBALANCE_IN_PROGRESS (27) in the answer
 * is how every classic client learns that it must rejoin.
 *
 * ```
 * Heartbeat Request (Version: 0-2) => group_id generation_id member_id
 * Heartbeat Request (Version: 3)   => group_id generation_id member_id group_instance_id
 * Heartbeat Response (Version: 0)   => error_code
 * Heartbeat Response (Version: 1-3) => throttle_time_ms error_code
 * ```
 * Version notes that matter: MinVersion 0 for librdkafka's probe; kafka-python sends v1; v3
 * (KIP-345) adds group_instance_id.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeHeartbeatRequest,
  encodeHeartbeatResponse,
  type HeartbeatRequest,
  type HeartbeatResponseInit,
} from '../protocol/generated/heartbeat.js';
import { defineApi } from './api-definition.js';
import { withOffsetsTopic } from './group-request-context.js';

export const heartbeatApi = defineApi<HeartbeatRequest, HeartbeatResponseInit>({
  apiKey: ApiKey.Heartbeat,
  name: 'Heartbeat',
  minVersion: 0,
  maxVersion: 3,
  decode: decodeHeartbeatRequest,
  encode: encodeHeartbeatResponse,
  handle: (request, context) => withOffsetsTopic(context, (coordinator, group) => coordinator.heartbeat(request, group)),
  errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode }),
});
