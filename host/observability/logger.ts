/**
 * Structured logs: pino, JSON lines on stdout, one object per line.
 *
 * ## Line shape
 * `{"level":"info","time":"2024-10-01T12:00:00.000Z","pid":1,"hostname":"h","name":"tributary",
 *   "component":"socket-server","event":"listener.bound","listener":"PLAINTEXT","port":9092,
 *   "msg":"listening on 127.0.0.1:9092"}`
 * - `level` is the label (`info`), `time` ISO-8601 UTC;
 * - `name` is the process logger's name, `component` the child logger's (kebab-case, the module:
 *   `broker`, `socket-server`, `log-manager`, `group-coordinator`, `controller`, ...);
 * - `event` is a stable machine name, `msg` a sentence for humans. Alert on events, not on msg.
 *
 * ## Event names
 * `<subject>.<what happened>`, lowercase, dot-separated, past tense for facts (`broker.started`),
 * present participle for the start of something that takes time (`broker.stopping`). The shared
 * ones are in {@link LogEvent}; a component may add its own in the same form.
 * - One `info` line per lifecycle event: starting/started/stopping/stopped, each listener bound,
 *   log recovery done, topic created/deleted, group rebalanced, config loaded (with the keys that
 *   have no effect, at `warn`).
 * - One `warn` line per refused client request ({@link logRefusedRequest}): `request.refused` with
 *   `peer`, `api`, `apiKey`, `apiVersion`, `correlationId`, `clientId`, `errorCode`, `error` (the
 *   Kafka error name) and `reason`. A refused *connection* (limit reached, garbage framing) is
 *   `connection.refused` / `connection.closed` with `peer` and `reason`.
 * - Request traces at `debug` ({@link traceRequest}): `request.completed` with the same fields plus
 *   `durationMs`. Guarded by `isLevelEnabled` so the hot path pays nothing at `info`.
 * - Errors go under the `err` key (pino's serializer keeps type, message and stack).
 */
import { pino } from 'pino';
import type { DestinationStream, Logger } from 'pino';
import type { LogLevel } from '../config/broker-config.js';

export type { Logger } from 'pino';

/** Shared event names (the `event` field). */
export const LogEvent = {
  BrokerStarting: 'broker.starting',
  BrokerStarted: 'broker.started',
  BrokerStopping: 'broker.stopping',
  BrokerStopped: 'broker.stopped',
  BrokerFailed: 'broker.failed',
  ConfigLoaded: 'config.loaded',
  ConfigIgnored: 'config.ignored',
  ListenerBound: 'listener.bound',
  ConnectionRefused: 'connection.refused',
  ConnectionClosed: 'connection.closed',
  RequestRefused: 'request.refused',
  RequestCompleted: 'request.completed',
} as const;
export type LogEventName = (typeof LogEvent)[keyof typeof LogEvent];

export interface CreateLoggerOptions {
  /** Minimum level written; default `info`. */
  level?: LogLevel;
  /** The `name` field of every line; default `tributary`. */
  name?: string;
  /** Where lines go; default stdout. Tests pass a stream to capture them. */
  destination?: DestinationStream;
}

/**
 * Creates the process logger: JSON lines, level labels, ISO timestamps.
 * Components take a child: `logger.child({ component: 'socket-server' })` (see {@link componentLogger}).
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const loggerOptions = {
    name: options.name ?? 'tributary',
    level: options.level ?? 'info',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return options.destination ? pino(loggerOptions, options.destination) : pino(loggerOptions);
}

/** A child logger whose lines carry `component`. */
export function componentLogger(parent: Logger, component: string): Logger {
  return parent.child({ component });
}

/** What is known about one request when it is refused or traced. Unknown fields are left out. */
export interface RequestLogFields {
  /** Remote address `host:port`. */
  peer: string;
  /** API name, e.g. `Produce`. */
  api?: string;
  apiKey?: number;
  apiVersion?: number;
  correlationId?: number;
  clientId?: string | null;
  /** Kafka error code answered (0 NONE). */
  errorCode?: number;
  /** Kafka error name, e.g. `UNSUPPORTED_VERSION`. */
  error?: string;
}

/**
 * One `warn` line for a refused client request: `event: request.refused`.
 * @param reason why, in words (`api version 99 is not supported`)
 */
export function logRefusedRequest(logger: Logger, fields: RequestLogFields, reason: string): void {
  logger.warn({ event: LogEvent.RequestRefused, ...fields, reason }, `refused ${fields.api ?? 'request'} from ${fields.peer}: ${reason}`);
}

/** One `debug` line per completed request (`event: request.completed`); free when debug is off. */
export function traceRequest(logger: Logger, fields: RequestLogFields & { durationMs: number }): void {
  if (!logger.isLevelEnabled('debug')) return;
  logger.debug({ event: LogEvent.RequestCompleted, ...fields }, `${fields.api ?? 'request'} from ${fields.peer}`);
}
