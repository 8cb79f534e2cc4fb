/**
 * The RaftLog contract: the same assertions against MemoryRaftLog (what the simulator runs) and
 * FileRaftLog (what a broker runs), so the simulator's findings hold on disk.
 */
import { describe, expect, it } from 'vitest';
import { MemoryRaftLog } from '../../host/raft/memory-raft-log.js';
import type { RaftLog } from '../../host/raft/raft-log.js';
import { allRecords, bytes, freshFaultDisk, openFileRaftLog, shapes, text } from './raft-log-helpers.js';

const implementations: [string, () => RaftLog][] = [
  ['MemoryRaftLog', () => new MemoryRaftLog()],
  ['FileRaftLog', () => openFileRaftLog(freshFaultDisk())],
];

function withEpochs(log: RaftLog, epochs: number[]): RaftLog {
  for (const [i, epoch] of epochs.entries()) log.append(epoch, [bytes(`r${i}`)], false);
  return log;
}

describe.each(implementations)('RaftLog contract: %s', (_name, create) => {
  it('starts empty at offset 0 in epoch 0', () => {
    const log = create();
    expect([log.startOffset(), log.endOffset(), log.flushedOffset(), log.lastFetchedEpoch()]).toEqual([0, 0, 0, 0]);
    expect(log.read(0, 100)).toEqual([]);
    expect(log.latestSnapshot()).toBeUndefined();
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 0, offset: 0 });
  });

  it('appends at the end offset and reports the last fetched epoch and each offset\'s epoch', () => {
    const log = withEpochs(create(), [1, 1, 2]);
    expect(log.endOffset()).toBe(3);
    expect(log.lastFetchedEpoch()).toBe(2);
    expect(log.append(2, [bytes('a'), bytes('b')], false)).toBe(4);
    expect([0, 1, 2, 3, 4].map((offset) => log.epochAt(offset))).toEqual([1, 1, 2, 2, 2]);
    expect(allRecords(log)).toEqual(['r0', 'r1', 'r2', 'a', 'b']);
  });

  it('refuses an append in an older epoch, an empty append and a follower batch off the end', () => {
    const log = withEpochs(create(), [3]);
    expect(() => log.append(2, [bytes('x')], false)).toThrow(/epoch/);
    expect(() => log.append(3, [], false)).toThrow();
    expect(() => log.appendAsFollower([{ baseOffset: 5, epoch: 3, control: false, records: [bytes('y')] }])).toThrow(/end offset/);
    expect(log.endOffset()).toBe(1);
    expect(log.lastFetchedEpoch()).toBe(3);
  });

  it('keeps batches as appended: control flag, epochs, empty records', () => {
    const log = create();
    log.append(1, [bytes('leader-change')], true);
    log.appendAsFollower([
      { baseOffset: 1, epoch: 1, control: false, records: [bytes('a'), new Uint8Array(0)] },
      { baseOffset: 3, epoch: 2, control: true, records: [bytes('lc2')] },
    ]);
    expect(shapes(log.read(0, 1000))).toEqual([
      { baseOffset: 0, epoch: 1, control: true, records: ['leader-change'] },
      { baseOffset: 1, epoch: 1, control: false, records: ['a', ''] },
      { baseOffset: 3, epoch: 2, control: true, records: ['lc2'] },
    ]);
  });

  it('answers endOffsetForEpoch with the largest known epoch at or below and its end', () => {
    const log = withEpochs(create(), [1, 1, 3, 3, 5]);
    expect(log.endOffsetForEpoch(1)).toEqual({ epoch: 1, offset: 2 });
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 1, offset: 2 });
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 3, offset: 4 });
    expect(log.endOffsetForEpoch(5)).toEqual({ epoch: 5, offset: 5 });
    expect(log.endOffsetForEpoch(9)).toEqual({ epoch: 5, offset: 5 });
    expect(log.endOffsetForEpoch(0)).toEqual({ epoch: 0, offset: 0 });
  });

  it('truncates at a batch boundary and inside a batch, forgetting the epochs above', () => {
    const log = create();
    log.append(1, [bytes('a'), bytes('b'), bytes('c')], false);
    log.append(2, [bytes('d')], false);
    log.append(3, [bytes('e')], false);
    log.truncateTo(4);
    expect(log.endOffset()).toBe(4);
    expect(log.lastFetchedEpoch()).toBe(2);
    log.truncateTo(2);
    expect(log.endOffset()).toBe(2);
    expect(log.lastFetchedEpoch()).toBe(1);
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 1, offset: 2 });
    expect(allRecords(log)).toEqual(['a', 'b']);
    log.append(4, [bytes('f')], false);
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 1, offset: 2 });
    expect(allRecords(log)).toEqual(['a', 'b', 'f']);
    expect(() => log.truncateTo(4)).toThrow(/above the log end/);
  });

  it('reads from the middle of a batch, at least one batch, whole batches up to max bytes', () => {
    const log = create();
    log.append(1, [bytes('aaaa'), bytes('bbbb')], false);
    log.append(1, [bytes('cccc')], false);
    log.append(1, [bytes('dddd')], false);
    expect(shapes(log.read(1, 5))).toEqual([{ baseOffset: 1, epoch: 1, control: false, records: ['bbbb'] }]);
    expect(log.read(1, 8).map((batch) => batch.baseOffset)).toEqual([1, 2]);
    expect(log.read(0, 0).map((batch) => batch.baseOffset)).toEqual([0]);
    expect(log.read(4, 8)).toEqual([]);
    expect(() => log.read(5, 8)).toThrow();
  });

  it('flushes up to the end; truncation lowers the flushed offset with the end', () => {
    const log = withEpochs(create(), [1, 1, 1]);
    expect(log.flushedOffset()).toBeLessThanOrEqual(log.endOffset());
    log.flush();
    expect(log.flushedOffset()).toBe(3);
    log.append(1, [bytes('x')], false);
    expect(log.flushedOffset()).toBe(3);
    log.truncateTo(2);
    expect(log.flushedOffset()).toBe(2);
    log.flush();
    expect(log.flushedOffset()).toBe(2);
  });

  it('stores a snapshot and deletes the log before it; the snapshot epoch stands before the log start', () => {
    const log = withEpochs(create(), [1, 1, 2, 2, 2]);
    log.storeSnapshot({ id: { endOffset: 3, epoch: 2 }, bytes: bytes('state@3') });
    expect(log.startOffset()).toBe(3);
    expect(log.endOffset()).toBe(5);
    expect(log.flushedOffset()).toBeGreaterThanOrEqual(3);
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 2, offset: 5 });
    expect(log.endOffsetForEpoch(1)).toEqual({ epoch: 0, offset: 3 });
    expect(text(log.latestSnapshot()!.bytes)).toBe('state@3');
    expect(log.latestSnapshot()!.id).toEqual({ endOffset: 3, epoch: 2 });
    expect(allRecords(log)).toEqual(['r3', 'r4']);
    expect(() => log.truncateTo(2)).toThrow(/below the log start/);
    expect(() => log.read(2, 100)).toThrow();
  });

  it('keeps the newer snapshot when an older one is stored', () => {
    const log = withEpochs(create(), [1, 1, 1, 1]);
    log.storeSnapshot({ id: { endOffset: 3, epoch: 1 }, bytes: bytes('s3') });
    log.storeSnapshot({ id: { endOffset: 3, epoch: 1 }, bytes: bytes('again') });
    expect(text(log.latestSnapshot()!.bytes)).toBe('s3');
    log.storeSnapshot({ id: { endOffset: 4, epoch: 1 }, bytes: bytes('s4') });
    expect(log.latestSnapshot()!.id).toEqual({ endOffset: 4, epoch: 1 });
    expect([log.startOffset(), log.endOffset(), log.lastFetchedEpoch()]).toEqual([4, 4, 1]);
    expect(log.read(4, 100)).toEqual([]);
  });

  it('cuts a batch that straddles the snapshot offset and keeps its epoch for the rest', () => {
    const log = create();
    log.append(1, [bytes('a')], false);
    log.append(2, [bytes('b'), bytes('c'), bytes('d')], false);
    log.storeSnapshot({ id: { endOffset: 2, epoch: 2 }, bytes: bytes('s') });
    expect(shapes(log.read(2, 100))).toEqual([{ baseOffset: 2, epoch: 2, control: false, records: ['c', 'd'] }]);
    expect(log.epochAt(2)).toBe(2);
    log.truncateTo(3);
    expect(allRecords(log)).toEqual(['c']);
    expect(log.startOffset()).toBe(2);
  });

  it('installs a fetched snapshot in place of the whole log', () => {
    const log = withEpochs(create(), [1, 1]);
    log.installSnapshot({ id: { endOffset: 10, epoch: 4 }, bytes: bytes('leader state') });
    expect([log.startOffset(), log.endOffset(), log.flushedOffset(), log.lastFetchedEpoch()]).toEqual([10, 10, 10, 4]);
    expect(log.endOffsetForEpoch(4)).toEqual({ epoch: 4, offset: 10 });
    expect(text(log.latestSnapshot()!.bytes)).toBe('leader state');
    log.append(5, [bytes('n')], false);
    expect(log.endOffsetForEpoch(4)).toEqual({ epoch: 4, offset: 10 });
    expect(log.endOffsetForEpoch(5)).toEqual({ epoch: 5, offset: 11 });
    expect(log.epochAt(10)).toBe(5);
    expect(allRecords(log)).toEqual(['n']);
  });
});
