/**
 * Metadata (api key 3), v0-8: brokers, controller, topics and their partition leaders.
 *
 * ```
 * Metadata Request (Version: 0-3) => [topics]
 * Metadata Request (Version: 4-7) => [topics] allow_auto_topic_creation
 * Metadata Request (Version: 8)   => [topics] allow_auto_topic_creation
 *                                    include_cluster_authorized_operations include_topic_authorized_operations
 *   topics => name STRING
 * Metadata Response (Version: 8) => throttle_time_ms [brokers] cluster_id controller_id [topics] cluster_authorized_operations
 *   brokers => node_id host port rack
 *   topics => error_code name is_internal [partitions] topic_authorized_operations
 *     partitions => error_code partition_index leader_id leader_epoch [replica_nodes] [isr_nodes] [offline_replicas]
 * ```
 * Version notes that matter:
 * - v0: an EMPTY topic array means all topics (kafka-python's probe). v1+: NULL means all topics
 *   and an empty array means none (librdkafka's broker-only refresh, CLIENTS.md L6).
 * - v1+: controller_id must be a listed, reachable broker (admin clients route to it): this node.
 *   rack (v1+), is_internal (v1+), cluster_id (v2+), throttle_time_ms (v3+), offline_replicas
 *   (v5+), leader_epoch (v7+), authorized operations (v8+, -2^31 when not asked for).
 * - v4+ allow_auto_topic_creation: honoured (false from librdkafka consumer handles); below v4
 *   auto-creation is implied (kafka-python's Metadata v1). Either way only when
 *   auto.create.topics.enable is true. Auto-creation is never applied to "all topics" requests,
 *   and creates at most auto.create.topics.max.per.request topics per request, within the client's
 *   controller mutation quota (auto-topic-creation.ts, issue 15); the unknown topics past that are
 *   answered LEADER_NOT_AVAILABLE (5), retried by clients, and nothing is created for them.
 * - Brokers are answered with the advertised endpoint of the listener the request came in on.
 * - An all-topics answer is encoded once per change of the broker's metadata and reused
 *   (metadata-response-cache.ts, `metadata.response.cache.max.bytes`; issue 15): only
 *   throttle_time_ms and the header's correlation id are written per request.
 * - Errors per topic: INVALID_TOPIC_EXCEPTION (17) for illegal names, UNKNOWN_TOPIC_OR_PARTITION
 *   (3) for unknown topics not created, LEADER_NOT_AVAILABLE (5) while a topic has no partitions yet
 *   or its auto-creation was deferred to a later request.
 * - Per partition: LEADER_NOT_AVAILABLE (5) with leader_id -1 while no live in-sync replica can
 *   lead (offline); offline_replicas lists the replicas on brokers that are fenced or unregistered.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeMetadataRequest,
  encodeMetadataResponse,
  type MetadataRequest,
  type MetadataResponseInit,
  type MetadataResponseTopicInit,
} from '../protocol/generated/metadata.js';
import { type ApiRequestContext, defineApi, EncodedResponseBody } from './api-definition.js';
import type { BrokerServices } from './broker-services.js';
import type { TopicState } from './cluster-metadata.js';
import { RequestAutoTopicCreation } from './auto-topic-creation.js';
import { type AllTopicsAnswer, MetadataResponseCache } from './metadata-response-cache.js';
import { Writer } from '../protocol/writer.js';
import { topicNameProblem } from './topic-names.js';

/** Kafka's "authorized operations not requested" value. */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/** AclOperation codes (Kafka's AclOperation): READ 3 ... IDEMPOTENT_WRITE 12. */
const op = (code: number): number => 1 << code;
/** Everything a topic supports, as Kafka answers without an authorizer. */
export const TOPIC_AUTHORIZED_OPERATIONS = op(3) | op(4) | op(5) | op(6) | op(7) | op(8) | op(10) | op(11);
/** Everything the cluster resource supports, as Kafka answers without an authorizer. */
export const CLUSTER_AUTHORIZED_OPERATIONS = op(5) | op(7) | op(8) | op(9) | op(10) | op(11) | op(12);

