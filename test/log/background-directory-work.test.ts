import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { NodeDisk } from '../../host/io/disk.js';
import { FaultDisk } from '../../host/io/fault-disk.js';
import { LogManager } from '../../host/log/log-manager.js';
import { makeBatch, removeTempDirs, tempDir, testConfig } from './log-test-helpers.js';

afterEach(removeTempDirs);

/** Counts the directory syscalls made on the event loop (the synchronous Disk calls). */
class CountingDisk extends NodeDisk {
  readonly calls: string[] = [];
  override isDirectory(filePath: string): boolean {
    this.calls.push(`isDirectory ${filePath}`);
    return super.isDirectory(filePath);
  }
  override mkdir(dir: string): void {
    this.calls.push(`mkdir ${dir}`);
    super.mkdir(dir);
  }
  override list(dir: string): string[] {
    this.calls.push(`list ${dir}`);
    return super.list(dir);
  }
}

const requests = (topic: string, count: number) => Array.from({ length: count }, (_, partition) => ({ topic, partition, config: testConfig() }));

describe('LogManager.prepareLogDirectories (partition directories made on the thread pool)', () => {
  it('makes the directories off the event loop, spread over the log directories; the new logs then cost no directory syscall', async () => {
    const dirs = [tempDir(), tempDir()].map((dir) => path.resolve(dir));
    const disk = new CountingDisk();
    const manager = LogManager.open({ logDirs: dirs, defaults: testConfig(), clock: new ManualClock(), disk });
    const wanted = requests('prepared', 10);
    const pending = manager.prepareLogDirectories(wanted);
    expect(pending).not.toBeNull();
    await pending;
    for (const dir of dirs) expect(fs.readdirSync(dir).filter((name) => name.startsWith('prepared-'))).toHaveLength(5);
    disk.calls.length = 0;
    const logs = manager.getOrCreateLogs(wanted, 'first-flush');
    expect(disk.calls).toEqual([]);
    // Nothing left to make: no second trip to the thread pool.
    expect(manager.prepareLogDirectories(wanted)).toBeNull();
    for (const log of logs) log.appendAsLeader(makeBatch(2), 0);
    manager.shutdown();
    const reopened = LogManager.open({ logDirs: dirs, defaults: testConfig(), clock: new ManualClock() });
    for (const { partition } of wanted) expect(reopened.getLog('prepared', partition)!.logEndOffset).toBe(2);
    reopened.shutdown();
  });

  it('a directory that already exists is left to getOrCreateLogs, which loads what is in it', async () => {
    const root = path.resolve(tempDir());
    const first = LogManager.open({ logDirs: [root], defaults: testConfig(), clock: new ManualClock() });
    first.getOrCreateLog('kept', 0, testConfig()).appendAsLeader(makeBatch(3), 0);
    first.shutdown();
    const manager = LogManager.open({ logDirs: [root], defaults: testConfig(), clock: new ManualClock() });
    // 'kept-0' is loaded already (nothing to prepare); a stray directory not loaded yet is found on disk.
    fs.mkdirSync(path.join(root, 'late-0'));
    await manager.prepareLogDirectories([{ topic: 'kept', partition: 0 }, { topic: 'late', partition: 0 }]);
    expect(manager.getOrCreateLogs(requests('late', 1), 'first-flush')[0]!.logEndOffset).toBe(0);
    expect(manager.getLog('kept', 0)!.logEndOffset).toBe(3);
    manager.shutdown();
  });

  it('is a no-op (null) on disks other than NodeDisk, e.g. the simulator\'s', () => {
    const disk = new FaultDisk(1);
    const manager = LogManager.open({ logDirs: ['/data'], defaults: testConfig(), clock: new ManualClock(), disk });
    expect(manager.prepareLogDirectories([{ topic: 'sim', partition: 0 }])).toBeNull();
    manager.shutdown();
  });
});

describe('LogManager.deleteLogsInBackground (renames and directory fsync on the thread pool)', () => {
  it('detaches at once, renames away off the event loop, and a topic recreated afterwards starts empty, also across a restart', async () => {
    const root = path.resolve(tempDir());
    const disk = new CountingDisk();
    const manager = LogManager.open({ logDirs: [root], defaults: testConfig(), clock: new ManualClock(), disk });
    const logs = manager.getOrCreateLogs(requests('gone', 4), 'now');
    for (const log of logs) {
      log.appendAsLeader(makeBatch(3), 0);
      log.updateHighWatermark(log.logEndOffset);
      log.flush();
    }
    manager.checkpointAll();
    const renameSync = vi.spyOn(disk, 'rename');
    const fsyncDirSync = vi.spyOn(disk, 'fsyncDir');
    const pending = manager.deleteLogsInBackground(requests('gone', 4));
    expect(pending).not.toBeNull();
    expect(manager.getLog('gone', 0)).toBeUndefined();
    await pending;
    // No partition directory renamed on the event loop; what is synchronous is the rewrite of
    // the checkpoints that held the deleted partitions' non-zero offsets (temp file, rename,
    // directory fsync per file).
    expect(renameSync.mock.calls.filter(([from]) => String(from).includes(`${path.sep}gone-`))).toEqual([]);
    expect(renameSync.mock.calls.every(([from]) => String(from).endsWith('.tmp'))).toBe(true);
    expect(fsyncDirSync).toHaveBeenCalledTimes(renameSync.mock.calls.length);
    expect(fs.readdirSync(root).filter((name) => name.startsWith('gone-') && !name.endsWith('-delete'))).toEqual([]);
    await manager.backgroundWritesIdle();
    expect(fs.readdirSync(root).filter((name) => name.startsWith('gone-'))).toEqual([]);
    // Recreated under the same name: nothing of the old logs (offsets, checkpoints) comes back.
    await manager.prepareLogDirectories(requests('gone', 4));
    for (const log of manager.getOrCreateLogs(requests('gone', 4), 'now')) expect(log.logEndOffset).toBe(0);
    manager.shutdown();
    const reopened = LogManager.open({ logDirs: [root], defaults: testConfig(), clock: new ManualClock() });
    for (const { partition } of requests('gone', 4)) {
      const log = reopened.getLog('gone', partition)!;
      expect([log.logStartOffset, log.logEndOffset, log.highWatermark]).toEqual([0, 0, 0]);
    }
    reopened.shutdown();
  });

  it('is null for unknown partitions and on the simulator\'s disk', () => {
    const root = path.resolve(tempDir());
    const manager = LogManager.open({ logDirs: [root], defaults: testConfig(), clock: new ManualClock() });
    expect(manager.deleteLogsInBackground([{ topic: 'never', partition: 0 }])).toBeNull();
    manager.shutdown();
    const sim = LogManager.open({ logDirs: ['/data'], defaults: testConfig(), clock: new ManualClock(), disk: new FaultDisk(2) });
    sim.getOrCreateLog('sim', 0, testConfig());
    expect(sim.deleteLogsInBackground([{ topic: 'sim', partition: 0 }])).toBeNull();
    expect(sim.getLog('sim', 0)).toBeDefined();
    sim.shutdown();
  });
});

