/**
 * Regression: UnifiedLog.truncateTo across segments deleted the later segments, cut the kept one
 * (fsynced) and only then fsynced the directory; power lost in between brought the later segments
 * back behind the cut one, an offset gap the loader cannot tell from compaction (found by the
 * FileRaftLog crash tests). The later segments now go last first, durably, before the cut.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { FaultDisk, SimulatedCrash } from '../../host/io/fault-disk.js';
import { readBatch } from '../../host/record/records.js';
import { makeBatch, openLog, readAllBatches } from './log-test-helpers.js';

const DIR = '/data/topic-0';

describe('UnifiedLog truncation and power loss', () => {
  it('never leaves a gap when power fails during a truncation across segments', () => {
    for (let call = 1; call <= 25; call++) {
      const disk = new FaultDisk(call);
      disk.mkdir('/data');
      disk.syncAll();
      const clock = new ManualClock();
      const { log } = openLog({ dir: DIR, disk, clock, config: { segmentBytes: 1024 } });
      for (let i = 0; i < 12; i++) expect(log.appendAsLeader(makeBatch(3, { valueBytes: 60 }), 1).errorCode).toBe(0);
      log.flush();
      expect(log.numberOfSegments).toBeGreaterThan(2);
      disk.crashAfter(call);
      try {
        log.truncateTo(7);
      } catch (error) {
        if (!(error instanceof SimulatedCrash)) throw error;
      }
      log.closeWithoutFlush();
      disk.powerLoss(call % 2 === 0 ? 'torn' : 'strict');
      const reopened = openLog({ dir: DIR, disk, clock, config: { segmentBytes: 1024 } }).log;
      let next = 0;
      for (const batch of readAllBatches(reopened)) {
        const { header } = readBatch(batch);
        expect(header.baseOffset, `crash at call ${call}`).toBe(next);
        next = header.lastOffset + 1;
      }
      expect(next).toBe(reopened.logEndOffset);
      // The truncation happened (6: the batch holding offset 7 went whole), or part of it: a prefix.
      expect(reopened.logEndOffset % 3).toBe(0);
      expect(reopened.logEndOffset).toBeGreaterThanOrEqual(6);
    }
  });
});
