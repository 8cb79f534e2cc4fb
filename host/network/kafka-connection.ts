/**
 * One Kafka connection, whatever carries its bytes: the request pipeline and its state machine,
 * shared by the TCP listener (tcp-connection.ts) and the WebSocket `/kafka` route
 * (websocket-kafka-connection.ts). The transports are thin adapters: they turn their events into
 * calls here and put response frames on their wire; everything else is decided here once.
 *
 *   transport bytes ─► FrameSource (FrameDecoder: size-prefixed stream; MessageFrames: one frame
 *   per message) ─► dispatch while the limits allow ─► OrderedResponses (handler, completions in
 *   any order) ─► ConnectionTransport.write, in request order
 *
 * States (`closed` is terminal):
 *
 *   open ──beginStop()──► stopping ──all dispatched answered──► finishing ──transport closed──► closed
 *   open ──peerEnded()──► peer-ended ──input exhausted, all answered──► finishing ──► closed
 *   open / stopping / peer-ended ──bad frame, refusal, handler bug, overload, transport gone──► closed
 *
 * stopping: nothing new is dispatched, input paused and buffered frames dropped. peer-ended (the
 * peer half-closed, TCP): the complete frames it sent are still answered, then the connection
 * finishes; a stop in between makes it stopping. finishing: the transport ends gracefully
 * (TCP end, WebSocket 1001) and reports back with transportClosed().
 *
 * Backpressure (bounded queues, TigerBeetle style; Kafka "mutes" the channel): dispatch stops
 * while `maxInFlightRequests` requests are unanswered or while held responses plus the
 * transport's unsent bytes exceed `maxPendingResponseBytes`. A transport that can stop reading
 * (TCP) is paused then and resumed when both fall back under their bounds; one that cannot (uWS)
 * keeps frames in its FrameSource, and `maxBufferedBytes` caps everything the connection holds:
 * past it the connection is cut off ('overloaded'). Across connections, the broker's
 * `queued.max.response.bytes` (response-memory-pool.ts) mutes the same way a connection that has
 * a response pending while the broker's pending responses are over that budget.
 *
 * Errors: a frame the source cannot read (size prefix below zero or above
 * socket.request.max.bytes) closes with 'invalid-frame'; the handler's ConnectionContext.close
 * with 'refused'; a handler that throws, rejects or returns something that is not ResponseBytes
 * is a bug, logged at error with the peer, and closes with 'handler-failed'. Each transport says
 * how a cause looks on its wire (TCP: the socket is destroyed; WebSocket: a close code).
 */
import type { Time } from '../io/environment.js';
import { CoalescingPump } from './coalescing-pump.js';
import type { ConnectionContext, NetworkLogger, RequestHandler, ResponseBytes } from './network-types.js';
import { OrderedResponses } from './ordered-responses.js';
import type { ResponseMemoryHolder, ResponseMemoryPool } from './response-memory-pool.js';
import type { SharedDispatchBudget } from './shared-dispatch-budget.js';

/** Per-connection limits (bytes and ms; see SocketServerOptions / WebSocketGatewayOptions for Kafka's names). */
export interface ConnectionLimits {
  /** socket.request.max.bytes: largest request frame, bytes. */
  socketRequestMaxBytes: number;
  /** connections.max.idle.ms: close after this long without traffic and nothing in flight; 0 disables. */
  connectionsMaxIdleMs: number;
  /** Requests dispatched but not yet answered before dispatch (and reading) stops. */
  maxInFlightRequests: number;
  /** Held plus unsent response bytes before dispatch (and reading) stops. */
  maxPendingResponseBytes: number;
  /**
   * Hard bound, bytes, on what the connection holds (undispatched frames, held responses, the
   * transport's unsent bytes), for transports that cannot stop reading; absent: unbounded here
   * (the transport pauses its input instead).
   */
  maxBufferedBytes?: number;
  /** connection.max.dispatch.ms.per.turn with its clock; absent: no bound (see {@link DispatchBudget}). */
  dispatchBudget?: DispatchBudget;
}

/**
 * How long one connection's requests may run back to back in one event-loop turn (ms, > 0); past
 * it the connection stops dispatching (and reading) and picks up in a deferred turn, after the
 * other connections' I/O: a pipeline of expensive requests cannot hold the loop for everyone.
 * One request always runs whole.
 */