export const metadataApi = defineApi<MetadataRequest, MetadataResponseInit>({
  apiKey: ApiKey.Metadata,
  name: 'Metadata',
  minVersion: 0,
  maxVersion: 8,
  decode: decodeMetadataRequest,
  encode: encodeMetadataResponse,
  workPartitionCount(request, context) {
    const { metadata } = context.broker;
    const requested = request.topics;
    const all = requested === null || (context.apiVersion === 0 && requested.length === 0);
    let partitions = 0;
    if (all) for (const topic of metadata.topics()) partitions += topic.partitions.length;
    else for (const name of new Set(requested.map((topic) => topic.name))) partitions += metadata.topic(name)?.partitions.length ?? 0;
    return partitions;
  },
  handle(request, context) {
    const { broker, apiVersion } = context;
    const requested = request.topics;
    const topicOperations = apiVersion >= 8 && request.includeTopicAuthorizedOperations
      ? TOPIC_AUTHORIZED_OPERATIONS
      : AUTHORIZED_OPERATIONS_OMITTED;
    const clusterOperations = apiVersion >= 8 && request.includeClusterAuthorizedOperations
      ? CLUSTER_AUTHORIZED_OPERATIONS
      : AUTHORIZED_OPERATIONS_OMITTED;
    if (requested !== null && !(apiVersion === 0 && requested.length === 0)) {
      return answerNamedTopics(request, requested, context, topicOperations, clusterOperations);
    }
    const cache = broker.metadataResponseCache;
    if (cache === undefined || !cache.enabled) return allTopicsResponse(context, topicOperations, clusterOperations);
    const key = { apiVersion, listenerName: context.listenerName, topicAuthorizedOperations: topicOperations, clusterAuthorizedOperations: clusterOperations };
    const body = cache.body(key, () => allTopicsAnswer(context, topicOperations, clusterOperations));
    if (body instanceof Promise) return body.then((built) => new EncodedResponseBody(MetadataResponseCache.responseChunks(apiVersion, 0, built)));
    return new EncodedResponseBody(MetadataResponseCache.responseChunks(apiVersion, 0, body));
  },
});

/**
 * The all-topics answer in the parts the response cache encodes and reuses, each written by the
 * generated encoder: the head and tail are an answer without topics cut at the topics array, a
 * topic is an answer of that one topic cut the same way.
 */
function allTopicsAnswer(context: ApiRequestContext, topicOperations: number, clusterOperations: number): AllTopicsAnswer {
  const { broker, apiVersion } = context;
  const { brokers, alive } = brokersOf(context);
  const noTopics = response(broker, brokers, [], clusterOperations);
  const tailBytes = apiVersion >= 8 ? 4 : 0; // cluster_authorized_operations
  const whole = new Writer(256);
  encodeMetadataResponse(whole, apiVersion, noTopics);
  const topicsAt = whole.length - tailBytes - 4; // the topics array's int32 count
  const empty = new Writer(64);
  encodeMetadataResponse(empty, apiVersion, { ...noTopics, brokers: [], clusterId: null, controllerId: -1 });
  const emptyTopicsAt = empty.length - tailBytes - 4;
  const one = new Writer(4096);
  const oneTopic: MetadataResponseTopicInit[] = [];
  const oneTopicResponse: MetadataResponseInit = { ...noTopics, brokers: [], clusterId: null, controllerId: -1, topics: oneTopic };
  return {
    topics: broker.metadata.topics(),
    topicContext: [...alive].join(','),
    writeHead: (w) => w.raw(whole.buf.subarray(0, topicsAt)),
    writeTopic: (w, topic) => {
      one.reset();
      oneTopic[0] = describeTopic(topic, topicOperations, alive);
      encodeMetadataResponse(one, apiVersion, oneTopicResponse);
      w.raw(one.buf.subarray(emptyTopicsAt + 4, one.length - tailBytes));
    },
    writeTail: (w) => w.raw(whole.buf.subarray(whole.length - tailBytes, whole.length)),
  };
}

/**
 * The answer for every topic, built from the metadata as it is now (the cached answers of
 * metadata-response-cache.ts are this, encoded).
 */
