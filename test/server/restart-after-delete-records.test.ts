/**
 * Issue 15: a restart after a DeleteRecords of every partition up to its high watermark took
 * 18-141 s at 10,000 partitions (a plain restart: a few seconds). Each partition's epoch then
 * starts at the log end, which is also the log start, and opening its Partition rewrote its
 * `leader-epoch-checkpoint` (PartitionLeaderEpochs.repair): an fsync of the file and one of the
 * directory per partition, one after the other. Now the open's truncations are written at the
 * log's next flush (unless an entry starts past the log end), and what the start-up still writes
 * (repairs after a crash) is made durable in one deferred-sync batch of the LogManager around
 * applyAllTopics (two syncfs per log directory). Counted, and crashed at every disk call, on the
 * fault-injecting disk, whose power loss keeps only what was made durable.
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
import { epochStartsOfBatches, makeBatch } from '../log/log-test-helpers.js';

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

/**
 * A disk after a broker led `partitions` partitions (epoch 0) and wrote one batch of two records to
 * each, then the process died (the page cache kept everything): no checkpoint holds the epoch.
 */
function afterCrashWithEpochsUnwritten(image: MetadataImage, partitions: number, seed: number): FaultDisk {
  const disk = new FaultDisk(seed);
  disk.mkdir('/data');
  disk.syncAll();
  const broker = brokerOn(disk, image);
  broker.publisher.applyAllTopics();
  for (let p = 0; p < partitions; p++) expect(broker.replicaManager.getPartition(TOPIC, p)!.appendRecordsToLeader(makeBatch(2), 1).errorCode).toBe(0);
  for (let p = 0; p < partitions; p++) expect(checkpointOnDisk(disk, p)).toBeUndefined();
  return disk;
}

/** Counts fsyncs (files and directories), syncfs and writes of leader-epoch checkpoints while `run` runs. */
function counting(disk: FaultDisk, run: () => void): { checkpointWrites: number; fsyncs: number; syncfs: number } {
  const count = { checkpointWrites: 0, fsyncs: 0, syncfs: 0 };
  disk.faultRule = (op: DiskOp) => {
    if (op.kind === 'fsync' || op.kind === 'fsyncDir') count.fsyncs++;
    if (op.kind === 'syncFileSystem') count.syncfs++;
    if (op.kind === 'write' && path.basename(op.path).startsWith(LEADER_EPOCH_CHECKPOINT_FILE)) count.checkpointWrites++;
    return undefined;
  };
  try {
    run();
  } finally {
    disk.faultRule = undefined;
  }
  return count;
}

/**
 * After a clean stop and a power loss, every partition's checkpoint holds the epochs of its
 * batches, and the log starts at `logStartOffset`: what the broker on `disk` left.
 */
function expectEpochsOfBatches(disk: FaultDisk, image: MetadataImage, partitions: number, logStartOffset: number, where: string): void {
  const broker = brokerOn(disk, image);
  broker.publisher.applyAllTopics();
  expect(broker.logManager.logDirectories.every((directory) => !directory.isOffline), where).toBe(true);
  const expected: string[] = [];
  for (let p = 0; p < partitions; p++) {
    const log = broker.replicaManager.getPartition(TOPIC, p)!.log;
    expect(log.logStartOffset, `${where}, partition ${p}`).toBe(logStartOffset);
    expected.push(epochStartsOfBatches(log));
  }
  stop(broker);
  disk.powerLoss('strict');
  // No file where no epoch was ever written (a log that lost its records).
  for (let p = 0; p < partitions; p++) expect(checkpointOnDisk(disk, p) ?? '', `${where}, partition ${p}`).toBe(expected[p]);
}

/** Images of a controller with `TOPIC` of 2, 40, 80 and 160 partitions, all led by broker 1. */
const images = new Map<number, MetadataImage>();
beforeAll(async () => {
  for (const partitions of [2, 40, 80, 160]) {
    const { controller } = await startController({ brokers: [1], seed: 3 });
    const created = await controller.createTopics([{ name: TOPIC, numPartitions: partitions, replicationFactor: 1, configs: [] }]);
    expect(created[0]!.errorCode).toBe(0);
    images.set(partitions, controller.image);
  }
});

