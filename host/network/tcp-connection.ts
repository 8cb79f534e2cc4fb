/**
 * The TCP transport of a Kafka connection (KafkaConnection, kafka-connection.ts, holds the
 * request pipeline and its states): socket events in, size-prefixed response frames out.
 *
 * Wire: int32 size prefix + request frame in (FrameDecoder splits the stream; a spanning Produce
 * frame is gathered into the core's frame ring), int32 size prefix + response frame out, corked
 * into one writev per pump. Input backpressure is the socket's own: paused while the connection is
 * over its limits. The peer may half-close (FIN): what it sent is still answered (the server sets
 * allowHalfOpen). Idle: Node's socket timeout (connections.max.idle.ms), ignored while a request
 * is in flight (a long-poll Fetch keeps the connection) unless the peer has ended its side (then
 * its unanswered requests are dropped with the connection). Every close cause destroys the socket;
 * a refusal or a bad frame is logged at warn with the peer.
 *
 * Slow senders (slowloris): the bytes of the frame being received are held from the broker's
 * `queued.max.request.bytes` pool (request-memory-pool.ts: the connection stops reading while the
 * pool is full), and a frame that is not complete `socket.partial.request.timeout.ms` after its
 * first byte arrived closes the connection. Time spent waiting for pool memory counts: otherwise
 * slow senders declaring large frames took the pool in turns, each for the whole timeout, while
 * every other connection with a multi-read frame waited behind all of them (found by a trial: 300
 * such connections, one closed per 30 s). The timer stops only while the connection's own limits
 * (requests in flight) hold its input back.
 */
import type { Socket } from 'node:net';
import type { Time, TimerHandle } from '../io/environment.js';
import { fetchReadBuffers, type ReadBufferPool } from '../log/read-buffer-pool.js';
import { type FrameArena, getCore } from '../wasm/core.js';
import { FrameDecoder } from './frame-decoder.js';
import { KafkaConnection, type CloseCause, type ConnectionLimits, type ConnectionTransport, type FrameSource } from './kafka-connection.js';
import type { NetworkLogger, RequestHandler, ResponseBytes } from './network-types.js';
import type { RequestMemoryHolder, RequestMemoryPool } from './request-memory-pool.js';
import type { ResponseMemoryPool } from './response-memory-pool.js';

export type { ConnectionLimits } from './kafka-connection.js';

/**
 * What a connection borrows from its broker: the core's ring for request frames spanning socket
 * chunks, and the pool that Fetch reads leased their buffers from (a written chunk goes back to
 * it). Default: the process's core and pool.
 */
export interface ConnectionResources {
  readonly frameArena: FrameArena;
  readonly readBuffers: Pick<ReadBufferPool, 'isLeased' | 'release'>;
  /** queued.max.request.bytes across the broker's connections; absent: no shared bound. */
  readonly requestMemory?: RequestMemoryPool;
  /** queued.max.response.bytes across the broker's TCP connections; absent: no shared bound. */
  readonly responseMemory?: ResponseMemoryPool;
}

/** Slow-sender bounds of a connection (see the file header). */
export interface PartialRequestGuard {
  /** socket.partial.request.timeout.ms; 0 disables the timeout. */
  readonly partialRequestTimeoutMs: number;
  readonly time: Pick<Time, 'setTimeout' | 'clearTimeout'>;
}

/** The process-wide resources (getCore()'s frame ring, fetchReadBuffers). */
export function defaultConnectionResources(): ConnectionResources {
  return { frameArena: getCore().frameArena, readBuffers: fetchReadBuffers };
}

const SIZE_PREFIX_BYTES = 4;
const EMPTY = Buffer.alloc(0);
/** Up to this many bytes of a response's first part are copied behind its size prefix (one write). */
const MERGE_PREFIX_MAX_BYTES = 2048;
/**
 * Api keys whose frames, when they span socket chunks, are gathered into the core's frame ring
 * (records then validated and stamped in place). Produce (0) only: its handler keeps no view of
 * the request once it completes, which the ring's reuse requires.
 */
const ARENA_API_KEYS: ReadonlySet<number> = new Set([0]);

/** One accepted TCP connection: the socket side of a KafkaConnection (see the file header). */
export class TcpConnection implements ConnectionTransport {
  /** The connection's state machine; the context its handler calls receive. */
  readonly connection: KafkaConnection;
  private readonly decoder: FrameDecoder;
  /** Input held back by the connection's own limits, and by the shared request memory. */
  private pausedByConnection = false;
  private pausedByPool = false;
  private partialTimer: TimerHandle | null = null;
  private readonly memoryHolder: RequestMemoryHolder = {
    pause: () => {
      this.pausedByPool = true;
      this.applyPause();
    },
    resume: () => {
      this.pausedByPool = false;
      this.applyPause();
      this.accountInput();
    },
  };

