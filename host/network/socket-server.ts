import type { AddressInfo, Server, Socket } from 'node:net';
import type { Time, TimerHandle } from '../io/environment.js';
import { createTcpListener } from '../io/node-network.js';
import { SystemTime } from '../io/time.js';
import { LogThrottle } from '../observability/log-throttle.js';
import { componentLogger, createLogger, LogEvent } from '../observability/logger.js';
import { RequestMemoryPool } from './request-memory-pool.js';
import { ResponseMemoryPool } from './response-memory-pool.js';
import { type ConnectionLimits, type ConnectionResources, defaultConnectionResources, type PartialRequestGuard, TcpConnection } from './tcp-connection.js';
import type { ConnectionContext, NetworkLogger, RequestHandler } from './network-types.js';
import { dispatchBudgetOf, SharedDispatchBudget } from './shared-dispatch-budget.js';

export type { ConnectionContext, NetworkLogger, RequestHandler, ResponseBytes } from './network-types.js';

/** Kafka's default `socket.request.max.bytes`: 100 MiB. */
export const DEFAULT_SOCKET_REQUEST_MAX_BYTES = 104_857_600;
/** Kafka's default `connections.max.idle.ms`: 10 minutes. */
export const DEFAULT_CONNECTIONS_MAX_IDLE_MS = 600_000;
/**
 * Default connection limit. Kafka's `max.connections` defaults to Int.MaxValue; we bound it so a
 * connection flood cannot exhaust file descriptors.
 */
export const DEFAULT_MAX_CONNECTIONS = 10_000;
/**
 * Default pipelining window per connection. Kafka itself handles one request per connection at
 * a time; we answer up to this many concurrently (librdkafka pipelines deeply) and stop reading
 * beyond it.
 */
export const DEFAULT_MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION = 128;
/** Default bound on a connection's unsent response bytes before it stops reading: 64 MiB. */
export const DEFAULT_MAX_PENDING_RESPONSE_BYTES_PER_CONNECTION = 64 * 1024 * 1024;
/** Tributary's default `queued.max.request.bytes` (Kafka: -1, unbounded): 100 MiB. */
export const DEFAULT_QUEUED_MAX_REQUEST_BYTES = 104_857_600;
/**
 * Default `queued.max.response.bytes` (Tributary-only; Kafka holds one response per connection):
 * 256 MiB of responses not yet taken by their peers, across connections, before the connections
 * with a response pending stop reading (response-memory-pool.ts).
 */
export const DEFAULT_QUEUED_MAX_RESPONSE_BYTES = 268_435_456;
/** Default `connection.max.dispatch.ms.per.turn` (Tributary-only): 50 ms. */
export const DEFAULT_MAX_DISPATCH_MS_PER_TURN = 50;
/** network.max.dispatch.ms.per.turn's default (Tributary-only), ms. */
export const DEFAULT_NETWORK_MAX_DISPATCH_MS_PER_TURN = 50;
/** Default `socket.partial.request.timeout.ms` (Tributary-only): 30 s. */
export const DEFAULT_PARTIAL_REQUEST_TIMEOUT_MS = 30_000;
/** Default graceful-stop wait for in-flight responses before sockets are destroyed. */
export const DEFAULT_STOP_TIMEOUT_MS = 30_000;

