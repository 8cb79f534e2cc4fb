/**
 * The WebSocket transport of a Kafka connection on the gateway's `/kafka` route (KafkaConnection,
 * kafka-connection.ts, holds the request pipeline and its states, shared with TCP): each binary
 * message is one Kafka request frame (request header + body, no size prefix), answered by one
 * binary message holding the response frame (response header + body, no size prefix), in
 * request order, through the same RequestHandler as the TCP SocketServer.
 *
 * States: open → stopping (graceful gateway stop: nothing new is dispatched; the socket ends with
 * 1001 once every dispatched request is answered) → closed; open → closed directly on a bad
 * message, a limit, idle timeout, a handler bug or the peer's close. `closed` is terminal, and
 * after it the uWebSockets.js object is never touched again (uWS throws on a closed socket).
 *
 * Memory (every queue bounded, TigerBeetle style). uWebSockets.js cannot pause reading a
 * WebSocket, so where the TCP server stops reading we stop *dispatching* and hold the copied
 * messages ourselves:
 * - dispatch stops while `maxInFlightRequests` requests are unanswered, or while held responses
 *   plus uWS's buffered amount (`getBufferedAmount()`, bytes the kernel has not taken) exceed
 *   `maxPendingResponseBytes`; responses are not handed to uWS while its buffered amount is over
 *   that bound either. Both resume on uWS's `drain` event.
 * - everything the connection holds (received-but-undispatched messages + held responses +
 *   uWS's buffered amount) is capped by `maxBufferedBytes`: a client that keeps sending but never
 *   reads crosses it and is cut off at once; a client whose output stays blocked with no drain
 *   for `connectionsMaxIdleMs` is cut off too (see `checkTimers`).
 * - the broker's `queued.max.response.bytes` (response-memory-pool.ts) does not count these
 *   sockets: muted by it in a trial, a socket whose peer then read kept its last 68 KB in uWS's
 *   buffer with no drain event, and stalled; each socket has the bounds above instead, and all
 *   the gateway's sockets together websocket.max.total.buffered.bytes (websocket-memory-budget.ts:
 *   past it the socket holding the most is cut off; this socket reports after every pump and
 *   timer check).
 *
 * Copying: uWS hands messages as ArrayBuffers over native memory that are neutered when the
 * callback returns (ARCHITECTURE.md), so every message is copied before anything else
 * (message-frames.ts).
 *
 * Close causes on the wire: the broker's refusal 1008 with its reason, a handler bug 1011, a
 * connection over maxBufferedBytes is cut off without a close frame (it would queue behind what
 * the peer ignores).
 */
import type { WebSocket } from 'uWebSockets.js';
import { KafkaConnection, type CloseCause, type ConnectionLimits, type ConnectionTransport } from './kafka-connection.js';
import { MessageFrames } from './message-frames.js';
import type { BufferedMemoryHolder, WebSocketMemoryBudget } from './websocket-memory-budget.js';
import type { NetworkLogger, RequestHandler, ResponseBytes } from './network-types.js';

/** WebSocket close codes used by the gateway (RFC 6455 section 7.4.1). */
export const WebSocketCloseCode = {
  NormalClosure: 1000,
  /** The broker is stopping, or the connection was idle. */
  GoingAway: 1001,
  /** A text message on `/kafka`, a binary message on `/json`. */
  UnsupportedData: 1003,
  /** Reported by uWS when the TCP connection ended without a close frame (we never send it). */
  Abnormal: 1006,
  /** A request the broker refuses (unreadable header, unknown api), or a backpressure limit. */
  PolicyViolation: 1008,
  /** A message above socket.request.max.bytes. */
  MessageTooBig: 1009,
  /** A handler bug. */
  InternalError: 1011,
} as const;

/** RFC 6455 5.5: control frame payloads are at most 125 bytes, 2 of which are the code. */
const MAX_CLOSE_REASON_BYTES = 123;

/** Per-connection limits (bytes and ms; see WebSocketGatewayOptions for the Kafka names); the hard bound is required. */
export type WebSocketConnectionLimits = ConnectionLimits & { maxBufferedBytes: number };

/** The part of a uWS WebSocket a connection uses (uWS's own type is generic over user data). */
export type UwsSocket = Pick<
  WebSocket<unknown>,
  'send' | 'sendFirstFragment' | 'sendFragment' | 'sendLastFragment' | 'getBufferedAmount' | 'end' | 'close' | 'cork'
>;

