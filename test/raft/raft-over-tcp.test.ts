/**
 * Three Raft nodes on 127.0.0.1, each with its CONTROLLER listener (SocketServer + the controller
 * API registry) and a RaftDriver sending over NodeChannels: the sans-I/O core on the real wire,
 * real sockets and the system clock. They elect one leader, commit what it appends on every node,
 * and elect another once the leader is gone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerServices } from '../../host/api/broker-services.js';
import { RequestDispatcher } from '../../host/api/request-dispatcher.js';
import { NodeNetwork } from '../../host/io/node-network.js';
import { SeededRandom } from '../../host/io/random.js';
import { SystemTime } from '../../host/io/time.js';
import { NodeChannels } from '../../host/network/node-channels.js';
import { SocketServer } from '../../host/network/socket-server.js';
import { createLogger } from '../../host/observability/logger.js';
import { MemoryRaftLog } from '../../host/raft/memory-raft-log.js';
import { MemoryQuorumStateStore } from '../../host/raft/quorum-state-store.js';
import { RaftClient, type CommittedBatch, type LeaderAndEpoch } from '../../host/raft/raft-client.js';
import { raftConfig } from '../../host/raft/raft-config.js';
import { RaftDriver } from '../../host/raft/raft-driver.js';
import { raftWire } from '../../host/raft/raft-wire.js';
import { createRaftApiRegistry } from '../../host/server/controller-apis.js';
import { waitFor } from '../helpers/wait-for.js';

interface TcpNode {
  id: number;
  client: RaftClient;
  driver: RaftDriver;
  server: SocketServer;
  channels: NodeChannels;
  committed: string[];
  leader: LeaderAndEpoch;
  stopped: boolean;
}

const logger = createLogger({ level: 'silent' });
const nodes: TcpNode[] = [];

afterEach(async () => {
  for (const node of nodes.splice(0)) await stopNode(node);
});

async function stopNode(node: TcpNode): Promise<void> {
  if (node.stopped) return;
  node.stopped = true;
  node.driver.stop();
  node.channels.close();
  await node.server.stop(1000);
}

async function startCluster(ids: number[]): Promise<TcpNode[]> {
  const time = new SystemTime();
  const wire = raftWire(() => time.nowMs());
  const started: TcpNode[] = [];
  for (const id of ids) {
    const client = new RaftClient({
      config: raftConfig({ nodeId: id, voters: ids, clusterId: 'raft-over-tcp', electionTimeoutMs: 400, fetchTimeoutMs: 800, electionBackoffMaxMs: 200 }),
      log: new MemoryRaftLog(), store: new MemoryQuorumStateStore(), time, random: new SeededRandom(id * 7919),
    });
    const channels = new NodeChannels({ clientId: `raft-${id}`, time, random: new SeededRandom(id), network: new NodeNetwork(), requestTimeoutMs: 2000 });
    const driver = new RaftDriver({ nodeId: id, node: client, transport: channels, wire, time, requestTimeoutMs: 2000 });
    const dispatcher = new RequestDispatcher({ registry: createRaftApiRegistry(wire, driver), broker: {} as BrokerServices, logger });
    const server = new SocketServer({ host: '127.0.0.1', port: 0, listenerName: 'CONTROLLER', handler: dispatcher.handle, logger });
    await server.start();
    const node: TcpNode = { id, client, driver, server, channels, committed: [], leader: { leaderId: -1, epoch: 0 }, stopped: false };
    client.register({
      handleCommit: (batch: CommittedBatch) => { for (const r of batch.records) node.committed.push(Buffer.from(r).toString()); },
      handleLoadSnapshot: () => { throw new Error('no snapshots in this test'); },
      handleLeaderChange: (leader) => { node.leader = leader; },
    });
    started.push(node);
    nodes.push(node);
  }
  for (const node of started) {
    for (const other of started) if (other !== node) node.channels.setEndpoint(other.id, { host: '127.0.0.1', port: other.server.address().port });
  }
  for (const node of started) node.driver.start();
  return started;
}

/** The leader every live node agrees on, once they do. */
function agreedLeader(live: TcpNode[]): LeaderAndEpoch | undefined {
  const first = live[0]!.leader;
  if (first.leaderId < 0) return undefined;
  return live.every((n) => n.leader.leaderId === first.leaderId && n.leader.epoch === first.epoch) ? first : undefined;
}

describe('Raft over TCP (CONTROLLER listener, RaftDriver, NodeChannels)', () => {
  it('three voters elect one leader, commit its appends on every node, and fail over when it stops', async () => {
    const cluster = await startCluster([1, 2, 3]);
    const first = await waitFor('a leader all three agree on', () => agreedLeader(cluster));
    const leader = cluster.find((n) => n.id === first.leaderId)!;
    leader.client.scheduleAppend(first.epoch, [Buffer.from('a'), Buffer.from('b')]);
    leader.client.scheduleAppend(first.epoch, [Buffer.from('c')]);
    await waitFor('the records committed on every node', () => (cluster.every((n) => n.committed.join() === 'a,b,c') ? true : undefined));

    await stopNode(leader);
    const survivors = cluster.filter((n) => n !== leader);
    const second = await waitFor('a new leader of the two survivors', () => {
      const agreed = agreedLeader(survivors);
      return agreed !== undefined && agreed.epoch > first.epoch && agreed.leaderId !== leader.id ? agreed : undefined;
    });
    const next = survivors.find((n) => n.id === second.leaderId)!;
    next.client.scheduleAppend(second.epoch, [Buffer.from('d')]);
    await waitFor('the new record committed on both survivors', () => (survivors.every((n) => n.committed.join() === 'a,b,c,d') ? true : undefined));
    // The old leader's appends are refused in a stale epoch on the new leader.
    expect(() => next.client.scheduleAppend(first.epoch, [Buffer.from('x')])).toThrow();
  });
});
