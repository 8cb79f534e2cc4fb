/**
 * BrokerServer (Kafka's BrokerServer, for a combined broker + controller node): one broker's
 * parts, built in dependency order by {@link BrokerServer.startup} and shut down by
 * {@link BrokerServer.shutdown}. Everything it needs from the world comes through the
 * {@link Environment} it is given (time and timers, randomness, disk), so several BrokerServers
 * run in one process, each with its own log.dirs, under one clock and one seed.
 *
 * Start-up order (each step logs one line):
 *   log.dirs locks (`.lock`: a second broker on the same directories is refused) →
 *   meta.properties (cluster id) → LogManager.open (loads and, after an unclean stop, recovers
 *   every log) → QuorumController replaying `__cluster_metadata-0` (topics, configs, producer ids)
 *   → MetadataCache loaded from the controller's image, BrokerMetadataPublisher listening →
 *   ReplicaManager, GroupCoordinator, API dispatcher → one SocketServer per client listener (port
 *   0 binds a free port; requests wait for the end of start-up) and one WebSocketGateway per
 *   `http.listeners` entry → broker registration with the bound endpoints → stray logs set aside,
 *   one leader Partition per partition this broker leads (logs created where missing) →
 *   GroupCoordinator loading `__consumer_offsets` → periodic housekeeping.
 * Shutdown: stop accepting and reading, answer waiting long polls at once, let in-flight requests
 * finish, stop the coordinator's timers, then flush every log and write the checkpoints and the
 * clean-shutdown marker (LogManager.shutdown), and release the log.dirs locks.
 */
import { hostname } from 'node:os';
import { bindFailure } from '../network/bind-failure.js';
import { createApiRegistry } from '../api/api-handlers.js';
import { ControllerMutationQuotaManager } from '../api/controller-mutation-quota.js';
import { autoCreateRefusalLog } from '../api/auto-topic-creation.js';
import type { BrokerServices } from '../api/broker-services.js';
import { RequestDispatcher } from '../api/request-dispatcher.js';
import { type EventLoopDelayMonitor, systemEventLoopDelayMonitor } from '../io/event-loop-delay.js';
import { systemGcPausesFor } from '../io/gc-pauses.js';
import { type EventLoopMetrics, EventLoopWatchdog } from '../observability/event-loop-watchdog.js';
import { type BrokerConfig, type Listener, resolveAdvertisedListeners } from '../config/broker-config.js';
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import type { QuorumController } from '../controller/quorum-controller.js';
import type { Environment } from '../io/environment.js';
import type { UnifiedLog } from '../log/unified-log.js';
import type { ConnectionContext, ResponseBytes } from '../network/network-types.js';
import type { GatewayAddress } from '../network/websocket-gateway.js';
import type { HttpApplicationMount } from '../network/http-applications.js';
import { componentLogger, createLogger, LogEvent, type Logger } from '../observability/logger.js';
import { watchLogDirReadiness } from './log-dir-readiness.js';
import type { AlterPartitionSink } from '../replication/alter-partition-sink.js';
import { LeaderEpochFileCache } from '../log/leader-epoch-file-cache.js';
import { ReplicaManager } from '../replication/replica-manager.js';
import { groupFlusherOn, type GroupFlusher } from '../log/group-flush.js';
import { ReadBufferPool } from '../log/read-buffer-pool.js';
import { ResponseMemoryPool } from '../network/response-memory-pool.js';
import { type Core, getCore } from '../wasm/core.js';
import { BrokerMetadataPublisher } from './broker-metadata-publisher.js';
import { ControllerClusterMetadata } from './controller-cluster-metadata.js';
import type { ControllerForwarder } from './controller-forwarding.js';
import type { ControllerQuorum } from './controller-quorum.js';
import type { BrokerLifecycleManager } from './broker-lifecycle-manager.js';
import type { BrokerSessionExpiry } from './broker-session-expiry.js';
import { describeEmbeddedQuorum, registerBroker, startEmbeddedController } from './embedded-controller.js';
import { LazyGroupCoordinator } from './lazy-group-coordinator.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { TransactionCoordinatorSetup, TransactionCoordinatorSetupOptions } from './transaction-coordinator-setup.js';
import { Housekeeping } from './housekeeping.js';
import { type LeaderBalancer, startLeaderBalancer } from './leader-balancer.js';
import { type LogStorage, openLogStorage, setAsideStrayLogs } from './log-storage.js';
import { MetadataCache, metadataResponseCache } from './metadata-cache.js';
import { metadataCurrency } from './metadata-currency.js';
import { NetworkListeners, StartupGate } from './network-listeners.js';
import { LazyReplicaFetching } from './lazy-replica-fetching.js';
import { BrokerMetrics } from './broker-metrics.js';
import { LazyAlterPartitionManager } from './lazy-alter-partitions.js';
import { closeLogs, snapshotProducerStates } from './storage-shutdown.js';

