/**
 * batchTimestampAt: the timestamp consumer lag in seconds measures from, read from the header of
 * the batch holding an offset, across segments, for CreateTime and LogAppendTime logs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { batchTimestampAt } from '../../host/log/batch-timestamp.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { openLog, removeTempDirs } from './log-test-helpers.js';

afterEach(removeTempDirs);

/** A batch of `count` records stamped `firstMs`, `firstMs + 10`, ... */
function batch(count: number, firstMs: number): Buffer {
  return buildRecordBatch({ records: Array.from({ length: count }, (_, i) => ({ key: 'k', value: 'v'.repeat(200), timestamp: firstMs + i * 10 })) });
}

describe('batchTimestampAt', () => {
  it('gives the first timestamp of the CreateTime batch holding the offset, in any segment', () => {
    // Small segments and index interval: the batches spread over several segments and index entries.
    const { log } = openLog({ config: { segmentBytes: 2048, indexIntervalBytes: 300 } });
    const firsts: { base: number; firstMs: number; count: number }[] = [];
    for (let i = 0; i < 12; i++) {
      const firstMs = 1_700_000_000_000 + i * 1000;
      const result = log.appendAsLeader(batch(3, firstMs), 0);
      firsts.push({ base: result.baseOffset, firstMs, count: 3 });
    }
    expect(log.logSegments.length).toBeGreaterThan(2);
    for (const { base, firstMs, count } of firsts) {
      for (let offset = base; offset < base + count; offset++) {
        expect(batchTimestampAt(log.logSegments, offset)).toEqual({ baseOffset: base, timestampMs: firstMs });
      }
    }
    expect(batchTimestampAt(log.logSegments, log.logEndOffset)).toBeNull();
  });

  it('gives the broker\'s append time for a LogAppendTime log', () => {
    const { log, clock } = openLog({ config: { messageTimestampType: 'LogAppendTime' } });
    log.appendAsLeader(batch(2, 5), 0);
    const appendedAtMs = clock.nowMs();
    expect(batchTimestampAt(log.logSegments, 1)).toEqual({ baseOffset: 0, timestampMs: appendedAtMs });
  });
});
