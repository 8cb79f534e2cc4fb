/**
 * The multi-voter side of a BrokerServer, loaded only when `controller.quorum.voters` names more
 * than one voter (a dynamic import keeps the Raft stack out of the single-node start-up):
 *
 * - {@link openQuorumController}: this node's {@link ControllerQuorum} seat and a QuorumController
 *   on its Raft metadata log, with the broker lifecycle APIs and the metadata changes brokers
 *   forward on the CONTROLLER listener, and the {@link ControllerForwarder} this node's broker
 *   sends its changes through;
 * - {@link startQuorumSessionExpiry} (controller role): session expiry on the active controller;
 * - {@link joinQuorum} (broker role): this broker's {@link BrokerLifecycleManager}
 *   (BrokerRegistration, heartbeats) towards the active controller over the CONTROLLER listeners.
 */
import type { BrokerConfig, Listener } from '../config/broker-config.js';
import { QuorumController } from '../controller/quorum-controller.js';
import { randomTopicId } from '../controller/topic-id.js';
import type { Environment } from '../io/environment.js';
import type { LogManager } from '../log/log-manager.js';
import { componentLogger, type Logger } from '../observability/logger.js';
import { BrokerLifecycleManager } from './broker-lifecycle-manager.js';
import { type BrokerSessionExpiry, startBrokerSessionExpiry } from './broker-session-expiry.js';
import { controllerAlterPartitionApi } from './controller-alter-partition-api.js';
import { controllerElectLeadersApi } from './controller-elect-leaders-api.js';
import { controllerLifecycleApis } from './controller-lifecycle-apis.js';
import { controllerReassignmentApis } from './controller-reassignment-apis.js';
import { ControllerForwarder } from './controller-forwarding.js';
import { controllerWriteApis } from './controller-write-apis.js';
import { ControllerQuorum } from './controller-quorum.js';
import { brokerEndpoints } from './embedded-controller.js';

/**
 * How many `controller.quorum.request.timeout.ms` a forwarded change may take, retries included:
 * long enough to ride out a controller failover (an election or two).
 */
const FORWARDING_TIMEOUT_REQUESTS = 15;

/** Opens this node's quorum seat and the controller on its log (started later with the listeners). */
export function openQuorumController(options: {
  config: BrokerConfig; clusterId: string; logManager: LogManager; environment: Environment; rootLogger: Logger;
}): { quorum: ControllerQuorum; controller: QuorumController; forwarder: ControllerForwarder } {
  const { config, environment } = options;
  const quorum = new ControllerQuorum(options);
  const controller = new QuorumController({
    config, log: quorum.metadataLog, clock: environment.time, random: environment.random, brokerSessionTimeoutMs: config.brokerSessionTimeoutMs,
    logger: componentLogger(options.rootLogger, 'controller'),
  });
  quorum.addApis([
    ...controllerLifecycleApis(controller, { clusterId: options.clusterId }), ...controllerWriteApis(controller), controllerAlterPartitionApi(controller),
    controllerElectLeadersApi(controller), ...controllerReassignmentApis(controller),
  ]);
  const forwarder = new ControllerForwarder({
    channels: quorum.channels,
    activeControllerId: () => quorum.metadataLog.leaderAndEpoch().leaderId,
    time: environment.time,
    timeoutMs: config.controllerQuorumRequestTimeoutMs * FORWARDING_TIMEOUT_REQUESTS,
  });
  return { quorum, controller, forwarder };
}

/**
 * Controller role: the active controller (whichever node it is) fences brokers whose heartbeats
 * stop for `broker.session.timeout.ms`.
 */
export function startQuorumSessionExpiry(controller: QuorumController, environment: Environment, logger: Logger): BrokerSessionExpiry {
  return startBrokerSessionExpiry(controller, environment.time,
    (ids) => logger.warn({ brokerIds: ids }, `fenced brokers ${ids.join(', ')}: no heartbeat within broker.session.timeout.ms`));
}

/**
 * Broker role: starts this broker's registration and heartbeats towards the active controller
 * (a voter's own controller included); the caller awaits `lifecycle.unfenced`. Call after the
 * quorum's listeners are bound.
 */
export function joinQuorum(options: {
  quorum: ControllerQuorum; controller: QuorumController; config: BrokerConfig; environment: Environment;
  clusterId: string; advertised: readonly Listener[]; logger: Logger;
}): BrokerLifecycleManager {
  const { quorum, controller, config, environment, logger } = options;
  const lifecycle = new BrokerLifecycleManager({
    transport: quorum.channels,
    time: environment.time,
    brokerId: config.nodeId,
    clusterId: options.clusterId,
    incarnationId: randomTopicId(environment.random),
    listeners: brokerEndpoints(config, options.advertised),
    rack: config.brokerRack,
    activeControllerId: () => quorum.metadataLog.leaderAndEpoch().leaderId,
    metadataOffset: () => controller.lastCommittedOffset,
    heartbeatIntervalMs: config.brokerHeartbeatIntervalMs,
    onError: (what) => logger.debug({ reason: what }, 'broker registration or heartbeat not accepted yet'),
  });
  lifecycle.start();
  return lifecycle;
}
