/**
 * The shape of one API handler (franz-go style: one file per API key, each registering the
 * versions it handles). A definition pairs the generated codecs of an API with the broker logic
 * that turns a decoded request into a response; the {@link ApiRegistry} collects them and the
 * ApiVersions answer is built from what is registered, so nothing is advertised that has no
 * handler.
 */
import type { Logger } from '../observability/logger.js';
import type { Reader } from '../protocol/reader.js';
import type { Writer } from '../protocol/writer.js';
import type { BrokerServices } from './broker-services.js';

/** What a handler learns about the request it answers. */
export interface ApiRequestContext {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  /** The request header's client id; null when the client sent a null string. */
  readonly clientId: string | null;
  /** Remote address `host:port`. */
  readonly peer: string;
  /** Kafka listener name the request arrived on (Metadata answers with that listener's endpoints). */
  readonly listenerName: string;
  /** Broker-wide services: config, metadata, replica manager, coordinator, logs. */
  readonly broker: BrokerServices;
  /** The `api` component logger. */
  readonly logger: Logger;
}

/**
 * A response body a handler has already encoded for the request's version (the Metadata answers
 * reused from metadata-response-cache.ts): the dispatcher puts the response header in front and
 * sends `chunks` as they are, back to back, without copying them. Chunks may be shared by many
 * responses, so nothing writes to them.
 */
export class EncodedResponseBody {
  constructor(readonly chunks: readonly Buffer[]) {}
}

/**
 * One API key as the broker serves it.
 * @typeParam Request the generated decoded request type
 * @typeParam Response the generated response Init type (what the encoder takes)
 */
export interface ApiDefinition<Request = unknown, Response = unknown> {
  readonly apiKey: number;
  /** Kafka's name (`Produce`), for logs. */
  readonly name: string;
  /** Lowest version handled and advertised (0 for every Level A API: librdkafka 2.0.2 probes old versions). */
  readonly minVersion: number;
  /** Highest version handled and advertised. */
  readonly maxVersion: number;
  /** The generated decoder; never throws, sets `r.error` on malformed input. */
  decode(r: Reader, version: number): Request;
  /** The generated encoder. */
  encode(w: Writer, version: number, response: Response): void;
  /**
   * Large NULLABLE_BYTES fields of the response (Fetch's record blobs) go to the socket by
   * reference, without a copy (chunked-writer.ts). Only for non-flexible response layouts.
   */
  readonly zeroCopyBytes?: boolean;
  /**
   * Answers a decoded request. `null` = send no response (Produce with acks=0). Protocol errors
   * are values inside the response; a throw is a bug (the dispatcher logs it and answers with
   * {@link errorResponse} when there is one, else closes the connection). An
   * {@link EncodedResponseBody} is sent as it is.
   */
  handle(request: Request, context: ApiRequestContext): Response | EncodedResponseBody | null | Promise<Response | EncodedResponseBody | null>;
  /**
   * Partitions the work of a decoded request covers, for the event-loop watchdog's stall line
   * (called only when a line is written). Absent: the partitions the request names
   * (requestPartitionCount); Metadata answers with partitions it does not name (all topics).
   */
  workPartitionCount?(request: Request, context: ApiRequestContext): number;
  /**
   * A response carrying `errorCode` for a request whose body could not be decoded, or that failed
   * with a bug (Kafka's AbstractRequest.getErrorResponse for requests without per-item data).
   * Absent, or null for a version, when the response has no top-level error field there: the
   * connection is closed instead.
   */
  errorResponse?(version: number, errorCode: number): Response | null;
}

/** Identity helper that keeps the request/response types of a definition checked. */
export function defineApi<Request, Response>(definition: ApiDefinition<Request, Response>): ApiDefinition<Request, Response> {
  return definition;
}

/** `ApiDefinition` with its type parameters erased, for the registry. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyApiDefinition = ApiDefinition<any, any>;
