/**
 * FindCoordinator (api key 10), v0-2: which broker coordinates a group (the leader of the group's
 * `__consumer_offsets` partition) or a transactional id (the leader of its `__transaction_state`
 * partition); this broker on a single node.
 *
 * ```
 * FindCoordinator Request (Version: 0)   => key
 * FindCoordinator Request (Version: 1-2) => key key_type
 * FindCoordinator Response (Version: 0)   => error_code node_id host port
 * FindCoordinator Response (Version: 1-2) => throttle_time_ms error_code error_message node_id host port
 * ```
 * Version notes that matter:
 * - MinVersion 0 is required: librdkafka 2.0.2's group and LZ4 feature probes are FindCoordinator
 *   0..0 (CLIENTS.md L1); kafka-python sends v0 only.
 * - v1 (KIP-98) adds key_type: 0 group, 1 transaction (the leader of the transactional id's
 *   `__transaction_state` partition, same hash rule); other key types INVALID_REQUEST (42).
 * - As in Kafka, looking up a coordinator creates its internal topic (`__consumer_offsets`,
 *   `__transaction_state`) when it does not exist; COORDINATOR_NOT_AVAILABLE if that fails.
 * - The endpoint is that of the listener the request came in on; COORDINATOR_NOT_AVAILABLE (15)
 *   while the key's partition has no leader.
 */
import { OFFSETS_TOPIC_NAME, partitionForGroup } from '../coordinator/offsets-topic.js';
import { TRANSACTION_STATE_TOPIC_NAME } from '../coordinator/transaction-topic.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeFindCoordinatorRequest,
  encodeFindCoordinatorResponse,
  type FindCoordinatorRequest,
  type FindCoordinatorResponseInit,
} from '../protocol/generated/find-coordinator.js';
import { defineApi } from './api-definition.js';

/** FindCoordinator key types (Kafka's CoordinatorType). */
export const CoordinatorType = { GROUP: 0, TRANSACTION: 1 } as const;

export const findCoordinatorApi = defineApi<FindCoordinatorRequest, FindCoordinatorResponseInit>({
  apiKey: ApiKey.FindCoordinator,
  name: 'FindCoordinator',
  minVersion: 0,
  maxVersion: 2,
  decode: decodeFindCoordinatorRequest,
  encode: encodeFindCoordinatorResponse,
  async handle(request, context) {
    const { broker } = context;
    const keyType = context.apiVersion >= 1 ? request.keyType : CoordinatorType.GROUP;
    if (keyType !== CoordinatorType.GROUP && keyType !== CoordinatorType.TRANSACTION) {
      return failure(ErrorCode.INVALID_REQUEST, `unknown key type ${keyType}`);
    }
    const transaction = keyType === CoordinatorType.TRANSACTION;
    const topicName = transaction ? TRANSACTION_STATE_TOPIC_NAME : OFFSETS_TOPIC_NAME;
    const ensured = transaction
      ? await (broker.ensureTransactionStateTopic?.() ?? Promise.resolve(ErrorCode.COORDINATOR_NOT_AVAILABLE))
      : await broker.ensureOffsetsTopic();
    if (ensured !== ErrorCode.NONE) return failure(ErrorCode.COORDINATOR_NOT_AVAILABLE, `${topicName} could not be created`);
    // The coordinator is the leader of the key's partition of the internal topic (Kafka:
    // abs(key.hashCode) % partitions), wherever it is in the cluster.
    const internal = broker.metadata.topic(topicName);
    const partition = internal === undefined || internal.partitions.length === 0
      ? undefined
      : internal.partitions[partitionForGroup(request.key, internal.partitions.length)];
    const leaderId = partition?.leaderId ?? broker.nodeId;
    if (leaderId < 0) return failure(ErrorCode.COORDINATOR_NOT_AVAILABLE, `the key's ${topicName} partition has no leader`);
    const endpoint = broker.brokers(context.listenerName).find((candidate) => candidate.nodeId === leaderId);
    if (endpoint === undefined) return failure(ErrorCode.COORDINATOR_NOT_AVAILABLE, `no endpoint of broker ${leaderId} for this listener`);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, nodeId: endpoint.nodeId, host: endpoint.host, port: endpoint.port };
  },
  errorResponse(_version, errorCode) {
    return failure(errorCode, null);
  },
});

function failure(errorCode: number, errorMessage: string | null): FindCoordinatorResponseInit {
  return { throttleTimeMs: 0, errorCode, errorMessage, nodeId: -1, host: '', port: -1 };
}
