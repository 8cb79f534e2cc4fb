/**
 * The WebSocket gateway: one uWebSockets.js server (config `http.listeners`) carrying
 *
 * - WebSocket `/kafka`: each binary message is one Kafka request frame (request header + body,
 *   no int32 size prefix), answered by one binary message with the response frame (no prefix),
 *   through the same RequestHandler as the TCP SocketServer, with the same limits
 *   (socket.request.max.bytes, connections.max.idle.ms, max.connections) and the same ordering
 *   (responses in request order even when handlers complete out of order; Produce acks=0 gets no
 *   message back). See websocket-kafka-connection.ts for backpressure and memory bounds.
 * - WebSocket `/json`: text messages handed to a session made by `jsonSessions` (the seam in
 *   json-socket.ts). The application behind it, the JSON subprotocol for browsers and `websocat`,
 *   lives in host/gateway/ (documented in host/gateway/JSON-PROTOCOL.md); this file only carries
 *   its text messages, limits and close handling.
 * - HTTP `GET /health`, `GET /ready`, `GET /metrics`, `GET /consumer-lag` (http-server.ts).
 *
 * Bad input harms only its own socket: a message above socket.request.max.bytes closes with 1009
 * and the limit in the reason (a frame more than OVERSIZE_GRACE_BYTES above it is dropped by uWS
 * before it is buffered: the TCP connection ends without a close frame and the reason is logged);
 * a text message on `/kafka` closes with 1003; a request frame the broker refuses (unreadable
 * header, unknown api key) closes with 1008 and the broker's reason; bytes that are not WebSocket
 * framing end the TCP connection (uWS's choice; logged). Upgrades beyond max.connections, or while
 * stopping, get HTTP 503.
 *
 * Upgrades from a browser page whose `Origin` is neither local (localhost, 127.0.0.0/8, [::1], the
 * gateway's own host) nor listed in `http.allowed.origins` get HTTP 403, so that a page on any
 * site cannot drive a local broker (websocket-origin-policy.ts). Clients that send no Origin
 * (Node, command-line tools) are not affected.
 *
 * Lifecycle: `new` → `start()` → `stop()`; not restartable. Memory: every socket's holdings are
 * bounded (maxBufferedBytesPerConnection) and so is the number of sockets (maxConnections).
 */
import uWS from 'uWebSockets.js';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket, us_socket_context_t, WebSocket } from 'uWebSockets.js';
import type { Time, TimerHandle } from '../io/environment.js';
import { SystemTime } from '../io/time.js';
import { LogThrottle } from '../observability/log-throttle.js';
import { componentLogger, createLogger, LogEvent } from '../observability/logger.js';
import { guardHttpHandler, type LagReportLike, type MetricsRoute, type NotReadyReason, registerHttpRoutes } from './http-server.js';
import { type HttpApplicationMount, registerHttpApplications } from './http-applications.js';
import type { JsonSessionFactory } from './json-socket.js';
import { JsonConnection } from './websocket-json-connection.js';
import type { ConnectionContext, NetworkLogger, RequestHandler } from './network-types.js';
import { dispatchBudgetOf, SharedDispatchBudget } from './shared-dispatch-budget.js';
import { OriginPolicy } from './websocket-origin-policy.js';
import { WebSocketMemoryBudget } from './websocket-memory-budget.js';
import {
  DEFAULT_CONNECTIONS_MAX_IDLE_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_DISPATCH_MS_PER_TURN,
  DEFAULT_NETWORK_MAX_DISPATCH_MS_PER_TURN,
  DEFAULT_MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
  DEFAULT_SOCKET_REQUEST_MAX_BYTES,
  DEFAULT_STOP_TIMEOUT_MS,
} from './socket-server.js';
import {
  WebSocketCloseCode,
  WebSocketKafkaConnection,
  type WebSocketConnectionLimits,
} from './websocket-kafka-connection.js';

export { WebSocketCloseCode } from './websocket-kafka-connection.js';

