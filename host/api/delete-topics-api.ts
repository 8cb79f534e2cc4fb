/**
 * DeleteTopics (api key 20), v0-3: deletes topics and their data.
 *
 * ```
 * DeleteTopics Request (Version: 0-3) => [topic_names] timeout_ms
 * DeleteTopics Response (Version: 0)   => [responses]
 * DeleteTopics Response (Version: 1-3) => throttle_time_ms [responses]
 *   responses => name error_code
 * ```
 * Version notes that matter: v0-3 requests are identical (librdkafka/kafkajs v1, kafka-python
 * v3). Errors per topic: UNKNOWN_TOPIC_OR_PARTITION (3), TOPIC_DELETION_DISABLED (73) when
 * delete.topic.enable=false, INVALID_TOPIC_EXCEPTION (17) for internal topics (the group
 * coordinator lives in `__consumer_offsets`), INVALID_REQUEST (42) for a name given twice. The
 * deleted topics' partitions count against the controller mutation quota (KIP-599): v5+ would be
 * refused with THROTTLING_QUOTA_EXCEEDED (89), older versions are answered after the throttle time.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeDeleteTopicsRequest,
  encodeDeleteTopicsResponse,
  type DeletableTopicResultInit,
  type DeleteTopicsRequest,
  type DeleteTopicsResponseInit,
} from '../protocol/generated/delete-topics.js';
import { defineApi } from './api-definition.js';
import { mutationQuotaFor, throttleAnswer } from './controller-mutation-quota.js';
import { INTERNAL_TOPIC_NAMES } from './topic-names.js';

export const deleteTopicsApi = defineApi<DeleteTopicsRequest, DeleteTopicsResponseInit>({
  apiKey: ApiKey.DeleteTopics,
  name: 'DeleteTopics',
  minVersion: 0,
  maxVersion: 3,
  decode: decodeDeleteTopicsRequest,
  encode: encodeDeleteTopicsResponse,
  async handle(request, context) {
    const { broker } = context;
    const counts = new Map<string, number>();
    for (const name of request.topicNames) counts.set(name, (counts.get(name) ?? 0) + 1);
    const responses: DeletableTopicResultInit[] = [];
    const quota = mutationQuotaFor(broker.controllerMutationQuota, context, 5);
    for (const name of request.topicNames) {
      let errorCode: number;
      if ((counts.get(name) ?? 0) > 1) errorCode = ErrorCode.INVALID_REQUEST;
      else if (!broker.config.deleteTopicEnable) errorCode = ErrorCode.TOPIC_DELETION_DISABLED;
      else if (broker.metadata.topic(name) === undefined) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else if (INTERNAL_TOPIC_NAMES.has(name)) errorCode = ErrorCode.INVALID_TOPIC_EXCEPTION;
      else errorCode = quota.record(broker.metadata.topic(name)!.partitions.length)?.errorCode ??
        (await broker.metadata.deleteTopic(name)).errorCode;
      responses.push({ name, errorCode });
    }
    return { throttleTimeMs: await throttleAnswer(broker.controllerMutationQuota, quota), responses };
  },
});
