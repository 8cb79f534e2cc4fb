/**
 * FileRaftLog on disk: reopening, crashes (power loss through FaultDisk, strict and torn), snapshot
 * files, the epoch cache file, opening through the LogManager, and a seeded comparison with
 * MemoryRaftLog. Failures name their seed (SEED=...).
 */
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { NodeDisk, readWholeFile } from '../../host/io/disk.js';
import { type FaultDisk, SimulatedCrash } from '../../host/io/fault-disk.js';
import { SeededRandom } from '../../host/io/random.js';
import { LEADER_EPOCH_CHECKPOINT_FILE } from '../../host/log/leader-epoch-file-cache.js';
import { LogManager } from '../../host/log/log-manager.js';
import { UnifiedLogMetadataLog } from '../../host/controller/unified-log-metadata-log.js';
import { FileRaftLog, RAFT_LOG_CONFIG } from '../../host/raft/file-raft-log.js';
import { MemoryRaftLog } from '../../host/raft/memory-raft-log.js';
import type { RaftLog } from '../../host/raft/raft-log.js';
import { snapshotFileName } from '../../host/raft/snapshot-files.js';
import { removeTempDirs, tempDir } from '../log/log-test-helpers.js';
import { allRecords, bytes, freshFaultDisk, openFileRaftLog, PARTITION_DIR, SMALL_SEGMENTS, text } from './raft-log-helpers.js';

afterEach(removeTempDirs);

/** Everything a reader of the log can observe, for before/after comparisons. */
function observe(log: RaftLog): unknown {
  const epochs = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((epoch) => log.endOffsetForEpoch(epoch));
  const snapshot = log.latestSnapshot();
  return {
    start: log.startOffset(),
    end: log.endOffset(),
    lastFetchedEpoch: log.lastFetchedEpoch(),
    epochs,
    records: allRecords(log),
    snapshot: snapshot === undefined ? null : { id: snapshot.id, bytes: text(snapshot.bytes) },
  };
}

function fill(log: RaftLog, epochs: number[], recordsPerBatch = 3): void {
  for (const [i, epoch] of epochs.entries()) {
    const records = Array.from({ length: recordsPerBatch }, (_, j) => bytes(`b${i}r${j}-${'x'.repeat(40)}`));
    log.append(epoch, records, i === 0);
  }
}

function crashAndReopen(disk: FaultDisk, log: FileRaftLog, mode: 'strict' | 'torn'): FileRaftLog {
  log.unifiedLog.closeWithoutFlush();
  disk.powerLoss(mode);
  return openFileRaftLog(disk);
}

