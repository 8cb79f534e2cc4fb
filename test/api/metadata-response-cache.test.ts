/**
 * The reused all-topics Metadata answers (metadata-response-cache.ts, issue 15): byte for byte the
 * answer a fresh build gives, at every version, flag combination and listener, and never older
 * than the metadata cache: after each kind of change (topics created and deleted, partitions
 * added, leaders and ISR moved by fencing and election, brokers re-registered with new endpoints
 * or gone, the controller moved) the next answer is the fresh one.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiRegistry } from '../../host/api/api-handlers.js';
import type { BrokerServices } from '../../host/api/broker-services.js';
import { MetadataResponseCache } from '../../host/api/metadata-response-cache.js';
import { RequestDispatcher } from '../../host/api/request-dispatcher.js';
import { loadBrokerConfig } from '../../host/config/broker-config.js';
import { brokerLogConfigDefaults } from '../../host/config/topic-config.js';
import type { QuorumController } from '../../host/controller/quorum-controller.js';
import { NodeDisk } from '../../host/io/disk.js';
import { SeededRandom } from '../../host/io/random.js';
import { LogManager } from '../../host/log/log-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import type { ResponseBytes } from '../../host/network/network-types.js';
import { createLogger } from '../../host/observability/logger.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeMetadataResponse, encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { encodeRequestHeader } from '../../host/protocol/headers.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';
import type { ReplicaFetcherManager } from '../../host/replication/replica-fetcher-manager.js';
import { ReplicaManager } from '../../host/replication/replica-manager.js';
import { BrokerMetadataPublisher } from '../../host/server/broker-metadata-publisher.js';
import { ControllerClusterMetadata } from '../../host/server/controller-cluster-metadata.js';
import { MetadataCache } from '../../host/server/metadata-cache.js';
import { startController } from '../controller/controller-fixture.js';
import { fakeConnection } from '../helpers/fake-connection.js';

const dirs: string[] = [];
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Broker 1 as the API sees it, fed by `controller`: one dispatcher reusing answers, one building each afresh. */
function attachBroker(controller: QuorumController, maxBytes = 64 << 20, slicing: { maxPartitionsPerTurn: number; defer: (task: () => void) => void } | object = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-metacache-'));
  dirs.push(dir);
  const config = loadBrokerConfig({ overrides: { 'node.id': '1', 'log.dirs': dir, 'auto.create.topics.enable': 'false' } });
  const logManager = LogManager.open({ logDirs: [dir], defaults: brokerLogConfigDefaults(config) });
  closers.push(() => logManager.shutdown());
  const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: 1 });
  const cache = new MetadataCache({ clusterId: 'AAAAAAAAAAAAAAAAAAAAAA', nodeId: 1 });
  const replicaFetcherManager = { addFetcherForPartitions: () => {}, removeFetcherForPartitions: () => {} } as unknown as ReplicaFetcherManager;
  const publisher = new BrokerMetadataPublisher({
    config, cache, logManager, replicaManager, replicaFetcherManager, producerStateDisk: new NodeDisk(), logger: createLogger({ level: 'silent' }),
  });
  publisher.start(controller.image, controller.nodeId);
  controller.addListener(publisher);
  publisher.applyAllTopics();
  const metadata = new ControllerClusterMetadata({ controller, cache, brokerId: 1, brokerEpoch: () => 0 });
  const responseCache = new MetadataResponseCache({ maxBytes, generation: () => cache.generation, ...slicing });
  const services = (withCache: boolean): BrokerServices => ({
    config, nodeId: 1, metadata, replicaManager,
    brokers: (listenerName: string) => cache.aliveBrokerEndpoints(listenerName),
    ...(withCache ? { metadataResponseCache: responseCache } : {}),
  }) as unknown as BrokerServices;
  const logger = createLogger({ level: 'silent' });
  const cached = new RequestDispatcher({ registry: createApiRegistry(), broker: services(true), logger });
  const fresh = new RequestDispatcher({ registry: createApiRegistry(), broker: services(false), logger });
  return { cache, responseCache, cached, fresh, applied: () => publisher.whenApplied() };
}

interface Ask {
  version: number;
  listener?: string;
  topicOps?: boolean;
  clusterOps?: boolean;
  correlationId?: number;
}

