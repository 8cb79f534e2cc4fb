/**
 * The broker lifecycle APIs of the CONTROLLER listener (Kafka's ControllerApis for KIP-631): how
 * brokers join a KRaft cluster and stay in it. Each one hands the request to the
 * {@link QuorumController} and answers once the records it wrote are committed.
 *
 * ```
 * BrokerRegistration Request (Version: 0-4) => broker_id cluster_id incarnation_id [listeners]
 *     [features] rack is_migrating_zk_broker (v1+) [log_dirs] (v2+) previous_broker_epoch (v3+)
 * BrokerRegistration Response (Version: 0-4) => throttle_time_ms error_code broker_epoch
 * BrokerHeartbeat Request (Version: 0-1) => broker_id broker_epoch current_metadata_offset
 *     want_fence want_shut_down [offline_log_dirs] (v1+, tagged)
 * BrokerHeartbeat Response (Version: 0-1) => throttle_time_ms error_code is_caught_up is_fenced
 *     should_shut_down
 * UnregisterBroker Request (Version: 0) => broker_id
 * UnregisterBroker Response (Version: 0) => throttle_time_ms error_code error_message
 * ```
 *
 * A remote broker always registers FENCED; its heartbeats unfence it once the metadata offset it
 * has replayed reaches its registration (the broker epoch). Errors (Kafka codes):
 * NOT_CONTROLLER (41) from a controller that is not the active one (the broker looks for the
 * leader of the metadata log and retries there); INCONSISTENT_CLUSTER_ID (104) for a broker of
 * another cluster; UNSUPPORTED_VERSION (35) when the broker cannot read our metadata.version;
 * DUPLICATE_BROKER_REGISTRATION (101) while another incarnation of the id is alive;
 * STALE_BROKER_EPOCH (77) for a heartbeat of an old registration (register again);
 * BROKER_ID_NOT_REGISTERED (102) for UnregisterBroker of an unknown id; KAFKA_STORAGE_ERROR (56).
 */
import { defineApi, type AnyApiDefinition } from '../api/api-definition.js';
import { METADATA_VERSION_LEVEL, type QuorumController } from '../controller/quorum-controller.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  type BrokerHeartbeatRequest,
  type BrokerHeartbeatResponseInit,
  decodeBrokerHeartbeatRequest,
  encodeBrokerHeartbeatResponse,
} from '../protocol/generated/broker-heartbeat.js';
import {
  type BrokerRegistrationRequest,
  type BrokerRegistrationResponseInit,
  decodeBrokerRegistrationRequest,
  encodeBrokerRegistrationResponse,
} from '../protocol/generated/broker-registration.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeUnregisterBrokerRequest,
  encodeUnregisterBrokerResponse,
  type UnregisterBrokerRequest,
  type UnregisterBrokerResponseInit,
} from '../protocol/generated/unregister-broker.js';

export interface ControllerLifecycleApisOptions {
  /** This cluster's id (meta.properties); a registration naming another answers INCONSISTENT_CLUSTER_ID (104). Unchecked when absent. */
  readonly clusterId?: string;
}

/** BrokerRegistration (62), v0-4: registers the broker fenced, answers its broker epoch. */
function brokerRegistrationApi(controller: QuorumController, options: ControllerLifecycleApisOptions): AnyApiDefinition {
  return defineApi<BrokerRegistrationRequest, BrokerRegistrationResponseInit>({
    apiKey: ApiKey.BrokerRegistration,
    name: 'BrokerRegistration',
    minVersion: 0,
    maxVersion: 4,
    decode: decodeBrokerRegistrationRequest,
    encode: encodeBrokerRegistrationResponse,
    async handle(request) {
      const refuse = (errorCode: number): BrokerRegistrationResponseInit => ({ throttleTimeMs: 0, errorCode, brokerEpoch: -1 });
      if (!controller.isActive) return refuse(ErrorCode.NOT_CONTROLLER);
      if (options.clusterId !== undefined && request.clusterId !== options.clusterId) return refuse(ErrorCode.INCONSISTENT_CLUSTER_ID);
      const metadataVersion = request.features.find((f) => f.name === 'metadata.version');
      if (metadataVersion !== undefined
        && (METADATA_VERSION_LEVEL < metadataVersion.minSupportedVersion || METADATA_VERSION_LEVEL > metadataVersion.maxSupportedVersion)) {
        return refuse(ErrorCode.UNSUPPORTED_VERSION);
      }
      const result = await controller.registerBroker({
        brokerId: request.brokerId,
        incarnationId: request.incarnationId,
        endpoints: request.listeners.map((l) => ({ name: l.name, host: l.host, port: l.port, securityProtocol: l.securityProtocol })),
        rack: request.rack,
        fenced: true,
        previousBrokerEpoch: request.previousBrokerEpoch,
      });
      return { throttleTimeMs: 0, errorCode: result.errorCode, brokerEpoch: result.brokerEpoch };
    },
    errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, brokerEpoch: -1 }),
  });
}

/** BrokerHeartbeat (63), v0-1: renews the session, unfences, fences, runs a controlled shutdown. */
function brokerHeartbeatApi(controller: QuorumController): AnyApiDefinition {
  return defineApi<BrokerHeartbeatRequest, BrokerHeartbeatResponseInit>({
    apiKey: ApiKey.BrokerHeartbeat,
    name: 'BrokerHeartbeat',
    minVersion: 0,
    maxVersion: 1,
    decode: decodeBrokerHeartbeatRequest,
    encode: encodeBrokerHeartbeatResponse,
    async handle(request) {
      const reply = await controller.brokerHeartbeat({
        brokerId: request.brokerId,
        brokerEpoch: request.brokerEpoch,
        currentMetadataOffset: request.currentMetadataOffset,
        wantFence: request.wantFence,
        wantShutDown: request.wantShutDown,
      });
      return { throttleTimeMs: 0, errorCode: reply.errorCode, isCaughtUp: reply.isCaughtUp, isFenced: reply.isFenced, shouldShutDown: reply.shouldShutDown };
    },
    errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, isCaughtUp: false, isFenced: true, shouldShutDown: false }),
  });
}

/** UnregisterBroker (64), v0: removes a broker's registration (after fencing it). */
function unregisterBrokerApi(controller: QuorumController): AnyApiDefinition {
  return defineApi<UnregisterBrokerRequest, UnregisterBrokerResponseInit>({
    apiKey: ApiKey.UnregisterBroker,
    name: 'UnregisterBroker',
    minVersion: 0,
    maxVersion: 0,
    decode: decodeUnregisterBrokerRequest,
    encode: encodeUnregisterBrokerResponse,
    async handle(request) {
      const result = await controller.unregisterBroker(request.brokerId);
      return { throttleTimeMs: 0, errorCode: result.errorCode, errorMessage: result.errorMessage };
    },
    errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null }),
  });
}

/**
 * The lifecycle APIs for the CONTROLLER listener's registry (pass them as `extra` to
 * createRaftApiRegistry): BrokerRegistration (62) v0-4, BrokerHeartbeat (63) v0-1,
 * UnregisterBroker (64) v0.
 */
export function controllerLifecycleApis(controller: QuorumController, options: ControllerLifecycleApisOptions = {}): AnyApiDefinition[] {
  return [brokerRegistrationApi(controller, options), brokerHeartbeatApi(controller), unregisterBrokerApi(controller)];
}
