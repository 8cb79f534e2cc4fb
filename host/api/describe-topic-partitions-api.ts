/**
 * DescribeTopicPartitions (api key 75), v0 (KIP-966): topics and their partitions (leader, leader
 * epoch, replicas, ISR, offline replicas), paged by a cursor; what Kafka 3.7+'s admin client and
 * `kafka-topics.sh --describe` use instead of Metadata.
 *
 * ```
 * DescribeTopicPartitions Request (Version: 0) => [topics] response_partition_limit cursor
 *   topics => name
 *   cursor => topic_name partition_index           (null: from the start)
 * DescribeTopicPartitions Response (Version: 0) => throttle_time_ms [topics] next_cursor
 *   topics => error_code name topic_id is_internal [partitions] topic_authorized_operations
 *     partitions => error_code partition_index leader_id leader_epoch [replica_nodes] [isr_nodes]
 *       [eligible_leader_replicas] [last_known_elr] [offline_replicas]
 * ```
 * Kafka's rules (DescribeTopicPartitionsRequestHandler, KRaftMetadataCache): an empty topic list
 * means every topic (unknown ones are then never answered); topics are answered in name order from
 * the cursor's topic on (starting at the cursor's partition in that topic); at most
 * min(response_partition_limit, {@link MAX_REQUEST_PARTITION_SIZE_LIMIT}) partitions (at least 1)
 * are answered, and next_cursor points at the first one left out. A named topic that does not
 * exist answers UNKNOWN_TOPIC_OR_PARTITION (3) (INVALID_TOPIC_EXCEPTION 17 for an illegal name); a
 * cursor whose topic is not in the list, or with a negative partition, is INVALID_REQUEST (42) for
 * every topic named. Per partition: leader_id -1 when the leader is not a live broker; offline_replicas
 * are the replicas on fenced or unregistered brokers; no eligible leader replicas (ELR is off).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeDescribeTopicPartitionsRequest,
  type DescribeTopicPartitionsRequest,
  type DescribeTopicPartitionsResponseDescribeTopicPartitionsResponseTopicInit as TopicAnswer,
  type DescribeTopicPartitionsResponseInit,
  encodeDescribeTopicPartitionsResponse,
} from '../protocol/generated/describe-topic-partitions.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { ZERO_UUID } from '../protocol/reader.js';
import { defineApi } from './api-definition.js';
import { firstTopicAtOrAfter } from './cluster-metadata.js';
import { TOPIC_AUTHORIZED_OPERATIONS } from './metadata-api.js';
import { topicNameProblem } from './topic-names.js';
import { isInternalTopic } from '../controller/topic-name.js';

/** Kafka's `max.request.partition.size.limit` default: the most partitions one answer carries. */
export const MAX_REQUEST_PARTITION_SIZE_LIMIT = 2_000;

export const describeTopicPartitionsApi = defineApi<DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponseInit>({
  apiKey: ApiKey.DescribeTopicPartitions,
  name: 'DescribeTopicPartitions',
  minVersion: 0,
  maxVersion: 0,
  decode: decodeDescribeTopicPartitionsRequest,
  encode: encodeDescribeTopicPartitionsResponse,
  handle(request, context) {
    const { broker } = context;
    const cursor = request.cursor;
    const cursorTopic = cursor?.topicName ?? '';
    const all = request.topics.length === 0;
    // Every topic: a page starts at the cursor in the cache's sorted list (no copy or sort of all
    // the names per page); named topics: the request's own names, sorted.
    const selected: Iterable<string> = all
      ? namesFrom(broker.metadata.topics(), cursorTopic)
      : [...new Set(request.topics.map((t) => t.name))].filter((name) => name >= cursorTopic).sort();
    if ((cursor !== null && !all && !(selected as string[]).includes(cursor.topicName)) || (cursor !== null && cursor.partitionIndex < 0)) {
      return { throttleTimeMs: 0, topics: request.topics.map((t) => unknown(t.name, ErrorCode.INVALID_REQUEST)), nextCursor: null };
    }
    const alive = new Set(broker.brokers(context.listenerName).map((b) => b.nodeId));
    let remaining = Math.max(Math.min(MAX_REQUEST_PARTITION_SIZE_LIMIT, request.responsePartitionLimit), 1);
    const topics: TopicAnswer[] = [];
    for (const name of selected) {
      if (remaining === 0) return { throttleTimeMs: 0, topics, nextCursor: { topicName: name, partitionIndex: 0 } };
      const topic = broker.metadata.topic(name);
      if (topic === undefined) {
        if (!all) topics.push(unknown(name, topicNameProblem(name) === null ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.INVALID_TOPIC_EXCEPTION));
        continue;
      }
      const start = name === cursorTopic && cursor !== null ? cursor.partitionIndex : 0;
      const end = Math.min(topic.partitions.length, start + remaining);
      const partitions = topic.partitions.slice(start, end).map((p) => ({
        errorCode: ErrorCode.NONE,
        partitionIndex: p.partition,
        leaderId: alive.has(p.leaderId) ? p.leaderId : -1,
        leaderEpoch: p.leaderEpoch,
        replicaNodes: [...p.replicas],
        isrNodes: [...p.isr],
        eligibleLeaderReplicas: [],
        lastKnownElr: [],
        offlineReplicas: p.replicas.filter((id) => !alive.has(id)),
      }));
      topics.push({
        errorCode: ErrorCode.NONE, name, topicId: topic.topicId, isInternal: topic.isInternal, partitions,
        topicAuthorizedOperations: TOPIC_AUTHORIZED_OPERATIONS,
      });
      if (end < topic.partitions.length) return { throttleTimeMs: 0, topics, nextCursor: { topicName: name, partitionIndex: end } };
      remaining -= partitions.length;
    }
    return { throttleTimeMs: 0, topics, nextCursor: null };
  },
});

/** The names of `sorted` (in name order) from the first at or after `from`, found by binary search. */
function* namesFrom(sorted: readonly { name: string }[], from: string): Generator<string> {
  for (let i = firstTopicAtOrAfter(sorted, from); i < sorted.length; i++) yield sorted[i]!.name;
}

function unknown(name: string, errorCode: number): TopicAnswer {
  return { errorCode, name, topicId: ZERO_UUID, isInternal: isInternalTopic(name), partitions: [], topicAuthorizedOperations: TOPIC_AUTHORIZED_OPERATIONS };
}
