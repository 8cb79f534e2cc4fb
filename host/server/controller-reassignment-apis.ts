/**
 * AlterPartitionReassignments (api key 45) and ListPartitionReassignments (api key 46) on the
 * CONTROLLER listener (Kafka's ControllerApis): what a broker forwards when a client asks it
 * (controller-forwarding.ts), answered by this node's QuorumController: the alteration once its
 * records are committed, the list from the committed image; NOT_CONTROLLER (41) at the top level
 * from a controller that is not the active one. Rules: host/controller/reassignment-control.ts.
 */
import { defineApi, type AnyApiDefinition } from '../api/api-definition.js';
import type { QuorumController } from '../controller/quorum-controller.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  type AlterPartitionReassignmentsRequest,
  type AlterPartitionReassignmentsResponseInit,
  decodeAlterPartitionReassignmentsRequest,
  encodeAlterPartitionReassignmentsResponse,
} from '../protocol/generated/alter-partition-reassignments.js';
import {
  type ListPartitionReassignmentsRequest,
  type ListPartitionReassignmentsResponseInit,
  decodeListPartitionReassignmentsRequest,
  encodeListPartitionReassignmentsResponse,
} from '../protocol/generated/list-partition-reassignments.js';

/** The version both APIs are forwarded with (the only one Kafka defines for v0 clients). */
export const REASSIGNMENT_API_VERSION = 0;

/** Both reassignment APIs, answered by `controller`. */
export function controllerReassignmentApis(controller: QuorumController): AnyApiDefinition[] {
  const alter = defineApi<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponseInit>({
    apiKey: ApiKey.AlterPartitionReassignments,
    name: 'AlterPartitionReassignments',
    minVersion: 0,
    maxVersion: REASSIGNMENT_API_VERSION,
    decode: decodeAlterPartitionReassignmentsRequest,
    encode: encodeAlterPartitionReassignmentsResponse,
    handle: (request) => controller.alterPartitionReassignments(request.topics),
    errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, responses: [] }),
  });
  const list = defineApi<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponseInit>({
    apiKey: ApiKey.ListPartitionReassignments,
    name: 'ListPartitionReassignments',
    minVersion: 0,
    maxVersion: REASSIGNMENT_API_VERSION,
    decode: decodeListPartitionReassignmentsRequest,
    encode: encodeListPartitionReassignmentsResponse,
    handle: (request) => Promise.resolve(controller.listPartitionReassignments(request.topics)),
    errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, topics: [] }),
  });
  return [alter, list];
}
