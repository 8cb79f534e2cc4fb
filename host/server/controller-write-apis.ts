/**
 * The metadata changes the CONTROLLER listener answers (Kafka's ControllerApis for CreateTopics,
 * DeleteTopics, CreatePartitions, AlterConfigs, IncrementalAlterConfigs and AllocateProducerIds):
 * what a broker whose own controller is not the active one forwards here
 * (controller-forwarding.ts). Each handler calls this node's QuorumController, which answers
 * NOT_CONTROLLER (41) for every item when it is not the active controller (the sender then asks
 * again once it learns the new leader).
 *
 * These handlers trust the sender's validation of names and counts (the broker's own handlers in
 * host/api check them before forwarding); the controller re-checks what only it knows
 * (existence, placement, config values, the broker epoch of AllocateProducerIds).
 */
import { defineApi, type AnyApiDefinition } from '../api/api-definition.js';
import type { QuorumController } from '../controller/quorum-controller.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeAllocateProducerIdsRequest, encodeAllocateProducerIdsResponse,
  type AllocateProducerIdsRequest, type AllocateProducerIdsResponseInit,
} from '../protocol/generated/allocate-producer-ids.js';
import {
  decodeAlterConfigsRequest, encodeAlterConfigsResponse, type AlterConfigsRequest, type AlterConfigsResponseInit,
} from '../protocol/generated/alter-configs.js';
import {
  decodeCreatePartitionsRequest, encodeCreatePartitionsResponse, type CreatePartitionsRequest, type CreatePartitionsResponseInit,
} from '../protocol/generated/create-partitions.js';
import {
  decodeCreateTopicsRequest, encodeCreateTopicsResponse, type CreateTopicsRequest, type CreateTopicsResponseInit,
} from '../protocol/generated/create-topics.js';
import {
  decodeDeleteTopicsRequest, encodeDeleteTopicsResponse, type DeleteTopicsRequest, type DeleteTopicsResponseInit,
} from '../protocol/generated/delete-topics.js';
import {
  decodeIncrementalAlterConfigsRequest, encodeIncrementalAlterConfigsResponse,
  type IncrementalAlterConfigsRequest, type IncrementalAlterConfigsResponseInit,
} from '../protocol/generated/incremental-alter-configs.js';

/** Highest version of each forwarded API (the generated codecs' ranges). */
export const FORWARDED_VERSIONS = {
  CreateTopics: 4,
  DeleteTopics: 3,
  CreatePartitions: 1,
  AlterConfigs: 1,
  IncrementalAlterConfigs: 1,
  AllocateProducerIds: 0,
} as const;

/** CreateTopics on the CONTROLLER listener (validateOnly from v1). */
function createTopicsApi(controller: QuorumController): AnyApiDefinition {
  return defineApi<CreateTopicsRequest, CreateTopicsResponseInit>({
    apiKey: ApiKey.CreateTopics,
    name: 'CreateTopics',
    minVersion: 0,
    maxVersion: FORWARDED_VERSIONS.CreateTopics,
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
  });
}

/** DeleteTopics on the CONTROLLER listener: the deletions are one batch. */
function deleteTopicsApi(controller: QuorumController): AnyApiDefinition {
  return defineApi<DeleteTopicsRequest, DeleteTopicsResponseInit>({
    apiKey: ApiKey.DeleteTopics,
    name: 'DeleteTopics',
    minVersion: 0,
    maxVersion: FORWARDED_VERSIONS.DeleteTopics,
    decode: decodeDeleteTopicsRequest,
    encode: encodeDeleteTopicsResponse,
    async handle(request) {
      const results = await controller.deleteTopics(request.topicNames);
      return { throttleTimeMs: 0, responses: results.map((r) => ({ name: r.name, errorCode: r.errorCode })) };
    },
  });
}

