import * as fs from 'node:fs';
import { SystemTime } from '../../host/io/time.js';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../host/config/broker-config.js';
import { brokerLogConfigDefaults } from '../../host/config/topic-config.js';
import { NodeDisk } from '../../host/io/disk.js';
import { LogManager } from '../../host/log/log-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import type { MetadataApplyTiming, MetadataApplyWork } from '../../host/observability/event-loop-watchdog.js';
import { createLogger } from '../../host/observability/logger.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import type { ReplicaFetcherManager } from '../../host/replication/replica-fetcher-manager.js';
import { ReplicaManager } from '../../host/replication/replica-manager.js';
import { BrokerMetadataPublisher } from '../../host/server/broker-metadata-publisher.js';
import { ControllerClusterMetadata } from '../../host/server/controller-cluster-metadata.js';
import { MetadataCache } from '../../host/server/metadata-cache.js';
import { startController } from '../controller/controller-fixture.js';

const dirs: string[] = [];
const managers: LogManager[] = [];
afterEach(() => {
  for (const manager of managers.splice(0)) manager.shutdown();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Broker 1 applying metadata one partition per turn (real setImmediate turns), its slices timed by a stub watchdog. */
async function sliceByOne() {
  const { controller } = await startController({ brokers: [1], seed: 3 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-apply-wait-'));
  dirs.push(dir);
  const config = loadBrokerConfig({ overrides: { 'node.id': '1', 'log.dirs': dir, 'metadata.apply.max.partitions.per.turn': '1' } });
  const logManager = LogManager.open({ logDirs: [dir], defaults: brokerLogConfigDefaults(config) });
  managers.push(logManager);
  const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: 1 });
  const cache = new MetadataCache({ clusterId: 'AAAAAAAAAAAAAAAAAAAAAA', nodeId: 1 });
  const timed: { work: MetadataApplyWork; durationMs: number }[] = [];
  let clock = 0;
  const timing: MetadataApplyTiming = {
    enabled: true,
    nowMs: () => clock++,
    noteMetadataApply: (work, durationMs) => timed.push({ work: work(), durationMs }),
  };
  const publisher = new BrokerMetadataPublisher({
    config, cache, logManager, replicaManager, producerStateDisk: new NodeDisk(),
    replicaFetcherManager: { addFetcherForPartitions: () => {}, removeFetcherForPartitions: () => {} } as unknown as ReplicaFetcherManager,
    logger: createLogger({ level: 'silent' }),
    defer: (task) => setImmediate(task),
    timing,
  });
  publisher.start(controller.image, controller.nodeId);
  controller.addListener(publisher);
  publisher.applyAllTopics();
  const metadata = new ControllerClusterMetadata({ controller, cache, brokerId: 1, brokerEpoch: () => 0, whenApplied: () => publisher.whenApplied(), time: new SystemTime() });
  const leaders = (topic: string): number => (cache.topic(topic)?.partitions ?? [])
    .filter((partition) => replicaManager.getPartition(topic, partition.partition)?.isLeader === true).length;
  return { controller, publisher, metadata, leaders, timed };
}

describe('CreateTopics / CreatePartitions through the local controller answer once this broker applied the change (issue 15)', () => {
  it('creates 50 partitions one per turn and answers with all 50 led here; CreatePartitions likewise', async () => {
    const { metadata, leaders, publisher } = await sliceByOne();
    const created = await metadata.createTopic({ name: 'fifty', numPartitions: 50, replicationFactor: 1, configs: {} }, false);
    expect(created.errorCode).toBe(ErrorCode.NONE);
    expect(leaders('fifty')).toBe(50);
    expect(publisher.pendingSlices).toBe(0);
    const grown = await metadata.createPartitions('fifty', 80, false);
    expect(grown.errorCode).toBe(ErrorCode.NONE);
    expect(leaders('fifty')).toBe(80);
  });

  it('waits at most the request\'s timeoutMs (0: not at all), then answers NONE: the topic exists and is applied shortly', async () => {
    const { metadata, leaders, publisher } = await sliceByOne();
    const created = await metadata.createTopic({ name: 'hurried', numPartitions: 40, replicationFactor: 1, configs: {} }, false, 0);
    expect(created.errorCode).toBe(ErrorCode.NONE);
    expect(leaders('hurried')).toBeLessThan(40);
    await publisher.whenApplied();
    expect(leaders('hurried')).toBe(40);
    const grown = await metadata.createPartitions('hurried', 400, false, 1);
    expect(grown.errorCode).toBe(ErrorCode.NONE);
    expect(leaders('hurried')).toBeLessThan(400);
    await publisher.whenApplied();
    expect(leaders('hurried')).toBe(400);
  });

  it('does not wait for a validateOnly or refused change, nor for changes published after the commit', async () => {
    const { metadata, leaders, controller, publisher } = await sliceByOne();
    expect((await metadata.createTopic({ name: 'big', numPartitions: 40, replicationFactor: 1, configs: {} }, true)).errorCode).toBe(ErrorCode.NONE);
    expect(leaders('big')).toBe(0);
    // A large change committed by someone else (not waited for by the answer below)...
    await controller.createTopics([{ name: 'other', numPartitions: 40, replicationFactor: 1, configs: [] }]);
    expect(publisher.pendingSlices).toBeGreaterThan(0);
    // ...a refused one answers at once, with its slices still queued.
    const refused = await metadata.createTopic({ name: 'other', numPartitions: 1, replicationFactor: 1, configs: {} }, false);
    expect(refused.errorCode).toBe(ErrorCode.TOPIC_ALREADY_EXISTS);
    expect(leaders('other')).toBeLessThan(40);
    await publisher.whenApplied();
    expect(leaders('other')).toBe(40);
  });

  it('times every slice for the event-loop watchdog: op, topic and the partitions it applied', async () => {
    const { metadata, timed, publisher } = await sliceByOne();
    await metadata.createTopic({ name: 'three', numPartitions: 3, replicationFactor: 1, configs: {} }, false);
    await metadata.createPartitions('three', 4, false);
    await metadata.deleteTopic('three');
    await publisher.whenApplied();
    expect(timed.map((t) => t.work)).toEqual([
      ...Array.from({ length: 3 }, () => ({ op: 'create', topic: 'three', partitions: 1 })),
      ...Array.from({ length: 4 }, () => ({ op: 'update', topic: 'three', partitions: 1 })),
      ...Array.from({ length: 4 }, () => ({ op: 'delete', topic: 'three', partitions: 1 })),
    ]);
    expect(timed.every((t) => t.durationMs >= 1)).toBe(true);
  });
});
