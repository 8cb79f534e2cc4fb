/**
 * CreatePartitions (api key 37), v0-1: grows topics (KIP-195).
 *
 * ```
 * CreatePartitions Request (Version: 0-1) => [topics] timeout_ms validate_only
 *   topics => name count [assignments]        (assignments nullable: one broker list per NEW partition)
 *     assignments => [broker_ids]
 * CreatePartitions Response (Version: 0-1) => throttle_time_ms [results]
 *   results => name error_code error_message
 * ```
 * Version notes that matter: MinVersion 0 (librdkafka sends only v0); v1 only changes
 * throttling. Errors per topic: UNKNOWN_TOPIC_OR_PARTITION (3), INVALID_PARTITIONS (37) when the
 * count does not grow, INVALID_REPLICA_ASSIGNMENT (39) for assignments that do not match or name
 * another broker, INVALID_REQUEST (42) for a topic given twice, POLICY_VIOLATION (44) for a growth
 * past controller.max.records.per.user.op (checked before the assignments are walked). Consumer groups subscribed to the
 * topic rebalance (the broker tells the coordinator). The partitions added count against the
 * controller mutation quota (KIP-599): v3+ would be refused with THROTTLING_QUOTA_EXCEEDED (89),
 * older versions are answered after the throttle time.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeCreatePartitionsRequest,
  encodeCreatePartitionsResponse,
  type CreatePartitionsRequest,
  type CreatePartitionsResponseInit,
  type CreatePartitionsTopicResultInit,
} from '../protocol/generated/create-partitions.js';
import { ControllerLimits } from '../controller/controller-limits.js';
import { defineApi } from './api-definition.js';
import { mutationQuotaFor, throttleAnswer } from './controller-mutation-quota.js';

export const createPartitionsApi = defineApi<CreatePartitionsRequest, CreatePartitionsResponseInit>({
  apiKey: ApiKey.CreatePartitions,
  name: 'CreatePartitions',
  minVersion: 0,
  maxVersion: 1,
  decode: decodeCreatePartitionsRequest,
  encode: encodeCreatePartitionsResponse,
  async handle(request, context) {
    const { broker } = context;
    const counts = new Map<string, number>();
    for (const topic of request.topics) counts.set(topic.name, (counts.get(topic.name) ?? 0) + 1);
    const results: CreatePartitionsTopicResultInit[] = [];
    const quota = mutationQuotaFor(broker.controllerMutationQuota, context, 3);
    for (const topic of request.topics) {
      const existing = broker.metadata.topic(topic.name);
      const fail = (errorCode: number, errorMessage: string): void => {
        results.push({ name: topic.name, errorCode, errorMessage });
      };
      if ((counts.get(topic.name) ?? 0) > 1) {
        fail(ErrorCode.INVALID_REQUEST, `Duplicate topic in request: ${topic.name}`);
        continue;
      }
      if (existing === undefined) {
        fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${topic.name}' does not exist.`);
        continue;
      }
      const current = existing.partitions.length;
      if (topic.count <= current) {
        fail(ErrorCode.INVALID_PARTITIONS,
          topic.count === current
            ? `Topic already has ${current} partitions.`
            : `Topic currently has ${current} partitions, which is higher than the requested ${topic.count}.`);
        continue;
      }
      // Refused by size before the assignments are walked: the limit bounds that walk too.
      const oversized = new ControllerLimits(broker.config).checkRecords('CreatePartitions', topic.count - current, true);
      if (oversized !== null) {
        fail(oversized.errorCode, oversized.errorMessage ?? '');
        continue;
      }
      if (topic.assignments !== null) {
        if (topic.assignments.length !== topic.count - current) {
          fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            `Increasing the number of partitions by ${topic.count - current} but ${topic.assignments.length} assignments provided.`);
          continue;
        }
        const bad = topic.assignments.find((a) => a.brokerIds.length === 0 || a.brokerIds.some((id) => id !== broker.nodeId) ||
          new Set(a.brokerIds).size !== a.brokerIds.length);
        if (bad !== undefined) {
          fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Assignment [${bad.brokerIds.join(', ')}] names brokers other than ${broker.nodeId}.`);
          continue;
        }
      }
      // A request refused for its size (above) was not charged to the quota (it does no work).
      const refused = request.validateOnly ? null : quota.record(topic.count - current);
      if (refused !== null) {
        fail(refused.errorCode, refused.errorMessage);
        continue;
      }
      const result = await broker.metadata.createPartitions(topic.name, topic.count, request.validateOnly, request.timeoutMs);
      results.push({ name: topic.name, errorCode: result.errorCode, errorMessage: result.errorMessage });
    }
    return { throttleTimeMs: await throttleAnswer(broker.controllerMutationQuota, quota), results };
  },
});
