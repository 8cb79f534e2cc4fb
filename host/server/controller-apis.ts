/**
 * The CONTROLLER listener's API handlers: the Raft RPCs (Kafka's ControllerApis for Vote,
 * BeginQuorumEpoch, EndQuorumEpoch, Fetch of `__cluster_metadata-0`, FetchSnapshot and
 * DescribeQuorum), plus ApiVersions listing them, in an {@link ApiRegistry} of their own: the
 * controller listener serves nothing else from the client-facing set.
 *
 * Each handler decodes with the wire table (raft-wire.ts), hands the request to the
 * {@link RaftRequestHandler} (the RaftDriver) and encodes its answer. When the node does not answer
 * in time or is stopping, the response carries REQUEST_TIMED_OUT (7) (or BROKER_NOT_AVAILABLE (8)
 * while stopping) so the sender learns at once instead of waiting for its own timeout.
 */
import { defineApi, type AnyApiDefinition } from '../api/api-definition.js';
import { ApiRegistry } from '../api/api-registry.js';
import { createApiVersionsApi } from '../api/api-versions-api.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { RaftApi, RaftRequests, RaftResponses } from '../raft/messages.js';
import { RaftRequestAbandoned } from '../raft/raft-driver.js';
import type { RaftWire } from '../raft/raft-wire.js';

/** Answers Raft requests (RaftDriver.handleRequest). */
export interface RaftRequestHandler {
  handleRequest<A extends RaftApi>(api: A, body: RaftRequests[A]): Promise<RaftResponses[A]>;
}

/** Highest version of each Raft API this listener decodes (the generated codecs' ranges; Fetch only v12: topic by name). */
const VERSIONS: { readonly [A in RaftApi]: { readonly min: number; readonly max: number } } = {
  Vote: { min: 0, max: 2 },
  BeginQuorumEpoch: { min: 0, max: 1 },
  EndQuorumEpoch: { min: 0, max: 1 },
  Fetch: { min: 12, max: 12 },
  FetchSnapshot: { min: 0, max: 1 },
  DescribeQuorum: { min: 0, max: 2 },
};

/** A response of `api` carrying only `errorCode` (no leader known). */
export function raftErrorResponse<A extends RaftApi>(api: A, errorCode: number): RaftResponses[A] {
  const base = { errorCode, leaderId: -1, leaderEpoch: -1 };
  const bodies: { [K in RaftApi]: RaftResponses[K] } = {
    Vote: { ...base, voteGranted: false },
    BeginQuorumEpoch: base,
    EndQuorumEpoch: base,
    Fetch: { ...base, highWatermark: -1, logStartOffset: -1, batches: [] },
    FetchSnapshot: { ...base, snapshotId: { endOffset: -1, epoch: -1 }, size: 0, position: 0, bytes: new Uint8Array(0) },
    DescribeQuorum: { ...base, highWatermark: -1, currentVoters: [], observers: [] },
  };
  return bodies[api];
}

function raftApi<A extends RaftApi>(api: A, wire: RaftWire, handler: RaftRequestHandler): AnyApiDefinition {
  const codec = wire[api];
  return defineApi<RaftRequests[A], RaftResponses[A]>({
    apiKey: codec.apiKey,
    name: api,
    minVersion: VERSIONS[api].min,
    maxVersion: VERSIONS[api].max,
    decode: (r, version) => codec.decodeRequest(r, version),
    encode: (w, version, response) => codec.encodeResponse(w, version, response),
    async handle(request) {
      try {
        return await handler.handleRequest(api, request);
      } catch (error) {
        // Only an abandoned request is an answer; anything else is a bug the dispatcher reports.
        if (!(error instanceof RaftRequestAbandoned)) throw error;
        return raftErrorResponse(api, error.stopping ? ErrorCode.BROKER_NOT_AVAILABLE : ErrorCode.REQUEST_TIMED_OUT);
      }
    },
    errorResponse: (_version, errorCode) => raftErrorResponse(api, errorCode),
  });
}

/**
 * The CONTROLLER listener's registry: ApiVersions, the six Raft APIs and `extra` (e.g.
 * controllerLifecycleApis: BrokerRegistration, BrokerHeartbeat, UnregisterBroker).
 */
export function createRaftApiRegistry(wire: RaftWire, handler: RaftRequestHandler, extra: readonly AnyApiDefinition[] = []): ApiRegistry {
  const registry = new ApiRegistry();
  registry.register(createApiVersionsApi(registry));
  for (const api of ['Vote', 'BeginQuorumEpoch', 'EndQuorumEpoch', 'Fetch', 'FetchSnapshot', 'DescribeQuorum'] as const) {
    registry.register(raftApi(api, wire, handler));
  }
  for (const definition of extra) registry.register(definition);
  return registry;
}
