import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { SeededRandom } from '../../host/io/random.js';
import { defaultGroupFlusher } from '../../host/log/group-flush.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP, type UnifiedLog } from '../../host/log/unified-log.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { readBatch } from '../../host/record/records.js';
import {
  expectIndexesMatchRebuild, makeBatch, openLog, readAllBatches, removeTempDirs, splitBatches, stamped,
} from './log-test-helpers.js';

afterEach(removeTempDirs);

interface Appended {
  baseOffset: number;
  lastOffset: number;
  bytes: Buffer;
}

/** Appends `count` random batches; returns what a reader must get back. */
function appendRandom(log: UnifiedLog, random: SeededRandom, count: number, epoch = 5): Appended[] {
  const appended: Appended[] = [];
  for (let i = 0; i < count; i++) {
    const batch = makeBatch(random.int(1, 5), { valueBytes: random.int(1, 300), seed: i, timestamp: 1_700_000_000_000 + i * 10 });
    const result = log.appendAsLeader(batch, epoch);
    expect(result.errorCode).toBe(0);
    appended.push({ baseOffset: result.baseOffset, lastOffset: result.lastOffset, bytes: stamped(batch, result.baseOffset, epoch) });
  }
  return appended;
}

describe('UnifiedLog append and read', () => {
  it('reads back every offset byte for byte across segment rolls', () => {
    const { log } = openLog();
    const random = new SeededRandom(7);
    const appended = appendRandom(log, random, 150);
    expect(log.numberOfSegments).toBeGreaterThan(5);
    expect(log.logEndOffset).toBe(appended[appended.length - 1]!.lastOffset + 1);
    for (let offset = 0; offset < log.logEndOffset; offset++) {
      const maxBytes = random.int(1, 3000);
      const read = log.read(offset, maxBytes, log.logEndOffset, true);
      expect(read.errorCode).toBe(0);
      const batches = splitBatches(read.records);
      expect(batches.length).toBeGreaterThan(0);
      const firstIndex = appended.findIndex((a) => a.lastOffset >= offset);
      batches.forEach((batch, i) => expect(batch.equals(appended[firstIndex + i]!.bytes)).toBe(true));
      if (batches.length > 1) expect(read.records.length).toBeLessThanOrEqual(maxBytes);
    }
    expectIndexesMatchRebuild(log);
  });

  it('returns the first batch alone when it exceeds maxBytes only with minOneMessage', () => {
    const { log } = openLog();
    const batch = makeBatch(3, { valueBytes: 200 });
    log.appendAsLeader(batch, 0);
    log.appendAsLeader(makeBatch(1), 0);
    expect(log.read(0, 100, 100, false)).toEqual({ errorCode: 0, records: Buffer.alloc(0) });
    const one = log.read(1, 100, 100, true);
    expect(splitBatches(one.records)).toHaveLength(1);
    expect(one.records.equals(stamped(batch, 0, 0))).toBe(true);
  });

  it('never returns batches at or beyond the upper bound', () => {
    const { log } = openLog();
    for (let i = 0; i < 10; i++) log.appendAsLeader(makeBatch(2), 0);
    const read = log.read(0, 1 << 20, 7, true);
    const lastOffsets = splitBatches(read.records).map((batch) => readBatch(batch).header.lastOffset);
    expect(lastOffsets).toEqual([1, 3, 5]);
    expect(log.read(6, 1 << 20, 7, true).records.length).toBe(0);
    expect(log.read(20, 1 << 20, 20, true)).toEqual({ errorCode: 0, records: Buffer.alloc(0) });
  });

  it('answers OFFSET_OUT_OF_RANGE outside [logStartOffset, logEndOffset]', () => {
    const { log } = openLog();
    log.appendAsLeader(makeBatch(4), 0);
    expect(log.read(5, 100, 4, true).errorCode).toBe(1);
    log.updateHighWatermark(4);
    expect(log.deleteRecordsBefore(2)).toBe(0);
    expect(log.read(1, 100, 4, true).errorCode).toBe(1);
    const fromStart = log.read(2, 1000, 4, true);
    expect(fromStart.errorCode).toBe(0);
    expect(readBatch(fromStart.records).header.baseOffset).toBe(0); // the batch holding offset 2
  });

  it('rejects bad client bytes with Kafka error codes and leaves the log unchanged', () => {
    const { log } = openLog({ config: { maxMessageBytes: 500 } });
    log.appendAsLeader(makeBatch(1), 0);
    const corrupt = makeBatch(2);
    corrupt[corrupt.length - 1] ^= 0xff;
    expect(log.appendAsLeader(corrupt, 0).errorCode).toBe(2);
    expect(log.appendAsLeader(Buffer.alloc(0), 0).errorCode).toBe(87);
    expect(log.appendAsLeader(makeBatch(10, { valueBytes: 100 }), 0).errorCode).toBe(10);
    expect(log.appendAsLeader(Buffer.alloc(5000), 0).errorCode).toBe(18);
    expect(log.appendAsLeader(Buffer.concat([makeBatch(1), Buffer.alloc(7)]), 0).errorCode).not.toBe(0);
    expect(log.logEndOffset).toBe(1);
    expect(log.size).toBe(makeBatch(1).length);
  });

  it('stamps the broker time into LogAppendTime batches', () => {
    const { log, clock } = openLog({ config: { messageTimestampType: 'LogAppendTime' } });
    clock.set(1_800_000_000_000);
    const result = log.appendAsLeader(makeBatch(3, { timestamp: 5 }), 2);
    expect(result.logAppendTimeMs).toBe(1_800_000_000_000);
    const { header, records } = readBatch(log.read(0, 1000, 3, true).records);
    expect(header.timestampType).toBe(1);
    expect(records.map((r) => r.timestamp)).toEqual([1_800_000_000_000, 1_800_000_000_000, 1_800_000_000_000]);
  });

  it('appends several batches in one blob with consecutive offsets', () => {
    const { log } = openLog();
    const blob = Buffer.concat([makeBatch(2), makeBatch(3), makeBatch(1)]);
    const result = log.appendAsLeader(blob, 1);
    expect(result).toMatchObject({ errorCode: 0, baseOffset: 0, lastOffset: 5 });
    expect(result.batches.map((b) => b.baseOffset)).toEqual([0, 2, 5]);
    expect(readAllBatches(log).map((b) => readBatch(b).header.baseOffset)).toEqual([0, 2, 5]);
  });

  it('accepts follower batches with their own offsets and refuses offsets going backwards', () => {
    const { log } = openLog();
    const batch = buildRecordBatch({ records: [{ key: 'a', value: 'b', timestamp: 1 }, { key: 'c', value: 'd', timestamp: 2 }], baseOffset: 10, partitionLeaderEpoch: 4 });
    log.truncateFullyAndStartAt(10);
    expect(log.appendAsFollower(batch)).toMatchObject({ errorCode: 0, baseOffset: 10, lastOffset: 11 });
    expect(log.appendAsFollower(batch).errorCode).toBe(1);
    expect(log.read(10, 1000, 12, true).records.equals(batch)).toBe(true);
  });
});

