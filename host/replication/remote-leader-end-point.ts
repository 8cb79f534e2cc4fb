/**
 * Kafka's RemoteLeaderEndPoint: a {@link LeaderEndPoint} that speaks Kafka's wire protocol over
 * {@link NodeChannels} to a source broker's inter-broker listener (`inter.broker.listener.name`,
 * endpoint from the broker's registration, looked up before each request so a broker that
 * re-registers elsewhere is followed).
 *
 * Wire: Fetch v12 (the first with LastFetchedEpoch and DivergingEpoch, KIP-320; topics by name),
 * sessionless (session id 0, epoch -1: every request is a full fetch), replica_id = this broker;
 * the request may take replica.socket.timeout.ms. ListOffsets v1 with replica_id = this broker,
 * timestamp -2 (earliest) / -1 (latest), one partition per request.
 */
import type { NodeChannels, NodeEndpoint } from '../network/node-channels.js';
import { FETCH_API, LIST_OFFSETS_API } from '../network/remote-apis.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type {
  LeaderEndPoint, LeaderOffset, LeaderResult, ReplicaFetchPartitionData, ReplicaFetchRequest, ReplicaFetchResponse,
} from './leader-end-point.js';

/** The Fetch version followers send. */
export const REPLICA_FETCH_VERSION = 12;
/** The ListOffsets version followers send. */
export const REPLICA_LIST_OFFSETS_VERSION = 1;
const EARLIEST_TIMESTAMP = -2;
const LATEST_TIMESTAMP = -1;

/** The source broker and how to reach it. */
export interface RemoteLeaderEndPointOptions {
  /** The source broker. */
  readonly brokerId: number;
  /** This broker's node.id (replica_id). */
  readonly replicaId: number;
  /** The channels this fetcher sends on (one set per fetcher id, so fetchers do not queue behind each other's long polls). */
  readonly channels: NodeChannels;
  /** Where the source broker's inter-broker listener is, from its registration; undefined while unknown. */
  endpoint(brokerId: number): NodeEndpoint | undefined;
  /** replica.socket.timeout.ms: the longest wait for one answer, ms. */
  readonly requestTimeoutMs: number;
}

/** Fetch and ListOffsets to one source broker. */
export class RemoteLeaderEndPoint implements LeaderEndPoint {
  readonly brokerId: number;

  constructor(private readonly options: RemoteLeaderEndPointOptions) {
    this.brokerId = options.brokerId;
  }

  async fetch(request: ReplicaFetchRequest): Promise<LeaderResult<ReplicaFetchResponse>> {
    if (!this.resolveEndpoint()) return { kind: 'disconnected', reason: `no endpoint known for broker ${this.brokerId}` };
    const topics = new Map<string, ReplicaFetchRequest['partitions'][number][]>();
    for (const partition of request.partitions) {
      let list = topics.get(partition.topic);
      if (list === undefined) topics.set(partition.topic, list = []);
      list.push(partition);
    }
    const result = await this.options.channels.send(this.brokerId, FETCH_API, REPLICA_FETCH_VERSION, {
      replicaId: request.replicaId,
      maxWaitMs: request.maxWaitMs,
      minBytes: request.minBytes,
      maxBytes: request.maxBytes,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [...topics].map(([topic, partitions]) => ({
        topic,
        partitions: partitions.map((p) => ({
          partition: p.partition,
          currentLeaderEpoch: p.currentLeaderEpoch,
          fetchOffset: p.fetchOffset,
          lastFetchedEpoch: p.lastFetchedEpoch,
          logStartOffset: p.logStartOffset,
          partitionMaxBytes: p.partitionMaxBytes,
        })),
      })),
    }, this.options.requestTimeoutMs);
    if (result.kind !== 'response') return result;
    const partitions: ReplicaFetchPartitionData[] = [];
    for (const topic of result.body.responses) {
      for (const p of topic.partitions) {
        const diverging = p.divergingEpoch;
        partitions.push({
          topic: topic.topic,
          partition: p.partitionIndex,
          errorCode: p.errorCode,
          highWatermark: p.highWatermark,
          logStartOffset: p.logStartOffset,
          // Kafka's default (-1, -1) means "no divergence".
          divergingEpoch: diverging.epoch < 0 && diverging.endOffset < 0 ? null : { epoch: diverging.epoch, endOffset: diverging.endOffset },
          records: p.records,
        });
      }
    }
    return { kind: 'response', body: { errorCode: result.body.errorCode, partitions } };
  }

  fetchEarliestOffset(topic: string, partition: number): Promise<LeaderResult<LeaderOffset>> {
    return this.listOffset(topic, partition, EARLIEST_TIMESTAMP);
  }

  fetchLatestOffset(topic: string, partition: number): Promise<LeaderResult<LeaderOffset>> {
    return this.listOffset(topic, partition, LATEST_TIMESTAMP);
  }

  private async listOffset(topic: string, partition: number, timestamp: number): Promise<LeaderResult<LeaderOffset>> {
    if (!this.resolveEndpoint()) return { kind: 'disconnected', reason: `no endpoint known for broker ${this.brokerId}` };
    const result = await this.options.channels.send(this.brokerId, LIST_OFFSETS_API, REPLICA_LIST_OFFSETS_VERSION, {
      replicaId: this.options.replicaId,
      topics: [{ name: topic, partitions: [{ partitionIndex: partition, timestamp }] }],
    }, this.options.requestTimeoutMs);
    if (result.kind !== 'response') return result;
    const answer = result.body.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partitionIndex === partition);
    if (answer === undefined) return { kind: 'response', body: { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, offset: -1 } };
    return { kind: 'response', body: { errorCode: answer.errorCode, offset: answer.errorCode === ErrorCode.NONE ? answer.offset : -1 } };
  }

  private resolveEndpoint(): boolean {
    const endpoint = this.options.endpoint(this.brokerId);
    if (endpoint === undefined) return false;
    this.options.channels.setEndpoint(this.brokerId, endpoint);
    return true;
  }
}
