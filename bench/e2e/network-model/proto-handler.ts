/**
 * The request handler of the network-model prototypes (bench only): just enough of Kafka for
 * kcat's producer and simple consumer (ApiVersions, Metadata, Produce, ListOffsets, Fetch), built
 * from the broker's own parts: the generated codecs, the request header codec, ChunkedWriter
 * (Fetch record blobs go to the socket by reference, as the broker's Fetch) and UnifiedLog through
 * a PartitionStore. It plugs into the real SocketServer (framing, pipelining, ordered responses).
 *
 * Left out compared with host/api: Partition/ReplicaManager bookkeeping, purgatory (acks=all
 * waits for nobody on one replica; an empty Fetch simply waits max.wait.ms), quotas, auto-creation. Those are
 * the same work in every variant, so leaving them out does not favour one threading model.
 *
 * Metadata: `nodes` are the "brokers" of this process; partition p is led by nodes[p % nodes.length]
 * (variant C: one node per request thread, each leading its own partitions).
 */
import { ChunkedWriter } from '../../../host/api/chunked-writer.js';
import type { ConnectionContext, ResponseBytes } from '../../../host/network/network-types.js';
import { ApiKey } from '../../../host/protocol/generated/api-keys.js';
import { decodeApiVersionsRequest, encodeApiVersionsResponse } from '../../../host/protocol/generated/api-versions.js';
import { decodeFetchRequest, encodeFetchResponse, type FetchableTopicResponseInit } from '../../../host/protocol/generated/fetch.js';
import { decodeListOffsetsRequest, encodeListOffsetsResponse } from '../../../host/protocol/generated/list-offsets.js';
import { decodeMetadataRequest, encodeMetadataResponse } from '../../../host/protocol/generated/metadata.js';
import { decodeProduceRequest, encodeProduceResponse, type TopicProduceResponseInit } from '../../../host/protocol/generated/produce.js';
import { decodeRequestHeader, encodeResponseHeader } from '../../../host/protocol/headers.js';
import { Reader } from '../../../host/protocol/reader.js';
import { Writer } from '../../../host/protocol/writer.js';
import type { PartitionStore, TopicSpec } from './partition-store.js';

export interface ProtoNode { nodeId: number; host: string; port: number }

const VERSIONS = [
  { apiKey: ApiKey.Produce, minVersion: 3, maxVersion: 7 },
  { apiKey: ApiKey.Fetch, minVersion: 4, maxVersion: 11 },
  { apiKey: ApiKey.ListOffsets, minVersion: 1, maxVersion: 3 },
  { apiKey: ApiKey.Metadata, minVersion: 1, maxVersion: 8 },
  { apiKey: ApiKey.ApiVersions, minVersion: 0, maxVersion: 3 },
];
const UNKNOWN_TOPIC_OR_PARTITION = 3;
const NOT_LEADER_OR_FOLLOWER = 6;
const UNSUPPORTED_VERSION = 35;
const LATEST_TIMESTAMP = -1;

/** Per-request service times (frame handed to the handler → response bytes ready), ms. */
export class ServiceTimes {
  produce: number[] = [];
  fetch: number[] = [];
  take(): { produce: number[]; fetch: number[] } {
    const out = { produce: this.produce, fetch: this.fetch };
    this.produce = [];
    this.fetch = [];
    return out;
  }
}

export interface ProtoHandlerOptions {
  store: PartitionStore;
  topics: readonly TopicSpec[];
  /** Every node of the process (read at each Metadata request, so it may be filled in later). */
  nodes: ProtoNode[];
  times: ServiceTimes;
}

