/**
 * The broker's composition root and lifecycle: `startBroker` builds every part in dependency
 * order, binds the listeners and returns a handle whose `stop()` shuts everything down cleanly.
 *
 * Start-up order (each step logs one line):
 *   config → logger → log.dirs locks (`.lock`: a second broker on the same directories is
 *   refused) → meta.properties (cluster id) → LogManager.open (loads and, after an
 *   unclean stop, recovers every log) → QuorumController replaying `__cluster_metadata-0`
 *   (topics, configs, producer ids) → ReplicaManager, GroupCoordinator, API dispatcher
 *   → one SocketServer per client listener (port 0 binds a free port; requests wait for the end
 *   of start-up) and one WebSocketGateway per `http.listeners` entry → broker registration with the bound endpoints → one leader Partition per topic
 *   partition (logs created where missing) → GroupCoordinator loading `__consumer_offsets`
 *   → periodic housekeeping (every min(log.retention.check.interval.ms, 5 s): flush, retention,
 *   compaction, checkpoints, producer-id expiry).
 * Stop: stop accepting and reading, answer waiting long polls at once, let in-flight requests
 * finish, stop the coordinator's timers, then flush every log and write the checkpoints and the
 * clean-shutdown marker (LogManager.shutdown), and release the log.dirs locks.
 *
 * Two call shapes are accepted:
 * - the CLI's `startBroker({ config: BrokerConfig, logger })` (host/cli/broker-command.ts);
 * - the library's `startBroker({ logDirs, listeners, overrides })` (issue 3): Kafka config names
 *   in `overrides`, listeners default to `PLAINTEXT://127.0.0.1:0`, logs at `warn` unless
 *   `log.level` is given.
 */
import { hostname } from 'node:os';
import type { BrokerConfig, Listener } from './config/broker-config.js';
import { loadBrokerConfig, resolveAdvertisedListeners } from './config/broker-config.js';
import { brokerLogConfigDefaults } from './config/topic-config.js';
import { GroupCoordinator } from './coordinator/group-coordinator.js';
import { OFFSETS_TOPIC_NAME } from './coordinator/offsets-topic.js';
import { SystemScheduler } from './coordinator/scheduler.js';
import { CryptoRandom } from './io/random.js';
import { NodeDisk } from './io/disk.js';
import { lockLogDirs } from './log/log-dir-lock.js';
import { LogManager } from './log/log-manager.js';
import type { UnifiedLog } from './log/unified-log.js';
import { SocketServer } from './network/socket-server.js';
import type { GatewayAddress, WebSocketGateway } from './network/websocket-gateway.js';
import { componentLogger, createLogger, LogEvent, type Logger } from './observability/logger.js';
import { ErrorCode } from './protocol/generated/error-codes.js';
import { ReplicaManager } from './replication/replica-manager.js';
import { QuorumController } from './controller/quorum-controller.js';
import { CLUSTER_METADATA_TOPIC_NAME } from './controller/topic-name.js';
import { UnifiedLogMetadataLog } from './controller/unified-log-metadata-log.js';
import type { ConnectionContext, ResponseBytes } from './network/network-types.js';
import { createApiRegistry } from './api/api-handlers.js';
import type { BrokerServices } from './api/broker-services.js';
import { BrokerMetadataPublisher } from './server/broker-metadata-publisher.js';
import { MetadataCache } from './server/metadata-cache.js';
import { ControllerClusterMetadata } from './server/controller-cluster-metadata.js';
import { LogOffsetsTopic } from './server/log-offsets-topic.js';
import { ensureMetaProperties } from './server/meta-properties.js';
import { RequestDispatcher } from './api/request-dispatcher.js';

/** The library call shape (issue 3). */
export interface StartBrokerLibraryOptions {
  /** Data directories (`log.dirs`); created when missing. */
  logDirs: string | readonly string[];
  /** Kafka listeners `NAME://host:port`; default `PLAINTEXT://127.0.0.1:0` (a free port). */
  listeners?: string | readonly string[];
  /** Any broker config by its Kafka name, e.g. `{ 'num.partitions': 3 }`. */
  overrides?: Readonly<Record<string, string | number | boolean>>;
  /** A pino logger; default: JSON lines on stdout at `log.level` (default `warn` here). */
  logger?: Logger;
}

