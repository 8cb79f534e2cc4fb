/**
 * AlterPartitionManager (Kafka's name): the broker's side of AlterPartition (api key 56). Partition
 * leaders submit ISR proposals ({@link AlterPartitionSink}); the manager sends them to the active
 * controller and resolves each with the controller's answer for its partition.
 *
 * ```
 * submit ──► unsent (one per partition) ──end of turn──► one AlterPartition v3 request with
 *   every unsent item ──► in flight (one request at a time) ──► answer per partition
 *     error_code 0 or a partition error that a retry cannot fix ──► resolved
 *     NOT_CONTROLLER (41) for the partition ──► unsent again, after the backoff
 *   top level NOT_CONTROLLER (41), STALE_BROKER_EPOCH (77), REQUEST_TIMED_OUT (7), a disconnect,
 *   a timeout, no controller known ──► every item of the request unsent again, after the backoff
 * ```
 *
 * - Batching: items submitted in the same turn of the event loop (before the end-of-turn
 *   microtask) travel in one request, as do all items that queued while a request was in flight.
 * - At most one proposal per partition is pending (unsent or in flight): a second one resolves at
 *   once with OPERATION_NOT_ATTEMPTED (55), as Kafka's manager refuses it; the leader waits for
 *   the first answer.
 * - Retries back off exponentially from `retryBackoffMs` to `retryBackoffMaxMs` on the injected
 *   {@link Time}; a success resets the backoff. An item is retried until answered or until
 *   {@link AlterPartitionManager.shutdown} (then OPERATION_NOT_ATTEMPTED).
 * - The request goes to the node `activeControllerId()` names at send time, with this broker's
 *   id and current broker epoch, so a controller change or a re-registration is followed by the
 *   next attempt. A `local` controller (the embedded single node) is called directly instead.
 *
 * The ISR members' broker epochs (KIP-903) are the ones the Partition recorded with each
 * follower's fetches (from this broker's metadata: our followers fetch with Fetch v12, which has
 * no replica epoch; Kafka's v15 ReplicaState carries it), -1 where unknown (not checked).
 */
import type { Time, TimerHandle } from '../io/environment.js';
import type { ChannelResult, RemoteApi } from '../network/node-channel.js';
import {
  type AlterPartitionRequest,
  type AlterPartitionRequestInit,
  type AlterPartitionResponse,
  type AlterPartitionResponseInit,
  decodeAlterPartitionResponse,
  encodeAlterPartitionRequest,
} from '../protocol/generated/alter-partition.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { AlterPartitionItem, AlterPartitionResult, AlterPartitionSink } from './alter-partition-sink.js';

/** The AlterPartition version sent: v3 (topic ids, ISR members with broker epochs). */
export const ALTER_PARTITION_VERSION = 3;

export const ALTER_PARTITION_API: RemoteApi<AlterPartitionRequestInit, AlterPartitionResponse> = {
  apiKey: ApiKey.AlterPartition, name: 'AlterPartition',
  encodeRequest: encodeAlterPartitionRequest, decodeResponse: decodeAlterPartitionResponse,
};

/** What the manager sends through (NodeChannels fits). */
export interface AlterPartitionTransport {
  send<Req, Res>(nodeId: number, api: RemoteApi<Req, Res>, version: number, body: Req, timeoutMs?: number): Promise<ChannelResult<Res>>;
}

/** A controller in this process (QuorumController fits). */
export interface LocalAlterPartitionController {
  alterPartition(request: AlterPartitionRequest, version: number): Promise<AlterPartitionResponseInit>;
}

