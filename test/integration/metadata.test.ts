import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeFindCoordinatorResponse, encodeFindCoordinatorRequest } from '../../host/protocol/generated/find-coordinator.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, createTopic, metadata, produce } from './requests.js';

const OMITTED = -2147483648;

describe('Metadata', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({ 'num.partitions': 3 });
    client = await RawKafkaClient.connect(broker.broker.port);
    expect(await createTopic(client, 'alpha', 2)).toBe(ErrorCode.NONE);
    expect(await createTopic(client, 'beta', 1)).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  it('lists this broker at its bound address and names it controller, for every version 0-8', async () => {
    for (let version = 0; version <= 8; version++) {
      const response = await metadata(client, version, { topics: [{ name: 'alpha' }], allowAutoTopicCreation: false });
      expect(response.brokers).toEqual([{ nodeId: 1, host: '127.0.0.1', port: broker.broker.port, rack: null }]);
      if (version >= 1) expect(response.controllerId).toBe(1);
      if (version >= 2) expect(response.clusterId).toBe(broker.broker.clusterId);
      const topic = response.topics[0]!;
      expect(topic).toMatchObject({ errorCode: ErrorCode.NONE, name: 'alpha' });
      expect(topic.partitions.map((p) => p.partitionIndex)).toEqual([0, 1]);
      for (const partition of topic.partitions) {
        expect(partition).toMatchObject({ errorCode: ErrorCode.NONE, leaderId: 1, replicaNodes: [1], isrNodes: [1] });
        if (version >= 5) expect(partition.offlineReplicas).toEqual([]);
        if (version >= 7) expect(partition.leaderEpoch).toBeGreaterThanOrEqual(0);
      }
      if (version >= 8) {
        expect(topic.topicAuthorizedOperations).toBe(OMITTED);
        expect(response.clusterAuthorizedOperations).toBe(OMITTED);
      }
    }
  });

  it('treats an empty topic array as all topics in v0 (kafka-python\'s probe)', async () => {
    const response = await metadata(client, 0, { topics: [] });
    expect(response.topics.map((t) => t.name)).toEqual(expect.arrayContaining(['alpha', 'beta']));
  });

  it('treats null as all topics and an empty array as none from v1 on (golden bytes)', async () => {
    // Metadata v1 request bodies: int32 -1 (null array) versus int32 0 (empty array).
    for (const [body, expectAll] of [[Buffer.from([0xff, 0xff, 0xff, 0xff]), true], [Buffer.from([0, 0, 0, 0]), false]] as const) {
      const correlationId = client.sendRequest(ApiKey.Metadata, 1, (w) => w.raw(body), {});
      const frame = await client.nextFrame();
      expect(frame.readInt32BE(0)).toBe(correlationId);
      // After the header: brokers array (1 broker), controller id, then the topics array count.
      let at = 4;
      expect(frame.readInt32BE(at)).toBe(1);
      at += 4 + 4; // count, node id
      at += 2 + frame.readInt16BE(at); // host
      at += 4; // port
      const rackLength = frame.readInt16BE(at);
      at += 2 + Math.max(0, rackLength);
      expect(frame.readInt32BE(at)).toBe(1); // controller id
      at += 4;
      const topicCount = frame.readInt32BE(at);
      if (expectAll) expect(topicCount).toBeGreaterThanOrEqual(2);
      else expect(topicCount).toBe(0);
    }
  });

  it('auto-creates a requested topic with num.partitions when allowed', async () => {
    const response = await metadata(client, 4, { topics: [{ name: 'auto-made' }], allowAutoTopicCreation: true });
    const topic = response.topics[0]!;
    expect(topic.name).toBe('auto-made');
    expect([ErrorCode.NONE, ErrorCode.LEADER_NOT_AVAILABLE]).toContain(topic.errorCode);
    const again = await metadata(client, 4, { topics: [{ name: 'auto-made' }], allowAutoTopicCreation: false });
    expect(again.topics[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(again.topics[0]!.partitions).toHaveLength(3);
  });

  it('does not create a topic when v4+ allow_auto_topic_creation is false (librdkafka consumers)', async () => {
    const response = await metadata(client, 4, { topics: [{ name: 'not-made' }], allowAutoTopicCreation: false });
    expect(response.topics[0]).toMatchObject({ name: 'not-made', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, partitions: [] });
    const all = await metadata(client, 1, { topics: null });
    expect(all.topics.map((t) => t.name)).not.toContain('not-made');
  });

  it('implies auto-creation below v4 (kafka-python Metadata v1)', async () => {
    const response = await metadata(client, 1, { topics: [{ name: 'implied' }] });
    expect([ErrorCode.NONE, ErrorCode.LEADER_NOT_AVAILABLE]).toContain(response.topics[0]!.errorCode);
    const again = await metadata(client, 1, { topics: [{ name: 'implied' }] });
    expect(again.topics[0]!.errorCode).toBe(ErrorCode.NONE);
  });

  it('answers INVALID_TOPIC_EXCEPTION for an illegal topic name', async () => {
    const response = await metadata(client, 4, { topics: [{ name: 'bad name!' }], allowAutoTopicCreation: true });
    expect(response.topics[0]!.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
  });

  it('marks __consumer_offsets internal once it exists and never lists the metadata log', async () => {
    // FindCoordinator creates the offsets topic, as in Kafka.
    await client.request(ApiKey.FindCoordinator, 2, encodeFindCoordinatorRequest, decodeFindCoordinatorResponse, { key: 'g', keyType: 0 });
    const response = await metadata(client, 1, { topics: null });
    const offsets = response.topics.find((t) => t.name === '__consumer_offsets');
    expect(offsets?.isInternal).toBe(true);
    expect(response.topics.find((t) => t.name === 'alpha')?.isInternal).toBe(false);
    expect(response.topics.map((t) => t.name)).not.toContain('__cluster_metadata');
  });

  it('returns authorized operations in v8 when asked', async () => {
    const response = await metadata(client, 8, {
      topics: [{ name: 'beta' }], allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: true,
    });
    expect(response.topics[0]!.topicAuthorizedOperations).toBeGreaterThan(0);
    expect(response.clusterAuthorizedOperations).toBeGreaterThan(0);
  });
});

describe('Metadata with auto.create.topics.enable=false', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;
  beforeAll(async () => {
    broker = await startTestBroker({ 'auto.create.topics.enable': false });
    client = await RawKafkaClient.connect(broker.broker.port);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  it('never creates topics, even when the request allows it', async () => {
    const response = await metadata(client, 4, { topics: [{ name: 'wanted' }], allowAutoTopicCreation: true });
    expect(response.topics[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const produced = await produce(client, 7, [{ topic: 'wanted', partition: 0, records: batch(['x']) }]);
    expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });
});
