/**
 * Types shared by the SocketServer and the request handlers that plug into it.
 */

/** What a request handler learns about the connection a frame arrived on. */
export interface ConnectionContext {
  /** Server-unique connection id, increasing from 1 in accept order. */
  readonly id: number;
  /** Remote address as `host:port` (IPv6 hosts in brackets: `[::1]:51234`). */
  readonly peer: string;
  /** Kafka listener name of the accepting listener, e.g. `PLAINTEXT`. */
  readonly listenerName: string;
  /** True once the connection is closed; a late response is then dropped. */
  readonly closed: boolean;
  /**
   * Closes this connection at once (unsent responses are dropped), logging `reason` with the
   * peer. For input Kafka answers by disconnecting, e.g. a request header that cannot be parsed.
   */
  close(reason: string): void;
}

/**
 * A response: header + body WITHOUT the 4-byte size prefix (the server writes the prefix, then
 * the bytes, corked into one writev). An array is written back to back as one frame, which lets
 * a Fetch response hand out record blobs read from the log without concatenating them.
 * `null` = send nothing for this request (Produce with acks=0); later responses still go out in
 * request order.
 */
export type ResponseBytes = Buffer | readonly Buffer[];

/**
 * Called once per request frame, in arrival order per connection. `frame` is header + body
 * without the size prefix; it may be a view into a socket chunk (never reused by Node), so it is
 * safe to keep, except over TCP for Produce (api key 0) frames that spanned socket chunks: those
 * lie in the core's frame ring (WebAssembly memory), which reuses them once the handler's result
 * settles, so nothing may keep a view of them past that (tcp-connection.ts ARENA_API_KEYS). Handlers may complete out of order; responses are written in request order.
 * A thrown exception or rejected promise is a bug: the server logs it with the peer and closes
 * that connection only.
 */
export type RequestHandler = (
  frame: Buffer,
  connection: ConnectionContext,
) => ResponseBytes | null | Promise<ResponseBytes | null>;

/** Structured logger, pino-compatible (`logger.warn({ peer }, 'message')`). */
export interface NetworkLogger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
