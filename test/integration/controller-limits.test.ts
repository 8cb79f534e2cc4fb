import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreatePartitionsResponse, encodeCreatePartitionsRequest } from '../../host/protocol/generated/create-partitions.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeMetadataResponse, encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient, type Decoder, type Encoder } from './raw-kafka-client.js';
import { metadata } from './requests.js';

describe('One client cannot make the controller do unbounded work (issue 15)', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;
  let other: RawKafkaClient;

  beforeAll(async () => {
    // 2 partition mutations per second, burst 2.
    broker = await startTestBroker({ 'controller.mutation.rate': 2, 'controller.quota.window.num': 1, 'max.partitions': 200 });
    client = await RawKafkaClient.connect(broker.broker.port);
    other = await RawKafkaClient.connect(broker.broker.port);
  });
  afterAll(async () => {
    client.close();
    other.close();
    await broker.close();
  });

  const createTopic = (c: RawKafkaClient, name: string, numPartitions: number) =>
    c.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse,
      { topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });

  it('refuses CreateTopics of 2^15 and 2^16 partitions with POLICY_VIOLATION at once, without charging the mutation quota (2 per second here)', async () => {
    const response = await client.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
      topics: [32_768, 65_536].map((numPartitions) => ({ name: `huge-${numPartitions}`, numPartitions, replicationFactor: 1, assignments: [], configs: [] })),
      timeoutMs: 5000, validateOnly: false,
    });
    expect(response.topics.map((topic) => topic.errorCode)).toEqual([ErrorCode.POLICY_VIOLATION, ErrorCode.POLICY_VIOLATION]);
    expect(response.topics[1]!.errorMessage).toContain('65537 metadata records');
    expect(response.throttleTimeMs).toBe(0);
    const meta = await metadata(client, 4, { topics: [{ name: 'huge-32768' }], allowAutoTopicCreation: false });
    expect(meta.topics[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('refuses CreatePartitions to 2^16 partitions with POLICY_VIOLATION naming the limit, without creating any', async () => {
    // validate_only: the quota is not spent, the limit is checked all the same.
    const created = await createTopic(client, 'grow', 1);
    expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const response = await client.request(ApiKey.CreatePartitions, 1, encodeCreatePartitionsRequest, decodeCreatePartitionsResponse,
      { topics: [{ name: 'grow', count: 65_536, assignments: null }], timeoutMs: 5000, validateOnly: true });
    expect(response.results[0]!.errorCode).toBe(ErrorCode.POLICY_VIOLATION);
    expect(response.results[0]!.errorMessage).toContain('controller.max.records.per.user.op');
    const meta = await metadata(client, 1, { topics: [{ name: 'grow' }] });
    expect(meta.topics[0]!.partitions).toHaveLength(1);
  });

  it('answers an old-version CreateTopics over the mutation quota after its throttle time; other clients are answered meanwhile', async () => {
    const throttled = createTopic(client, 'burst', 4); // 1 token left after 'grow', 4 partitions: 1.5 s of throttle
    const order: string[] = [];
    void throttled.then(() => order.push('create-topics'));
    await metadata(other, 1, { topics: [] });
    order.push('metadata');
    const response = await throttled;
    expect(response.topics[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(response.throttleTimeMs).toBeGreaterThan(0);
    expect(order).toEqual(['metadata', 'create-topics']);
  });

  it('counts topics auto-created by Metadata against the client\'s quota, so its next CreateTopics is throttled', async () => {
    // A client id of its own: a full bucket of 2, whatever the tests above spent.
    const asClient = async <Req, Res>(apiKey: number, version: number, encode: Encoder<Req>, decode: Decoder<Res>, request: Req): Promise<Res> =>
      client.readResponse(apiKey, version, decode, client.sendRequest(apiKey, version, encode, request, 'auto-creator'));
    // Each creation finds the bucket at 2, 1, then 0 tokens (>= 0: made), leaving it at -1.
    const auto = await asClient(ApiKey.Metadata, 1, encodeMetadataRequest, decodeMetadataResponse,
      { topics: [{ name: 'auto-1' }, { name: 'auto-2' }, { name: 'auto-3' }] });
    expect(auto.topics.map((t) => [t.name, t.errorCode])).toEqual([['auto-1', 0], ['auto-2', 0], ['auto-3', 0]]);
    const response = await asClient(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse,
      { topics: [{ name: 'after-auto', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(response.topics[0]!.errorCode).toBe(ErrorCode.NONE);
    // Uncharged auto-creations would have left 2 tokens, and this partition would not be throttled.
    expect(response.throttleTimeMs).toBeGreaterThan(0);
  });
});
