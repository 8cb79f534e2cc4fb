import { afterEach, describe, expect, it } from 'vitest';
import { FaultDisk } from '../../host/io/fault-disk.js';
import { GroupFlusher } from '../../host/log/group-flush.js';
import { makeBatch, openLog, readAllBatches, removeTempDirs } from './log-test-helpers.js';

afterEach(removeTempDirs);

/** A flusher whose turn ends when the test says so. */
function manualFlusher(): { flusher: GroupFlusher; scheduled: () => number } {
  let scheduled = 0;
  const flusher = new GroupFlusher(() => { scheduled++; });
  return { flusher, scheduled: () => scheduled };
}

function countingDisk(seed: number): { disk: FaultDisk; logFsyncs: () => number; failFsync: (code: string | null) => void } {
  const disk = new FaultDisk(seed);
  let fsyncs = 0;
  let failing: string | null = null;
  disk.faultRule = (op) => {
    if (op.kind !== 'fsync' || !op.path.endsWith('.log')) return undefined;
    if (failing !== null) return { code: failing };
    fsyncs++;
    return undefined;
  };
  return { disk, logFsyncs: () => fsyncs, failFsync: (code) => { failing = code; } };
}

describe('group flush of flush.messages=1 logs', () => {
  it('fsyncs each log once for all appends of a turn, after them', async () => {
    const { disk, logFsyncs } = countingDisk(1);
    const { flusher, scheduled } = manualFlusher();
    const a = openLog({ disk, dir: '/a/t-0', config: { flushMessages: 1 }, extra: { groupFlusher: flusher } }).log;
    const b = openLog({ disk, dir: '/a/t-1', config: { flushMessages: 1 }, extra: { groupFlusher: flusher } }).log;
    for (let i = 0; i < 5; i++) {
      a.appendAsLeader(makeBatch(2), 0);
      b.appendAsLeader(makeBatch(1), 0);
    }
    expect(scheduled()).toBe(1);
    expect(logFsyncs()).toBe(0);
    expect(a.recoveryPoint).toBe(0);
    const pendingA = a.pendingFlush!;
    const pendingB = b.pendingFlush!;
    expect(pendingA).not.toBeNull();
    flusher.flushAll();
    expect(logFsyncs()).toBe(2);
    expect(a.recoveryPoint).toBe(10);
    expect(b.recoveryPoint).toBe(5);
    expect(a.pendingFlush).toBeNull();
    expect(await pendingA).toBe(0);
    expect(await pendingB).toBe(0);
  });

  it('keeps records invisible to consumers until they are fsynced, as the inline flush did', () => {
    const { disk } = countingDisk(2);
    const { flusher } = manualFlusher();
    const { log } = openLog({ disk, dir: '/a/t-0', config: { flushMessages: 1 }, extra: { groupFlusher: flusher } });
    log.appendAsLeader(makeBatch(3), 0);
    expect(log.updateHighWatermark(log.logEndOffset)).toBe(0);
    flusher.flushAll();
    expect(log.highWatermark).toBe(3);
    log.appendAsLeader(makeBatch(2), 0);
    expect(log.updateHighWatermark(log.logEndOffset)).toBe(3);
    flusher.flushAll();
    expect(log.highWatermark).toBe(5);
  });

  it('does not defer anything for logs without a per-append flush policy', () => {
    const { disk, logFsyncs } = countingDisk(3);
    const { flusher, scheduled } = manualFlusher();
    const { log } = openLog({ disk, dir: '/a/t-0', extra: { groupFlusher: flusher } });
    for (let i = 0; i < 5; i++) log.appendAsLeader(makeBatch(2), 0);
    expect(scheduled()).toBe(0);
    expect(log.pendingFlush).toBeNull();
    expect(log.updateHighWatermark(log.logEndOffset)).toBe(10);
    expect(logFsyncs()).toBe(0);
  });

  it('answers KAFKA_STORAGE_ERROR for the turn and takes the directory offline when the fsync fails', async () => {
    const { disk, failFsync } = countingDisk(4);
    const { flusher } = manualFlusher();
    const { log } = openLog({ disk, dir: '/a/t-0', config: { flushMessages: 1 }, extra: { groupFlusher: flusher } });
    log.appendAsLeader(makeBatch(1), 0);
    flusher.flushAll();
    log.updateHighWatermark(log.logEndOffset);
    log.appendAsLeader(makeBatch(1), 0);
    const pending = log.pendingFlush!;
    failFsync('EIO');
    flusher.flushAll();
    expect(await pending).toBe(56);
    expect(log.isOffline).toBe(true);
    expect(log.highWatermark).toBe(1);
    expect(log.appendAsLeader(makeBatch(1), 0).errorCode).toBe(56);
  });

  it('keeps every record whose flush completed through a power loss', () => {
    const { disk } = countingDisk(5);
    const { flusher } = manualFlusher();
    const opened = openLog({ disk, dir: '/a/t-0', config: { flushMessages: 1 }, extra: { groupFlusher: flusher } });
    disk.syncAll(); // the directories and empty segment exist durably before the first append
    for (let i = 0; i < 4; i++) opened.log.appendAsLeader(makeBatch(2), 0);
    flusher.flushAll();
    opened.log.appendAsLeader(makeBatch(2), 0); // not flushed: may be lost
    disk.powerLoss('strict');
    const { log } = openLog({ disk, dir: '/a/t-0', config: { flushMessages: 1 }, extra: { groupFlusher: flusher } });
    expect(log.logEndOffset).toBeGreaterThanOrEqual(8);
    expect(readAllBatches(log).length).toBeGreaterThanOrEqual(4);
  });
});