export interface DispatchBudget {
  readonly maxMs: number;
  readonly clock: Pick<Time, 'monotonicMs' | 'defer'>;
  /**
   * network.max.dispatch.ms.per.turn: the turn's total over all connections; once it is spent a
   * connection dispatches one request per pump (shared-dispatch-budget.ts). Absent: no such bound.
   */
  readonly shared?: SharedDispatchBudget;
}

/** Why a connection is closed at once (each transport maps it to its wire: TCP destroy, WebSocket close code). */
export type CloseCause = 'invalid-frame' | 'refused' | 'handler-failed' | 'overloaded';

/** Request frames as the transport received them. */
export interface FrameSource {
  /** The next complete request frame (header + body, no size prefix), or null (none yet, or `errorReason`). */
  next(): Buffer | null;
  /** Why the input cannot be read any further (the connection closes), or null. */
  readonly errorReason: string | null;
  /** Bytes received but not yet handed out as frames. */
  readonly bufferedBytes: number;
  /** Drops what is buffered (the connection stops or closed; nothing more is dispatched). */
  discard(): void;
}

/** What the state machine asks of the transport carrying the connection. */
export interface ConnectionTransport {
  /** Response bytes handed to the transport that the peer has not taken yet. */
  unsentBytes(): number;
  /** False holds this response and the later ones until the next pump (output backpressure). */
  canWrite(): boolean;
  /** Writes the completed responses: calls `flush` (which calls write() per response) batched (corked). */
  writeResponses(flush: () => number): void;
  /** Puts one response frame (header + body, no size prefix, `bytes` long) on the wire. */
  write(response: ResponseBytes, bytes: number): void;
  /** Stops taking input from the peer (TCP pause); a no-op where the transport cannot. */
  pauseInput(): void;
  /** Takes input again (TCP resume). */
  resumeInput(): void;
  /**
   * Calls the connection's outputDrained() once the bytes handed over so far have reached the
   * kernel, for transports whose own drain event does not cover every write (Node emits 'drain'
   * only after a write past its high-water mark); absent where the drain event does.
   */
  watchFlush?(): void;
  /** Ends gracefully: everything dispatched is answered after a stop or the peer's end. */
  finish(): void;
  /** Closes at once for `cause`, logging `reason` with the peer; calls transportClosed() before returning. */
  close(cause: CloseCause, reason: string): void;
}

/** Identity and collaborators of one connection. */
export interface KafkaConnectionOptions {
  /** Listener-unique connection id, increasing from 1 in accept order. */
  id: number;
  /** Remote address for logs and handlers. */
  peer: string;
  /** Kafka listener name reported to the handler. */
  listenerName: string;
  handler: RequestHandler;
  source: FrameSource;
  transport: ConnectionTransport;
  limits: ConnectionLimits;
  logger: NetworkLogger;
  /** queued.max.response.bytes across the broker's connections; absent: no shared bound. */
  responseMemory?: ResponseMemoryPool | undefined;
  /**
   * Called after every pump (a request arrived, a response completed, output drained) with
   * heldBytes: the WebSocket gateway's websocket.max.total.buffered.bytes (websocket-memory-budget.ts).
   */
  onHeldBytes?: ((heldBytes: number) => void) | undefined;
  /** Called once, when the connection becomes closed. */
  onClosed: (connection: KafkaConnection) => void;
}

/** The per-connection request pipeline and its state machine (see the file header). */
export class KafkaConnection implements ConnectionContext {
  readonly id: number;
  readonly peer: string;
  readonly listenerName: string;
  private readonly source: FrameSource;
  private readonly transport: ConnectionTransport;
  private readonly limits: ConnectionLimits;
  private readonly logger: NetworkLogger;
  private readonly onClosed: (connection: KafkaConnection) => void;
  private readonly onHeldBytes: ((heldBytes: number) => void) | undefined;
  /** Dispatched requests and their responses, written in request order. */
  private readonly responses: OrderedResponses;
  private readonly pumpLoop = new CoalescingPump(
    () => this.pumpPass(),
    () => {
      this.reportPendingResponses();
      this.updateInput();
      this.maybeFinish();
    },
  );
  private inputPaused = false;
  private stopping = false;
  private endedByPeer = false;
  /** The source held no complete frame at the last dispatch attempt. */
  private inputExhausted = true;
  private finishing = false;
  private isClosed = false;
  /** The dispatch budget ran out this turn: a deferred pump dispatches on. */
  private dispatchYielded = false;
  private readonly responseMemory: ResponseMemoryPool | null;
  private readonly responseMemoryHolder: ResponseMemoryHolder = { resume: () => this.pump() };
  /** A watchFlush() is outstanding. */
  private watchingFlush = false;