/** One `/kafka` WebSocket: the uWS side of a KafkaConnection (see the file header). */
export class WebSocketKafkaConnection implements ConnectionTransport, BufferedMemoryHolder {
  /** The connection's state machine; the context its handler calls receive. */
  readonly connection: KafkaConnection;
  private ws: UwsSocket | null;
  private readonly frames: MessageFrames;
  private lastActivityMs: number;
  /** When uWS's buffered amount last crossed maxPendingResponseBytes with nothing drained since, or -1. */
  private outputBlockedSinceMs = -1;

  constructor(
    id: number,
    peer: string,
    listenerName: string,
    ws: UwsSocket,
    handler: RequestHandler,
    private readonly limits: WebSocketConnectionLimits,
    private readonly logger: NetworkLogger,
    private readonly nowMs: () => number,
    onClosed: (connection: WebSocketKafkaConnection) => void,
    /** websocket.max.total.buffered.bytes across the gateway's sockets; absent: this socket's own bounds only. */
    private readonly memory?: WebSocketMemoryBudget,
  ) {
    this.ws = ws;
    this.lastActivityMs = nowMs();
    this.frames = new MessageFrames(limits.socketRequestMaxBytes);
    this.connection = new KafkaConnection({
      id,
      peer,
      listenerName,
      handler,
      source: this.frames,
      transport: this,
      limits,
      logger,
      onHeldBytes: memory === undefined ? undefined : (heldBytes) => memory.update(this, heldBytes),
      onClosed: () => {
        this.ws = null;
        memory?.remove(this);
        onClosed(this);
      },
    });
  }

  /** Gateway-unique connection id. */
  get id(): number {
    return this.connection.id;
  }

  /** Remote address for logs, e.g. `127.0.0.1/ws#3`. */
  get peer(): string {
    return this.connection.peer;
  }

  /** True once closed; the uWS object is then never touched again. */
  get closed(): boolean {
    return this.connection.closed;
  }

  /** Requests dispatched whose response is not yet handed to uWS. */
  get inFlightRequests(): number {
    return this.connection.inFlightRequests;
  }

  /** Bytes uWS holds for the kernel. */
  get bufferedBytes(): number {
    return this.unsentBytes();
  }

  /** Bytes this connection holds: undispatched messages, held responses, uWS's buffered amount. */
  get heldBytes(): number {
    return this.connection.heldBytes;
  }

  /** Sends a close frame with `code` and `reason` (truncated to 123 bytes), logs, and closes. */
  end(code: number, reason: string, level: 'info' | 'warn' = 'warn'): void {
    if (this.closed) return;
    const ws = this.ws;
    this.logClose(level, code, reason);
    this.connection.transportClosed();
    ws?.end(code, truncateUtf8(reason, MAX_CLOSE_REASON_BYTES));
  }

  /**
   * Closes the TCP connection without a close frame: for a peer that is not reading, a close
   * frame would only queue behind the data it already ignores.
   */
  terminate(reason: string): void {
    if (this.closed) return;
    const ws = this.ws;
    this.logClose('warn', WebSocketCloseCode.Abnormal, reason);
    this.connection.transportClosed();
    ws?.close();
  }

  /** uWS `close` event: the peer closed, or uWS did (protocol error, oversize, liveness timeout). */
  onSocketClosed(code: number, message: string): void {
    if (this.closed) return;
    const reason = message === '' ? `peer closed (${code})` : message;
    const level = code === WebSocketCloseCode.NormalClosure || code === WebSocketCloseCode.GoingAway || code === 1005 ? 'debug' : 'warn';
    this.logClose(level, code, reason);
    this.ws = null;
    this.connection.transportClosed();
  }

  /** uWS `message` event. The ArrayBuffer dies when this returns: it is copied first. */
  onMessage(message: ArrayBuffer, isBinary: boolean): void {
    if (this.closed) return;
    this.lastActivityMs = this.nowMs();
    if (!isBinary) {
      this.end(WebSocketCloseCode.UnsupportedData, '/kafka takes binary messages holding one Kafka request frame each');
      return;
    }
    const refusal = this.frames.refusal(message.byteLength);
    if (refusal !== null) {
      this.end(WebSocketCloseCode.MessageTooBig, refusal);
      return;
    }
    if (!this.connection.accepting) return;
    this.frames.push(message);
    this.connection.inputArrived();
  }

  /** uWS `drain` event: some buffered output reached the kernel. */
  onDrain(): void {
    if (this.closed) return;
    if (this.unsentBytes() <= this.limits.maxPendingResponseBytes) this.outputBlockedSinceMs = -1;
    else this.outputBlockedSinceMs = this.nowMs();
    this.connection.outputDrained();
  }

  /** Graceful stop: dispatch nothing new; end with 1001 once every dispatched request is answered. */
  beginStop(): void {
    this.connection.beginStop();
  }

