/**
 * Three BrokerServers in one process, configured as Kafka's KRaft quick start says (three voters in
 * `controller.quorum.voters`, a CONTROLLER listener each): they form one Raft quorum over their
 * CONTROLLER listeners, register their brokers with the active controller over the network,
 * agree on the active controller (also in Metadata's controller id), replay
 * the metadata it commits into every node's cache, refuse changes on the other controllers with
 * NOT_CONTROLLER (41), carry on under a new active controller when the first one stops, and refuse
 * every change once a majority is gone.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { systemEnvironment } from '../../host/io/environment.js';
import { createLogger } from '../../host/observability/logger.js';
import { BrokerServer } from '../../host/server/broker-server.js';
import { getCore } from '../../host/wasm/core.js';
import { RawKafkaClient } from '../integration/raw-kafka-client.js';
import { metadata } from '../integration/requests.js';
import { OFFSETS_TOPIC_NAME, partitionForGroup } from '../../host/coordinator/offsets-topic.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeFindCoordinatorResponse, encodeFindCoordinatorRequest } from '../../host/protocol/generated/find-coordinator.js';
import { waitFor } from '../helpers/wait-for.js';
import { quorumNodeConfigs } from './real-clock-quorum.js';

const dirs: string[] = [];
const servers: BrokerServer[] = [];
const clients: RawKafkaClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.shutdown()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function startQuorum(ids: number[]): Promise<BrokerServer[]> {
  const configs = await quorumNodeConfigs(ids, 'tributary-quorum');
  const started = ids.map((id) => {
    const config = configs.get(id)!;
    dirs.push(config.logDirs[0]!);
    const server = new BrokerServer(config, systemEnvironment(), { core: getCore(), logger: createLogger({ level: process.env.QUORUM_TEST_LOG ?? 'silent' }) });
    servers.push(server);
    return server;
  });
  await Promise.all(started.map((server) => server.startup()));
  return started;
}

/** The active controller every given node's cache names, once they agree. */
function agreedController(nodes: BrokerServer[]): BrokerServer | undefined {
  const id = nodes[0]!.metadataCache.controllerId;
  if (id < 0 || !nodes.every((node) => node.metadataCache.controllerId === id)) return undefined;
  const active = nodes.find((node) => node.nodeId === id);
  return active?.controller.isActive === true ? active : undefined;
}