function metadataFrame({ version, topicOps = false, clusterOps = false, correlationId = 7 }: Ask): Buffer {
  const w = new Writer();
  encodeRequestHeader(w, { apiKey: ApiKey.Metadata, apiVersion: version, correlationId, clientId: 'unit' });
  encodeMetadataRequest(w, version, {
    topics: version === 0 ? [] : null,
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: clusterOps,
    includeTopicAuthorizedOperations: topicOps,
  });
  return Buffer.from(w.toBuffer());
}

async function answer(dispatcher: RequestDispatcher, ask: Ask): Promise<Buffer> {
  const connection = { ...fakeConnection(), listenerName: ask.listener ?? 'PLAINTEXT' };
  const bytes = await dispatcher.handle(metadataFrame(ask), connection) as ResponseBytes;
  return Buffer.isBuffer(bytes) ? bytes : Buffer.concat(bytes);
}

/** Every (version, flags) a client can ask, on two listeners. */
function everyAsk(): Ask[] {
  const asks: Ask[] = [];
  for (const listener of ['PLAINTEXT', 'INTERNAL']) {
    for (let version = 0; version <= 8; version++) {
      for (const topicOps of version >= 8 ? [false, true] : [false]) {
        for (const clusterOps of version >= 8 ? [false, true] : [false]) asks.push({ version, listener, topicOps, clusterOps });
      }
    }
  }
  return asks;
}

/** The reused answers equal fresh ones for every ask; returns the v8 PLAINTEXT answer. */
async function expectFreshEverywhere(broker: ReturnType<typeof attachBroker>): Promise<Buffer> {
  for (const ask of everyAsk()) {
    // Twice: the first may build, the second is reused.
    for (const correlationId of [11, 12]) {
      expect(await answer(broker.cached, { ...ask, correlationId }), JSON.stringify(ask)).toEqual(await answer(broker.fresh, { ...ask, correlationId }));
    }
  }
  return answer(broker.cached, { version: 8 });
}

function decoded(bytes: Buffer, version = 8) {
  const r = new Reader(bytes, 4);
  return decodeMetadataResponse(r, version);
}

