/**
 * The console of one node of a three-node cluster (RealClockQuorum: every node a broker and a
 * controller voter): it shows every broker, and a topic whose partitions are led by the other
 * nodes with the offsets and records those leaders hold, which it reaches over TCP as a client
 * would (its own broker's requests stay in-process); its topic list counts the records of both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../host/clients/admin.js';
import { Producer } from '../../host/clients/producer.js';
import type { BrokerServer } from '../../host/server/broker-server.js';
import { RealClockQuorum } from '../server/real-clock-quorum.js';

const quorum = new RealClockQuorum();
let nodes: BrokerServer[];
let bootstrap: string[];

async function consoleApi(node: BrokerServer, path: string): Promise<Record<string, unknown>> {
  const http = node.httpListeners[0]!;
  const response = await fetch(`http://${http.host}:${http.port}/console/api/${path}`);
  expect(response.status, path).toBe(200);
  return await response.json() as Record<string, unknown>;
}

beforeAll(async () => {
  nodes = await quorum.start([1, 2, 3], { 'http.listeners': '127.0.0.1:0', 'offsets.topic.num.partitions': 3 });
  bootstrap = nodes.map((node) => `${node.listeners[0]!.host}:${node.listeners[0]!.port}`);
  const admin = new Admin({ bootstrapServers: bootstrap });
  try {
    await admin.createTopics({ topics: [{ topic: 'spread', numPartitions: 6, replicationFactor: 1 }] });
  } finally {
    await admin.close();
  }
  const producer = new Producer({ bootstrapServers: bootstrap });
  try {
    for (let partition = 0; partition < 6; partition++) {
      await producer.send({ topic: 'spread', messages: Array.from({ length: partition + 1 }, (_, i) => ({ partition, value: `p${partition}-r${i}` })) });
    }
  } finally {
    await producer.close();
  }
}, 60_000);

afterAll(async () => {
  await quorum.stopAll();
});

describe('The console of one node of a cluster', () => {
  it('shows every broker, and the offsets and records of partitions led by the other nodes', async () => {
    const node = nodes[0]!;
    const overview = await consoleApi(node, 'overview');
    expect((overview['brokers'] as { nodeId: number }[]).map((b) => b.nodeId)).toEqual([1, 2, 3]);
    const topic = await consoleApi(node, 'topics/spread');
    const partitions = topic['partitions'] as { partition: number; leader: number; highWatermark: number }[];
    expect(new Set(partitions.map((p) => p.leader)).size).toBeGreaterThan(1);
    for (const p of partitions) expect(p.highWatermark, `partition ${p.partition}`).toBe(p.partition + 1);
    const remote = partitions.find((p) => p.leader !== node.nodeId)!;
    const browse = await consoleApi(node, `topics/spread/messages?partition=${remote.partition}`);
    const values = (browse['records'] as { value: string }[]).map((r) => Buffer.from(r.value, 'base64').toString());
    expect(values).toEqual(Array.from({ length: remote.partition + 1 }, (_, i) => `p${remote.partition}-r${remote.partition - i}`));
  });

  it('counts in the topic list the records of partitions led here (read from the logs) and led elsewhere (ListOffsets to their leaders), on every node', async () => {
    for (const node of nodes) {
      const page = await consoleApi(node, 'topics?search=spread');
      // 1 + 2 + ... + 6 records, whichever node leads each partition; sizes only of the replicas the node holds.
      expect(page['topics'], `node ${node.nodeId}`).toEqual([expect.objectContaining({ name: 'spread', partitions: 6, messages: 21 })]);
    }
  });
});
