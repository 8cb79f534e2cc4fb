/**
 * The WebSocket transport: Kafka frames over the gateway's `/kafka` endpoint
 * (host/network/websocket-gateway.ts). One binary WebSocket message carries exactly one frame
 * (request or response header + body) WITHOUT Kafka's int32 size prefix: WebSocket messages are
 * already delimited, so the prefix would only repeat the message length.
 *
 * Runs wherever a WHATWG-shaped WebSocket exists: browsers (the global `WebSocket`) and Node with
 * the `ws` package (websocket-node-transport.ts passes its constructor). This file imports no
 * Node built-in, so the browser bundle can include it.
 *
 * Addressing: the client learns brokers from Metadata as `host:port` of the listener the request
 * came in on, and the gateway answers Metadata with the TCP listener's endpoints. So the factory
 * maps every broker address to a gateway URL: a fixed `url` sends every broker connection through
 * one gateway (a single broker, or a proxy in front of several), a function maps each broker to
 * its own gateway, and without either the address itself is used (`ws://host:port/kafka`).
 *
 * Close codes the gateway uses are reported in the ConnectionError message (1009 message too
 * big, 1008 refused request, 1003 text message, 1001 broker stopping), with the gateway's reason.
 */
import { ConnectionError } from '../errors.js';
import { formatBrokerAddress, parseBrokerAddress, type BrokerAddress, type Transport, type TransportFactory, type TransportHandlers, type TransportOptions } from './transport.js';

/** `send` returns false once this many bytes wait in the WebSocket's buffer (matches TCP). */
export const WEBSOCKET_HIGH_WATER_MARK_BYTES = 1024 * 1024;
/** How long `close()` waits for the closing handshake before dropping the socket, ms. */
export const WEBSOCKET_CLOSE_TIMEOUT_MS = 1000;
/** The gateway's route for Kafka frames. */
export const KAFKA_WEBSOCKET_PATH = '/kafka';

/** The parts of a WebSocket instance this transport uses (the browser's and `ws`'s agree on them). */
export interface WebSocketLike {
  binaryType: string;
  readonly bufferedAmount: number;
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onclose: ((event: { code: number; reason: string; wasClean?: boolean }) => void) | null;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
}

/**
 * Opens a WebSocket to `url`. `maxPayloadBytes` is the largest message to accept (an
 * implementation that cannot enforce it may ignore it: the transport checks every message too).
 */
export type WebSocketOpener = (url: string, maxPayloadBytes: number) => WebSocketLike;

export interface WebSocketTransportOptions {
  /**
   * Where each broker is reached: a fixed gateway URL for every broker (e.g.
   * `ws://127.0.0.1:8080/kafka`), or a function of the broker address from bootstrap servers or
   * Metadata. Default: `ws://<host>:<port>/kafka` of the address itself (`wss:` when
   * `secure`).
   */
  url?: string | ((address: BrokerAddress) => string);
  /** Use `wss:` for the default URL. Default: true on an https: page, else false. */
  secure?: boolean;
  /** Makes the WebSocket; default the global `WebSocket` (browsers, Deno, Node >= 22). */
  open?: WebSocketOpener;
}

const WS_OPEN = 1;

/** A readable name for the close codes the gateway sends (RFC 6455 section 7.4.1). */
function closeCodeName(code: number): string {
  switch (code) {
    case 1000: return 'normal closure';
    case 1001: return 'going away (broker stopping)';
    case 1003: return 'unsupported data';
    case 1006: return 'abnormal closure (no close frame)';
    case 1008: return 'policy violation (request refused)';
    case 1009: return 'message too big';
    case 1011: return 'internal error';
    default: return 'closed';
  }
}

/** The global WebSocket, or a clear error where there is none (Node 20 without `ws`). */
function globalOpener(url: string): WebSocketLike {
  const Constructor = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
  if (typeof Constructor !== 'function') {
    throw new ConnectionError('no global WebSocket here: on Node use nodeWebSocketTransportFactory() (the ws package)');
  }
  return new Constructor(url);
}

function isSecurePage(): boolean {
  const location = (globalThis as { location?: { protocol?: string } }).location;
  return location?.protocol === 'https:';
}

/** The URL of broker `address` under `options` (see WebSocketTransportOptions.url). */
export function webSocketUrlFor(address: BrokerAddress, options: WebSocketTransportOptions = {}): string {
  const { url } = options;
  if (typeof url === 'string') return url;
  if (typeof url === 'function') return url(address);
  const scheme = (options.secure ?? isSecurePage()) ? 'wss' : 'ws';
  return `${scheme}://${formatBrokerAddress(address)}${KAFKA_WEBSOCKET_PATH}`;
}