/** The CLI call shape (host/cli/broker-command.ts). */
export interface StartBrokerConfigOptions {
  config: BrokerConfig;
  logger?: Logger;
}

export type StartBrokerOptions = StartBrokerLibraryOptions | StartBrokerConfigOptions;

/** A bound listener as clients reach it (advertised host, real port). */
export interface BoundListener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

/** A running broker. */
export interface RunningBroker {
  /** Every client listener, bound (port 0 in the config is the real port here). */
  readonly listeners: readonly BoundListener[];
  /** Host of the first listener, as advertised to clients. */
  readonly host: string;
  /** Port of the first listener. */
  readonly port: number;
  /** `host:port` of the first listener, for `bootstrap.servers`. */
  readonly bootstrap: string;
  /** Bound `http.listeners` (WebSocket gateway: /kafka, /json, /health, /ready); empty when disabled. */
  readonly httpListeners: readonly { host: string; port: number }[];
  readonly nodeId: number;
  readonly clusterId: string;
  readonly config: BrokerConfig;
  /** Stops accepting, finishes in-flight requests, flushes, writes clean-shutdown checkpoints. Idempotent. */
  stop(): Promise<void>;
}

/** Kafka's SecurityProtocol ids, as RegisterBrokerRecord stores them. */
const SECURITY_PROTOCOL_IDS = { PLAINTEXT: 0, SSL: 1, SASL_PLAINTEXT: 2, SASL_SSL: 3 } as const;

/** Housekeeping period bounds, ms. */
const MAX_TICK_INTERVAL_MS = 5_000;
const MIN_TICK_INTERVAL_MS = 100;

function isConfigShape(options: StartBrokerOptions): options is StartBrokerConfigOptions {
  return (options as StartBrokerConfigOptions).config !== undefined;
}

function toList(value: string | readonly string[]): string {
  return typeof value === 'string' ? value : value.join(',');
}

/** The configuration a library call describes. @throws ConfigError for bad values */
export function libraryBrokerConfig(options: StartBrokerLibraryOptions): BrokerConfig {
  const overrides: Record<string, string> = { 'log.level': 'warn', 'http.listeners': '' };
  for (const [key, value] of Object.entries(options.overrides ?? {})) overrides[key] = String(value);
  overrides['log.dirs'] = toList(options.logDirs);
  overrides['listeners'] = options.listeners === undefined ? 'PLAINTEXT://127.0.0.1:0' : toList(options.listeners);
  return loadBrokerConfig({ overrides });
}

/**
 * Starts a broker in this process.
 * @throws ConfigError for a bad configuration; LogDirInUseError when a log directory is locked
 *   by a live process (another broker, in this process or not); and the listener's error
 *   (EADDRINUSE, ...) when a port cannot be bound (everything started so far is stopped first)
 */
