/**
 * Regression: a roll fsynced the old segment and moved the recovery point past it, but the old
 * segment's directory entry (created by the roll before) was only made durable by a later flush;
 * power loss in between dropped the fsynced segment whole, so the log came back shorter than its
 * recovery point (found by the FileRaftLog tests, where the recovery point is the Raft flushed
 * offset). A roll now fsyncs the directory before moving the recovery point.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { FaultDisk } from '../../host/io/fault-disk.js';
import { makeBatch, openLog } from './log-test-helpers.js';

const DIR = '/data/topic-0';

describe('UnifiedLog rolls and power loss', () => {
  it('keeps everything below the recovery point when power fails after rolls without a flush', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const disk = new FaultDisk(seed);
      disk.mkdir('/data');
      disk.syncAll();
      const clock = new ManualClock();
      const { log } = openLog({ dir: DIR, disk, clock, config: { segmentBytes: 1024 } });
      for (let i = 0; i < 20; i++) expect(log.appendAsLeader(makeBatch(3, { valueBytes: 60 }), 1).errorCode).toBe(0);
      expect(log.numberOfSegments).toBeGreaterThan(3);
      const recoveryPoint = log.recoveryPoint;
      expect(recoveryPoint).toBeGreaterThan(0);
      log.closeWithoutFlush();
      disk.powerLoss(seed % 2 === 0 ? 'torn' : 'strict');
      const reopened = openLog({ dir: DIR, disk, clock, config: { segmentBytes: 1024 } }).log;
      expect(reopened.logEndOffset, `SEED=${seed}`).toBeGreaterThanOrEqual(recoveryPoint);
    }
  });
});
