/**
 * ListGroups (api key 16), v0-2: every group this coordinator knows.
 *
 * ```
 * ListGroups Request (Version: 0-2) =>                  (empty body)
 * ListGroups Response (Version: 0)   => error_code [groups]
 * ListGroups Response (Version: 1-2) => throttle_time_ms error_code [groups]
 *   groups => group_id protocol_type
 * ```
 * Version notes that matter: sent to every broker (confluent-kafka legacy list_groups v0,
 * kafka-python and kafkajs v2); states filters arrive only with v4 (not advertised).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeListGroupsRequest,
  encodeListGroupsResponse,
  type ListGroupsRequest,
  type ListGroupsResponseInit,
} from '../protocol/generated/list-groups.js';
import { defineApi } from './api-definition.js';
import { groupRequestContext } from './group-request-context.js';

export const listGroupsApi = defineApi<ListGroupsRequest, ListGroupsResponseInit>({
  apiKey: ApiKey.ListGroups,
  name: 'ListGroups',
  minVersion: 0,
  maxVersion: 2,
  decode: decodeListGroupsRequest,
  encode: encodeListGroupsResponse,
  handle: (request, context) => context.broker.groupCoordinator.listGroups(request, groupRequestContext(context)),
  errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, groups: [] }),
});
