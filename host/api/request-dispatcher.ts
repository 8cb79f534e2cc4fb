/**
 * Kafka's KafkaApis.handle front door: turns one request frame (header + body, no size prefix)
 * into one response frame (or none), using the {@link ApiRegistry}.
 *
 * Refusals, as Kafka answers them (each logged once as `request.refused` with the peer):
 * - a header that cannot be read (fewer than 8 bytes, a malformed client id): close the connection;
 * - an api key with no handler: close (Kafka cannot know the response layout either);
 * - ApiVersions at a version above ours: UNSUPPORTED_VERSION (35) with a v0-shaped body listing
 *   every range we handle and a v0 response header, without reading the body (KIP-511), so each
 *   client can fall back (CLIENTS.md 3.1);
 * - another api at a version we do not handle: close (Kafka's parseRequest throws and the
 *   processor disconnects; no client sends a version it was not offered);
 * - a body that does not decode (truncated, malformed lengths or varints): INVALID_REQUEST (42)
 *   in the API's error response where it has a top-level error field, else close;
 * - a body holding more array elements than `request.max.array.elements` (all arrays, nested ones
 *   included): the same answer, decided before anything is allocated (the generated decoder skims
 *   the counts first), so a frame of a million partitions is refused in a few milliseconds;
 * - a handler that throws (a bug): UNKNOWN_SERVER_ERROR (-1) the same way, logged at error.
 * Trailing bytes after a well-formed body are ignored, as Kafka does.
 *
 * A request whose connection is closed (ConnectionContext.closed) is not handled, and one whose
 * connection closed while its handler ran is not encoded: nobody would read the answer (issue 15:
 * a client that gave up on its pipelined all-topics Metadata should cost nothing more).
 *
 * Lazily registered handlers (api-handlers.ts): a request for an API whose module is not imported
 * yet waits for that import (the SocketServer keeps each connection's responses in request order,
 * so nothing sent later overtakes it); its version is checked against the advertised range first.
 * A failed import is a bug: logged at error once (`api.handler_load_failed`) and every request for
 * that API closes its connection rather than waiting.
 */
import type { Time } from '../io/environment.js';
import { SystemTime } from '../io/time.js';
import { fetchReadBuffers, type ReadBuffers } from '../log/read-buffer-pool.js';
import type { ConnectionContext, ResponseBytes } from '../network/network-types.js';
import { type EventLoopWatchdog, requestPartitionCount } from '../observability/event-loop-watchdog.js';
import { type Logger, logRefusedRequest, type RequestLogFields, traceRequest } from '../observability/logger.js';
import { ApiKey, apiKeyName, isFlexibleVersion } from '../protocol/generated/api-keys.js';
import { encodeApiVersionsResponse } from '../protocol/generated/api-versions.js';
import { ErrorCode, errorName } from '../protocol/generated/error-codes.js';
import { encodeResponseHeader, requestHeaderVersion } from '../protocol/headers.js';
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';
import { type AnyApiDefinition, type ApiRequestContext, EncodedResponseBody } from './api-definition.js';
import type { ApiRegistry } from './api-registry.js';
import { ChunkedWriter } from './chunked-writer.js';
import type { BrokerServices } from './broker-services.js';
import type { RequestMetrics } from '../metrics/request-metrics.js';

/** Bytes of api_key + api_version + correlation_id at the start of every request header. */
const FIXED_HEADER_BYTES = 8;

export interface RequestDispatcherOptions {
  registry: ApiRegistry;
  broker: BrokerServices;
  logger: Logger;
  /** The clock of the traced durations (`monotonicMs`); default the system clock. */
  time?: Pick<Time, 'monotonicMs'>;
  /** The broker's fetch buffer pool, where encoded responses give small read buffers back; default the process's. */
  readBuffers?: ReadBuffers;
  /** Times each request's synchronous work (decode, handler, encode); a long one is logged as a stall. */
  watchdog?: EventLoopWatchdog;
  /** Counts requests, their total time and error answers per API (`/metrics`); none: not counted. */
  requestMetrics?: RequestMetrics;
}

