/**
 * IncrementalAlterConfigs (api key 44), v0-1: changes single configs of topics (KIP-339), what
 * kafkajs, confluent-kafka's admin and Kafka's own `kafka-configs.sh` send.
 *
 * ```
 * IncrementalAlterConfigs Request (Version: 0-1) => [resources] validate_only
 *   resources => resource_type resource_name [configs]
 *     configs => name config_operation value       (operation: SET 0, DELETE 1, APPEND 2, SUBTRACT 3)
 * IncrementalAlterConfigs Response (Version: 0-1) => throttle_time_ms [responses]
 *   responses => error_code error_message resource_type resource_name
 * ```
 * Version notes that matter: v1 is flexible (KIP-482). Unlike AlterConfigs, configs not named keep
 * their values. TOPIC (2): the controller applies the operations to the topic's overrides and
 * validates the result (INVALID_CONFIG 40 naming the key, the value and what is accepted;
 * APPEND/SUBTRACT only for LIST configs such as cleanup.policy); UNKNOWN_TOPIC_OR_PARTITION (3)
 * for a missing topic. BROKER (4): "" or this broker's id, dynamic broker configs as in
 * AlterConfigs (KIP-226, effective without restart); other types INVALID_REQUEST. The resources go to the controller as one request
 * (forwarded to the active one when this node's is not).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeIncrementalAlterConfigsRequest,
  encodeIncrementalAlterConfigsResponse,
  type IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsResponseInit,
} from '../protocol/generated/incremental-alter-configs.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { defineApi } from './api-definition.js';
import { brokerResourceProblem } from './alter-configs-api.js';
import { ConfigResourceType } from './describe-configs-api.js';

export const incrementalAlterConfigsApi = defineApi<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponseInit>({
  apiKey: ApiKey.IncrementalAlterConfigs,
  name: 'IncrementalAlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  decode: decodeIncrementalAlterConfigsRequest,
  encode: encodeIncrementalAlterConfigsResponse,
  async handle(request, context) {
    const problems = request.resources.map((r) =>
      (r.resourceType === ConfigResourceType.BROKER ? brokerResourceProblem(r.resourceName, context.broker.nodeId) : null));
    const forwarded = request.resources.filter((_, index) => problems[index] === null);
    const results = await context.broker.metadata.incrementalAlterConfigs(forwarded, request.validateOnly);
    let next = 0;
    return {
      throttleTimeMs: 0,
      responses: request.resources.map((resource, index) => {
        const problem = problems[index];
        if (problem !== null && problem !== undefined) {
          return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: problem, resourceType: resource.resourceType, resourceName: resource.resourceName };
        }
        const r = results[next++]!;
        return { errorCode: r.errorCode, errorMessage: r.errorMessage, resourceType: r.resourceType, resourceName: r.resourceName };
      }),
    };
  },
});
