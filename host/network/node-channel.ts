/**
 * One outgoing request channel from this node to another node's listener (the controller quorum's
 * Vote/BeginQuorumEpoch/Fetch traffic, broker registration and heartbeats, replica fetchers): the
 * role Kafka's NetworkClient plays between servers.
 *
 * Wire format: Kafka request frames (int32 size, request header v1/v2, body) out, response frames
 * (int32 size, response header v0/v1, body) back, matched FIFO by correlation id since a Kafka
 * listener answers each connection in order (a response out of order is a protocol violation and
 * closes the connection).
 *
 * States: `idle` → `connecting` → `ready` → (`backoff` → `idle`). A send while idle opens the
 * connection and queues until it is ready; a send during backoff fails at once as `disconnected`
 * (callers such as Raft retry on their own timers, as KafkaRaftClient does). A request timeout
 * closes the connection (later bytes could not be matched any more) and fails everything in
 * flight, as NetworkClient does. Results are values, never thrown: {@link ChannelResult}.
 *
 * All timers go through the injected {@link Time}, connections through the injected
 * {@link Network}, so the simulator and tests drive it deterministically.
 */
import type { Network, NetworkConnection, Time, TimerHandle } from '../io/environment.js';
import { encodeRequestFrame, readFrameSize, FRAME_SIZE_BYTES } from '../protocol/frame.js';
import { decodeResponseHeader } from '../protocol/headers.js';
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';
import type { ReconnectBackoff } from './reconnect-backoff.js';

/** The codec pair of one API as a requester needs it (generated in host/protocol/generated). */
export interface RemoteApi<Req, Res> {
  readonly apiKey: number;
  readonly name: string;
  encodeRequest(w: Writer, version: number, body: Req): void;
  decodeResponse(r: Reader, version: number): Res;
}

/** What became of one request. */
export type ChannelResult<Res> =
  | { readonly kind: 'response'; readonly body: Res }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'disconnected'; readonly reason: string };

export interface NodeChannelOptions {
  readonly host: string;
  readonly port: number;
  /** client.id in every request header, e.g. `raft-client-1`. */
  readonly clientId: string;
  readonly time: Time;
  readonly network: Network;
  readonly backoff: ReconnectBackoff;
  /** Default wait for a response, ms (`controller.quorum.request.timeout.ms` for Raft). */
  readonly requestTimeoutMs: number;
  /** Wait for the TCP connection, ms (`socket.connection.setup.timeout.ms`, Kafka default 10 000). */
  readonly connectTimeoutMs: number;
  /** Largest response frame accepted, bytes; larger closes the connection. */
  readonly maxResponseBytes: number;
}

type State = 'idle' | 'connecting' | 'ready' | 'backoff' | 'closed';

interface Pending {
  readonly correlationId: number;
  readonly apiKey: number;
  readonly version: number;
  readonly frame: Uint8Array;
  readonly timeoutMs: number;
  timer: TimerHandle | null;
  settle(result: ChannelResult<unknown>): void;
  decode(r: Reader): unknown;
}

/** A Kafka-protocol request channel to one remote endpoint. */
export class NodeChannel {
  private state: State = 'idle';
  private connection: NetworkConnection | null = null;
  /** Sent and awaiting a response, oldest first. */
  private readonly inFlight: Pending[] = [];
  /** Waiting for the connection to be ready. */
  private readonly queued: Pending[] = [];
  private nextCorrelationId = 0;
  private receive: Uint8Array = new Uint8Array(0);
  private timer: TimerHandle | null = null;
  /** Bumped on every new connection so callbacks of an old one are ignored. */
  private generation = 0;

  constructor(private readonly options: NodeChannelOptions) {}

  /** `host:port` of the remote endpoint. */
  get address(): string {
    return `${this.options.host}:${this.options.port}`;
  }

  /** True when a connection is established (diagnostics). */
  get connected(): boolean {
    return this.state === 'ready';
  }

  /**
   * Sends `body` as `version` of `api` and resolves with the response, a timeout or a disconnect.
   * @param timeoutMs overrides the channel's request timeout (e.g. a long-polling Fetch)
   */
  send<Req, Res>(api: RemoteApi<Req, Res>, version: number, body: Req, timeoutMs = this.options.requestTimeoutMs): Promise<ChannelResult<Res>> {
    if (this.state === 'closed') return Promise.resolve({ kind: 'disconnected', reason: 'channel closed' });
    if (this.state === 'backoff') return Promise.resolve({ kind: 'disconnected', reason: `backing off reconnects to ${this.address}` });
    const correlationId = this.nextCorrelationId;
    this.nextCorrelationId = (this.nextCorrelationId + 1) | 0;
    const frame = Uint8Array.from(encodeRequestFrame(
      { apiKey: api.apiKey, apiVersion: version, correlationId, clientId: this.options.clientId },
      (w) => api.encodeRequest(w, version, body),
    ).toBuffer());
    return new Promise<ChannelResult<Res>>((resolve) => {
      const pending: Pending = {
        correlationId, apiKey: api.apiKey, version, frame, timeoutMs, timer: null,
        settle: (result) => resolve(result as ChannelResult<Res>),
        decode: (r) => api.decodeResponse(r, version),
      };
      if (this.state === 'ready') this.transmit(pending);
      else {
        this.queued.push(pending);
        if (this.state === 'idle') this.connect();
      }
    });
  }