/** A bound listener as clients reach it (advertised host, real port). */
export interface BoundListener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

export interface BrokerServerOptions {
  /** A pino logger; default: JSON lines on stdout at `log.level`. */
  readonly logger?: Logger;
  /**
   * The WebAssembly core the broker's logs validate and stamp batches with and whose frame ring
   * its connections gather requests in; default the process's (getCore()). Brokers in one process
   * share one (why that is safe: the Core constructor's docstring, host/wasm/core.ts).
   */
  readonly core?: Core;
}

/**
 * What a broker owns: its fetch buffer pool (reads leased by Fetch, given back when written), its group flush (one fsync
 * per turn per flush-per-append log) and its queued.max.response.bytes pool, on its environment's time; the core is handed in.
 */
export interface BrokerResources {
  readonly core: Core;
  readonly readBuffers: ReadBufferPool;
  readonly groupFlusher: GroupFlusher;
  readonly responseMemory: ResponseMemoryPool;
}

/** One broker (with its embedded controller): {@link startup}, then {@link shutdown}. */
export class BrokerServer {
  /** The configuration in effect: the static one with the dynamic broker configs (KIP-226) over it. */
  get config(): BrokerConfig {
    return this.currentConfig;
  }
  private currentConfig: BrokerConfig;
  readonly environment: Environment;
  private readonly rootLogger: Logger;
  private readonly logger: Logger;
  /** This broker's core, fetch pool and group flusher. */
  readonly resources: BrokerResources;
  /** Counters of the request path and the `/metrics` endpoint (the typed API a console reads). */
  readonly metrics: BrokerMetrics;
  private storage: LogStorage | null = null;
  private controllerInstance: QuorumController | null = null;
  /** Multi-voter mode: this broker's registration and heartbeats, and the controller's session expiry. */
  private lifecycle: BrokerLifecycleManager | null = null;
  private sessionExpiry: BrokerSessionExpiry | null = null;
  /** This node's seat in a multi-voter controller quorum; null for the embedded single voter. */
  private quorum: ControllerQuorum | null = null;
  /** Multi-voter mode: where metadata changes go when this node's controller is not the active one. */
  private forwarder: ControllerForwarder | null = null;
  private cache: MetadataCache | null = null;
  private publisher: BrokerMetadataPublisher | null = null;
  /** This broker's epoch: the offset of its registration (-1 until registered). */
  private brokerEpoch = -1;
  private replicaManager: ReplicaManager<UnifiedLog> | null = null;
  /** Where this broker's partition leaders send ISR proposals (AlterPartition to the active controller). */
  private alterPartitions: LazyAlterPartitionManager | null = null;
  /** Follower partitions' fetchers (ReplicaFetcherManager) and their connections. */
  private replicaFetching: LazyReplicaFetching | null = null;
  /** The group coordinator, loaded on demand (lazy-group-coordinator.ts). */
  private groups: LazyGroupCoordinator | null = null;
  private transactions: TransactionCoordinatorSetup | null = null;
  /** What the transaction coordinator is built from; it loads after start-up (see {@link loadTransactions}). */
  private transactionOptions: TransactionCoordinatorSetupOptions | null = null;
  private transactionsLoad: Promise<TransactionCoordinatorSetup | null> | null = null;
  /** Set when shutdown begins: nothing more is loaded in the background, no transaction coordinator built. */
  private shuttingDown = false;
  /** The abort signal of the running start-up (startup's `options.signal`). */
  private startupSignal: AbortSignal | null = null;
  private dispatcher: RequestDispatcher | null = null;
  private network: NetworkListeners | null = null;
  private housekeeping: Housekeeping | null = null;
  private watchdog: EventLoopWatchdog | null = null;
  /** The one event-loop delay sampler of the watchdog and `/metrics` (`nodejs_eventloop_lag_*`), made at start-up when needed. */
  private eventLoopDelay: EventLoopDelayMonitor | null = null;
  /** The controller's periodic unclean elections and preferred leader balancing. */
  private leaderBalancer: LeaderBalancer | null = null;
  private advertised: Listener[] = [];
  private readonly gate = new StartupGate();
  private started = false;
  private stopping: Promise<void> | null = null;
  private closing: Promise<void> | null = null;