  constructor(options: KafkaConnectionOptions) {
    this.id = options.id;
    this.peer = options.peer;
    this.listenerName = options.listenerName;
    this.source = options.source;
    this.transport = options.transport;
    this.limits = options.limits;
    this.logger = options.logger;
    this.onClosed = options.onClosed;
    this.onHeldBytes = options.onHeldBytes;
    this.responseMemory = options.responseMemory ?? null;
    this.responses = new OrderedResponses(options.handler, this, {
      onCompleted: () => {
        if (!this.overHardLimit()) this.pump();
      },
      onHandlerFailed: (error) => this.handlerFailed(error),
      canWrite: () => this.transport.canWrite(),
      write: (response, bytes) => this.transport.write(response, bytes),
    });
  }

  /** True once closed (terminal); late responses are dropped. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** False once stopping or closed: input arriving then is dropped. */
  get accepting(): boolean {
    return !this.isClosed && !this.stopping;
  }

  /** True once the peer ended its side (TCP FIN): it sends nothing more, and may be gone entirely. */
  get peerHasEnded(): boolean {
    return this.endedByPeer;
  }

  /** Requests dispatched whose response is not yet written (or skipped, for a null response). */
  get inFlightRequests(): number {
    return this.responses.inFlightRequests;
  }

  /** Bytes this connection holds: undispatched frames, held responses, the transport's unsent bytes. */
  get heldBytes(): number {
    return this.source.bufferedBytes + this.responses.heldResponseBytes + this.unsentBytes();
  }

  /** ConnectionContext.close: the broker refuses this connection (e.g. an unreadable request header). */
  close(reason: string): void {
    this.closeFor('refused', reason);
  }

  /** The transport put new bytes into the source: dispatch what the limits allow. */
  inputArrived(): void {
    if (!this.accepting) return;
    this.inputExhausted = false;
    if (this.overHardLimit()) return;
    this.pump();
  }

  /** The transport took some unsent bytes (drain): write and dispatch more. */
  outputDrained(): void {
    this.watchingFlush = false;
    this.pump();
  }

  /** The peer ended its side (TCP FIN): answer the complete frames it sent, then finish. */
  peerEnded(): void {
    this.endedByPeer = true;
    this.pump();
  }

  /** Graceful stop: dispatch nothing new; finish once every dispatched request is answered. */
  beginStop(): void {
    if (this.isClosed || this.stopping) return;
    this.stopping = true;
    this.pauseInput();
    this.source.discard();
    this.maybeFinish();
  }

  /** The transport is closed (by either side, or by close()): drop everything, report once. */
  transportClosed(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.responseMemory?.remove(this.responseMemoryHolder);
    this.responses.clear();
    this.source.discard();
    this.onClosed(this);
  }

  /**
   * Writes every leading completed response, then dispatches buffered frames while the limits
   * allow; then pauses or resumes input and finishes a stop. Re-entrant calls (a handler
   * completing synchronously inside dispatch) fold into the running loop.
   */
  private pump(): void {
    this.pumpLoop.run();
  }

  /** One pass of the pump; false once the connection is closed. */
  private pumpPass(): boolean {
    if (this.isClosed) return false;
    if (this.responses.headCompleted) this.transport.writeResponses(() => this.responses.flush());
    if (this.isClosed) return false;
    this.dispatchFrames();
    return true;
  }

  private dispatchFrames(): void {
    const budget = this.limits.dispatchBudget;
    const startedMs = budget === undefined ? 0 : budget.clock.monotonicMs();
    let lastMs = startedMs;
    while (!this.isClosed && !this.stopping && !this.overSoftLimits()) {
      const frame = this.source.next();
      if (frame === null) {
        this.inputExhausted = true;
        const reason = this.source.errorReason;
        if (reason !== null) this.closeFor('invalid-frame', reason);
        return;
      }
      this.responses.dispatch(frame);
      if (budget !== undefined) {
        const nowMs = budget.clock.monotonicMs();
        const shared = budget.shared;
        if (shared !== undefined) {
          shared.spend(nowMs - lastMs);
          lastMs = nowMs;
        }
        // One request always runs; the next waits when this connection's or the turn's budget is spent.
        if (nowMs - startedMs >= budget.maxMs || shared?.exhausted === true) {
          this.yieldDispatch(budget);
          return;
        }
      }
    }
  }

