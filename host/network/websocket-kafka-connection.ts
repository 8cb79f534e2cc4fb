/**
 * One WebSocket on the gateway's `/kafka` route: each binary message is one Kafka request frame
 * (request header + body, no size prefix), answered by one binary message holding the response
 * frame (response header + body, no size prefix), in request order, through the same
 * RequestHandler as the TCP SocketServer.
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
 *
 * Copying: uWS hands messages as ArrayBuffers over native memory that are neutered when the
 * callback returns (ARCHITECTURE.md), so every message is copied before anything else.
 */
import type { WebSocket } from 'uWebSockets.js';
import type { ConnectionContext, NetworkLogger, RequestHandler, ResponseBytes } from './network-types.js';
import { CoalescingPump } from './coalescing-pump.js';
import { OrderedResponses } from './ordered-responses.js';

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

/** Per-connection limits (bytes and ms; see WebSocketGatewayOptions for the Kafka names). */
export interface WebSocketConnectionLimits {
  socketRequestMaxBytes: number;
  connectionsMaxIdleMs: number;
  maxInFlightRequests: number;
  maxPendingResponseBytes: number;
  maxBufferedBytes: number;
}

/** The part of a uWS WebSocket a connection uses (uWS's own type is generic over user data). */
export type UwsSocket = Pick<
  WebSocket<unknown>,
  'send' | 'sendFirstFragment' | 'sendFragment' | 'sendLastFragment' | 'getBufferedAmount' | 'end' | 'close' | 'cork'
>;

export class WebSocketKafkaConnection implements ConnectionContext {
  private ws: UwsSocket | null;
  /** Dispatched requests and their responses, handed to uWS in request order. */
  private readonly responses: OrderedResponses;
  /** Copied messages not yet dispatched (arrived while over the limits). */
  private readonly received: Buffer[] = [];
  private receivedBytes = 0;
  private stopping = false;
  private isClosed = false;
  private readonly pumpLoop = new CoalescingPump(
    () => this.pumpPass(),
    () => this.maybeFinishStop(),
  );
  private lastActivityMs: number;
  /** When uWS's buffered amount last crossed maxPendingResponseBytes with nothing drained since, or -1. */
  private outputBlockedSinceMs = -1;