/** Listener name reported to the handler when none is given. */
export const DEFAULT_WEBSOCKET_LISTENER_NAME = 'WEBSOCKET';
/** Default soft bound: held + buffered response bytes per socket before dispatch and sends pause: 16 MiB. */
export const DEFAULT_WEBSOCKET_MAX_PENDING_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Default hard bound: bytes one socket may hold (requests + responses) before it is cut off: 128 MiB. */
export const DEFAULT_WEBSOCKET_MAX_BUFFERED_BYTES = 128 * 1024 * 1024;
/** Default largest `/json` message, bytes (JSON is parsed whole, so it gets a smaller bound). */
/** websocket.max.total.buffered.bytes default: what all sockets hold together before the largest is cut off. */
export const DEFAULT_WEBSOCKET_MAX_TOTAL_BUFFERED_BYTES = 256 * 1024 * 1024;
export const DEFAULT_JSON_MAX_MESSAGE_BYTES = 1024 * 1024;
/**
 * How far above the limit a message may be and still be read, so that it can be refused with a
 * 1009 close frame naming the limit; beyond this uWS drops the connection while parsing the frame
 * header, without buffering the payload.
 */
export const OVERSIZE_GRACE_BYTES = 1024 * 1024;
/**
 * uWS liveness timeout, seconds: uWS pings a quiet socket and closes it when the peer answers
 * nothing for this long (dead peers, half-open TCP). Kafka's idle rule is separate (ms, below).
 */
const LIVENESS_TIMEOUT_SECONDS = 120;
/**
 * uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT: bind without SO_REUSEPORT. By default uWS shares the port
 * with any other process listening on it and the kernel spreads connections between them, so a
 * second broker on the same `http.listeners` would silently answer half of the /kafka, /json and
 * /health connections of the first; exclusive, the second bind fails like a TCP listener's.
 */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

export interface WebSocketGatewayOptions {
  /** The clock of idle checks, the stop timeout and the dispatch budget; default the system clock. */
  time?: Pick<Time, 'nowMs' | 'setTimeout' | 'clearTimeout' | 'monotonicMs' | 'defer'>;
  /** Interface to bind, e.g. `127.0.0.1` or `0.0.0.0`. */
  host: string;
  /** TCP port; 0 picks a free port (read it back from `start()` / `address()`). */
  port: number;
  /** The broker's request handler (the same one the SocketServer uses). */
  handler: RequestHandler;
  /** True once the broker accepts requests (`GET /ready`); default always true. */
  isReady?: () => boolean;
  /** Why a started broker is not ready (`GET /ready` 503 with these reasons); default none. */
  notReadyReasons?: () => readonly NotReadyReason[];
  /** Listener name reported to the handler; default `WEBSOCKET`. */
  listenerName?: string;
  /**
   * `/json` sessions (host/gateway/json-gateway.ts makes the JSON subprotocol's). Absent or null:
   * the route is disabled (upgrades get 404).
   */
  jsonSessions?: JsonSessionFactory | null;
  /** socket.request.max.bytes: largest `/kafka` message, bytes. */
  socketRequestMaxBytes?: number;
  /** Largest `/json` message, bytes. Default 1 MiB. */
  jsonMaxMessageBytes?: number;
  /** connections.max.idle.ms: a socket with no message either way and nothing in flight closes (1001); 0 disables. */
  connectionsMaxIdleMs?: number;
  /** max.connections: WebSockets (both routes) beyond this are refused with HTTP 503. */
  maxConnections?: number;
  /** connection.max.in.flight.requests: unanswered requests per socket before dispatch pauses. */
  maxInFlightRequestsPerConnection?: number;
  /** websocket.max.pending.response.bytes, soft bound: held + uWS-buffered responses above which dispatch and sends pause until drain. */
  maxPendingResponseBytesPerConnection?: number;
  /** connection.max.dispatch.ms.per.turn: how long one socket's requests run back to back in one turn, ms; 0 disables (default 50). */
  maxDispatchMsPerTurn?: number;
  /**
   * network.max.dispatch.ms.per.turn, the bound on all connections' dispatch in one turn
   * (shared-dispatch-budget.ts): the broker's one budget over all its listeners and gateways;
   * absent, this listener keeps its own of DEFAULT_NETWORK_MAX_DISPATCH_MS_PER_TURN; null: none.
   */
  sharedDispatchBudget?: SharedDispatchBudget | null;
  /** websocket.max.buffered.bytes, hard bound: what one socket may hold (unprocessed requests + unsent responses) before it is cut off. */
  maxBufferedBytesPerConnection?: number;
  /**
   * websocket.max.total.buffered.bytes: what all sockets (both routes) may hold together before
   * the one holding the most is cut off (websocket-memory-budget.ts).
   */
  maxTotalBufferedBytes?: number;
  /**
   * http.allowed.origins: browser origins (`scheme://host[:port]`, `null`, or `*` for all) allowed
   * to upgrade besides local pages; see websocket-origin-policy.ts. Default: none listed.
   */
  allowedOrigins?: readonly string[];
  /** `GET /metrics` (the broker's Prometheus registry); absent: 404. */
  metrics?: MetricsRoute;
  /**
   * HTTP applications mounted on this listener (the console), behind the same
   * Origin policy (http-applications.ts). Default none.
   */
  httpApplications?: readonly HttpApplicationMount[];
  /** Where `GET /` redirects (302), e.g. `/console/`; default none (404). */
  rootRedirect?: string;
  /** `GET /consumer-lag` (http-server.ts); absent: 404. */
  consumerLag?: (groupId: string | null) => readonly LagReportLike[];
  /** consumer.lag.max.page.partitions: partitions of one `GET /consumer-lag` page. */
  consumerLagMaxPagePartitions?: number;
  /** Called once per closed WebSocket (both routes). */
  onConnectionClosed?: (connection: ConnectionContext) => void;
  logger?: NetworkLogger;
}

