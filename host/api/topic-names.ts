/**
 * Topic name rules and auto-creation shared by the Metadata, Produce and CreateTopics handlers.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import type { BrokerServices } from './broker-services.js';
import { mutationQuotaFor } from './controller-mutation-quota.js';
import { topicNameProblem } from '../controller/topic-name.js';

export { INTERNAL_TOPIC_NAMES, MAX_TOPIC_NAME_LENGTH, topicNameProblem } from '../controller/topic-name.js';

/**
 * Creates `name` with the broker defaults (`num.partitions`, `default.replication.factor`) as
 * Kafka's auto-creation does; `__consumer_offsets` goes through the coordinator's own creation.
 * Resolves with 0 when the topic exists afterwards (created here or concurrently), else a Kafka
 * error code: INVALID_TOPIC_EXCEPTION (17) for an illegal name, UNKNOWN_TOPIC_OR_PARTITION (3)
 * when auto.create.topics.enable is false, or what the controller answered. The partitions
 * created count against the requesting client's controller mutation quota, permissively (as
 * Kafka's auto-creation: never refused, the client's later CreateTopics feel it).
 */
export async function autoCreateTopic(
  broker: BrokerServices,
  name: string,
  requester: { readonly clientId: string | null; readonly apiVersion: number } = { clientId: null, apiVersion: 0 },
): Promise<number> {
  if (broker.metadata.topic(name) !== undefined) return ErrorCode.NONE;
  if (topicNameProblem(name) !== null) return ErrorCode.INVALID_TOPIC_EXCEPTION;
  if (name === OFFSETS_TOPIC_NAME) return broker.ensureOffsetsTopic();
  if (!broker.config.autoCreateTopicsEnable) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  const result = await broker.metadata.createTopic(
    { name, numPartitions: broker.config.numPartitions, replicationFactor: broker.config.defaultReplicationFactor, configs: {} },
    false,
  );
  if (result.errorCode === ErrorCode.NONE) {
    mutationQuotaFor(broker.controllerMutationQuota, requester, Number.POSITIVE_INFINITY).record(broker.config.numPartitions);
  }
  if (result.errorCode === ErrorCode.NONE || result.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS) return ErrorCode.NONE;
  return result.errorCode;
}
