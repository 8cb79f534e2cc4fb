/**
 * DescribeGroups (api key 15), v0-4: state, protocol and members of groups.
 *
 * ```
 * DescribeGroups Request (Version: 0-2) => [groups]
 * DescribeGroups Request (Version: 3-4) => [groups] include_authorized_operations
 * DescribeGroups Response (Version: 0)   => [groups]
 * DescribeGroups Response (Version: 1-4) => throttle_time_ms [groups]
 *   groups => error_code group_id group_state protocol_type protocol_data [members] authorized_operations(v3+)
 *     members => member_id group_instance_id(v4+) client_id client_host member_metadata member_assignment
 * ```
 * Version notes that matter: confluent-kafka 1.7.0's list_groups sends v0 to every broker;
 * kafkajs' setOffsets needs state `Empty`/`Dead`; errors are per group (no top-level error).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeDescribeGroupsRequest,
  encodeDescribeGroupsResponse,
  type DescribeGroupsRequest,
  type DescribeGroupsResponseInit,
} from '../protocol/generated/describe-groups.js';
import { defineApi } from './api-definition.js';
import { withOffsetsTopic } from './group-request-context.js';
import { nextTurn } from './request-slices.js';

export const describeGroupsApi = defineApi<DescribeGroupsRequest, DescribeGroupsResponseInit>({
  apiKey: ApiKey.DescribeGroups,
  name: 'DescribeGroups',
  minVersion: 0,
  maxVersion: 4,
  decode: decodeDescribeGroupsRequest,
  encode: encodeDescribeGroupsResponse,
  handle: (request, context) => withOffsetsTopic(context, async (coordinator, group) => {
    // A long group list is described in slices that yield to the event loop (issue 15).
    const groups: DescribeGroupsResponseInit['groups'] = [];
    const perTurn = context.broker.config.describeGroupsMaxGroupsPerTurn;
    for (let start = 0; start < request.groups.length || start === 0; start += perTurn) {
      if (start > 0) await nextTurn(context.broker.defer);
      const slice = request.groups.slice(start, start + perTurn);
      groups.push(...(await coordinator.describeGroups({ ...request, groups: slice }, group)).groups);
    }
    return { throttleTimeMs: 0, groups };
  }),
});