export class RequestDispatcher {
  private readonly registry: ApiRegistry;
  private readonly broker: BrokerServices;
  private readonly logger: Logger;
  private readonly time: Pick<Time, 'monotonicMs'>;
  private readonly readBuffers: ReadBuffers;
  private readonly watchdog: EventLoopWatchdog | undefined;
  private readonly metrics: RequestMetrics | undefined;
  /** request.max.array.elements (unbounded when the broker's config does not say). */
  private readonly maxArrayElements: number;
  /** Api keys whose failed import was logged. */
  private readonly loadFailuresLogged = new Set<number>();

  constructor(options: RequestDispatcherOptions) {
    this.registry = options.registry;
    this.broker = options.broker;
    this.logger = options.logger;
    this.time = options.time ?? new SystemTime();
    this.readBuffers = options.readBuffers ?? fetchReadBuffers;
    this.watchdog = options.watchdog;
    this.metrics = options.requestMetrics;
    this.maxArrayElements = options.broker.config?.requestMaxArrayElements ?? Number.POSITIVE_INFINITY;
  }

  /** The SocketServer's RequestHandler. */
  readonly handle = (frame: Buffer, connection: ConnectionContext): ResponseBytes | null | Promise<ResponseBytes | null> => {
    // Nobody would read the answer: not handled at all (a request waiting for its handler's import).
    if (connection.closed) return null;
    const startedMs = this.time.monotonicMs();
    if (frame.length < FIXED_HEADER_BYTES) {
      this.refuse(connection, { peer: connection.peer }, `request header truncated (${frame.length} bytes)`);
      return null;
    }
    const apiKey = frame.readInt16BE(0);
    const apiVersion = frame.readInt16BE(2);
    const correlationId = frame.readInt32BE(4);
    const range = this.registry.range(apiKey);
    const api = range?.name ?? apiKeyName(apiKey) ?? `unknown(${apiKey})`;
    const baseFields = { peer: connection.peer, api, apiKey, apiVersion, correlationId };

    if (range === undefined) {
      this.refuse(connection, baseFields, `api key ${apiKey} is not supported`);
      return null;
    }
    if (apiVersion < range.minVersion || apiVersion > range.maxVersion) {
      if (apiKey === ApiKey.ApiVersions) {
        logRefusedRequest(this.logger, { ...baseFields, errorCode: ErrorCode.UNSUPPORTED_VERSION, error: 'UNSUPPORTED_VERSION' },
          `ApiVersions v${apiVersion} is not supported (${range.minVersion}-${range.maxVersion}); answering with the v0 body`);
        return this.apiVersionsFallback(correlationId, ErrorCode.UNSUPPORTED_VERSION);
      }
      this.refuse(connection, baseFields, `${api} v${apiVersion} is not supported (${range.minVersion}-${range.maxVersion})`);
      return null;
    }
    const definition = this.registry.get(apiKey);
    if (definition === undefined) {
      // The frame stays valid until the returned promise settles (RequestHandler contract).
      return this.registry.load(apiKey).then(
        () => this.handle(frame, connection),
        (error: unknown) => {
          this.logLoadFailure(apiKey, api, error);
          this.refuse(connection, baseFields, `the ${api} handler could not be loaded`);
          return null;
        },
      );
    }

    const reader = new Reader(frame, FIXED_HEADER_BYTES);
    reader.maxArrayElements = this.maxArrayElements;
    let clientId: string | null = null;
    if (requestHeaderVersion(apiKey, apiVersion) >= 1) clientId = reader.nullableString();
    if (requestHeaderVersion(apiKey, apiVersion) >= 2) reader.skipTaggedFields();
    if (reader.error !== null) {
      if (apiKey === ApiKey.ApiVersions) return this.apiVersionsFallback(correlationId, ErrorCode.INVALID_REQUEST);
      this.refuse(connection, baseFields, `request header malformed: ${reader.error}`);
      return null;
    }
    const fields = { ...baseFields, clientId };
    const context: ApiRequestContext = {
      apiKey, apiVersion, correlationId, clientId, peer: connection.peer, listenerName: connection.listenerName, broker: this.broker, logger: this.logger,
    };
    const watchdog = this.watchdog?.enabled === true ? this.watchdog : undefined;
    let syncStartMs = watchdog?.nowMs() ?? 0;
    const request: unknown = definition.decode(reader, apiVersion);
    const decoded = reader.error === null;
    const noteSyncWork = (): void => {
      if (watchdog === undefined) return;
      const endMs = watchdog.nowMs();
      const partitions = (): number => decoded && definition.workPartitionCount !== undefined
        ? definition.workPartitionCount(request, context)
        : requestPartitionCount(request);
      watchdog.noteWork(() => ({ api, apiKey, clientId, partitions: partitions() }), endMs - syncStartMs);
    };
    if (!decoded) return this.answerUndecodable(connection, definition, fields, reader, noteSyncWork);

    const finish = (response: unknown): ResponseBytes | null => {
      if (response === null || connection.closed) {
        // A connection closed while its handler ran gets nothing encoded (its answer would be dropped).
        this.answered(fields, startedMs, response === null);
        return null;
      }
      syncStartMs = watchdog?.nowMs() ?? 0;
      const bytes = this.encode(definition, apiVersion, correlationId, response);
      noteSyncWork();
      this.answered(fields, startedMs, true);
      return bytes;
    };
    const failed = (error: unknown): ResponseBytes | null => {
      this.logger.error({ event: 'request.failed', ...fields, err: error }, `${api} handler failed (bug)`);
      this.answered(fields, startedMs, false);
      return this.answerError(connection, definition, fields, ErrorCode.UNKNOWN_SERVER_ERROR, 'handler failed');
    };
    if (this.metrics !== undefined) this.metrics.inFlight++;
    let result: unknown;
    try {
      result = definition.handle(request, context);
    } catch (error) {
      return failed(error);
    } finally {
      noteSyncWork();
    }
    if (result instanceof Promise) return result.then(finish, failed);
    return finish(result);
  };