export interface SocketServerOptions {
  /** The clock of the graceful-stop timeout and of the refusal log's throttle; default the system clock. */
  time?: Pick<Time, 'setTimeout' | 'clearTimeout' | 'monotonicMs' | 'defer'>;
  /** Interface to bind, e.g. `127.0.0.1` or `0.0.0.0`. */
  host: string;
  /** TCP port; 0 picks a free port (read it back from `address()`). */
  port: number;
  /** Kafka listener name reported to handlers. Default `PLAINTEXT`. */
  listenerName?: string;
  handler: RequestHandler;
  /** socket.request.max.bytes: largest request frame (excluding the size prefix), bytes. */
  socketRequestMaxBytes?: number;
  /** connections.max.idle.ms: idle connections close after this long; 0 disables. */
  connectionsMaxIdleMs?: number;
  /** max.connections: connections beyond this are closed as soon as they are accepted. */
  maxConnections?: number;
  /** max.connections.per.ip: same, counted per remote address. Default unlimited (Kafka's default). */
  maxConnectionsPerIp?: number;
  /** connection.max.in.flight.requests: unanswered requests per connection before it stops reading. */
  maxInFlightRequestsPerConnection?: number;
  /**
   * queued.max.request.bytes: the bytes of requests being received, across connections, before
   * connections stop reading (request-memory-pool.ts). Ignored when `resources` brings a pool
   * (the broker shares one across its listeners).
   */
  queuedMaxRequestBytes?: number;
  /**
   * queued.max.response.bytes: the bytes of responses not yet taken by their peers, across
   * connections, past which connections with a response pending stop reading
   * (response-memory-pool.ts). Ignored when `resources` brings a pool (the broker shares one
   * across its listeners and its WebSocket gateway).
   */
  queuedMaxResponseBytes?: number;
  /** socket.partial.request.timeout.ms: a frame incomplete this long after it began closes its connection; 0 disables. */
  partialRequestTimeoutMs?: number;
  /** connection.max.pending.response.bytes: held + undrained response bytes per connection before it stops reading. */
  maxPendingResponseBytesPerConnection?: number;
  /** connection.max.dispatch.ms.per.turn: how long one connection's requests run back to back in one turn, ms; 0 disables (default 50). */
  maxDispatchMsPerTurn?: number;
  /**
   * network.max.dispatch.ms.per.turn, the bound on all connections' dispatch in one turn
   * (shared-dispatch-budget.ts): the broker's one budget over all its listeners and gateways;
   * absent, this listener keeps its own of DEFAULT_NETWORK_MAX_DISPATCH_MS_PER_TURN; null: none.
   */
  sharedDispatchBudget?: SharedDispatchBudget | null;
  /** Called once when a connection closes, for any reason (after its late responses are dropped). */
  onConnectionClosed?: (connection: ConnectionContext) => void;
  logger?: NetworkLogger;
  /** The broker's frame ring and fetch buffer pool; default the process's (getCore(), fetchReadBuffers). */
  resources?: ConnectionResources;
}

export interface BoundAddress {
  host: string;
  port: number;
  family: string;
}

/**
 * Kafka's SocketServer on node:net: one listener, many connections, each a stream of
 * int32-size-prefixed request frames answered in request order (pipelining allowed, bounded).
 *
 * Framing contract with the handler: the handler receives header + body without the size
 * prefix and returns header + body without the size prefix (Buffer or Buffer[]), or null for
 * no response (Produce acks=0); the server writes the prefix.
 *
 * Bad input never disturbs other connections: a negative size or one above
 * socket.request.max.bytes closes that connection before its body is buffered, with a log line
 * naming the peer; a handler exception is logged as a bug and closes only its connection.
 *
 * Lifecycle: `new` → `start()` (listening) → `stop()` (stops accepting, lets in-flight requests
 * finish up to a timeout, then closes every socket). Not restartable.
 */
export class SocketServer {
  private readonly server: Server;
  private readonly connections = new Set<TcpConnection>();
  private readonly connectionsPerIp = new Map<string, number>();
  private readonly limits: ConnectionLimits;
  private readonly listenerName: string;
  private readonly maxConnections: number;
  private readonly maxConnectionsPerIp: number;
  private readonly logger: NetworkLogger;
  private nextConnectionId = 1;
  private boundAddress: BoundAddress | null = null;
  private state: 'new' | 'listening' | 'stopping' | 'stopped' = 'new';
  private stopPromise: Promise<void> | null = null;
  private readonly resources: ConnectionResources;
  private readonly guard: PartialRequestGuard;
  /** One refusal line per reason per 10 s: a reconnect loop against a full listener must not flood the log. */
  private readonly refusalLog = new LogThrottle();
  private readonly clock: Pick<Time, 'monotonicMs' | 'defer'>;

