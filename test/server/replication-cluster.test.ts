/**
 * Partition replication among three BrokerServers in one process (one Raft quorum, real disk in
 * temporary directories, loopback TCP, free ports): a topic with replication.factor 3 and
 * min.insync.replicas 2 takes acks=all produces at its leaders; every follower fetches the
 * batches (ReplicaFetcher over the inter-broker listener) and holds them byte for byte at the same
 * offsets, with the leader's high watermark; when a leader's BrokerServer stops, the controller
 * elects a new leader from the ISR, which serves every acknowledged record.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { libraryBrokerConfig } from '../../host/broker.js';
import { systemEnvironment } from '../../host/io/environment.js';
import { createLogger } from '../../host/observability/logger.js';
import { BrokerServer } from '../../host/server/broker-server.js';
import { getCore } from '../../host/wasm/core.js';
import { waitFor } from '../helpers/wait-for.js';
import { quorumNodeConfigs } from './real-clock-quorum.js';
import { RawKafkaClient } from '../integration/raw-kafka-client.js';
import { batch, fetch, fetchRequest, produce, values } from '../integration/requests.js';

/**
 * Record timestamps for the produces: now. Timestamps from 1970 (as these tests once used) are
 * older than retention.ms, so the brokers' housekeeping deletes the whole log by time-based
 * retention (Kafka's rule, the active segment included) whenever it runs during a test: the
 * followers then follow the leader's log start offset, and a fetch at offset 0 answers
 * OFFSET_OUT_OF_RANGE, or the segment files compared byte for byte are empty or differ.
 */
const NOW_MS = Date.now();
const dirs = new Map<number, string>();
const configs = new Map<number, ReturnType<typeof libraryBrokerConfig>>();
const servers: BrokerServer[] = [];
const clients: RawKafkaClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.shutdown()));
  for (const dir of dirs.values()) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
});

async function startCluster(ids: number[]): Promise<BrokerServer[]> {
  for (const [id, config] of await quorumNodeConfigs(ids, 'tributary-replication', { 'replica.fetch.backoff.ms': 100 })) {
    dirs.set(id, config.logDirs[0]!);
    configs.set(id, config);
  }
  const started = ids.map((id) => newServer(id));
  await Promise.all(started.map((server) => server.startup()));
  return started;
}

function newServer(id: number): BrokerServer {
  const server = new BrokerServer(configs.get(id)!, systemEnvironment(), { core: getCore(), logger: createLogger({ level: process.env.REPLICATION_TEST_LOG ?? 'silent' }) });
  servers.push(server);
  return server;
}

async function connect(server: BrokerServer): Promise<RawKafkaClient> {
  const client = await RawKafkaClient.connect(server.listeners[0]!.port);
  clients.push(client);
  return client;
}

/** The bytes of every segment of `topic`-`partition` on node `id`'s disk, in offset order. */
function segmentBytes(id: number, topic: string, partition: number): Buffer {
  const dir = join(dirs.get(id)!, `${topic}-${partition}`);
  const segments = readdirSync(dir).filter((name) => name.endsWith('.log')).sort();
  return Buffer.concat(segments.map((name) => readFileSync(join(dir, name))));
}