describe('restart after a DeleteRecords of every partition (issue 15)', () => {
  it('writes no leader-epoch-checkpoint and makes no fsync at 80 or 160 partitions; the next clean stop writes the truncation', () => {
    for (const partitions of [80, 160]) {
      const image = images.get(partitions)!;
      const disk = afterDeleteRecordsOfAll(image, partitions, partitions);
      const broker = brokerOn(disk, image);
      // Before: a checkpoint write, its fsync and a directory fsync per partition.
      expect(counting(disk, () => broker.publisher.applyAllTopics())).toEqual({ checkpointWrites: 0, fsyncs: 0, syncfs: 0 });
      for (let p = 0; p < partitions; p++) {
        const partition = broker.replicaManager.getPartition(TOPIC, p)!;
        expect([partition.log.logStartOffset, partition.log.logEndOffset]).toEqual([2, 2]);
        // The epoch that started at the log end is dropped (a single-replica leader assigns its epoch at its first append).
        expect(partition.latestEpoch).toBe(-1);
      }
      stop(broker);
      disk.powerLoss('strict');
      for (let p = 0; p < partitions; p++) expect(checkpointOnDisk(disk, p)).toBe('');
    }
  });

  it('a restart after a crash rewrites every checkpoint the crash left behind its log with no fsync of its own (two syncfs, at 80 as at 160 partitions)', () => {
    for (const partitions of [80, 160]) {
      const image = images.get(partitions)!;
      const disk = afterCrashWithEpochsUnwritten(image, partitions, partitions);
      const broker = brokerOn(disk, image);
      // Before: a checkpoint fsync and a directory fsync per partition.
      expect(counting(disk, () => broker.publisher.applyAllTopics())).toEqual({ checkpointWrites: partitions, fsyncs: 0, syncfs: 2 });
      disk.powerLoss('strict');
      for (let p = 0; p < partitions; p++) expect(checkpointOnDisk(disk, p)).toBe('0@0');
    }
  });

  it('a crash at any disk call of the restart, new epochs\' appends and the stop after a DeleteRecords of all leaves the batches\' epochs and the log start', () => {
    const partitions = 2;
    const image = images.get(partitions)!;
    /** The restart, a batch in epoch 0 and one in each of epochs 3 and 4, a clean stop. */
    const life = (disk: FaultDisk): void => {
      const broker = brokerOn(disk, image);
      broker.publisher.applyAllTopics();
      for (let p = 0; p < partitions; p++) {
        const partition = broker.replicaManager.getPartition(TOPIC, p)!;
        expect(partition.appendRecordsToLeader(makeBatch(2), 1).errorCode).toBe(0);
        for (const leaderEpoch of [3, 4]) {
          partition.makeLeader({ leaderEpoch });
          expect(partition.appendRecordsToLeader(makeBatch(2), 1).errorCode).toBe(0);
        }
      }
      stop(broker);
    };
    const calls = (() => {
      const disk = afterDeleteRecordsOfAll(image, partitions, 1);
      const before = disk.operationCount;
      life(disk);
      disk.powerLoss('strict');
      for (let p = 0; p < partitions; p++) expect(checkpointOnDisk(disk, p)).toBe('0@2 3@4 4@6');
      return disk.operationCount - before;
    })();
    let crashed = 0;
    for (let crashAt = 1; crashAt <= calls; crashAt++) {
      for (const mode of ['strict', 'torn'] as const) {
        const disk = afterDeleteRecordsOfAll(image, partitions, crashAt);
        disk.crashAfter(crashAt);
        try {
          life(disk);
        } catch (error) {
          if (!(error instanceof SimulatedCrash)) throw error;
          crashed++;
        }
        disk.powerLoss(mode);
        expectEpochsOfBatches(disk, image, partitions, 2, `crash at call ${crashAt} of ${calls}, ${mode}`);
      }
    }
    expect(crashed).toBe(2 * calls);
  });

  it('a crash at any disk call of the start-up\'s commit (40 partitions repaired after a crash, syncfs) leaves the batches\' epochs', () => {
    const partitions = 40;
    const image = images.get(partitions)!;
    const { calls, firstSyncfs } = (() => {
      const disk = afterCrashWithEpochsUnwritten(image, partitions, 1);
      const before = disk.operationCount;
      let first = -1;
      disk.faultRule = (op: DiskOp) => {
        if (op.kind === 'syncFileSystem' && first < 0) first = op.index - before + 1;
        return undefined;
      };
      brokerOn(disk, image).publisher.applyAllTopics();
      return { calls: disk.operationCount - before, firstSyncfs: first };
    })();
    expect(firstSyncfs).toBeGreaterThan(0);
    for (let crashAt = firstSyncfs; crashAt <= calls + 1; crashAt++) {
      const disk = afterCrashWithEpochsUnwritten(image, partitions, crashAt);
      disk.crashAfter(crashAt);
      try {
        brokerOn(disk, image).publisher.applyAllTopics();
      } catch (error) {
        if (!(error instanceof SimulatedCrash)) throw error;
      }
      disk.powerLoss('torn');
      // The old checkpoint (none) or the repaired one, never a damaged file.
      for (let p = 0; p < partitions; p++) expect([undefined, '0@0'], `crash at call ${crashAt}, partition ${p}`).toContain(checkpointOnDisk(disk, p));
      expectEpochsOfBatches(disk, image, partitions, 0, `crash at call ${crashAt} of ${calls}`);
    }
  });
});