  constructor(config: BrokerConfig, environment: Environment, options: BrokerServerOptions = {}) {
    this.currentConfig = config;
    this.environment = environment;
    this.rootLogger = options.logger ?? createLogger({ level: config.logLevel });
    this.logger = componentLogger(this.rootLogger, 'broker');
    this.resources = {
      core: options.core ?? getCore(),
      readBuffers: new ReadBufferPool(),
      groupFlusher: groupFlusherOn(environment.time),
      responseMemory: new ResponseMemoryPool(config.queuedMaxResponseBytes, (task) => environment.time.defer(task)),
    };
    this.metrics = new BrokerMetrics(config, environment, {
      replicaManager: () => this.replicaManager,
      groupCoordinator: () => this.groups?.coordinator ?? null,
      metadata: () => this.cache,
      topicExists: (topic) => this.cache?.topic(topic) !== undefined,
      isActiveController: () => config.processRoles.includes('controller')
        && (this.quorum === null || this.quorum.metadataLog.leaderAndEpoch().leaderId === config.nodeId),
      connections: () => this.network?.connectionCounts() ?? [],
      webSocketSessions: () => this.network?.webSocketSessions() ?? [],
      eventLoopDelay: () => this.eventLoopDelay,
      onRemoteLagLoadFailed: (error) => this.logger.error({ err: error }, 'the remote consumer-lag reads could not be loaded'),
    });
  }

  /** The event-loop watchdog's counters (stalls, worst delay; zeros before start-up). */
  get eventLoopMetrics(): EventLoopMetrics {
    return this.watchdog?.metrics() ?? { stallCount: 0, maxStallMs: 0, maxDelayMs: 0, p99DelayMs: 0 };
  }

  get nodeId(): number {
    return this.config.nodeId;
  }

  /** The cluster id from meta.properties. @throws Error before {@link startup} */
  get clusterId(): string {
    return this.started ? this.storage!.clusterId : notStarted('clusterId');
  }

  /** The broker's own view of the cluster metadata. @throws Error before {@link startup} */
  get metadataCache(): MetadataCache {
    return this.cache ?? notStarted('metadataCache');
  }

  /** The embedded controller. @throws Error before {@link startup} */
  get controller(): QuorumController {
    return this.controllerInstance ?? notStarted('controller');
  }

  /** The partitions this broker holds, leader or follower (diagnostics and tests). @throws Error before {@link startup} */
  get replicas(): ReplicaManager<UnifiedLog> {
    return this.replicaManager ?? notStarted('replicas');
  }

  /** The AlterPartitionManager this broker's partition leaders propose ISR changes through. @throws Error before {@link startup} */
  get alterPartitionSink(): AlterPartitionSink {
    return this.alterPartitions ?? notStarted('alterPartitionSink');
  }

  /** Every client listener, bound (port 0 in the config is the real port here), as advertised. */
  get listeners(): BoundListener[] {
    return (this.network?.bound ?? []).map((listener) => {
      const published = this.advertised.find((candidate) => candidate.name === listener.name);
      return { name: listener.name, host: published?.host ?? listener.host, port: listener.port };
    });
  }

  /** The controller listeners as bound (a Raft quorum's voter); empty otherwise. */
  get controllerListeners(): BoundListener[] {
    return (this.quorum?.bound ?? []).map((listener) => ({ ...listener }));
  }

  /** Bound `http.listeners`; empty when disabled. */
  get httpListeners(): readonly GatewayAddress[] {
    return this.network?.httpBound ?? [];
  }

  /**
   * Answers one request frame as if it came in on `connection` (the same path as the
   * listeners: frame → header → handler → response bytes); null when none is due (acks=0).
   */
  handleRequest(frame: Buffer, connection: ConnectionContext): ResponseBytes | null | Promise<ResponseBytes | null> {
    if (this.dispatcher === null) return notStarted('handleRequest');
    return this.gate.guard((f, c) => this.dispatcher!.handle(f, c))(frame, connection);
  }