  constructor(private readonly options: SocketServerOptions) {
    const resources = options.resources ?? defaultConnectionResources();
    this.resources = {
      ...resources,
      requestMemory: resources.requestMemory ??
        new RequestMemoryPool(positiveInteger(options.queuedMaxRequestBytes, DEFAULT_QUEUED_MAX_REQUEST_BYTES, 'queuedMaxRequestBytes')),
      responseMemory: resources.responseMemory ??
        new ResponseMemoryPool(positiveInteger(options.queuedMaxResponseBytes, DEFAULT_QUEUED_MAX_RESPONSE_BYTES, 'queuedMaxResponseBytes')),
    };
    this.guard = {
      partialRequestTimeoutMs: nonNegativeInteger(options.partialRequestTimeoutMs, DEFAULT_PARTIAL_REQUEST_TIMEOUT_MS, 'partialRequestTimeoutMs'),
      time: options.time ?? new SystemTime(),
    };
    this.clock = options.time ?? new SystemTime();
    const dispatchMs = nonNegativeInteger(options.maxDispatchMsPerTurn, DEFAULT_MAX_DISPATCH_MS_PER_TURN, 'maxDispatchMsPerTurn');
    const shared = options.sharedDispatchBudget === undefined
      ? new SharedDispatchBudget(DEFAULT_NETWORK_MAX_DISPATCH_MS_PER_TURN, this.clock)
      : options.sharedDispatchBudget;
    const dispatchBudget = dispatchBudgetOf(dispatchMs, shared, this.clock);
    this.listenerName = options.listenerName ?? 'PLAINTEXT';
    this.logger = options.logger ?? componentLogger(createLogger(), 'socket-server');
    this.limits = {
      socketRequestMaxBytes: positiveInteger(options.socketRequestMaxBytes, DEFAULT_SOCKET_REQUEST_MAX_BYTES, 'socketRequestMaxBytes'),
      connectionsMaxIdleMs: nonNegativeInteger(options.connectionsMaxIdleMs, DEFAULT_CONNECTIONS_MAX_IDLE_MS, 'connectionsMaxIdleMs'),
      maxInFlightRequests: positiveInteger(
        options.maxInFlightRequestsPerConnection,
        DEFAULT_MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
        'maxInFlightRequestsPerConnection',
      ),
      maxPendingResponseBytes: positiveInteger(
        options.maxPendingResponseBytesPerConnection,
        DEFAULT_MAX_PENDING_RESPONSE_BYTES_PER_CONNECTION,
        'maxPendingResponseBytesPerConnection',
      ),
      ...(dispatchBudget === undefined ? {} : { dispatchBudget }),
    };
    this.maxConnections = positiveInteger(options.maxConnections, DEFAULT_MAX_CONNECTIONS, 'maxConnections');
    this.maxConnectionsPerIp = positiveInteger(options.maxConnectionsPerIp, Number.MAX_SAFE_INTEGER, 'maxConnectionsPerIp');
    this.server = createTcpListener((socket) => this.accept(socket));
  }

  /** Binds and listens; resolves with the bound address. Rejects on bind errors (EADDRINUSE, ...). */
  start(): Promise<BoundAddress> {
    if (this.state !== 'new') throw new Error(`SocketServer.start: already ${this.state}`);
    this.state = 'listening';
    return new Promise((resolve, reject) => {
      const onError = (error: Error): void => {
        this.state = 'stopped';
        reject(error);
      };
      this.server.once('error', onError);
      this.server.listen({ host: this.options.host, port: this.options.port }, () => {
        this.server.off('error', onError);
        this.server.on('error', (error) => this.logger.error({ event: 'listener.error', err: error }, 'listener error'));
        const info = this.server.address() as AddressInfo;
        this.boundAddress = { host: info.address, port: info.port, family: info.family };
        this.logger.info(
          { event: LogEvent.ListenerBound, listener: this.listenerName, host: info.address, port: info.port },
          `listening on ${formatPeer(info.address, info.port)}`,
        );
        resolve(this.boundAddress);
      });
    });
  }

  /** The bound address once `start()` resolved (port is the real one when 0 was asked). */
  address(): BoundAddress {
    if (this.boundAddress === null) throw new Error('SocketServer.address: not listening');
    return this.boundAddress;
  }