describe('partition replication among three BrokerServers', () => {
  it('copies every acks=all batch to both followers byte for byte, and a new leader from the ISR serves them after the leader stops', async () => {
    const nodes = await startCluster([1, 2, 3]);
    await waitFor('three brokers in every cache', () => (nodes.every((n) => n.metadataCache.aliveBrokerEndpoints('PLAINTEXT').length === 3) ? true : undefined));
    const active = await waitFor('an active controller', () => nodes.find((n) => n.controller.isActive));
    const [created] = await active.controller.createTopics([{
      name: 'replicated', numPartitions: 2, replicationFactor: 3, configs: [{ name: 'min.insync.replicas', value: '2' }],
    }]);
    expect(created!.errorCode).toBe(0);
    await waitFor('every node holding both partitions', () =>
      (nodes.every((n) => [0, 1].every((p) => n.replicas.getPartition('replicated', p) !== undefined)) ? true : undefined));

    const acknowledged = new Map<number, string[]>([[0, []], [1, []]]);
    for (const partition of [0, 1]) {
      const leaderId = nodes[0]!.metadataCache.partition('replicated', partition)!.leaderId;
      const client = await connect(nodes.find((n) => n.nodeId === leaderId)!);
      for (let i = 0; i < 10; i++) {
        const records = [`p${partition}-${i}-a`, `p${partition}-${i}-b`];
        const response = await produce(client, 7, [{ topic: 'replicated', partition, records: batch(records, { baseTimestamp: NOW_MS + i }) }], { acks: -1, timeoutMs: 10_000 });
        const answer = response.responses[0]!.partitionResponses[0]!;
        expect([answer.errorCode, Number(answer.baseOffset)]).toEqual([0, 2 * i]);
        acknowledged.get(partition)!.push(...records);
      }
    }

    for (const partition of [0, 1]) {
      // Every replica reaches the leader's log end and high watermark (20 records).
      await waitFor(`followers of partition ${partition} caught up`, () => (nodes.every((n) => {
        const replica = n.replicas.getPartition('replicated', partition)!;
        return replica.logEndOffset === 20 && replica.highWatermark === 20;
      }) ? true : undefined));
      const [first, ...others] = nodes.map((n) => segmentBytes(n.nodeId, 'replicated', partition));
      expect(first!.length).toBeGreaterThan(0);
      for (const other of others) expect(other.equals(first!)).toBe(true);
    }

    // The leader of partition 0 stops: the controller elects another ISR member, which serves
    // every acknowledged record.
    const oldLeaderId = nodes[0]!.metadataCache.partition('replicated', 0)!.leaderId;
    const oldLeader = nodes.find((n) => n.nodeId === oldLeaderId)!;
    await oldLeader.shutdown();
    const survivors = nodes.filter((n) => n !== oldLeader);
    const newLeaderId = await waitFor('a new leader of partition 0 in the survivors\' caches', () => {
      const leaders = survivors.map((n) => n.metadataCache.partition('replicated', 0)!.leaderId);
      return leaders.every((id) => id === leaders[0] && id >= 0 && id !== oldLeaderId) ? leaders[0] : undefined;
    }, 30_000);
    const newLeader = survivors.find((n) => n.nodeId === newLeaderId)!;
    await waitFor('the new leader leading', () => (newLeader.replicas.getPartition('replicated', 0)?.isLeader ? true : undefined));
    const client = await connect(newLeader);
    const answer = await fetch(client, 11, fetchRequest([{ topic: 'replicated', partition: 0, fetchOffset: 0 }]));
    const data = answer.responses[0]!.partitions[0]!;
    expect(data.errorCode).toBe(0);
    expect(Number(data.highWatermark)).toBe(20);
    expect(values(data.records)).toEqual(acknowledged.get(0));
  }, 60_000);

  it('takes a restarted follower back into the ISR once it caught up with what was written without it', async () => {
    const nodes = await startCluster([1, 2, 3]);
    await waitFor('three brokers in every cache', () => (nodes.every((n) => n.metadataCache.aliveBrokerEndpoints('PLAINTEXT').length === 3) ? true : undefined));
    const active = await waitFor('an active controller', () => nodes.find((n) => n.controller.isActive));
    const [created] = await active.controller.createTopics([{
      name: 'rejoin', numPartitions: 1, replicationFactor: 3, configs: [{ name: 'min.insync.replicas', value: '2' }],
    }]);
    expect(created!.errorCode).toBe(0);
    await waitFor('every node holding the partition', () => (nodes.every((n) => n.replicas.getPartition('rejoin', 0) !== undefined) ? true : undefined));
    const leaderId = nodes[0]!.metadataCache.partition('rejoin', 0)!.leaderId;
    const follower = nodes.find((n) => n.nodeId !== leaderId && !n.controller.isActive)!;
    const leaderPartition = nodes.find((n) => n.nodeId === leaderId)!.replicas.getPartition('rejoin', 0)!;
    await follower.shutdown();
    // Its replica fetchers stopped with it: the leader hears no more fetches from it (a caught-up
    // follower's every fetch moves lastCaughtUpTimeMs). Two windows of several fetch waits each:
    // a fetch already on its way when the shutdown began lands in the first.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const caughtUpAfterShutdown = leaderPartition.followerState(follower.nodeId)?.lastCaughtUpTimeMs;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(leaderPartition.followerState(follower.nodeId)?.lastCaughtUpTimeMs).toBe(caughtUpAfterShutdown);
    const others = nodes.filter((n) => n !== follower);
    await waitFor('the ISR without the stopped follower', () =>
      (others.every((n) => !n.metadataCache.partition('rejoin', 0)!.isr.includes(follower.nodeId)) ? true : undefined), 30_000);
    const leader = others.find((n) => n.nodeId === others[0]!.metadataCache.partition('rejoin', 0)!.leaderId)!;
    const client = await connect(leader);
    for (let i = 0; i < 5; i++) {
      const response = await produce(client, 7, [{ topic: 'rejoin', partition: 0, records: batch([`r${i}`], { baseTimestamp: NOW_MS + i }) }], { acks: -1, timeoutMs: 10_000 });
      expect(response.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    }
    const restarted = newServer(follower.nodeId);
    await restarted.startup();
    await waitFor('the restarted follower back in the ISR', () =>
      (others.every((n) => n.metadataCache.partition('rejoin', 0)!.isr.includes(follower.nodeId)) ? true : undefined), 30_000).catch((error: Error) => {
      const replica = restarted.replicas.getPartition('rejoin', 0);
      const lead = leader.replicas.getPartition('rejoin', 0)!;
      throw new Error(`${error.message}: follower LEO ${replica?.logEndOffset} HW ${replica?.highWatermark} epoch ${replica?.leaderEpoch} leader ${replica?.leaderId}; leader LEO ${lead.logEndOffset} HW ${lead.highWatermark} epoch ${lead.leaderEpoch} isr ${JSON.stringify(lead.isr)}; cache ${JSON.stringify(leader.metadataCache.partition('rejoin', 0))}`);
    });
    expect(segmentBytes(follower.nodeId, 'rejoin', 0).equals(segmentBytes(leader.nodeId, 'rejoin', 0))).toBe(true);
  }, 60_000);
});