  constructor(
    id: number,
    peer: string,
    listenerName: string,
    private readonly socket: Socket,
    handler: RequestHandler,
    private readonly limits: ConnectionLimits,
    private readonly logger: NetworkLogger,
    onClose: (connection: TcpConnection) => void,
    private readonly resources: ConnectionResources = defaultConnectionResources(),
    private readonly guard: PartialRequestGuard | null = null,
  ) {
    const decoder = new FrameDecoder(limits.socketRequestMaxBytes, {
      arena: resources.frameArena,
      arenaApiKeys: ARENA_API_KEYS,
    });
    this.decoder = decoder;
    this.connection = new KafkaConnection({
      id,
      peer,
      listenerName,
      handler: releasingArenaFrames(handler, decoder),
      source: this.accountedSource(decoder),
      transport: this,
      limits,
      logger,
      responseMemory: resources.responseMemory,
      onClosed: () => onClose(this),
    });
    const connection = this.connection;
    socket.setNoDelay(true);
    socket.setKeepAlive(true);
    if (limits.connectionsMaxIdleMs > 0) socket.setTimeout(limits.connectionsMaxIdleMs);
    socket.on('data', (chunk: Buffer) => {
      if (!connection.accepting) return;
      decoder.push(chunk);
      connection.inputArrived();
      this.accountInput();
    });
    socket.on('drain', () => connection.outputDrained());
    socket.on('timeout', () => this.onIdle());
    // The peer sent FIN: it may be half-closed and still reading its answers.
    socket.on('end', () => connection.peerEnded());
    socket.on('error', (error: Error) => {
      this.logger.debug({ event: 'connection.error', peer, connectionId: id, err: error }, 'connection error');
    });
    socket.on('close', () => {
      this.releaseInput();
      connection.transportClosed();
    });
  }

  /** Server-unique connection id. */
  get id(): number {
    return this.connection.id;
  }

  /** Remote address as `host:port`. */
  get peer(): string {
    return this.connection.peer;
  }

  /** Graceful stop: dispatch nothing new; end the socket once all dispatched requests are answered. */
  beginStop(): void {
    this.connection.beginStop();
  }

  /** Closes at once without a log line (server shutdown past its timeout). */
  destroy(): void {
    if (this.connection.closed) return;
    this.socket.destroy();
    this.releaseInput();
    this.connection.transportClosed();
  }

  /** ConnectionTransport: bytes the socket has not handed to the kernel yet. */
  unsentBytes(): number {
    return this.socket.writableLength;
  }

  /** ConnectionTransport: TCP output backpressure is counted in unsentBytes, never refused. */
  canWrite(): boolean {
    return true;
  }

  /** ConnectionTransport: every leading completed response, corked into one writev. */
  writeResponses(flush: () => number): void {
    this.socket.cork();
    try {
      flush();
    } finally {
      this.socket.uncork();
    }
  }

