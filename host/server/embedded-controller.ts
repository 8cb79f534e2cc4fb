/**
 * The controller a combined-mode node runs beside its broker (Kafka's ControllerServer, in small):
 * a QuorumController over `__cluster_metadata-0` in this node's own LogManager, replayed at
 * start-up, and the broker's registration with it (Kafka's BrokerLifecycleManager: the endpoints
 * clients reach this broker on, as bound and advertised).
 */
import type { QuorumDescription } from '../api/broker-services.js';
import type { BrokerConfig, Listener } from '../config/broker-config.js';
import { QuorumController } from '../controller/quorum-controller.js';
import { UnifiedLogMetadataLog } from '../controller/unified-log-metadata-log.js';
import type { Environment } from '../io/environment.js';
import type { LogManager } from '../log/log-manager.js';
import type { Logger } from '../observability/logger.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';

/** Kafka's SecurityProtocol ids, as RegisterBrokerRecord stores them. */
const SECURITY_PROTOCOL_IDS = { PLAINTEXT: 0, SSL: 1, SASL_PLAINTEXT: 2, SASL_SSL: 3 } as const;

/**
 * The endpoints a broker registers (RegisterBrokerRecord / BrokerRegistration listeners): each
 * advertised listener with its security protocol as Kafka's id (PLAINTEXT 0, SSL 1,
 * SASL_PLAINTEXT 2, SASL_SSL 3) from `listener.security.protocol.map`. Fits BrokerEndpoint and the
 * BrokerLifecycleManager's `listeners`.
 */
export function brokerEndpoints(config: BrokerConfig, advertised: readonly Listener[]): { name: string; host: string; port: number; securityProtocol: number }[] {
  return advertised.map((listener) => ({
    name: listener.name,
    host: listener.host,
    port: listener.port,
    securityProtocol: SECURITY_PROTOCOL_IDS[config.listenerSecurityProtocolMap[listener.name] ?? 'PLAINTEXT'],
  }));
}

/**
 * Opens the metadata log and replays it into a new controller (topics, configs, producer ids).
 * @throws MetadataLogError / MetadataRecordError / MetadataReplayError for a metadata log that
 *   cannot be opened, read or applied (the broker must not start on it)
 */
export function startEmbeddedController(config: BrokerConfig, logManager: LogManager, environment: Environment, logger?: Logger): QuorumController {
  return new QuorumController({
    config,
    ...(logger === undefined ? {} : { logger }),
    log: UnifiedLogMetadataLog.open(logManager, { localId: config.nodeId, time: environment.time }),
    clock: environment.time,
    random: environment.random,
  });
}

/**
 * Registers this broker with the controller, unfenced, with its advertised endpoints; returns
 * the broker epoch.
 * @throws Error when the controller refuses (its error code and message in the text)
 */
export async function registerBroker(controller: QuorumController, config: BrokerConfig, advertised: readonly Listener[]): Promise<number> {
  const registration = await controller.registerBroker({
    brokerId: config.nodeId,
    endpoints: brokerEndpoints(config, advertised),
    rack: config.brokerRack,
  });
  if (registration.errorCode !== ErrorCode.NONE) {
    throw new Error(`the controller refused this broker's registration: ${registration.errorMessage ?? registration.errorCode}`);
  }
  return registration.brokerEpoch;
}

/**
 * DescribeQuorum of the embedded one-voter quorum: this node leads, every committed record is
 * replicated (its log end offset is the high watermark), caught up now.
 */
export function describeEmbeddedQuorum(controller: QuorumController, nowMs: number): QuorumDescription {
  const { leaderId, epoch } = controller.leaderAndEpoch;
  const highWatermark = controller.lastCommittedOffset + 1;
  return {
    errorCode: 0, leaderId, leaderEpoch: epoch, highWatermark,
    currentVoters: [{ replicaId: controller.nodeId, logEndOffset: highWatermark, lastFetchTimestamp: nowMs, lastCaughtUpTimestamp: nowMs }],
    observers: [],
  };
}