describe('UnifiedLog segment rolling', () => {
  it('rolls at segment.ms measured by batch timestamps', () => {
    const { log } = openLog({ config: { segmentBytes: 1 << 20, segmentMs: 1000 } });
    log.appendAsLeader(makeBatch(1, { timestamp: 10_000 }), 0);
    log.appendAsLeader(makeBatch(1, { timestamp: 10_500 }), 0);
    expect(log.numberOfSegments).toBe(1);
    log.appendAsLeader(makeBatch(1, { timestamp: 11_001 }), 0);
    expect(log.numberOfSegments).toBe(2);
    expect(log.activeSegment.baseOffset).toBe(2);
  });

  it('rolls when the index is full', () => {
    const { log } = openLog({ config: { segmentBytes: 1 << 20, indexIntervalBytes: 0, segmentIndexBytes: 24 } });
    for (let i = 0; i < 10; i++) log.appendAsLeader(makeBatch(1), 0);
    expect(log.numberOfSegments).toBeGreaterThan(2);
    for (const segment of log.logSegments.slice(0, -1)) expect(segment.timeIndex.isFull || segment.offsetIndex.isFull).toBe(true);
    expect(readAllBatches(log)).toHaveLength(10);
    expectIndexesMatchRebuild(log);
  });

  it('keeps index memory within its budget by evicting closed segments and reloading them', () => {
    const { log, context } = openLog({ config: { indexIntervalBytes: 0 }, maxEvictableIndexBytes: 2048 });
    const appended = appendRandom(log, new SeededRandom(3), 120);
    expect(log.numberOfSegments).toBeGreaterThan(8);
    for (let offset = 0; offset < log.logEndOffset; offset += 3) {
      const first = splitBatches(log.read(offset, 1, log.logEndOffset, true).records)[0]!;
      expect(first.equals(appended.find((a) => a.lastOffset >= offset)!.bytes)).toBe(true);
      expect(context.indexMemory.evictableLoadedBytes).toBeLessThanOrEqual(2048 + 4096);
    }
    expectIndexesMatchRebuild(log);
  });

  it('keeps at most maxOpenFiles descriptors open while reading many segments', () => {
    const { log, context } = openLog({ maxOpenFiles: 4 });
    appendRandom(log, new SeededRandom(4), 80);
    expect(log.numberOfSegments).toBeGreaterThan(5);
    expect(readAllBatches(log)).toHaveLength(80);
    expect(context.files.openCount).toBeLessThanOrEqual(4);
  });
});

