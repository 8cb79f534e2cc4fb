/**
 * The broker's network side (Kafka's SocketServer with its acceptors): one SocketServer per client
 * listener (the controller listeners are not served here; port 0 binds a free port) and one
 * WebSocketGateway per `http.listeners` entry (/kafka, /json, /health, /ready).
 *
 * Listeners bind before the broker registers (its registration carries the bound ports), so a
 * request can arrive before start-up ends: the {@link StartupGate} holds it until the broker is
 * ready, or rejects it (its connection closes) when start-up fails.
 *
 * `queued.max.response.bytes` is one pool for the whole broker, shared by its TCP listeners (the
 * gateways' sockets have their per-socket bounds, and `websocket.max.total.buffered.bytes` per
 * gateway; `queued.max.request.bytes` is one pool per listener).
 */
import type { Time } from '../io/environment.js';
import type { BrokerConfig, Listener } from '../config/broker-config.js';
import { type ConnectionResources, defaultConnectionResources } from '../network/tcp-connection.js';
import { ResponseMemoryPool } from '../network/response-memory-pool.js';
import type { ConnectionContext, ResponseBytes } from '../network/network-types.js';
import type { HttpApplicationMount } from '../network/http-applications.js';
import { SocketServer } from '../network/socket-server.js';
import { SharedDispatchBudget } from '../network/shared-dispatch-budget.js';
import { SystemTime } from '../io/time.js';
import type { MetadataTopicLike } from '../gateway/json-topic-list.js';
import type { LagReportLike, MetricsRoute, NotReadyReason } from '../network/http-server.js';
import type { GatewayAddress, WebSocketGateway } from '../network/websocket-gateway.js';
import { componentLogger, type Logger } from '../observability/logger.js';

/** A frame handler as the SocketServer and the gateway call it. */
export type FrameHandler = (frame: Buffer, connection: ConnectionContext) => ResponseBytes | null | Promise<ResponseBytes | null>;

/** Holds requests until start-up completes; lets them through at once afterwards. */
export class StartupGate {
  private open = false;
  private readonly readiness: Promise<void>;
  private markReady!: () => void;
  private failReady!: (error: unknown) => void;

  constructor() {
    this.readiness = new Promise<void>((resolve, reject) => {
      this.markReady = resolve;
      this.failReady = reject;
    });
    // A failed start rejects the requests that waited for it (their connections close).
    this.readiness.catch(() => undefined);
  }

  /** True once {@link ready} was called. */
  get isOpen(): boolean {
    return this.open;
  }

  /** Wraps `handler` so that requests wait for the gate. */
  guard(handler: FrameHandler): FrameHandler {
    return (frame, connection) => (this.open ? handler(frame, connection) : this.readiness.then(() => handler(frame, connection)));
  }

  /** Start-up completed: waiting requests proceed. */
  ready(): void {
    this.open = true;
    this.markReady();
  }

  /** Start-up failed: waiting requests fail with `error`. */
  fail(error: unknown): void {
    this.failReady(error);
  }
}

export interface NetworkListenersOptions {
  readonly config: BrokerConfig;
  readonly handler: FrameHandler;
  /** What the gateway's /ready answers. */
  readonly isReady: () => boolean;
  /** Why a started broker is not ready (a full or offline log directory): /ready's 503 reasons. */
  readonly notReadyReasons?: () => readonly NotReadyReason[];
  readonly rootLogger: Logger;
  /** The broker's frame ring, fetch pool and queued.max.response.bytes pool (default one of the listeners' own), lent to its connections. */
  readonly resources?: ConnectionResources;
  /** The clock of idle checks and stop timeouts (the broker's environment); default the system clock. */
  readonly time?: Time;
  /**
   * Makes the `/metrics` route of the HTTP gateways, called once when `http.listeners` is set
   * (so that the Prometheus library loads only then); absent: no `/metrics`.
   */
  readonly loadMetrics?: () => Promise<MetricsRoute>;
  /**
   * HTTP applications for every `http.listeners` entry (the console), made once when the
   * first gateway starts (so that their modules load only with an HTTP listener); closed on stop.
   */
  readonly httpApplications?: () => Promise<readonly HttpApplicationMount[]>;
  /** Where `GET /` redirects on the HTTP listeners (e.g. `/console/`). */
  readonly rootRedirect?: string;
  /** The broker's topics (MetadataCache.topics()), which the `/json` sessions' listTopics answers from. */
  readonly topics?: () => readonly MetadataTopicLike[];
  /** The gateways' `GET /consumer-lag`: lag reports of every group, or of the one named. */
  readonly consumerLag?: (groupId: string | null) => readonly LagReportLike[];
}

