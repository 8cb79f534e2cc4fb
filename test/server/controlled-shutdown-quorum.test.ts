/**
 * Controlled shutdown in a three-voter quorum of BrokerServers (KIP-631): a broker that stops
 * hands its leadership over before it goes. When its shutdown returns, the active controller has
 * committed that it leads nothing, is in no ISR and is fenced; its partitions are led by another
 * in-sync replica in a new leader epoch. A Metadata request then lists it as an offline replica.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../cli/commands/cli-harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { RawKafkaClient } from '../integration/raw-kafka-client.js';
import { metadata } from '../integration/requests.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeDescribeTopicPartitionsResponse, encodeDescribeTopicPartitionsRequest } from '../../host/protocol/generated/describe-topic-partitions.js';
import { RealClockQuorum } from './real-clock-quorum.js';

const quorum = new RealClockQuorum();
const clients: RawKafkaClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.destroy();
  await quorum.stopAll();
});

describe('controlled shutdown in a three-voter quorum', () => {
  it('moves leadership off a stopping broker and out of every ISR before the broker stops', async () => {
    // A long session timeout: a heartbeat delayed by a loaded machine must not fence a broker mid-test.
    const nodes = await quorum.start([1, 2, 3], { 'broker.session.timeout.ms': 30_000 });
    const active = await waitFor('an active controller', () => quorum.active(nodes));
    await waitFor('three unfenced brokers', () => (active.controller.image.usableBrokerIds().length === 3 ? true : undefined));
    const [created] = await active.controller.createTopics([{ name: 'roll', numPartitions: 6, replicationFactor: 3 }]);
    expect(created!.errorCode).toBe(0);
    const stopping = nodes.find((n) => n !== active && active.controller.image.topic('roll')!.partitions.some((p) => p.leader === n.nodeId))!;
    const before = active.controller.image.topic('roll')!.partitions;
    const led = before.filter((p) => p.leader === stopping.nodeId);
    expect(led.length).toBeGreaterThan(0);

    await stopping.shutdown();

    const image = active.controller.image;
    expect(image.broker(stopping.nodeId)).toMatchObject({ fenced: true, inControlledShutdown: true });
    for (const p of image.topic('roll')!.partitions) {
      expect(p.leader).not.toBe(stopping.nodeId);
      expect(p.isr).not.toContain(stopping.nodeId);
    }
    for (const old of led) {
      const now = image.topic('roll')!.partitions[old.partitionId]!;
      expect(old.isr).toContain(now.leader);
      expect(now.leaderEpoch).toBe(old.leaderEpoch + 1);
    }

    const survivor = nodes.find((n) => n !== stopping)!;
    await waitFor('the survivor cache without the stopped broker', () =>
      (survivor.metadataCache.aliveBrokerEndpoints('PLAINTEXT').length === 2 ? true : undefined));
    const client = await RawKafkaClient.connect(survivor.listeners[0]!.port);
    clients.push(client);
    const answer = await metadata(client, 8, { topics: [{ name: 'roll' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    for (const p of answer.topics[0]!.partitions) {
      expect(p.errorCode).toBe(0);
      expect(p.offlineReplicas).toEqual([stopping.nodeId]);
      expect(p.leaderId).not.toBe(stopping.nodeId);
    }
    const paged = await client.request(ApiKey.DescribeTopicPartitions, 0, encodeDescribeTopicPartitionsRequest, decodeDescribeTopicPartitionsResponse,
      { topics: [{ name: 'roll' }], responsePartitionLimit: 4, cursor: null });
    expect(paged.topics[0]!.partitions.map((p) => p.offlineReplicas)).toEqual(Array.from({ length: 4 }, () => [stopping.nodeId]));
    expect(paged.nextCursor).toEqual({ topicName: 'roll', partitionIndex: 4 });
    // `tributary cluster info` and `topic describe` show the partitions as under-replicated, with the offline replica.
    const bootstrap = ['-b', `127.0.0.1:${survivor.listeners[0]!.port}`];
    const info = JSON.parse((await runInProcess(['cluster', 'info', '--json', ...bootstrap])).out);
    expect(info.partitions.offline).toEqual([]);
    expect(info.partitions.underReplicated.filter((p: { topic: string }) => p.topic === 'roll')).toHaveLength(6);
    const described = JSON.parse((await runInProcess(['topic', 'describe', 'roll', '--json', ...bootstrap])).out);
    expect(described[0].partitions.map((p: { offlineReplicas: number[] }) => p.offlineReplicas)).toEqual(Array.from({ length: 6 }, () => [stopping.nodeId]));
  });
});