describe('UnifiedLog lookups by timestamp', () => {
  it('finds the first record at or after a timestamp, as a brute-force search does', () => {
    const { log } = openLog({ config: { indexIntervalBytes: 100 } });
    const random = new SeededRandom(11);
    const all: { offset: number; timestamp: number }[] = [];
    for (let i = 0; i < 120; i++) {
      const count = random.int(1, 4);
      const base = 1_000_000 + random.int(0, 5000);
      const records = Array.from({ length: count }, () => ({ key: 'k', value: 'v'.repeat(random.int(1, 60)), timestamp: base + random.int(0, 50) }));
      const result = log.appendAsLeader(buildRecordBatch({ records }), 0);
      records.forEach((record, j) => all.push({ offset: result.baseOffset + j, timestamp: record.timestamp }));
    }
    for (let target = 999_990; target <= 1_005_060; target += 37) {
      const expected = all.find((r) => r.timestamp >= target) ?? null;
      expect(log.fetchOffsetByTimestamp(target)).toEqual(expected);
    }
    const max = Math.max(...all.map((r) => r.timestamp));
    expect(log.fetchOffsetByTimestamp(MAX_TIMESTAMP)).toEqual(all.find((r) => r.timestamp === max));
    expect(log.fetchOffsetByTimestamp(LATEST_TIMESTAMP)).toEqual({ offset: log.logEndOffset, timestamp: -1 });
    expect(log.fetchOffsetByTimestamp(EARLIEST_TIMESTAMP)).toEqual({ offset: 0, timestamp: -1 });
  });

  it('answers for LogAppendTime batches from their header', () => {
    const { log, clock } = openLog({ config: { messageTimestampType: 'LogAppendTime' } });
    for (let i = 0; i < 5; i++) {
      clock.advance(100);
      log.appendAsLeader(makeBatch(2), 0);
    }
    expect(log.fetchOffsetByTimestamp(clock.nowMs() - 250)).toEqual({ offset: 4, timestamp: clock.nowMs() - 200 });
    expect(log.fetchOffsetByTimestamp(clock.nowMs() + 1)).toBeNull();
  });
});

