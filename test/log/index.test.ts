import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import { SeededRandom } from '../../host/io/random.js';
import { FileHandleCache } from '../../host/log/file-handle-cache.js';
import { type IndexCore, IndexMemory, type IndexRegion } from '../../host/log/index-memory.js';
import { OffsetIndex } from '../../host/log/offset-index.js';
import { createStorageContext } from '../../host/log/storage-context.js';
import { TimeIndex } from '../../host/log/time-index.js';
import { getCore } from '../../host/wasm/core.js';
import { expectIndexesMatchRebuild, makeBatch, openLog, readAllBatches, removeTempDirs, tempDir } from './log-test-helpers.js';

afterEach(removeTempDirs);

/** The real core, but its arena "fills up" after `allowed` allocations. */
function stingyCore(allowed: number): IndexCore {
  const core = getCore();
  let granted = 0;
  return {
    allocIndex: (bytes: number): IndexRegion | null => (granted++ < allowed ? core.allocIndex(bytes) : null),
    freeIndex: (region) => core.freeIndex(region),
    offsetIndexLookup: (region, count, target) => core.offsetIndexLookup(region, count, target),
    timeIndexLookup: (region, count, target) => core.timeIndexLookup(region, count, target),
  };
}

const STORAGES: [string, () => IndexMemory][] = [
  ['the core arena', () => new IndexMemory(getCore())],
  ['the heap (arena full)', () => new IndexMemory(stingyCore(0))],
  ['no core', () => new IndexMemory(null)],
];

describe('OffsetIndex and TimeIndex', () => {
  for (const [name, memory] of STORAGES) {
    it(`find the largest entry <= target like a brute-force search, in ${name}`, () => {
      const dir = tempDir();
      const files = new FileHandleCache(new NodeDisk());
      const random = new SeededRandom(name.length);
      const offsets = OffsetIndex.create(1000, path.join(dir, 'a.index'), 1 << 20, memory(), files, true);
      const times = TimeIndex.create(1000, path.join(dir, 'a.timeindex'), 1 << 20, memory(), files, true);
      const offsetEntries: [number, number][] = [];
      const timeEntries: [number, number][] = [];
      let offset = 1000;
      let position = 0;
      let timestamp = 50_000;
      for (let i = 0; i < 5000; i++) {
        offset += random.int(1, 20);
        position += random.int(1, 5000);
        timestamp += random.int(-3, 10);
        offsets.append(offset, position);
        offsetEntries.push([offset, position]);
        const last = timeEntries[timeEntries.length - 1];
        times.maybeAppend(timestamp, offset);
        if (last === undefined || timestamp > last[0]) timeEntries.push([timestamp, offset]);
      }
      expect(times.entries).toBe(timeEntries.length);
      for (let probe = 0; probe < 2000; probe++) {
        const target = random.int(900, offset + 50);
        const expected = offsetEntries.filter(([o]) => o <= target).pop();
        expect(offsets.lookup(target)).toEqual(expected === undefined ? { offset: 1000, position: 0 } : { offset: expected[0], position: expected[1] });
        const targetTime = random.int(49_990, timestamp + 20);
        const expectedTime = timeEntries.filter(([t]) => t <= targetTime).pop();
        expect(times.lookup(targetTime)).toEqual(expectedTime === undefined ? { timestamp: -1, offset: 1000 } : { timestamp: expectedTime[0], offset: expectedTime[1] });
      }
      // truncateTo removes entries at or after the offset; flush + reopen gives the same entries.
      const cut = offsetEntries[2500]![0];
      offsets.truncateTo(cut);
      times.truncateTo(cut);
      expect(offsets.entries).toBe(2500);
      expect(offsets.lastOffset).toBe(offsetEntries[2499]![0]);
      offsets.flush();
      times.flush();
      const reopened = OffsetIndex.open(1000, path.join(dir, 'a.index'), 1 << 20, memory(), files, false);
      expect(reopened.entries).toBe(2500);
      expect(reopened.lastOffset).toBe(offsets.lastOffset);
      expect(reopened.entryBytes().equals(offsets.entryBytes())).toBe(true);
      const reopenedTimes = TimeIndex.open(1000, path.join(dir, 'a.timeindex'), 1 << 20, memory(), files, false);
      expect(reopenedTimes.lastEntry).toEqual(times.lastEntry);
      expect(fs.statSync(path.join(dir, 'a.index')).size).toBe(2500 * 8);
    });
  }

  it('refuses offsets that do not increase and reports fullness at segment.index.bytes', () => {
    const dir = tempDir();
    const files = new FileHandleCache(new NodeDisk());
    const index = OffsetIndex.create(0, path.join(dir, 'b.index'), 24, new IndexMemory(getCore()), files, true);
    index.append(5, 100);
    expect(() => index.append(5, 200)).toThrow();
    index.append(6, 200);
    index.append(9, 300);
    expect(index.isFull).toBe(true);
    expect(() => index.append(10, 400)).toThrow();
  });

  it('evicts closed segments\' indexes when the arena is full and reloads them on demand', () => {
    const { log, context } = openLog({ config: { indexIntervalBytes: 0 }, maxEvictableIndexBytes: 1 << 30 });
    // Replace the context's memory with one whose arena is "full" after a few allocations.
    Object.assign(context, { indexMemory: new IndexMemory(stingyCore(6)) });
    for (let i = 0; i < 200; i++) log.appendAsLeader(makeBatch(2, { valueBytes: 50 }), 0);
    expect(readAllBatches(log)).toHaveLength(200);
    expectIndexesMatchRebuild(log);
  });

  it('recovers closed segments after an unclean stop while the arena is full (regression: evicting unpersisted index)', () => {
    // Found by the replication simulator (the index arena filled up across broker lives): a closed
    // segment's index being rebuilt by recovery stayed evictable while it gained unpersisted
    // entries, and the next eviction threw "evicting unpersisted index".
    const { log } = openLog({ config: { indexIntervalBytes: 0, segmentBytes: 1024 } });
    for (let i = 0; i < 60; i++) log.appendAsLeader(makeBatch(2, { valueBytes: 50 }), 0);
    expect(log.numberOfSegments).toBeGreaterThan(4);
    log.flush();
    log.closeWithoutFlush();
    const context = createStorageContext();
    Object.assign(context, { indexMemory: new IndexMemory(stingyCore(3)) });
    const reopened = openLog({ dir: log.dir, context, config: { indexIntervalBytes: 0, segmentBytes: 1024 }, extra: { hadCleanShutdown: false, recoveryPoint: 0 } }).log;
    expect(readAllBatches(reopened)).toHaveLength(60);
    expectIndexesMatchRebuild(reopened);
  });

  it('rebuilds a closed segment\'s damaged index file when it is first loaded', () => {
    const { log } = openLog({ config: { indexIntervalBytes: 0 } });
    for (let i = 0; i < 100; i++) log.appendAsLeader(makeBatch(2, { valueBytes: 50 }), 0);
    expect(log.close()).toBe(true);
    const first = log.logSegments[0]!;
    const bytes = fs.readFileSync(first.offsetIndex.filePath);
    bytes.writeUInt32BE(0xffffff, 8); // a middle entry out of order; the last entry stays sane
    fs.writeFileSync(first.offsetIndex.filePath, bytes);
    const reopened = openLog({ dir: log.dir, config: { indexIntervalBytes: 0 }, extra: { hadCleanShutdown: true, recoveryPoint: log.logEndOffset } }).log;
    expect(readAllBatches(reopened)).toHaveLength(100);
    expectIndexesMatchRebuild(reopened);
  });
});
