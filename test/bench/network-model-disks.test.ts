/**
 * The two Disk variants of the network-model prototypes (bench/e2e/network-model/): the storage
 * thread (WorkerDisk, variant B) and the grouped fsync on the loop (GroupCommitDisk, variant G)
 * must keep what the broker promises: bytes land in the file in order, a read never sees a
 * byte that is not written yet, and a produce is acknowledged only after its fsync.
 * The storage worker runs from the build (dist/), as in the benchmark.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommitDisk } from '../../bench/e2e/network-model/group-commit-disk.js';
import { WorkerDisk } from '../../bench/e2e/network-model/worker-disk.js';

const STORAGE_WORKER = new URL('../../dist/bench/e2e/network-model/storage-worker.js', import.meta.url);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function tempFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'network-model-disk-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'segment.log');
}

function chunk(value: number, length: number): Buffer {
  return Buffer.alloc(length, value);
}

describe('WorkerDisk (variant B storage thread)', () => {
  it('has every write in the file, in order, once afterPendingWrites resolves', async () => {
    const disk = new WorkerDisk(STORAGE_WORKER);
    cleanups.push(() => disk.stop());
    const file = tempFile();
    const fd = disk.open(file, 'create');
    const parts = [chunk(1, 1000), chunk(2, 70_000), chunk(3, 5)];
    let position = 0;
    for (const part of parts) {
      disk.write(fd, part, position);
      position += part.length;
    }
    await disk.afterPendingWrites();
    expect(readFileSync(file).equals(Buffer.concat(parts))).toBe(true);
    expect(disk.copiedBytes).toBe(position);
    disk.close(fd);
  });

  it('lets a read see a write that the storage thread has not finished yet', () => {
    const disk = new WorkerDisk(STORAGE_WORKER);
    cleanups.push(() => disk.stop());
    const fd = disk.open(tempFile(), 'create');
    disk.write(fd, chunk(7, 4096), 0);
    const target = Buffer.alloc(4096);
    expect(disk.read(fd, target, 0, 4096, 0)).toBe(4096);
    expect(target.equals(chunk(7, 4096))).toBe(true);
    disk.close(fd);
  });

  it('acknowledges writes followed by an fsync only after that fsync, making no more fsyncs than asked', async () => {
    const disk = new WorkerDisk(STORAGE_WORKER);
    cleanups.push(() => disk.stop());
    const file = tempFile();
    const fd = disk.open(file, 'create');
    for (let i = 0; i < 5; i++) {
      disk.write(fd, chunk(i, 100), i * 100);
      disk.fsync(fd);
    }
    await disk.afterPendingWrites();
    expect(disk.fsyncRequests).toBe(5);
    expect(disk.fsyncsDone).toBeGreaterThanOrEqual(1);
    expect(disk.fsyncsDone).toBeLessThanOrEqual(5);
    expect(readFileSync(file).length).toBe(500);
    disk.close(fd);
  });
});

describe('GroupCommitDisk (variant G)', () => {
  it('makes one fsync per file for all fsyncs asked in one loop turn and releases the barrier after it', async () => {
    const disk = new GroupCommitDisk();
    const fd = disk.open(tempFile(), 'create');
    cleanups.push(() => disk.close(fd));
    for (let i = 0; i < 3; i++) {
      disk.write(fd, chunk(i, 10), i * 10);
      disk.fsync(fd);
    }
    const barrier = disk.afterPendingWrites();
    expect(barrier).not.toBeNull();
    expect(disk.fsyncsDone).toBe(0);
    await barrier;
    expect(disk.fsyncRequests).toBe(3);
    expect(disk.fsyncsDone).toBe(1);
    expect(disk.afterPendingWrites()).toBeNull();
  });
});