  /**
   * Called periodically by the gateway: closes the connection when idle for connectionsMaxIdleMs
   * (no message in or out, nothing in flight: Kafka's connections.max.idle.ms), or when its output
   * has been blocked that long without draining (a peer that stopped reading).
   */
  checkTimers(nowMs: number): void {
    if (this.closed) return;
    // uWS's buffered amount falls without an event when the kernel takes bytes: refresh the total's figure.
    this.memory?.update(this, this.heldBytes);
    if (this.limits.connectionsMaxIdleMs <= 0) return;
    const idleMs = this.limits.connectionsMaxIdleMs;
    if (this.outputBlockedSinceMs >= 0 && nowMs - this.outputBlockedSinceMs >= idleMs) {
      this.terminate(`peer read nothing for ${nowMs - this.outputBlockedSinceMs} ms with ${this.unsentBytes()} response bytes buffered`);
      return;
    }
    if (this.connection.inFlightRequests === 0 && this.frames.count === 0 && nowMs - this.lastActivityMs >= idleMs) {
      this.end(WebSocketCloseCode.GoingAway, `idle for ${nowMs - this.lastActivityMs} ms (connections.max.idle.ms ${idleMs})`, 'info');
    }
  }

  /** ConnectionTransport: bytes uWS holds for the kernel (getBufferedAmount). */
  unsentBytes(): number {
    return this.ws === null || this.closed ? 0 : this.ws.getBufferedAmount();
  }

  /** ConnectionTransport: responses wait while uWS buffers more than maxPendingResponseBytes (the peer reads slowly). */
  canWrite(): boolean {
    if (this.unsentBytes() <= this.limits.maxPendingResponseBytes) return true;
    if (this.outputBlockedSinceMs < 0) this.outputBlockedSinceMs = this.nowMs();
    return false;
  }

  /** ConnectionTransport: the completed responses uWS may take, corked; notes activity and blocked output. */
  writeResponses(flush: () => number): void {
    const ws = this.ws;
    if (ws === null) return;
    let sent = 0;
    ws.cork(() => {
      sent = flush();
    });
    if (sent > 0) this.lastActivityMs = this.nowMs();
    if (this.outputBlockedSinceMs < 0 && !this.closed && ws.getBufferedAmount() > this.limits.maxPendingResponseBytes) {
      this.outputBlockedSinceMs = this.nowMs();
    }
  }

  /** ConnectionTransport: one binary message; a Buffer[] goes out as fragments of one message, without concatenating. */
  write(response: ResponseBytes): void {
    const ws = this.ws;
    if (ws === null) return;
    if (Buffer.isBuffer(response)) {
      ws.send(response, true, false);
      return;
    }
    const parts = (response as readonly Buffer[]).filter((part) => part.length > 0);
    if (parts.length <= 1) {
      ws.send(parts[0] ?? Buffer.alloc(0), true, false);
      return;
    }
    ws.sendFirstFragment(parts[0]!, true, false);
    for (let i = 1; i < parts.length - 1; i++) ws.sendFragment(parts[i]!, false);
    ws.sendLastFragment(parts[parts.length - 1]!, false);
  }

  /** ConnectionTransport: uWS cannot stop reading a WebSocket; frames wait in MessageFrames (bounded by maxBufferedBytes). */
  pauseInput(): void {}

  /** ConnectionTransport: see pauseInput. */
  resumeInput(): void {}

  /** ConnectionTransport: a graceful stop ends with 1001. */
  finish(): void {
    this.end(WebSocketCloseCode.GoingAway, 'broker shutting down', 'info');
  }

  /** ConnectionTransport: the cause as a close code (or, past the hard bound, no close frame). */
  close(cause: CloseCause, reason: string): void {
    switch (cause) {
      case 'overloaded':
        this.terminate(reason);
        return;
      case 'handler-failed':
        this.end(WebSocketCloseCode.InternalError, reason);
        return;
      case 'refused':
      case 'invalid-frame':
        this.end(WebSocketCloseCode.PolicyViolation, reason);
        return;
    }
  }

  private logClose(level: 'debug' | 'info' | 'warn', code: number, reason: string): void {
    this.logger[level](
      { event: 'connection.closed', peer: this.peer, connectionId: this.id, listener: this.connection.listenerName, code, reason },
      `closing WebSocket from ${this.peer} (${code}): ${reason}`,
    );
  }
}

/** `text` cut to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let end = Math.min(text.length, maxBytes);
  while (end > 0 && Buffer.byteLength(text.slice(0, end)) > maxBytes - 3) end--;
  // Do not split a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}...`;
}
