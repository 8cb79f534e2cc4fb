import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { LogManager } from '../../host/log/log-manager.js';
import { offsetFileName } from '../../host/log/log-segment.js';
import { expectIndexesMatchRebuild, makeBatch, readAllBatches, removeTempDirs, tempDir, testConfig } from './log-test-helpers.js';

afterEach(removeTempDirs);

const open = (dir: string): LogManager => LogManager.open({ logDirs: [dir], defaults: testConfig(), clock: new ManualClock() });
const names = (dir: string): string[] => fs.readdirSync(dir).sort();

describe('segment files made lazily (Kafka LazyIndex)', () => {
  it('a new log makes no file; its first append makes the .log only; a clean close makes the indexes; it reloads whole', () => {
    const root = tempDir();
    const manager = open(root);
    const log = manager.getOrCreateLog('lazy', 0, testConfig());
    expect(names(log.dir)).toEqual([]);
    // Reads of an empty log touch no file either.
    expect(log.read(0, 1 << 20, log.logEndOffset, true).records.length).toBe(0);
    expect(names(log.dir)).toEqual([]);
    log.appendAsLeader(makeBatch(3), 0);
    expect(names(log.dir)).toEqual([`${offsetFileName(0)}.log`]);
    log.updateHighWatermark(log.logEndOffset);
    manager.shutdown();
    expect(names(log.dir)).toEqual(expect.arrayContaining([`${offsetFileName(0)}.log`, `${offsetFileName(0)}.index`, `${offsetFileName(0)}.timeindex`]));
    const reopened = open(root);
    const again = reopened.getLog('lazy', 0)!;
    expect(again.logEndOffset).toBe(3);
    expect(readAllBatches(again).length).toBe(1);
    reopened.shutdown();
  });

  it('an idle new log reloads empty after a clean close', () => {
    const root = tempDir();
    const manager = open(root);
    const log = manager.getOrCreateLog('idle', 0, testConfig());
    manager.shutdown();
    const reopened = open(root);
    const again = reopened.getLog('idle', 0)!;
    expect(again.logEndOffset).toBe(0);
    again.appendAsLeader(makeBatch(2), 0);
    expect(again.logEndOffset).toBe(2);
    reopened.shutdown();
    expect(names(log.dir)).toContain(`${offsetFileName(0)}.log`);
  });

  it('a stale index file at a rolled-to base offset is emptied by the first flush, and the indexes match a rebuild', () => {
    const root = tempDir();
    const manager = open(root);
    const log = manager.getOrCreateLog('stale', 0, testConfig());
    // Batches of ~1 KiB: segment.bytes 4096 rolls every few appends.
    let next = 0;
    while (log.logSegments.length < 2) {
      log.appendAsLeader(makeBatch(4, { valueBytes: 200, seed: next }), 0);
      next++;
    }
    const activeBase = log.activeSegment.baseOffset;
    const stalePath = path.join(log.dir, `${offsetFileName(activeBase)}.index`);
    // An old segment's index left at that path (a crash between a file's creation and a delete):
    // 64 entries of garbage that would misplace lookups if read.
    fs.writeFileSync(stalePath, Buffer.alloc(64 * 8, 0x7f));
    while (log.logSegments.length < 3) log.appendAsLeader(makeBatch(4, { valueBytes: 200, seed: next++ }), 0);
    // The roll flushed the old active segment: its index file now holds its own entries only.
    const entries = fs.statSync(stalePath).size / 8;
    expect(entries).toBeLessThan(64);
    log.updateHighWatermark(log.logEndOffset);
    expectIndexesMatchRebuild(log);
    manager.shutdown();
    const reopened = open(root);
    const again = reopened.getLog('stale', 0)!;
    expect(again.logEndOffset).toBe(log.logEndOffset);
    expectIndexesMatchRebuild(again);
    reopened.shutdown();
  });
});
