import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, SystemClock } from '../../host/io/clock.js';
import { DiskError, NodeDisk, readWholeFile, writeFileAtomically } from '../../host/io/disk.js';
import { SeededRandom } from '../../host/io/random.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-disk-'));
  dirs.push(dir);
  return dir;
}

describe('NodeDisk', () => {
  it('writes, reads, truncates, renames, lists and deletes real files', () => {
    const disk = new NodeDisk();
    const dir = tempDir();
    disk.mkdir(path.join(dir, 'a', 'b'));
    const file = path.join(dir, 'a', 'f');
    const fd = disk.open(file, 'create');
    disk.write(fd, Buffer.from('hello world'), 0);
    disk.fsync(fd);
    expect(disk.fileSize(fd)).toBe(11);
    const out = Buffer.alloc(5);
    expect(disk.read(fd, out, 0, 5, 6)).toBe(5);
    expect(out.toString()).toBe('world');
    disk.truncate(fd, 5);
    disk.close(fd);
    expect(disk.size(file)).toBe(5);
    disk.rename(file, path.join(dir, 'a', 'g'));
    disk.fsyncDir(path.join(dir, 'a'));
    expect(disk.list(path.join(dir, 'a'))).toEqual(['b', 'g']);
    expect(disk.isDirectory(path.join(dir, 'a', 'b'))).toBe(true);
    disk.delete(path.join(dir, 'a', 'g'));
    disk.delete(path.join(dir, 'a', 'g'));
    expect(disk.exists(path.join(dir, 'a', 'g'))).toBe(false);
  });

  it('reports failures as DiskError with the errno code', () => {
    const disk = new NodeDisk();
    const dir = tempDir();
    expect(() => disk.open(path.join(dir, 'missing'), 'read')).toThrowError(DiskError);
    try {
      disk.size(path.join(dir, 'missing'));
    } catch (error) {
      expect((error as DiskError).code).toBe('ENOENT');
    }
  });

  it('replaces files atomically', () => {
    const disk = new NodeDisk();
    const file = path.join(tempDir(), 'cp');
    writeFileAtomically(disk, file, Buffer.from('one'));
    writeFileAtomically(disk, file, Buffer.from('two'));
    expect(readWholeFile(disk, file).toString()).toBe('two');
  });
});

describe('clocks and random', () => {
  it('ManualClock moves only forward and only when told', () => {
    const clock = new ManualClock(1000);
    clock.advance(5);
    expect(clock.nowMs()).toBe(1005);
    expect(() => clock.set(1000)).toThrow();
    expect(() => clock.advance(-1)).toThrow();
    expect(Math.abs(new SystemClock().nowMs() - Date.now())).toBeLessThan(1000);
  });

  it('SeededRandom repeats its sequence for a seed and stays in range', () => {
    const a = new SeededRandom(42);
    const b = new SeededRandom(42);
    for (let i = 0; i < 100; i++) {
      const value = a.int(3, 9);
      expect(value).toBe(b.int(3, 9));
      expect(value).toBeGreaterThanOrEqual(3);
      expect(value).toBeLessThanOrEqual(9);
    }
  });
});