  /** A handled request is answered (or failed, untraced): its trace line and its metrics. */
  private answered(fields: RequestLogFields & { apiKey: number }, startedMs: number, traced: boolean): void {
    const durationMs = this.time.monotonicMs() - startedMs;
    if (traced) traceRequest(this.logger, { ...fields, durationMs });
    const metrics = this.metrics;
    if (metrics === undefined) return;
    metrics.inFlight--;
    metrics.recordRequest(fields.apiKey, durationMs);
  }

  /**
   * Imports every lazily registered handler not loaded yet (started right after start-up, so a
   * client rarely waits for one). Given `between`, one at a time, each after `between()` resolves
   * (the broker passes the next event-loop turn, so requests already read are answered between
   * two imports); else all at once. Resolves true when all loaded; a failed import is logged at
   * error (`api.handler_load_failed`) and resolves false, never rejects.
   */
  async loadHandlers(between?: () => Promise<void>): Promise<boolean> {
    const load = (apiKey: number): Promise<boolean> => this.registry.load(apiKey).then(
      () => true,
      (error: unknown) => {
        this.logLoadFailure(apiKey, this.registry.range(apiKey)?.name ?? String(apiKey), error);
        return false;
      },
    );
    if (between === undefined) return (await Promise.all(this.registry.unloaded().map(load))).every(Boolean);
    let all = true;
    for (const apiKey of this.registry.unloaded()) {
      await between();
      if (!await load(apiKey)) all = false;
    }
    return all;
  }

  private logLoadFailure(apiKey: number, api: string, error: unknown): void {
    if (this.loadFailuresLogged.has(apiKey)) return;
    this.loadFailuresLogged.add(apiKey);
    this.logger.error({ event: 'api.handler_load_failed', api, apiKey, err: error },
      `the ${api} handler could not be loaded (bug); its requests close their connections`);
  }