  constructor(
    readonly id: number,
    readonly peer: string,
    readonly listenerName: string,
    ws: UwsSocket,
    handler: RequestHandler,
    private readonly limits: WebSocketConnectionLimits,
    private readonly logger: NetworkLogger,
    private readonly nowMs: () => number,
    private readonly onClosed: (connection: WebSocketKafkaConnection) => void,
  ) {
    this.ws = ws;
    this.lastActivityMs = nowMs();
    this.responses = new OrderedResponses(handler, this, {
      onCompleted: () => {
        if (!this.overHardLimit()) this.pump();
      },
      onHandlerFailed: (error) => this.handlerFailed(error),
      canWrite: () => this.canSend(),
      write: (response) => this.sendMessage(response),
    });
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Requests dispatched whose response is not yet handed to uWS. */
  get inFlightRequests(): number {
    return this.responses.inFlightRequests;
  }

  /** Bytes uWS holds for the kernel. */
  get bufferedBytes(): number {
    return this.bufferedAmount();
  }

  /** Bytes this connection holds: undispatched messages, held responses, uWS's buffered amount. */
  get heldBytes(): number {
    return this.receivedBytes + this.responses.heldResponseBytes + this.bufferedAmount();
  }

  /** ConnectionContext.close: the broker refuses this connection (1008 + reason). */
  close(reason: string): void {
    this.end(WebSocketCloseCode.PolicyViolation, reason);
  }

  /** Sends a close frame with `code` and `reason` (truncated to 123 bytes), logs, and closes. */
  end(code: number, reason: string, level: 'info' | 'warn' = 'warn'): void {
    if (this.isClosed) return;
    const ws = this.ws;
    this.logClose(level, code, reason);
    this.markClosed();
    ws?.end(code, truncateUtf8(reason, MAX_CLOSE_REASON_BYTES));
  }

  /**
   * Closes the TCP connection without a close frame: for a peer that is not reading, a close
   * frame would only queue behind the data it already ignores.
   */
  terminate(reason: string): void {
    if (this.isClosed) return;
    const ws = this.ws;
    this.logClose('warn', WebSocketCloseCode.Abnormal, reason);
    this.markClosed();
    ws?.close();
  }

  /** uWS `close` event: the peer closed, or uWS did (protocol error, oversize, liveness timeout). */
  onSocketClosed(code: number, message: string): void {
    if (this.isClosed) return;
    const reason = message === '' ? `peer closed (${code})` : message;
    const level = code === WebSocketCloseCode.NormalClosure || code === WebSocketCloseCode.GoingAway || code === 1005 ? 'debug' : 'warn';
    this.logClose(level, code, reason);
    this.ws = null;
    this.markClosed();
  }

  /** uWS `message` event. The ArrayBuffer dies when this returns: it is copied first. */
  onMessage(message: ArrayBuffer, isBinary: boolean): void {
    if (this.isClosed) return;
    const size = message.byteLength;
    this.lastActivityMs = this.nowMs();
    if (!isBinary) {
      this.end(WebSocketCloseCode.UnsupportedData, '/kafka takes binary messages holding one Kafka request frame each');
      return;
    }
    if (size > this.limits.socketRequestMaxBytes) {
      this.end(WebSocketCloseCode.MessageTooBig, `message of ${size} bytes exceeds socket.request.max.bytes ${this.limits.socketRequestMaxBytes}`);
      return;
    }
    if (this.stopping) return;
    const frame = Buffer.allocUnsafe(size);
    frame.set(new Uint8Array(message));
    this.received.push(frame);
    this.receivedBytes += size;
    if (this.overHardLimit()) return;
    this.pump();
  }

  /** uWS `drain` event: some buffered output reached the kernel. */
  onDrain(): void {
    if (this.isClosed) return;
    if (this.bufferedAmount() <= this.limits.maxPendingResponseBytes) this.outputBlockedSinceMs = -1;
    else this.outputBlockedSinceMs = this.nowMs();
    this.pump();
  }

  /** Graceful stop: dispatch nothing new; end with 1001 once every dispatched request is answered. */
  beginStop(): void {
    if (this.isClosed || this.stopping) return;
    this.stopping = true;
    this.received.length = 0;
    this.receivedBytes = 0;
    this.maybeFinishStop();
  }

  /**
   * Called periodically by the gateway: closes the connection when idle for connectionsMaxIdleMs
   * (no message in or out, nothing in flight: Kafka's connections.max.idle.ms), or when its output
   * has been blocked that long without draining (a peer that stopped reading).
   */
  checkTimers(nowMs: number): void {
    if (this.isClosed || this.limits.connectionsMaxIdleMs <= 0) return;
    const idleMs = this.limits.connectionsMaxIdleMs;
    if (this.outputBlockedSinceMs >= 0 && nowMs - this.outputBlockedSinceMs >= idleMs) {
      this.terminate(`peer read nothing for ${nowMs - this.outputBlockedSinceMs} ms with ${this.bufferedAmount()} response bytes buffered`);
      return;
    }
    if (this.responses.inFlightRequests === 0 && this.received.length === 0 && nowMs - this.lastActivityMs >= idleMs) {
      this.end(WebSocketCloseCode.GoingAway, `idle for ${nowMs - this.lastActivityMs} ms (connections.max.idle.ms ${idleMs})`, 'info');
    }
  }

  /**
   * Sends every leading completed response uWS may take, then dispatches received messages while
   * the limits allow. Re-entrant calls (a handler completing synchronously) fold into the loop.
   */
  private pump(): void {
    this.pumpLoop.run();
  }

  /** One pass of the pump; false once the connection is closed. */
  private pumpPass(): boolean {
    if (this.isClosed) return false;
    this.sendCompletedResponses();
    if (this.isClosed) return false;
    this.dispatchReceived();
    return true;
  }

  private dispatchReceived(): void {
    while (!this.isClosed && !this.stopping && this.received.length > 0 && !this.overSoftLimits()) {
      const frame = this.received.shift()!;
      this.receivedBytes -= frame.length;
      this.responses.dispatch(frame);
    }
  }

  private sendCompletedResponses(): void {
    const ws = this.ws;
    if (ws === null || !this.responses.headCompleted) return;
    let sent = 0;
    ws.cork(() => {
      sent = this.responses.flush();
    });
    if (sent > 0) this.lastActivityMs = this.nowMs();
    if (this.outputBlockedSinceMs < 0 && !this.isClosed && ws.getBufferedAmount() > this.limits.maxPendingResponseBytes) {
      this.outputBlockedSinceMs = this.nowMs();
    }
  }

  /** Responses wait while uWS buffers more than maxPendingResponseBytes (the peer reads slowly). */
  private canSend(): boolean {
    if (this.bufferedAmount() <= this.limits.maxPendingResponseBytes) return true;
    if (this.outputBlockedSinceMs < 0) this.outputBlockedSinceMs = this.nowMs();
    return false;
  }

  /** One binary message; a Buffer[] goes out as fragments of one message, without concatenating. */
  private sendMessage(response: ResponseBytes): void {
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

  private overSoftLimits(): boolean {
    return (
      this.responses.inFlightRequests >= this.limits.maxInFlightRequests ||
      this.responses.heldResponseBytes + this.bufferedAmount() > this.limits.maxPendingResponseBytes
    );
  }

  /** Cuts off a connection holding more than maxBufferedBytes; true when it did. */
  private overHardLimit(): boolean {
    const held = this.heldBytes;
    if (held <= this.limits.maxBufferedBytes) return false;
    this.terminate(
      `holds ${held} bytes (${this.receivedBytes} unprocessed requests, ${this.responses.heldResponseBytes + this.bufferedAmount()} unsent responses), ` +
        `above the limit of ${this.limits.maxBufferedBytes}: the peer is not reading its responses`,
    );
    return true;
  }

  private bufferedAmount(): number {
    return this.ws === null || this.isClosed ? 0 : this.ws.getBufferedAmount();
  }

  private maybeFinishStop(): void {
    if (this.isClosed || !this.stopping || this.responses.inFlightRequests > 0) return;
    this.end(WebSocketCloseCode.GoingAway, 'broker shutting down', 'info');
  }

  private handlerFailed(error: unknown): void {
    if (this.isClosed) return;
    this.logger.error({ event: 'request.failed', peer: this.peer, connectionId: this.id, err: error }, `request handler failed for ${this.peer} (bug)`);
    this.end(WebSocketCloseCode.InternalError, 'internal error handling the request');
  }

  private logClose(level: 'debug' | 'info' | 'warn', code: number, reason: string): void {
    this.logger[level](
      { event: 'connection.closed', peer: this.peer, connectionId: this.id, listener: this.listenerName, code, reason },
      `closing WebSocket from ${this.peer} (${code}): ${reason}`,
    );
  }

  private markClosed(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.responses.clear();
    this.received.length = 0;
    this.receivedBytes = 0;
    this.onClosed(this);
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