/** The bound client listeners and HTTP gateways of one broker. */
export class NetworkListeners {
  /** Client listeners as bound (configured host, real port), in config order. */
  readonly bound: Listener[] = [];
  /** Bound `http.listeners`; an entry that could not be bound is missing (logged at error). */
  readonly httpBound: GatewayAddress[] = [];
  private readonly servers: SocketServer[] = [];
  private readonly gateways: WebSocketGateway[] = [];
  private readonly config: BrokerConfig;
  private readonly handler: FrameHandler;
  private readonly isReady: () => boolean;
  private readonly rootLogger: Logger;
  private readonly resources: ConnectionResources | undefined;
  private readonly time: Time | undefined;
  private readonly loadMetrics: (() => Promise<MetricsRoute>) | undefined;
  private readonly options: NetworkListenersOptions;
  private mounts: readonly HttpApplicationMount[] = [];
  private readonly consumerLag: ((groupId: string | null) => readonly LagReportLike[]) | undefined;
  /** queued.max.response.bytes, shared by every client listener. */
  private readonly responseMemory: ResponseMemoryPool;
  /** network.max.dispatch.ms.per.turn over every listener and gateway; null when 0 (no bound). */
  private readonly sharedDispatchBudget: SharedDispatchBudget | null;

  constructor(options: NetworkListenersOptions) {
    this.options = options;
    this.time = options.time;
    this.config = options.config;
    this.handler = options.handler;
    this.isReady = options.isReady;
    this.rootLogger = options.rootLogger;
    this.resources = options.resources;
    this.loadMetrics = options.loadMetrics;
    this.consumerLag = options.consumerLag;
    const time = options.time;
    const networkDispatchMs = options.config.networkMaxDispatchMsPerTurn;
    this.sharedDispatchBudget = networkDispatchMs > 0 ? new SharedDispatchBudget(networkDispatchMs, time ?? new SystemTime()) : null;
    this.responseMemory = options.resources?.responseMemory ?? new ResponseMemoryPool(options.config.queuedMaxResponseBytes, time === undefined ? undefined : (task) => time.defer(task));
  }

  /** Open Kafka TCP connections per client listener. */
  connectionCounts(): { listener: string; count: number }[] {
    return this.servers.map((server, i) => ({ listener: this.bound[i]?.name ?? 'UNBOUND', count: server.connectionCount }));
  }

  /** Open WebSockets of the HTTP gateways per route (summed over the gateways). */
  webSocketSessions(): { route: string; count: number }[] {
    let kafka = 0;
    let json = 0;
    for (const gateway of this.gateways) {
      const counts = gateway.sessionCounts();
      kafka += counts.kafka;
      json += counts.json;
    }
    return [{ route: 'kafka', count: kafka }, { route: 'json', count: json }];
  }

  /** The client listeners: every listener but the controller listeners. */
  get clientListeners(): Listener[] {
    return this.config.listeners.filter((listener) => !this.config.controllerListenerNames.includes(listener.name));
  }

  /**
   * Binds every client listener, then the HTTP gateways.
   * @throws the listener's error (EADDRINUSE, ...) when a client port cannot be bound; the
   *   caller stops what was started ({@link stop})
   */
  async start(): Promise<void> {
    const config = this.config;
    for (const listener of this.clientListeners) {
      const server = new SocketServer({
        host: listener.host === '' ? '0.0.0.0' : listener.host,
        port: listener.port,
        listenerName: listener.name,
        handler: this.handler,
        socketRequestMaxBytes: config.socketRequestMaxBytes,
        connectionsMaxIdleMs: Math.max(0, config.connectionsMaxIdleMs),
        maxConnections: Math.max(1, config.maxConnections),
        maxConnectionsPerIp: config.maxConnectionsPerIp,
        queuedMaxRequestBytes: config.queuedMaxRequestBytes,
        maxInFlightRequestsPerConnection: config.connectionMaxInFlightRequests,
        maxPendingResponseBytesPerConnection: config.connectionMaxPendingResponseBytes,
        maxDispatchMsPerTurn: config.connectionMaxDispatchMsPerTurn,
        sharedDispatchBudget: this.sharedDispatchBudget,
        partialRequestTimeoutMs: config.socketPartialRequestTimeoutMs,
        logger: componentLogger(this.rootLogger, 'socket-server'),
        resources: { ...(this.resources ?? defaultConnectionResources()), responseMemory: this.responseMemory },
        ...(this.time === undefined ? {} : { time: this.time }),
      });
      this.servers.push(server);
      const address = await server.start();
      this.bound.push({ name: listener.name, host: listener.host, port: address.port });
    }
    await this.startGateways();
  }

