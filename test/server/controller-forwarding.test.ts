/**
 * Every request that needs the controller works when sent to a node whose controller is not the
 * active one: the node forwards it to the active controller's CONTROLLER listener (Kafka's
 * ForwardingManager) and answers with the controller's answer; producer ids come from blocks the
 * node gets with AllocateProducerIds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeAlterConfigsResponse, encodeAlterConfigsRequest } from '../../host/protocol/generated/alter-configs.js';
import { decodeCreatePartitionsResponse, encodeCreatePartitionsRequest } from '../../host/protocol/generated/create-partitions.js';
import { decodeDeleteTopicsResponse, encodeDeleteTopicsRequest } from '../../host/protocol/generated/delete-topics.js';
import { decodeIncrementalAlterConfigsResponse, encodeIncrementalAlterConfigsRequest } from '../../host/protocol/generated/incremental-alter-configs.js';
import { decodeInitProducerIdResponse, encodeInitProducerIdRequest } from '../../host/protocol/generated/init-producer-id.js';
import type { RawKafkaClient } from '../integration/raw-kafka-client.js';
import { createTopic } from '../integration/requests.js';
import { QuorumServers } from './quorum-servers.js';

let cluster: QuorumServers | null = null;

afterEach(async () => {
  await cluster?.close();
  cluster = null;
});

const TOPIC = 2;

async function initProducerId(client: RawKafkaClient): Promise<{ errorCode: number; producerId: number }> {
  const response = await client.request(ApiKey.InitProducerId, 4, encodeInitProducerIdRequest, decodeInitProducerIdResponse, {
    transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1,
  });
  return { errorCode: response.errorCode, producerId: response.producerId };
}

describe('a node whose controller is not active forwards to the active controller', () => {
  it('DeleteTopics, CreatePartitions, AlterConfigs, IncrementalAlterConfigs and InitProducerId', async () => {
    cluster = await QuorumServers.create([{ id: 1 }, { id: 2 }, { id: 3 }], 21);
    await cluster.start();
    const active = await cluster.active();
    const follower = cluster.servers.find((server) => server !== active)!;
    const other = cluster.servers.find((server) => server !== active && server !== follower)!;
    const client = await cluster.connect(follower);
    const everyCache = (check: (server: typeof active) => boolean): Promise<true> =>
      cluster!.until(() => (cluster!.servers.every(check) ? true : undefined));

    expect(await cluster.advanceUntil(createTopic(client, 'orders', 1))).toBe(0);
    expect(await cluster.advanceUntil(createTopic(client, 'doomed', 1))).toBe(0);
    await everyCache((server) => server.metadataCache.topic('doomed') !== undefined);

    const grown = await cluster.advanceUntil(client.request(ApiKey.CreatePartitions, 1, encodeCreatePartitionsRequest, decodeCreatePartitionsResponse, {
      topics: [{ name: 'orders', count: 3, assignments: null }], timeoutMs: 5000, validateOnly: false,
    }));
    expect(grown.results).toEqual([expect.objectContaining({ name: 'orders', errorCode: 0 })]);
    await everyCache((server) => server.metadataCache.topic('orders')!.partitions.length === 3);

    const altered = await cluster.advanceUntil(client.request(ApiKey.AlterConfigs, 1, encodeAlterConfigsRequest, decodeAlterConfigsResponse, {
      resources: [{ resourceType: TOPIC, resourceName: 'orders', configs: [{ name: 'retention.ms', value: '3600000' }] }], validateOnly: false,
    }));
    expect(altered.responses).toEqual([expect.objectContaining({ resourceName: 'orders', errorCode: 0 })]);
    await everyCache((server) => server.metadataCache.topic('orders')!.configs.get('retention.ms') === '3600000');

    const incremental = await cluster.advanceUntil(client.request(ApiKey.IncrementalAlterConfigs, 1,
      encodeIncrementalAlterConfigsRequest, decodeIncrementalAlterConfigsResponse, {
        resources: [{ resourceType: TOPIC, resourceName: 'orders', configs: [{ name: 'cleanup.policy', configOperation: 2, value: 'compact' }] }],
        validateOnly: false,
      }));
    expect(incremental.responses).toEqual([expect.objectContaining({ resourceName: 'orders', errorCode: 0 })]);
    await everyCache((server) => server.metadataCache.topic('orders')!.configs.get('cleanup.policy') === 'delete,compact');
    // Configs not named keep their values (incremental), and the controller's validation answers through the forward.
    expect(follower.metadataCache.topic('orders')!.configs.get('retention.ms')).toBe('3600000');
    const invalid = await cluster.advanceUntil(client.request(ApiKey.IncrementalAlterConfigs, 1,
      encodeIncrementalAlterConfigsRequest, decodeIncrementalAlterConfigsResponse, {
        resources: [{ resourceType: TOPIC, resourceName: 'orders', configs: [{ name: 'retention.ms', configOperation: 0, value: 'soon' }] }],
        validateOnly: false,
      }));
    expect(invalid.responses[0]!.errorCode).toBe(40);
    expect(invalid.responses[0]!.errorMessage).toContain('retention.ms');

    const deleted = await cluster.advanceUntil(client.request(ApiKey.DeleteTopics, 3, encodeDeleteTopicsRequest, decodeDeleteTopicsResponse, {
      topicNames: ['doomed'], timeoutMs: 5000,
    }));
    expect(deleted.responses).toEqual([expect.objectContaining({ name: 'doomed', errorCode: 0 })]);
    await everyCache((server) => server.metadataCache.topic('doomed') === undefined);

    // Producer ids: each non-controller node gets its own block from the active controller.
    const first = await cluster.advanceUntil(initProducerId(client));
    const second = await cluster.advanceUntil(initProducerId(client));
    const otherClient = await cluster.connect(other);
    const third = await cluster.advanceUntil(initProducerId(otherClient));
    const activeClient = await cluster.connect(active);
    const fourth = await cluster.advanceUntil(initProducerId(activeClient));
    for (const result of [first, second, third, fourth]) expect(result.errorCode).toBe(0);
    expect(second.producerId).toBe(first.producerId + 1);
    expect(new Set([first, second, third, fourth].map((r) => r.producerId)).size).toBe(4);
  }, 60_000);
});