describe('a three-voter controller quorum of BrokerServers', () => {
  it('agrees on one active controller, replays its commits on every node, and fails over when it stops', async () => {
    const nodes = await startQuorum([1, 2, 3]);
    const nodeIds = new Set(nodes.map((n) => n.nodeId));
    const first = await waitFor('an active controller all three name', () => agreedController(nodes));
    // Every node derived the same cluster id from the voters, and Raft accepted it.
    expect(new Set(nodes.map((n) => n.clusterId)).size).toBe(1);

    // Each broker registered with the active controller over the CONTROLLER listeners
    // (BrokerRegistration, then heartbeats until unfenced) before its start-up finished.
    await waitFor('three brokers in every cache', () => (nodes.every((n) => n.metadataCache.aliveBrokerEndpoints('PLAINTEXT').length === 3) ? true : undefined));
    const [created] = await first.controller.createTopics([{ name: 'orders', numPartitions: 3, replicationFactor: 3 }]);
    expect(created!.errorCode).toBe(0);
    const topicIds = await waitFor('orders in every cache', () => {
      const ids = nodes.map((n) => n.metadataCache.topic('orders')?.topicId);
      return ids.every((id) => id !== undefined) ? ids : undefined;
    });
    expect(new Set(topicIds).size).toBe(1);

    // The others are not active: they refuse with NOT_CONTROLLER and name the active one in Metadata.
    const other = nodes.find((n) => n !== first)!;
    const [refused] = await other.controller.createTopics([{ name: 'refused', numPartitions: 1, replicationFactor: 1 }]);
    expect(refused!.errorCode).toBe(41);
    const client = await RawKafkaClient.connect(other.listeners[0]!.port);
    clients.push(client);
    const answer = await metadata(client, 8, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(answer.controllerId).toBe(first.nodeId);
    expect(answer.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
    expect(answer.topics.map((t) => t.name)).toContain('orders');

    // Auto-creation through a node whose controller is not active is forwarded to the active one.
    const auto = await metadata(client, 8, { topics: [{ name: 'auto-made' }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect([0, 5]).toContain(auto.topics[0]!.errorCode);
    await waitFor('the auto-created topic in every cache', () => (nodes.every((n) => n.metadataCache.topic('auto-made') !== undefined) ? true : undefined));

    // Every node names the same group coordinator: the leader of the group's __consumer_offsets
    // partition (the first lookup, on the active controller's node, creates the topic).
    const findCoordinator = async (node: BrokerServer, group: string) => {
      const c = await RawKafkaClient.connect(node.listeners[0]!.port);
      clients.push(c);
      return c.request(ApiKey.FindCoordinator, 2, encodeFindCoordinatorRequest, decodeFindCoordinatorResponse, { key: group, keyType: 0 });
    };
    expect((await findCoordinator(first, 'g-warmup')).errorCode).toBe(0);
    await waitFor('__consumer_offsets in every cache', () => (nodes.every((n) => n.metadataCache.topic(OFFSETS_TOPIC_NAME) !== undefined) ? true : undefined));
    const offsetsTopic = first.metadataCache.topic(OFFSETS_TOPIC_NAME)!;
    for (const group of ['ga', 'gb', 'gc', 'orders-readers']) {
      const answers = await Promise.all(nodes.map((node) => findCoordinator(node, group)));
      const expected = offsetsTopic.partitions[partitionForGroup(group, offsetsTopic.partitions.length)]!.leaderId;
      expect(answers.map((a) => [a.errorCode, a.nodeId])).toEqual(nodes.map(() => [0, expected]));
    }
    expect(new Set(offsetsTopic.partitions.map((p) => p.leaderId)).size).toBe(3);

    // The active controller stops: the other two elect one of themselves and keep committing.
    await first.shutdown();
    const survivors = nodes.filter((n) => n !== first);
    const second = await waitFor('a new active controller of the survivors', () => agreedController(survivors)).catch((error: Error) => {
      const states = survivors.map((n) => `node ${n.nodeId}: cache controller ${n.metadataCache.controllerId}, active ${n.controller.isActive}, log leader ${JSON.stringify(n.controller.leaderAndEpoch)}`);
      throw new Error(`${error.message}\n${states.join('\n')}`);
    });
    expect(second).not.toBe(first);
    expect(nodeIds.has(second.nodeId)).toBe(true);
    const [again] = await second.controller.createTopics([{ name: 'payments', numPartitions: 1, replicationFactor: 2 }]);
    expect(again!.errorCode).toBe(0);
    await waitFor('payments on both survivors', () => (survivors.every((n) => n.metadataCache.topic('payments') !== undefined) ? true : undefined));
    expect(survivors.every((n) => n.metadataCache.topic('orders')?.topicId === topicIds[0])).toBe(true);

    // Without a majority nothing is accepted: with the other survivor gone, the active controller
    // cannot commit; it steps down and the change is refused (NOT_CONTROLLER), never half-applied.
    const last = survivors.find((n) => n !== second)!;
    await last.shutdown();
    const [lonely] = await second.controller.createTopics([{ name: 'no-majority', numPartitions: 1, replicationFactor: 1 }]);
    expect(lonely!.errorCode).toBe(41);
    expect(second.controller.isActive).toBe(false);
    expect(second.controller.image.topic('no-majority')).toBeUndefined();
    expect(second.metadataCache.topic('no-majority')).toBeUndefined();
  });
});
