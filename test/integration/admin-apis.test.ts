import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAlterConfigsResponse, encodeAlterConfigsRequest } from '../../host/protocol/generated/alter-configs.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreatePartitionsResponse, encodeCreatePartitionsRequest } from '../../host/protocol/generated/create-partitions.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest, type CreatableTopicInit } from '../../host/protocol/generated/create-topics.js';
import { decodeDeleteRecordsResponse, encodeDeleteRecordsRequest } from '../../host/protocol/generated/delete-records.js';
import { decodeDeleteTopicsResponse, encodeDeleteTopicsRequest } from '../../host/protocol/generated/delete-topics.js';
import { decodeDescribeConfigsResponse, encodeDescribeConfigsRequest } from '../../host/protocol/generated/describe-configs.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeInitProducerIdResponse, encodeInitProducerIdRequest } from '../../host/protocol/generated/init-producer-id.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, fetch, fetchRequest, metadata, produce, values } from './requests.js';

const TOPIC = 2;
const BROKER = 4;

describe('admin APIs', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({ 'num.partitions': 2 });
    client = await RawKafkaClient.connect(broker.broker.port);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  const topic = (name: string, extra: Partial<CreatableTopicInit> = {}): CreatableTopicInit =>
    ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [], ...extra });

  function createTopics(version: number, topics: CreatableTopicInit[], validateOnly = false) {
    return client.request(ApiKey.CreateTopics, version, encodeCreateTopicsRequest, decodeCreateTopicsResponse,
      { topics, timeoutMs: 5000, validateOnly });
  }

  it('creates topics with every CreateTopics version 0-4, with defaults for -1 and explicit assignments', async () => {
    for (let version = 0; version <= 4; version++) {
      const response = await createTopics(version, [
        topic(`created-v${version}`, { numPartitions: 3 }),
        topic(`defaults-v${version}`, { numPartitions: -1, replicationFactor: -1 }),
        topic(`assigned-v${version}`, { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1] }, { partitionIndex: 1, brokerIds: [1] }] }),
      ]);
      expect(response.topics.map((t) => [t.name, t.errorCode])).toEqual([
        [`created-v${version}`, ErrorCode.NONE], [`defaults-v${version}`, ErrorCode.NONE], [`assigned-v${version}`, ErrorCode.NONE],
      ]);
    }
    const meta = await metadata(client, 1, { topics: [{ name: 'created-v4' }, { name: 'defaults-v4' }, { name: 'assigned-v4' }] });
    expect(meta.topics.map((t) => t.partitions.length)).toEqual([3, 2, 2]);
  });

  it('answers CreateTopics errors per topic with messages (v1+)', async () => {
    const response = await createTopics(4, [
      topic('created-v4'),
      topic('bad/name'),
      topic('zero', { numPartitions: 0 }),
      topic('replicated', { replicationFactor: 3 }),
      topic('bad-config', { configs: [{ name: 'retention.ms', value: 'soon' }] }),
      topic('unknown-config', { configs: [{ name: 'retention.mss', value: '1' }] }),
      topic('twice'), topic('twice'),
      topic('other-broker', { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [7] }] }),
    ]);
    const byName = response.topics.map((t) => [t.name, t.errorCode]);
    expect(byName).toEqual([
      ['created-v4', ErrorCode.TOPIC_ALREADY_EXISTS],
      ['bad/name', ErrorCode.INVALID_TOPIC_EXCEPTION],
      ['zero', ErrorCode.INVALID_PARTITIONS],
      ['replicated', ErrorCode.INVALID_REPLICATION_FACTOR],
      ['bad-config', ErrorCode.INVALID_CONFIG],
      ['unknown-config', ErrorCode.INVALID_CONFIG],
      ['twice', ErrorCode.INVALID_REQUEST],
      ['twice', ErrorCode.INVALID_REQUEST],
      ['other-broker', ErrorCode.INVALID_REPLICA_ASSIGNMENT],
    ]);
    expect(response.topics[4]!.errorMessage).toContain('retention.ms');
    expect(response.topics[5]!.errorMessage).toContain('retention.ms');
  });

  it('creates nothing with validate_only', async () => {
    const response = await createTopics(1, [topic('dry-run')], true);
    expect(response.topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const meta = await metadata(client, 4, { topics: [{ name: 'dry-run' }], allowAutoTopicCreation: false });
    expect(meta.topics[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('deletes topics with every DeleteTopics version 0-3', async () => {
    for (let version = 0; version <= 3; version++) {
      const name = `doomed-v${version}`;
      expect((await createTopics(4, [topic(name)])).topics[0]!.errorCode).toBe(ErrorCode.NONE);
      await produce(client, 7, [{ topic: name, partition: 0, records: batch(['bye']) }]);
      const response = await client.request(ApiKey.DeleteTopics, version, encodeDeleteTopicsRequest, decodeDeleteTopicsResponse,
        { topicNames: [name, 'never-existed'], timeoutMs: 5000 });
      expect(response.responses.map((r) => [r.name, r.errorCode])).toEqual([
        [name, ErrorCode.NONE], ['never-existed', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      ]);
      const meta = await metadata(client, 4, { topics: [{ name }], allowAutoTopicCreation: false });
      expect(meta.topics[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
  });

  it('recreates a deleted topic empty', async () => {
    expect((await createTopics(4, [topic('phoenix')])).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    await produce(client, 7, [{ topic: 'phoenix', partition: 0, records: batch(['old life']) }]);
    await client.request(ApiKey.DeleteTopics, 1, encodeDeleteTopicsRequest, decodeDeleteTopicsResponse, { topicNames: ['phoenix'], timeoutMs: 1000 });
    expect((await createTopics(4, [topic('phoenix')])).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const fetched = await fetch(client, 11, fetchRequest([{ topic: 'phoenix', partition: 0, fetchOffset: 0 }]));
    expect(fetched.responses[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.NONE, highWatermark: 0 });
  });

  it('adds partitions with CreatePartitions v0-1 and refuses shrinking', async () => {
    expect((await createTopics(4, [topic('growing')])).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    for (let version = 0; version <= 1; version++) {
      const response = await client.request(ApiKey.CreatePartitions, version, encodeCreatePartitionsRequest, decodeCreatePartitionsResponse, {
        topics: [{ name: 'growing', count: 2 + version, assignments: null }, { name: 'missing', count: 4, assignments: null }],
        timeoutMs: 5000, validateOnly: false,
      });
      expect(response.results.map((r) => [r.name, r.errorCode])).toEqual([
        ['growing', ErrorCode.NONE], ['missing', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      ]);
    }
    const shrink = await client.request(ApiKey.CreatePartitions, 1, encodeCreatePartitionsRequest, decodeCreatePartitionsResponse, {
      topics: [{ name: 'growing', count: 2, assignments: null }], timeoutMs: 5000, validateOnly: false,
    });
    expect(shrink.results[0]!.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    const meta = await metadata(client, 1, { topics: [{ name: 'growing' }] });
    expect(meta.topics[0]!.partitions).toHaveLength(3);
    const produced = await produce(client, 7, [{ topic: 'growing', partition: 2, records: batch(['in the new partition']) }]);
    expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
  });

  it('describes topic configs with their sources (v0 is_default, v1+ config_source and synonyms)', async () => {
    expect((await createTopics(4, [topic('configured', { configs: [{ name: 'retention.ms', value: '12345' }] })])).topics[0]!.errorCode)
      .toBe(ErrorCode.NONE);
    for (let version = 0; version <= 2; version++) {
      const response = await client.request(ApiKey.DescribeConfigs, version, encodeDescribeConfigsRequest, decodeDescribeConfigsResponse, {
        resources: [{ resourceType: TOPIC, resourceName: 'configured', configurationKeys: null }], includeSynonyms: true,
      });
      const result = response.results[0]!;
      expect(result.errorCode).toBe(ErrorCode.NONE);
      const retention = result.configs.find((c) => c.name === 'retention.ms')!;
      const cleanup = result.configs.find((c) => c.name === 'cleanup.policy')!;
      expect(retention.value).toBe('12345');
      expect(cleanup.value).toBe('delete');
      if (version === 0) {
        expect(retention.isDefault).toBe(false);
        expect(cleanup.isDefault).toBe(true);
      } else {
        expect(retention.configSource).toBe(1); // DYNAMIC_TOPIC_CONFIG
        expect(cleanup.configSource).toBe(5); // DEFAULT_CONFIG
        expect(retention.synonyms[0]).toMatchObject({ name: 'retention.ms', value: '12345', source: 1 });
      }
    }
  });

  it('describes only the asked config keys, the broker resource, and refuses unknown resources', async () => {
    const response = await client.request(ApiKey.DescribeConfigs, 2, encodeDescribeConfigsRequest, decodeDescribeConfigsResponse, {
      resources: [
        { resourceType: TOPIC, resourceName: 'configured', configurationKeys: ['retention.ms', 'no.such.key'] },
        { resourceType: BROKER, resourceName: '1', configurationKeys: ['num.partitions'] },
        { resourceType: TOPIC, resourceName: 'absent', configurationKeys: null },
        { resourceType: BROKER, resourceName: '9', configurationKeys: null },
      ],
      includeSynonyms: false,
    });
    const [described, brokerConfigs, absent, otherBroker] = response.results;
    expect(described!.configs.map((c) => c.name)).toEqual(['retention.ms']);
    expect(brokerConfigs!.configs).toEqual([expect.objectContaining({ name: 'num.partitions', value: '2', readOnly: true, configSource: 4 })]);
    expect(absent!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(otherBroker!.errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('replaces topic overrides with AlterConfigs v0-1 and validates them', async () => {
    for (let version = 0; version <= 1; version++) {
      const response = await client.request(ApiKey.AlterConfigs, version, encodeAlterConfigsRequest, decodeAlterConfigsResponse, {
        resources: [
          { resourceType: TOPIC, resourceName: 'configured', configs: [{ name: 'cleanup.policy', value: 'compact' }, { name: 'max.message.bytes', value: String(2000 + version) }] },
          { resourceType: TOPIC, resourceName: 'absent', configs: [] },
          { resourceType: TOPIC, resourceName: 'growing', configs: [{ name: 'segment.bytes', value: 'huge' }] },
          { resourceType: BROKER, resourceName: '1', configs: [{ name: 'num.partitions', value: '9' }] },
        ],
        validateOnly: false,
      });
      expect(response.responses.map((r) => r.errorCode)).toEqual([
        ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.INVALID_CONFIG, ErrorCode.INVALID_REQUEST,
      ]);
    }
    const described = await client.request(ApiKey.DescribeConfigs, 1, encodeDescribeConfigsRequest, decodeDescribeConfigsResponse, {
      resources: [{ resourceType: TOPIC, resourceName: 'configured', configurationKeys: ['retention.ms', 'cleanup.policy', 'max.message.bytes'] }],
      includeSynonyms: false,
    });
    const byName = new Map(described.results[0]!.configs.map((c) => [c.name, c.value]));
    // Legacy AlterConfigs replaces the whole set: retention.ms went back to its default.
    expect(byName.get('retention.ms')).toBe('604800000');
    expect(byName.get('cleanup.policy')).toBe('compact');
    expect(byName.get('max.message.bytes')).toBe('2001');
    // The new max.message.bytes applies to the partition log at once.
    const tooBig = await produce(client, 7, [{ topic: 'configured', partition: 0, records: batch(['y'.repeat(3000)]) }]);
    expect(tooBig.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
  });

  it('moves the log start offset with DeleteRecords v0-1', async () => {
    expect((await createTopics(4, [topic('trimmed')])).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    for (const value of ['r0', 'r1', 'r2', 'r3']) await produce(client, 7, [{ topic: 'trimmed', partition: 0, records: batch([value]) }]);
    for (let version = 0; version <= 1; version++) {
      const response = await client.request(ApiKey.DeleteRecords, version, encodeDeleteRecordsRequest, decodeDeleteRecordsResponse, {
        topics: [
          { name: 'trimmed', partitions: [{ partitionIndex: 0, offset: 1 + version }] },
          { name: 'absent', partitions: [{ partitionIndex: 0, offset: 1 }] },
        ],
        timeoutMs: 5000,
      });
      expect(response.topics[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.NONE, lowWatermark: 1 + version });
      expect(response.topics[1]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
    const beyond = await client.request(ApiKey.DeleteRecords, 1, encodeDeleteRecordsRequest, decodeDeleteRecordsResponse, {
      topics: [{ name: 'trimmed', partitions: [{ partitionIndex: 0, offset: 99 }] }], timeoutMs: 5000,
    });
    expect(beyond.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    const toHighWatermark = await client.request(ApiKey.DeleteRecords, 1, encodeDeleteRecordsRequest, decodeDeleteRecordsResponse, {
      topics: [{ name: 'trimmed', partitions: [{ partitionIndex: 0, offset: -1 }] }], timeoutMs: 5000,
    });
    expect(toHighWatermark.topics[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.NONE, lowWatermark: 4 });
    const fetched = await fetch(client, 11, fetchRequest([{ topic: 'trimmed', partition: 0, fetchOffset: 0 }]));
    expect(fetched.responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    await produce(client, 7, [{ topic: 'trimmed', partition: 0, records: batch(['r4']) }]);
    const after = await fetch(client, 11, fetchRequest([{ topic: 'trimmed', partition: 0, fetchOffset: 4 }]));
    expect(values(after.responses[0]!.partitions[0]!.records)).toEqual(['r4']);
    expect(after.responses[0]!.partitions[0]!.logStartOffset).toBe(4);
  });

  it('hands out distinct producer ids with InitProducerId v0-4; a transactional id goes to its coordinator (NOT_COORDINATOR before FindCoordinator created __transaction_state)', async () => {
    const ids = new Set<number>();
    for (let version = 0; version <= 4; version++) {
      const response = await client.request(ApiKey.InitProducerId, version, encodeInitProducerIdRequest, decodeInitProducerIdResponse,
        { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 });
      expect(response).toMatchObject({ errorCode: ErrorCode.NONE, producerEpoch: 0 });
      expect(response.producerId).toBeGreaterThanOrEqual(0);
      ids.add(response.producerId);
    }
    expect(ids.size).toBe(5);
    const transactional = await client.request(ApiKey.InitProducerId, 4, encodeInitProducerIdRequest, decodeInitProducerIdResponse,
      { transactionalId: 'txn-1', transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 });
    expect(transactional).toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR, producerId: -1 });
  });
});
