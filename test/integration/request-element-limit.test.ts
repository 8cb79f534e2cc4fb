import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreatePartitionsResponse, encodeCreatePartitionsRequest } from '../../host/protocol/generated/create-partitions.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { fetch, metadata } from './requests.js';

/** request.max.array.elements 25,000 here (default 100,000), so the frames stay a few hundred KiB. */
const LIMIT = 25_000;

describe('No request makes the broker decode more than request.max.array.elements array elements (issue 15)', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({ 'request.max.array.elements': LIMIT }, { captureLogs: true });
    client = await RawKafkaClient.connect(broker.broker.port);
    const created = await client.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse,
      { topics: [{ name: 'grow', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  const grow = (c: RawKafkaClient, newPartitions: number, brokerId: number) =>
    c.request(ApiKey.CreatePartitions, 1, encodeCreatePartitionsRequest, decodeCreatePartitionsResponse, {
      topics: [{ name: 'grow', count: 1 + newPartitions, assignments: Array.from({ length: newPartitions }, () => ({ brokerIds: [brokerId] })) }],
      timeoutMs: 5000, validateOnly: true,
    });

  it('closes the connection of a CreatePartitions naming 15,000 assignments (30,001 elements); the broker keeps answering', async () => {
    const fuzzer = await RawKafkaClient.connect(broker.broker.port);
    await expect(grow(fuzzer, 15_000, broker.broker.nodeId)).rejects.toThrow();
    await fuzzer.closed;
    const refused = broker.logLines.find((line) => line.event === 'request.refused' && line.api === 'CreatePartitions');
    expect(String(refused?.msg)).toContain(`refused by request.max.array.elements: more than ${LIMIT} array elements`);
    const meta = await metadata(client, 1, { topics: [{ name: 'grow' }] });
    expect(meta.topics[0]!.partitions).toHaveLength(1);
  });

  it('answers a Fetch naming 26,000 partitions with INVALID_REQUEST (its top-level error)', async () => {
    const topics = Array.from({ length: 100 }, (_, t) => ({
      topic: `t-${t}`,
      partitions: Array.from({ length: 260 }, (_, partition) => ({ partition, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1024 })),
    }));
    const response = await fetch(client, 11, { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, topics, forgottenTopicsData: [], rackId: '' });
    expect(response.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(response.responses).toEqual([]);
  });

  it('serves a large legitimate request under the limit: CreatePartitions validating 10,000 assignments (20,001 elements)', async () => {
    const response = await grow(client, 10_000, broker.broker.nodeId);
    expect(response.results.map((r) => [r.errorCode, r.errorMessage])).toEqual([[ErrorCode.NONE, null]]);
  });

  it('refuses a growth past controller.max.records.per.user.op before walking its assignments (POLICY_VIOLATION, not the bad broker id)', async () => {
    const response = await grow(client, 10_001, 99);
    expect(response.results[0]!.errorCode).toBe(ErrorCode.POLICY_VIOLATION);
    expect(response.results[0]!.errorMessage).toContain('controller.max.records.per.user.op');
  });
});