describe('Reused all-topics Metadata answers', () => {
  it('are byte for byte the fresh answer at every version, flag combination and listener, with each request\'s own correlation id', async () => {
    const { controller } = await startController({ brokers: [1, 2], seed: 5 });
    await controller.createTopics([{ name: 'orders', numPartitions: 6, replicationFactor: 2, configs: [] }]);
    await controller.createTopics([{ name: '__consumer_offsets', numPartitions: 3, replicationFactor: 1, configs: [] }]);
    const broker = attachBroker(controller);
    await expectFreshEverywhere(broker);
    // One build per distinct answer (2 listeners x (8 versions + 4 v8 flag combinations)), the rest reused.
    expect(broker.responseCache.builds).toBe(24);
    const a = await answer(broker.cached, { version: 5, correlationId: 1 });
    const b = await answer(broker.cached, { version: 5, correlationId: 2 });
    expect(a.readInt32BE(0)).toBe(1);
    expect(b.readInt32BE(0)).toBe(2);
    expect(a.subarray(4)).toEqual(b.subarray(4));
    expect(broker.responseCache.builds).toBe(24);
  });

  it('follow every change of the metadata: topics, partitions, leaders, ISR, epochs, brokers, endpoints, the controller', async () => {
    const { controller } = await startController({ brokers: [1, 2], seed: 8 });
    const broker = attachBroker(controller);
    const answers: Buffer[] = [await expectFreshEverywhere(broker)];
    const changed = async (what: string): Promise<void> => {
      await broker.applied();
      const next = await expectFreshEverywhere(broker);
      expect(next, what).not.toEqual(answers.at(-1));
      answers.push(next);
    };

    await controller.createTopics([{ name: 'mirrored', numPartitions: 4, replicationFactor: 2, configs: [] }]);
    await changed('topic created');
    expect(decoded(answers.at(-1)!).topics.map((t) => t.name)).toEqual(['mirrored']);

    await controller.createPartitions([{ name: 'mirrored', count: 6 }]);
    await changed('partitions added');
    expect(decoded(answers.at(-1)!).topics[0]!.partitions).toHaveLength(6);

    // Broker 2 fenced: it leaves the brokers and the ISRs, its leaderships move to broker 1 (new epochs).
    const before = decoded(answers.at(-1)!).topics[0]!.partitions;
    await controller.fenceBroker(2, controller.image.broker(2)!.brokerEpoch);
    await changed('broker fenced');
    const fenced = decoded(answers.at(-1)!);
    expect(fenced.brokers.map((b) => b.nodeId)).toEqual([1]);
    for (const partition of fenced.topics[0]!.partitions) {
      expect(partition.leaderId).toBe(1);
      expect(partition.isrNodes).toEqual([1]);
      expect(partition.offlineReplicas).toEqual([2]);
      const was = before.find((p) => p.partitionIndex === partition.partitionIndex)!;
      if (was.leaderId === 2) expect(partition.leaderEpoch).toBeGreaterThan(was.leaderEpoch);
    }

    // Broker 2 back with another endpoint: listed again, at its new port.
    await controller.registerBroker({
      brokerId: 2, previousBrokerEpoch: controller.image.broker(2)!.brokerEpoch,
      endpoints: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 19094, securityProtocol: 0 }],
    });
    await controller.unfenceBroker(2, controller.image.broker(2)!.brokerEpoch);
    await changed('broker re-registered and unfenced');
    expect(decoded(answers.at(-1)!).brokers.map((b) => [b.nodeId, b.port])).toEqual([[1, 9093], [2, 19094]]);

    // The preferred leaders back on broker 2 where it is first in the replica list (it is not in the ISR yet: no change then).
    const isrBefore = broker.cache.generation;
    await controller.electLeaders(0, null);
    await broker.applied();
    if (broker.cache.generation !== isrBefore) await changed('leaders elected');

    await controller.deleteTopics(['mirrored']);
    await changed('topic deleted');
    expect(decoded(answers.at(-1)!).topics).toEqual([]);

    await controller.unregisterBroker(2);
    await changed('broker unregistered');
    expect(decoded(answers.at(-1)!).brokers.map((b) => b.nodeId)).toEqual([1]);

    broker.cache.setControllerId(2);
    broker.cache.setControllerId(-1);
    await expectFreshEverywhere(broker);
  });

  it('re-encode only the topics that changed, and every topic when the live brokers changed', async () => {
    const { controller } = await startController({ brokers: [1, 2], seed: 4 });
    for (const name of ['a', 'b', 'c', 'd']) await controller.createTopics([{ name, numPartitions: 3, replicationFactor: 2, configs: [] }]);
    const broker = attachBroker(controller);
    await answer(broker.cached, { version: 8 });
    expect(broker.responseCache.topicsReused).toBe(0);

    await controller.createPartitions([{ name: 'b', count: 5 }]);
    await broker.applied();
    expect(await answer(broker.cached, { version: 8 })).toEqual(await answer(broker.fresh, { version: 8 }));
    expect(broker.responseCache.topicsReused).toBe(3);

    await controller.createTopics([{ name: 'bb', numPartitions: 1, replicationFactor: 1, configs: [] }]);
    await controller.deleteTopics(['c']);
    await broker.applied();
    expect(await answer(broker.cached, { version: 8 })).toEqual(await answer(broker.fresh, { version: 8 }));
    expect(broker.responseCache.topicsReused).toBe(3 + 3);

    // Broker 2 fenced: every topic lists it offline now, so nothing is reused.
    await controller.fenceBroker(2, controller.image.broker(2)!.brokerEpoch);
    await broker.applied();
    expect(await answer(broker.cached, { version: 8 })).toEqual(await answer(broker.fresh, { version: 8 }));
    expect(broker.responseCache.topicsReused).toBe(6);
  });

  it('stay the fresh answer through a seeded walk of 150 changes (creations, deletions, growth, ISR shrink and expand, fencing, elections), built over several turns', async () => {
    const { controller } = await startController({ brokers: [1, 2, 3], seed: 21 });
    // Built over several turns too (3 partitions encoded per turn).
    const broker = attachBroker(controller, 64 << 20, { maxPartitionsPerTurn: 3, defer: (task: () => void) => setImmediate(task) });
    const random = new SeededRandom(21);
    const pick = <T>(items: readonly T[]): T => items[random.int(0, items.length - 1)]!;
    let created = 0;
    let isrChanges = 0;
    const steps: string[] = [];
    for (let step = 0; step < 150; step++) {
      const topics = controller.image.topics();
      const choice = random.int(0, 6);
      if (choice === 0 || topics.length === 0) {
        await controller.createTopics([{ name: `t${created++}`, numPartitions: random.int(1, 4), replicationFactor: random.int(1, 3), configs: [] }]);
        steps.push('create');
      } else if (choice === 1 && topics.length > 2) {
        await controller.deleteTopics([pick(topics).name]);
        steps.push('delete');
      } else if (choice === 2) {
        const topic = pick(topics);
        await controller.createPartitions([{ name: topic.name, count: topic.partitions.length + 1 }]);
        steps.push('grow');
      } else if (choice === 3) {
        // The leader shrinks its ISR to itself, or expands it back to every live replica.
        const topic = pick(topics);
        const partition = pick(topic.partitions);
        if (partition.leader < 0) continue;
        const live = partition.replicas.filter((id) => controller.image.broker(id)?.fenced === false);
        const newIsr = partition.isr.length > 1 ? [partition.leader] : live;
        const altered = await controller.alterPartition({
          brokerId: partition.leader, brokerEpoch: controller.image.broker(partition.leader)!.brokerEpoch,
          topics: [{ topicName: '', topicId: topic.topicId, partitions: [{
            partitionIndex: partition.partitionId, leaderEpoch: partition.leaderEpoch, partitionEpoch: partition.partitionEpoch,
            newIsr: [], newIsrWithEpochs: newIsr.map((brokerId) => ({ brokerId, brokerEpoch: -1 })), leaderRecoveryState: 0,
          }] }],
        }, 3);
        if (altered.topics[0]?.partitions[0]?.errorCode === 0) isrChanges++;
        steps.push('isr');
      } else if (choice === 4) {
        const id = pick([2, 3]);
        const registration = controller.image.broker(id)!;
        if (registration.fenced) await controller.unfenceBroker(id, registration.brokerEpoch);
        else await controller.fenceBroker(id, registration.brokerEpoch);
        steps.push('fence');
      } else if (choice === 5) {
        await controller.electLeaders(0, null);
        steps.push('elect');
      } else {
        steps.push('none');
      }
      await broker.applied();
      const ask: Ask = { version: random.int(0, 8), listener: pick(['PLAINTEXT', 'INTERNAL']), topicOps: random.chance(0.5), clusterOps: random.chance(0.5) };
      expect(await answer(broker.cached, ask), `step ${step} (${steps.join(' ')}) ${JSON.stringify(ask)}`).toEqual(await answer(broker.fresh, ask));
    }
    // The walk did reuse bytes, and went through every kind of change.
    expect(broker.responseCache.topicsReused).toBeGreaterThan(0);
    expect(new Set(steps).size).toBe(7);
    expect(isrChanges).toBeGreaterThan(5);
  });

  it('are built over several turns past metadata.response.max.partitions.per.turn, shared by the requests meanwhile, and answer the metadata as it was when the build began', async () => {
    const { controller } = await startController({ brokers: [1, 2], seed: 31 });
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) await controller.createTopics([{ name, numPartitions: 5, replicationFactor: 2, configs: [] }]);
    const turns: (() => void)[] = [];
    const broker = attachBroker(controller, 64 << 20, { maxPartitionsPerTurn: 4, defer: (task: () => void) => turns.push(task) });
    const connection = fakeConnection();
    const before = await answer(broker.fresh, { version: 8, correlationId: 1 });

    const first = broker.cached.handle(metadataFrame({ version: 8, correlationId: 1 }), connection);
    const second = broker.cached.handle(metadataFrame({ version: 8, correlationId: 2 }), connection);
    expect(first).toBeInstanceOf(Promise);
    // A change while the build goes on: the build answers the metadata it began with.
    await controller.createPartitions([{ name: 'c', count: 7 }]);
    await broker.applied();
    let ran = 0;
    while (turns.length > 0) {
      turns.shift()!();
      ran++;
    }
    expect(ran).toBeGreaterThanOrEqual(5); // 30 partitions, 4 per turn, at least a topic each
    const joined = async (result: unknown): Promise<Buffer> => Buffer.concat(await (result as Promise<Buffer[]>));
    expect(await joined(first)).toEqual(before);
    const secondBytes = await joined(second);
    expect(secondBytes.readInt32BE(0)).toBe(2);
    expect(secondBytes.subarray(4)).toEqual(before.subarray(4));
    expect(broker.responseCache.builds).toBe(1);

    // The next request sees the change: rebuilt (topic c encoded again, the others copied).
    const next = broker.cached.handle(metadataFrame({ version: 8, correlationId: 3 }), connection);
    while (turns.length > 0) turns.shift()!();
    const after = await answer(broker.fresh, { version: 8, correlationId: 3 });
    expect(Buffer.concat(await (next as Promise<Buffer[]>))).toEqual(after);
    expect(after).not.toEqual(before);
    expect(broker.responseCache.topicsReused).toBe(5);
  });

  it('build one answer per key at a time: a request of a later generation waits for the build going on, then builds from it', async () => {
    const { controller } = await startController({ brokers: [1, 2], seed: 32 });
    for (const name of ['a', 'b', 'c', 'd']) await controller.createTopics([{ name, numPartitions: 5, replicationFactor: 2, configs: [] }]);
    const turns: (() => void)[] = [];
    const broker = attachBroker(controller, 64 << 20, { maxPartitionsPerTurn: 4, defer: (task: () => void) => turns.push(task) });
    const connection = fakeConnection();
    const first = broker.cached.handle(metadataFrame({ version: 8, correlationId: 1 }), connection);
    const before = await answer(broker.fresh, { version: 8, correlationId: 1 });
    await controller.createPartitions([{ name: 'b', count: 6 }]);
    await broker.applied();
    const second = broker.cached.handle(metadataFrame({ version: 8, correlationId: 2 }), connection);
    const after = await answer(broker.fresh, { version: 8, correlationId: 2 });
    expect(broker.responseCache.builds).toBe(1);
    for (let turn = 0; turn < 100 && turns.length > 0; turn++) {
      turns.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(Buffer.concat(await (first as Promise<Buffer[]>))).toEqual(before);
    expect(Buffer.concat(await (second as Promise<Buffer[]>))).toEqual(after);
    expect(broker.responseCache.builds).toBe(2);
    expect(broker.responseCache.topicsReused).toBe(3);
  });

  it('keep under metadata.response.cache.max.bytes, oldest first, and keep nothing at 0', async () => {
    const { controller } = await startController({ brokers: [1], seed: 3 });
    await controller.createTopics([{ name: 'orders', numPartitions: 50, replicationFactor: 1, configs: [] }]);
    const probe = attachBroker(controller);
    await answer(probe.cached, { version: 8 });
    const oneAnswer = probe.responseCache.bytes;
    expect(oneAnswer).toBeGreaterThan(50 * 20);

    const small = attachBroker(controller, oneAnswer * 2 + 10);
    for (const version of [8, 7, 6, 8, 7, 6]) await answer(small.cached, { version });
    expect(small.responseCache.bytes).toBeLessThanOrEqual(oneAnswer * 2 + 10);
    // 8, 7 stored; 6 drops 8; 8 drops 7; 7 drops 6; 6 drops 8: every ask after the second built again.
    expect(small.responseCache.builds).toBe(6);

    const tiny = attachBroker(controller, 10);
    await answer(tiny.cached, { version: 8 });
    await answer(tiny.cached, { version: 8 });
    expect(tiny.responseCache.bytes).toBe(0);
    expect(tiny.responseCache.builds).toBe(2);
    expect(await answer(tiny.cached, { version: 8 })).toEqual(await answer(tiny.fresh, { version: 8 }));

    const off = attachBroker(controller, 0);
    expect(off.responseCache.enabled).toBe(false);
    expect(await answer(off.cached, { version: 8 })).toEqual(await answer(off.fresh, { version: 8 }));
    expect(off.responseCache.builds).toBe(0);
  });
});