/** One open WebSocket, for metrics and tests. */
export interface WebSocketConnectionStats {
  id: number;
  peer: string;
  route: 'kafka' | 'json';
  /** Bytes uWS holds for the kernel (getBufferedAmount). */
  bufferedAmount: number;
  /** Everything the socket holds: undispatched requests, held responses, bufferedAmount. */
  heldBytes: number;
}

export interface GatewayAddress {
  host: string;
  port: number;
}

interface UserData {
  /** Remote address captured during the upgrade. */
  remoteAddress: string;
  route: 'kafka' | 'json';
  connection: WebSocketKafkaConnection | null;
  json: JsonConnection | null;
}

export class WebSocketGateway {
  private readonly app: TemplatedApp;
  private readonly logger: NetworkLogger;
  private readonly listenerName: string;
  private readonly limits: WebSocketConnectionLimits;
  private readonly jsonMaxMessageBytes: number;
  private readonly maxConnections: number;
  private readonly kafkaConnections = new Set<WebSocketKafkaConnection>();
  private readonly jsonConnections = new Set<JsonConnection>();
  private listenSocket: us_listen_socket | null = null;
  private boundAddress: GatewayAddress | null = null;
  private nextConnectionId = 1;
  private state: 'new' | 'listening' | 'stopping' | 'stopped' = 'new';
  private stopPromise: Promise<void> | null = null;
  private timer: TimerHandle | null = null;
  private readonly time: Pick<Time, 'nowMs' | 'setTimeout' | 'clearTimeout' | 'monotonicMs' | 'defer'>;
  /** One refusal line per reason per 10 s (a reconnect loop must not flood the log). */
  private readonly refusalLog = new LogThrottle();
  private onAllClosed: (() => void) | null = null;
  private readonly jsonEnabled: boolean;
  private readonly originPolicy: OriginPolicy;
  /** websocket.max.total.buffered.bytes over every socket of this gateway. */
  private readonly memory: WebSocketMemoryBudget;

