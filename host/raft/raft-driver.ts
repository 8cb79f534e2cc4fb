/**
 * RaftDriver: runs a sans-I/O Raft node (RaftClient) on a real network and clock, the role of
 * Kafka's KafkaRaftClientDriver with its KafkaNetworkChannel.
 *
 * - Outbound requests the node queues go to their destination voter over {@link NodeChannels}
 *   (Kafka frames to its CONTROLLER listener); the answer comes back to the node as a response
 *   envelope with the request's correlation id. A timeout or a lost connection is simply dropped:
 *   the node gives a request up itself after `controller.quorum.request.timeout.ms`.
 * - Inbound requests (from this node's CONTROLLER listener) enter through {@link handleRequest},
 *   which resolves when the node answers. Each gets a driver-local correlation id so answers are
 *   matched exactly; one the node never answers is failed after the request timeout.
 * - After every event the node is polled; a single timer wakes it at the time `poll` asked for.
 *
 * Everything runs on the injected Time, so a manual clock drives it in tests.
 */
import type { Time, TimerHandle } from '../io/environment.js';
import type { ChannelResult, RemoteApi } from '../network/node-channel.js';
import type { RaftApi, RaftEnvelope, RaftRequests, RaftResponses } from './messages.js';
import type { RaftWire, RaftWireApi } from './raft-wire.js';

/** What the driver needs of a Raft node (RaftClient has this shape). */
export interface DrivenRaftNode {
  start(): void;
  handle(envelope: RaftEnvelope): void;
  /** Runs due work; returns the monotonic time (ms) at which to poll next. */
  poll(): number;
  takeOutbound(): RaftEnvelope[];
}

/** Where requests to other voters go (NodeChannels has this shape). */
export interface RaftTransport {
  send<Req, Res>(nodeId: number, api: RemoteApi<Req, Res>, version: number, body: Req): Promise<ChannelResult<Res>>;
}

export interface RaftDriverOptions {
  readonly nodeId: number;
  readonly node: DrivenRaftNode;
  readonly transport: RaftTransport;
  readonly wire: RaftWire;
  readonly time: Time;
  /** `controller.quorum.request.timeout.ms`: how long an inbound request may wait for the node's answer. */
  readonly requestTimeoutMs: number;
  /** Called with an error thrown by the node (a bug); the driver stops. */
  readonly onFatal?: (error: unknown) => void;
}

/** The error an inbound request gets when the driver stopped or the node did not answer in time. */
export class RaftRequestAbandoned extends Error {
  /**
   * @param stopping true when the driver is stopped or not started (the node is going away), false
   *   when the node did not answer within the request timeout
   */
  constructor(message: string, readonly stopping: boolean) {
    super(message);
    this.name = 'RaftRequestAbandoned';
  }
}

interface PendingInbound {
  resolve(body: unknown): void;
  reject(error: Error): void;
  timer: TimerHandle;
}

/** Drives one Raft node; see the file header. */
export class RaftDriver {
  private readonly options: RaftDriverOptions;
  private readonly remote: { readonly [A in RaftApi]: RemoteApi<RaftRequests[A], RaftResponses[A]> };
  private readonly pending = new Map<string, PendingInbound>();
  private nextInboundId = 1;
  /** Synthetic sources for requests without a sender id (DescribeQuorum from admin clients). */
  private nextAnonymousSource = -2;
  private timer: TimerHandle | null = null;
  private running = false;
  private pumping = false;
  private stopped = false;

  constructor(options: RaftDriverOptions) {
    this.options = options;
    const remote = (api: RaftWireApi<RaftApi>) => ({ apiKey: api.apiKey, name: api.api, encodeRequest: api.encodeRequest, decodeResponse: api.decodeResponse });
    const w = options.wire;
    this.remote = {
      Vote: remote(w.Vote as never), BeginQuorumEpoch: remote(w.BeginQuorumEpoch as never), EndQuorumEpoch: remote(w.EndQuorumEpoch as never),
      Fetch: remote(w.Fetch as never), FetchSnapshot: remote(w.FetchSnapshot as never), DescribeQuorum: remote(w.DescribeQuorum as never),
    } as never;
  }

