import type { Socket } from 'node:net';
import { fetchReadBuffers } from '../log/read-buffer-pool.js';
import { CoalescingPump } from './coalescing-pump.js';
import { getCore } from '../wasm/core.js';
import { FrameDecoder } from './frame-decoder.js';
import { OrderedResponses } from './ordered-responses.js';
import type {
  ConnectionContext,
  NetworkLogger,
  RequestHandler,
  ResponseBytes,
} from './network-types.js';

/** Per-connection limits (all bounded; see SocketServerOptions for the Kafka names and defaults). */
export interface ConnectionLimits {
  /** socket.request.max.bytes: largest request frame, bytes. */
  socketRequestMaxBytes: number;
  /** connections.max.idle.ms: close after this long without reads or writes and nothing in flight. */
  connectionsMaxIdleMs: number;
  /** Requests dispatched but not yet answered before reading stops. */
  maxInFlightRequests: number;
  /** Completed-but-unsent plus written-but-undrained response bytes before reading stops. */
  maxPendingResponseBytes: number;
}

const SIZE_PREFIX_BYTES = 4;
/** Up to this many bytes of a response's first part are copied behind its size prefix (one write). */
const MERGE_PREFIX_MAX_BYTES = 2048;
/**
 * Api keys whose frames, when they span socket chunks, are gathered into the core's frame ring
 * (records then validated and stamped in place). Produce (0) only: its handler keeps no view of
 * the request once it completes, which the ring's reuse requires.
 */
const ARENA_API_KEYS: ReadonlySet<number> = new Set([0]);

/**
 * One accepted TCP connection: frames in, handler calls, responses out in request order.
 *
 * States: open → stopping (graceful server stop: no new requests dispatched, reading paused; ends
 * the socket once every dispatched request is answered) → closed; open → peer-ended (the peer
 * sent FIN: complete frames already received are still answered, then the socket ends) → closed;
 * open → closed directly on errors, idle timeout, a bad frame size or a handler bug. `closed` is
 * terminal.
 *
 * Backpressure (TigerBeetle's bounded queues): reading pauses while `maxInFlightRequests` requests
 * are unanswered or while held + undrained response bytes exceed `maxPendingResponseBytes`; it
 * resumes when both fall back under their bounds. Frames already buffered wait too.
 */
export class Connection implements ConnectionContext {
  private readonly decoder: FrameDecoder;
  /** Dispatched requests and their responses, written in request order. */
  private readonly responses: OrderedResponses;
  private readingPaused = false;
  /** Graceful server stop: nothing new is dispatched. */
  private stopping = false;
  /** The peer sent FIN: answer the complete frames it sent, then close. */
  private peerEnded = false;
  /** The decoder held no complete frame at the last dispatch attempt. */
  private inputExhausted = true;
  private ending = false;
  private isClosed = false;
  private readonly pumpLoop = new CoalescingPump(
    () => this.pumpPass(),
    () => {
      this.updateReading();
      this.maybeFinishStop();
    },
  );

  constructor(
    readonly id: number,
    readonly peer: string,
    readonly listenerName: string,
    private readonly socket: Socket,
    handler: RequestHandler,
    private readonly limits: ConnectionLimits,
    private readonly logger: NetworkLogger,
    private readonly onClose: (connection: Connection) => void,
  ) {
    const decoder = new FrameDecoder(limits.socketRequestMaxBytes, {
      arena: getCore().frameArena,
      arenaApiKeys: ARENA_API_KEYS,
    });
    this.decoder = decoder;
    this.responses = new OrderedResponses(releasingArenaFrames(handler, decoder), this, {
      onCompleted: () => this.pump(),
      onHandlerFailed: (error) => this.handlerFailed(error),
      canWrite: () => true,
      write: (response, bytes) => this.writeResponse(response, bytes),
    });
    socket.setNoDelay(true);
    socket.setKeepAlive(true);
    if (limits.connectionsMaxIdleMs > 0) socket.setTimeout(limits.connectionsMaxIdleMs);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => this.pump());
    socket.on('timeout', () => this.onIdle());
    socket.on('end', () => this.onPeerEnd());
    socket.on('error', (error: Error) => {
      this.logger.debug({ event: 'connection.error', peer: this.peer, connectionId: this.id, err: error }, 'connection error');
    });
    socket.on('close', () => this.markClosed());
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Requests dispatched to the handler whose response is not yet written (or skipped). */
  get inFlightRequests(): number {
    return this.responses.inFlightRequests;
  }