  /** @throws Error for a bad limit or an `allowedOrigins` entry that is not an origin */
  constructor(private readonly options: WebSocketGatewayOptions) {
    this.logger = options.logger ?? componentLogger(createLogger(), 'websocket-gateway');
    this.time = options.time ?? new SystemTime();
    this.listenerName = options.listenerName ?? DEFAULT_WEBSOCKET_LISTENER_NAME;
    const socketRequestMaxBytes = positiveInteger(options.socketRequestMaxBytes, DEFAULT_SOCKET_REQUEST_MAX_BYTES, 'socketRequestMaxBytes');
    const maxPendingResponseBytes = positiveInteger(
      options.maxPendingResponseBytesPerConnection,
      DEFAULT_WEBSOCKET_MAX_PENDING_RESPONSE_BYTES,
      'maxPendingResponseBytesPerConnection',
    );
    const maxBufferedBytes = positiveInteger(options.maxBufferedBytesPerConnection, DEFAULT_WEBSOCKET_MAX_BUFFERED_BYTES, 'maxBufferedBytesPerConnection');
    if (maxBufferedBytes < maxPendingResponseBytes) {
      throw new Error(`WebSocketGateway: maxBufferedBytesPerConnection (${maxBufferedBytes}) must be >= maxPendingResponseBytesPerConnection (${maxPendingResponseBytes})`);
    }
    const dispatchMs = nonNegativeInteger(options.maxDispatchMsPerTurn, DEFAULT_MAX_DISPATCH_MS_PER_TURN, 'maxDispatchMsPerTurn');
    const shared = options.sharedDispatchBudget === undefined
      ? new SharedDispatchBudget(DEFAULT_NETWORK_MAX_DISPATCH_MS_PER_TURN, this.time)
      : options.sharedDispatchBudget;
    const dispatchBudget = dispatchBudgetOf(dispatchMs, shared, this.time);
    this.limits = {
      socketRequestMaxBytes,
      connectionsMaxIdleMs: nonNegativeInteger(options.connectionsMaxIdleMs, DEFAULT_CONNECTIONS_MAX_IDLE_MS, 'connectionsMaxIdleMs'),
      maxInFlightRequests: positiveInteger(options.maxInFlightRequestsPerConnection, DEFAULT_MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 'maxInFlightRequestsPerConnection'),
      maxPendingResponseBytes,
      maxBufferedBytes,
      ...(dispatchBudget === undefined ? {} : { dispatchBudget }),
    };
    this.jsonMaxMessageBytes = positiveInteger(options.jsonMaxMessageBytes, DEFAULT_JSON_MAX_MESSAGE_BYTES, 'jsonMaxMessageBytes');
    this.maxConnections = positiveInteger(options.maxConnections, DEFAULT_MAX_CONNECTIONS, 'maxConnections');
    this.memory = new WebSocketMemoryBudget(
      positiveInteger(options.maxTotalBufferedBytes, DEFAULT_WEBSOCKET_MAX_TOTAL_BUFFERED_BYTES, 'maxTotalBufferedBytes'),
      (task) => this.time.defer(task),
    );
    this.originPolicy = new OriginPolicy({ allowedOrigins: options.allowedOrigins ?? [], gatewayHost: options.host });
    this.app = uWS.App();
    this.registerKafkaRoute();
    const jsonSessions = options.jsonSessions ?? null;
    this.jsonEnabled = jsonSessions !== null;
    if (jsonSessions !== null) this.registerJsonRoute(jsonSessions);
    registerHttpApplications(this.app, options.httpApplications ?? [], {
      originPolicy: this.originPolicy,
      logger: this.logger,
      ...(options.rootRedirect === undefined ? {} : { rootRedirect: options.rootRedirect }),
    });
    registerHttpRoutes(this.app, {
      isReady: () => this.state === 'listening' && (options.isReady?.() ?? true),
      logger: this.logger,
      ...(options.notReadyReasons === undefined ? {} : { notReadyReasons: options.notReadyReasons }),
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
      ...(options.consumerLag === undefined ? {} : { consumerLag: options.consumerLag }),
      ...(options.consumerLagMaxPagePartitions === undefined ? {} : { consumerLagMaxPagePartitions: options.consumerLagMaxPagePartitions }),
    });
  }

  /**
   * Binds and listens; resolves with the bound address (the real port when 0 was asked).
   * @throws Error when the address cannot be bound (in use, not local)
   */
  start(): Promise<GatewayAddress> {
    if (this.state !== 'new') throw new Error(`WebSocketGateway.start: already ${this.state}`);
    this.state = 'listening';
    const { host, port } = this.options;
    // The typings lack the (host, port, options, callback) form the native binding accepts.
    const listen = this.app.listen.bind(this.app) as unknown as (
      host: string, port: number, options: number, callback: (listenSocket: us_listen_socket | false) => void,
    ) => void;
    return new Promise((resolve, reject) => {
      listen(host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, (listenSocket) => {
        if (listenSocket === false) {
          this.state = 'stopped';
          reject(new Error(`WebSocketGateway: cannot listen on ${formatHostPort(host, port)} (address in use or not available)`));
          return;
        }
        this.listenSocket = listenSocket;
        this.boundAddress = { host, port: uWS.us_socket_local_port(listenSocket as unknown as uWS.us_socket) };
        this.startTimer();
        this.logger.info(
          { event: LogEvent.ListenerBound, listener: 'HTTP', host, port: this.boundAddress.port },
          `WebSocket gateway listening on ${formatHostPort(host, this.boundAddress.port)} (/kafka${this.jsonEnabled ? ', /json' : ''}, /health, /ready${this.mountedPaths()})`,
        );
        resolve(this.boundAddress);
      });
    });
  }

