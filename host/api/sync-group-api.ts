/**
 * SyncGroup (api key 14), v0-3: the leader hands out assignments; every member gets its own
 * once the leader's arrives (the coordinator's promise).
 *
 * ```
 * SyncGroup Request (Version: 0-2) => group_id generation_id member_id [assignments]
 * SyncGroup Request (Version: 3)   => group_id generation_id member_id group_instance_id [assignments]
 *   assignments => member_id assignment
 * SyncGroup Response (Version: 0)   => error_code assignment
 * SyncGroup Response (Version: 1-3) => throttle_time_ms error_code assignment
 * ```
 * Version notes that matter: MinVersion 0 for librdkafka's probe; kafka-python sends v1; v3
 * (KIP-345) adds group_instance_id.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeSyncGroupRequest,
  encodeSyncGroupResponse,
  type SyncGroupRequest,
  type SyncGroupResponseInit,
} from '../protocol/generated/sync-group.js';
import { defineApi } from './api-definition.js';
import { withOffsetsTopic } from './group-request-context.js';

export const syncGroupApi = defineApi<SyncGroupRequest, SyncGroupResponseInit>({
  apiKey: ApiKey.SyncGroup,
  name: 'SyncGroup',
  minVersion: 0,
  maxVersion: 3,
  decode: decodeSyncGroupRequest,
  encode: encodeSyncGroupResponse,
  handle: (request, context) => withOffsetsTopic(context, (coordinator, group) => coordinator.syncGroup(request, group)),
  errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, assignment: new Uint8Array(0) }),
});
