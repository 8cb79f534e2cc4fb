/**
 * Forwarding to the active controller (Kafka's ForwardingManager, reduced to what a combined node
 * needs): a broker whose own controller is not the active one sends topic creations (Metadata's
 * auto-create, CreateTopics) to the active controller's CONTROLLER listener, where
 * {@link controllerCreateTopicsApi} answers them from the QuorumController.
 *
 * Wire: CreateTopics v4 (the highest our codecs generate), one topic per request.
 */
import { defineApi, type AnyApiDefinition } from '../api/api-definition.js';
import type { CreateTopicSpec, MetadataResult } from '../api/cluster-metadata.js';
import type { QuorumController } from '../controller/quorum-controller.js';
import type { NodeChannels } from '../network/node-channels.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeCreateTopicsRequest, decodeCreateTopicsResponse, encodeCreateTopicsRequest, encodeCreateTopicsResponse,
  type CreateTopicsRequest, type CreateTopicsResponseInit,
} from '../protocol/generated/create-topics.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';

const CREATE_TOPICS_VERSION = 4;

/** CreateTopics on the CONTROLLER listener: answered by this node's controller (NOT_CONTROLLER 41 when it is not active). */
export function controllerCreateTopicsApi(controller: QuorumController): AnyApiDefinition {
  return defineApi<CreateTopicsRequest, CreateTopicsResponseInit>({
    apiKey: ApiKey.CreateTopics,
    name: 'CreateTopics',
    minVersion: 0,
    maxVersion: CREATE_TOPICS_VERSION,
    decode: decodeCreateTopicsRequest,
    encode: encodeCreateTopicsResponse,
    async handle(request, context) {
      const results = await controller.createTopics(request.topics.map((topic) => ({
        name: topic.name,
        numPartitions: topic.numPartitions,
        replicationFactor: topic.replicationFactor,
        assignments: topic.assignments.map((a) => ({ partitionIndex: a.partitionIndex, brokerIds: a.brokerIds })),
        configs: topic.configs.map((c) => ({ name: c.name, value: c.value })),
      })), { validateOnly: context.apiVersion >= 1 && request.validateOnly });
      return {
        throttleTimeMs: 0,
        topics: results.map((r) => ({ name: r.name, errorCode: r.errorCode, errorMessage: r.errorMessage })),
      };
    },
    errorResponse: () => null,
  });
}

/**
 * Sends one topic creation to the active controller and returns its answer.
 * NOT_CONTROLLER (41) when no controller is known; REQUEST_TIMED_OUT (7) when it does not answer.
 */
export async function forwardCreateTopic(
  channels: NodeChannels, activeControllerId: number, spec: CreateTopicSpec, validateOnly: boolean, timeoutMs: number,
): Promise<MetadataResult> {
  if (activeControllerId < 0) return { errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'no active controller is known yet' };
  const api = { apiKey: ApiKey.CreateTopics, name: 'CreateTopics', encodeRequest: encodeCreateTopicsRequest, decodeResponse: decodeCreateTopicsResponse };
  const result = await channels.send(activeControllerId, api, CREATE_TOPICS_VERSION, {
    topics: [{
      name: spec.name, numPartitions: spec.numPartitions, replicationFactor: spec.replicationFactor,
      assignments: (spec.assignments ?? []).map((a) => ({ partitionIndex: a.partitionIndex, brokerIds: [...a.brokerIds] })),
      configs: Object.entries(spec.configs).map(([name, value]) => ({ name, value })),
    }],
    timeoutMs,
    validateOnly,
  }, timeoutMs);
  if (result.kind === 'timeout') return { errorCode: ErrorCode.REQUEST_TIMED_OUT, errorMessage: `the active controller ${activeControllerId} did not answer` };
  if (result.kind === 'disconnected') return { errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: `the active controller ${activeControllerId} is not reachable: ${result.reason}` };
  const topic = result.body.topics.find((t) => t.name === spec.name);
  if (topic === undefined) return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'the controller answered without the topic' };
  return { errorCode: topic.errorCode, errorMessage: topic.errorMessage ?? null };
}