export interface AlterPartitionManagerOptions {
  readonly time: Time;
  /** node.id */
  readonly brokerId: number;
  /** This broker's current broker epoch (its registration), -1 while not registered. */
  readonly brokerEpoch: () => number;
  /** The network path: the active controller's id (-1 while unknown) and the channels to it. */
  readonly remote?: { readonly transport: AlterPartitionTransport; readonly activeControllerId: () => number };
  /** The in-process path (used when `remote` is absent). */
  readonly local?: LocalAlterPartitionController;
  /** Per-request timeout, ms; default the transport's. */
  readonly requestTimeoutMs?: number;
  /** First retry delay, ms; default 50. */
  readonly retryBackoffMs?: number;
  /** Longest retry delay, ms; default 1 000. */
  readonly retryBackoffMaxMs?: number;
  /** Told about retried attempts (for logs). */
  readonly onRetry?: (reason: string) => void;
}

interface Pending {
  readonly item: AlterPartitionItem;
  resolve(result: AlterPartitionResult): void;
}

/** Top-level answers after which the same request may succeed at the (possibly new) active controller. */
const RETRIABLE_TOP_LEVEL = new Set<number>([
  ErrorCode.NOT_CONTROLLER, ErrorCode.STALE_BROKER_EPOCH, ErrorCode.REQUEST_TIMED_OUT, ErrorCode.BROKER_NOT_AVAILABLE,
]);

export class AlterPartitionManager implements AlterPartitionSink {
  private readonly unsent = new Map<string, Pending>();
  private readonly inFlight = new Map<string, Pending>();
  private flushPlanned = false;
  private sending = false;
  private retryTimer: TimerHandle | null = null;
  private failures = 0;
  private stopped = false;

  constructor(private readonly options: AlterPartitionManagerOptions) {
    if (options.remote === undefined && options.local === undefined) throw new Error('AlterPartitionManager needs a remote or a local controller');
  }

  /** Proposals waiting to be sent or answered. */
  get pendingCount(): number {
    return this.unsent.size + this.inFlight.size;
  }

  /** Queues a proposal (see the file header); never rejects. */
  submit(item: AlterPartitionItem): Promise<AlterPartitionResult> {
    const key = `${item.topicId}:${item.partition}`;
    if (this.stopped || this.unsent.has(key) || this.inFlight.has(key)) return Promise.resolve(notAttempted());
    return new Promise<AlterPartitionResult>((resolve) => {
      this.unsent.set(key, { item, resolve });
      this.planFlush();
    });
  }

  /** Stops sending; every pending proposal resolves OPERATION_NOT_ATTEMPTED (55). Idempotent. */
  shutdown(): void {
    this.stopped = true;
    if (this.retryTimer !== null) this.options.time.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    for (const pending of [...this.unsent.values(), ...this.inFlight.values()]) pending.resolve(notAttempted());
    this.unsent.clear();
    this.inFlight.clear();
  }

  // ---------------------------------------------------------------------------------------------