  /**
   * Starts the broker (order in the file header). Call once.
   * @throws LogDirInUseError when a log directory
   *   is locked by a live process; InconsistentMetaPropertiesError; metadata log errors; and the
   *   listener's error (EADDRINUSE, ...) when a port cannot be bound. Everything started so far is
   *   stopped before the error is thrown.
   * @param options.signal aborts start-up: the waits that depend on other nodes (the quorum
   *   unfencing this broker) end, everything started so far is stopped cleanly (listeners, Raft,
   *   logs), and startup rejects with {@link StartupAbortedError}.
   * @throws StartupAbortedError when `options.signal` aborted start-up
   */
  async startup(options: { signal?: AbortSignal } = {}): Promise<void> {
    const { config, environment, rootLogger, logger } = this;
    this.startupSignal = options.signal ?? null;
    logger.info({ event: LogEvent.BrokerStarting, nodeId: config.nodeId, logDirs: config.logDirs }, 'broker starting');
    const storage = openLogStorage(config, environment, logger, this.resources);
    let controller: QuorumController;
    try {
      controller = await this.openController(storage);
    } catch (error) {
      storage.logManager.shutdown();
      storage.releaseLocks();
      throw error;
    }
    this.storage = storage;
    this.controllerInstance = controller;
    this.wireBroker(controller, storage);
    // The cache learns the active controller from the quorum (Metadata's controller id).
    this.quorum?.raft.register({
      handleCommit: () => undefined,
      handleLoadSnapshot: () => undefined,
      handleLeaderChange: (leader) => this.cache!.setControllerId(leader.leaderId),
    });
    const network = new NetworkListeners({
      config,
      handler: this.gate.guard((frame, connection) => this.dispatcher!.handle(frame, connection)),
      resources: { frameArena: this.resources.core.frameArena, readBuffers: this.resources.readBuffers, responseMemory: this.resources.responseMemory },
      isReady: () => this.gate.isOpen && this.stopping === null,
      notReadyReasons: watchLogDirReadiness(storage.logManager.logDirectories, componentLogger(rootLogger, 'log-dirs')),
      rootLogger,
      time: this.environment.time,
      loadMetrics: async () => this.metrics.metricsRoute(),
      httpApplications: () => this.httpApplications(),
      rootRedirect: '/console/',
      topics: () => this.metadataCache.topics(),
      consumerLag: (groupId) => {
        const lag = this.metrics.consumerLag;
        if (groupId === null) return lag.describeGroups();
        const report = lag.describeGroup(groupId);
        return report === undefined ? [] : [report];
      },
    });
    this.network = network;
    try {
      await network.start();
      await this.quorum?.start();
      await this.joinCluster(controller, storage);
      if (this.startupSignal?.aborted === true) throw new StartupAbortedError();
    } catch (error) {
      if (this.startupSignal?.aborted === true) {
        logger.info({ event: LogEvent.BrokerStopping }, 'start-up stopped on request; closing what was started');
        this.gate.fail(new StartupAbortedError());
        await this.closeEverything();
        logger.info({ event: LogEvent.BrokerStopped }, 'broker stopped');
        throw new StartupAbortedError();
      }
      // A port that cannot be bound is a configuration problem, not a bug: no stack trace.
      const bind = bindFailure(error);
      logger.error(bind === null ? { event: LogEvent.BrokerFailed, err: error } : { event: LogEvent.BrokerFailed, ...bind }, 'start-up failed; stopping');
      this.gate.fail(error);
      await this.closeEverything();
      throw error;
    }
    this.started = true;
    this.gate.ready();
    this.housekeeping = new Housekeeping({
      time: environment.time, logRetentionCheckIntervalMs: config.logRetentionCheckIntervalMs, logInitialTaskDelayMs: config.logInitialTaskDelayMs,
      logCleanerBackoffMs: () => this.config.logCleanerBackoffMs, maxPartitionsPerTurn: config.housekeepingMaxPartitionsPerTurn,
      logManager: storage.logManager, replicaManager: this.replicaManager!, logger,
    });
    this.housekeeping.start();
    if (config.processRoles.includes('broker')) this.metrics.consumerLag.start();
    this.watchdog?.start();
    if (config.processRoles.includes('controller')) {
      const controllerLogger = componentLogger(rootLogger, 'controller');
      this.leaderBalancer = startLeaderBalancer(controller, environment.time, config, ({ unclean, balanced }) =>
        controllerLogger.info({ unclean, balanced }, `leader elections: ${balanced} moved to preferred replicas, ${unclean} unclean`));
    }
    const listeners = this.listeners;
    logger.info(
      { event: LogEvent.BrokerStarted, nodeId: config.nodeId, clusterId: storage.clusterId, listeners },
      config.processRoles.includes('broker')
        ? `broker ${config.nodeId} started on ${listeners.map((l) => `${l.name}://${l.host}:${l.port}`).join(', ')}`
        : `controller ${config.nodeId} started (controller-only: no client listener)`,
    );
    // The address to open in a browser (a wildcard bind is reached on this machine as localhost).
    for (const http of this.httpListeners) {
      const host = http.host === '0.0.0.0' || http.host === '::' || http.host === '' ? 'localhost' : http.host.includes(':') ? `[${http.host}]` : http.host;
      logger.info({ event: 'console.available', url: `http://${host}:${http.port}/` }, `web console at http://${host}:${http.port}/`);
    }
    void this.loadDeferred();
  }