export function allTopicsResponse(context: ApiRequestContext, topicOperations: number, clusterOperations: number): MetadataResponseInit {
  const { brokers, alive } = brokersOf(context);
  const topics: MetadataResponseTopicInit[] = [];
  for (const topic of context.broker.metadata.topics()) topics.push(describeTopic(topic, topicOperations, alive));
  return response(context.broker, brokers, topics, clusterOperations);
}

/** The answer for the topics a request names, creating the unknown ones where allowed. */
async function answerNamedTopics(
  request: MetadataRequest,
  requested: readonly { readonly name: string }[],
  context: ApiRequestContext,
  topicOperations: number,
  clusterOperations: number,
): Promise<MetadataResponseInit> {
  const { broker, apiVersion } = context;
  const topics: MetadataResponseTopicInit[] = [];
  const { brokers, alive } = brokersOf(context);
  const autoCreation = (apiVersion < 4 || request.allowAutoTopicCreation) && broker.config.autoCreateTopicsEnable
    ? new RequestAutoTopicCreation(context)
    : null;
  const seen = new Set<string>();
  for (const { name } of requested) {
    if (seen.has(name)) continue;
    seen.add(name);
    let topic = broker.metadata.topic(name);
    if (topic === undefined) {
      let errorCode: number = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      if (topicNameProblem(name) !== null) errorCode = ErrorCode.INVALID_TOPIC_EXCEPTION;
      else if (autoCreation !== null) {
        const created = await autoCreation.create(name);
        topic = broker.metadata.topic(name);
        errorCode = created === ErrorCode.NONE ? ErrorCode.LEADER_NOT_AVAILABLE : created;
      }
      if (topic === undefined) {
        topics.push({ errorCode, name, isInternal: false, partitions: [], topicAuthorizedOperations: topicOperations });
        continue;
      }
    }
    topics.push(describeTopic(topic, topicOperations, alive));
  }
  autoCreation?.logRefusals();
  return response(broker, brokers, topics, clusterOperations);
}

/** The brokers answered on the request's listener, and their ids (a replica elsewhere is offline). */
function brokersOf(context: ApiRequestContext): { brokers: MetadataResponseInit['brokers']; alive: Set<number> } {
  const brokers = brokerList(context.broker, context.listenerName);
  return { brokers, alive: new Set(brokers.map((b) => b.nodeId)) };
}

/** A Metadata answer around `topics`: throttle time 0 (written per request when cached), cluster id, controller. */
function response(
  broker: BrokerServices,
  brokers: MetadataResponseInit['brokers'],
  topics: MetadataResponseTopicInit[],
  clusterOperations: number,
): MetadataResponseInit {
  return {
    throttleTimeMs: 0,
    brokers,
    clusterId: broker.metadata.clusterId,
    controllerId: broker.metadata.controllerId,
    topics,
    clusterAuthorizedOperations: clusterOperations,
  };
}

function brokerList(broker: BrokerServices, listenerName: string): MetadataResponseInit['brokers'] {
  return broker.brokers(listenerName).map((endpoint) => ({
    nodeId: endpoint.nodeId,
    host: endpoint.host,
    port: endpoint.port,
    rack: endpoint.rack,
  }));
}

/**
 * One topic as Metadata answers it. `alive`: the ids of the brokers clients can reach now
 * (registered, unfenced); replicas elsewhere are the partition's offline_replicas (Kafka's
 * KRaftMetadataCache.getOfflineReplicas), and a partition without a leader (-1: no live in-sync
 * replica) answers LEADER_NOT_AVAILABLE (5).
 */
function describeTopic(topic: TopicState, topicAuthorizedOperations: number, alive: ReadonlySet<number>): MetadataResponseTopicInit {
  return {
    // A topic without partitions yet is still being created; leaderless partitions say so themselves.
    errorCode: topic.partitions.length === 0 ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
    name: topic.name,
    isInternal: topic.isInternal,
    partitions: topic.partitions.map((p) => ({
      errorCode: p.leaderId < 0 ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
      partitionIndex: p.partition,
      leaderId: p.leaderId,
      leaderEpoch: p.leaderEpoch,
      replicaNodes: [...p.replicas],
      isrNodes: [...p.isr],
      offlineReplicas: p.replicas.filter((id) => !alive.has(id)),
    })),
    topicAuthorizedOperations,
  };
}