describe('UnifiedLog truncation and deletion', () => {
  it('truncates to an offset inside an earlier segment and continues appending from there', () => {
    const { log } = openLog();
    const appended = appendRandom(log, new SeededRandom(21), 80);
    log.updateHighWatermark(log.logEndOffset);
    const target = appended[30]!.baseOffset;
    log.truncateTo(target);
    expect(log.logEndOffset).toBe(target);
    expect(log.highWatermark).toBe(target);
    expect(readAllBatches(log).map((b) => b.toString('hex'))).toEqual(appended.slice(0, 30).map((a) => a.bytes.toString('hex')));
    const more = appendRandom(log, new SeededRandom(22), 30);
    expect(more[0]!.baseOffset).toBe(target);
    const all = readAllBatches(log);
    expect(all).toHaveLength(60);
    expect(all[59]!.equals(more[29]!.bytes)).toBe(true);
    const reopened = openLog({ dir: log.dir });
    expect(readAllBatches(reopened.log).map((b) => b.toString('hex'))).toEqual(all.map((b) => b.toString('hex')));
  });

  it('truncating inside a batch removes the whole batch', () => {
    const { log } = openLog();
    log.appendAsLeader(makeBatch(3), 0);
    log.appendAsLeader(makeBatch(3), 0);
    log.truncateTo(4);
    expect(log.logEndOffset).toBe(3);
  });

  it('deletes records below a DeleteRecords offset, whole segments at a time', () => {
    const { log } = openLog();
    appendRandom(log, new SeededRandom(5), 60);
    const segmentsBefore = log.numberOfSegments;
    expect(log.deleteRecordsBefore(10)).toBe(1); // above the high watermark (0)
    log.updateHighWatermark(log.logEndOffset);
    const third = log.logSegments[2]!.baseOffset;
    expect(log.deleteRecordsBefore(third + 1)).toBe(0);
    expect(log.logStartOffset).toBe(third + 1);
    expect(log.numberOfSegments).toBe(segmentsBefore - 2);
    expect(log.logSegments[0]!.baseOffset).toBe(third);
    expect(log.read(third, 100, log.logEndOffset, true).errorCode).toBe(1);
  });

  it('deletes segments past retention.ms by their largest timestamp, never the active one', () => {
    const { log, clock } = openLog({ config: { retentionMs: 1000 }, clock: new ManualClock(0) });
    clock.set(2_000_000);
    for (let i = 0; i < 40; i++) log.appendAsLeader(makeBatch(2, { valueBytes: 200, timestamp: 1_000_000 + i * 100 }), 0);
    log.updateHighWatermark(log.logEndOffset);
    const lastSegmentStart = log.activeSegment.baseOffset;
    expect(log.deleteOldSegments(clock.nowMs())).toBeGreaterThan(0);
    // Everything is older than retention: the log rolled and kept an empty active segment.
    expect(log.numberOfSegments).toBe(1);
    expect(log.activeSegment.size).toBe(0);
    expect(log.logStartOffset).toBe(log.logEndOffset);
    expect(log.logEndOffset).toBeGreaterThan(lastSegmentStart);
    expect(log.appendAsLeader(makeBatch(1, { timestamp: clock.nowMs() }), 0).errorCode).toBe(0);
  });

  it('keeps segments younger than retention.ms and those above the high watermark', () => {
    const { log, clock } = openLog({ config: { retentionMs: 1000 }, clock: new ManualClock(0) });
    clock.set(10_000);
    for (let i = 0; i < 40; i++) log.appendAsLeader(makeBatch(2, { valueBytes: 200, timestamp: 8_000 + i * 100 }), 0);
    expect(log.deleteOldSegments(clock.nowMs())).toBe(0); // high watermark 0
    log.updateHighWatermark(log.logEndOffset);
    log.deleteOldSegments(clock.nowMs());
    for (const segment of log.logSegments.slice(0, -1)) expect(clock.nowMs() - segment.largestTimestamp).toBeLessThanOrEqual(1000);
    expect(log.logSegments[0]!.baseOffset).toBe(log.logStartOffset);
  });

  it('deletes the oldest segments while what remains is still at least retention.bytes', () => {
    const { log } = openLog({ config: { retentionBytes: 10_000 } });
    appendRandom(log, new SeededRandom(9), 100);
    log.updateHighWatermark(log.logEndOffset);
    expect(log.deleteOldSegments(0)).toBeGreaterThan(0);
    // Kafka's rule: a segment goes only if the log stays at or above retention.bytes without it.
    expect(log.size).toBeGreaterThanOrEqual(10_000);
    expect(log.size - log.logSegments[0]!.size).toBeLessThan(10_000);
  });
});