  private mountedPaths(): string {
    return (this.options.httpApplications ?? []).map((mount) => `, ${mount.prefix}`).join('');
  }

  /** The bound address once `start()` resolved. */
  address(): GatewayAddress {
    if (this.boundAddress === null) throw new Error('WebSocketGateway.address: not listening');
    return this.boundAddress;
  }

  /** Open WebSockets (both routes). */
  get connectionCount(): number {
    return this.kafkaConnections.size + this.jsonConnections.size;
  }

  /** Open WebSockets per route, without a snapshot of each (metrics). */
  /** Bytes all sockets hold together, as last reported (websocket.max.total.buffered.bytes counts these). */
  get totalBufferedBytes(): number {
    return this.memory.usedBytes;
  }

  /** Sockets cut off because all sockets together held more than websocket.max.total.buffered.bytes. */
  get totalBufferedCutOffs(): number {
    return this.memory.cutOffs;
  }

  sessionCounts(): { kafka: number; json: number } {
    return { kafka: this.kafkaConnections.size, json: this.jsonConnections.size };
  }

  /** A snapshot of every open WebSocket (both routes). */
  connectionStats(): WebSocketConnectionStats[] {
    const stats: WebSocketConnectionStats[] = [];
    for (const connection of this.kafkaConnections) {
      stats.push({ id: connection.id, peer: connection.peer, route: 'kafka', bufferedAmount: connection.bufferedBytes, heldBytes: connection.heldBytes });
    }
    for (const connection of this.jsonConnections) {
      const buffered = connection.bufferedAmount;
      stats.push({ id: connection.id, peer: connection.peer, route: 'json', bufferedAmount: buffered, heldBytes: buffered });
    }
    return stats.sort((a, b) => a.id - b.id);
  }

  /**
   * Graceful stop: refuses new upgrades and closes the listener, lets `/kafka` sockets finish the
   * requests already dispatched and `/json` sessions finish theirs (leaving their groups), then
   * ends every socket with 1001; after `timeoutMs` whatever is left is closed at once.
   * Idempotent; resolves when every socket is closed.
   */
  stop(timeoutMs: number = DEFAULT_STOP_TIMEOUT_MS): Promise<void> {
    if (this.stopPromise !== null) return this.stopPromise;
    this.state = 'stopping';
    this.stopPromise = new Promise<void>((resolve) => {
      let forceTimer: TimerHandle | null = null;
      const finishIfDone = (): void => {
        if (this.connectionCount > 0) return;
        if (forceTimer !== null) this.time.clearTimeout(forceTimer);
        this.onAllClosed = null;
        this.state = 'stopped';
        this.logger.info({ event: 'listener.closed', listener: 'HTTP' }, 'WebSocket gateway stopped');
        resolve();
      };
      this.onAllClosed = finishIfDone;
      if (this.timer !== null) this.time.clearTimeout(this.timer);
      this.timer = null;
      if (this.listenSocket !== null) uWS.us_listen_socket_close(this.listenSocket);
      this.listenSocket = null;
      forceTimer = this.time.setTimeout(() => {
        forceTimer = null;
        if (this.connectionCount > 0) {
          this.logger.warn(
            { event: 'listener.stop_timed_out', listener: 'HTTP', connections: this.connectionCount, timeoutMs },
            'gateway stop timed out; closing sockets with requests in flight',
          );
        }
        for (const connection of [...this.kafkaConnections]) connection.terminate('broker stop timed out');
        for (const connection of [...this.jsonConnections]) connection.terminate('broker stop timed out');
      }, timeoutMs);
      for (const connection of [...this.kafkaConnections]) connection.beginStop();
      for (const connection of [...this.jsonConnections]) connection.beginStop();
      finishIfDone();
    });
    return this.stopPromise;
  }

