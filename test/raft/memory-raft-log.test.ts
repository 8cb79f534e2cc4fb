import { describe, expect, it } from 'vitest';
import { MemoryRaftLog } from '../../host/raft/memory-raft-log.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function logWithEpochs(epochs: number[]): MemoryRaftLog {
  const log = new MemoryRaftLog();
  for (const [i, epoch] of epochs.entries()) log.append(epoch, [bytes(`r${i}`)], false);
  return log;
}

describe('MemoryRaftLog', () => {
  it('appends at the end offset and reports the last fetched epoch', () => {
    const log = logWithEpochs([1, 1, 2]);
    expect(log.endOffset()).toBe(3);
    expect(log.lastFetchedEpoch()).toBe(2);
    expect(log.append(2, [bytes('a'), bytes('b')], false)).toBe(4);
    expect(log.epochAt(1)).toBe(1);
  });

  it('refuses an append in an older epoch', () => {
    const log = logWithEpochs([3]);
    expect(() => log.append(2, [bytes('x')], false)).toThrow(/epoch/);
  });

  it('answers endOffsetForEpoch with the largest known epoch at or below and its end', () => {
    const log = logWithEpochs([1, 1, 3, 3, 5]);
    expect(log.endOffsetForEpoch(1)).toEqual({ epoch: 1, offset: 2 });
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 1, offset: 2 });
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 3, offset: 4 });
    expect(log.endOffsetForEpoch(5)).toEqual({ epoch: 5, offset: 5 });
    expect(log.endOffsetForEpoch(9)).toEqual({ epoch: 5, offset: 5 });
    expect(log.endOffsetForEpoch(0)).toEqual({ epoch: 0, offset: 0 });
  });

  it('truncates inside a batch and forgets the epochs above', () => {
    const log = new MemoryRaftLog();
    log.append(1, [bytes('a'), bytes('b'), bytes('c')], false);
    log.append(2, [bytes('d')], false);
    log.truncateTo(2);
    expect(log.endOffset()).toBe(2);
    expect(log.lastFetchedEpoch()).toBe(1);
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 1, offset: 2 });
    expect(log.read(0, 100).flatMap((batch) => batch.records.map((record) => new TextDecoder().decode(record)))).toEqual(['a', 'b']);
  });

  it('reads from the middle of a batch, at least one batch, whole batches up to max bytes', () => {
    const log = new MemoryRaftLog();
    log.append(1, [bytes('aaaa'), bytes('bbbb')], false);
    log.append(1, [bytes('cccc')], false);
    log.append(1, [bytes('dddd')], false);
    const batches = log.read(1, 5);
    expect(batches.map((batch) => batch.baseOffset)).toEqual([1]);
    expect(log.read(1, 8).map((batch) => batch.baseOffset)).toEqual([1, 2]);
    expect(log.read(4, 8)).toEqual([]);
  });

  it('loses the unflushed tail on a crash, keeping whole batches of a torn tail', () => {
    const log = logWithEpochs([1, 1]);
    log.flush();
    log.append(1, [bytes('x')], false);
    log.append(1, [bytes('y')], false);
    log.append(1, [bytes('z')], false);
    expect(log.unflushedBatchCount()).toBe(3);
    log.crash(1);
    expect(log.endOffset()).toBe(3);
    expect(log.flushedOffset()).toBe(3);
    log.append(1, [bytes('w')], false);
    log.crash();
    expect(log.endOffset()).toBe(3);
  });

  it('stores a snapshot and deletes the log before it; the snapshot epoch stands before the log start', () => {
    const log = logWithEpochs([1, 1, 2, 2, 2]);
    log.storeSnapshot({ id: { endOffset: 3, epoch: 2 }, bytes: new Uint8Array(4) });
    expect(log.startOffset()).toBe(3);
    expect(log.endOffset()).toBe(5);
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 2, offset: 5 });
    expect(log.endOffsetForEpoch(1)).toEqual({ epoch: 0, offset: 3 });
    expect(() => log.truncateTo(2)).toThrow(/below the log start/);
  });

  it('installs a fetched snapshot in place of the whole log', () => {
    const log = logWithEpochs([1, 1]);
    log.installSnapshot({ id: { endOffset: 10, epoch: 4 }, bytes: new Uint8Array(4) });
    expect(log.startOffset()).toBe(10);
    expect(log.endOffset()).toBe(10);
    expect(log.lastFetchedEpoch()).toBe(4);
    expect(log.endOffsetForEpoch(4)).toEqual({ epoch: 4, offset: 10 });
    log.append(5, [bytes('n')], false);
    expect(log.endOffsetForEpoch(4)).toEqual({ epoch: 4, offset: 10 });
    expect(log.endOffsetForEpoch(5)).toEqual({ epoch: 5, offset: 11 });
  });
});