export function createProtoHandler(options: ProtoHandlerOptions): (frame: Buffer, connection: ConnectionContext) => ResponseBytes | null | Promise<ResponseBytes | null> {
  const { store, topics, nodes, times } = options;
  const topicByName = new Map(topics.map((topic) => [topic.name, topic]));
  const leaderOf = (partition: number): number => nodes[partition % nodes.length]!.nodeId;

  return (frame, connection) => {
    const startedMs = performance.now();
    const r = new Reader(frame);
    const header = decodeRequestHeader(r);
    if (r.error !== null) {
      connection.close('unparsable request header');
      return null;
    }
    const w = new Writer(256);
    encodeResponseHeader(w, header.apiKey, header.apiVersion, header.correlationId);
    switch (header.apiKey) {
      case ApiKey.ApiVersions: {
        const supported = header.apiVersion <= 3;
        if (supported) decodeApiVersionsRequest(r, header.apiVersion);
        encodeApiVersionsResponse(w, supported ? header.apiVersion : 0, { errorCode: supported ? 0 : UNSUPPORTED_VERSION, apiKeys: VERSIONS });
        return w.toBuffer();
      }
      case ApiKey.Metadata: {
        const request = decodeMetadataRequest(r, header.apiVersion);
        const wanted = request.topics === null ? topics : request.topics.map((t) => topicByName.get(t.name) ?? { name: t.name, partitions: -1, fsyncEachAppend: false });
        encodeMetadataResponse(w, header.apiVersion, {
          brokers: nodes.map((node) => ({ nodeId: node.nodeId, host: node.host, port: node.port })),
          clusterId: 'network-model',
          controllerId: nodes[0]!.nodeId,
          topics: wanted.map((topic) => ({
            errorCode: topic.partitions < 0 ? UNKNOWN_TOPIC_OR_PARTITION : 0,
            name: topic.name,
            partitions: Array.from({ length: Math.max(0, topic.partitions) }, (_, partition) => ({
              errorCode: 0, partitionIndex: partition, leaderId: leaderOf(partition), leaderEpoch: 0,
              replicaNodes: [leaderOf(partition)], isrNodes: [leaderOf(partition)],
            })),
          })),
        });
        return w.toBuffer();
      }
      case ApiKey.ListOffsets: {
        const request = decodeListOffsetsRequest(r, header.apiVersion);
        encodeListOffsetsResponse(w, header.apiVersion, {
          topics: request.topics.map((topic) => ({
            name: topic.name,
            partitions: topic.partitions.map((p) => {
              const log = store.log(topic.name, p.partitionIndex);
              if (log === undefined) return { partitionIndex: p.partitionIndex, errorCode: NOT_LEADER_OR_FOLLOWER };
              const offset = p.timestamp === LATEST_TIMESTAMP ? log.highWatermark : log.logStartOffset;
              return { partitionIndex: p.partitionIndex, errorCode: 0, timestamp: -1, offset, oldStyleOffsets: [offset] };
            }),
          })),
        });
        return w.toBuffer();
      }
      case ApiKey.Produce: {
        const request = decodeProduceRequest(r, header.apiVersion);
        if (r.error !== null) {
          connection.close('malformed Produce');
          return null;
        }
        const responses: TopicProduceResponseInit[] = request.topicData.map((topic) => ({
          name: topic.name,
          partitionResponses: topic.partitionData.map((p) => {
            const log = store.log(topic.name, p.index);
            if (log === undefined || p.records === null) return { index: p.index, errorCode: log === undefined ? NOT_LEADER_OR_FOLLOWER : 87, baseOffset: -1 };
            const outcome = store.append(log, p.records);
            return { index: p.index, errorCode: outcome.errorCode, baseOffset: outcome.baseOffset, logAppendTimeMs: -1, logStartOffset: outcome.logStartOffset };
          }),
        }));
        const finish = (): ResponseBytes | null => {
          times.produce.push(performance.now() - startedMs);
          if (request.acks === 0) return null;
          encodeProduceResponse(w, header.apiVersion, { responses });
          return w.toBuffer();
        };
        const pending = store.afterPendingWrites();
        return pending === null ? finish() : pending.then(finish);
      }
      case ApiKey.Fetch: {
        const request = decodeFetchRequest(r, header.apiVersion);
        const answer = (): ResponseBytes => {
          const cw = new ChunkedWriter(256);
          encodeResponseHeader(cw, header.apiKey, header.apiVersion, header.correlationId);
          let budget = request.maxBytes;
          const responses: FetchableTopicResponseInit[] = request.topics.map((topic) => ({
            topic: topic.topic,
            partitions: topic.partitions.map((p) => {
              const log = store.log(topic.topic, p.partition);
              if (log === undefined) return { partitionIndex: p.partition, errorCode: NOT_LEADER_OR_FOLLOWER, highWatermark: -1, records: null };
              const result = log.read(p.fetchOffset, Math.min(p.partitionMaxBytes, budget), log.highWatermark, budget === request.maxBytes);
              budget -= result.records.length;
              return {
                partitionIndex: p.partition, errorCode: result.errorCode, highWatermark: log.highWatermark,
                lastStableOffset: log.highWatermark, logStartOffset: log.logStartOffset, abortedTransactions: [], records: result.records,
              };
            }),
          }));
          encodeFetchResponse(cw, header.apiVersion, { responses });
          times.fetch.push(performance.now() - startedMs);
          return cw.finish();
        };
        // Kafka's long poll (DelayedFetch), simplified: when nothing is readable now, answer after
        // max.wait.ms (the fetch phases run after the produce phases, so nothing arrives meanwhile).
        // Without it a consumer at the end of some partitions spins on empty fetches.
        const readable = request.topics.some((topic) => topic.partitions.some((p) => {
          const log = store.log(topic.topic, p.partition);
          return log !== undefined && p.fetchOffset < log.highWatermark;
        }));
        if (readable || request.maxWaitMs <= 0) return answer();
        return new Promise((resolve) => setTimeout(() => resolve(answer()), request.maxWaitMs));
      }
      default:
        connection.close(`api key ${header.apiKey} not in the prototype`);
        return null;
    }
  };
}
