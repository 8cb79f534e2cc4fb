/**
 * AlterPartition across a three-voter quorum of BrokerServers in one process (real disk, loopback
 * TCP): a partition leader's AlterPartitionManager reaches the active controller over the
 * CONTROLLER listeners from a node that is not the active controller, the committed ISR reaches
 * every node's cache, and after the active controller stops the manager follows the new one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeElectLeadersResponse, encodeElectLeadersRequest } from '../../host/protocol/generated/elect-leaders.js';
import type { PartitionState } from '../../host/api/cluster-metadata.js';
import type { AlterPartitionResult } from '../../host/replication/alter-partition-sink.js';
import type { BrokerServer } from '../../host/server/broker-server.js';
import { RawKafkaClient } from '../integration/raw-kafka-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { RealClockQuorum } from './real-clock-quorum.js';

const quorum = new RealClockQuorum();
const clients: RawKafkaClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.destroy();
  await quorum.stopAll();
});

/**
 * `node` (the leader of `topic`-`partition` in its cache) proposes `newIsr` through its
 * AlterPartitionManager, from the state in its cache; proposed again while the answer is that the
 * state moved on or another proposal is pending (the partition's own leader proposes ISR changes
 * too: followers catch up and are added back). Resolves with the accepted answer and the state it
 * was proposed from.
 */
async function propose(node: BrokerServer, topic: string, partition: number, newIsr: (state: PartitionState) => number[]):
  Promise<{ result: AlterPartitionResult; from: PartitionState }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const topicState = node.metadataCache.topic(topic)!;
    const from = topicState.partitions[partition]!;
    expect(from.leaderId).toBe(node.nodeId);
    const result = await node.alterPartitionSink.submit({
      topicId: topicState.topicId, topic, partition, leaderEpoch: from.leaderEpoch, partitionEpoch: from.partitionEpoch, newIsr: newIsr(from),
    });
    if (result.errorCode === 0) return { result, from };
    expect([55, 95]).toContain(result.errorCode);
    if (Date.now() > deadline) throw new Error(`proposal for ${topic}-${partition} still refused: ${result.errorCode}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('AlterPartition in a three-voter quorum', () => {
  it('a leader on a node that is not the active controller changes its ISR through the active controller, also after the active controller moves', async () => {
    // A long session timeout: a heartbeat delayed by a loaded machine must not fence a broker mid-test.
    const nodes = await quorum.start([1, 2, 3], { 'broker.session.timeout.ms': 30_000 });
    const active = await waitFor('an active controller', () => quorum.active(nodes));
    await waitFor('three unfenced brokers in every cache', () => (nodes.every((n) => n.metadataCache.aliveBrokerEndpoints('PLAINTEXT').length === 3) ? true : undefined));
    const [created] = await active.controller.createTopics([{ name: 'isr', numPartitions: 3, replicationFactor: 3 }]);
    expect(created!.errorCode).toBe(0);
    await waitFor('the topic in every cache', () => (nodes.every((n) => n.metadataCache.topic('isr') !== undefined) ? true : undefined));

    // A partition led by a node whose controller is not active.
    const partitions = active.controller.image.topic('isr')!.partitions;
    const remote = partitions.find((p) => p.leader !== active.nodeId)!;
    const leaderNode = nodes.find((n) => n.nodeId === remote.leader)!;
    const dropped = remote.replicas.find((id) => id !== remote.leader && id !== active.nodeId) ?? remote.replicas.find((id) => id !== remote.leader)!;
    const shrunk = await propose(leaderNode, 'isr', remote.partitionId, (s) => s.isr.filter((id) => id !== dropped));
    expect(shrunk.result).toMatchObject({ errorCode: 0, leaderId: remote.leader, leaderEpoch: remote.leaderEpoch, partitionEpoch: shrunk.from.partitionEpoch + 1 });
    expect(shrunk.result.isr).not.toContain(dropped);
    // Every cache reaches that partition epoch (the leader may add the follower back right after).
    await waitFor('the change in every cache', () =>
      (nodes.every((n) => n.metadataCache.partition('isr', remote.partitionId)!.partitionEpoch >= shrunk.result.partitionEpoch) ? true : undefined));
    // A stale proposal (the old partition epoch, another ISR) is refused with INVALID_UPDATE_VERSION.
    let stale: AlterPartitionResult;
    do {
      // 55 while the partition's own leader has a proposal pending.
      stale = await leaderNode.alterPartitionSink.submit({
        topicId: created!.topicId, topic: 'isr', partition: remote.partitionId, leaderEpoch: remote.leaderEpoch,
        partitionEpoch: remote.partitionEpoch, newIsr: [remote.leader],
      });
    } while (stale.errorCode === 55 && (await new Promise((resolve) => setTimeout(resolve, 50, true))));
    expect(stale.errorCode).toBe(95);

    // ElectLeaders to a broker whose controller is not active is forwarded to the active one:
    // every partition already has its preferred leader (ELECTION_NOT_NEEDED), an unknown one is 3.
    const client = await RawKafkaClient.connect(leaderNode.listeners[0]!.port);
    clients.push(client);
    const elect = await client.request(ApiKey.ElectLeaders, 2, encodeElectLeadersRequest, decodeElectLeadersResponse, {
      electionType: 0, topicPartitions: [{ topic: 'isr', partitions: [0, 1, 2, 9] }], timeoutMs: 5_000,
    });
    expect(elect.errorCode).toBe(0);
    expect(elect.replicaElectionResults[0]!.partitionResult.map((p) => p.errorCode)).toEqual([84, 84, 84, 3]);

    // The active controller stops (its broker hands its leadership over first). A survivor's leader
    // proposes right away: the manager retries until the new active controller answers.
    await active.shutdown();
    const survivors = nodes.filter((n) => n !== active);
    await waitFor('the stopped broker out of every ISR on the survivors', () => (survivors.every((n) =>
      n.metadataCache.topic('isr')!.partitions.every((p) => !p.isr.includes(active.nodeId) && p.leaderId !== active.nodeId)) ? true : undefined));
    const led = await waitFor('a partition led by a survivor', () => {
      for (const node of survivors) {
        // Preferably one whose ISR has both survivors, so the proposal is a change.
        const mine = node.metadataCache.topic('isr')!.partitions.filter((q) => q.leaderId === node.nodeId);
        const p = mine.find((q) => q.isr.length === 2) ?? mine[0];
        if (p !== undefined) return { node, p };
      }
      return undefined;
    });
    const { result, from } = await propose(led.node, 'isr', led.p.partition, () => [led.node.nodeId]);
    // A proposal of the ISR it already has is answered with the current state (no new epoch).
    const unchanged = from.isr.length === 1 && from.isr[0] === led.node.nodeId;
    expect(result).toMatchObject({ errorCode: 0, isr: [led.node.nodeId], partitionEpoch: from.partitionEpoch + (unchanged ? 0 : 1) });
    const newActive = await waitFor('a new active controller', () => quorum.active(survivors));
    expect(newActive.nodeId).not.toBe(active.nodeId);
    await waitFor('the change on both survivors', () =>
      (survivors.every((n) => n.metadataCache.partition('isr', led.p.partition)!.partitionEpoch >= result.partitionEpoch) ? true : undefined));
  });
});