  /** Sends at the end of this turn, so everything submitted in it goes together. */
  private planFlush(): void {
    if (this.flushPlanned || this.sending || this.retryTimer !== null) return;
    this.flushPlanned = true;
    void Promise.resolve().then(() => {
      this.flushPlanned = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.stopped || this.sending || this.unsent.size === 0) return;
    this.sending = true;
    const batch = [...this.unsent];
    this.unsent.clear();
    for (const [key, pending] of batch) this.inFlight.set(key, pending);
    let retry: string | null;
    try {
      retry = await this.sendBatch(batch.map(([, pending]) => pending.item));
    } finally {
      this.sending = false;
    }
    if (this.stopped) return;
    if (retry !== null) {
      // Back to the front of the queue, ahead of what was submitted meanwhile.
      const again = new Map(batch.filter(([key]) => this.inFlight.has(key)));
      for (const [key, pending] of this.unsent) again.set(key, pending);
      this.unsent.clear();
      for (const [key, pending] of again) this.unsent.set(key, pending);
      for (const [key] of batch) this.inFlight.delete(key);
      this.backOff(retry);
      return;
    }
    this.failures = 0;
    if (this.unsent.size > 0) this.planFlush();
  }

  /** Sends one request; resolves its answered items; returns why all must be retried, or null. */
  private async sendBatch(items: readonly AlterPartitionItem[]): Promise<string | null> {
    const body = this.request(items);
    let response: AlterPartitionResponseInit;
    const remote = this.options.remote;
    if (remote !== undefined) {
      const controllerId = remote.activeControllerId();
      if (controllerId < 0) return 'no active controller is known';
      const result = await remote.transport.send(controllerId, ALTER_PARTITION_API, ALTER_PARTITION_VERSION, body, this.options.requestTimeoutMs);
      if (result.kind === 'timeout') return `AlterPartition to node ${controllerId} timed out`;
      if (result.kind === 'disconnected') return `AlterPartition to node ${controllerId}: disconnected (${result.reason})`;
      response = result.body;
    } else {
      response = await this.options.local!.alterPartition(body, ALTER_PARTITION_VERSION);
    }
    if (RETRIABLE_TOP_LEVEL.has(response.errorCode)) return `AlterPartition answered error ${response.errorCode}`;
    let partitionRetry: string | null = null;
    for (const item of items) {
      const key = `${item.topicId}:${item.partition}`;
      const pending = this.inFlight.get(key);
      if (pending === undefined) continue;
      const answer = response.topics.find((t) => t.topicId === item.topicId)?.partitions.find((p) => p.partitionIndex === item.partition);
      const errorCode = response.errorCode !== ErrorCode.NONE ? response.errorCode : answer?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
      // The controller knows an older partition state than the leader: another controller is active.
      if (errorCode === ErrorCode.NOT_CONTROLLER) {
        partitionRetry = `AlterPartition for ${item.topic}-${item.partition} answered NOT_CONTROLLER`;
        continue;
      }
      this.inFlight.delete(key);
      pending.resolve(errorCode === ErrorCode.NONE && answer !== undefined
        ? { errorCode, leaderId: answer.leaderId, leaderEpoch: answer.leaderEpoch, partitionEpoch: answer.partitionEpoch, isr: [...answer.isr] }
        : { errorCode, leaderId: -1, leaderEpoch: -1, partitionEpoch: -1, isr: [] });
    }
    return partitionRetry;
  }

  private request(items: readonly AlterPartitionItem[]): AlterPartitionRequest {
    const topics = new Map<string, AlterPartitionRequest['topics'][number]>();
    for (const item of items) {
      let topic = topics.get(item.topicId);
      if (topic === undefined) {
        topic = { topicName: item.topic, topicId: item.topicId, partitions: [] };
        topics.set(item.topicId, topic);
      }
      topic.partitions.push({
        partitionIndex: item.partition, leaderEpoch: item.leaderEpoch, partitionEpoch: item.partitionEpoch,
        newIsr: [...item.newIsr], newIsrWithEpochs: (item.newIsrWithEpochs ?? item.newIsr.map((brokerId) => ({ brokerId, brokerEpoch: -1 }))).map((m) => ({ ...m })), leaderRecoveryState: 0,
      });
    }
    return { brokerId: this.options.brokerId, brokerEpoch: this.options.brokerEpoch(), topics: [...topics.values()] };
  }

  /** 50, 100, 200 ... ms up to the maximum, then a flush. */
  private backOff(reason: string): void {
    this.options.onRetry?.(reason);
    const base = this.options.retryBackoffMs ?? 50;
    const max = this.options.retryBackoffMaxMs ?? 1_000;
    const delayMs = Math.min(max, base * 2 ** Math.min(this.failures, 20));
    this.failures += 1;
    this.retryTimer = this.options.time.setTimeout(() => {
      this.retryTimer = null;
      void this.flush();
    }, delayMs);
  }
}

function notAttempted(): AlterPartitionResult {
  return { errorCode: ErrorCode.OPERATION_NOT_ATTEMPTED, leaderId: -1, leaderEpoch: -1, partitionEpoch: -1, isr: [] };
}
