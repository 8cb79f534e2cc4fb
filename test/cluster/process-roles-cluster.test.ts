/**
 * Kafka's separate roles with real processes: three controller-only nodes (the voters, no client
 * listener) and two broker-only nodes (Raft observers that register with the active controller and
 * serve clients). kcat sees exactly the two brokers; a topic created through one broker is
 * produced to and consumed from with kcat.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { probeApiVersions, stopAllBrokerProcesses } from '../helpers/broker-process.js';
import { KCAT, runOk } from '../compat/processes.js';
import { TestCluster } from './cluster.js';
import { kcatMetadata, kcatReadPartition, until } from './cluster-probes.js';

afterAll(async () => {
  await stopAllBrokerProcesses();
});

describe('controller-only and broker-only processes', () => {
  it('three controllers and two brokers: kcat lists the two brokers, a topic made through one is produced and consumed', async () => {
    const cluster = await TestCluster.start({
      controllers: 3,
      brokers: 2,
      overrides: { 'controller.quorum.election.timeout.ms': 500, 'controller.quorum.fetch.timeout.ms': 1000, 'broker.session.timeout.ms': 4000 },
    });
    try {
      const [broker4, broker5] = [cluster.node(4), cluster.node(5)];
      const bootstrap = `127.0.0.1:${broker4.clientProxy.port},127.0.0.1:${broker5.clientProxy.port}`;
      const listed = await until('kcat to list the two brokers', async () => {
        const metadata = await kcatMetadata(bootstrap);
        return metadata.brokers.length === 2 ? metadata : undefined;
      });
      expect(listed.brokers).toEqual([4, 5]);
      // Clients are given a broker as the controller: they cannot reach a controller-only node.
      expect([4, 5]).toContain(listed.controllerId);
      // A controller-only node serves no client listener.
      for (const id of [1, 2, 3]) await expect(probeApiVersions('127.0.0.1', cluster.node(id).clientPort, 1000)).rejects.toThrow();

      // Created through broker 5 only (forwarded to the active controller), two partitions.
      await runOk('/usr/bin/python3', ['-c', [
        'import sys',
        'from confluent_kafka.admin import AdminClient, NewTopic',
        `admin = AdminClient({"bootstrap.servers": "127.0.0.1:${broker5.clientProxy.port}"})`,
        'for topic, future in admin.create_topics([NewTopic("roles", num_partitions=2, replication_factor=1)], operation_timeout=30).items(): future.result(60)',
      ].join('\n')]);
      await until('roles on both brokers', async () => {
        const metadatas = await Promise.all([broker4, broker5].map((b) => kcatMetadata(`127.0.0.1:${b.clientProxy.port}`)));
        return metadatas.every((m) => m.partitions.get('roles')?.length === 2 && m.partitions.get('roles')!.every((p) => p.leader === 4 || p.leader === 5))
          ? true : undefined;
      });
      for (const partition of [0, 1]) {
        await runOk(KCAT, ['-b', bootstrap, '-P', '-t', 'roles', '-p', String(partition), '-X', 'message.timeout.ms=30000'], { input: `p${partition}-a\np${partition}-b\n` });
      }
      for (const partition of [0, 1]) {
        const records = await kcatReadPartition(bootstrap, 'roles', partition);
        expect(records).toEqual([{ offset: 0, value: `p${partition}-a` }, { offset: 1, value: `p${partition}-b` }]);
      }
    } finally {
      await cluster.close();
    }
  }, 120_000);
});
