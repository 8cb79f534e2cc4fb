/**
 * Issue 15 (Kafka's KAFKA-15046): the first produce to 5,000 new partitions fsynced each one's
 * `leader-epoch-checkpoint` on the event loop (9,814 fsyncs, stalls of seconds). A data
 * partition's epoch assignments are now written at the log's flush, roll or clean close, and a
 * crash that takes them is repaired from the batches' partitionLeaderEpoch at open. Counted and
 * crashed on the fault-injecting disk, whose power loss keeps only what was fsynced.
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { type DiskOp, FaultDisk } from '../../host/io/fault-disk.js';
import { LEADER_EPOCH_CHECKPOINT_FILE, LeaderEpochFileCache, parseLeaderEpochCheckpoint } from '../../host/log/leader-epoch-file-cache.js';
import { LogManager } from '../../host/log/log-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { Partition } from '../../host/replication/partition.js';
import { epochStartsOfBatches, makeBatch, testConfig } from '../log/log-test-helpers.js';

const LOG_DIR = '/data/logs';
const PARTITIONS = 64;

/** A fault disk with `/data` durable, and a count of its fsyncs of leader epoch checkpoints and of all fsyncs. */
function countingDisk(seed: number): { disk: FaultDisk; counts: { checkpointFsyncs: number; fsyncs: number } } {
  const disk = new FaultDisk(seed);
  disk.mkdir('/data');
  disk.syncAll();
  const counts = { checkpointFsyncs: 0, fsyncs: 0 };
  disk.faultRule = (op: DiskOp) => {
    if (op.kind === 'fsync' || op.kind === 'fsyncDir') counts.fsyncs++;
    if (op.kind === 'fsync' && path.basename(op.path).startsWith(LEADER_EPOCH_CHECKPOINT_FILE)) counts.checkpointFsyncs++;
    return undefined;
  };
  return { disk, counts };
}

const openManager = (disk: FaultDisk, segmentBytes = 4096): LogManager =>
  LogManager.open({ logDirs: [LOG_DIR], disk, clock: new ManualClock(1_000_000), defaults: testConfig({ segmentBytes }) });

function leaderOver(disk: FaultDisk, log: UnifiedLog, leaderEpoch: number, replicas = [1]): Partition<UnifiedLog> {
  return new Partition({
    topic: log.topic, partition: log.partition, log, localBrokerId: 1, leaderEpoch, replicas, isr: [1],
    leaderEpochCache: LeaderEpochFileCache.open(disk, log.dir),
  });
}

/** The checkpoint's entries as the disk holds them now (empty when there is no file). */
function checkpointOnDisk(disk: FaultDisk, log: UnifiedLog): string {
  const filePath = path.join(log.dir, LEADER_EPOCH_CHECKPOINT_FILE);
  const bytes = disk.peek(filePath);
  if (bytes === undefined) return '';
  return parseLeaderEpochCheckpoint(bytes.toString('utf8'), filePath).map((entry) => `${entry.epoch}@${entry.startOffset}`).join(' ');
}

