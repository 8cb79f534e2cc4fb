/**
 * One WebSocket on the gateway's `/json` route, the transport side of a JSON session: text
 * messages in (binary ones close with 1003, ones above the `/json` limit with 1009), text out
 * while the socket holds less than maxBufferedBytes (a peer that stops reading is cut off), idle
 * close after connections.max.idle.ms while the session is not busy. What the messages mean is
 * the application's (host/gateway/, through the JsonSocket seam in json-socket.ts).
 */
import type { WebSocket } from 'uWebSockets.js';
import type { JsonSessionHandlers, JsonSocket } from './json-socket.js';
import type { ConnectionContext, NetworkLogger } from './network-types.js';
import type { BufferedMemoryHolder, WebSocketMemoryBudget } from './websocket-memory-budget.js';
import { truncateUtf8, WebSocketCloseCode, type WebSocketConnectionLimits } from './websocket-kafka-connection.js';

/** The part of a uWS WebSocket a `/json` connection uses. */
export type UwsTextSocket = Pick<WebSocket<unknown>, 'send' | 'getBufferedAmount' | 'end' | 'close' | 'cork'>;

/**
 * A `/json` socket: copies and decodes text messages, applies the message and idle limits, and
 * gives the session the JsonSocket view. Lifecycle: open → (beginStop: the session stops, then
 * 1001) → closed; closed is terminal and the uWS object is never touched after it.
 */
export class JsonConnection implements JsonSocket, BufferedMemoryHolder {
  private session: JsonSessionHandlers | null = null;
  private ws: UwsTextSocket | null;
  private isClosed = false;
  private lastActivityMs: number;
  private stopping = false;
  /** The ConnectionContext shape, for onConnectionClosed. */
  readonly context: ConnectionContext;

  constructor(
    readonly id: number,
    readonly peer: string,
    ws: UwsTextSocket,
    private readonly limits: WebSocketConnectionLimits,
    private readonly maxMessageBytes: number,
    private readonly logger: NetworkLogger,
    /** Wall-clock ms (the gateway's Time). */
    private readonly nowMs: () => number,
    private readonly onClosed: (connection: JsonConnection) => void,
    /** websocket.max.total.buffered.bytes across the gateway's sockets; absent: this socket's own bound only. */
    private readonly memory?: WebSocketMemoryBudget,
  ) {
    this.ws = ws;
    this.lastActivityMs = nowMs();
    const self = this;
    this.context = {
      id,
      peer,
      listenerName: 'JSON',
      get closed() {
        return self.isClosed;
      },
      close: (reason: string) => self.end(WebSocketCloseCode.PolicyViolation, reason),
    };
  }

  /** True once closed (by either side); sends are then dropped. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Bytes uWS holds for the kernel; 0 once closed. */
  get bufferedAmount(): number {
    return this.ws === null || this.isClosed ? 0 : this.ws.getBufferedAmount();
  }

  /** BufferedMemoryHolder: what this socket holds is uWS's buffered output. */
  get heldBytes(): number {
    return this.bufferedAmount;
  }

  /** Gives the socket its session (once, right after open). */
  attach(session: JsonSessionHandlers): void {
    this.session = session;
  }

  /** JsonSocket.send: one text message; a peer holding more than maxBufferedBytes is cut off instead. */
  send(text: string): void {
    const ws = this.ws;
    if (ws === null || this.isClosed) return;
    if (ws.getBufferedAmount() > this.limits.maxBufferedBytes) {
      this.terminate(`${ws.getBufferedAmount()} bytes buffered, above the limit of ${this.limits.maxBufferedBytes}: the peer is not reading`);
      return;
    }
    this.lastActivityMs = this.nowMs();
    ws.cork(() => ws.send(text, false, false));
    this.memory?.update(this, ws.getBufferedAmount());
  }

  /** Sends a close frame with `code` and `reason` (truncated to 123 bytes), logs, and closes. */
  end(code: number, reason: string, level: 'info' | 'warn' = 'warn'): void {
    if (this.isClosed) return;
    const ws = this.ws;
    this.log(level, code, reason);
    this.markClosed();
    ws?.end(code, truncateUtf8(reason, 123));
  }