  private registerKafkaRoute(): void {
    this.app.ws<UserData>('/kafka', {
      maxPayloadLength: this.limits.socketRequestMaxBytes + OVERSIZE_GRACE_BYTES,
      // uWS drops sends above maxBackpressure; we never send above maxPendingResponseBytes, and
      // one response on top of it must still go out.
      maxBackpressure: this.limits.maxBufferedBytes + this.limits.socketRequestMaxBytes,
      idleTimeout: LIVENESS_TIMEOUT_SECONDS,
      sendPingsAutomatically: true,
      compression: uWS.DISABLED,
      upgrade: guardHttpHandler((res, req, context: us_socket_context_t) => this.upgrade(res, req, context, 'kafka'), this.logger),
      open: (ws) => {
        const data = ws.getUserData();
        const id = this.nextConnectionId++;
        const connection = new WebSocketKafkaConnection(
          id,
          `${data.remoteAddress}/ws#${id}`,
          this.listenerName,
          ws,
          this.options.handler,
          this.limits,
          this.logger,
          () => this.time.nowMs(),
          (closed) => this.kafkaConnectionClosed(closed),
          this.memory,
        );
        data.connection = connection;
        this.kafkaConnections.add(connection);
        this.logger.debug({ event: 'connection.accepted', peer: connection.peer, connectionId: id, listener: this.listenerName }, 'WebSocket accepted on /kafka');
        if (this.state !== 'listening') connection.beginStop();
      },
      message: (ws, message, isBinary) => this.guard(ws, () => ws.getUserData().connection?.onMessage(message, isBinary)),
      drain: (ws) => this.guard(ws, () => ws.getUserData().connection?.onDrain()),
      close: (ws, code, message) => {
        const data = ws.getUserData();
        const connection = data.connection;
        data.connection = null;
        connection?.onSocketClosed(code, Buffer.from(message).toString('utf8'));
      },
    });
  }

  private registerJsonRoute(factory: JsonSessionFactory): void {
    this.app.ws<UserData>('/json', {
      maxPayloadLength: this.jsonMaxMessageBytes + OVERSIZE_GRACE_BYTES,
      maxBackpressure: this.limits.maxBufferedBytes + this.jsonMaxMessageBytes,
      idleTimeout: LIVENESS_TIMEOUT_SECONDS,
      sendPingsAutomatically: true,
      compression: uWS.DISABLED,
      upgrade: guardHttpHandler((res, req, context: us_socket_context_t) => this.upgrade(res, req, context, 'json'), this.logger),
      open: (ws) => {
        const data = ws.getUserData();
        const id = this.nextConnectionId++;
        const connection = new JsonConnection(id, `${data.remoteAddress}/json#${id}`, ws, this.limits, this.jsonMaxMessageBytes, this.logger, () => this.time.nowMs(), (closed) =>
          this.jsonConnectionClosed(closed), this.memory,
        );
        data.json = connection;
        this.jsonConnections.add(connection);
        try {
          connection.attach(factory(connection));
        } catch (error) {
          this.logger.error({ event: 'callback.failed', peer: connection.peer, err: error }, 'JSON session factory failed (bug)');
          connection.end(WebSocketCloseCode.InternalError, 'internal error opening the session');
          return;
        }
        if (this.state !== 'listening') connection.beginStop();
      },
      message: (ws, message, isBinary) => this.guard(ws, () => ws.getUserData().json?.onMessage(message, isBinary)),
      drain: (ws) => this.guard(ws, () => ws.getUserData().json?.onDrain()),
      close: (ws, code, message) => {
        const data = ws.getUserData();
        const connection = data.json;
        data.json = null;
        connection?.onSocketClosed(code, Buffer.from(message).toString('utf8'));
      },
    });
  }

