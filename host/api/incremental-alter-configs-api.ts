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
 * for a missing topic. BROKER (4): no dynamic broker configs (INVALID_REQUEST 42, as
 * AlterConfigs); other types INVALID_REQUEST. The resources go to the controller as one request
 * (forwarded to the active one when this node's is not).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeIncrementalAlterConfigsRequest,
  encodeIncrementalAlterConfigsResponse,
  type IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsResponseInit,
} from '../protocol/generated/incremental-alter-configs.js';
import { defineApi } from './api-definition.js';

export const incrementalAlterConfigsApi = defineApi<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponseInit>({
  apiKey: ApiKey.IncrementalAlterConfigs,
  name: 'IncrementalAlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  decode: decodeIncrementalAlterConfigsRequest,
  encode: encodeIncrementalAlterConfigsResponse,
  async handle(request, context) {
    const results = await context.broker.metadata.incrementalAlterConfigs(request.resources, request.validateOnly);
    return {
      throttleTimeMs: 0,
      responses: results.map((r) => ({ errorCode: r.errorCode, errorMessage: r.errorMessage, resourceType: r.resourceType, resourceName: r.resourceName })),
    };
  },
});