export async function startBroker(options: StartBrokerOptions): Promise<RunningBroker> {
  const config = isConfigShape(options) ? options.config : libraryBrokerConfig(options);
  const rootLogger = options.logger ?? createLogger({ level: config.logLevel });
  const logger = componentLogger(rootLogger, 'broker');
  logger.info({ event: LogEvent.BrokerStarting, nodeId: config.nodeId, logDirs: config.logDirs }, 'broker starting');

  // First of all: a second broker on the same log.dirs is refused before it reads or writes
  // anything there (Kafka's `.lock`); the locks are released after the logs close.
  const logDirLocks = lockLogDirs(config.logDirs, logger);
  let clusterId: string;
  let logManager: LogManager;
  try {
    ({ clusterId } = ensureMetaProperties(config.logDirs, config.nodeId));
    // Topic overrides are known only once the controller has replayed the metadata log, which
    // LogManager itself opens; the logs get their real configs in applyTopic below.
    logManager = LogManager.open({ logDirs: [...config.logDirs], defaults: brokerLogConfigDefaults(config) });
  } catch (error) {
    logDirLocks.release();
    throw error;
  }
  let controller: QuorumController;
  try {
    controller = new QuorumController({ config, log: UnifiedLogMetadataLog.open(logManager, { localId: config.nodeId }) });
  } catch (error) {
    logManager.shutdown();
    logDirLocks.release();
    throw error;
  }
  let brokerEpoch = -1;
  const cache = new MetadataCache({ clusterId, nodeId: config.nodeId });
  const metadata = new ControllerClusterMetadata({ controller, cache, brokerId: config.nodeId, brokerEpoch: () => brokerEpoch });
  // Producer-state snapshots are found by listing the partition directory, which loading the log
  // has just done: the first listing of each directory is served from there.
  const nodeDisk = new NodeDisk();
  const producerStateDisk: NodeDisk = Object.assign(Object.create(nodeDisk) as NodeDisk, {
    list: (dir: string): string[] => logManager.takeStartupListing(dir) ?? nodeDisk.list(dir),
  });
  const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: config.nodeId, logger: componentLogger(rootLogger, 'replica-manager') });
  const scheduler = new SystemScheduler();

  let offsetsTopicCreation: Promise<number> | null = null;
  const ensureOffsetsTopic = (): Promise<number> => {
    if (metadata.topic(OFFSETS_TOPIC_NAME) !== undefined) return Promise.resolve(ErrorCode.NONE);
    offsetsTopicCreation ??= metadata.createTopic({
      name: OFFSETS_TOPIC_NAME,
      numPartitions: config.offsetsTopicNumPartitions,
      replicationFactor: 1,
      configs: { 'cleanup.policy': 'compact', 'segment.bytes': String(config.offsetsTopicSegmentBytes) },
    }, false).then((result) => {
      offsetsTopicCreation = null;
      return result.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS ? ErrorCode.NONE : result.errorCode;
    });
    return offsetsTopicCreation;
  };

  const groupCoordinator = new GroupCoordinator({
    offsetsTopic: new LogOffsetsTopic({
      replicaManager,
      log: (partition) => logManager.getLog(OFFSETS_TOPIC_NAME, partition),
      ensureTopic: ensureOffsetsTopic,
      logger: componentLogger(rootLogger, 'group-coordinator'),
    }),
    time: scheduler,
    random: new CryptoRandom(),
    config: {
      groupMinSessionTimeoutMs: config.groupMinSessionTimeoutMs,
      groupMaxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
      groupInitialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
      groupMaxSize: config.groupMaxSize,
      offsetsTopicNumPartitions: config.offsetsTopicNumPartitions,
      offsetsRetentionMinutes: config.offsetsRetentionMinutes,
      offsetsRetentionCheckIntervalMs: config.offsetsRetentionCheckIntervalMs,
      offsetMetadataMaxBytes: config.offsetMetadataMaxBytes,
    },
    logger: componentLogger(rootLogger, 'group-coordinator'),
    partitionExists: (topic, partition) => replicaManager.getPartition(topic, partition) !== undefined,
  });

  const topicLogger = componentLogger(rootLogger, 'topics');
  const publisher = new BrokerMetadataPublisher({
    config, cache, logManager, replicaManager, groupCoordinator, producerStateDisk, logger: topicLogger,
  });
  publisher.start(controller.image, controller.nodeId);
  controller.addListener(publisher);

  let advertised: Listener[] = [];
  const services: BrokerServices = {
    config,
    nodeId: config.nodeId,
    metadata,
    replicaManager,
    groupCoordinator,
    brokers: (listenerName) => cache.aliveBrokerEndpoints(listenerName),
    ensureOffsetsTopic,
    nowMs: () => Date.now(),
  };
  const dispatcher = new RequestDispatcher({
    registry: createApiRegistry(),
    broker: services,
    logger: componentLogger(rootLogger, 'api'),
  });
  // Listeners bind before the broker registers (its registration carries the bound ports);
  // requests arriving in between wait until start-up completes.
  let ready = false;
  let markReady!: () => void;
  let failReady!: (error: unknown) => void;
  const readiness = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  // A failed start rejects the requests that waited for it (their connections close).
  readiness.catch(() => undefined);
  const handler = (frame: Buffer, connection: ConnectionContext): ResponseBytes | null | Promise<ResponseBytes | null> =>
    ready ? dispatcher.handle(frame, connection) : readiness.then(() => dispatcher.handle(frame, connection));

  const clientListeners = config.listeners.filter((listener) => !config.controllerListenerNames.includes(listener.name));
  const servers: SocketServer[] = [];
  const gateways: WebSocketGateway[] = [];
  const bound: Listener[] = [];
  const httpBound: GatewayAddress[] = [];
  let stopping: Promise<void> | null = null;
  const closeEverything = async (): Promise<void> => {
    // Long polls answer now (and fetches stop waiting), then the listeners stop reading and wait
    // for what is in flight; JoinGroup/SyncGroup requests parked in a rebalance would wait for
    // other members for minutes, so the coordinator answers them (NOT_COORDINATOR, as when a
    // Kafka coordinator moves) before the wait. The logs close last.
    replicaManager.shutdown();
    const listenersStopped = Promise.all([...servers.map((server) => server.stop()), ...gateways.map((gateway) => gateway.stop())]);
    groupCoordinator.shutdown();
    await listenersStopped;
    // A background checkpoint write would be dropped by shutdown's own writes anyway; waiting
    // lets it finish instead of leaving its temp file to race the directory's release.
    await logManager.backgroundWritesIdle();
    logManager.shutdown();
    logDirLocks.release();
  };
  try {
    for (const listener of clientListeners) {
      const server = new SocketServer({
        host: listener.host === '' ? '0.0.0.0' : listener.host,
        port: listener.port,
        listenerName: listener.name,
        handler,
        socketRequestMaxBytes: config.socketRequestMaxBytes,
        connectionsMaxIdleMs: Math.max(0, config.connectionsMaxIdleMs),
        maxConnections: Math.max(1, config.maxConnections),
        logger: componentLogger(rootLogger, 'socket-server'),
      });
      servers.push(server);
      const address = await server.start();
      bound.push({ name: listener.name, host: listener.host, port: address.port });
    }
    // The HTTP side (WebSocket gateway: /kafka, /json, /health, /ready) is auxiliary: a port it
    // cannot bind is logged at error and the broker serves Kafka clients without it, rather than
    // refusing to start (the default 127.0.0.1:8080 is often taken on developer machines).
    // Loaded only when configured: uWebSockets.js and the JSON protocol (which brings the client
    // library) are a large part of start-up time and memory.
    const gatewayModule = config.httpListeners.length === 0 ? null : await import('./gateway/json-gateway.js');
    for (const endpoint of config.httpListeners) {
      const gateway = gatewayModule!.createJsonGateway({
        host: endpoint.host === '' ? '0.0.0.0' : endpoint.host,
        port: endpoint.port,
        handler,
        isReady: () => ready && stopping === null,
        listenerName: clientListeners[0]?.name ?? 'PLAINTEXT',
        socketRequestMaxBytes: config.socketRequestMaxBytes,
        connectionsMaxIdleMs: Math.max(0, config.connectionsMaxIdleMs),
        maxConnections: Math.max(1, config.maxConnections),
        allowedOrigins: config.httpAllowedOrigins,
        logger: componentLogger(rootLogger, 'websocket-gateway'),
      });
      try {
        httpBound.push(await gateway.start());
        gateways.push(gateway);
      } catch (error) {
        logger.error({ event: 'listener.bind_failed', host: endpoint.host, port: endpoint.port, err: error },
          `http.listeners ${endpoint.host}:${endpoint.port} cannot be bound; running without the WebSocket/HTTP gateway there`);
      }
    }
    advertised = resolveAdvertisedListeners(config.advertisedListeners, bound, hostname());
    const registration = await controller.registerBroker({
      brokerId: config.nodeId,
      endpoints: advertised.map((listener) => ({
        name: listener.name,
        host: listener.host,
        port: listener.port,
        securityProtocol: SECURITY_PROTOCOL_IDS[config.listenerSecurityProtocolMap[listener.name] ?? 'PLAINTEXT'],
      })),
      rack: config.brokerRack,
    });
    if (registration.errorCode !== ErrorCode.NONE) {
      throw new Error(`the controller refused this broker's registration: ${registration.errorMessage ?? registration.errorCode}`);
    }
    brokerEpoch = registration.brokerEpoch;
    // Logs found on disk whose topic the metadata does not know are stray (KRaft): set aside, not
    // adopted, so a deleted topic is never resurrected.
    setAsideStrayLogs(cache, logManager, topicLogger);
    publisher.applyAllTopics();
    logManager.releaseStartupListings();
    groupCoordinator.startup();
    // Without __consumer_offsets there is nothing to load; its partitions load when it is created.
    if (metadata.topic(OFFSETS_TOPIC_NAME) !== undefined) groupCoordinator.loadAllPartitions();
  } catch (error) {
    logger.error({ event: LogEvent.BrokerFailed, err: error }, 'start-up failed; stopping');
    failReady(error);
    await closeEverything();
    throw error;
  }
  ready = true;
  markReady();
  // Only ApiVersions and Metadata were imported before listening; the other handlers load now, in
  // the background, after start-up (a request for one not loaded yet waits for it, in order).
  void dispatcher.loadHandlers();

  const tickIntervalMs = Math.max(MIN_TICK_INTERVAL_MS, Math.min(MAX_TICK_INTERVAL_MS, config.logRetentionCheckIntervalMs));
  const tick = setInterval(() => {
    const nowMs = Date.now();
    try {
      // Checkpoint fsyncs run on the thread pool: on the loop they stalled every produce and
      // fetch for 2–100 ms each tick (the W4 latency tail).
      logManager.tickInBackground(nowMs);
    } catch (error) {
      logger.error({ event: 'housekeeping.failed', err: error }, 'log housekeeping failed (bug)');
    }
    try {
      // Retention just moved log start offsets: the Partitions (owners of the producer state)
      // forget producers whose batches are gone, on the same turn, before any append is checked.
      replicaManager.onLogStartOffsetsMaybeIncremented();
      // producer.id.expiration.ms: idle producer ids are forgotten (Kafka checks every
      // producer.id.expiration.check.interval.ms; a pass over the in-memory entries is cheap).
      const expired = replicaManager.removeExpiredProducers(nowMs);
      if (expired > 0) logger.debug({ event: 'producers.expired', count: expired }, `${expired} idle producer id(s) expired`);
    } catch (error) {
      logger.error({ event: 'housekeeping.failed', err: error }, 'producer-state housekeeping failed (bug)');
    }
  }, tickIntervalMs);
  tick.unref();

  const listeners: BoundListener[] = bound.map((listener) => {
    const published = advertised.find((candidate) => candidate.name === listener.name);
    return { name: listener.name, host: published?.host ?? listener.host, port: listener.port };
  });
  const first = listeners[0]!;
  logger.info(
    { event: LogEvent.BrokerStarted, nodeId: config.nodeId, clusterId: metadata.clusterId, listeners },
    `broker ${config.nodeId} started on ${listeners.map((l) => `${l.name}://${l.host}:${l.port}`).join(', ')}`,
  );

  return {
    listeners,
    httpListeners: httpBound,
    host: first.host,
    port: first.port,
    bootstrap: `${first.host.includes(':') ? `[${first.host}]` : first.host}:${first.port}`,
    nodeId: config.nodeId,
    clusterId,
    config,
    stop(): Promise<void> {
      stopping ??= (async () => {
        logger.info({ event: LogEvent.BrokerStopping }, 'broker stopping');
        clearInterval(tick);
        await closeEverything();
        logger.info({ event: LogEvent.BrokerStopped }, 'broker stopped');
      })();
      return stopping;
    },
  };
}

/**
 * Sets aside every log on disk whose topic the metadata image does not hold (e.g. a crash after a
 * topic deletion was committed but before its logs were removed): KRaft treats such logs as stray,
 * renaming them `<topic>-<partition>.<timestampMs>-stray` and never serving them. Nothing is
 * created. One warning per topic.
 */
function setAsideStrayLogs(metadata: MetadataCache, logManager: LogManager, logger: Logger): void {
  const stray = new Map<string, number[]>();
  for (const log of logManager.allLogs()) {
    if (log.topic === CLUSTER_METADATA_TOPIC_NAME || metadata.topic(log.topic) !== undefined) continue;
    const partitions = stray.get(log.topic) ?? [];
    partitions.push(log.partition);
    stray.set(log.topic, partitions);
  }
  const nowMs = Date.now();
  for (const [topic, partitions] of stray) {
    for (const partition of partitions) logManager.markStray(topic, partition, nowMs);
    logger.warn({ event: 'topic.stray_logs', topic, count: partitions.length },
      `${partitions.length} log(s) of topic ${topic} are not in the metadata; renamed with the -stray suffix and not served`);
  }
}