  /** Open connections right now. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /**
   * Graceful stop: stops accepting, lets each connection finish the requests it already
   * dispatched (nothing new is read), ends the sockets, and after `timeoutMs` destroys whatever
   * is left. Idempotent; resolves when the listener and every socket are closed.
   */
  stop(timeoutMs: number = DEFAULT_STOP_TIMEOUT_MS): Promise<void> {
    if (this.stopPromise !== null) return this.stopPromise;
    const wasListening = this.state === 'listening';
    this.state = 'stopping';
    this.stopPromise = new Promise<void>((resolve) => {
      let listenerClosed = !wasListening;
      const time = this.options.time ?? new SystemTime();
      let timer: TimerHandle | null = null;
      const finishIfDone = (): void => {
        if (!listenerClosed || this.connections.size > 0) return;
        if (timer !== null) time.clearTimeout(timer);
        this.state = 'stopped';
        this.logger.info({ event: 'listener.closed', listener: this.listenerName }, 'stopped');
        resolve();
      };
      this.onAllClosed = finishIfDone;
      timer = time.setTimeout(() => {
        timer = null;
        if (this.connections.size > 0) {
          this.logger.warn(
            { event: 'listener.stop_timed_out', listener: this.listenerName, connections: this.connections.size, timeoutMs },
            'stop timed out; closing connections with requests in flight',
          );
        }
        for (const connection of [...this.connections]) connection.destroy();
      }, timeoutMs);
      if (wasListening) {
        this.server.close(() => {
          listenerClosed = true;
          finishIfDone();
        });
      }
      for (const connection of [...this.connections]) connection.beginStop();
      finishIfDone();
    });
    return this.stopPromise;
  }

  private onAllClosed: (() => void) | null = null;

  /** A refused connection at warn, throttled per reason; the line says how many went unlogged since the last. */
  private logRefusal(peer: string, reason: string, fields: Record<string, number>, why: string): void {
    const decision = this.refusalLog.check(reason, this.clock.monotonicMs());
    if (!decision.log) return;
    const more = decision.suppressed > 0 ? ` (${decision.suppressed} more refused for this reason since the last line)` : '';
    this.logger.warn(
      { event: LogEvent.ConnectionRefused, peer, reason, ...fields, ...(decision.suppressed > 0 ? { suppressed: decision.suppressed } : {}) },
      `refusing connection from ${peer}: ${why}${more}`,
    );
  }

  private accept(socket: Socket): void {
    const remoteAddress = socket.remoteAddress ?? 'unknown';
    const peer = formatPeer(remoteAddress, socket.remotePort);
    if (this.state !== 'listening') {
      socket.destroy();
      return;
    }
    if (this.connections.size >= this.maxConnections) {
      this.logRefusal(peer, 'max.connections', { maxConnections: this.maxConnections }, `max.connections (${this.maxConnections}) reached`);
      socket.destroy();
      return;
    }
    const perIp = this.connectionsPerIp.get(remoteAddress) ?? 0;
    if (perIp >= this.maxConnectionsPerIp) {
      this.logRefusal(peer, 'max.connections.per.ip', { maxConnectionsPerIp: this.maxConnectionsPerIp }, `max.connections.per.ip (${this.maxConnectionsPerIp}) reached`);
      socket.destroy();
      return;
    }
    this.connectionsPerIp.set(remoteAddress, perIp + 1);
    const id = this.nextConnectionId++;
    const connection = new TcpConnection(
      id,
      peer,
      this.listenerName,
      socket,
      this.options.handler,
      this.limits,
      this.logger,
      (closed) => this.onConnectionClosed(closed, remoteAddress),
      this.resources,
      this.guard,
    );
    this.connections.add(connection);
    this.logger.debug({ event: 'connection.accepted', peer, connectionId: id, listener: this.listenerName }, 'connection accepted');
  }

  private onConnectionClosed(connection: TcpConnection, remoteAddress: string): void {
    if (!this.connections.delete(connection)) return;
    const perIp = (this.connectionsPerIp.get(remoteAddress) ?? 1) - 1;
    if (perIp <= 0) this.connectionsPerIp.delete(remoteAddress);
    else this.connectionsPerIp.set(remoteAddress, perIp);
    this.logger.debug({ event: 'connection.ended', peer: connection.peer, connectionId: connection.id }, 'connection ended');
    try {
      this.options.onConnectionClosed?.(connection.connection);
    } catch (error) {
      this.logger.error({ event: 'callback.failed', peer: connection.peer, err: error }, 'onConnectionClosed callback failed (bug)');
    }
    this.onAllClosed?.();
  }
}

function formatPeer(address: string, port: number | undefined): string {
  const host = address.includes(':') ? `[${address}]` : address;
  return `${host}:${port ?? 0}`;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`SocketServer: ${name} must be a positive integer, got ${value}`);
  return value;
}

function nonNegativeInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`SocketServer: ${name} must be a non-negative integer, got ${value}`);
  return value;
}