/** One WebSocket to one gateway; see the file header. */
export class WebSocketTransport implements Transport {
  private socket: WebSocketLike | null = null;
  private handlers: TransportHandlers | null = null;
  private closeRequested = false;
  private closedPromise: Promise<void> | null = null;
  private resolveClosed: (() => void) | null = null;
  private rejectConnect: ((error: Error) => void) | null = null;
  /** Detail of the last error event, where the implementation gives one (ws does, browsers do not). */
  private lastErrorText: string | null = null;
  /** Why this side ended the connection (bad frame, timeout); reported instead of the close code. */
  private pendingError: ConnectionError | null = null;

  /**
   * @param url the gateway's `/kafka` URL (ws: or wss:)
   * @param peer the broker address, for messages
   */
  constructor(
    readonly url: string,
    private readonly peer: string,
    private readonly options: TransportOptions,
    private readonly opener: WebSocketOpener = globalOpener,
  ) {}

  get bufferedBytes(): number {
    return this.socket?.bufferedAmount ?? 0;
  }

  connect(handlers: TransportHandlers): Promise<void> {
    if (this.socket !== null) throw new Error('WebSocketTransport.connect called twice');
    this.handlers = handlers;
    this.closedPromise = new Promise((resolve) => { this.resolveClosed = resolve; });
    return new Promise((resolve, reject) => {
      let socket: WebSocketLike;
      try {
        socket = this.opener(this.url, this.options.maxFrameBytes);
      } catch (error) {
        // A malformed URL or a missing WebSocket implementation: nothing was opened.
        const wrapped = error instanceof ConnectionError ? error : new ConnectionError(`cannot open ${this.url}: ${(error as Error).message}`, { cause: error });
        this.handlers = null;
        this.resolveClosed?.();
        reject(wrapped);
        return;
      }
      this.socket = socket;
      // Blobs would make every frame asynchronous; ws's own Buffers (nodebuffer) are kept as they are.
      if (socket.binaryType !== 'nodebuffer') socket.binaryType = 'arraybuffer';
      this.rejectConnect = reject;
      let opened = false;
      const timer = setTimeout(() => {
        this.fail(new ConnectionError(`connecting to ${this.url} (broker ${this.peer}) timed out after ${this.options.connectTimeoutMs} ms`));
      }, this.options.connectTimeoutMs);
      // Browsers give error events no detail; the close event that always follows carries the code.
      let sawError = false;
      socket.onopen = () => {
        opened = true;
        this.rejectConnect = null;
        clearTimeout(timer);
        resolve();
      };
      socket.onmessage = (event) => this.onMessage(event.data);
      socket.onerror = (event) => {
        sawError = true;
        const message = (event as { message?: unknown }).message;
        if (typeof message === 'string' && message !== '') this.lastErrorText = message;
      };
      socket.onclose = (event) => {
        clearTimeout(timer);
        const detail = `${event.code} ${closeCodeName(event.code)}${event.reason === '' ? '' : `: ${event.reason}`}`;
        let message: string;
        if (!opened) message = `cannot connect to ${this.url} (broker ${this.peer}): ${this.lastErrorText ?? (sawError ? 'connection failed' : detail)}`;
        else if (this.lastErrorText !== null) message = `connection to ${this.url} (broker ${this.peer}) failed: ${this.lastErrorText} (${detail})`;
        else message = `connection to ${this.url} (broker ${this.peer}) closed by the gateway (${detail})`;
        const error = this.pendingError ?? new ConnectionError(message);
        if (!opened) {
          this.rejectConnect = null;
          reject(error);
        }
        this.finish(this.closeRequested && this.pendingError === null ? undefined : error);
      };
    });
  }

  send(frame: Uint8Array): boolean {
    const socket = this.socket;
    if (socket === null || this.handlers === null || this.closeRequested || socket.readyState !== WS_OPEN) return false;
    // Browsers copy the bytes synchronously; ws copies while masking (client frames are always
    // masked), so the caller may reuse `frame` afterwards.
    socket.send(frame);
    return socket.bufferedAmount < WEBSOCKET_HIGH_WATER_MARK_BYTES;
  }