  /** ConnectionTransport: one response frame, the int32 size prefix then the bytes as the handler returned them. */
  write(response: ResponseBytes, bytes: number): void {
    const single = Buffer.isBuffer(response);
    const parts = single ? null : (response as readonly Buffer[]);
    const first = single ? response : parts!.length > 0 ? parts![0]! : null;
    // A small first part (a Produce response, a Fetch response's header) goes out in one buffer
    // with its size prefix: one socket write instead of two, which is most of a small request's
    // write cost. Leased read buffers are never copied (they are returned to the pool on write).
    if (first !== null && first.length <= MERGE_PREFIX_MAX_BYTES && !this.resources.readBuffers.isLeased(first)) {
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
   * ConnectionTransport: an empty write whose callback runs once everything written before it
   * reached the kernel (Node's 'drain' only follows a write past the high-water mark).
   */
  watchFlush(): void {
    if (!this.socket.writable) return;
    this.socket.write(EMPTY, () => this.connection.outputDrained());
  }

  /** ConnectionTransport: stop reading the socket. */
  pauseInput(): void {
    this.pausedByConnection = true;
    this.applyPause();
  }

  /** ConnectionTransport: read the socket again (unless the shared request memory holds it back). */
  resumeInput(): void {
    this.pausedByConnection = false;
    this.applyPause();
  }

  private applyPause(): void {
    if (this.pausedByConnection || this.pausedByPool) this.socket.pause();
    else this.socket.resume();
  }

  /** The decoder as the connection reads it: every frame taken updates what the connection holds. */
  private accountedSource(decoder: FrameDecoder): FrameSource {
    return {
      next: () => {
        const frame = decoder.next();
        if (frame !== null) this.accountInput();
        return frame;
      },
      get errorReason() {
        return decoder.errorReason;
      },
      get bufferedBytes() {
        return decoder.bufferedBytes;
      },
      discard: () => {
        decoder.discard();
        this.accountInput();
      },
    };
  }

  /**
   * What the connection holds of the request memory (the bytes buffered, or the whole frame
   * being gathered once its size is known), and the partial-frame timer: running while a frame
   * has begun to arrive but is not complete (waiting for pool memory included), unless the
   * connection's own in-flight limits hold the input back.
   */
  private accountInput(): void {
    if (this.connection.closed) return;
    const decoder = this.decoder;
    const pending = decoder.pendingSize;
    this.resources.requestMemory?.update(this.memoryHolder, Math.max(decoder.bufferedBytes, pending));
    const incomplete = pending >= 0 ? decoder.bufferedBytes < pending : decoder.bufferedBytes > 0 && decoder.bufferedBytes < 4;
    if (!incomplete || this.pausedByConnection) this.stopPartialTimer();
    else if (this.partialTimer === null && this.guard !== null && this.guard.partialRequestTimeoutMs > 0) {
      const guard = this.guard;
      this.partialTimer = guard.time.setTimeout(() => {
        this.partialTimer = null;
        this.connection.close(
          `a request frame was not complete ${guard.partialRequestTimeoutMs} ms after it began (socket.partial.request.timeout.ms)`);
      }, guard.partialRequestTimeoutMs);
    }
  }

  private stopPartialTimer(): void {
    if (this.partialTimer === null) return;
    this.guard?.time.clearTimeout(this.partialTimer);
    this.partialTimer = null;
  }

  /** The connection is gone: its request memory goes back to the pool, its timer stops. */
  private releaseInput(): void {
    this.stopPartialTimer();
    this.resources.requestMemory?.remove(this.memoryHolder);
  }

  /** ConnectionTransport: end() flushes queued writes; destroy once they are out so a silent peer cannot hold us. */
  finish(): void {
    this.socket.end(() => this.destroy());
  }

  /** ConnectionTransport: destroys the socket; a handler bug is already logged at error by the connection. */
  close(cause: CloseCause, reason: string): void {
    if (this.connection.closed) return;
    if (cause !== 'handler-failed') {
      this.logger.warn(
        { event: 'connection.closed', peer: this.peer, connectionId: this.id, listener: this.connection.listenerName, reason },
        `closing connection from ${this.peer}: ${reason}`,
      );
    }
    this.destroy();
  }

  private onIdle(): void {
    // Node re-arms the timer on the next read or write; an in-flight request (say a long-poll
    // Fetch) keeps the connection alive until its response is written, unless the peer has ended
    // its side: a FIN cannot tell a half-close from a peer that is gone, and a gone peer's long
    // poll (Fetch max_wait_ms up to 2^31-1) would otherwise hold the connection, and its place
    // under max.connections and max.connections.per.ip, for as long as the poll.
    const connection = this.connection;
    if (connection.closed || (connection.inFlightRequests > 0 && !connection.peerHasEnded)) return;
    const halfClosed = connection.inFlightRequests > 0;
    this.logger.info(
      {
        event: 'connection.closed', peer: this.peer, connectionId: this.id, reason: halfClosed ? 'idle, half-closed' : 'idle',
        connectionsMaxIdleMs: this.limits.connectionsMaxIdleMs, ...(halfClosed ? { inFlightRequests: connection.inFlightRequests } : {}),
      },
      halfClosed
        ? `closing connection from ${this.peer}: it ended its side and ${connection.inFlightRequests} request(s) are still unanswered after connections.max.idle.ms`
        : `closing idle connection from ${this.peer} (connections.max.idle.ms)`,
    );
    this.destroy();
  }

  /**
   * Writes one chunk; a chunk read into the fetch pool goes back to it once the socket is done
   * with it: the write callback ran without error on a live socket (libuv has written the bytes
   * to the kernel). On an error or a destroyed socket it is left to the garbage collector.
   */
  private writePart(part: Buffer): void {
    if (!this.resources.readBuffers.isLeased(part)) {
      this.socket.write(part);
      return;
    }
    this.socket.write(part, (error?: Error | null) => {
      if (error == null && !this.socket.destroyed) this.resources.readBuffers.release(part);
    });
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
