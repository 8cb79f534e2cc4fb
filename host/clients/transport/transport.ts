/**
 * The seam between the client library and the network. A transport carries Kafka *frames*:
 * one request or response = request/response header + body, WITHOUT the int32 size prefix.
 * The TCP transport adds and strips the prefix (Kafka's framing on a byte stream); a WebSocket
 * transport (the gateway's `/kafka` endpoint) sends one frame per binary message as is.
 *
 * This file and everything above it in host/clients/ use no Node built-ins, so the library
 * runs in browsers with a WebSocket transport; only tcp-transport.ts imports node:net.
 *
 * Contract:
 * - `connect()` resolves once frames can be sent, rejects (ConnectionError) if the peer cannot be
 *   reached within `connectTimeoutMs`.
 * - `send(frame)` queues one whole frame; frames are delivered in order. Returns false when the
 *   transport's buffer is above its high-water mark (a hint to slow down), true otherwise.
 * - Received frames are handed to the `onFrame` handler in arrival order, each exactly once.
 *   A frame may be a view into a buffer that the transport never reuses, so it can be kept.
 * - `onClose` is called exactly once when the transport closes for any reason (peer closed,
 *   error, `close()`), with the error when it was not a requested close.
 */

/** Where a broker listens. */
export interface BrokerAddress {
  host: string;
  port: number;
}

/** Handlers a transport calls; set before `connect()`. */
export interface TransportHandlers {
  onFrame(frame: Uint8Array): void;
  onClose(error?: Error): void;
}

export interface Transport {
  /** Opens the connection. @throws ConnectionError (connect refused, DNS, timeout) */
  connect(handlers: TransportHandlers): Promise<void>;
  /** Queues one frame (header + body, no size prefix). False = above the high-water mark. */
  send(frame: Uint8Array): boolean;
  /** Bytes queued but not yet handed to the network (0 when unknown). */
  readonly bufferedBytes: number;
  /** Closes the connection; resolves when closed. Idempotent. */
  close(): Promise<void>;
}

export interface TransportOptions {
  /** Give up connecting after this long, ms. */
  connectTimeoutMs: number;
  /** Largest response frame accepted, bytes; a bigger size prefix closes the connection (ConnectionError). */
  maxFrameBytes: number;
}

/** Makes an unconnected transport to one broker. */
export type TransportFactory = (address: BrokerAddress, options: TransportOptions) => Transport;

/** Parses `host:port` (IPv6 hosts in brackets: `[::1]:9092`). @throws RangeError for malformed input */
export function parseBrokerAddress(text: string): BrokerAddress {
  const match = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(text.trim());
  if (match === null) throw new RangeError(`"${text}" is not host:port (e.g. 127.0.0.1:9092)`);
  const port = Number(match[3]);
  if (port < 1 || port > 65535) throw new RangeError(`"${text}": port ${port} is outside 1-65535`);
  return { host: (match[1] ?? match[2])!, port };
}

/** `host:port`, brackets around IPv6 hosts. */
export function formatBrokerAddress(address: BrokerAddress): string {
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}
