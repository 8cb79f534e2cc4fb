import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../host/config/broker-config.js';
import { brokerLogConfigDefaults } from '../../host/config/topic-config.js';
import type { GroupCoordinator } from '../../host/coordinator/group-coordinator.js';
import type { QuorumController } from '../../host/controller/quorum-controller.js';
import { NodeDisk } from '../../host/io/disk.js';
import { LogManager } from '../../host/log/log-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { createLogger } from '../../host/observability/logger.js';
import type { FollowerFetchTarget, ReplicaFetcherManager } from '../../host/replication/replica-fetcher-manager.js';
import { ReplicaManager } from '../../host/replication/replica-manager.js';
import { BrokerMetadataPublisher } from '../../host/server/broker-metadata-publisher.js';
import { ControllerClusterMetadata } from '../../host/server/controller-cluster-metadata.js';
import { MetadataCache, toTopicState } from '../../host/server/metadata-cache.js';
import { startController } from '../controller/controller-fixture.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

interface Broker {
  cache: MetadataCache;
  logManager: LogManager;
  replicaManager: ReplicaManager<UnifiedLog>;
  coordinatorCalls: string[];
  /** `topic-partition` → the leader and epoch it is fetched from. */
  fetched: Map<string, { leaderId: number; leaderEpoch: number }>;
  /** Resolves once the publisher applied every change so far (new directories are made on the thread pool first). */
  applied: () => Promise<void>;
}

/** Broker 1's cache and publisher, listening to `controller` (brokers 1 and 2 registered). */
function attachBroker(controller: QuorumController): Broker {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-cache-'));
  dirs.push(dir);
  const config = loadBrokerConfig({ overrides: { 'node.id': '1', 'log.dirs': dir } });
  const logManager = LogManager.open({ logDirs: [dir], defaults: brokerLogConfigDefaults(config) });
  const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: 1 });
  const coordinatorCalls: string[] = [];
  const groupCoordinator = {
    loadAllPartitions: () => coordinatorCalls.push('load'),
    onTopicPartitionsChanged: (topics: string[]) => coordinatorCalls.push(`grown ${topics.join()}`),
    onTopicsDeleted: (topics: string[]) => coordinatorCalls.push(`deleted ${topics.join()}`),
    onElection: (partition: number) => coordinatorCalls.push(`elected ${partition}`) > 0,
    onResignation: (partition: number) => coordinatorCalls.push(`resigned ${partition}`) > 0,
  } as unknown as GroupCoordinator;
  const cache = new MetadataCache({ clusterId: 'AAAAAAAAAAAAAAAAAAAAAA', nodeId: 1 });
  const fetched = new Map<string, { leaderId: number; leaderEpoch: number }>();
  const replicaFetcherManager = {
    addFetcherForPartitions: (targets: FollowerFetchTarget[]) => {
      for (const t of targets) fetched.set(`${t.replica.topic}-${t.replica.partition}`, { leaderId: t.leaderId, leaderEpoch: t.leaderEpoch });
    },
    removeFetcherForPartitions: (partitions: { topic: string; partition: number }[]) => {
      for (const p of partitions) fetched.delete(`${p.topic}-${p.partition}`);
    },
  } as unknown as ReplicaFetcherManager;
  const publisher = new BrokerMetadataPublisher({
    config, cache, logManager, replicaManager, groupCoordinator, replicaFetcherManager, producerStateDisk: new NodeDisk(),
    logger: createLogger({ level: 'silent' }),
  });
  publisher.start(controller.image, controller.nodeId);
  controller.addListener(publisher);
  publisher.applyAllTopics();
  return { cache, logManager, replicaManager, coordinatorCalls, fetched, applied: () => publisher.whenApplied() };
}

/** The cache holds exactly the controller image's topics and brokers. */
function expectCacheMatchesImage(cache: MetadataCache, controller: QuorumController): void {
  const image = controller.image;
  expect(cache.topics()).toEqual(image.topics().map((topic) => toTopicState(topic, image.topicConfigs(topic.name))));
  expect(cache.brokers()).toEqual(image.brokers());
}