  /**
   * After start-up, in the background, what a plain start did not import before it was ready: the
   * API handlers but ApiVersions and Metadata, the group coordinator (where `__consumer_offsets`
   * did not exist), the transaction coordinator and, with `http.listeners`, prom-client. One import
   * at a time, each begun in a later event-loop turn (`time.defer`) than the last ended, so the
   * first requests are read and answered between them; a request that needs one imports it at
   * once and waits for it, in order. Stops when shutdown begins; failures are logged, never thrown.
   */
  private async loadDeferred(): Promise<void> {
    const { config, environment, logger } = this;
    const turn = (): Promise<void> => new Promise((resolve) => environment.time.defer(resolve));
    const failed = (what: string) => (error: unknown): void => logger.error({ err: error }, `${what} could not be loaded`);
    await this.dispatcher!.loadHandlers(async () => {
      await turn();
      if (this.shuttingDown) throw new Error('shutting down');
    }).catch(() => undefined);
    await turn();
    if (this.shuttingDown) return;
    await this.groups?.load().catch(failed('the group coordinator'));
    await turn();
    if (this.shuttingDown) return;
    await this.loadTransactions().catch(failed('the transaction coordinator'));
    if (config.httpListeners.length === 0 || !config.processRoles.includes('broker')) return;
    await turn();
    if (!this.shuttingDown) await this.metrics.loadPrometheus().catch(failed('prom-client (/metrics answers 500)'));
  }

