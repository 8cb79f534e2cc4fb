import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SeededRandom } from '../../host/io/random.js';
import { loadSegments } from '../../host/log/log-loader.js';
import { offsetFileName } from '../../host/log/log-segment.js';
import { createStorageContext } from '../../host/log/storage-context.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { readBatch } from '../../host/record/records.js';
import { expectIndexesMatchRebuild, makeBatch, openLog, readAllBatches, removeTempDirs, stamped, testConfig } from './log-test-helpers.js';

afterEach(removeTempDirs);

/** Appends `count` batches and returns their stamped bytes, in offset order. */
function fill(log: UnifiedLog, count: number, seed: number): Buffer[] {
  const random = new SeededRandom(seed);
  const bytes: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const batch = makeBatch(random.int(1, 4), { valueBytes: random.int(10, 200), seed: i });
    const result = log.appendAsLeader(batch, 1);
    expect(result.errorCode).toBe(0);
    bytes.push(stamped(batch, result.baseOffset, 1));
  }
  return bytes;
}

function hex(batches: Buffer[]): string[] {
  return batches.map((b) => b.toString('hex'));
}

function activeLogFile(log: UnifiedLog): string {
  return log.activeSegment.logPath;
}

describe('log recovery', () => {
  it('truncates a torn tail at the last whole batch and keeps appending after it', () => {
    for (const cut of [1, 11, 30, 61]) {
      const { log } = openLog();
      const written = fill(log, 40, cut);
      const file = activeLogFile(log);
      log.closeWithoutFlush();
      fs.truncateSync(file, fs.statSync(file).size - cut);
      const recovered = openLog({ dir: log.dir }).log;
      expect(hex(readAllBatches(recovered))).toEqual(hex(written.slice(0, -1)));
      expect(recovered.logEndOffset).toBe(readBatch(written[written.length - 2]!).header.lastOffset + 1);
      expectIndexesMatchRebuild(recovered);
      expect(recovered.appendAsLeader(makeBatch(2), 1).baseOffset).toBe(recovered.logEndOffset - 2);
    }
  });

  it('truncates at a batch whose CRC does not match and drops every later segment', () => {
    const { log } = openLog();
    const written = fill(log, 80, 3);
    expect(log.numberOfSegments).toBeGreaterThan(3);
    const victim = log.logSegments[1]!;
    const victimBase = victim.baseOffset;
    log.closeWithoutFlush();
    const data = fs.readFileSync(victim.logPath);
    // Flip one byte inside the records of the segment's third batch.
    let position = 0;
    for (let i = 0; i < 2; i++) position += 12 + data.readInt32BE(position + 8);
    data[position + 70] ^= 0x5a;
    fs.writeFileSync(victim.logPath, data);
    const recovered = openLog({ dir: log.dir }).log;
    expect(recovered.numberOfSegments).toBe(2);
    const survivors = readAllBatches(recovered);
    const expectedCount = written.findIndex((b) => readBatch(b, { verifyCrc: false }).header.baseOffset >= victimBase) + 2;
    expect(hex(survivors)).toEqual(hex(written.slice(0, expectedCount)));
    expect(fs.existsSync(path.join(log.dir, offsetFileName(log.logSegments[2]!.baseOffset) + '.log'))).toBe(false);
    expectIndexesMatchRebuild(recovered);
  });

  it('truncates zero-filled and garbage tails', () => {
    for (const tail of [Buffer.alloc(5000), Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) & 0xff))]) {
      const { log } = openLog();
      const written = fill(log, 10, 5);
      log.closeWithoutFlush();
      fs.appendFileSync(activeLogFile(log), tail);
      const recovered = openLog({ dir: log.dir }).log;
      expect(hex(readAllBatches(recovered))).toEqual(hex(written));
      expect(recovered.size).toBe(written.reduce((sum, batch) => sum + batch.length, 0));
      expectIndexesMatchRebuild(recovered);
    }
  });

  it('rebuilds missing and damaged index files even after a clean shutdown', () => {
    const { log } = openLog();
    const written = fill(log, 60, 8);
    expect(log.close()).toBe(true);
    const [first, second] = log.logSegments;
    fs.rmSync(first!.offsetIndex.filePath);
    fs.appendFileSync(second!.timeIndex.filePath, Buffer.from([1, 2, 3]));
    const recovered = openLog({ dir: log.dir, extra: { hadCleanShutdown: true, recoveryPoint: log.logEndOffset } }).log;
    expect(hex(readAllBatches(recovered))).toEqual(hex(written));
    expectIndexesMatchRebuild(recovered);
  });

  it('skips re-reading segments below the recovery point and everything after a clean shutdown', () => {
    const { log, context } = openLog();
    fill(log, 60, 9);
    expect(log.close()).toBe(true);
    const load = (hadCleanShutdown: boolean, recoveryPoint: number) => loadSegments({
      dir: log.dir, context: createStorageContext({ clock: context.clock }), config: testConfig(), recoveryPoint,
      logStartOffset: 0, hadCleanShutdown, nowMs: 0,
    });
    expect(load(true, 0).recoveredSegments).toBe(0);
    expect(load(false, log.activeSegment.baseOffset).recoveredSegments).toBe(1);
    expect(load(false, 0).recoveredSegments).toBe(log.numberOfSegments);
  });

  it('finishes a committed cleaner swap and discards an uncommitted one', () => {
    const { log } = openLog();
    const written = fill(log, 30, 10);
    expect(log.close()).toBe(true);
    const first = log.logSegments[0]!;
    // Committed: a .log.swap (with its index swaps) replaces the segment on load.
    fs.copyFileSync(first.logPath, first.logPath + '.swap');
    fs.copyFileSync(first.offsetIndex.filePath, first.offsetIndex.filePath + '.swap');
    fs.writeFileSync(first.logPath, Buffer.alloc(10));
    // Uncommitted: .cleaned files and an index swap without a log swap are deleted.
    const second = log.logSegments[1]!;
    fs.writeFileSync(second.logPath + '.cleaned', Buffer.alloc(10));
    fs.writeFileSync(second.timeIndex.filePath + '.swap', Buffer.alloc(12));
    const recovered = openLog({ dir: log.dir }).log;
    expect(hex(readAllBatches(recovered))).toEqual(hex(written));
    expect(fs.readdirSync(log.dir).filter((name) => name.endsWith('.swap') || name.endsWith('.cleaned'))).toEqual([]);
  });

  it('starts an empty log at the checkpointed log start offset', () => {
    const { log } = openLog({ extra: { logStartOffset: 500 } });
    expect(log.logStartOffset).toBe(500);
    expect(log.logEndOffset).toBe(500);
    expect(log.appendAsLeader(makeBatch(2), 0).baseOffset).toBe(500);
  });
});
