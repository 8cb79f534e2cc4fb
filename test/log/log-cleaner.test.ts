import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { SeededRandom } from '../../host/io/random.js';
import { LogCleaner } from '../../host/log/log-cleaner.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { readBatch } from '../../host/record/records.js';
import { expectIndexesMatchRebuild, openLog, readAllBatches, removeTempDirs } from './log-test-helpers.js';

afterEach(removeTempDirs);

interface ModelRecord {
  offset: number;
  key: string;
  value: string | null;
}

function appendRandom(log: UnifiedLog, random: SeededRandom, clock: ManualClock, batches: number, model: ModelRecord[], compression = 0): void {
  for (let i = 0; i < batches; i++) {
    const count = random.int(1, 4);
    const records = Array.from({ length: count }, () => {
      const key = `key-${random.int(0, 24)}`;
      const value = random.chance(0.15) ? null : `value-${random.int(0, 1_000_000)}-${'x'.repeat(random.int(0, 80))}`;
      return { key, value, timestamp: clock.nowMs() };
    });
    const result = log.appendAsLeader(buildRecordBatch({ records, compression }), 0);
    expect(result.errorCode).toBe(0);
    records.forEach((record, j) => model.push({ offset: result.baseOffset + j, key: record.key, value: record.value }));
    clock.advance(1);
  }
  log.updateHighWatermark(log.logEndOffset);
}

function logRecords(log: UnifiedLog): ModelRecord[] {
  const out: ModelRecord[] = [];
  for (const batch of readAllBatches(log)) {
    for (const record of readBatch(batch).records) {
      out.push({ offset: record.offset, key: record.key!.toString(), value: record.value === null ? null : record.value.toString() });
    }
  }
  return out;
}

/** Kafka's compaction outcome for the records below `end` (everything after stays). */
function compactModel(model: ModelRecord[], end: number, dropTombstoneBefore: number): ModelRecord[] {
  const latest = new Map<string, number>();
  for (const record of model) if (record.offset < end) latest.set(record.key, record.offset);
  return model.filter((record) => {
    if (record.offset >= end) return true;
    if (record.offset < latest.get(record.key)!) return false;
    return !(record.value === null && record.offset < dropTombstoneBefore);
  });
}

describe('LogCleaner', () => {
  for (const compression of [0, 1]) {
    it(`keeps the latest record per key with offsets preserved, as a model does (compression ${compression})`, () => {
      const clock = new ManualClock(1_000_000);
      const { log, context } = openLog({ clock, config: { cleanupPolicy: ['compact'], segmentBytes: 2048, deleteRetentionMs: 1000 } });
      const cleaner = new LogCleaner(context);
      const random = new SeededRandom(100 + compression);
      let model: ModelRecord[] = [];
      appendRandom(log, random, clock, 120, model, compression);
      const firstEnd = log.activeSegment.baseOffset;
      const stats = cleaner.clean(log, clock.nowMs());
      expect(stats).not.toBeNull();
      expect(stats!.endOffset).toBe(firstEnd);
      expect(stats!.recordsRemoved).toBeGreaterThan(0);
      model = compactModel(model, firstEnd, 0);
      expect(logRecords(log)).toEqual(model);
      expectIndexesMatchRebuild(log);

      // Tombstones stamped by the first pass go once delete.retention.ms has passed.
      clock.advance(1001);
      appendRandom(log, random, clock, 60, model, compression);
      model.sort((a, b) => a.offset - b.offset);
      const secondEnd = log.activeSegment.baseOffset;
      cleaner.clean(log, clock.nowMs());
      model = compactModel(model, secondEnd, firstEnd);
      expect(logRecords(log)).toEqual(model);
      expectIndexesMatchRebuild(log);

      // The cleaned segments pass recovery's validation unchanged.
      const reopened = openLog({ dir: log.dir, clock, config: log.config }).log;
      expect(logRecords(reopened)).toEqual(model);
      expectIndexesMatchRebuild(reopened);
    });
  }

  it('waits for min.cleanable.dirty.ratio and min.compaction.lag.ms', () => {
    const clock = new ManualClock(1_000_000);
    const { log, context } = openLog({ clock, config: { cleanupPolicy: ['compact'], segmentBytes: 2048, minCompactionLagMs: 10_000, minCleanableDirtyRatio: 0.5 } });
    const cleaner = new LogCleaner(context);
    const model: ModelRecord[] = [];
    appendRandom(log, new SeededRandom(5), clock, 80, model);
    expect(cleaner.maybeClean(log, clock.nowMs())).toBeNull(); // too young
    clock.advance(20_000);
    expect(cleaner.maybeClean(log, clock.nowMs())).not.toBeNull();
    expect(cleaner.maybeClean(log, clock.nowMs())).toBeNull(); // nothing dirty left
    expect(cleaner.firstDirtyOffset(log)).toBe(log.activeSegment.baseOffset);
  });

  it('never compacts above the high watermark or the active segment', () => {
    const clock = new ManualClock(1_000_000);
    const { log, context } = openLog({ clock, config: { cleanupPolicy: ['compact'], segmentBytes: 2048 } });
    const model: ModelRecord[] = [];
    appendRandom(log, new SeededRandom(6), clock, 80, model);
    log.updateHighWatermark(0);
    expect(new LogCleaner(context).clean(log, clock.nowMs())).toBeNull();
    expect(logRecords(log)).toEqual(model);
  });
});