  /**
   * Synchronous upgrade: enforce the stopping state, the Origin policy and max.connections,
   * capture the peer address.
   */
  private upgrade(res: HttpResponse, req: HttpRequest, context: us_socket_context_t, route: 'kafka' | 'json'): void {
    const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString('utf8');
    if (this.state !== 'listening') {
      refuseUpgrade(res, '503 Service Unavailable', 'UNAVAILABLE', 'the broker is stopping');
      return;
    }
    const origin = this.originPolicy.check(req.getHeader('origin'));
    if (!origin.allowed) {
      const decision = this.refusalLog.check('origin', this.time.nowMs());
      if (decision.log) {
        this.logger.warn(
          { event: LogEvent.ConnectionRefused, peer: remoteAddress, route, reason: 'origin', origin: req.getHeader('origin').slice(0, 200), suppressed: decision.suppressed },
          `refusing WebSocket from ${remoteAddress}: ${origin.reason}${decision.suppressed > 0 ? ` (${decision.suppressed} more refused for this reason since the last line)` : ''}`,
        );
      }
      refuseUpgrade(res, '403 Forbidden', 'FORBIDDEN', origin.reason);
      return;
    }
    if (this.connectionCount >= this.maxConnections) {
      const decision = this.refusalLog.check('max.connections', this.time.nowMs());
      if (decision.log) {
        this.logger.warn(
          { event: LogEvent.ConnectionRefused, peer: remoteAddress, reason: 'max.connections', maxConnections: this.maxConnections, suppressed: decision.suppressed },
          `refusing WebSocket from ${remoteAddress}: max.connections (${this.maxConnections}) reached${decision.suppressed > 0 ? ` (${decision.suppressed} more refused for this reason since the last line)` : ''}`,
        );
      }
      refuseUpgrade(res, '503 Service Unavailable', 'UNAVAILABLE', `max.connections (${this.maxConnections}) reached`);
      return;
    }
    // uWS echoes the first offered subprotocol, if any (browsers may offer one, e.g. "kafka").
    const userData: UserData = { remoteAddress, route, connection: null, json: null };
    res.upgrade(
      userData,
      req.getHeader('sec-websocket-key'),
      req.getHeader('sec-websocket-protocol'),
      req.getHeader('sec-websocket-extensions'),
      context,
    );
  }

  /** Runs a uWS socket callback; an exception (a bug) is logged and closes only that socket with 1011. */
  private guard(ws: WebSocket<UserData>, callback: () => void): void {
    try {
      callback();
    } catch (error) {
      const data = ws.getUserData();
      const connection = data.connection ?? data.json;
      this.logger.error({ event: 'websocket.callback_failed', peer: connection?.peer ?? data.remoteAddress, err: error }, 'WebSocket callback failed (bug)');
      connection?.end(WebSocketCloseCode.InternalError, 'internal error');
    }
  }

  private kafkaConnectionClosed(connection: WebSocketKafkaConnection): void {
    if (!this.kafkaConnections.delete(connection)) return;
    this.connectionClosed(connection.connection);
  }

  private jsonConnectionClosed(connection: JsonConnection): void {
    if (!this.jsonConnections.delete(connection)) return;
    this.connectionClosed(connection.context);
  }

  private connectionClosed(connection: ConnectionContext): void {
    try {
      this.options.onConnectionClosed?.(connection);
    } catch (error) {
      this.logger.error({ event: 'callback.failed', peer: connection.peer, err: error }, 'onConnectionClosed callback failed (bug)');
    }
    this.onAllClosed?.();
  }

  /** Every socket's idle and blocked-output checks, and its figure in websocket.max.total.buffered.bytes. */
  private startTimer(): void {
    const idleMs = this.limits.connectionsMaxIdleMs;
    const periodMs = idleMs <= 0 ? 1000 : Math.max(10, Math.min(1000, Math.floor(idleMs / 4)));
    // Every periodMs (Time has one-shot timers: each check arms the next; stop() clears it).
    const check = (): void => {
      const now = this.time.nowMs();
      for (const connection of [...this.kafkaConnections]) connection.checkTimers(now);
      for (const connection of [...this.jsonConnections]) connection.checkTimers(now);
      if (this.timer !== null) this.timer = this.time.setTimeout(check, periodMs);
    };
    this.timer = this.time.setTimeout(check, periodMs);
  }
}

function refuseUpgrade(res: HttpResponse, status: string, error: 'UNAVAILABLE' | 'FORBIDDEN', reason: string): void {
  res.cork(() => {
    res.writeStatus(status).writeHeader('Content-Type', 'application/json').end(JSON.stringify({ error, message: reason }));
  });
}

function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`WebSocketGateway: ${name} must be a positive integer, got ${value}`);
  return value;
}

function nonNegativeInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`WebSocketGateway: ${name} must be a non-negative integer, got ${value}`);
  return value;
}