  close(): Promise<void> {
    const socket = this.socket;
    if (socket === null || this.handlers === null) {
      this.finish(undefined);
      return this.closedPromise ?? Promise.resolve();
    }
    if (!this.closeRequested) {
      this.closeRequested = true;
      try {
        socket.close(1000, 'client closing');
      } catch {
        // Already closing: the close event still arrives.
      }
      // A gateway that never answers the closing handshake must not hold close() forever.
      const timer = setTimeout(() => this.finish(undefined), WEBSOCKET_CLOSE_TIMEOUT_MS);
      (timer as { unref?: () => void }).unref?.();
    }
    return this.closedPromise ?? Promise.resolve();
  }

  /** Ends the connection from this side because of `error` (reported through onClose). */
  private fail(error: ConnectionError): void {
    if (this.pendingError !== null || this.handlers === null) return;
    this.pendingError = error;
    try {
      this.socket?.close(1000, 'client closing');
    } catch {
      // Still connecting in some implementations: the close event follows anyway.
    }
    // Implementations that never deliver a close event for a socket that was not open yet.
    const timer = setTimeout(() => this.finish(error), WEBSOCKET_CLOSE_TIMEOUT_MS);
    (timer as { unref?: () => void }).unref?.();
  }

  private finish(error: Error | undefined): void {
    const handlers = this.handlers;
    this.resolveClosed?.();
    if (handlers === null) return;
    this.handlers = null;
    this.closeRequested = true;
    // A connect that never saw its close event (see fail) still settles.
    this.rejectConnect?.(error ?? new ConnectionError(`connection to ${this.url} (broker ${this.peer}) closed while connecting`));
    this.rejectConnect = null;
    const socket = this.socket;
    if (socket !== null) {
      socket.onmessage = null;
      socket.onopen = null;
    }
    handlers.onClose(error);
  }

  private onMessage(data: unknown): void {
    const handlers = this.handlers;
    if (handlers === null || this.pendingError !== null) return;
    let frame: Uint8Array;
    if (data instanceof ArrayBuffer) {
      frame = new Uint8Array(data);
    } else if (data instanceof Uint8Array) {
      frame = data;
    } else {
      this.fail(new ConnectionError(`gateway ${this.url} sent a text message on ${KAFKA_WEBSOCKET_PATH} (only binary frames are valid)`));
      return;
    }
    if (frame.length > this.options.maxFrameBytes) {
      this.fail(new ConnectionError(`gateway ${this.url} sent a frame of ${frame.length} bytes (limit ${this.options.maxFrameBytes})`));
      return;
    }
    handlers.onFrame(frame);
  }
}

/**
 * A TransportFactory over WebSockets (see WebSocketTransportOptions for addressing).
 * ```ts
 * const producer = new Producer({
 *   bootstrapServers: ['127.0.0.1:8080'],
 *   transportFactory: webSocketTransportFactory({ url: 'ws://127.0.0.1:8080/kafka' }),
 * });
 * ```
 */
export function webSocketTransportFactory(options: WebSocketTransportOptions = {}): TransportFactory {
  return (address: BrokerAddress, transportOptions: TransportOptions): Transport =>
    new WebSocketTransport(webSocketUrlFor(address, options), formatBrokerAddress(address), transportOptions, options.open ?? globalOpener);
}

/** Client options that route every broker connection through one gateway. */
export interface GatewayClientOptions {
  /** The gateway's `host:port` (the client's bootstrap server; Metadata supplies the rest). */
  bootstrapServers: string[];
  transportFactory: TransportFactory;
}

/**
 * Options for a Producer/Consumer/Admin that reaches the cluster through the gateway at `url`
 * (`ws://host:port/kafka` or `wss://...`): spread them into the client's options.
 * @throws RangeError when `url` is not a ws: or wss: URL with a host
 */
export function viaWebSocketGateway(url: string, options: Omit<WebSocketTransportOptions, 'url'> = {}): GatewayClientOptions {
  return { bootstrapServers: [gatewayHostPort(url)], transportFactory: webSocketTransportFactory({ ...options, url }) };
}

/** `host:port` of a ws:/wss: URL (default ports 80/443), validated like a bootstrap server. */
export function gatewayHostPort(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RangeError(`"${url}" is not a URL (e.g. ws://127.0.0.1:8080/kafka)`);
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') throw new RangeError(`"${url}" is not a ws: or wss: URL`);
  const port = parsed.port === '' ? (parsed.protocol === 'wss:' ? 443 : 80) : Number(parsed.port);
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  return formatBrokerAddress(parseBrokerAddress(formatBrokerAddress({ host, port })));
}
