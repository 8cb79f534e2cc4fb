/**
 * AlterConfigs (api key 33), v0-1: replaces a topic's config overrides (legacy, non-incremental:
 * configs not given return to their defaults).
 *
 * ```
 * AlterConfigs Request (Version: 0-1) => [resources] validate_only
 *   resources => resource_type resource_name [configs]  (configs => name value)
 * AlterConfigs Response (Version: 0-1) => throttle_time_ms [responses]
 *   responses => error_code error_message resource_type resource_name
 * ```
 * Version notes that matter: MinVersion 0 (librdkafka sends only v0); v1 only changes
 * throttling. TOPIC (2): every name and value is validated (INVALID_CONFIG, 40, naming the key,
 * the value and what is accepted; null values are ignored, as Kafka does for this API); the new
 * overrides apply to the partition logs at once. BROKER (4): name "" (cluster default) or this
 * broker's id (another id: INVALID_REQUEST, as Kafka's ConfigAdminManager); the configs replace
 * the resource's dynamic broker configs (KIP-226), effective without restart, for the configs Kafka
 * changes at run time; others INVALID_REQUEST "Cannot update these configs dynamically"; a name
 * that is no broker config INVALID_CONFIG with a "did you mean" (host/config/
 * dynamic-broker-configs.ts); other resource types INVALID_REQUEST.
 */
import { validateTopicConfigs } from '../config/topic-config.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeAlterConfigsRequest,
  encodeAlterConfigsResponse,
  type AlterConfigsRequest,
  type AlterConfigsResourceResponseInit,
  type AlterConfigsResponseInit,
} from '../protocol/generated/alter-configs.js';
import { defineApi } from './api-definition.js';
import { ConfigResourceType } from './describe-configs-api.js';

export const alterConfigsApi = defineApi<AlterConfigsRequest, AlterConfigsResponseInit>({
  apiKey: ApiKey.AlterConfigs,
  name: 'AlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  decode: decodeAlterConfigsRequest,
  encode: encodeAlterConfigsResponse,
  async handle(request, context) {
    const { broker } = context;
    const responses: AlterConfigsResourceResponseInit[] = [];
    for (const resource of request.resources) {
      const base = { resourceType: resource.resourceType, resourceName: resource.resourceName };
      if (resource.resourceType === ConfigResourceType.TOPIC) {
        if (broker.metadata.topic(resource.resourceName) === undefined) {
          responses.push({ ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic ${resource.resourceName} does not exist.` });
          continue;
        }
        const validation = validateTopicConfigs(resource.configs, { nullValue: 'ignore' });
        if (validation.errors.length > 0) {
          const first = validation.errors[0]!;
          responses.push({ ...base, errorCode: first.errorCode, errorMessage: first.errorMessage });
          continue;
        }
        const result = await broker.metadata.alterTopicConfigs(resource.resourceName, validation.overrides, request.validateOnly);
        responses.push({ ...base, errorCode: result.errorCode, errorMessage: result.errorMessage });
      } else if (resource.resourceType === ConfigResourceType.BROKER) {
        const wrongBroker = brokerResourceProblem(resource.resourceName, context.broker.nodeId);
        if (wrongBroker !== null) {
          responses.push({ ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: wrongBroker });
          continue;
        }
        const result = await broker.metadata.alterBrokerConfigs(resource.resourceName, resource.configs, request.validateOnly);
        responses.push({ ...base, errorCode: result.errorCode, errorMessage: result.errorMessage });
      } else {
        responses.push({ ...base, errorCode: ErrorCode.INVALID_REQUEST,
          errorMessage: `Resource type ${resource.resourceType} is not supported (TOPIC 2 and BROKER 4 are).` });
      }
    }
    return { throttleTimeMs: 0, responses };
  },
});

/**
 * Kafka's ConfigAdminManager.validateResourceNameIsCurrentNodeId for a BROKER resource sent to
 * this broker: "" (cluster default) or this node's id; the reason otherwise.
 */
export function brokerResourceProblem(name: string, nodeId: number): string | null {
  if (name === '') return null;
  if (!/^-?\d+$/.test(name)) return `Node id must be an integer, but it is: ${name}`;
  return Number(name) === nodeId ? null : `Unexpected broker id, expected ${nodeId}, but received ${name}`;
}
