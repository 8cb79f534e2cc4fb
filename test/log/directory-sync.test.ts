/**
 * What creating and deleting many partitions' logs fsyncs, and what survives a power loss
 * (issue 15: a topic create or delete held the event loop for an fsync per partition). Counted
 * on the fault-injecting disk, whose power loss keeps only what was fsynced (fault-disk.ts).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import type { DiskOp } from '../../host/io/fault-disk.js';
import { FaultDisk } from '../../host/io/fault-disk.js';
import { LogManager } from '../../host/log/log-manager.js';
import { makeBatch, readAllBatches, testConfig } from './log-test-helpers.js';

const LOG_DIR = '/data/logs';
const PARTITIONS = 64;

/** A fault disk with `/data` durable, and a count of its calls by kind (and of fsyncDir by path). */
function countingDisk(seed: number): { disk: FaultDisk; calls: Map<string, number>; reset: () => void } {
  const disk = new FaultDisk(seed);
  disk.mkdir('/data');
  disk.syncAll();
  const calls = new Map<string, number>();
  disk.faultRule = (op: DiskOp) => {
    calls.set(op.kind, (calls.get(op.kind) ?? 0) + 1);
    if (op.kind === 'fsyncDir') calls.set(`fsyncDir ${op.path}`, (calls.get(`fsyncDir ${op.path}`) ?? 0) + 1);
    return undefined;
  };
  return { disk, calls, reset: () => calls.clear() };
}

const open = (disk: FaultDisk): LogManager => LogManager.open({ logDirs: [LOG_DIR], disk, clock: new ManualClock(1_000_000), defaults: testConfig() });
const wide = (topic: string) => Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, config: testConfig() }));
const fsyncs = (calls: Map<string, number>): number => (calls.get('fsync') ?? 0) + (calls.get('fsyncDir') ?? 0);

