import { describe, expect, it } from 'vitest';
import { FaultDisk } from '../../host/io/fault-disk.js';
import { FileHandleCache } from '../../host/log/file-handle-cache.js';

function setup(maxOpenFiles = 16): { disk: FaultDisk; cache: FileHandleCache; closed: number[] } {
  const disk = new FaultDisk(1);
  for (const dir of ['/data/t-1', '/data/t-10', '/data/t-1/sub']) disk.mkdir(dir);
  const closed: number[] = [];
  const close = disk.close.bind(disk);
  disk.close = (fd: number) => {
    closed.push(fd);
    close(fd);
  };
  return { disk, cache: new FileHandleCache(disk, maxOpenFiles), closed };
}

describe('FileHandleCache', () => {
  it('releaseDirectory closes the files directly in that directory only (not a sibling sharing its prefix, not a subdirectory)', () => {
    const { cache, closed } = setup();
    const mine = ['/data/t-1/0.log', '/data/t-1/0.index'].map((p) => cache.fd(p, true));
    const sibling = cache.fd('/data/t-10/0.log', true);
    const nested = cache.fd('/data/t-1/sub/0.log', true);
    cache.releaseDirectory('/data/t-1/');
    expect(closed.sort()).toEqual([...mine].sort());
    expect(cache.openCount).toBe(2);
    // The survivors are still cached (same descriptors), the released ones reopen as new ones.
    expect(cache.fd('/data/t-10/0.log')).toBe(sibling);
    expect(cache.fd('/data/t-1/sub/0.log')).toBe(nested);
    cache.fd('/data/t-1/0.log');
    expect(cache.openCount).toBe(3);
  });

  it('keeps its directory index right through LRU evictions', () => {
    const { cache, closed } = setup(2);
    const first = cache.fd('/data/t-1/0.log', true);
    cache.fd('/data/t-10/0.log', true);
    cache.fd('/data/t-10/1.log', true); // evicts /data/t-1/0.log
    expect(closed).toEqual([first]);
    cache.releaseDirectory('/data/t-1');
    expect(closed).toEqual([first]);
    cache.releaseDirectory('/data/t-10');
    expect(closed).toHaveLength(3);
    expect(cache.openCount).toBe(0);
  });
});
