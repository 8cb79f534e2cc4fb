/**
 * Issue 15: a restart after a DeleteRecords of every partition up to its high watermark took
 * 18-141 s at 10,000 partitions (a plain restart: a few seconds). Each partition's epoch then
 * starts at the log end, which is also the log start, and opening its Partition rewrote its
 * `leader-epoch-checkpoint` (PartitionLeaderEpochs.repair): an fsync of the file and one of the
 * directory per partition, one after the other. The start-up's applyAllTopics now runs in one
 * deferred-sync batch of the LogManager (two syncfs per log directory). Counted, and crashed at
 * every disk call of the restart, on the fault-injecting disk, whose power loss keeps only what was
 * made durable.
 */
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../host/config/broker-config.js';
import { brokerLogConfigDefaults } from '../../host/config/topic-config.js';
import type { MetadataImage } from '../../host/controller/metadata-image.js';
import { ManualClock } from '../../host/io/clock.js';
import { type DiskOp, FaultDisk, SimulatedCrash } from '../../host/io/fault-disk.js';
import { LEADER_EPOCH_CHECKPOINT_FILE, LeaderEpochFileCache, parseLeaderEpochCheckpoint } from '../../host/log/leader-epoch-file-cache.js';
import { LogManager } from '../../host/log/log-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { createLogger } from '../../host/observability/logger.js';
import type { ReplicaFetcherManager } from '../../host/replication/replica-fetcher-manager.js';
import { ReplicaManager } from '../../host/replication/replica-manager.js';
import { BrokerMetadataPublisher } from '../../host/server/broker-metadata-publisher.js';
import { MetadataCache } from '../../host/server/metadata-cache.js';
import { startController } from '../controller/controller-fixture.js';
import { makeBatch } from '../log/log-test-helpers.js';

const LOG_DIR = '/data/logs';
const TOPIC = 'wide';

interface Broker {
  logManager: LogManager;
  replicaManager: ReplicaManager<UnifiedLog>;
  publisher: BrokerMetadataPublisher;
}

/** Broker 1's storage on `disk`, its publisher started on `image` (nothing applied yet). */
function brokerOn(disk: FaultDisk, image: MetadataImage): Broker {
  const config = loadBrokerConfig({ overrides: { 'node.id': '1', 'log.dirs': LOG_DIR } });
  const logManager = LogManager.open({ logDirs: [LOG_DIR], disk, clock: new ManualClock(1_000_000), defaults: brokerLogConfigDefaults(config) });
  const replicaManager = new ReplicaManager<UnifiedLog>({
    localBrokerId: 1, openLeaderEpochCache: (log) => LeaderEpochFileCache.open(logManager.context.disk, log.dir),
  });
  const publisher = new BrokerMetadataPublisher({
    config, cache: new MetadataCache({ clusterId: 'AAAAAAAAAAAAAAAAAAAAAA', nodeId: 1 }), logManager, replicaManager,
    producerStateDisk: logManager.context.disk,
    replicaFetcherManager: { addFetcherForPartitions: () => {}, removeFetcherForPartitions: () => {} } as unknown as ReplicaFetcherManager,
    logger: createLogger({ level: 'silent' }),
  });
  publisher.start(image, 1);
  return { logManager, replicaManager, publisher };
}

/** A clean stop, as the broker's (storage-shutdown.ts): snapshots in one deferred-sync batch, then the logs closed. */
function stop(broker: Broker): void {
  broker.logManager.withDeferredSync(() => broker.replicaManager.shutdown());
  broker.logManager.shutdown();
}

/** The checkpoint of partition `p` as the disk holds it now: `epoch@start` entries, '' for none, undefined without a file. */
function checkpointOnDisk(disk: FaultDisk, p: number): string | undefined {
  const filePath = path.join(LOG_DIR, `${TOPIC}-${p}`, LEADER_EPOCH_CHECKPOINT_FILE);
  const bytes = disk.peek(filePath);
  if (bytes === undefined) return undefined;
  return parseLeaderEpochCheckpoint(bytes.toString('utf8'), filePath).map((entry) => `${entry.epoch}@${entry.startOffset}`).join(' ');
}

/**
 * A disk after a broker led `partitions` partitions (epoch 0), wrote one batch of two records to
 * each, deleted all of them (DeleteRecords to the high watermark: log start = log end = 2) and
 * stopped cleanly; only what is durable kept.
 */
function afterDeleteRecordsOfAll(image: MetadataImage, partitions: number, seed: number): FaultDisk {
  const disk = new FaultDisk(seed);
  disk.mkdir('/data');
  disk.syncAll();
  const broker = brokerOn(disk, image);
  broker.publisher.applyAllTopics();
  for (let p = 0; p < partitions; p++) {
    const partition = broker.replicaManager.getPartition(TOPIC, p)!;
    expect(partition.appendRecordsToLeader(makeBatch(2), 1).errorCode).toBe(0);
    expect(partition.deleteRecordsOnLeader(-1)).toEqual({ errorCode: 0, lowWatermark: 2 });
  }
  stop(broker);
  disk.powerLoss('strict');
  for (let p = 0; p < partitions; p++) expect(checkpointOnDisk(disk, p)).toBe('0@2');
  return disk;
}

