/**
 * CreateTopics (api key 19), v0-4: creates topics through the controller (this node).
 *
 * ```
 * CreateTopics Request (Version: 0)   => [topics] timeout_ms
 * CreateTopics Request (Version: 1-4) => [topics] timeout_ms validate_only
 *   topics => name num_partitions replication_factor [assignments] [configs]
 *     assignments => partition_index [broker_ids]
 *     configs => name value
 * CreateTopics Response (Version: 0)   => [topics]                      (topics => name error_code)
 * CreateTopics Response (Version: 1)   => [topics]                      (+ error_message)
 * CreateTopics Response (Version: 2-4) => throttle_time_ms [topics]
 * ```
 * Version notes that matter:
 * - num_partitions / replication_factor -1 take num.partitions / default.replication.factor
 *   (KIP-464, v4; kafkajs sends -1 with v3 too, so it is accepted at every version). With
 *   explicit assignments both must be -1 (else INVALID_REQUEST), and every replica must be this
 *   broker (else INVALID_REPLICA_ASSIGNMENT, 39).
 * - Errors per topic: INVALID_TOPIC_EXCEPTION (17), TOPIC_ALREADY_EXISTS (36; kafkajs then
 *   returns false), INVALID_PARTITIONS (37), INVALID_REPLICATION_FACTOR (38: a single broker),
 *   INVALID_CONFIG (40, message naming the key, value and what is accepted), INVALID_REQUEST
 *   (42) for a name given twice.
 * - validate_only (v1+) checks everything and creates nothing.
 * - The controller mutation quota (KIP-599, controller-mutation-quota.ts) counts the partitions
 *   created; v6+ would be refused with THROTTLING_QUOTA_EXCEEDED (89), older versions (all we
 *   serve) are answered after the throttle time.
 */
import { validateTopicConfigs } from '../config/topic-config.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeCreateTopicsRequest,
  encodeCreateTopicsResponse,
  type CreatableTopic,
  type CreatableTopicResultInit,
  type CreateTopicsRequest,
  type CreateTopicsResponseInit,
} from '../protocol/generated/create-topics.js';
import { defineApi } from './api-definition.js';
import { mutationQuotaFor, throttleAnswer } from './controller-mutation-quota.js';
import type { BrokerServices } from './broker-services.js';
import type { CreateTopicSpec } from './cluster-metadata.js';
import { topicNameProblem } from './topic-names.js';
import { ControllerLimits } from '../controller/controller-limits.js';

/** Metadata records creating `spec` writes: a TopicRecord and one PartitionRecord per partition. */
const recordsOf = (spec: CreateTopicSpec): number => 1 + (spec.numPartitions === -1 ? spec.assignments?.length ?? 0 : spec.numPartitions);

export const createTopicsApi = defineApi<CreateTopicsRequest, CreateTopicsResponseInit>({
  apiKey: ApiKey.CreateTopics,
  name: 'CreateTopics',
  minVersion: 0,
  maxVersion: 4,
  decode: decodeCreateTopicsRequest,
  encode: encodeCreateTopicsResponse,
  async handle(request, context) {
    const { broker } = context;
    const validateOnly = context.apiVersion >= 1 && request.validateOnly;
    const counts = new Map<string, number>();
    for (const topic of request.topics) counts.set(topic.name, (counts.get(topic.name) ?? 0) + 1);
    const results: CreatableTopicResultInit[] = [];
    const quota = mutationQuotaFor(broker.controllerMutationQuota, context, 6);
    for (const topic of request.topics) {
      if ((counts.get(topic.name) ?? 0) > 1) {
        results.push({ name: topic.name, errorCode: ErrorCode.INVALID_REQUEST,
          errorMessage: `Create topics request from client contains a duplicate topic with name: ${topic.name}` });
        continue;
      }
      const checked = specFor(topic, broker);
      if ('errorCode' in checked) {
        results.push({ name: topic.name, ...checked });
        continue;
      }
      // A topic the controller will refuse for its size is not charged to the quota (it does no work).
      const oversized = new ControllerLimits(broker.config).checkRecords('CreateTopics', recordsOf(checked), true);
      if (oversized !== null) {
        results.push({ name: topic.name, errorCode: oversized.errorCode, errorMessage: oversized.errorMessage });
        continue;
      }
      const refused = validateOnly ? null : quota.record(checked.numPartitions);
      if (refused !== null) {
        results.push({ name: topic.name, errorCode: refused.errorCode, errorMessage: refused.errorMessage });
        continue;
      }
      const result = await broker.metadata.createTopic(checked, validateOnly, request.timeoutMs);
      results.push({ name: topic.name, errorCode: result.errorCode, errorMessage: result.errorMessage });
    }
    return { throttleTimeMs: await throttleAnswer(broker.controllerMutationQuota, quota), topics: results };
  },
});

/** The request for one topic as a CreateTopicSpec, or the error that refuses it. */
function specFor(topic: CreatableTopic, broker: BrokerServices): CreateTopicSpec | { errorCode: number; errorMessage: string } {
  const nameProblem = topicNameProblem(topic.name);
  if (nameProblem !== null) return { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, errorMessage: nameProblem };
  if (broker.metadata.topic(topic.name) !== undefined) {
    return { errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage: `Topic '${topic.name}' already exists.` };
  }
  let numPartitions = topic.numPartitions;
  let replicationFactor = topic.replicationFactor;
  if (topic.assignments.length > 0) {
    if (numPartitions !== -1 || replicationFactor !== -1) {
      return { errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: 'Both numPartitions and replicationFactor must be -1 when replica assignments are given.' };
    }
    const indexes = new Set(topic.assignments.map((a) => a.partitionIndex));
    for (let i = 0; i < topic.assignments.length; i++) {
      if (!indexes.has(i)) {
        return { errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: 'Partitions must be numbered 0 to n-1 without gaps.' };
      }
    }
    // Which brokers exist (and whether enough of them are usable) is the controller's to check:
    // INVALID_REPLICA_ASSIGNMENT (39) for unknown or duplicate ids.
    const assignments = [...topic.assignments].sort((x, y) => x.partitionIndex - y.partitionIndex)
      .map((x) => ({ partitionIndex: x.partitionIndex, brokerIds: x.brokerIds }));
    return withConfigs(topic, { name: topic.name, numPartitions: -1, replicationFactor: -1, assignments });
  }
  if (numPartitions === -1) numPartitions = broker.config.numPartitions;
  if (replicationFactor === -1) replicationFactor = broker.config.defaultReplicationFactor;
  if (numPartitions <= 0) {
    return { errorCode: ErrorCode.INVALID_PARTITIONS, errorMessage: 'Number of partitions must be larger than 0.' };
  }
  if (replicationFactor <= 0) {
    return { errorCode: ErrorCode.INVALID_REPLICATION_FACTOR, errorMessage: 'Replication factor must be larger than 0.' };
  }
  return withConfigs(topic, { name: topic.name, numPartitions, replicationFactor });
}

/** `spec` with the topic's validated config overrides, or the first config error (INVALID_CONFIG 40, ...). */
function withConfigs(topic: CreatableTopic, spec: Omit<CreateTopicSpec, 'configs'>): CreateTopicSpec | { errorCode: number; errorMessage: string } {
  const validation = validateTopicConfigs(topic.configs, { nullValue: 'reject' });
  if (validation.errors.length > 0) {
    const first = validation.errors[0]!;
    return { errorCode: first.errorCode, errorMessage: first.errorMessage };
  }
  return { ...spec, configs: validation.overrides };
}
