/**
 * The public library entry: `startBroker` builds a {@link BrokerServer} (host/server/) on the real
 * world ({@link systemEnvironment}) and the process's WebAssembly core, starts it, and returns a
 * handle whose `stop()` shuts it down cleanly. The start-up and shutdown order are
 * BrokerServer's.
 *
 * Two call shapes are accepted:
 * - the CLI's `startBroker({ config: BrokerConfig, logger })` (host/cli/broker-command.ts);
 * - the library's `startBroker({ logDirs, listeners, overrides })` (issue 3): Kafka config names
 *   in `overrides`, listeners default to `PLAINTEXT://127.0.0.1:0`, logs at `warn` unless
 *   `log.level` is given.
 */
import type { BrokerConfig } from './config/broker-config.js';
import { loadBrokerConfig } from './config/broker-config.js';
import { systemEnvironment } from './io/environment.js';
import type { Logger } from './observability/logger.js';
import { type BoundListener, BrokerServer } from './server/broker-server.js';
import type { BrokerMetrics } from './server/broker-metrics.js';
import { getCore } from './wasm/core.js';

export { type BoundListener, StartupAbortedError } from './server/broker-server.js';

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
  /**
   * Aborts start-up (the CLI's SIGTERM/SIGINT during start-up): waits on other nodes end, what
   * was started is stopped cleanly, and startBroker rejects with StartupAbortedError.
   */
  signal?: AbortSignal;
}

export type StartBrokerOptions = StartBrokerLibraryOptions | StartBrokerConfigOptions;

/** A running broker. */
export interface RunningBroker {
  /** Every client listener, bound (port 0 in the config is the real port here). */
  readonly listeners: readonly BoundListener[];
  /** Host of the first listener, as advertised to clients (a controller-only node: of its first controller listener). */
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
  /**
   * The broker's metrics, typed (what `/metrics` exposes): per-topic and per-API counters, and
   * the Prometheus registry once the HTTP gateway runs.
   */
  readonly metrics: BrokerMetrics;
  /** Stops accepting, finishes in-flight requests, flushes, writes clean-shutdown checkpoints. Idempotent. */
  stop(): Promise<void>;
}

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
 *   (EADDRINUSE, ...) when a port cannot be bound (everything started so far is stopped first);
 *   StartupAbortedError when `signal` aborted start-up (everything started is stopped first)
 */
export async function startBroker(options: StartBrokerOptions): Promise<RunningBroker> {
  const config = isConfigShape(options) ? options.config : libraryBrokerConfig(options);
  // One core per process: brokers started here share it (see host/wasm/core.ts).
  const server = new BrokerServer(config, systemEnvironment(), {
    core: getCore(),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  await server.startup(isConfigShape(options) && options.signal !== undefined ? { signal: options.signal } : {});
  const listeners: BoundListener[] = server.listeners;
  // A controller-only node has no client listener: its first controller listener stands in.
  const first = listeners[0] ?? server.controllerListeners[0] ?? { name: '', host: '', port: 0 };
  return {
    listeners,
    httpListeners: server.httpListeners,
    host: first.host,
    port: first.port,
    bootstrap: `${first.host.includes(':') ? `[${first.host}]` : first.host}:${first.port}`,
    nodeId: config.nodeId,
    clusterId: server.clusterId,
    // The configuration in effect, dynamic broker configs (AlterConfigs on BROKER) included.
    get config() { return server.config; },
    metrics: server.metrics,
    stop: () => server.shutdown(),
  };
}
