/**
 * ListGroups (api key 16), v0-5: every group this coordinator knows, filtered by state (v4+,
 * KIP-518) and by type (v5+, KIP-848: every group here is `classic`).
 *
 * ```
 * ListGroups Request (Version: 0-2) =>                  (empty body)
 * ListGroups Request (Version: 3)   =>                  (flexible, tagged fields only)
 * ListGroups Request (Version: 4)   => [states_filter]
 * ListGroups Request (Version: 5)   => [states_filter] [types_filter]
 * ListGroups Response (Version: 0)   => error_code [groups]
 * ListGroups Response (Version: 1-2) => throttle_time_ms error_code [groups]
 * ListGroups Response (Version: 3-5) => throttle_time_ms error_code [groups] (flexible)
 *   groups => group_id protocol_type group_state (v4+) group_type (v5+)
 * ```
 * Version notes that matter: sent to every broker (confluent-kafka legacy list_groups v0,
 * kafka-python and kafkajs v2); confluent-kafka's list_consumer_groups(states=...) sends v4+.
 * States and types are compared case-insensitively, as Kafka 3.9 does.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeListGroupsRequest,
  encodeListGroupsResponse,
  type ListGroupsRequest,
  type ListGroupsResponseInit,
} from '../protocol/generated/list-groups.js';
import { defineApi } from './api-definition.js';
import { groupCoordinatorOf } from './broker-services.js';
import { groupRequestContext } from './group-request-context.js';

export const listGroupsApi = defineApi<ListGroupsRequest, ListGroupsResponseInit>({
  apiKey: ApiKey.ListGroups,
  name: 'ListGroups',
  minVersion: 0,
  maxVersion: 5,
  decode: decodeListGroupsRequest,
  encode: encodeListGroupsResponse,
  handle: async (request, context) => (await groupCoordinatorOf(context.broker)).listGroups(request, groupRequestContext(context)),
  errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, groups: [] }),
});
