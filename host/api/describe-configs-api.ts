/**
 * DescribeConfigs (api key 32), v0-4: topic and broker configs with their sources.
 *
 * ```
 * DescribeConfigs Request (Version: 0)   => [resources]
 * DescribeConfigs Request (Version: 1-2) => [resources] include_synonyms
 * DescribeConfigs Request (Version: 3-4) => [resources] include_synonyms include_documentation
 *   resources => resource_type resource_name [configuration_keys]   (null keys = all)
 * DescribeConfigs Response (Version: 0)   => throttle_time_ms [results]
 *   results => error_code error_message resource_type resource_name [configs]
 *     configs => name value read_only is_default is_sensitive
 * DescribeConfigs Response (Version: 1-2) => ... configs => name value read_only config_source is_sensitive [synonyms]
 *       synonyms => name value source
 * DescribeConfigs Response (Version: 3-4) => ... configs => ... [synonyms] config_type documentation
 * ```
 * Version notes that matter:
 * - Resource types (Kafka's ConfigResource.Type): TOPIC 2, BROKER 4; others INVALID_REQUEST.
 * - TOPIC: every topic config Kafka has, with its effective value and source (host/config/
 *   describe-configs.ts); unknown topic: UNKNOWN_TOPIC_OR_PARTITION (3).
 * - BROKER: name = this node id: every broker config, read-only unless Kafka changes it at run
 *   time, sources up to DYNAMIC_BROKER_CONFIG; name "" (cluster default): the dynamic default
 *   configs only; another id: INVALID_REQUEST.
 * - v1 (KIP-226) replaces is_default with config_source and adds synonyms when asked;
 *   v2 only changes throttling; v3 (KIP-569) adds config_type and documentation (when asked);
 *   v4 is flexible (KIP-482). kafkajs sends v2, librdkafka v1-4, kafka-python v2, Java 3.9 v4.
 * - Configs Tributary does not implement are described with Kafka's default and documentation
 *   that starts "No effect in Tributary".
 * - Unknown config names asked for are left out, as in Kafka.
 * - A resource named a second time in one request answers INVALID_REQUEST (42) (librdkafka and the
 *   Java admin client never send one twice): each resource is described at most once, so the
 *   work and the answer are bounded by the topics and brokers there are (issue 15).
 * - Many resources are described describe.configs.max.resources.per.turn per event-loop turn
 *   (request-slices.ts), in request order.
 */
import {
  describeBrokerConfigs,
  describeClusterDefaultBrokerConfigs,
  describeTopicConfigs,
  type DescribedConfig,
} from '../config/describe-configs.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeDescribeConfigsRequest,
  encodeDescribeConfigsResponse,
  type DescribeConfigsRequest,
  type DescribeConfigsResource,
  type DescribeConfigsResourceResultInit,
  type DescribeConfigsResultInit,
  type DescribeConfigsResponseInit,
} from '../protocol/generated/describe-configs.js';
import { defineApi } from './api-definition.js';
import { mapInSlices } from './request-slices.js';

/** Kafka's ConfigResource.Type codes. */
export const ConfigResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;

export const describeConfigsApi = defineApi<DescribeConfigsRequest, DescribeConfigsResponseInit>({
  apiKey: ApiKey.DescribeConfigs,
  name: 'DescribeConfigs',
  minVersion: 0,
  maxVersion: 4,
  decode: decodeDescribeConfigsRequest,
  encode: encodeDescribeConfigsResponse,
  async handle(request, context) {
    const { broker } = context;
    const includeSynonyms = context.apiVersion >= 1 && request.includeSynonyms;
    const includeDocumentation = context.apiVersion >= 3 && request.includeDocumentation;
    const seen = new Set<string>();
    const describe = (resource: DescribeConfigsResource): DescribeConfigsResultInit => {
      const base = { resourceType: resource.resourceType, resourceName: resource.resourceName };
      const key = `${resource.resourceType}:${resource.resourceName}`;
      if (seen.has(key)) {
        return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The request names this resource more than once.', configs: [] };
      }
      seen.add(key);
      const options = { names: resource.configurationKeys, includeSynonyms, includeDocumentation };
      if (resource.resourceType === ConfigResourceType.TOPIC) {
        const topic = broker.metadata.topic(resource.resourceName);
        if (topic === undefined) {
          return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic ${resource.resourceName} does not exist.`, configs: [] };
        }
        return { ...base, errorCode: ErrorCode.NONE, errorMessage: null, configs: describeTopicConfigs(topic.configs, broker.config, options).map(toWire) };
      }
      if (resource.resourceType === ConfigResourceType.BROKER) {
        if (resource.resourceName === '') {
          return { ...base, errorCode: ErrorCode.NONE, errorMessage: null, configs: describeClusterDefaultBrokerConfigs(broker.config, options).map(toWire) };
        }
        if (resource.resourceName !== String(broker.nodeId)) {
          return { ...base, errorCode: ErrorCode.INVALID_REQUEST,
            errorMessage: `Unexpected broker id, expected ${broker.nodeId} or empty string, but received ${resource.resourceName}`, configs: [] };
        }
        return { ...base, errorCode: ErrorCode.NONE, errorMessage: null, configs: describeBrokerConfigs(broker.config, options).map(toWire) };
      }
      return { ...base, errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: `Resource type ${resource.resourceType} is not supported (TOPIC 2 and BROKER 4 are).`, configs: [] };
    };
    const results = await mapInSlices(request.resources, broker.config.describeConfigsMaxResourcesPerTurn, (slice) => slice.map(describe), broker.defer);
    return { throttleTimeMs: 0, results };
  },
});

function toWire(config: DescribedConfig): DescribeConfigsResourceResultInit {
  return {
    name: config.name,
    value: config.value,
    readOnly: config.readOnly,
    isDefault: config.isDefault,
    configSource: config.configSource,
    isSensitive: config.isSensitive,
    synonyms: config.synonyms.map((synonym) => ({ name: synonym.name, value: synonym.value, source: synonym.source })),
    configType: config.configType,
    documentation: config.documentation,
  };
}