  /**
   * The HTTP side is auxiliary: a port it cannot bind is logged at error and the broker serves
   * Kafka clients without it, rather than refusing to start (the default 127.0.0.1:8080 is often
   * taken on developer machines). Loaded only when configured: uWebSockets.js and the JSON
   * protocol (which brings the client library) are a large part of start-up time and memory.
   */
  private async startGateways(): Promise<void> {
    const config = this.config;
    // A controller-only node serves no client (Kafka's controllers have no client listener).
    if (config.httpListeners.length === 0 || !config.processRoles.includes('broker')) return;
    const gatewayModule = await import('../gateway/json-gateway.js');
    const metrics = await this.loadMetrics?.();
    const logger = componentLogger(this.rootLogger, 'websocket-gateway');
    this.mounts = (await this.options.httpApplications?.()) ?? [];
    for (const endpoint of config.httpListeners) {
      const gateway = gatewayModule.createJsonGateway({
        host: endpoint.host === '' ? '0.0.0.0' : endpoint.host,
        port: endpoint.port,
        handler: this.handler,
        isReady: this.isReady,
        ...(this.options.notReadyReasons === undefined ? {} : { notReadyReasons: this.options.notReadyReasons }),
        listenerName: this.clientListeners[0]?.name ?? 'PLAINTEXT',
        socketRequestMaxBytes: config.socketRequestMaxBytes,
        connectionsMaxIdleMs: Math.max(0, config.connectionsMaxIdleMs),
        maxConnections: Math.max(1, config.maxConnections),
        maxInFlightRequestsPerConnection: config.connectionMaxInFlightRequests,
        maxPendingResponseBytesPerConnection: config.websocketMaxPendingResponseBytes,
        maxBufferedBytesPerConnection: Math.max(config.websocketMaxBufferedBytes, config.websocketMaxPendingResponseBytes),
        maxTotalBufferedBytes: config.websocketMaxTotalBufferedBytes,
        maxDispatchMsPerTurn: config.connectionMaxDispatchMsPerTurn,
        sharedDispatchBudget: this.sharedDispatchBudget,
        allowedOrigins: config.httpAllowedOrigins,
        httpApplications: this.mounts,
        ...(this.options.rootRedirect === undefined ? {} : { rootRedirect: this.options.rootRedirect }),
        logger,
        ...(metrics === undefined ? {} : { metrics }),
        ...(this.consumerLag === undefined ? {} : { consumerLag: this.consumerLag, consumerLagMaxPagePartitions: config.consumerLagMaxPagePartitions }),
        ...(this.time === undefined ? {} : { time: this.time }),
        ...(this.options.topics === undefined ? {} : { json: { topics: this.options.topics } }),
      });
      try {
        this.httpBound.push(await gateway.start());
        this.gateways.push(gateway);
      } catch (error) {
        // A configuration problem, not a bug: one line with the reason and the fix, no stack trace.
        componentLogger(this.rootLogger, 'broker').error(
          { event: 'listener.bind_failed', host: endpoint.host, port: endpoint.port, reason: error instanceof Error ? error.message : String(error) },
          `http.listeners ${endpoint.host}:${endpoint.port} cannot be bound (port in use or address not available); running without the console, /metrics and the WebSocket gateway there; move it with --override http.listeners=HOST:PORT`);
      }
    }
  }

  /** Stops accepting and reading; resolves when the requests in flight are answered. */
  async stop(): Promise<void> {
    await Promise.all([...this.servers.map((server) => server.stop()), ...this.gateways.map((gateway) => gateway.stop())]);
    const mounts = this.mounts;
    this.mounts = [];
    await Promise.all(mounts.map((mount) => mount.application.close?.().catch((error: unknown) =>
      componentLogger(this.rootLogger, 'broker').error({ event: 'callback.failed', err: error }, `closing ${mount.prefix} failed`))));
  }
}