describe('FileRaftLog on disk', () => {
  it('reopens after a clean close with the same records, epochs, snapshot and offsets', () => {
    const disk = freshFaultDisk();
    let log = openFileRaftLog(disk);
    fill(log, [1, 1, 2, 2, 3, 3, 3, 5]);
    log.storeSnapshot({ id: { endOffset: 9, epoch: 2 }, bytes: bytes('state@9') });
    log.flush();
    const before = observe(log);
    const flushed = log.flushedOffset();
    log.unifiedLog.close();
    log = openFileRaftLog(disk);
    expect(observe(log)).toEqual(before);
    expect(log.flushedOffset()).toBe(flushed);
  });

  it('keeps the flushed prefix after power loss, and only whole batches of the rest', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const disk = freshFaultDisk(seed);
      let log = openFileRaftLog(disk);
      fill(log, [1, 1, 2, 2]);
      log.flush();
      const flushedRecords = allRecords(log);
      const flushed = log.flushedOffset();
      fill(log, [2, 3, 3, 4, 4]);
      const appended = allRecords(log);
      log = crashAndReopen(disk, log, seed % 2 === 0 ? 'torn' : 'strict');
      const message = `SEED=${seed}`;
      expect(log.endOffset(), message).toBeGreaterThanOrEqual(flushed);
      const survived = allRecords(log);
      expect(survived.slice(0, flushedRecords.length), message).toEqual(flushedRecords);
      expect(appended.slice(0, survived.length), message).toEqual(survived);
      expect(survived.length % 3, `${message}: a torn batch survived`).toBe(0);
      expect(log.lastFetchedEpoch(), message).toBe(log.epochAt(log.endOffset() - 1));
      // The epoch cache was cut back to the recovered end: appending a new epoch works.
      log.append(9, [bytes('after')], false);
      expect(log.endOffsetForEpoch(8), message).toEqual({ epoch: log.epochAt(log.endOffset() - 2), offset: log.endOffset() - 1 });
    }
  });

  it('loses everything unflushed on a strict power loss', () => {
    const disk = freshFaultDisk();
    let log = openFileRaftLog(disk);
    fill(log, [1, 2]);
    log.flush();
    fill(log, [3, 3]);
    log = crashAndReopen(disk, log, 'strict');
    expect(log.endOffset()).toBe(6);
    expect(log.lastFetchedEpoch()).toBe(2);
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 2, offset: 6 });
  });

  it('writes the snapshot as <endOffset>-<epoch>.checkpoint, deletes segments below it and older snapshots', () => {
    const disk = freshFaultDisk();
    let log = openFileRaftLog(disk);
    fill(log, [1, 1, 1, 2, 2, 2, 2, 2, 2, 2]);
    const segmentsBefore = log.unifiedLog.numberOfSegments;
    expect(segmentsBefore).toBeGreaterThan(2);
    log.storeSnapshot({ id: { endOffset: 12, epoch: 2 }, bytes: bytes('s12') });
    log.storeSnapshot({ id: { endOffset: 21, epoch: 2 }, bytes: bytes('s21') });
    expect(log.unifiedLog.numberOfSegments).toBeLessThan(segmentsBefore);
    expect(log.unifiedLog.logSegments[0]!.baseOffset).toBeLessThanOrEqual(21);
    const names = disk.list(PARTITION_DIR).filter((name) => name.endsWith('.checkpoint'));
    expect(names).toEqual(['00000000000000000021-0000000002.checkpoint']);
    expect(snapshotFileName({ endOffset: 21, epoch: 2 })).toBe(names[0]);
    expect(readWholeFile(disk, path.join(PARTITION_DIR, names[0]!)).toString()).toBe('s21');
    log = crashAndReopen(disk, log, 'strict');
    expect([log.startOffset(), log.lastFetchedEpoch()]).toEqual([21, 2]);
    expect(text(log.latestSnapshot()!.bytes)).toBe('s21');
  });

  it('after power loss right after storeSnapshot, starts the log at the snapshot even if the log lost records below it', () => {
    const disk = freshFaultDisk();
    let log = openFileRaftLog(disk);
    fill(log, [1, 1, 2, 2]);
    log.storeSnapshot({ id: { endOffset: 9, epoch: 2 }, bytes: bytes('s9') });
    log = crashAndReopen(disk, log, 'strict');
    expect([log.startOffset(), log.endOffset(), log.flushedOffset(), log.lastFetchedEpoch()]).toEqual([9, 9, 9, 2]);
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 2, offset: 9 });
    log.append(3, [bytes('next')], false);
    expect(log.epochAt(9)).toBe(3);
  });

  it('survives power loss at any disk call of storeSnapshot, installSnapshot, truncateTo and append', () => {
    const operations: [string, (log: FileRaftLog) => void][] = [
      ['storeSnapshot', (log) => log.storeSnapshot({ id: { endOffset: 10, epoch: 2 }, bytes: bytes('s10') })],
      ['installSnapshot', (log) => log.installSnapshot({ id: { endOffset: 40, epoch: 6 }, bytes: bytes('s40') })],
      ['truncateTo', (log) => log.truncateTo(7)],
      ['append', (log) => log.append(5, [bytes('n1'), bytes('n2')], false)],
    ];
    for (const [name, operation] of operations) {
      for (let call = 1; call <= 30; call++) {
        const seed = call * 7;
        const disk = freshFaultDisk(seed);
        let log = openFileRaftLog(disk);
        fill(log, [1, 1, 2, 2, 3]);
        log.flush();
        disk.crashAfter(call);
        try {
          operation(log);
        } catch (error) {
          if (!(error instanceof SimulatedCrash)) throw error;
        }
        disk.powerLoss(call % 2 === 0 ? 'torn' : 'strict');
        log = openFileRaftLog(disk);
        expectConsistent(log, `${name} SEED=${seed} call ${call}`);
      }
    }
  });

  it('rebuilds a missing epoch cache from the log (a log written before the cache existed)', () => {
    const disk = freshFaultDisk();
    let log = openFileRaftLog(disk);
    fill(log, [1, 1, 4, 4, 6]);
    const before = observe(log);
    log.unifiedLog.close();
    disk.delete(path.join(PARTITION_DIR, LEADER_EPOCH_CHECKPOINT_FILE));
    log = openFileRaftLog(disk);
    expect(observe(log)).toEqual(before);
    expect(readWholeFile(disk, path.join(PARTITION_DIR, LEADER_EPOCH_CHECKPOINT_FILE)).toString()).toBe('0\n3\n1 0\n4 6\n6 12\n');
  });

  it('refuses a malformed epoch cache with KAFKA_STORAGE_ERROR naming the file', () => {
    const disk = freshFaultDisk();
    const log = openFileRaftLog(disk);
    fill(log, [1]);
    log.unifiedLog.close();
    const fd = disk.open(path.join(PARTITION_DIR, LEADER_EPOCH_CHECKPOINT_FILE), 'create');
    disk.write(fd, Buffer.from('garbage'), 0);
    disk.close(fd);
    expect(() => openFileRaftLog(disk)).toThrow(/leader-epoch-checkpoint/);
  });

  it('opens __cluster_metadata-0 through the LogManager and finds it again after a restart', () => {
    const dir = tempDir('tributary-raft-');
    const clock = new ManualClock();
    const open = (): LogManager => LogManager.open({ logDirs: [dir], disk: new NodeDisk(), clock, defaults: { ...RAFT_LOG_CONFIG, retentionMs: 1 } });
    let manager = open();
    let log = FileRaftLog.openInLogManager(manager, { clock, logConfig: SMALL_SEGMENTS });
    fill(log, [1, 2, 2, 2, 2, 2]);
    log.storeSnapshot({ id: { endOffset: 6, epoch: 2 }, bytes: bytes('s6') });
    log.flush();
    const before = observe(log);
    clock.advance(60_000);
    manager.tick(clock.nowMs());
    expect(observe(log)).toEqual(before);
    manager.shutdown();
    manager = open();
    log = FileRaftLog.openInLogManager(manager, { clock });
    expect(observe(log)).toEqual(before);
    expect(log.unifiedLog.dir).toBe(path.join(dir, '__cluster_metadata-0'));
    manager.shutdown();
  });

  it('takes over a metadata log written before Raft (UnifiedLogMetadataLog, epoch 1, no epoch cache)', () => {
    const dir = tempDir('tributary-raft-');
    const clock = new ManualClock();
    const open = (): LogManager => LogManager.open({ logDirs: [dir], disk: new NodeDisk(), clock, defaults: RAFT_LOG_CONFIG });
    let manager = open();
    const before = UnifiedLogMetadataLog.open(manager, { localId: 1, time: clock });
    before.append(1, [bytes('topic a'), bytes('topic b')]);
    before.append(1, [bytes('config c')]);
    manager.shutdown();
    manager = open();
    const log = FileRaftLog.openInLogManager(manager, { clock });
    expect([log.startOffset(), log.endOffset(), log.flushedOffset(), log.lastFetchedEpoch()]).toEqual([0, 3, 3, 1]);
    expect(allRecords(log)).toEqual(['topic a', 'topic b', 'config c']);
    expect(log.endOffsetForEpoch(1)).toEqual({ epoch: 1, offset: 3 });
    log.append(2, [bytes('raft')], true);
    expect(log.epochAt(3)).toBe(2);
    manager.shutdown();
  });

  it('behaves as MemoryRaftLog through seeded operations and crashes', () => {
    for (let seed = 1; seed <= 12; seed++) runAgainstMemory(seed);
  });
});