  /** Closes the TCP connection without a close frame (a peer that is not reading). */
  terminate(reason: string): void {
    if (this.isClosed) return;
    const ws = this.ws;
    this.log('warn', WebSocketCloseCode.Abnormal, reason);
    this.markClosed();
    ws?.close();
  }

  /** uWS `message` event: the text is decoded (copied) before the callback returns. */
  onMessage(message: ArrayBuffer, isBinary: boolean): void {
    if (this.isClosed) return;
    this.lastActivityMs = this.nowMs();
    if (isBinary) {
      this.end(WebSocketCloseCode.UnsupportedData, '/json takes text messages holding one JSON object each');
      return;
    }
    if (message.byteLength > this.maxMessageBytes) {
      this.end(WebSocketCloseCode.MessageTooBig, `message of ${message.byteLength} bytes exceeds the /json limit of ${this.maxMessageBytes}`);
      return;
    }
    if (this.stopping) return;
    // Decoding copies the text out of uWS memory before the callback returns.
    const text = Buffer.from(message).toString('utf8');
    try {
      this.session?.onMessage(text);
    } catch (error) {
      this.sessionFailed(error);
    }
  }

  /** uWS `drain` event: the session may push more. */
  onDrain(): void {
    if (this.isClosed) return;
    this.memory?.update(this, this.bufferedAmount);
    try {
      this.session?.onDrain();
    } catch (error) {
      this.sessionFailed(error);
    }
  }

  /** uWS `close` event: the peer closed, or uWS did. */
  onSocketClosed(code: number, message: string): void {
    if (this.isClosed) return;
    const level = code === WebSocketCloseCode.NormalClosure || code === WebSocketCloseCode.GoingAway || code === 1005 ? 'debug' : 'warn';
    this.log(level, code, message === '' ? `peer closed (${code})` : message);
    this.ws = null;
    this.markClosed();
  }

  /** Graceful stop: the session finishes (leaving its group), then the socket ends with 1001. */
  beginStop(): void {
    if (this.isClosed || this.stopping) return;
    this.stopping = true;
    const session = this.session;
    const stopped = session === null ? Promise.resolve() : session.stop().catch((error: unknown) => {
      this.logger.error({ event: 'session.stop_failed', peer: this.peer, err: error }, 'JSON session failed to stop cleanly');
    });
    void stopped.then(() => this.end(WebSocketCloseCode.GoingAway, 'broker shutting down', 'info'));
  }

  /** Called periodically by the gateway: closes after connections.max.idle.ms without traffic while the session is not busy. */
  checkTimers(nowMs: number): void {
    if (this.isClosed) return;
    this.memory?.update(this, this.bufferedAmount);
    if (this.limits.connectionsMaxIdleMs <= 0) return;
    if (this.session?.isBusy() === true) return;
    if (nowMs - this.lastActivityMs >= this.limits.connectionsMaxIdleMs) {
      this.end(
        WebSocketCloseCode.GoingAway,
        `idle for ${nowMs - this.lastActivityMs} ms (connections.max.idle.ms ${this.limits.connectionsMaxIdleMs})`,
        'info',
      );
    }
  }

  private sessionFailed(error: unknown): void {
    this.logger.error({ event: 'session.failed', peer: this.peer, err: error }, `JSON session failed for ${this.peer} (bug)`);
    this.end(WebSocketCloseCode.InternalError, 'internal error in the JSON session');
  }

  private log(level: 'debug' | 'info' | 'warn', code: number, reason: string): void {
    this.logger[level](
      { event: 'connection.closed', peer: this.peer, connectionId: this.id, listener: 'JSON', code, reason },
      `closing WebSocket from ${this.peer} (${code}): ${reason}`,
    );
  }

  private markClosed(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.ws = null;
    this.memory?.remove(this);
    try {
      this.session?.onClose();
    } catch (error) {
      this.logger.error({ event: 'session.failed', peer: this.peer, err: error }, 'JSON session onClose failed (bug)');
    }
    this.onClosed(this);
  }
}
