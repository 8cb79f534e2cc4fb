/**
 * `tributary cluster info` on a quorum of three combined nodes and one broker-only node: every
 * broker, the leader, the three voters and the observer with their log end offsets and lag; a
 * broker that shut down is shown fenced (it stays an observer of the quorum for a while).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { QuorumServers } from '../../server/quorum-servers.js';
import { runInProcess } from './cli-harness.js';

let cluster: QuorumServers | null = null;

afterEach(async () => {
  await cluster?.close();
  cluster = null;
});

interface Info {
  clusterId: string;
  brokers: { nodeId: number; status: string }[];
  quorum: { leaderId: number; highWatermark: number; voters: { replicaId: number; lag: number }[]; observers: { replicaId: number; lag: number }[] };
}

describe('tributary cluster info on a quorum', () => {
  it('lists the brokers (fenced or not) and the voters and observer with their lag', async () => {
    cluster = await QuorumServers.create([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4, roles: 'broker' }], 41);
    await cluster.start();
    const active = await cluster.active();
    const broker = cluster.servers[3]!;
    const bootstrap = ['-b', `127.0.0.1:${broker.listeners[0]!.port}`];
    const info = async (): Promise<Info> => {
      const run = await cluster!.advanceUntil(runInProcess(['cluster', 'info', '--json', ...bootstrap]));
      expect(run.codes).toEqual([]);
      return JSON.parse(run.out) as Info;
    };
    // The observer shows up once it has fetched from the leader.
    let described = await info();
    while (described.quorum.observers.length === 0) described = await info();
    expect(described.clusterId).toBe(broker.clusterId);
    expect(described.brokers.map((b) => [b.nodeId, b.status])).toEqual([[1, 'unfenced'], [2, 'unfenced'], [3, 'unfenced'], [4, 'unfenced']]);
    expect(described.quorum.leaderId).toBe(active.nodeId);
    expect(described.quorum.voters.map((v) => v.replicaId).sort()).toEqual([1, 2, 3]);
    expect(described.quorum.observers.map((o) => o.replicaId)).toEqual([4]);
    for (const replica of [...described.quorum.voters, ...described.quorum.observers]) expect(replica.lag).toBeGreaterThanOrEqual(0);

    const human = await cluster.advanceUntil(runInProcess(['cluster', 'info', ...bootstrap]));
    expect(human.out).toMatch(new RegExp(`QUORUM leader ${active.nodeId}, epoch \\d+, high watermark \\d+, 3 voters, 1 observer`));
    expect(human.out).toMatch(/\n\s*4\s+\d+\s+\d+\s+(\d+ ms ago|-)\s+(\d+ ms ago|-)\s+Observer\n/);
    // The leader fetches from no one: its last fetch is '-'.
    expect(human.out).toMatch(new RegExp(`\\n\\s*${active.nodeId}\\s+\\d+\\s+\\d+\\s+-\\s+(\\d+ ms ago|-)\\s+Leader\\n`));

    // Broker 4 shuts down (controlled: fenced, still registered); asked through node 1 now.
    await cluster.advanceUntil(broker.shutdown());
    const viaNode1 = ['-b', `127.0.0.1:${cluster.servers[0]!.listeners[0]!.port}`];
    const fenced = async (): Promise<Info> => JSON.parse((await cluster!.advanceUntil(runInProcess(['cluster', 'info', '--json', ...viaNode1]))).out) as Info;
    let after = await fenced();
    while (after.brokers.find((b) => b.nodeId === 4)?.status !== 'fenced') after = await fenced();
    expect(after.brokers.map((b) => [b.nodeId, b.status])).toEqual([[1, 'unfenced'], [2, 'unfenced'], [3, 'unfenced'], [4, 'fenced']]);
  }, 60_000);
});