describe('UnifiedLog flush policy', () => {
  it('fsyncs at segment roll only by default', () => {
    const { log } = openLog();
    for (let i = 0; i < 3; i++) log.appendAsLeader(makeBatch(2), 0);
    expect(log.recoveryPoint).toBe(0);
    while (log.numberOfSegments === 1) log.appendAsLeader(makeBatch(2, { valueBytes: 200 }), 0);
    expect(log.recoveryPoint).toBe(log.activeSegment.baseOffset);
  });

  it('fsyncs once flush.messages messages are unflushed', () => {
    const { log } = openLog({ config: { flushMessages: 5 } });
    log.appendAsLeader(makeBatch(3), 0);
    expect(log.recoveryPoint).toBe(0);
    log.appendAsLeader(makeBatch(3), 0);
    defaultGroupFlusher.flushAll();
    expect(log.recoveryPoint).toBe(6);
    const { log: everyTime } = openLog({ config: { flushMessages: 1 } });
    everyTime.appendAsLeader(makeBatch(1), 0);
    // flush.messages=1 fsyncs in the event-loop turn's group flush (group-flush.ts).
    expect(everyTime.recoveryPoint).toBe(0);
    defaultGroupFlusher.flushAll();
    expect(everyTime.recoveryPoint).toBe(1);
  });

  it('fsyncs on maintenance once flush.ms has passed', () => {
    const { log, clock } = openLog({ config: { flushMs: 1000 } });
    log.appendAsLeader(makeBatch(3), 0);
    log.maintain(clock.nowMs() + 500);
    expect(log.recoveryPoint).toBe(0);
    log.maintain(clock.nowMs() + 1000);
    expect(log.recoveryPoint).toBe(3);
  });
});

describe('UnifiedLog reopen', () => {
  it('reopens a cleanly closed log with the same content and indexes', () => {
    const { log } = openLog();
    const appended = appendRandom(log, new SeededRandom(31), 70);
    log.updateHighWatermark(40);
    const before = readAllBatches(log);
    expect(log.close()).toBe(true);
    const reopened = openLog({ dir: log.dir, extra: { hadCleanShutdown: true, recoveryPoint: log.logEndOffset, highWatermark: 40 } }).log;
    expect(reopened.logEndOffset).toBe(appended[appended.length - 1]!.lastOffset + 1);
    expect(reopened.highWatermark).toBe(40);
    expect(readAllBatches(reopened).map((b) => b.toString('hex'))).toEqual(before.map((b) => b.toString('hex')));
    expectIndexesMatchRebuild(reopened);
    expect(reopened.appendAsLeader(makeBatch(1), 0).baseOffset).toBe(log.logEndOffset);
  });

  it('recovers a log that was never closed and rebuilds equal indexes', () => {
    const { log } = openLog();
    appendRandom(log, new SeededRandom(32), 70);
    const before = readAllBatches(log);
    const reopened = openLog({ dir: log.dir }).log;
    expect(readAllBatches(reopened).map((b) => b.toString('hex'))).toEqual(before.map((b) => b.toString('hex')));
    expectIndexesMatchRebuild(reopened);
  });
});
