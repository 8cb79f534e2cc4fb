/**
 * Forwarding with real clients: with separate controllers, clients only ever talk to brokers, so
 * every request that needs the controller goes through a broker's forwarding. kafkajs's admin
 * (CreateTopics, CreatePartitions, AlterConfigs, DeleteTopics) and its idempotent producer
 * (InitProducerId, served from producer id blocks the broker gets with AllocateProducerIds)
 * against three controller-only nodes and one broker-only node.
 */
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses } from '../helpers/broker-process.js';
import { TestCluster } from './cluster.js';
import { kcatMetadata, kcatReadPartition, until } from './cluster-probes.js';

afterAll(async () => {
  await stopAllBrokerProcesses();
});

describe('forwarding to the active controller with real clients', () => {
  it('kafkajs admin and an idempotent producer work through a broker-only node', async () => {
    const cluster = await TestCluster.start({
      controllers: 3,
      brokers: 1,
      overrides: { 'controller.quorum.election.timeout.ms': 500, 'controller.quorum.fetch.timeout.ms': 1000 },
    });
    try {
      const bootstrap = `127.0.0.1:${cluster.node(4).clientProxy.port}`;
      await until('the broker to be listed', async () => ((await kcatMetadata(bootstrap)).brokers.length === 1 ? true : undefined));
      const kafka = new Kafka({ clientId: 'forwarding-test', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10 } });
      const admin = kafka.admin();
      await admin.connect();
      try {
        expect(await admin.createTopics({ topics: [{ topic: 'fwd', numPartitions: 1 }, { topic: 'fwd-doomed', numPartitions: 1 }], waitForLeaders: true })).toBe(true);
        await admin.createPartitions({ topicPartitions: [{ topic: 'fwd', count: 3 }] });
        await until('fwd with 3 partitions', async () => ((await kcatMetadata(bootstrap)).partitions.get('fwd')?.length === 3 ? true : undefined));
        await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'fwd', configEntries: [{ name: 'retention.ms', value: '7200000' }] }] });
        const configs = await until('retention.ms on fwd', async () => {
          const described = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'fwd', configNames: ['retention.ms'] }] });
          const value = described.resources[0]!.configEntries.find((e) => e.configName === 'retention.ms')?.configValue;
          return value === '7200000' ? value : undefined;
        });
        expect(configs).toBe('7200000');
        await admin.deleteTopics({ topics: ['fwd-doomed'] });
        await until('fwd-doomed gone', async () => (!(await kcatMetadata(bootstrap)).topics.includes('fwd-doomed') ? true : undefined));
      } finally {
        await admin.disconnect();
      }

      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      try {
        for (let partition = 0; partition < 3; partition++) {
          await producer.send({ topic: 'fwd', acks: -1, messages: [{ partition, value: `idempotent-${partition}` }] });
        }
      } finally {
        await producer.disconnect();
      }
      for (let partition = 0; partition < 3; partition++) {
        expect(await kcatReadPartition(bootstrap, 'fwd', partition)).toEqual([{ offset: 0, value: `idempotent-${partition}` }]);
      }
    } finally {
      await cluster.close();
    }
  }, 120_000);
});