  /** Stops accepting, finishes in-flight requests, flushes, writes clean-shutdown checkpoints. Idempotent. */
  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      this.logger.info({ event: LogEvent.BrokerStopping }, 'broker stopping');
      this.housekeeping?.stop();
      this.metrics.stopConsumerLag();
      this.watchdog?.stop();
      this.leaderBalancer?.stop();
      await this.closeEverything();
      this.logger.info({ event: LogEvent.BrokerStopped }, 'broker stopped');
    })();
    return this.stopping;
  }

  /** What the HTTP listeners serve besides the gateway: the web console (host/console/). */
  private async httpApplications(): Promise<HttpApplicationMount[]> {
    const { createConsoleMount } = await import('../console/console-mount.js');
    return [createConsoleMount({
      config: this.config,
      environment: this.environment,
      handler: (frame, connection) => this.handleRequest(frame, connection),
      listenerName: this.network!.clientListeners[0]?.name ?? 'PLAINTEXT',
      ownEndpoints: () => this.listeners,
      metadata: { topics: () => this.metadataCache.topics() },
      partitions: this.replicaManager!,
      throughput: () => {
        const all = this.metrics.topicMetrics.allTopics;
        return { messagesIn: all.messagesIn, bytesIn: all.bytesIn, bytesOut: all.bytesOut, messagesOut: null };
      },
      // Lag in seconds and the Burrow-style status of the groups this broker coordinates.
      groupLag: {
        describe: async (groupId) => {
          const report = this.metrics.consumerLag.describeGroup(groupId);
          return report === undefined ? null : { status: report.status, partitions: report.partitions };
        },
      },
    })];
  }

  /**
   * The controller over this node's metadata log: the embedded one-voter log, or, when
   * `controller.quorum.voters` names several voters, a QuorumController on the Raft quorum's log
   * ({@link ControllerQuorum}, started with the listeners).
   */
  private async openController(storage: LogStorage): Promise<QuorumController> {
    const { config, environment, rootLogger } = this;
    if (!runsRaftQuorum(config)) return startEmbeddedController(config, storage.logManager, environment, componentLogger(rootLogger, 'controller'));
    const { openQuorumController } = await import('./quorum-membership.js');
    const { quorum, controller, forwarder } = openQuorumController({ config, clusterId: storage.clusterId, logManager: storage.logManager, environment, rootLogger });
    this.quorum = quorum;
    this.forwarder = forwarder;
    return controller;
  }

  /** The broker's parts over the opened storage and controller: cache, publisher, replicas, groups, API. */
  private wireBroker(controller: QuorumController, storage: LogStorage): void {
    const { config, environment, rootLogger } = this;
    const watchdog = this.createWatchdog();
    const cache = new MetadataCache({ clusterId: storage.clusterId, nodeId: config.nodeId });
    const metadata = new ControllerClusterMetadata({
      controller,
      cache,
      brokerId: config.nodeId,
      brokerEpoch: () => this.brokerEpoch,
      whenApplied: () => this.publisher?.whenApplied() ?? Promise.resolve(),
      time: environment.time,
      ...(this.forwarder === null ? {} : { forwarder: this.forwarder }),
    });
    const alterPartitions = this.createAlterPartitionManager(controller);
    this.alterPartitions = alterPartitions;
    const replicaManager = new ReplicaManager<UnifiedLog>({
      localBrokerId: config.nodeId,
      scheduler: environment.time,
      readBuffers: this.resources.readBuffers,
      logger: componentLogger(rootLogger, 'replica-manager'),
      // Each partition's leader epochs in its directory, as Kafka's (OffsetForLeaderEpoch, DivergingEpoch);
      // on the LogManager's disk, so that the clean shutdown's deferred sync covers their writes.
      openLeaderEpochCache: (log) => LeaderEpochFileCache.open(storage.logManager.context.disk, log.dir),
      // Leaders propose ISR changes to the controller (for partitions the publisher gives a topic id).
      alterPartitionSink: alterPartitions,
      // Kafka's isReplicaIsrEligible: a fenced or shutting-down broker neither joins the ISR nor holds the high watermark.
      isReplicaIsrEligible: (brokerId) => {
        const broker = cache.broker(brokerId);
        return broker !== undefined && !broker.fenced && !broker.inControlledShutdown;
      },
      // KIP-903: followers' fetches are recorded with their registration's broker epoch.
      brokerEpochOf: (brokerId) => cache.broker(brokerId)?.brokerEpoch ?? -1,
      replicaLagTimeMaxMs: config.replicaLagTimeMaxMs,
      // Issue 11: a leader cut off from the quorum answers a sequence gap NOT_LEADER_OR_FOLLOWER.
      isMetadataCurrent: metadataCurrency(this.quorum?.raft ?? null, () => controller.lastCommittedOffset, () => (this.publisher?.pendingSlices ?? 0) > 0),
      // Issue 15: a Produce or Fetch naming more partitions is worked through in slices, one per turn.
      requestSlicing: { maxPartitionsPerTurn: config.requestMaxPartitionsPerTurn, defer: (task) => environment.time.defer(task) },
    });
    const groups = new LazyGroupCoordinator({
      config, metadata, logManager: storage.logManager, replicaManager, environment, rootLogger,
      liveBrokerCount: () => cache.brokers().filter((broker) => !broker.fenced).length,
    }, (coordinator) => this.publisher?.attachGroupCoordinator(coordinator));
    this.transactionOptions = {
      config, metadata, cache, logManager: storage.logManager, replicaManager, groupCoordinator: () => groups.coordinator, environment, rootLogger,
      liveBrokerCount: () => cache.brokers().filter((broker) => !broker.fenced).length,
    };
    const replicaFetching = new LazyReplicaFetching(config, environment, cache, componentLogger(rootLogger, 'replica-fetcher'));
    const publisher = new BrokerMetadataPublisher({
      config,
      onBrokerConfigChanged: (effective) => { this.currentConfig = effective; },
      cache,
      logManager: storage.logManager,
      replicaManager,
      onGroupCoordinatorNeeded: () => groups.loadInBackground(),
      replicaFetcherManager: replicaFetching,
      producerStateDisk: storage.producerStateDisk,
      logger: componentLogger(rootLogger, 'topics'),
      defer: (task) => environment.time.defer(task),
      timing: watchdog,
    });
    publisher.start(controller.image, controller.nodeId);
    controller.addListener(publisher);
    const server = this;
    const services: BrokerServices = {
      get config() { return server.config; },
      nodeId: config.nodeId,
      metadata,
      replicaManager,
      get groupCoordinator() { return groups.coordinator ?? undefined; },
      loadGroupCoordinator: () => groups.load(),
      brokers: (listenerName) => cache.aliveBrokerEndpoints(listenerName),
      ensureOffsetsTopic: () => groups.ensureOffsetsTopic(),
      get transactionCoordinator() { return server.transactions?.transactionCoordinator; },
      loadTransactionCoordinator: async () => (await server.loadTransactions())?.transactionCoordinator,
      ensureTransactionStateTopic: async () => (await server.loadTransactions())?.ensureTransactionStateTopic() ?? ErrorCode.COORDINATOR_NOT_AVAILABLE,
      nowMs: () => environment.time.nowMs(),
      controllerMutationQuota: new ControllerMutationQuotaManager(config, environment.time),
      autoCreateRefusalLog: autoCreateRefusalLog(environment.time),
      describeQuorum: () => this.quorum?.describeQuorum() ?? Promise.resolve(describeEmbeddedQuorum(controller, environment.time.nowMs())),
      topicMetrics: this.metrics.topicMetrics,
      requestMetrics: this.metrics.requestMetrics,
      defer: (task) => environment.time.defer(task),
      responseMemory: this.resources.responseMemory,
      metadataResponseCache: metadataResponseCache(config, cache, environment.time),
    };
    this.cache = cache;
    this.publisher = publisher;
    this.replicaManager = replicaManager;
    this.replicaFetching = replicaFetching;
    this.groups = groups;
    this.dispatcher = new RequestDispatcher({
      watchdog,
      registry: createApiRegistry(),
      broker: services,
      logger: componentLogger(rootLogger, 'api'),
      readBuffers: this.resources.readBuffers,
      time: environment.time,
      requestMetrics: this.metrics.requestMetrics,
    });
  }

  /** The event-loop watchdog (and the delay histogram it and `/metrics` share): times requests and metadata slices. */
  private createWatchdog(): EventLoopWatchdog {
    const { config, environment } = this;
    if (config.eventLoopStallThresholdMs > 0 || config.httpListeners.length > 0) this.eventLoopDelay = systemEventLoopDelayMonitor();
    this.watchdog = new EventLoopWatchdog({
      time: environment.time, thresholdMs: config.eventLoopStallThresholdMs, logger: componentLogger(this.rootLogger, 'event-loop'),
      ...(this.eventLoopDelay !== null ? { delayMonitor: this.eventLoopDelay } : {}), gcPauses: systemGcPausesFor(environment.time, config.eventLoopStallThresholdMs),
    });
    return this.watchdog;
  }

  /**
   * AlterPartition towards the active controller: over the CONTROLLER listeners in a multi-voter
   * quorum (to whichever voter leads the metadata log), in-process to the embedded controller.
   * Loaded with the first ISR proposal (lazy-alter-partitions.ts): a single node never makes one.
   */
  private createAlterPartitionManager(controller: QuorumController): LazyAlterPartitionManager {
    const { config, environment } = this;
    const quorum = this.quorum;
    const logger = componentLogger(this.rootLogger, 'alter-partition');
    return new LazyAlterPartitionManager(() => ({
      time: environment.time,
      brokerId: config.nodeId,
      brokerEpoch: () => this.lifecycle?.brokerEpoch ?? this.brokerEpoch,
      ...(quorum === null
        ? { local: controller }
        : { remote: { transport: quorum.channels, activeControllerId: () => quorum.metadataLog.leaderAndEpoch().leaderId } }),
      requestTimeoutMs: config.controllerQuorumRequestTimeoutMs,
      onRetry: (reason) => logger.debug({ reason }, 'AlterPartition will be retried'),
    }), (error) => logger.error({ err: error }, 'the AlterPartitionManager could not be loaded; ISR changes are not proposed'));
  }

  /**
   * Registers with the controller (with the bound, advertised endpoints), then takes up this
   * broker's partitions and the group coordinator's.
   */
  private async joinCluster(controller: QuorumController, storage: LogStorage): Promise<void> {
    this.advertised = resolveAdvertisedListeners(this.config.advertisedListeners, this.network!.bound, hostname());
    // With the embedded single voter the broker registers in-process; in a Raft quorum a
    // controller expires broker sessions when it is the active one, and a broker registers with
    // the active controller over the network and waits to be unfenced. A controller-only node
    // serves no client and holds no partition: nothing more to take up.
    if (this.quorum === null) {
      this.brokerEpoch = await registerBroker(controller, this.config, this.advertised);
    } else {
      if (this.config.processRoles.includes('controller')) await this.startSessionExpiry(controller);
      if (!this.config.processRoles.includes('broker')) {
        storage.logManager.releaseStartupListings();
        return;
      }
      this.brokerEpoch = await this.registerWithQuorum(this.quorum, controller, storage);
    }
    // Logs found on disk whose topic the metadata does not know are stray (KRaft): set aside, not
    // adopted, so a deleted topic is never resurrected.
    setAsideStrayLogs(this.cache!, storage.logManager, this.environment.time.nowMs(), componentLogger(this.rootLogger, 'topics'));
    // The coordinator starts first: applying `__consumer_offsets` loads the groups of the
    // partitions this broker leads (and only those). Without that topic it is imported after start-up.
    if (this.cache!.topic(OFFSETS_TOPIC_NAME) !== undefined) await this.groups!.load();
    this.groups!.startup();
    this.publisher!.applyAllTopics();
    storage.logManager.releaseStartupListings();
  }

  /**
   * Loads, builds and starts the transaction coordinator once (concurrent callers share the load),
   * then hands it the current `__transaction_state` leaderships. Resolves null before the broker's
   * services exist or after shutdown began (callers answer COORDINATOR_NOT_AVAILABLE, 15).
   */
  private loadTransactions(): Promise<TransactionCoordinatorSetup | null> {
    this.transactionsLoad ??= import('./transaction-coordinator-setup.js').then(({ createTransactionCoordinator }) => {
      const options = this.transactionOptions;
      if (options === null || this.shuttingDown || this.publisher === null) return null;
      const transactions = createTransactionCoordinator(options);
      this.transactions = transactions;
      transactions.transactionCoordinator.startup();
      this.publisher.attachTransactionCoordinator(transactions.transactionCoordinator);
      return transactions;
    });
    return this.transactionsLoad;
  }

  /** Raft quorum, controller role: this controller fences silent brokers while it is the active one. */
  private async startSessionExpiry(controller: QuorumController): Promise<void> {
    const { startQuorumSessionExpiry } = await import('./quorum-membership.js');
    this.sessionExpiry = startQuorumSessionExpiry(controller, this.environment, componentLogger(this.rootLogger, 'broker-lifecycle'));
  }

  /**
   * Raft quorum, broker role: this broker registers with the active controller over the
   * CONTROLLER listeners through a BrokerLifecycleManager, heartbeats, and returns its broker
   * epoch once unfenced (caught up with the metadata).
   */
  private async registerWithQuorum(quorum: ControllerQuorum, controller: QuorumController, storage: LogStorage): Promise<number> {
    const { config, environment } = this;
    const logger = componentLogger(this.rootLogger, 'broker-lifecycle');
    const { joinQuorum } = await import('./quorum-membership.js');
    const lifecycle = joinQuorum({
      quorum, controller, config, environment, clusterId: storage.clusterId, advertised: this.advertised, logger,
    });
    this.lifecycle = lifecycle;
    logger.info({ nodeId: config.nodeId }, 'registering with the controller quorum; waiting to be unfenced');
    // A stop requested meanwhile ends the wait: without a quorum majority it would never end.
    const signal = this.startupSignal;
    const abort = (): void => lifecycle.stop();
    signal?.addEventListener('abort', abort, { once: true });
    if (signal?.aborted === true) lifecycle.stop();
    try {
      if (!(await lifecycle.unfenced)) throw new Error('the broker stopped before the controller quorum unfenced it');
    } finally {
      signal?.removeEventListener('abort', abort);
    }
    return lifecycle.brokerEpoch;
  }

  /**
   * Long polls answer now (and fetches stop waiting), then the listeners stop reading and wait
   * for what is in flight; JoinGroup/SyncGroup requests parked in a rebalance would wait for
   * other members for minutes, so the coordinator answers them (NOT_COORDINATOR, as when a
   * Kafka coordinator moves) before the wait. The logs close last.
   */
  private closeEverything(): Promise<void> {
    this.closing ??= this.closeParts();
    return this.closing;
  }

  private async closeParts(): Promise<void> {
    const storage = this.storage;
    if (storage === null) return;
    // A registered broker hands its leadership over before it goes (controlled shutdown).
    if (this.lifecycle?.isUnfenced === true) await this.lifecycle.controlledShutdown(CONTROLLED_SHUTDOWN_TIMEOUT_MS);
    this.lifecycle?.stop();
    this.sessionExpiry?.stop();
    this.alterPartitions?.shutdown();
    // Kafka's ReplicaManager.shutdown stops the fetchers first: no follower append or truncation
    // may land after the producer-state snapshots below, or while the logs close.
    this.replicaFetching?.shutdown();
    snapshotProducerStates(storage.logManager, this.replicaManager, this.logger, this.environment.time);
    const listenersStopped = this.network?.stop() ?? Promise.resolve();
    this.shuttingDown = true;
    this.transactions?.shutdown();
    this.groups?.shutdown();
    await listenersStopped;
    await this.quorum?.stop();
    await closeLogs(storage, this.logger, this.environment.time);
  }
}

/** startup() ended because its abort signal fired (a stop requested during start-up); nothing is left running. */
export class StartupAbortedError extends Error {
  constructor() {
    super('start-up was stopped on request before it completed');
    this.name = 'StartupAbortedError';
  }
}

/** How long shutdown waits for the controller to move this broker's leadership away, ms. */
const CONTROLLED_SHUTDOWN_TIMEOUT_MS = 5_000;

/**
 * True when this node takes part in a Raft quorum over the network: the voters name another node
 * (several voters, or one voter that is not this node, which a broker-only node follows as an
 * observer). Without voters, or with this node as the only one, the embedded one-voter log runs.
 */
function runsRaftQuorum(config: BrokerConfig): boolean {
  const voters = config.controllerQuorumVoters;
  return voters.length > 1 || (voters.length === 1 && voters[0]!.id !== config.nodeId);
}

function notStarted(what: string): never {
  throw new Error(`BrokerServer.${what}: the broker has not started`);
}

