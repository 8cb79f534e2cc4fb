/**
 * ElectLeaders (api key 43) on the CONTROLLER listener (Kafka's ControllerApis): what a broker
 * forwards when a client asks it for leader elections (controller-forwarding.ts), answered by this
 * node's QuorumController once the elections are committed; NOT_CONTROLLER (41) at the top level
 * from a controller that is not the active one. Rules: host/controller/leader-election-control.ts.
 */
import { defineApi, type AnyApiDefinition } from '../api/api-definition.js';
import type { QuorumController } from '../controller/quorum-controller.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeElectLeadersRequest,
  type ElectLeadersRequest,
  type ElectLeadersResponseInit,
  encodeElectLeadersResponse,
} from '../protocol/generated/elect-leaders.js';

/** The highest ElectLeaders version: v1 added the election type and the top-level error, v2 is flexible. */
export const ELECT_LEADERS_VERSION = 2;

/** ElectLeaders v0-2 (v0: PREFERRED only). */
export function controllerElectLeadersApi(controller: QuorumController): AnyApiDefinition {
  return defineApi<ElectLeadersRequest, ElectLeadersResponseInit>({
    apiKey: ApiKey.ElectLeaders,
    name: 'ElectLeaders',
    minVersion: 0,
    maxVersion: ELECT_LEADERS_VERSION,
    decode: decodeElectLeadersRequest,
    encode: encodeElectLeadersResponse,
    handle: (request) => controller.electLeaders(request.electionType, request.topicPartitions),
    errorResponse: (version, errorCode) => (version >= 1 ? { throttleTimeMs: 0, errorCode, replicaElectionResults: [] } : null),
  });
}
