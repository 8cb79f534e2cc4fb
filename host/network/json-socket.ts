/**
 * The seam between the gateway's `/json` WebSocket route and a JSON session: the gateway owns the
 * uWebSockets.js socket and hands the session this narrow view of it (text out, buffered amount,
 * close), and calls the session's handlers for what arrives. Keeping uWS out of the session lets
 * tests drive a session without a network.
 */

/** The socket as a `/json` session sees it. */
export interface JsonSocket {
  /** Gateway-unique connection id. */
  readonly id: number;
  /** Remote address for logs, e.g. `127.0.0.1/ws#3`. */
  readonly peer: string;
  /** True once closed (by either side); sends are then dropped. */
  readonly closed: boolean;
  /** Bytes handed to the socket but not yet taken by the kernel (uWS getBufferedAmount). */
  readonly bufferedAmount: number;
  /** Sends one text message (a JSON document). Dropped when closed. */
  send(text: string): void;
  /** Sends a close frame with `code` and `reason`, then closes. */
  end(code: number, reason: string): void;
}

/** What the gateway calls on a session. */
export interface JsonSessionHandlers {
  /** One text message, already copied out of uWS memory and decoded as UTF-8. */
  onMessage(text: string): void;
  /** The socket's buffered amount went down: push more if the session was holding back. */
  onDrain(): void;
  /** The socket closed, for any reason; release everything (leave groups, close clients). */
  onClose(): void;
  /** True while the session has work outstanding (requests in flight, an active subscription): not idle. */
  isBusy(): boolean;
  /** Graceful stop: finish or fail outstanding requests, leave groups; resolves when done. */
  stop(): Promise<void>;
}

/** Makes the session for a newly opened `/json` socket. */
export type JsonSessionFactory = (socket: JsonSocket) => JsonSessionHandlers;