/** The invariants of any reopened log. */
function expectConsistent(log: FileRaftLog, message: string): void {
  const start = log.startOffset();
  const end = log.endOffset();
  expect(start, message).toBeLessThanOrEqual(end);
  expect(log.flushedOffset(), message).toBeLessThanOrEqual(end);
  const snapshot = log.latestSnapshot();
  if (snapshot !== undefined) expect(start, message).toBe(snapshot.id.endOffset);
  let offset = start;
  for (const batch of log.read(start, Number.MAX_SAFE_INTEGER)) {
    expect(batch.baseOffset, message).toBe(offset);
    for (let i = 0; i < batch.records.length; i++) expect(log.epochAt(offset + i), message).toBe(batch.epoch);
    offset += batch.records.length;
  }
  expect(offset, message).toBe(end);
  if (end > start) expect(log.lastFetchedEpoch(), message).toBe(log.epochAt(end - 1));
}

/** One seeded run: the same operations on both logs; a crash rebuilds Memory from the file's survivors. */
function runAgainstMemory(seed: number): void {
  const random = new SeededRandom(seed);
  const disk = freshFaultDisk(seed);
  let file = openFileRaftLog(disk);
  const memory = new MemoryRaftLog();
  let epoch = 1;
  for (let step = 0; step < 60; step++) {
    const message = `SEED=${seed} step ${step}`;
    const choice = random.int(0, 9);
    if (choice <= 4) {
      if (random.chance(0.2)) epoch++;
      const records = Array.from({ length: random.int(1, 4) }, (_, i) => bytes(`s${step}r${i}`));
      const control = random.chance(0.1);
      expect(file.append(epoch, records, control), message).toBe(memory.append(epoch, records, control));
    } else if (choice === 5 && memory.endOffset() > memory.startOffset()) {
      const offset = random.int(memory.startOffset(), memory.endOffset());
      file.truncateTo(offset);
      memory.truncateTo(offset);
    } else if (choice === 6) {
      file.flush();
      memory.flush();
    } else if (choice === 7 && memory.endOffset() > memory.startOffset()) {
      const endOffset = random.int(memory.startOffset() + 1, memory.endOffset());
      const snapshot = { id: { endOffset, epoch: memory.epochAt(endOffset - 1) }, bytes: bytes(`snap${step}`) };
      file.storeSnapshot(snapshot);
      memory.storeSnapshot(snapshot);
    } else if (choice === 8) {
      file.unifiedLog.close();
      file = openFileRaftLog(disk);
    } else {
      file.flush();
      memory.flush();
      file = crashAndReopen(disk, file, 'strict');
    }
    expect(observe(file), message).toEqual(observe(memory));
    expect(file.flushedOffset(), message).toBeGreaterThanOrEqual(memory.flushedOffset());
    epoch = Math.max(epoch, memory.lastFetchedEpoch());
  }
}

describe('FileRaftLog batch size', () => {
  it('takes a batch of several MiB, as the metadata log did before Raft', () => {
    const log = openFileRaftLog(freshFaultDisk(), PARTITION_DIR, new ManualClock(), {});
    const big = Array.from({ length: 10 }, (_, i) => new Uint8Array(1024 * 1024).fill(i));
    expect(log.append(1, big, false)).toBe(9);
    const [batch] = log.read(0, 1);
    expect(batch!.records.map((record) => record[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('refuses a batch larger than a segment without changing the log or its epochs', () => {
    const log = openFileRaftLog(freshFaultDisk());
    log.append(1, [bytes('a')], false);
    expect(() => log.append(2, [new Uint8Array(2048)], false)).toThrow(/error code 18/);
    expect([log.endOffset(), log.lastFetchedEpoch()]).toEqual([1, 1]);
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 1, offset: 1 });
  });
});
