import { describe, expect, it } from 'vitest';
import { DiskError, readWholeFile, writeFileAtomically } from '../../host/io/disk.js';
import { FaultDisk, SimulatedCrash } from '../../host/io/fault-disk.js';
import {
  LEADER_EPOCH_CHECKPOINT_FILE,
  LeaderEpochFileCache,
  leaderEpochCheckpointBytes,
  parseLeaderEpochCheckpoint,
} from '../../host/log/leader-epoch-file-cache.js';

const DIR = '/data/topic-0';
const FILE = `${DIR}/${LEADER_EPOCH_CHECKPOINT_FILE}`;

function freshDisk(seed = 1): FaultDisk {
  const disk = new FaultDisk(seed);
  disk.mkdir(DIR);
  disk.syncAll();
  return disk;
}

function cacheWith(disk: FaultDisk, entries: [number, number][]): LeaderEpochFileCache {
  const cache = LeaderEpochFileCache.open(disk, DIR);
  for (const [epoch, startOffset] of entries) cache.assign(epoch, startOffset);
  return cache;
}

describe('LeaderEpochFileCache', () => {
  it('starts empty without a file and writes Kafka\'s checkpoint text on the first assign', () => {
    const disk = freshDisk();
    const cache = LeaderEpochFileCache.open(disk, DIR);
    expect(cache.isEmpty()).toBe(true);
    expect(cache.latestEpoch()).toBeUndefined();
    expect(disk.exists(FILE)).toBe(false);
    cache.assign(1, 0);
    cache.assign(3, 120);
    expect(readWholeFile(disk, FILE).toString('utf8')).toBe('0\n2\n1 0\n3 120\n');
    expect(LeaderEpochFileCache.open(disk, DIR).entries()).toEqual([{ epoch: 1, startOffset: 0 }, { epoch: 3, startOffset: 120 }]);
  });

  it('ignores the latest epoch again at a later offset, and a lower start of it replaces the entry', () => {
    const disk = freshDisk();
    const cache = cacheWith(disk, [[1, 0], [2, 10]]);
    expect(cache.assign(2, 15)).toBe(false);
    expect(cache.entries()).toEqual([{ epoch: 1, startOffset: 0 }, { epoch: 2, startOffset: 10 }]);
    expect(cache.assign(2, 8)).toBe(true);
    expect(cache.entries()).toEqual([{ epoch: 1, startOffset: 0 }, { epoch: 2, startOffset: 8 }]);
  });

  it('drops the entries a stale epoch contradicts, so epochs stay increasing', () => {
    const disk = freshDisk();
    const cache = cacheWith(disk, [[1, 0], [3, 10], [5, 20]]);
    expect(cache.assign(4, 15)).toBe(true);
    expect(cache.entries()).toEqual([{ epoch: 1, startOffset: 0 }, { epoch: 3, startOffset: 10 }, { epoch: 4, startOffset: 15 }]);
    cache.assign(6, 15);
    expect(cache.entries()).toEqual([{ epoch: 1, startOffset: 0 }, { epoch: 3, startOffset: 10 }, { epoch: 6, startOffset: 15 }]);
  });

  it('answers endOffsetFor with Kafka\'s rules', () => {
    const cache = cacheWith(freshDisk(), [[2, 5], [4, 10], [6, 30]]);
    expect(cache.endOffsetFor(2, 40)).toEqual({ epoch: 2, endOffset: 10 });
    expect(cache.endOffsetFor(3, 40)).toEqual({ epoch: 2, endOffset: 10 });
    expect(cache.endOffsetFor(4, 40)).toEqual({ epoch: 4, endOffset: 30 });
    expect(cache.endOffsetFor(6, 40)).toEqual({ epoch: 6, endOffset: 40 });
    // Below every known epoch: the requested epoch, ending where the earliest known one starts.
    expect(cache.endOffsetFor(1, 40)).toEqual({ epoch: 1, endOffset: 5 });
    // Above every known epoch, or undefined: nothing is known.
    expect(cache.endOffsetFor(7, 40)).toEqual({ epoch: -1, endOffset: -1 });
    expect(cache.endOffsetFor(-1, 40)).toEqual({ epoch: -1, endOffset: -1 });
    expect(cacheWith(freshDisk(), []).endOffsetFor(1, 0)).toEqual({ epoch: -1, endOffset: -1 });
  });

  it('finds the epoch of an offset', () => {
    const cache = cacheWith(freshDisk(), [[2, 5], [4, 10]]);
    expect(cache.epochForOffset(4)).toBeUndefined();
    expect(cache.epochForOffset(5)).toBe(2);
    expect(cache.epochForOffset(9)).toBe(2);
    expect(cache.epochForOffset(10)).toBe(4);
    expect(cache.epochForOffset(1000)).toBe(4);
  });

  it('truncates from the end: entries starting at or after the new log end go', () => {
    const disk = freshDisk();
    const cache = cacheWith(disk, [[1, 0], [2, 10], [3, 20]]);
    cache.truncateFromEnd(20);
    expect(cache.entries()).toEqual([{ epoch: 1, startOffset: 0 }, { epoch: 2, startOffset: 10 }]);
    cache.truncateFromEnd(11);
    expect(cache.latestEpoch()).toBe(2);
    cache.truncateFromEnd(0);
    expect(cache.isEmpty()).toBe(true);
    expect(LeaderEpochFileCache.open(disk, DIR).isEmpty()).toBe(true);
  });

  it('truncates from the start: the epoch covering the new start moves up to it', () => {
    const disk = freshDisk();
    const cache = cacheWith(disk, [[1, 0], [2, 10], [3, 20]]);
    cache.truncateFromStart(15);
    expect(cache.entries()).toEqual([{ epoch: 2, startOffset: 15 }, { epoch: 3, startOffset: 20 }]);
    cache.truncateFromStart(20);
    expect(cache.entries()).toEqual([{ epoch: 3, startOffset: 20 }]);
    cache.truncateFromStart(5);
    expect(cache.entries()).toEqual([{ epoch: 3, startOffset: 20 }]);
    expect(LeaderEpochFileCache.open(disk, DIR).entries()).toEqual([{ epoch: 3, startOffset: 20 }]);
    cache.clear();
    expect(LeaderEpochFileCache.open(disk, DIR).isEmpty()).toBe(true);
  });

  it('is durable when assign returns: a power loss right after keeps the entry', () => {
    const disk = freshDisk();
    cacheWith(disk, [[1, 0], [2, 7]]);
    disk.powerLoss('strict');
    expect(LeaderEpochFileCache.open(disk, DIR).entries()).toEqual([{ epoch: 1, startOffset: 0 }, { epoch: 2, startOffset: 7 }]);
  });

  it('keeps the old or the new entries when power fails during a rewrite, never a mix', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const disk = freshDisk(seed);
      const cache = cacheWith(disk, [[1, 0], [2, 7]]);
      disk.crashAfter(1 + (seed % 8));
      try {
        cache.assign(3, 12);
      } catch (error) {
        if (!(error instanceof SimulatedCrash)) throw error;
      }
      disk.powerLoss(seed % 2 === 0 ? 'torn' : 'strict');
      const entries = LeaderEpochFileCache.open(disk, DIR).entries();
      expect([2, 3], `SEED=${seed}`).toContain(entries.length);
      expect(entries.slice(0, 2)).toEqual([{ epoch: 1, startOffset: 0 }, { epoch: 2, startOffset: 7 }]);
    }
  });

  it('keeps a deferred assign in memory until flush, which writes it once; a truncation writes it too', () => {
    const disk = freshDisk();
    const calls: string[] = [];
    disk.faultRule = (op) => {
      if (op.kind === 'fsync' || op.kind === 'fsyncDir' || op.kind === 'rename') calls.push(op.kind);
      return undefined;
    };
    const cache = LeaderEpochFileCache.open(disk, DIR);
    expect(cache.assign(1, 0, 'deferred')).toBe(true);
    expect(cache.assign(3, 120, 'deferred')).toBe(true);
    expect(cache.latestEpoch()).toBe(3);
    expect(cache.hasPendingWrite).toBe(true);
    expect(calls).toEqual([]);
    expect(disk.exists(FILE)).toBe(false);

    // The log's flush: file fsynced and renamed, the directory fsync left to the log.
    expect(cache.flush(false)).toBe(true);
    expect(calls).toEqual(['fsync', 'rename']);
    expect(cache.hasPendingWrite).toBe(false);
    expect(cache.flush()).toBe(false);
    expect(readWholeFile(disk, FILE).toString('utf8')).toBe('0\n2\n1 0\n3 120\n');

    cache.assign(4, 200, 'deferred');
    cache.assign(5, 300, 'deferred');
    calls.length = 0;
    cache.truncateFromEnd(250);
    expect(calls).toEqual(['fsync', 'rename', 'fsyncDir']);
    expect(cache.hasPendingWrite).toBe(false);
    disk.powerLoss('strict');
    expect(LeaderEpochFileCache.open(disk, DIR).entries().map((entry) => entry.epoch)).toEqual([1, 3, 4]);
  });

  it('loses a deferred assign not flushed before a power loss (the partition reads it back from the batches)', () => {
    const disk = freshDisk();
    const cache = cacheWith(disk, [[1, 0]]);
    cache.assign(2, 7, 'deferred');
    disk.powerLoss('strict');
    expect(LeaderEpochFileCache.open(disk, DIR).entries()).toEqual([{ epoch: 1, startOffset: 0 }]);
  });

  it('a cache in memory has nothing to flush', () => {
    const cache = LeaderEpochFileCache.inMemory();
    cache.assign(1, 0, 'deferred');
    expect(cache.hasPendingWrite).toBe(false);
    expect(cache.flush()).toBe(false);
  });

  it('refuses a malformed file with an error naming it', () => {
    const disk = freshDisk();
    for (const text of ['', '1\n0\n', '0\n2\n1 0\n', '0\n1\n1 x\n', '0\n2\n3 0\n2 5\n', '0\n2\n1 9\n2 5\n']) {
      writeFileAtomically(disk, FILE, Buffer.from(text));
      let thrown: unknown;
      try {
        LeaderEpochFileCache.open(disk, DIR);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(text)).toBeInstanceOf(DiskError);
      expect((thrown as DiskError).code).toBe('EBADMSG');
      expect((thrown as DiskError).message).toContain(FILE);
    }
  });

  it('parses what it writes', () => {
    const entries = [{ epoch: 0, startOffset: 0 }, { epoch: 7, startOffset: 2 ** 40 }];
    expect(parseLeaderEpochCheckpoint(leaderEpochCheckpointBytes(entries).toString('utf8'), FILE)).toEqual(entries);
    expect(parseLeaderEpochCheckpoint('0\n0\n', FILE)).toEqual([]);
  });
});