/** CreatePartitions on the CONTROLLER listener. */
function createPartitionsApi(controller: QuorumController): AnyApiDefinition {
  return defineApi<CreatePartitionsRequest, CreatePartitionsResponseInit>({
    apiKey: ApiKey.CreatePartitions,
    name: 'CreatePartitions',
    minVersion: 0,
    maxVersion: FORWARDED_VERSIONS.CreatePartitions,
    decode: decodeCreatePartitionsRequest,
    encode: encodeCreatePartitionsResponse,
    async handle(request) {
      const results = await controller.createPartitions(request.topics.map((topic) => ({
        name: topic.name,
        count: topic.count,
        assignments: topic.assignments === null ? null : topic.assignments.map((a) => ({ brokerIds: a.brokerIds })),
      })), { validateOnly: request.validateOnly });
      return { throttleTimeMs: 0, results: results.map((r) => ({ name: r.name, errorCode: r.errorCode, errorMessage: r.errorMessage })) };
    },
  });
}

/** AlterConfigs (legacy: the given configs replace the resource's overrides) on the CONTROLLER listener. */
function alterConfigsApi(controller: QuorumController): AnyApiDefinition {
  return defineApi<AlterConfigsRequest, AlterConfigsResponseInit>({
    apiKey: ApiKey.AlterConfigs,
    name: 'AlterConfigs',
    minVersion: 0,
    maxVersion: FORWARDED_VERSIONS.AlterConfigs,
    decode: decodeAlterConfigsRequest,
    encode: encodeAlterConfigsResponse,
    async handle(request) {
      const results = await controller.alterConfigs(request.resources, { validateOnly: request.validateOnly });
      return { throttleTimeMs: 0, responses: results.map((r) => ({ ...r })) };
    },
  });
}

/** IncrementalAlterConfigs (KIP-339: SET, DELETE, APPEND, SUBTRACT per config) on the CONTROLLER listener. */
function incrementalAlterConfigsApi(controller: QuorumController): AnyApiDefinition {
  return defineApi<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponseInit>({
    apiKey: ApiKey.IncrementalAlterConfigs,
    name: 'IncrementalAlterConfigs',
    minVersion: 0,
    maxVersion: FORWARDED_VERSIONS.IncrementalAlterConfigs,
    decode: decodeIncrementalAlterConfigsRequest,
    encode: encodeIncrementalAlterConfigsResponse,
    async handle(request) {
      const results = await controller.incrementalAlterConfigs(request.resources, { validateOnly: request.validateOnly });
      return { throttleTimeMs: 0, responses: results.map((r) => ({ ...r })) };
    },
  });
}

/**
 * AllocateProducerIds (api key 67, KIP-730): a block of PRODUCER_ID_BLOCK_SIZE producer ids for
 * the asking broker, committed (a ProducerIdsRecord) before it is answered, so no id is handed
 * out twice across controller failovers. STALE_BROKER_EPOCH (77) for a broker epoch that is not
 * the broker's current registration; NOT_CONTROLLER (41) on an inactive controller.
 */
function allocateProducerIdsApi(controller: QuorumController): AnyApiDefinition {
  return defineApi<AllocateProducerIdsRequest, AllocateProducerIdsResponseInit>({
    apiKey: ApiKey.AllocateProducerIds,
    name: 'AllocateProducerIds',
    minVersion: 0,
    maxVersion: FORWARDED_VERSIONS.AllocateProducerIds,
    decode: decodeAllocateProducerIdsRequest,
    encode: encodeAllocateProducerIdsResponse,
    async handle(request) {
      const block = await controller.allocateProducerIds(request.brokerId, request.brokerEpoch);
      return { throttleTimeMs: 0, errorCode: block.errorCode, producerIdStart: block.producerIdStart, producerIdLen: block.producerIdLen };
    },
    errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, producerIdStart: -1, producerIdLen: 0 }),
  });
}

/** Every metadata-changing API the CONTROLLER listener serves, answered by `controller`. */
export function controllerWriteApis(controller: QuorumController): AnyApiDefinition[] {
  return [
    createTopicsApi(controller),
    deleteTopicsApi(controller),
    createPartitionsApi(controller),
    alterConfigsApi(controller),
    incrementalAlterConfigsApi(controller),
    allocateProducerIdsApi(controller),
  ];
}
