import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { readWholeFile } from '../../host/io/disk.js';
import { FaultDisk } from '../../host/io/fault-disk.js';
import { writeFileAtomicallyInBackground } from '../../host/io/background-write.js';
import { LogManager } from '../../host/log/log-manager.js';
import { makeBatch, removeTempDirs, tempDir, testConfig } from './log-test-helpers.js';

afterEach(removeTempDirs);

const HW_FILE = 'replication-offset-checkpoint';

function openManager(dir: string, disk?: FaultDisk): LogManager {
  return LogManager.open({ logDirs: [dir], defaults: testConfig(), clock: new ManualClock(), ...(disk === undefined ? {} : { disk }) });
}

describe('writeFileAtomicallyInBackground', () => {
  it('replaces the file and leaves no temp file', async () => {
    const file = path.join(tempDir(), 'checkpoint');
    fs.writeFileSync(file, 'old');
    await expect(writeFileAtomicallyInBackground(file, Buffer.from('new'), () => true)).resolves.toBe('written');
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.existsSync(`${file}.tmp`)).toBe(false);
  });

  it('drops the write when it is no longer wanted once durable, keeping the file as it was', async () => {
    const file = path.join(tempDir(), 'checkpoint');
    fs.writeFileSync(file, 'newer');
    await expect(writeFileAtomicallyInBackground(file, Buffer.from('stale'), () => false)).resolves.toBe('dropped');
    expect(fs.readFileSync(file, 'utf8')).toBe('newer');
    expect(fs.existsSync(`${file}.tmp`)).toBe(false);
  });

  it('rejects with a DiskError when the directory does not exist', async () => {
    const file = path.join(tempDir(), 'missing', 'checkpoint');
    await expect(writeFileAtomicallyInBackground(file, Buffer.from('x'), () => true)).rejects.toMatchObject({ name: 'DiskError', code: 'ENOENT' });
  });
});

describe('LogManager.tickInBackground', () => {
  it('writes the high watermark checkpoint without the caller waiting for the disk', async () => {
    const dir = tempDir();
    const manager = openManager(dir);
    const log = manager.getOrCreateLog('events', 0, testConfig());
    for (let i = 0; i < 5; i++) log.appendAsLeader(makeBatch(2), 0);
    log.updateHighWatermark(log.logEndOffset);
    manager.tickInBackground(0);
    await manager.backgroundWritesIdle();
    expect(fs.readFileSync(path.join(dir, HW_FILE), 'utf8')).toBe('0\n1\nevents 0 10\n');
    expect(fs.existsSync(path.join(dir, `${HW_FILE}.tmp`))).toBe(false);
    manager.shutdown();
  });

  it('lets a synchronous checkpoint written meanwhile win over the background write it overtook', async () => {
    const dir = tempDir();
    const manager = openManager(dir);
    const log = manager.getOrCreateLog('events', 0, testConfig());
    log.appendAsLeader(makeBatch(2), 0);
    log.updateHighWatermark(2);
    manager.tickInBackground(0);
    // Before the background fsync completes: the offsets move on and a synchronous write lands.
    log.appendAsLeader(makeBatch(3), 0);
    log.updateHighWatermark(5);
    manager.checkpointAll();
    await manager.backgroundWritesIdle();
    expect(fs.readFileSync(path.join(dir, HW_FILE), 'utf8')).toBe('0\n1\nevents 0 5\n');
    // The dropped write is not taken for written: an unchanged tick writes nothing new, and the
    // file keeps the newer offsets.
    manager.tickInBackground(0);
    await manager.backgroundWritesIdle();
    expect(fs.readFileSync(path.join(dir, HW_FILE), 'utf8')).toBe('0\n1\nevents 0 5\n');
    manager.shutdown();
  });

  it('writes synchronously through a Disk other than NodeDisk', () => {
    const dir = tempDir();
    const disk = new FaultDisk(1);
    const manager = openManager(dir, disk);
    const log = manager.getOrCreateLog('events', 0, testConfig());
    log.appendAsLeader(makeBatch(4), 0);
    log.updateHighWatermark(4);
    manager.tickInBackground(0);
    expect(readWholeFile(disk, path.join(dir, HW_FILE)).toString('utf8')).toBe('0\n1\nevents 0 4\n');
    manager.shutdown();
  });
});
