import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../host/clients/admin.js';
import { KafkaError } from '../../host/clients/errors.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from './broker-harness.js';

let broker: TestBroker;
let admin: Admin;

beforeAll(async () => {
  broker = await startTestBroker();
  admin = new Admin({ bootstrapServers: [broker.bootstrap], clientId: 'admin-test' });
  await admin.connect();
});

afterAll(async () => {
  await admin?.close();
  await broker?.stop();
});

describe('Admin against an in-process broker', () => {
  it('creates, lists, describes and deletes topics', async () => {
    await admin.createTopics({ topics: [{ topic: 'admin-a', numPartitions: 3 }, { topic: 'admin-b' }] });
    expect(await admin.listTopics()).toEqual(expect.arrayContaining(['admin-a', 'admin-b']));
    const [a] = await admin.describeTopics({ topics: ['admin-a'] });
    expect(a!.partitions.map((p) => p.partition)).toEqual([0, 1, 2]);
    expect(a!.partitions.every((p) => p.leader === broker.broker.nodeId)).toBe(true);
    await admin.deleteTopics({ topics: ['admin-b'] });
    expect(await admin.listTopics()).not.toContain('admin-b');
  });

  it('refuses to create an existing topic unless asked to ignore it', async () => {
    await admin.createTopics({ topics: [{ topic: 'admin-dup' }] });
    await expect(admin.createTopics({ topics: [{ topic: 'admin-dup' }] })).rejects.toMatchObject({ errorCode: ErrorCode.TOPIC_ALREADY_EXISTS });
    await admin.createTopics({ topics: [{ topic: 'admin-dup' }], ignoreExisting: true });
  });

  it('reports a missing topic as UNKNOWN_TOPIC_OR_PARTITION', async () => {
    await expect(admin.describeTopics({ topics: ['admin-missing'] })).rejects.toBeInstanceOf(KafkaError);
    await expect(admin.deleteTopics({ topics: ['admin-missing'] })).rejects.toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
  });

  it('sets, shows and removes topic config overrides', async () => {
    await admin.createTopics({ topics: [{ topic: 'admin-configs', configs: { 'retention.ms': '3600000' } }] });
    const [described] = await admin.describeTopics({ topics: ['admin-configs'], includeConfigs: true });
    const retention = described!.configs!.find((c) => c.name === 'retention.ms');
    expect(retention).toMatchObject({ value: '3600000', sourceName: 'DYNAMIC_TOPIC_CONFIG' });
    await admin.alterTopicConfigs('admin-configs', { set: { 'cleanup.policy': 'compact' } });
    let [configs] = await admin.describeConfigs({ resources: [{ type: 'topic', name: 'admin-configs' }] });
    expect(configs!.configs.find((c) => c.name === 'cleanup.policy')?.value).toBe('compact');
    expect(configs!.configs.find((c) => c.name === 'retention.ms')?.value).toBe('3600000');
    await admin.alterTopicConfigs('admin-configs', { delete: ['retention.ms'] });
    [configs] = await admin.describeConfigs({ resources: [{ type: 'topic', name: 'admin-configs' }] });
    expect(configs!.configs.find((c) => c.name === 'retention.ms')?.source).not.toBe(1);
    expect(configs!.configs.find((c) => c.name === 'cleanup.policy')?.value).toBe('compact');
  });

  it('rejects an invalid config value with INVALID_CONFIG', async () => {
    await expect(admin.createTopics({ topics: [{ topic: 'admin-bad-config', configs: { 'retention.ms': 'soon' } }] }))
      .rejects.toMatchObject({ errorCode: ErrorCode.INVALID_CONFIG });
  });

  it('adds partitions', async () => {
    await admin.createTopics({ topics: [{ topic: 'admin-grow', numPartitions: 1 }] });
    await admin.createPartitions({ topicPartitions: [{ topic: 'admin-grow', count: 4 }] });
    const [grown] = await admin.describeTopics({ topics: ['admin-grow'] });
    expect(grown!.partitions).toHaveLength(4);
    await expect(admin.createPartitions({ topicPartitions: [{ topic: 'admin-grow', count: 2 }] }))
      .rejects.toMatchObject({ errorCode: ErrorCode.INVALID_PARTITIONS });
  });

  it('lists offsets of an empty topic as 0..0', async () => {
    await admin.createTopics({ topics: [{ topic: 'admin-offsets', numPartitions: 2 }] });
    expect(await admin.fetchTopicOffsets('admin-offsets')).toEqual([
      { partition: 0, low: 0, high: 0 },
      { partition: 1, low: 0, high: 0 },
    ]);
  });

  it('describes the cluster', async () => {
    const cluster = await admin.describeCluster();
    expect(cluster.brokers.map((b) => b.port)).toEqual([broker.broker.port]);
    expect(cluster.controllerId).toBe(broker.broker.nodeId);
    expect(cluster.clusterId).toBe(broker.broker.clusterId);
  });

  it('resets the offsets of an empty group and reads them back', async () => {
    await admin.createTopics({ topics: [{ topic: 'admin-group-topic', numPartitions: 2 }] });
    await admin.setOffsets({ groupId: 'admin-group', offsets: [{ topic: 'admin-group-topic', partition: 0, offset: 0 }, { topic: 'admin-group-topic', partition: 1, offset: 0 }] });
    expect(await admin.fetchOffsets({ groupId: 'admin-group' })).toEqual([
      { topic: 'admin-group-topic', partition: 0, offset: 0, metadata: '' },
      { topic: 'admin-group-topic', partition: 1, offset: 0, metadata: '' },
    ]);
    expect((await admin.listGroups()).map((g) => g.groupId)).toContain('admin-group');
    const [described] = await admin.describeGroups(['admin-group']);
    expect(described!.state).toBe('Empty');
    await admin.deleteGroups(['admin-group']);
    expect((await admin.listGroups()).map((g) => g.groupId)).not.toContain('admin-group');
  });
});