  close(reason: string): void {
    if (this.isClosed) return;
    this.logger.warn(
      { event: 'connection.closed', peer: this.peer, connectionId: this.id, listener: this.listenerName, reason },
      `closing connection from ${this.peer}: ${reason}`,
    );
    this.destroy();
  }

  /** Graceful stop: dispatch nothing new; end the socket once all dispatched requests are answered. */
  beginStop(): void {
    if (this.isClosed || this.stopping) return;
    this.stopping = true;
    this.pauseReading();
    this.maybeFinishStop();
  }

  /** Closes at once without a log line (server shutdown past its timeout). */
  destroy(): void {
    if (this.isClosed) return;
    this.socket.destroy();
    this.markClosed();
  }

  private onData(chunk: Buffer): void {
    if (this.isClosed || this.stopping) return;
    this.decoder.push(chunk);
    this.inputExhausted = false;
    this.pump();
  }

  private onIdle(): void {
    // Node re-arms the timer on the next read or write; an in-flight request (say a long-poll
    // Fetch) keeps the connection alive until its response is written.
    if (this.isClosed || this.responses.inFlightRequests > 0) return;
    this.logger.info(
      {
        event: 'connection.closed',
        peer: this.peer,
        connectionId: this.id,
        reason: 'idle',
        connectionsMaxIdleMs: this.limits.connectionsMaxIdleMs,
      },
      `closing idle connection from ${this.peer} (connections.max.idle.ms)`,
    );
    this.destroy();
  }

  private onPeerEnd(): void {
    // The peer sent FIN: finish answering what it already asked (it may be half-closed and
    // still reading), then close. The server sets allowHalfOpen for this to work.
    this.peerEnded = true;
    this.pump();
  }

  /**
   * Writes every leading completed response, then dispatches buffered frames while the limits
   * allow; then resumes or pauses reading. Re-entrant calls are folded into the running loop.
   */
  private pump(): void {
    this.pumpLoop.run();
  }

  /** One pass of the pump; false once the connection is closed. */
  private pumpPass(): boolean {
    if (this.isClosed) return false;
    this.writeCompletedResponses();
    if (this.isClosed) return false;
    this.dispatchBufferedFrames();
    return true;
  }

  private dispatchBufferedFrames(): void {
    while (!this.isClosed && !this.stopping && !this.overLimits()) {
      const frame = this.decoder.next();
      if (frame === null) {
        this.inputExhausted = true;
        const error = this.decoder.error;
        if (error !== null) {
          this.close(
            error.reason === 'negative-size'
              ? `invalid frame size ${error.size}`
              : `frame size ${error.size} exceeds socket.request.max.bytes ${this.limits.socketRequestMaxBytes}`,
          );
        }
        return;
      }
      this.responses.dispatch(frame);
    }
  }

  /** Writes every leading completed response, corked into one writev. */
  private writeCompletedResponses(): void {
    if (!this.responses.headCompleted) return;
    this.socket.cork();
    try {
      this.responses.flush();
    } finally {
      this.socket.uncork();
    }
  }

