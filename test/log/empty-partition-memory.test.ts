/**
 * Issue 15's RSS bound: what an empty partition holds of index memory. Its active segment's
 * offset and time indexes take no memory (no index-arena region, no heap buffer) until their first
 * entry, so a broker with tens of thousands of idle partitions does not pin two 8 KiB regions per
 * partition, nor spill them onto the heap once the arena is full. Counted with a core that records
 * every allocation: deterministic, no timing or RSS.
 */
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type IndexCore, IndexMemory, type IndexRegion } from '../../host/log/index-memory.js';
import { createStorageContext, type StorageContext } from '../../host/log/storage-context.js';
import { ManualClock } from '../../host/io/clock.js';
import { UnifiedLog } from '../../host/log/unified-log.js';
import { getCore } from '../../host/wasm/core.js';
import { makeBatch, removeTempDirs, tempDir, testConfig } from './log-test-helpers.js';

afterEach(removeTempDirs);

/** The real core, counting the index-arena bytes held (allocated and not freed). */
function countingCore(): IndexCore & { heldBytes: number; allocations: number } {
  const core = getCore();
  const counting = {
    heldBytes: 0,
    allocations: 0,
    allocIndex: (bytes: number): IndexRegion | null => {
      const region = core.allocIndex(bytes);
      if (region !== null) {
        counting.heldBytes += region.capacityBytes;
        counting.allocations++;
      }
      return region;
    },
    freeIndex: (region: IndexRegion): void => {
      counting.heldBytes -= region.capacityBytes;
      core.freeIndex(region);
    },
    offsetIndexLookup: (region: IndexRegion, count: number, target: number) => core.offsetIndexLookup(region, count, target),
    timeIndexLookup: (region: IndexRegion, count: number, target: number) => core.timeIndexLookup(region, count, target),
  };
  return counting;
}

function context(core: IndexCore): StorageContext {
  return { ...createStorageContext({ clock: new ManualClock() }), indexMemory: new IndexMemory(core) };
}

function openPartition(dir: string, partition: number, storage: StorageContext): UnifiedLog {
  return UnifiedLog.open({
    dir: path.join(dir, `topic-${partition}`), topic: 'topic', partition,
    config: testConfig({ segmentBytes: 1 << 20, indexIntervalBytes: 4096 }), context: storage,
  });
}

describe('index memory of empty partitions', () => {
  it('is zero for new and reopened empty partitions, and is taken at the first index entry', () => {
    const core = countingCore();
    const storage = context(core);
    const dir = tempDir();
    const logs = Array.from({ length: 200 }, (_, partition) => openPartition(dir, partition, storage));
    expect(core.allocations).toBe(0);
    expect(core.heldBytes).toBe(0);

    // Reads and offset lookups of an empty log need no index memory either.
    for (const log of logs.slice(0, 20)) {
      expect(log.logEndOffset).toBe(0);
      expect(log.fetchOffsetByTimestamp(0)).toBeNull();
    }
    expect(core.allocations).toBe(0);

    // One small batch is below index.interval.bytes: still no index entry, no memory.
    logs[0]!.appendAsLeader(makeBatch(2, { valueBytes: 50 }), 0);
    expect(core.heldBytes).toBe(0);

    // Past index.interval.bytes the first entries are written: memory for that partition only.
    for (let i = 0; i < 100; i++) logs[1]!.appendAsLeader(makeBatch(2, { valueBytes: 100 }), 0);
    expect(core.heldBytes).toBeGreaterThan(0);
    const oneActive = core.heldBytes;
    expect(oneActive).toBeLessThanOrEqual(2 * 8 * 1024);

    for (const log of logs) log.close();
    expect(core.heldBytes).toBe(0);

    // Reopened (clean shutdown or not), the empty ones still take nothing.
    const reopened = Array.from({ length: 200 }, (_, partition) => openPartition(dir, partition, storage));
    expect(core.heldBytes).toBeLessThanOrEqual(oneActive);
    for (const log of reopened) log.close();
    expect(core.heldBytes).toBe(0);
  });
});
