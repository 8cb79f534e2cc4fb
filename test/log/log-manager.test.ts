import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { NodeDisk } from '../../host/io/disk.js';
import { FaultDisk } from '../../host/io/fault-disk.js';
import { cappedDirName, CLEAN_SHUTDOWN_FILE, LogManager, parseTopicPartitionDir } from '../../host/log/log-manager.js';
import { defaultLogConfig } from '../../host/log/log-config.js';
import { expectIndexesMatchRebuild, makeBatch, readAllBatches, removeTempDirs, tempDir, testConfig } from './log-test-helpers.js';

afterEach(removeTempDirs);

function openManager(logDirs: string[], options: { disk?: FaultDisk; clock?: ManualClock } = {}): LogManager {
  return LogManager.open({
    logDirs, defaults: testConfig(), clock: options.clock ?? new ManualClock(),
    ...(options.disk === undefined ? {} : { disk: options.disk }),
    topicConfigs: (topic) => (topic === 'compacted' ? { cleanupPolicy: ['compact'] } : {}),
  });
}

describe('LogManager', () => {
  it('parses partition directory names with dashes in the topic', () => {
    expect(parseTopicPartitionDir('my-topic-12')).toEqual({ topic: 'my-topic', partition: 12 });
    expect(parseTopicPartitionDir('my-topic')).toBeNull();
    expect(parseTopicPartitionDir('-3')).toBeNull();
  });

  it('spreads new logs over the log directories and reloads them after a clean shutdown', () => {
    const dirs = [tempDir(), tempDir()];
    const manager = openManager(dirs);
    for (let p = 0; p < 4; p++) {
      const log = manager.getOrCreateLog('orders', p, testConfig());
      for (let i = 0; i <= p; i++) log.appendAsLeader(makeBatch(3), 0);
      log.updateHighWatermark(log.logEndOffset - 1);
    }
    expect(manager.getOrCreateLog('orders', 0, testConfig())).toBe(manager.getLog('orders', 0));
    expect(fs.readdirSync(dirs[0]!).filter((n) => n.startsWith('orders-'))).toHaveLength(2);
    manager.shutdown();
    for (const dir of dirs) {
      expect(fs.existsSync(path.join(dir, CLEAN_SHUTDOWN_FILE))).toBe(true);
      const checkpoint = fs.readFileSync(path.join(dir, 'recovery-point-offset-checkpoint'), 'utf8').split('\n');
      expect(checkpoint[0]).toBe('0');
      expect(checkpoint[1]).toBe('2');
      expect(checkpoint[2]).toMatch(/^orders \d 1?\d$/);
    }
    const reopened = openManager(dirs);
    for (let p = 0; p < 4; p++) {
      const log = reopened.getLog('orders', p)!;
      expect(log.logEndOffset).toBe(3 * (p + 1));
      expect(log.highWatermark).toBe(3 * (p + 1) - 1);
      expect(readAllBatches(log)).toHaveLength(p + 1);
    }
    for (const dir of dirs) expect(fs.existsSync(path.join(dir, CLEAN_SHUTDOWN_FILE))).toBe(false);
    reopened.shutdown();
  });

  it('creates many logs in one batch with one fsync per log directory, and keeps every offset across a clean restart', () => {
    class CountingDisk extends NodeDisk {
      readonly dirFsyncs = new Map<string, number>();
      readonly fileSystemSyncs = new Map<string, number>();
      override fsyncDir(dir: string): void {
        this.dirFsyncs.set(dir, (this.dirFsyncs.get(dir) ?? 0) + 1);
        super.fsyncDir(dir);
      }
      override syncFileSystem(dir: string): void {
        this.fileSystemSyncs.set(dir, (this.fileSystemSyncs.get(dir) ?? 0) + 1);
        super.syncFileSystem(dir);
      }
    }
    const dirs = [tempDir(), tempDir()].map((dir) => path.resolve(dir));
    const disk = new CountingDisk();
    const manager = LogManager.open({ logDirs: dirs, defaults: testConfig(), clock: new ManualClock(), disk });
    disk.dirFsyncs.clear();
    const requests = Array.from({ length: 60 }, (_, partition) => ({ topic: 'wide', partition, config: testConfig() }));
    const logs = manager.getOrCreateLogs(requests);
    expect(logs.map((log) => log.partition)).toEqual(requests.map((request) => request.partition));
    for (const dir of dirs) {
      expect(disk.dirFsyncs.get(dir)).toBe(1);
      expect(fs.readdirSync(dir).filter((name) => name.startsWith('wide-'))).toHaveLength(30);
    }
    // The new partition directories are empty: their files are made (and each directory
    // fsynced once) by the first flush after an append, here the clean shutdown's.
    for (const log of logs) expect(fs.readdirSync(log.dir)).toEqual([]);
    for (const log of logs) expect(disk.dirFsyncs.get(log.dir)).toBeUndefined();
    // Asking again returns the same logs and creates nothing.
    expect(manager.getOrCreateLogs(requests.slice(0, 3))).toEqual(logs.slice(0, 3));
    for (const log of logs) {
      for (let i = 0; i < log.partition % 4; i++) log.appendAsLeader(makeBatch(2), 0);
      log.updateHighWatermark(log.logEndOffset);
    }
    manager.shutdown();
    for (const log of logs) {
      // The clean stop fsyncs no partition directory: its commit syncs each log directory's file
      // system twice instead (deferred-sync-disk.ts). A log never appended to makes no file.
      expect(disk.dirFsyncs.get(log.dir)).toBeUndefined();
      if (log.partition % 4 === 0) expect(fs.readdirSync(log.dir)).toEqual([]);
      else expect(fs.readdirSync(log.dir).length).toBeGreaterThan(0);
    }
    for (const dir of dirs) expect(disk.fileSystemSyncs.get(dir)).toBe(2);
    const reopened = openManager(dirs);
    for (const { partition } of requests) {
      const log = reopened.getLog('wide', partition)!;
      expect(log.logEndOffset).toBe(2 * (partition % 4));
      expect(log.highWatermark).toBe(2 * (partition % 4));
    }
    reopened.shutdown();
  });

  it('after a clean stop lists each partition directory once and opens no index of an empty log; the first append and read work', () => {
    class CountingDisk extends NodeDisk {
      readonly opened: string[] = [];
      readonly listed = new Map<string, number>();
      override open(filePath: string, mode: 'read' | 'readWrite' | 'create'): number {
        this.opened.push(filePath);
        return super.open(filePath, mode);
      }
      override list(dir: string): string[] {
        this.listed.set(dir, (this.listed.get(dir) ?? 0) + 1);
        return super.list(dir);
      }
    }
    const dir = path.resolve(tempDir());
    const first = openManager([dir]);
    const requests = Array.from({ length: 40 }, (_, partition) => ({ topic: 'lazy', partition, config: testConfig() }));
    for (const log of first.getOrCreateLogs(requests)) {
      for (let i = 0; i < log.partition % 3; i++) log.appendAsLeader(makeBatch(2, { valueBytes: 1000 }), 0);
      expect(log.logEndOffset).toBe(2 * (log.partition % 3));
    }
    first.shutdown();
    const disk = new CountingDisk();
    const reopened = LogManager.open({ logDirs: [dir], defaults: testConfig(), clock: new ManualClock(), disk });
    for (const { partition } of requests) {
      const log = reopened.getLog('lazy', partition)!;
      expect(log.logEndOffset).toBe(2 * (partition % 3));
      expect(disk.listed.get(log.dir)).toBe(1);
      const indexOpens = disk.opened.filter((file) => file.startsWith(log.dir + path.sep) && !file.endsWith('.log'));
      if (partition % 3 === 0) expect(indexOpens).toEqual([]);
    }
    // The first append to a lazily opened (empty) log, a read and an index lookup work.
    const empty = reopened.getLog('lazy', 0)!;
    for (let i = 0; i < 5; i++) empty.appendAsLeader(makeBatch(2, { valueBytes: 1000 }), 0);
    expect(readAllBatches(empty)).toHaveLength(5);
    expect(empty.numberOfSegments).toBeGreaterThan(1); // the lazily opened segment rolled: its indexes were written
    expectIndexesMatchRebuild(empty);
    reopened.shutdown();
    const third = openManager([dir]);
    for (const { partition } of requests) {
      expect(third.getLog('lazy', partition)!.logEndOffset).toBe(partition === 0 ? 10 : 2 * (partition % 3));
    }
    expectIndexesMatchRebuild(third.getLog('lazy', 0)!);
    third.shutdown();
  });

  it('after an unclean stop still checks the index files of an empty log (stale entries are rebuilt)', () => {
    const dir = tempDir();
    const manager = openManager([dir]);
    const log = manager.getOrCreateLog('stale', 0, testConfig());
    manager.shutdown();
    // A never-written log leaves no file at a clean stop; an empty log with files (one truncated
    // to empty, or made by an earlier version) has an empty .log beside its indexes.
    expect(fs.readdirSync(log.dir)).toEqual([]);
    fs.writeFileSync(log.activeSegment.logPath, Buffer.alloc(0));
    const indexPath = log.activeSegment.logPath.replace(/\.log$/, '.index');
    fs.writeFileSync(indexPath, Buffer.from([0, 0, 0, 5, 0, 0, 16, 0]));
    fs.rmSync(path.join(dir, CLEAN_SHUTDOWN_FILE));
    const reopened = openManager([dir]);
    const recovered = reopened.getLog('stale', 0)!;
    expect(recovered.logEndOffset).toBe(0);
    expect(recovered.activeSegment.offsetIndex.entries).toBe(0);
    recovered.appendAsLeader(makeBatch(3), 0);
    expect(readAllBatches(recovered)).toHaveLength(1);
    reopened.shutdown();
    expect(fs.statSync(indexPath).size).toBe(0);
  });

  it('recovers logs after an unclean stop and keeps the log start offset', () => {
    const dir = tempDir();
    const manager = openManager([dir]);
    const log = manager.getOrCreateLog('events', 0, testConfig());
    for (let i = 0; i < 50; i++) log.appendAsLeader(makeBatch(2, { valueBytes: 100 }), 0);
    log.updateHighWatermark(log.logEndOffset);
    expect(log.deleteRecordsBefore(30)).toBe(0);
    manager.tick(0); // writes checkpoints; no shutdown follows
    const file = log.activeSegment.logPath;
    fs.appendFileSync(file, Buffer.alloc(100, 7));
    const reopened = openManager([dir]);
    const recovered = reopened.getLog('events', 0)!;
    expect(recovered.logStartOffset).toBe(30);
    expect(recovered.logEndOffset).toBe(100);
    expect(fs.statSync(file).size).toBe(recovered.activeSegment.size);
    reopened.shutdown();
  });

  it('deletes a log durably, and finishes an interrupted deletion at start-up', async () => {
    const dir = tempDir();
    const manager = openManager([dir]);
    manager.getOrCreateLog('doomed', 0, testConfig()).appendAsLeader(makeBatch(1), 0);
    manager.getOrCreateLog('kept', 0, testConfig()).appendAsLeader(makeBatch(1), 0);
    manager.deleteLog('doomed', 0);
    expect(manager.getLog('doomed', 0)).toBeUndefined();
    await manager.backgroundWritesIdle(); // the renamed directory is removed on the thread pool
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('doomed'))).toEqual([]);
    manager.shutdown();
    fs.mkdirSync(path.join(dir, 'kept-0.abc-delete'));
    fs.writeFileSync(path.join(dir, 'kept-0.abc-delete', '00000000000000000000.log'), 'x');
    const reopened = openManager([dir]);
    expect(fs.existsSync(path.join(dir, 'kept-0.abc-delete'))).toBe(false);
    expect(reopened.allLogs().map((log) => log.topic)).toEqual(['kept']);
    reopened.shutdown();
  });

  it('deletes a whole topic in one batch; the next checkpoint write drops its partitions', async () => {
    const dir = tempDir();
    const manager = openManager([dir]);
    for (let p = 0; p < 3; p++) manager.getOrCreateLog('big', p, testConfig()).appendAsLeader(makeBatch(1), 0);
    manager.getOrCreateLog('kept', 0, testConfig()).appendAsLeader(makeBatch(1), 0);
    manager.checkpointAll();
    manager.deleteLogs([0, 1, 2, 7].map((partition) => ({ topic: 'big', partition })));
    expect(manager.allLogs().map((log) => log.topic)).toEqual(['kept']);
    await manager.backgroundWritesIdle();
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('big'))).toEqual([]);
    // The deletion itself writes no checkpoint (per slice of a big topic that was quadratic): the next write drops them.
    const checkpointFile = path.join(dir, 'recovery-point-offset-checkpoint');
    expect(fs.readFileSync(checkpointFile, 'utf8')).toContain('big 0');
    manager.checkpointAll();
    expect(fs.readFileSync(checkpointFile, 'utf8')).not.toContain('big');
    expect(fs.readFileSync(checkpointFile, 'utf8')).toContain('kept 0');
    manager.shutdown();
  });

  it('deletes and sets aside logs of a 249-character topic (the -delete / -stray name is capped at 255 characters, as Kafka does)', () => {
    const dir = tempDir();
    const manager = openManager([dir]);
    const topic = 'x'.repeat(249);
    for (let p = 0; p < 2; p++) manager.getOrCreateLog(topic, p, testConfig()).appendAsLeader(makeBatch(1), 0);
    manager.deleteLogs([{ topic, partition: 0 }]);
    const stray = manager.markStray(topic, 1, 1_700_000_000_000)!;
    expect(path.basename(stray)).toMatch(/^x+-1\.1700000000000-stray$/);
    expect(path.basename(stray).length).toBeLessThanOrEqual(255);
    expect(manager.getOrCreateLog('after', 0, testConfig()).appendAsLeader(makeBatch(1), 0)).toBeDefined();
    expect(manager.allLogs().map((log) => log.topic)).toEqual(['after']);
    expect(cappedDirName(topic, 12, 'abc-delete')).toBe(`${'x'.repeat(255 - '-12.abc-delete'.length)}-12.abc-delete`);
    manager.shutdown();
  });

  it('skips -stray directories, illegal topic names, files named like partitions and non-empty directories without a segment file', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'notes-3'), 'x');
    fs.writeFileSync(path.join(dir, 'gone-1-delete'), 'x');
    fs.mkdirSync(path.join(dir, 'backup-2024'));
    fs.writeFileSync(path.join(dir, 'backup-2024', 'notes.txt'), 'x');
    fs.mkdirSync(path.join(dir, 'old-0.123-stray'));
    fs.writeFileSync(path.join(dir, 'old-0.123-stray', '00000000000000000000.log'), '');
    fs.mkdirSync(path.join(dir, 'bad name-0'));
    const manager = openManager([dir]);
    expect(manager.allLogs()).toEqual([]);
    expect(fs.readdirSync(path.join(dir, 'backup-2024'))).toEqual(['notes.txt']);
    expect(parseTopicPartitionDir('bad name-0')).toBeNull();
    expect(manager.logDirectories[0]!.isOffline).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'notes-3'), 'utf8')).toBe('x');
    manager.shutdown();
  });

  it('loads a never-written log that left only its leader-epoch-checkpoint (no segment file yet), in its own directory', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'replicated-0'));
    fs.writeFileSync(path.join(dir, 'replicated-0', 'leader-epoch-checkpoint'), '0\n1\n3 0\n');
    const manager = openManager([dir]);
    expect(manager.allLogs().map((log) => [log.topic, log.partition, log.logEndOffset, log.dir])).toEqual([['replicated', 0, 0, path.join(dir, 'replicated-0')]]);
    manager.shutdown();
  });

  it('forgets the start-up listing of a deleted log, so a recreated partition is not described by its old directory', () => {
    const dir = tempDir();
    const manager = openManager([dir]);
    const log = manager.getOrCreateLog('gone', 0, testConfig());
    log.appendAsLeader(makeBatch(1), 0);
    manager.shutdown();
    const reopened = openManager([dir]);
    const loaded = reopened.getLog('gone', 0)!;
    reopened.deleteLog('gone', 0);
    expect(reopened.takeStartupListing(loaded.dir)).toBeUndefined();
    reopened.shutdown();
  });

  it('applies retention and compaction on tick', () => {
    const dir = tempDir();
    const clock = new ManualClock(0);
    const manager = openManager([dir], { clock });
    const deleting = manager.getOrCreateLog('plain', 0, testConfig({ retentionMs: 1000 }));
    const compacted = manager.getOrCreateLog('compacted', 0, testConfig({ cleanupPolicy: ['compact'], minCleanableDirtyRatio: 0.1 }));
    for (let i = 0; i < 60; i++) {
      deleting.appendAsLeader(makeBatch(2, { valueBytes: 100, timestamp: i }), 0);
      compacted.appendAsLeader(makeBatch(2, { valueBytes: 100, timestamp: i }), 0); // keys k0, k1 only
    }
    for (const log of manager.allLogs()) log.updateHighWatermark(log.logEndOffset);
    const compactedSize = compacted.size;
    clock.set(100_000);
    manager.tick(clock.nowMs());
    expect(deleting.numberOfSegments).toBe(1);
    expect(deleting.logStartOffset).toBe(120);
    expect(compacted.size).toBeLessThan(compactedSize / 3);
    manager.shutdown();
    const checkpoint = fs.readFileSync(path.join(dir, 'cleaner-offset-checkpoint'), 'utf8');
    expect(checkpoint).toContain(`compacted 0 ${compacted.activeSegment.baseOffset}`);
  });

  it('takes only the failing directory offline and answers KAFKA_STORAGE_ERROR there', () => {
    const disk = new FaultDisk(1);
    disk.mkdir('/a');
    disk.mkdir('/b');
    disk.syncAll();
    const manager = openManager(['/a', '/b'], { disk });
    const inA = manager.getOrCreateLog('t', 0, testConfig());
    const inB = manager.getOrCreateLog('t', 1, testConfig());
    expect(inA.dir.startsWith('/a')).toBe(true);
    disk.faultRule = (op) => (op.kind === 'write' && op.path.startsWith('/a/') ? { code: 'EIO', persistBytes: 10 } : undefined);
    expect(inA.appendAsLeader(makeBatch(1), 0).errorCode).toBe(56);
    expect(inA.isOffline).toBe(true);
    expect(inA.read(0, 100, 10, true).errorCode).toBe(56);
    expect(inB.appendAsLeader(makeBatch(1), 0).errorCode).toBe(0);
    manager.tick(0);
    manager.shutdown();
    disk.faultRule = undefined;
    expect(disk.exists(`/a/${CLEAN_SHUTDOWN_FILE}`)).toBe(false);
    expect(disk.exists(`/b/${CLEAN_SHUTDOWN_FILE}`)).toBe(true);
    const reopened = openManager(['/a', '/b'], { disk });
    expect(reopened.getLog('t', 0)!.logEndOffset).toBe(0); // the torn write was never served
    expect(reopened.getLog('t', 0)!.appendAsLeader(makeBatch(1), 0).errorCode).toBe(0);
  });

  it('uses Kafka defaults for topics without overrides', () => {
    expect(defaultLogConfig.segmentBytes).toBe(1073741824);
    expect(defaultLogConfig.indexIntervalBytes).toBe(4096);
    expect(defaultLogConfig.cleanupPolicy).toEqual(['delete']);
  });
});
