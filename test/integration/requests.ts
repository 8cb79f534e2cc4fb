/**
 * Typed request helpers over RawKafkaClient for the integration tests: one function per API,
 * taking the version to speak and the generated Init type.
 */
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest, type CreatableTopicConfigInit } from '../../host/protocol/generated/create-topics.js';
import { decodeFetchResponse, encodeFetchRequest, type FetchRequestInit, type FetchResponse } from '../../host/protocol/generated/fetch.js';
import { decodeMetadataResponse, encodeMetadataRequest, type MetadataRequestInit, type MetadataResponse } from '../../host/protocol/generated/metadata.js';
import { decodeProduceResponse, encodeProduceRequest, type ProduceRequestInit, type ProduceResponse } from '../../host/protocol/generated/produce.js';
import { buildRecordBatch, type BuildRecordBatchOptions, type RecordInput } from '../../host/record/batch-builder.js';
import { iterateBatches, readBatch, type KafkaRecord, type RecordBatchHeader } from '../../host/record/records.js';
import type { RawKafkaClient } from './raw-kafka-client.js';

export function batch(values: string[], options: Partial<BuildRecordBatchOptions> = {}): Buffer {
  const records: RecordInput[] = values.map((value, i) => ({ key: `k${i}`, value }));
  return buildRecordBatch({ records, ...options });
}

export function produce(
  client: RawKafkaClient,
  version: number,
  partitions: { topic: string; partition: number; records: Uint8Array | null }[],
  options: { acks?: number; timeoutMs?: number; transactionalId?: string | null } = {},
): Promise<ProduceResponse> {
  const topics = new Map<string, { index: number; records: Uint8Array | null }[]>();
  for (const p of partitions) {
    const list = topics.get(p.topic) ?? [];
    list.push({ index: p.partition, records: p.records });
    topics.set(p.topic, list);
  }
  const request: ProduceRequestInit = {
    transactionalId: options.transactionalId ?? null,
    acks: options.acks ?? 1,
    timeoutMs: options.timeoutMs ?? 5000,
    topicData: [...topics].map(([name, partitionData]) => ({ name, partitionData })),
  };
  return client.request(ApiKey.Produce, version, encodeProduceRequest, decodeProduceResponse, request);
}

export function fetchRequest(
  partitions: { topic: string; partition: number; fetchOffset: number; partitionMaxBytes?: number }[],
  options: Partial<FetchRequestInit> = {},
): FetchRequestInit {
  return {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: partitions.map((p) => ({
      topic: p.topic,
      partitions: [{ partition: p.partition, currentLeaderEpoch: -1, fetchOffset: p.fetchOffset, logStartOffset: -1, partitionMaxBytes: p.partitionMaxBytes ?? 1 << 20 }],
    })),
    forgottenTopicsData: [],
    rackId: '',
    ...options,
  };
}

export function fetch(client: RawKafkaClient, version: number, request: FetchRequestInit): Promise<FetchResponse> {
  return client.request(ApiKey.Fetch, version, encodeFetchRequest, decodeFetchResponse, request);
}

export function metadata(client: RawKafkaClient, version: number, request: MetadataRequestInit): Promise<MetadataResponse> {
  return client.request(ApiKey.Metadata, version, encodeMetadataRequest, decodeMetadataResponse, request);
}

/** Creates topics with CreateTopics v4; resolves with the per-topic error codes. */
export async function createTopic(
  client: RawKafkaClient,
  name: string,
  numPartitions = 1,
  configs: CreatableTopicConfigInit[] = [],
): Promise<number> {
  const response = await client.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
    topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  return response.topics[0]!.errorCode;
}

/** Every record of a records blob (whole batches), with the batch headers. */
export function decodeRecords(blob: Uint8Array | null): { headers: RecordBatchHeader[]; records: KafkaRecord[] } {
  const headers: RecordBatchHeader[] = [];
  const records: KafkaRecord[] = [];
  if (blob === null) return { headers, records };
  for (const bytes of iterateBatches(blob)) {
    const decoded = readBatch(bytes);
    headers.push(decoded.header);
    records.push(...decoded.records);
  }
  return { headers, records };
}

export function values(blob: Uint8Array | null): string[] {
  return decodeRecords(blob).records.map((r) => r.value?.toString() ?? '<null>');
}
