/**
 * SimLeaderEndPoint: the ReplicaFetcher's {@link LeaderEndPoint} over the simulation's network.
 * Each request is one message to the source broker; its answer (matched by request id: a
 * duplicated, late or reordered answer is dropped) resolves the promise, or a timer resolves it as
 * a timeout after `requestTimeoutMs` (replica.socket.timeout.ms) when the request or its answer
 * was lost, cut by a partition, or the leader is down.
 */
import type { Time } from '../io/environment.js';
import type { LeaderEndPoint, LeaderOffset, LeaderResult, ReplicaFetchRequest, ReplicaFetchResponse } from '../replication/leader-end-point.js';
import type { ReplicationBody, ReplicationEnvelope } from './replication-messages.js';
import type { SimNetwork } from './sim-network.js';

type Waiting = (body: ReplicationBody | undefined) => void;

/** The answers a broker life waits for, by request id (one table per life, shared by its end points). */
export class PendingRequests {
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting>();

  /** A fresh request id and the promise of its answer body (undefined: timed out). */
  open(time: Time, timeoutMs: number): { requestId: number; answer: Promise<ReplicationBody | undefined> } {
    const requestId = this.nextId++;
    const answer = new Promise<ReplicationBody | undefined>((resolve) => {
      const timer = time.setTimeout(() => this.settle(requestId, undefined), timeoutMs);
      this.waiting.set(requestId, (body) => {
        time.clearTimeout(timer);
        resolve(body);
      });
    });
    return { requestId, answer };
  }

  /** Resolves request `requestId` (once; later calls do nothing). */
  settle(requestId: number, body: ReplicationBody | undefined): void {
    const waiting = this.waiting.get(requestId);
    if (waiting === undefined) return;
    this.waiting.delete(requestId);
    waiting(body);
  }
}

export class SimLeaderEndPoint implements LeaderEndPoint {
  constructor(
    readonly brokerId: number,
    private readonly replicaId: number,
    private readonly time: Time,
    private readonly network: SimNetwork<ReplicationEnvelope>,
    private readonly pending: PendingRequests,
    private readonly requestTimeoutMs: number,
  ) {}

  async fetch(request: ReplicaFetchRequest): Promise<LeaderResult<ReplicaFetchResponse>> {
    const { requestId, answer } = this.pending.open(this.time, this.requestTimeoutMs + request.maxWaitMs);
    this.network.send({ source: this.replicaId, destination: this.brokerId, body: { kind: 'fetch', requestId, request } });
    const body = await answer;
    if (body?.kind !== 'fetchResponse') return { kind: 'timeout' };
    return { kind: 'response', body: body.response };
  }

  fetchEarliestOffset(topic: string, partition: number, currentLeaderEpoch: number): Promise<LeaderResult<LeaderOffset>> {
    return this.listOffsets(topic, partition, currentLeaderEpoch, -2);
  }

  fetchLatestOffset(topic: string, partition: number, currentLeaderEpoch: number): Promise<LeaderResult<LeaderOffset>> {
    return this.listOffsets(topic, partition, currentLeaderEpoch, -1);
  }

  private async listOffsets(topic: string, partition: number, currentLeaderEpoch: number, timestamp: -1 | -2): Promise<LeaderResult<LeaderOffset>> {
    const { requestId, answer } = this.pending.open(this.time, this.requestTimeoutMs);
    this.network.send({ source: this.replicaId, destination: this.brokerId, body: { kind: 'listOffsets', requestId, topic, partition, currentLeaderEpoch, timestamp } });
    const body = await answer;
    if (body?.kind !== 'listOffsetsResponse') return { kind: 'timeout' };
    return { kind: 'response', body: body.offset };
  }
}
