/**
 * DeleteGroups (api key 42), v0-1: deletes empty groups and their offsets.
 *
 * ```
 * DeleteGroups Request (Version: 0-1) => [groups_names]
 * DeleteGroups Response (Version: 0-1) => throttle_time_ms [results]
 *   results => group_id error_code
 * ```
 * Version notes that matter: v1 only changes throttling semantics (KIP-219); errors are per
 * group: NON_EMPTY_GROUP (68), GROUP_ID_NOT_FOUND (69).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeDeleteGroupsRequest,
  encodeDeleteGroupsResponse,
  type DeleteGroupsRequest,
  type DeleteGroupsResponseInit,
} from '../protocol/generated/delete-groups.js';
import { defineApi } from './api-definition.js';
import { withOffsetsTopic } from './group-request-context.js';

export const deleteGroupsApi = defineApi<DeleteGroupsRequest, DeleteGroupsResponseInit>({
  apiKey: ApiKey.DeleteGroups,
  name: 'DeleteGroups',
  minVersion: 0,
  maxVersion: 1,
  decode: decodeDeleteGroupsRequest,
  encode: encodeDeleteGroupsResponse,
  handle: (request, context) => withOffsetsTopic(context, (coordinator, group) => coordinator.deleteGroups(request, group)),
});