  private encode(definition: AnyApiDefinition, apiVersion: number, correlationId: number, response: unknown): ResponseBytes {
    if (response instanceof EncodedResponseBody) {
      const header = new Writer(16);
      encodeResponseHeader(header, definition.apiKey, apiVersion, correlationId);
      // A small first chunk (Metadata's throttle_time_ms) goes with the header: one write less.
      const [first, ...rest] = response.chunks;
      if (first === undefined || first.length > 64) return [header.toBuffer(), ...response.chunks];
      header.raw(first);
      return [header.toBuffer(), ...rest];
    }
    if (definition.zeroCopyBytes === true && !isFlexibleVersion(definition.apiKey, apiVersion)) {
      const chunked = new ChunkedWriter(256, this.readBuffers);
      encodeResponseHeader(chunked, definition.apiKey, apiVersion, correlationId);
      definition.encode(chunked, apiVersion, response);
      const chunks = chunked.finish();
      return chunks.length === 1 ? chunks[0]! : chunks;
    }
    const w = new Writer(256);
    encodeResponseHeader(w, definition.apiKey, apiVersion, correlationId);
    definition.encode(w, apiVersion, response);
    return w.toBuffer();
  }

  /**
   * A body that did not decode, or held more than request.max.array.elements array elements
   * (`reader.arrayElementsExceeded`): INVALID_REQUEST (42) as {@link answerError} gives it, after
   * `noteDecode()` timed the decode for the watchdog (a slow refusal is a stall like any other).
   */
  private answerUndecodable(connection: ConnectionContext, definition: AnyApiDefinition, fields: Parameters<RequestDispatcher['answerError']>[2],
    reader: Reader, noteDecode: () => void): ResponseBytes | null {
    noteDecode();
    const reason = reader.arrayElementsExceeded
      ? `refused by request.max.array.elements: ${reader.error ?? ''}`
      : `body does not decode: ${reader.error ?? ''}`;
    return this.answerError(connection, definition, fields, ErrorCode.INVALID_REQUEST, reason);
  }

  /** The API's error response when it has one, else a closed connection; logged either way. */
  private answerError(
    connection: ConnectionContext,
    definition: AnyApiDefinition,
    fields: { peer: string; api: string; apiKey: number; apiVersion: number; correlationId: number; clientId: string | null },
    errorCode: number,
    reason: string,
  ): ResponseBytes | null {
    this.metrics?.recordError(definition.apiKey, errorCode);
    if (definition.apiKey === ApiKey.ApiVersions) {
      logRefusedRequest(this.logger, { ...fields, errorCode, error: errorName(errorCode) ?? String(errorCode) }, reason);
      return this.apiVersionsFallback(fields.correlationId, errorCode);
    }
    const response: unknown = definition.errorResponse?.(fields.apiVersion, errorCode) ?? null;
    if (response === null) {
      this.refuse(connection, fields, `${reason}; ${definition.name} v${fields.apiVersion} has no top-level error to answer with`);
      return null;
    }
    logRefusedRequest(this.logger, { ...fields, errorCode, error: errorName(errorCode) ?? String(errorCode) }, reason);
    return this.encode(definition, fields.apiVersion, fields.correlationId, response);
  }

  /**
   * An ApiVersions v0 response (header v0, body: error code + every range we handle), used for
   * versions we do not know and for requests we cannot read (KIP-511; librdkafka retries v0 on
   * INVALID_REQUEST, the others on UNSUPPORTED_VERSION).
   */
  private apiVersionsFallback(correlationId: number, errorCode: number): Buffer {
    const w = new Writer(512);
    encodeResponseHeader(w, ApiKey.ApiVersions, 0, correlationId);
    encodeApiVersionsResponse(w, 0, { errorCode, apiKeys: this.registry.apiVersions() });
    return w.toBuffer();
  }

  /** Logs a refused request and closes its connection (Kafka's answer when no response is defined). */
  private refuse(connection: ConnectionContext, fields: { peer: string; api?: string }, reason: string): void {
    logRefusedRequest(this.logger, fields, `${reason}; closing the connection`);
    connection.close(reason);
  }
}
