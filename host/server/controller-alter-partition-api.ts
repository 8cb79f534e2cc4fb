/**
 * AlterPartition (api key 56) on the CONTROLLER listener (Kafka's ControllerApis): a partition
 * leader's ISR proposal, sent by its AlterPartitionManager, answered by this node's
 * QuorumController once the PartitionChangeRecord is committed. The rules and the grammar are in
 * host/controller/alter-partition-control.ts; a controller that is not the active one answers
 * NOT_CONTROLLER (41) at the top level and the sender retries at the active one.
 */
import { defineApi, type AnyApiDefinition } from '../api/api-definition.js';
import type { QuorumController } from '../controller/quorum-controller.js';
import {
  type AlterPartitionRequest,
  type AlterPartitionResponseInit,
  decodeAlterPartitionRequest,
  encodeAlterPartitionResponse,
} from '../protocol/generated/alter-partition.js';
import { ApiKey } from '../protocol/generated/api-keys.js';

/** AlterPartition v0-3 (v2+ names topics by id, v3 carries the ISR members' broker epochs). */
export function controllerAlterPartitionApi(controller: QuorumController): AnyApiDefinition {
  return defineApi<AlterPartitionRequest, AlterPartitionResponseInit>({
    apiKey: ApiKey.AlterPartition,
    name: 'AlterPartition',
    minVersion: 0,
    maxVersion: 3,
    decode: decodeAlterPartitionRequest,
    encode: encodeAlterPartitionResponse,
    handle: (request, context) => controller.alterPartition(request, context.apiVersion),
    errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, topics: [] }),
  });
}
