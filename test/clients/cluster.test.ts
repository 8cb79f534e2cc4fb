import { afterEach, describe, expect, it } from 'vitest';
import { Cluster } from '../../host/clients/cluster.js';
import { ConnectionError, KafkaError } from '../../host/clients/errors.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { FakeBroker } from './fake-broker.js';

const brokers: FakeBroker[] = [];
const clusters: Cluster[] = [];

async function fake(): Promise<FakeBroker> {
  const broker = await new FakeBroker(7).start();
  brokers.push(broker);
  return broker;
}

function cluster(bootstrapServers: string[], options: { allowAutoTopicCreation?: boolean; requestTimeoutMs?: number } = {}): Cluster {
  const c = new Cluster({ bootstrapServers, retryBackoffMs: 10, ...options });
  clusters.push(c);
  return c;
}

afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.close()));
  await Promise.all(brokers.splice(0).map((b) => b.stop()));
});

describe('Cluster', () => {
  it('bootstraps from the first reachable server and learns brokers and the controller', async () => {
    const broker = await fake();
    const c = cluster(['127.0.0.1:1', broker.bootstrap]);
    await c.connect();
    expect([...c.brokers.keys()]).toEqual([7]);
    expect(c.controllerId).toBe(7);
    expect(c.clusterId).toBe('fake-cluster');
  });

  it('fails fast with ConnectionError naming every unreachable bootstrap server', async () => {
    const c = cluster(['127.0.0.1:1', '127.0.0.1:2']);
    await expect(c.connect()).rejects.toThrow(/127\.0\.0\.1:1.*127\.0\.0\.1:2/);
    await expect(c.connect()).rejects.toBeInstanceOf(ConnectionError);
  });

  it('loads topic metadata and answers leader lookups', async () => {
    const broker = await fake();
    broker.on(ApiKey.Metadata, (request: { topics: { name: string }[] | null }) =>
      broker.metadata((request.topics ?? []).map((t) => ({ name: t.name, partitions: 3 }))));
    const c = cluster([broker.bootstrap]);
    const [topic] = await c.topicMetadata(['orders']);
    expect(topic!.partitions.map((p) => p.partition)).toEqual([0, 1, 2]);
    expect(c.leaderFor('orders', 2)).toBe(7);
    expect(c.partitionCount('orders')).toBe(3);
  });

  it('reports an unknown topic as UNKNOWN_TOPIC_OR_PARTITION without auto-creation', async () => {
    const broker = await fake();
    broker.on(ApiKey.Metadata, (request: { topics: { name: string }[] | null }) =>
      broker.metadata((request.topics ?? []).map((t) => ({ name: t.name, partitions: 0, errorCode: 3 }))));
    const c = cluster([broker.bootstrap]);
    await expect(c.topicMetadata(['missing'])).rejects.toMatchObject({ errorCode: 3 });
  });

  it('retries LEADER_NOT_AVAILABLE while a topic is being created', async () => {
    const broker = await fake();
    let calls = 0;
    broker.on(ApiKey.Metadata, (request: { topics: { name: string }[] | null }) => {
      calls++;
      const names = (request.topics ?? []).map((t) => t.name);
      return broker.metadata(names.map((name) => ({ name, partitions: 2, errorCode: calls < 3 ? 5 : 0 })));
    });
    const c = cluster([broker.bootstrap]);
    const [topic] = await c.topicMetadata(['fresh']);
    expect(topic!.partitions).toHaveLength(2);
    expect(calls).toBeGreaterThanOrEqual(3);
  });

  it('finds a group coordinator, caches it, and uses a separate connection for it', async () => {
    const broker = await fake();
    broker.on(ApiKey.FindCoordinator, () => ({ errorCode: 0, errorMessage: null, nodeId: 7, host: '127.0.0.1', port: broker.port }));
    const c = cluster([broker.bootstrap]);
    await c.connect();
    const first = await c.coordinator('group-a');
    const second = await c.coordinator('group-a');
    expect(first.nodeId).toBe(7);
    expect(second.connection).toBe(first.connection);
    expect(first.connection).not.toBe(await c.connectionTo(7));
    expect(broker.received.filter((r) => r.header.apiKey === ApiKey.FindCoordinator)).toHaveLength(1);
  });

  it('retries COORDINATOR_NOT_AVAILABLE until the coordinator is ready', async () => {
    const broker = await fake();
    let calls = 0;
    broker.on(ApiKey.FindCoordinator, () => {
      calls++;
      return { errorCode: calls < 3 ? 15 : 0, errorMessage: null, nodeId: calls < 3 ? -1 : 7, host: '127.0.0.1', port: broker.port };
    });
    const c = cluster([broker.bootstrap]);
    await c.connect();
    expect((await c.coordinator('group-b')).nodeId).toBe(7);
    expect(calls).toBe(3);
  });

  it('surfaces a non-retriable coordinator error as a KafkaError', async () => {
    const broker = await fake();
    broker.on(ApiKey.FindCoordinator, () => ({ errorCode: 30, errorMessage: 'denied', nodeId: -1, host: '', port: -1 }));
    const c = cluster([broker.bootstrap]);
    await c.connect();
    await expect(c.coordinator('group-c')).rejects.toBeInstanceOf(KafkaError);
  });
});