describe('directory sync of created and deleted logs', () => {
  it(`creates ${PARTITIONS} logs with directory sync at first flush without a single fsync`, () => {
    const { disk, calls, reset } = countingDisk(1);
    const manager = open(disk);
    reset();
    const logs = manager.getOrCreateLogs(wide('wide'), 'first-flush');
    expect(logs).toHaveLength(PARTITIONS);
    expect(fsyncs(calls)).toBe(0);
    // The same with directory sync 'now': one fsync of the log directory and nothing else (the
    // partition directories are empty: their files are made, and fsynced, by the first flush).
    reset();
    manager.getOrCreateLogs(wide('durable'), 'now');
    expect(calls.get(`fsyncDir ${LOG_DIR}`)).toBe(1);
    expect(calls.get('fsyncDir')).toBe(1);
    expect(calls.get('open') ?? 0).toBe(0);
    manager.shutdown();
  });

  it("'now' logs survive a power loss before their first flush; a flushed append survives with its new files", () => {
    const { disk } = countingDisk(3);
    const manager = open(disk);
    const logs = manager.getOrCreateLogs(wide('kept'), 'now');
    logs[0]!.appendAsLeader(makeBatch(2), 0);
    logs[0]!.flush();
    disk.powerLoss('strict');
    const reopened = open(disk);
    const kept = reopened.allLogs().filter((log) => log.topic === 'kept');
    expect(kept).toHaveLength(PARTITIONS);
    expect(kept.find((log) => log.partition === 0)!.logEndOffset).toBe(2);
    expect(kept.filter((log) => log.partition !== 0).every((log) => log.logEndOffset === 0 && !log.isOffline)).toBe(true);
    reopened.shutdown();
  });

  it('a segment file made after an empty flush is fsynced into its directory by the next flush (power loss keeps the append)', () => {
    const { disk } = countingDisk(4);
    const manager = open(disk);
    const [log] = manager.getOrCreateLogs([{ topic: 'late', partition: 0, config: testConfig() }], 'first-flush');
    log!.flush(); // nothing appended yet: the directory is fsynced while it holds no file
    log!.appendAsLeader(makeBatch(2), 0); // makes the .log file
    log!.flush();
    disk.powerLoss('strict');
    const reopened = open(disk);
    expect(reopened.getLog('late', 0)!.logEndOffset).toBe(2);
    reopened.shutdown();
  });

  it('a power loss before any flush takes the new logs whole, and they can be created again', () => {
    const { disk } = countingDisk(2);
    const manager = open(disk);
    for (const log of manager.getOrCreateLogs(wide('gone'), 'first-flush')) log.appendAsLeader(makeBatch(2), 0);
    disk.powerLoss('strict');
    const reopened = open(disk);
    expect(reopened.allLogs().filter((log) => log.topic === 'gone')).toEqual([]);
    const again = reopened.getOrCreateLogs(wide('gone'), 'first-flush');
    expect(again.every((log) => log.logEndOffset === 0 && !log.isOffline)).toBe(true);
    reopened.shutdown();
  });

  it('a flush makes a deferred log durable: logs flushed one after another share one fsync of the log directory, and their records survive a power loss', () => {
    const { disk, calls, reset } = countingDisk(3);
    const manager = open(disk);
    const logs = manager.getOrCreateLogs(wide('kept'), 'first-flush');
    for (const log of logs) log.appendAsLeader(makeBatch(3), 0);
    reset();
    const flushed = logs.slice(0, 8);
    for (const log of flushed) log.flush();
    expect(calls.get(`fsyncDir ${LOG_DIR}`)).toBe(1);
    for (const log of flushed) expect(calls.get(`fsyncDir ${log.dir}`)).toBe(1);
    // A second flush of the same logs fsyncs no directory again.
    reset();
    for (const log of flushed) {
      log.appendAsLeader(makeBatch(1), 0);
      log.flush();
    }
    expect(calls.get('fsyncDir') ?? 0).toBe(0);
    disk.powerLoss('strict');
    const reopened = open(disk);
    for (const log of flushed) expect(readAllBatches(reopened.getLog('kept', log.partition)!)).toHaveLength(2);
    // The others' directories came back with the log directory's fsync, their unflushed records did not.
    for (const log of logs.slice(8)) expect(reopened.getLog('kept', log.partition)?.logEndOffset ?? 0).toBe(0);
    reopened.shutdown();
  });

  it('a roll of a deferred log makes the rolled segment durable, directory entries included', () => {
    const { disk } = countingDisk(4);
    const manager = open(disk);
    const log = manager.getOrCreateLog('rolled', 0, testConfig({ segmentBytes: 1024 }), 'first-flush');
    while (log.numberOfSegments < 2) log.appendAsLeader(makeBatch(2, { valueBytes: 100 }), 0);
    const recoveryPoint = log.recoveryPoint;
    expect(recoveryPoint).toBeGreaterThan(0);
    disk.powerLoss('strict');
    const reopened = open(disk);
    expect(reopened.getLog('rolled', 0)!.logEndOffset).toBeGreaterThanOrEqual(recoveryPoint);
    reopened.shutdown();
  });

  it(`deletes ${PARTITIONS} empty logs with one fsync of the log directory, and they stay deleted after a power loss`, () => {
    const { disk, calls, reset } = countingDisk(5);
    const manager = open(disk);
    manager.getOrCreateLogs(wide('doomed'), 'now');
    manager.tick(1_000_000); // the checkpoints list the empty logs (offsets 0)
    reset();
    manager.deleteLogs(wide('doomed'));
    expect(calls.get('fsyncDir')).toBe(1);
    expect(calls.get('fsync') ?? 0).toBe(0);
    expect(calls.get('rename')).toBe(PARTITIONS);
    expect(disk.list(LOG_DIR).filter((name) => name.startsWith('doomed'))).toEqual([]);
    disk.powerLoss('strict');
    const reopened = open(disk);
    expect(reopened.allLogs()).toEqual([]);
    reopened.shutdown();
  });

  it('deleting logs that hold records writes no checkpoint, recreating them does first: a topic recreated under the same name, flushed, then lost to a power loss inherits no offset', () => {
    const { disk, calls, reset } = countingDisk(6);
    const manager = open(disk);
    const partitions = wide('reborn').slice(0, 4);
    const logs = manager.getOrCreateLogs(partitions, 'now');
    for (const log of logs) {
      for (let i = 0; i < 5; i++) log.appendAsLeader(makeBatch(2), 0);
      log.updateHighWatermark(log.logEndOffset);
      expect(log.deleteRecordsBefore(6)).toBe(0);
    }
    manager.checkpointAll(); // log-start-offset-checkpoint: reborn <p> 6
    reset();
    manager.deleteLogs(partitions);
    expect(calls.get('fsync') ?? 0).toBe(0); // the log directory is fsynced (fsyncDir), no checkpoint file
    // Recreated at once (no tick between): the stale entries are written away first.
    const recreated = manager.getOrCreateLogs(partitions, 'first-flush');
    expect(calls.get('fsync')).toBeGreaterThan(0); // the checkpoint files
    // Flushed, then the power goes.
    for (const log of recreated) {
      log.appendAsLeader(makeBatch(2), 0);
      log.flush();
    }
    disk.powerLoss('strict');
    const reopened = open(disk);
    for (const { partition } of partitions) {
      const log = reopened.getLog('reborn', partition)!;
      expect(log.logStartOffset).toBe(0);
      expect(readAllBatches(log)).toHaveLength(1);
    }
    reopened.shutdown();
  });
});
