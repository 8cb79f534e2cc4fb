/**
 * Three real Tributary processes started as Kafka's KRaft quick start says (combined
 * broker+controller nodes, three voters, a CONTROLLER listener each), behind link proxies: one
 * cluster that real clients see as such (kcat lists three brokers; kafkajs creates a topic through
 * whichever node it reaches), that survives SIGKILL of its active controller, and in which a
 * restarted node rejoins, and in which a node cut off by a network partition (a blackholing proxy)
 * learns what the majority committed once the partition heals.
 */
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses } from '../helpers/broker-process.js';
import { KCAT, runOk } from '../compat/processes.js';
import { AckLedger } from './ack-ledger.js';
import { TestCluster } from './cluster.js';
import { kcatMetadata, kcatReadPartition, until } from './cluster-probes.js';

afterAll(async () => {
  await stopAllBrokerProcesses();
});

describe('a three-node KRaft cluster of real processes', () => {
  it('is one cluster for kcat and kafkajs, keeps taking metadata changes after SIGKILL of the active controller, and takes a restarted node back, and a node cut off by a partition catches up once healed', async () => {
    const cluster = await TestCluster.start({
      nodes: 3,
      overrides: { 'controller.quorum.election.timeout.ms': 500, 'controller.quorum.fetch.timeout.ms': 1000, 'broker.session.timeout.ms': 4000 },
    });
    try {
      const first = await until('kcat to list three brokers', async () => {
        const metadata = await kcatMetadata(cluster.bootstrap);
        return metadata.brokers.length === 3 && metadata.controllerId > 0 ? metadata : undefined;
      });
      expect(first.brokers).toEqual([1, 2, 3]);

      const kafka = new Kafka({ clientId: 'kraft-cluster-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 10 } });
      const admin = kafka.admin();
      await admin.connect();
      try {
        expect(await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true })).toBe(true);
      } finally {
        await admin.disconnect();
      }
      for (const node of cluster.nodes) {
        const seen = await until(`orders in node ${node.id}'s metadata`, async () => {
          const metadata = await kcatMetadata(`127.0.0.1:${node.clientProxy.port}`);
          return metadata.topics.includes('orders') ? metadata : undefined;
        });
        expect(seen.controllerId).toBe(first.controllerId);
      }

      // Acknowledged writes (acks=all) to partitions led by every node, read back after the SIGKILL below.
      const ledger = new AckLedger();
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      try {
        for (let i = 0; i < 30; i++) {
          const [meta] = await producer.send({ topic: 'orders', acks: -1, messages: [{ partition: i % 3, value: `v${i}` }] });
          ledger.ack('orders', meta!.partition, Number(meta!.baseOffset), `v${i}`);
        }
      } finally {
        await producer.disconnect();
      }

      // kcat auto-creates a topic through a node that is not the active controller (forwarded).
      const notController = cluster.nodes.find((n) => n.id !== first.controllerId)!;
      await runOk(KCAT, ['-b', `127.0.0.1:${notController.clientProxy.port}`, '-P', '-t', 'auto-made', '-X', 'message.timeout.ms=30000'], { input: 'a\nb\n' });
      for (const node of cluster.nodes) {
        await until(`auto-made in node ${node.id}'s metadata`, async () => {
          const metadata = await kcatMetadata(`127.0.0.1:${node.clientProxy.port}`);
          return metadata.topics.includes('auto-made') ? true : undefined;
        });
      }

      // SIGKILL the active controller: the other two elect one and keep taking changes.
      await cluster.kill9(first.controllerId);
      const survivors = cluster.nodes.filter((n) => n.id !== first.controllerId).map((n) => `127.0.0.1:${n.clientProxy.port}`).join(',');
      const second = await until('a new active controller', async () => {
        const metadata = await kcatMetadata(survivors);
        return metadata.controllerId > 0 && metadata.controllerId !== first.controllerId ? metadata : undefined;
      });
      const kafka2 = new Kafka({ clientId: 'kraft-cluster-test-2', brokers: survivors.split(','), logLevel: logLevel.NOTHING, retry: { retries: 10 } });
      const admin2 = kafka2.admin();
      await admin2.connect();
      try {
        // false when kafkajs retried a create that had succeeded (TOPIC_ALREADY_EXISTS): the topic must exist either way
        await admin2.createTopics({ topics: [{ topic: 'payments', numPartitions: 1, replicationFactor: 1 }] });
        expect(await admin2.listTopics()).toContain('payments');
      } finally {
        await admin2.disconnect();
      }
      expect(second.controllerId).not.toBe(first.controllerId);

      // The killed node comes back and catches up with what was committed without it.
      await cluster.restart(first.controllerId);
      await until('the restarted node to know payments', async () => {
        const metadata = await kcatMetadata(`127.0.0.1:${cluster.node(first.controllerId).clientProxy.port}`);
        return metadata.topics.includes('payments') && metadata.brokers.length === 3 ? true : undefined;
      });

      // Everything acknowledged before the SIGKILL reads back, at its offset, exactly once.
      const read = new Map<string, { offset: number; value: string }[]>();
      for (const partition of [0, 1, 2]) read.set(`orders-${partition}`, await kcatReadPartition(cluster.bootstrap, 'orders', partition));
      expect(ledger.size).toBe(30);
      expect(ledger.verify(read)).toEqual([]);

      // A partition: a node that is not the active controller is cut off (its packets dropped). The
      // majority keeps taking changes; once healed, the node learns them.
      const controllerNow = (await kcatMetadata(cluster.bootstrap)).controllerId;
      const cutOff = cluster.nodes.find((n) => n.id !== controllerNow)!.id;
      cluster.isolate(cutOff, 'blackhole');
      const majority = cluster.nodes.filter((n) => n.id !== cutOff).map((n) => `127.0.0.1:${n.clientProxy.port}`);
      const kafka3 = new Kafka({ clientId: 'kraft-cluster-test-3', brokers: majority, logLevel: logLevel.NOTHING, retry: { retries: 10 } });
      const admin3 = kafka3.admin();
      await admin3.connect();
      try {
        expect(await admin3.createTopics({ topics: [{ topic: 'during-partition', numPartitions: 1, replicationFactor: 1 }] })).toBe(true);
      } finally {
        await admin3.disconnect();
      }
      cluster.heal();
      await until('the healed node to know the topic created while it was cut off', async () => {
        const metadata = await kcatMetadata(`127.0.0.1:${cluster.node(cutOff).clientProxy.port}`);
        return metadata.topics.includes('during-partition') ? true : undefined;
      });
    } finally {
      await cluster.close();
    }
  });
});