describe('deferred leader-epoch-checkpoint writes', () => {
  it(`the first produce to ${PARTITIONS} new partitions fsyncs no leader-epoch-checkpoint; the log's flush writes each once`, () => {
    const { disk, counts } = countingDisk(1);
    const manager = openManager(disk);
    const logs = manager.getOrCreateLogs(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic: 'wide', partition, config: testConfig() })), 'first-flush');
    // Three replicas: makeLeader assigns the epoch at once (OffsetForLeaderEpoch must know it).
    const partitions = logs.map((log) => leaderOver(disk, log, 0, [1, 2, 3]));
    counts.fsyncs = 0;
    for (const partition of partitions) expect(partition.appendRecordsToLeader(makeBatch(2), 1).errorCode).toBe(0);
    // The old rule: one checkpoint fsync and one directory fsync per partition, on the event loop.
    expect(counts).toEqual({ checkpointFsyncs: 0, fsyncs: 0 });

    for (const log of logs) log.flush();
    expect(counts.checkpointFsyncs).toBe(PARTITIONS);
    for (const log of logs) expect(checkpointOnDisk(disk, log)).toBe('0@0');
    for (const log of logs) log.flush();
    expect(counts.checkpointFsyncs).toBe(PARTITIONS);
    manager.shutdown();
  });

  it('a clean shutdown writes the deferred epochs', () => {
    const { disk } = countingDisk(2);
    const manager = openManager(disk);
    const log = manager.getOrCreateLog('t', 0, testConfig());
    const partition = leaderOver(disk, log, 2);
    partition.appendRecordsToLeader(makeBatch(2), 1);
    partition.makeLeader({ leaderEpoch: 5 });
    partition.appendRecordsToLeader(makeBatch(2), 1);
    expect(checkpointOnDisk(disk, log)).toBe('');
    manager.shutdown();
    disk.powerLoss('strict');
    expect(checkpointOnDisk(disk, log)).toBe('2@0 5@2');
  });

  it('after a crash or power loss takes the deferred epochs, the epochs read back at open are the batches\' partition leader epochs', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const { disk } = countingDisk(seed);
      const config = testConfig({ segmentBytes: 1024 });
      let log = openManager(disk, 1024).getOrCreateLog('t', 0, config);
      let partition = leaderOver(disk, log, 1);
      // Epoch 1 fills more than a segment: its roll writes epoch 1 durably.
      for (let i = 0; i < 7; i++) partition.appendRecordsToLeader(makeBatch(2, { valueBytes: 40 }), 1);
      expect(log.numberOfSegments).toBeGreaterThan(1);
      const activeSegmentBaseOffset = log.activeSegment.baseOffset;
      for (const epoch of [3, 4, 6]) {
        partition.makeLeader({ leaderEpoch: epoch });
        expect(partition.appendRecordsToLeader(makeBatch(2, { valueBytes: 40 }), 1).errorCode).toBe(0);
      }
      expect(log.activeSegment.baseOffset).toBe(activeSegmentBaseOffset);
      expect(checkpointOnDisk(disk, log)).toBe('1@0');
      // Odd seeds: the process dies (the page cache keeps every record, the epochs 3-6 are gone);
      // even seeds: power loss (the OS wrote back some of the unflushed records, or none).
      if (seed % 2 === 0) disk.powerLoss('torn');

      log = openManager(disk, 1024).getOrCreateLog('t', 0, config);
      partition = leaderOver(disk, log, 7);
      const expected = epochStartsOfBatches(log);
      if (seed % 2 === 1) expect(expected).toBe('1@0 3@14 4@16 6@18');
      expect(checkpointOnDisk(disk, log), `SEED=${seed}`).toBe(expected);
      expect(partition.endOffsetForEpoch(1), `SEED=${seed}`).toEqual({ leaderEpoch: 1, endOffset: Number(expected.split(' ')[1]?.split('@')[1] ?? log.logEndOffset) });
    }
  });
});

describe('the truncations at open (PartitionLeaderEpochs.repair, issue 15)', () => {
  /** A log of two batches in epoch 0 (offsets 0-3) whose checkpoint also holds `5@extraStart`, written durably. */
  function withExtraEntry(seed: number, extraStart: number): { disk: FaultDisk; log: UnifiedLog } {
    const { disk } = countingDisk(seed);
    const log = openManager(disk).getOrCreateLog('t', 0, testConfig());
    const partition = leaderOver(disk, log, 0);
    for (let i = 0; i < 2; i++) expect(partition.appendRecordsToLeader(makeBatch(2), 1).errorCode).toBe(0);
    log.flush();
    LeaderEpochFileCache.open(disk, log.dir).assign(5, extraStart);
    expect(checkpointOnDisk(disk, log)).toBe(`0@0 5@${extraStart}`);
    return { disk, log };
  }

  it('an entry past the log end (an epoch assigned before a write a crash lost) is dropped durably at once', () => {
    const { disk, log } = withExtraEntry(3, 10);
    leaderOver(disk, log, 5);
    disk.powerLoss('strict');
    expect(checkpointOnDisk(disk, log)).toBe('0@0');
  });

  it('an entry starting exactly at the log end is dropped at the log\'s next flush, and the open writes nothing', () => {
    const { disk, log } = withExtraEntry(4, 4);
    const counts = { writes: 0 };
    disk.faultRule = (op: DiskOp) => {
      if (op.kind === 'write' && path.basename(op.path).startsWith(LEADER_EPOCH_CHECKPOINT_FILE)) counts.writes++;
      return undefined;
    };
    // Led in epoch 0 again (epoch 5 never wrote a record here).
    const partition = leaderOver(disk, log, 0);
    expect(counts.writes).toBe(0);
    expect(partition.latestEpoch).toBe(0);
    expect(checkpointOnDisk(disk, log)).toBe('0@0 5@4');
    expect(partition.appendRecordsToLeader(makeBatch(2), 1).errorCode).toBe(0);
    log.flush();
    expect(counts.writes).toBe(1);
    disk.powerLoss('strict');
    expect(checkpointOnDisk(disk, log)).toBe('0@0');
    expect(epochStartsOfBatches(openManager(disk).getOrCreateLog('t', 0, testConfig()))).toBe('0@0');
  });
});