  /** Starts the node and its poll loop. */
  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.guard(() => this.options.node.start());
    this.pump();
  }

  /** Stops polling; pending inbound requests fail with {@link RaftRequestAbandoned}. */
  stop(): void {
    this.stopped = true;
    this.running = false;
    if (this.timer !== null) this.options.time.clearTimeout(this.timer);
    this.timer = null;
    for (const [key, pending] of this.pending) {
      this.options.time.clearTimeout(pending.timer);
      pending.reject(new RaftRequestAbandoned('the Raft driver stopped', true));
      this.pending.delete(key);
    }
  }

  /**
   * Hands an inbound request (decoded from the CONTROLLER listener) to the node and resolves with
   * its answer.
   * @throws RaftRequestAbandoned (through the promise) when the driver is not running or the node
   *   did not answer within the request timeout
   */
  handleRequest<A extends RaftApi>(api: A, body: RaftRequests[A]): Promise<RaftResponses[A]> {
    if (!this.running) return Promise.reject(new RaftRequestAbandoned('the Raft driver is not running', true));
    const source = sourceOf(api, body) ?? this.nextAnonymousSource--;
    const correlationId = this.nextInboundId++;
    const key = `${source}:${correlationId}`;
    return new Promise<RaftResponses[A]>((resolve, reject) => {
      const timer = this.options.time.setTimeout(() => {
        if (this.pending.delete(key)) reject(new RaftRequestAbandoned(`${api} from node ${source} not answered within ${this.options.requestTimeoutMs} ms`, false));
      }, this.options.requestTimeoutMs);
      this.pending.set(key, { resolve: resolve as (body: unknown) => void, reject, timer });
      const envelope = { source, destination: this.options.nodeId, correlationId, kind: 'request', api, body } as RaftEnvelope;
      this.guard(() => this.options.node.handle(envelope));
      this.pump();
    });
  }

  /** Polls the node, sends what it queued and re-arms the wake-up timer. Re-entrant calls fold into one. */
  private pump(): void {
    if (!this.running || this.pumping) return;
    this.pumping = true;
    try {
      const nextMs = this.guard(() => this.options.node.poll());
      const outbound = this.guard(() => this.options.node.takeOutbound()) ?? [];
      for (const envelope of outbound) this.dispatch(envelope);
      if (nextMs !== undefined && this.running) this.arm(nextMs);
    } finally {
      this.pumping = false;
    }
  }

  private arm(nextMonotonicMs: number): void {
    const { time } = this.options;
    if (this.timer !== null) time.clearTimeout(this.timer);
    // At least 1 ms: a node that asks to be polled "now" again must not spin the event loop.
    const delayMs = Math.max(1, nextMonotonicMs - time.monotonicMs());
    this.timer = time.setTimeout(() => {
      this.timer = null;
      this.pump();
    }, delayMs);
  }

  private dispatch(envelope: RaftEnvelope): void {
    if (envelope.kind === 'response') {
      const key = `${envelope.destination}:${envelope.correlationId}`;
      const pending = this.pending.get(key);
      if (pending === undefined) return;
      this.pending.delete(key);
      this.options.time.clearTimeout(pending.timer);
      pending.resolve(envelope.body);
      return;
    }
    const api = envelope.api;
    const remote = this.remote[api] as RemoteApi<unknown, unknown>;
    const version = this.options.wire[api].version;
    void this.options.transport.send(envelope.destination, remote, version, envelope.body).then((result) => {
      if (result.kind !== 'response' || !this.running) return;
      const response = {
        source: envelope.destination, destination: this.options.nodeId, correlationId: envelope.correlationId, kind: 'response', api, body: result.body,
      } as RaftEnvelope;
      this.guard(() => this.options.node.handle(response));
      this.pump();
    });
  }

  private guard<T>(action: () => T): T | undefined {
    try {
      return action();
    } catch (error) {
      this.stop();
      if (this.options.onFatal === undefined) throw error;
      this.options.onFatal(error);
      return undefined;
    }
  }
}

/** The voter id a request comes from, read from its body; undefined when the body names none. */
function sourceOf(api: RaftApi, body: unknown): number | undefined {
  switch (api) {
    case 'Vote': return (body as RaftRequests['Vote']).candidateId;
    case 'BeginQuorumEpoch': return (body as RaftRequests['BeginQuorumEpoch']).leaderId;
    case 'EndQuorumEpoch': return (body as RaftRequests['EndQuorumEpoch']).leaderId;
    case 'Fetch': return (body as RaftRequests['Fetch']).replicaId;
    case 'FetchSnapshot': return (body as RaftRequests['FetchSnapshot']).replicaId;
    case 'DescribeQuorum': return undefined;
  }
}
