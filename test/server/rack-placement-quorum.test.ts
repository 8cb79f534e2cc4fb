/**
 * broker.rack end to end: four brokers of one quorum on two racks register their racks, Metadata
 * lists them with their racks, and a topic created through a broker puts each partition's two
 * replicas on the two racks (Kafka's rack-aware assignment), leaders on every broker.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { metadata } from '../integration/requests.js';
import { QuorumServers } from './quorum-servers.js';

let cluster: QuorumServers | null = null;

afterEach(async () => {
  await cluster?.close();
  cluster = null;
});

const RACKS: Record<number, string> = { 1: 'rack-a', 2: 'rack-a', 3: 'rack-b', 4: 'rack-b' };

describe('rack-aware placement in a quorum', () => {
  it('spreads each partition over both racks and answers every broker\'s rack in Metadata', async () => {
    cluster = await QuorumServers.create([
      { id: 1, overrides: { 'broker.rack': RACKS[1]! } }, { id: 2, overrides: { 'broker.rack': RACKS[2]! } },
      { id: 3, overrides: { 'broker.rack': RACKS[3]! } }, { id: 4, roles: 'broker', overrides: { 'broker.rack': RACKS[4]! } },
    ], 17);
    await cluster.start();
    const active = await cluster.active();
    await cluster.until(() => (Object.keys(RACKS).every((id) => active.controller.image.broker(Number(id))?.fenced === false) ? true : undefined));
    const [created] = await cluster.advanceUntil(active.controller.createTopics([{ name: 'racked', numPartitions: 8, replicationFactor: 2 }]));
    expect(created!.errorCode).toBe(0);
    const partitions = active.controller.image.topic('racked')!.partitions;
    for (const p of partitions) expect(new Set(p.replicas.map((id) => RACKS[id])).size).toBe(2);
    expect(new Set(partitions.map((p) => p.replicas[0])).size).toBe(4);

    const client = await cluster.connect(cluster.servers[3]!);
    const answer = await cluster.advanceUntil(metadata(client, 8, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }));
    expect(answer.brokers.map((b) => [b.nodeId, b.rack]).sort()).toEqual([[1, 'rack-a'], [2, 'rack-a'], [3, 'rack-b'], [4, 'rack-b']]);
  }, 60_000);
});