  /** One response frame: the int32 size prefix, then the bytes as the handler returned them. */
  private writeResponse(response: ResponseBytes, bytes: number): void {
    const single = Buffer.isBuffer(response);
    const parts = single ? null : (response as readonly Buffer[]);
    const first = single ? response : parts!.length > 0 ? parts![0]! : null;
    // A small first part (a Produce response, a Fetch response's header) goes out in one buffer
    // with its size prefix: one socket write instead of two, which is most of a small request's
    // write cost. Leased read buffers are never copied (they are returned to the pool on write).
    if (first !== null && first.length <= MERGE_PREFIX_MAX_BYTES && !fetchReadBuffers.isLeased(first)) {
      const merged = Buffer.allocUnsafe(SIZE_PREFIX_BYTES + first.length);
      merged.writeInt32BE(bytes, 0);
      merged.set(first, SIZE_PREFIX_BYTES);
      this.socket.write(merged);
      if (parts !== null) {
        for (let i = 1; i < parts.length; i++) if (parts[i]!.length > 0) this.writePart(parts[i]!);
      }
      return;
    }
    const prefix = Buffer.allocUnsafe(SIZE_PREFIX_BYTES);
    prefix.writeInt32BE(bytes, 0);
    this.socket.write(prefix);
    if (single) {
      if (response.length > 0) this.writePart(response);
    } else {
      for (const part of parts!) if (part.length > 0) this.writePart(part);
    }
  }

  /**
   * Writes one chunk; a chunk read into the fetch pool goes back to it once the socket is done
   * with it: the write callback ran without error on a live socket (libuv has written the bytes
   * to the kernel). On an error or a destroyed socket it is left to the garbage collector.
   */
  private writePart(part: Buffer): void {
    if (!fetchReadBuffers.isLeased(part)) {
      this.socket.write(part);
      return;
    }
    this.socket.write(part, (error?: Error | null) => {
      if (error == null && !this.socket.destroyed) fetchReadBuffers.release(part);
    });
  }

  private overLimits(): boolean {
    return (
      this.responses.inFlightRequests >= this.limits.maxInFlightRequests ||
      this.responses.heldResponseBytes + this.socket.writableLength > this.limits.maxPendingResponseBytes
    );
  }

  private updateReading(): void {
    if (this.isClosed || this.stopping) return;
    if (this.overLimits()) this.pauseReading();
    else if (this.readingPaused) {
      this.readingPaused = false;
      this.socket.resume();
    }
  }

  private pauseReading(): void {
    if (this.readingPaused) return;
    this.readingPaused = true;
    this.socket.pause();
  }

  private maybeFinishStop(): void {
    if (this.isClosed || this.ending || this.responses.inFlightRequests > 0) return;
    if (!this.stopping && !(this.peerEnded && this.inputExhausted)) return;
    if (this.peerEnded && !this.stopping && this.decoder.bufferedBytes > 0) {
      this.logger.warn(
        {
          event: 'connection.closed',
          peer: this.peer,
          connectionId: this.id,
          reason: 'truncated frame',
          bufferedBytes: this.decoder.bufferedBytes,
        },
        `${this.peer} closed with a truncated request frame`,
      );
    }
    this.ending = true;
    // end() flushes queued writes; destroy once they are out so a silent peer cannot hold us.
    this.socket.end(() => this.destroy());
  }

  private handlerFailed(error: unknown): void {
    if (this.isClosed) return;
    this.logger.error(
      { event: 'request.failed', peer: this.peer, connectionId: this.id, listener: this.listenerName, err: error },
      `request handler failed (bug); closing the connection from ${this.peer}`,
    );
    this.destroy();
  }

  private markClosed(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.responses.clear();
    this.onClose(this);
  }
}

/**
 * `handler`, giving each arena frame back to `decoder` once its request is done: when the handler
 * returns, throws, or its promise settles (a Produce with acks=-1 holds its block until then).
 */
function releasingArenaFrames(handler: RequestHandler, decoder: FrameDecoder): RequestHandler {
  return (frame, context) => {
    if (!decoder.isArenaFrame(frame)) return handler(frame, context);
    let result: ReturnType<RequestHandler>;
    try {
      result = handler(frame, context);
    } catch (error) {
      decoder.release(frame);
      throw error;
    }
    if (result !== null && typeof (result as Promise<unknown>).then === 'function') {
      const release = (): void => decoder.release(frame);
      (result as Promise<unknown>).then(release, release);
      return result;
    }
    decoder.release(frame);
    return result;
  };
}
