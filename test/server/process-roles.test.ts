/**
 * process.roles=controller and process.roles=broker as in Kafka: controller-only nodes form the
 * quorum and serve no client; broker-only nodes follow the metadata log as observers, register
 * with the active controller, serve clients and forward what needs the controller.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { batch, createTopic, metadata, produce } from '../integration/requests.js';
import { QuorumServers } from './quorum-servers.js';

let cluster: QuorumServers | null = null;

afterEach(async () => {
  await cluster?.close();
  cluster = null;
});

describe('controller-only and broker-only nodes', () => {
  it('three controllers and two brokers: brokers register, a topic created through a broker is served by them', async () => {
    cluster = await QuorumServers.create([
      { id: 1, roles: 'controller' }, { id: 2, roles: 'controller' }, { id: 3, roles: 'controller' },
      { id: 4, roles: 'broker' }, { id: 5, roles: 'broker' },
    ], 31);
    await cluster.start();
    const active = await cluster.active();
    expect([1, 2, 3]).toContain(active.nodeId);
    const [controllers, brokers] = [cluster.servers.slice(0, 3), cluster.servers.slice(3)];
    for (const controller of controllers) {
      expect(controller.listeners).toEqual([]);
      expect(controller.httpListeners).toEqual([]);
    }
    for (const broker of brokers) expect(broker.controller.isActive).toBe(false);
    // Only the broker-only nodes are brokers.
    await cluster.until(() => (active.metadataCache.brokers().filter((b) => !b.fenced).length === 2 ? true : undefined));
    expect(active.metadataCache.brokers().map((b) => b.brokerId)).toEqual([4, 5]);

    const client = await cluster.connect(brokers[0]!);
    expect(await cluster.advanceUntil(createTopic(client, 'orders', 2))).toBe(0);
    await cluster.until(() => (cluster!.servers.every((s) => s.metadataCache.topic('orders') !== undefined) ? true : undefined));
    const answer = await cluster.advanceUntil(metadata(client, 8, { topics: [{ name: 'orders' }], allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }));
    expect(answer.brokers.map((b) => b.nodeId).sort()).toEqual([4, 5]);
    // Clients cannot reach a controller-only node: the controller id they are given is a broker.
    expect([4, 5]).toContain(answer.controllerId);
    const leaders = answer.topics[0]!.partitions.map((p) => p.leaderId);
    expect(leaders.every((id) => id === 4 || id === 5)).toBe(true);
    for (const [index, leaderId] of leaders.entries()) {
      const leaderClient = await cluster.connect(brokers.find((b) => b.nodeId === leaderId)!);
      const response = await cluster.advanceUntil(produce(leaderClient, 7, [{ topic: 'orders', partition: index, records: batch(['x']) }]));
      expect(response.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    }
  }, 60_000);
});