  /** Closes the channel for good: everything pending resolves as `disconnected`. */
  close(): void {
    if (this.state === 'closed') return;
    this.drop('channel closed');
    this.state = 'closed';
  }

  private connect(): void {
    this.state = 'connecting';
    const generation = ++this.generation;
    const { time, network, host, port, connectTimeoutMs } = this.options;
    this.timer = time.setTimeout(() => {
      if (generation === this.generation) this.fail(`connect to ${this.address} timed out after ${connectTimeoutMs} ms`);
    }, connectTimeoutMs);
    network.connect(host, port, {
      onData: (data) => { if (generation === this.generation) this.onData(data); },
      onClose: (error) => { if (generation === this.generation) this.fail(`connection to ${this.address} closed${error ? `: ${error.message}` : ''}`); },
    }).then((connection) => {
      if (generation !== this.generation || this.state !== 'connecting') {
        connection.destroy();
        return;
      }
      this.clearTimer();
      this.connection = connection;
      this.state = 'ready';
      this.options.backoff.succeed();
      for (const pending of this.queued.splice(0)) this.transmit(pending);
    }, (error: Error) => {
      if (generation === this.generation) this.fail(`connect to ${this.address} failed: ${error.message}`);
    });
  }

  private transmit(pending: Pending): void {
    this.inFlight.push(pending);
    pending.timer = this.options.time.setTimeout(() => this.onTimeout(pending), pending.timeoutMs);
    this.connection!.write(pending.frame);
  }

  private onTimeout(pending: Pending): void {
    const at = this.inFlight.indexOf(pending);
    if (at < 0) return;
    this.inFlight.splice(at, 1);
    pending.timer = null;
    pending.settle({ kind: 'timeout' });
    // Bytes of the late response would arrive unmatched: start over on a new connection.
    this.fail(`request ${pending.correlationId} to ${this.address} timed out after ${pending.timeoutMs} ms`);
  }

  private onData(data: Uint8Array): void {
    this.receive = this.receive.length === 0 ? data : concat(this.receive, data);
    let at = 0;
    for (;;) {
      const size = readFrameSize(this.receive, at);
      if (size < 0) break;
      if (size > this.options.maxResponseBytes || size < 4) {
        this.fail(`response frame of ${size} bytes from ${this.address} outside [4, ${this.options.maxResponseBytes}]`);
        return;
      }
      if (at + FRAME_SIZE_BYTES + size > this.receive.length) break;
      const start = at + FRAME_SIZE_BYTES;
      at = start + size;
      if (!this.onFrame(this.receive, start, at)) return;
    }
    this.receive = at === this.receive.length ? new Uint8Array(0) : this.receive.subarray(at);
  }

  /** Handles one response frame [start, end); false when it broke the connection. */
  private onFrame(bytes: Uint8Array, start: number, end: number): boolean {
    const pending = this.inFlight[0];
    if (pending === undefined) {
      this.fail(`unsolicited response from ${this.address}`);
      return false;
    }
    const r = new Reader(bytes, start, end);
    const { correlationId } = decodeResponseHeader(r, pending.apiKey, pending.version);
    if (r.error !== null || correlationId !== pending.correlationId) {
      this.fail(`response correlation id ${correlationId} from ${this.address}, expected ${pending.correlationId}`);
      return false;
    }
    const body = pending.decode(r);
    this.inFlight.shift();
    if (pending.timer !== null) this.options.time.clearTimeout(pending.timer);
    if (r.error !== null) {
      pending.settle({ kind: 'disconnected', reason: `malformed response from ${this.address}: ${r.error}` });
      this.fail(`malformed response from ${this.address}`);
      return false;
    }
    pending.settle({ kind: 'response', body });
    return true;
  }

  /** Drops the connection, fails everything pending and waits out the backoff. */
  private fail(reason: string): void {
    if (this.state === 'closed') return;
    this.drop(reason);
    const waitMs = this.options.backoff.fail();
    this.state = 'backoff';
    const generation = this.generation;
    this.timer = this.options.time.setTimeout(() => {
      if (generation === this.generation && this.state === 'backoff') {
        this.timer = null;
        this.state = 'idle';
      }
    }, waitMs);
  }

  private drop(reason: string): void {
    this.generation += 1;
    this.clearTimer();
    const connection = this.connection;
    this.connection = null;
    this.receive = new Uint8Array(0);
    connection?.destroy();
    for (const pending of [...this.inFlight.splice(0), ...this.queued.splice(0)]) {
      if (pending.timer !== null) this.options.time.clearTimeout(pending.timer);
      pending.settle({ kind: 'disconnected', reason });
    }
    this.state = 'idle';
  }

  private clearTimer(): void {
    if (this.timer !== null) this.options.time.clearTimeout(this.timer);
    this.timer = null;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