  /** The budget of this turn is spent: no dispatch (nor reading) until a deferred turn pumps again. */
  private yieldDispatch(budget: DispatchBudget): void {
    if (this.dispatchYielded) return;
    this.dispatchYielded = true;
    budget.clock.defer(() => {
      this.dispatchYielded = false;
      if (!this.isClosed) this.pump();
    });
  }

  private overSoftLimits(): boolean {
    return (
      this.responses.inFlightRequests >= this.limits.maxInFlightRequests ||
      this.responses.heldResponseBytes + this.unsentBytes() > this.limits.maxPendingResponseBytes ||
      this.mutedByResponseMemory() ||
      this.dispatchYielded
    );
  }

  /**
   * Reports this connection's pending response bytes to the broker's queued.max.response.bytes
   * pool; true (muted, woken by the pool or by this connection's own flush) while the pool is over
   * its budget and this connection has a response pending. A connection with nothing pending may
   * send one request at a time, as in Kafka.
   */
  private mutedByResponseMemory(): boolean {
    const pool = this.responseMemory;
    if (pool === null) return false;
    const unsent = this.unsentBytes();
    const pending = this.responses.heldResponseBytes + unsent;
    pool.update(this.responseMemoryHolder, pending);
    if (!pool.overCapacity || (pending === 0 && this.responses.inFlightRequests === 0)) return false;
    pool.wait(this.responseMemoryHolder);
    if (unsent > 0 && !this.watchingFlush && !this.finishing && this.transport.watchFlush !== undefined) {
      this.watchingFlush = true;
      this.transport.watchFlush();
    }
    return true;
  }

  /** After a pump: the pool learns what this connection holds now (even when nothing was dispatched). */
  private reportPendingResponses(): void {
    if (this.isClosed) return;
    this.responseMemory?.update(this.responseMemoryHolder, this.responses.heldResponseBytes + this.unsentBytes());
    this.onHeldBytes?.(this.heldBytes);
  }

  /** Cuts off a connection holding more than maxBufferedBytes; true when it did. */
  private overHardLimit(): boolean {
    const maxBufferedBytes = this.limits.maxBufferedBytes;
    if (maxBufferedBytes === undefined) return false;
    const held = this.heldBytes;
    if (held <= maxBufferedBytes) return false;
    this.closeFor(
      'overloaded',
      `holds ${held} bytes (${this.source.bufferedBytes} bytes of unprocessed requests, ${this.responses.heldResponseBytes + this.unsentBytes()} bytes of unsent responses), ` +
        `above the limit of ${maxBufferedBytes}: the peer is not reading its responses`,
    );
    return true;
  }

  private unsentBytes(): number {
    return this.isClosed ? 0 : this.transport.unsentBytes();
  }

  private updateInput(): void {
    if (this.isClosed || this.stopping) return;
    if (this.overSoftLimits()) {
      this.pauseInput();
    } else if (this.inputPaused) {
      this.inputPaused = false;
      this.transport.resumeInput();
    }
  }

  private pauseInput(): void {
    if (this.inputPaused) return;
    this.inputPaused = true;
    this.transport.pauseInput();
  }

  private maybeFinish(): void {
    if (this.isClosed || this.finishing || this.responses.inFlightRequests > 0) return;
    if (!this.stopping && !(this.endedByPeer && this.inputExhausted)) return;
    if (this.endedByPeer && !this.stopping && this.source.bufferedBytes > 0) {
      this.logger.warn(
        { event: 'connection.closed', peer: this.peer, connectionId: this.id, reason: 'truncated frame', bufferedBytes: this.source.bufferedBytes },
        `${this.peer} closed with a truncated request frame`,
      );
    }
    this.finishing = true;
    this.transport.finish();
  }

  private handlerFailed(error: unknown): void {
    if (this.isClosed) return;
    this.logger.error(
      { event: 'request.failed', peer: this.peer, connectionId: this.id, listener: this.listenerName, err: error },
      `request handler failed (bug); closing the connection from ${this.peer}`,
    );
    this.closeFor('handler-failed', 'internal error handling the request');
  }

  private closeFor(cause: CloseCause, reason: string): void {
    if (this.isClosed) return;
    this.transport.close(cause, reason);
    this.transportClosed();
  }
}