describe('MetadataCache fed by the BrokerMetadataPublisher', () => {
  it('follows creations, growth, config changes and deletions, and creates local logs only where this broker leads', async () => {
    const { controller } = await startController({ brokers: [1, 2], seed: 5 });
    await controller.createTopics([{ name: 'before', numPartitions: 2, replicationFactor: 1, configs: [] }]);
    const broker = attachBroker(controller);
    expectCacheMatchesImage(broker.cache, controller);

    await controller.createTopics([{ name: 'orders', numPartitions: 6, replicationFactor: 1, configs: [] }]);
    await broker.applied();
    await controller.createPartitions([{ name: 'orders', count: 8 }]);
    await broker.applied();
    await controller.alterConfigs([{ resourceType: 2, resourceName: 'orders', configs: [{ name: 'retention.ms', value: '1000' }] }]);
    await broker.applied();
    expectCacheMatchesImage(broker.cache, controller);
    expect(broker.cache.topic('orders')!.configs.get('retention.ms')).toBe('1000');
    expect(broker.coordinatorCalls).toEqual(['grown orders']);

    for (const topic of broker.cache.topics()) {
      for (const partition of topic.partitions) {
        const local = broker.logManager.getLog(topic.name, partition.partition) !== undefined;
        expect(local).toBe(partition.leaderId === 1);
        expect(broker.replicaManager.getPartition(topic.name, partition.partition) !== undefined).toBe(partition.leaderId === 1);
      }
    }
    // Both brokers lead something: the placement spreads leaders.
    const leaders = new Set(broker.cache.topic('orders')!.partitions.map((partition) => partition.leaderId));
    expect([...leaders].sort()).toEqual([1, 2]);

    await controller.deleteTopics(['orders']);
    await broker.applied();
    expectCacheMatchesImage(broker.cache, controller);
    expect(broker.cache.topic('orders')).toBeUndefined();
    expect(broker.replicaManager.getPartition('orders', 0)).toBeUndefined();
    expect(broker.coordinatorCalls).toEqual(['grown orders', 'deleted orders']);
    broker.logManager.shutdown();
  });

  it('makes this broker follower of the partitions another broker leads and fetches them from that leader; leader of the others, not fetched', async () => {
    const { controller } = await startController({ brokers: [1, 2], seed: 8 });
    const broker = attachBroker(controller);
    await controller.createTopics([{ name: 'mirrored', numPartitions: 4, replicationFactor: 2, configs: [] }]);
    await broker.applied();
    const topic = broker.cache.topic('mirrored')!;
    expect(new Set(topic.partitions.map((p) => p.leaderId))).toEqual(new Set([1, 2]));
    for (const state of topic.partitions) {
      const partition = broker.replicaManager.getPartition('mirrored', state.partition)!;
      expect(broker.logManager.getLog('mirrored', state.partition)).toBeDefined();
      expect([partition.isLeader, partition.leaderId, partition.leaderEpoch]).toEqual([state.leaderId === 1, state.leaderId, state.leaderEpoch]);
      expect(broker.fetched.get(`mirrored-${state.partition}`)).toEqual(state.leaderId === 1 ? undefined : { leaderId: 2, leaderEpoch: state.leaderEpoch });
    }
    // Broker 2 fenced: the controller moves its leaderships to broker 1, which stops fetching them.
    await controller.fenceBroker(2, controller.image.broker(2)!.brokerEpoch);
    await broker.applied();
    for (const state of broker.cache.topic('mirrored')!.partitions) {
      expect(state.leaderId).toBe(1);
      expect(broker.replicaManager.getPartition('mirrored', state.partition)!.isLeader).toBe(true);
    }
    expect(broker.fetched.size).toBe(0);
    broker.logManager.shutdown();
  });

  it('loads the groups of the __consumer_offsets partitions this broker leads and unloads them when another broker leads them', async () => {
    const { controller } = await startController({ brokers: [1, 2], seed: 9 });
    const broker = attachBroker(controller);
    await controller.createTopics([{ name: '__consumer_offsets', numPartitions: 4, replicationFactor: 2, configs: [] }]);
    await broker.applied();
    const led = broker.cache.topic('__consumer_offsets')!.partitions.filter((p) => p.leaderId === 1).map((p) => p.partition);
    expect(led.length).toBeGreaterThan(0);
    expect(broker.coordinatorCalls.filter((call) => call.startsWith('elected'))).toEqual(led.map((p) => `elected ${p}`));
    // Broker 1 fenced: broker 2 leads everything; broker 1 stops coordinating those groups.
    await controller.fenceBroker(1, controller.image.broker(1)!.brokerEpoch);
    await broker.applied();
    expect(broker.cache.topic('__consumer_offsets')!.partitions.every((p) => p.leaderId === 2)).toBe(true);
    for (const p of led) expect(broker.coordinatorCalls).toContain(`resigned ${p}`);
    broker.logManager.shutdown();
  });

  it('lists the unfenced brokers with the endpoint of the asked listener', async () => {
    const { controller } = await startController({ brokers: [1, 2], seed: 6 });
    const broker = attachBroker(controller);
    expect(broker.cache.aliveBrokerEndpoints('PLAINTEXT')).toEqual([
      { nodeId: 1, host: '127.0.0.1', port: 9093, rack: null },
      { nodeId: 2, host: '127.0.0.1', port: 9094, rack: null },
    ]);
    await controller.fenceBroker(2, controller.image.broker(2)!.brokerEpoch);
    await broker.applied();
    expect(broker.cache.aliveBrokerEndpoints('PLAINTEXT').map((endpoint) => endpoint.nodeId)).toEqual([1]);
    expectCacheMatchesImage(broker.cache, controller);
    broker.logManager.shutdown();
  });

  it('hands out a new topic list on a change and never changes one handed out before (Metadata answers compare their TopicStates)', async () => {
    const { controller } = await startController({ brokers: [1, 2], seed: 12 });
    for (const name of ['c', 'a', 'b']) await controller.createTopics([{ name, numPartitions: 2, replicationFactor: 2, configs: [] }]);
    const broker = attachBroker(controller);
    const first = broker.cache.topics();
    const firstStates = [...first];
    expect(first.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    // Replacements only (leaders and ISR move): the order holds, the slots are new.
    await controller.fenceBroker(2, controller.image.broker(2)!.brokerEpoch);
    await broker.applied();
    const second = broker.cache.topics();
    expect(first).toEqual(firstStates);
    expect(second).not.toBe(first);
    expectCacheMatchesImage(broker.cache, controller);
    expect(broker.cache.topics()).toBe(second);
    // A creation and a deletion among replacements: sorted again.
    await controller.createPartitions([{ name: 'a', count: 3 }]);
    await controller.createTopics([{ name: 'ab', numPartitions: 1, replicationFactor: 1, configs: [] }]);
    await controller.deleteTopics(['c']);
    await broker.applied();
    expect(broker.cache.topics().map((t) => t.name)).toEqual(['a', 'ab', 'b']);
    expectCacheMatchesImage(broker.cache, controller);
    broker.logManager.shutdown();
  });

  it('answers the handlers from the cache alone: a cache nobody feeds knows no topics', async () => {
    const { controller } = await startController({ seed: 7 });
    await controller.createTopics([{ name: 'orders', numPartitions: 1, replicationFactor: 1, configs: [] }]);
    const cache = new MetadataCache({ clusterId: 'AAAAAAAAAAAAAAAAAAAAAA', nodeId: 1 });
    const metadata = new ControllerClusterMetadata({ controller, cache, brokerId: 1, brokerEpoch: () => 0 });
    expect(metadata.topic('orders')).toBeUndefined();
    expect(metadata.controllerId).toBe(-1);
    cache.loadImage(controller.image, controller.nodeId);
    expect(metadata.topic('orders')!.partitions).toHaveLength(1);
    expect(metadata.controllerId).toBe(1);
    expect(metadata.clusterId).toBe('AAAAAAAAAAAAAAAAAAAAAA');
  });
});