/** Images of a controller with `TOPIC` of 4, 40, 80 and 160 partitions, all led by broker 1. */
const images = new Map<number, MetadataImage>();
beforeAll(async () => {
  for (const partitions of [4, 40, 80, 160]) {
    const { controller } = await startController({ brokers: [1], seed: 3 });
    const created = await controller.createTopics([{ name: TOPIC, numPartitions: partitions, replicationFactor: 1, configs: [] }]);
    expect(created[0]!.errorCode).toBe(0);
    images.set(partitions, controller.image);
  }
});

describe('restart after a DeleteRecords of every partition (issue 15)', () => {
  it('fsyncs no leader-epoch-checkpoint and as many files at 160 partitions as at 80 (two syncfs per log directory)', () => {
    const counts: Record<number, Record<string, number>> = {};
    for (const partitions of [80, 160]) {
      const restricted = images.get(partitions)!;
      const disk = afterDeleteRecordsOfAll(restricted, partitions, partitions);
      const broker = brokerOn(disk, restricted);
      const count = { checkpointFsyncs: 0, fsyncs: 0, syncfs: 0 };
      disk.faultRule = (op: DiskOp) => {
        if (op.kind === 'fsync' || op.kind === 'fsyncDir') count.fsyncs++;
        if (op.kind === 'syncFileSystem') count.syncfs++;
        if (op.kind === 'fsync' && path.basename(op.path).startsWith(LEADER_EPOCH_CHECKPOINT_FILE)) count.checkpointFsyncs++;
        return undefined;
      };
      broker.publisher.applyAllTopics();
      disk.faultRule = undefined;
      counts[partitions] = count;
      for (let p = 0; p < partitions; p++) {
        const partition = broker.replicaManager.getPartition(TOPIC, p)!;
        expect([partition.log.logStartOffset, partition.log.logEndOffset]).toEqual([2, 2]);
        // The epoch that started at the log end is dropped (a single-replica leader assigns its epoch at its first append).
        expect(partition.latestEpoch).toBe(-1);
      }
      // The open's truncation is durable when applyAllTopics returns.
      disk.powerLoss('strict');
      for (let p = 0; p < partitions; p++) expect(checkpointOnDisk(disk, p)).toBe('');
    }
    // Before: one checkpoint fsync and one directory fsync per partition (160 and 320).
    expect(counts[80]).toEqual({ checkpointFsyncs: 0, fsyncs: 0, syncfs: 2 });
    expect(counts[160]).toEqual(counts[80]);
  });

  // 4 partitions: the commit replays the few fsyncs one by one; crashed at every call, strict and
  // torn. 40: the commit syncs the file system; crashed at every call from its first syncfs on
  // (before it, the calls are those of the 4 partitions' case, more of them), torn.
  for (const partitions of [4, 40]) {
    it(`a crash at any disk call of the restart (${partitions} partitions) leaves logs and epochs that the next start opens and appends to`, () => {
      const restricted = images.get(partitions)!;
      const { calls, firstSyncfs } = (() => {
        const disk = afterDeleteRecordsOfAll(restricted, partitions, 1);
        const before = disk.operationCount;
        let first = -1;
        disk.faultRule = (op: DiskOp) => {
          if (op.kind === 'syncFileSystem' && first < 0) first = op.index - before + 1;
          return undefined;
        };
        brokerOn(disk, restricted).publisher.applyAllTopics();
        return { calls: disk.operationCount - before, firstSyncfs: first };
      })();
      expect(firstSyncfs > 0).toBe(partitions === 40);
      let crashed = 0;
      for (let crashAt = Math.max(1, firstSyncfs); crashAt <= calls + 1; crashAt++) {
        for (const mode of firstSyncfs > 0 ? ['torn'] as const : ['strict', 'torn'] as const) {
          const where = `crash at call ${crashAt} of ${calls}, ${mode}`;
          const disk = afterDeleteRecordsOfAll(restricted, partitions, crashAt);
          disk.crashAfter(crashAt);
          try {
            brokerOn(disk, restricted).publisher.applyAllTopics();
          } catch (error) {
            if (!(error instanceof SimulatedCrash)) throw error;
            crashed++;
          }
          disk.powerLoss(mode);
          // The old checkpoint or the truncated one, never a damaged file.
          for (let p = 0; p < partitions; p++) expect(['0@2', ''], `${where}, partition ${p}`).toContain(checkpointOnDisk(disk, p));
          const broker = brokerOn(disk, restricted);
          broker.publisher.applyAllTopics();
          expect(broker.logManager.logDirectories.every((directory) => !directory.isOffline), where).toBe(true);
          for (let p = 0; p < partitions; p++) {
            const partition = broker.replicaManager.getPartition(TOPIC, p)!;
            expect([partition.log.logStartOffset, partition.log.logEndOffset], `${where}, partition ${p}`).toEqual([2, 2]);
            expect(partition.latestEpoch, `${where}, partition ${p}`).toBe(-1);
            expect(partition.appendRecordsToLeader(makeBatch(2), 1).errorCode, where).toBe(0);
            expect(partition.endOffsetForEpoch(0), `${where}, partition ${p}`).toEqual({ leaderEpoch: 0, endOffset: 4 });
          }
          stop(broker);
          disk.powerLoss('strict');
          for (let p = 0; p < partitions; p++) expect(checkpointOnDisk(disk, p), `${where}, partition ${p}`).toBe('0@2');
        }
      }
      expect(crashed).toBeGreaterThan(0);
    });
  }
});
