/**
 * The transaction coordinator's {@link TxnMarkerWriter} on a broker (Kafka's
 * TransactionMarkerChannelManager transport): the markers of one transaction are grouped by the
 * leader of each partition (the MetadataCache); partitions this broker leads are written
 * in-process through `ReplicaManager.appendTxnMarkers`, the others with one WriteTxnMarkers v1
 * request per leader over its `inter.broker.listener.name` endpoint.
 *
 * Per partition: a topic that no longer exists is NONE (nothing to mark, as Kafka drops it); no
 * leader yet is NOT_LEADER_OR_FOLLOWER, a leader that does not answer REQUEST_TIMED_OUT (both
 * retried by the channel manager). After a marker lands on a `__consumer_offsets` partition the
 * group coordinator is told, so the transaction's pending offsets become visible or are dropped
 * (Kafka's scheduleHandleTxnCompletion); a leader elsewhere does that itself when it appends.
 */
import type { TopicPartitionRef } from '../coordinator/coordinator-types.js';
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import type { TxnMarkerEntry, TxnMarkerWriter } from '../coordinator/transaction-marker-channel-manager.js';
import type { NodeChannels, NodeEndpoint } from '../network/node-channels.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeWriteTxnMarkersResponse,
  encodeWriteTxnMarkersRequest,
  type WritableTxnMarkerInit,
  type WritableTxnMarkerResultInit,
  type WriteTxnMarkersRequestInit,
  type WriteTxnMarkersResponse,
} from '../protocol/generated/write-txn-markers.js';

/** The in-process marker append of the log side (ReplicaManager.appendTxnMarkers). */
export type AppendTxnMarkers = (markers: readonly WritableTxnMarkerInit[], timeoutMs?: number) => Promise<WritableTxnMarkerResultInit[]>;

export interface BrokerTxnMarkerWriterOptions {
  nodeId: number;
  /** The leader of a partition (-1 none), undefined when the topic or partition does not exist. */
  leaderOf(topic: string, partition: number): number | undefined;
  /** The inter-broker endpoint of a broker, undefined when unknown. */
  endpointOf(brokerId: number): NodeEndpoint | undefined;
  /** Local appends (ReplicaManager.appendTxnMarkers). */
  appendTxnMarkers: AppendTxnMarkers;
  channels: NodeChannels;
  /** ms a marker append may wait for replication (request.timeout.ms). */
  requestTimeoutMs: number;
  /** A marker was appended here to `__consumer_offsets` partitions (the group coordinator's hook). */
  onOffsetsMarkers(producerId: number, partitions: number[], result: 'commit' | 'abort'): void;
}

const WRITE_TXN_MARKERS_VERSION = 1;
const API = { apiKey: ApiKey.WriteTxnMarkers, name: 'WriteTxnMarkers', encodeRequest: encodeWriteTxnMarkersRequest, decodeResponse: decodeWriteTxnMarkersResponse };

export class BrokerTxnMarkerWriter implements TxnMarkerWriter {
  constructor(private readonly options: BrokerTxnMarkerWriterOptions) {}

  async writeMarkers(entry: TxnMarkerEntry): Promise<number[]> {
    const errors = entry.partitions.map(() => ErrorCode.NONE as number);
    const byLeader = new Map<number, number[]>();
    for (const [index, ref] of entry.partitions.entries()) {
      const leaderId = this.options.leaderOf(ref.topic, ref.partition);
      if (leaderId === undefined) continue; // deleted: nothing to mark
      if (leaderId < 0) {
        errors[index] = ErrorCode.NOT_LEADER_OR_FOLLOWER;
        continue;
      }
      byLeader.set(leaderId, [...(byLeader.get(leaderId) ?? []), index]);
    }
    await Promise.all([...byLeader].map(async ([leaderId, indexes]) => {
      const partitions = indexes.map((index) => entry.partitions[index]!);
      const found = leaderId === this.options.nodeId ? await this.writeLocal(entry, partitions) : await this.writeRemote(leaderId, entry, partitions);
      for (const [i, index] of indexes.entries()) errors[index] = found[i]!;
    }));
    return errors;
  }

  private async writeLocal(entry: TxnMarkerEntry, partitions: TopicPartitionRef[]): Promise<number[]> {
    const [result] = await this.options.appendTxnMarkers([marker(entry, partitions)], this.options.requestTimeoutMs);
    const errors = errorsOf(result, partitions);
    const offsets = partitions.filter((ref, i) => ref.topic === OFFSETS_TOPIC_NAME && errors[i] === ErrorCode.NONE).map((ref) => ref.partition);
    if (offsets.length > 0) this.options.onOffsetsMarkers(entry.producerId, offsets, entry.result);
    return errors;
  }

  private async writeRemote(leaderId: number, entry: TxnMarkerEntry, partitions: TopicPartitionRef[]): Promise<number[]> {
    const endpoint = this.options.endpointOf(leaderId);
    if (endpoint === undefined) return partitions.map(() => ErrorCode.NOT_LEADER_OR_FOLLOWER);
    this.options.channels.setEndpoint(leaderId, endpoint);
    const request: WriteTxnMarkersRequestInit = { markers: [marker(entry, partitions)] };
    const answer = await this.options.channels.send<WriteTxnMarkersRequestInit, WriteTxnMarkersResponse>(
      leaderId, API, WRITE_TXN_MARKERS_VERSION, request, this.options.requestTimeoutMs);
    if (answer.kind !== 'response') return partitions.map(() => ErrorCode.REQUEST_TIMED_OUT);
    return errorsOf(answer.body.markers[0], partitions);
  }
}

function marker(entry: TxnMarkerEntry, partitions: readonly TopicPartitionRef[]): WritableTxnMarkerInit {
  const byTopic = new Map<string, number[]>();
  for (const ref of partitions) byTopic.set(ref.topic, [...(byTopic.get(ref.topic) ?? []), ref.partition]);
  return {
    producerId: entry.producerId,
    producerEpoch: entry.producerEpoch,
    transactionResult: entry.result === 'commit',
    coordinatorEpoch: entry.coordinatorEpoch,
    topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
  };
}

/** The answer's error for each partition, in order; a partition missing from the answer is UNKNOWN_SERVER_ERROR (retried). */
function errorsOf(result: WritableTxnMarkerResultInit | undefined, partitions: readonly TopicPartitionRef[]): number[] {
  const found = new Map<string, number>();
  for (const topic of result?.topics ?? []) {
    for (const partition of topic.partitions) found.set(`${topic.name}\u0000${partition.partitionIndex}`, partition.errorCode);
  }
  return partitions.map((ref) => found.get(`${ref.topic}\u0000${ref.partition}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR);
}
