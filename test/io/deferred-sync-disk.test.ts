/**
 * DeferredSyncDisk (host/io/deferred-sync-disk.ts) over the fault-injecting disk: a batch of what
 * a clean shutdown writes (a checkpoint replaced atomically, a producer snapshot added and an old
 * one deleted, a segment's appended bytes fsynced, a new file in a new directory) is crashed at
 * every call, with syncfs and without it (ENOTSUP: the commit fsyncs one by one), and what
 * survives a power loss is what the same calls made without deferral could have left.
 */
import { describe, expect, it } from 'vitest';
import { DeferredSyncDisk } from '../../host/io/deferred-sync-disk.js';
import { writeFileAtomically } from '../../host/io/disk.js';
import { FaultDisk, SimulatedCrash } from '../../host/io/fault-disk.js';
import { FileHandleCache } from '../../host/log/file-handle-cache.js';

const ROOT = '/data';

function text(disk: FaultDisk, file: string): string | undefined {
  return disk.peek(file)?.toString('utf8');
}

/** The state before the batch, all durable: a checkpoint, an old snapshot, a segment with one batch. */
function fresh(seed: number, syncfs: boolean): FaultDisk {
  const disk = new FaultDisk(seed);
  disk.mkdir(`${ROOT}/p`);
  writeFileAtomically(disk, `${ROOT}/checkpoint`, Buffer.from('old checkpoint'));
  writeFileAtomically(disk, `${ROOT}/p/1.snapshot`, Buffer.from('old snapshot'));
  const fd = disk.open(`${ROOT}/p/0.log`, 'create');
  disk.write(fd, Buffer.from('batch1;'), 0);
  disk.close(fd);
  disk.syncAll();
  if (!syncfs) disk.faultRule = (op) => (op.kind === 'syncFileSystem' ? { code: 'ENOTSUP' } : undefined);
  return disk;
}

/** What a clean shutdown does to these files, through `disk` while it defers. */
function shutdownWrites(disk: DeferredSyncDisk): void {
  writeFileAtomically(disk, `${ROOT}/checkpoint`, Buffer.from('new checkpoint'), false);
  writeFileAtomically(disk, `${ROOT}/p/2.snapshot`, Buffer.from('new snapshot'), false);
  disk.fsyncDir(`${ROOT}/p`);
  expect(disk.list(`${ROOT}/p`)).toEqual(['0.log', '1.snapshot', '2.snapshot']);
  disk.delete(`${ROOT}/p/1.snapshot`);
  expect(disk.list(`${ROOT}/p`)).toEqual(['0.log', '2.snapshot']);
  const log = disk.open(`${ROOT}/p/0.log`, 'readWrite');
  disk.write(log, Buffer.from('batch2;'), 7);
  disk.fsync(log);
  disk.close(log);
  disk.mkdir(`${ROOT}/q`);
  const made = disk.open(`${ROOT}/q/0.log`, 'create');
  disk.write(made, Buffer.from('q;'), 0);
  disk.fsync(made);
  disk.close(made);
  disk.fsyncDir(`${ROOT}/q`);
  disk.fsyncDir(ROOT);
}

/** Runs the batch and its commit on a fresh disk, crashing at call `crashAt` (0: no crash); true when the commit returned. */
function round(seed: number, syncfs: boolean, crashAt: number, mode: 'strict' | 'torn'): { disk: FaultDisk; committed: boolean } {
  const disk = fresh(seed, syncfs);
  const deferred = new DeferredSyncDisk(disk, syncfs ? 0 : undefined);
  if (crashAt > 0) disk.crashAfter(crashAt);
  let committed = false;
  try {
    deferred.defer();
    shutdownWrites(deferred);
    deferred.commit([ROOT]);
    committed = true;
  } catch (error) {
    if (!(error instanceof SimulatedCrash)) throw error;
  }
  disk.powerLoss(mode);
  return { disk, committed };
}

describe('DeferredSyncDisk', () => {
  for (const syncfs of [true, false]) {
    it(`leaves old or new content of every file after a crash at any call (${syncfs ? 'syncfs' : 'fsync one by one'}), and all new once committed`, () => {
      const calls = (() => {
        const disk = fresh(1, syncfs);
        const before = disk.operationCount;
        const deferred = new DeferredSyncDisk(disk, syncfs ? 0 : undefined);
        deferred.defer();
        shutdownWrites(deferred);
        deferred.commit([ROOT]);
        return disk.operationCount - before;
      })();
      let crashedRounds = 0;
      for (let crashAt = 0; crashAt <= calls + 1; crashAt++) {
        for (const mode of ['strict', 'torn'] as const) {
          for (let seed = 1; seed <= (mode === 'torn' ? 4 : 1); seed++) {
            const { disk, committed } = round(seed, syncfs, crashAt, mode);
            const where = `crash at call ${crashAt} of ${calls}, ${mode}, seed ${seed}`;
            expect(['old checkpoint', 'new checkpoint'], where).toContain(text(disk, `${ROOT}/checkpoint`));
            // The old snapshot goes only after the new one is in place.
            const snapshots = [text(disk, `${ROOT}/p/1.snapshot`), text(disk, `${ROOT}/p/2.snapshot`)];
            expect(snapshots.includes('old snapshot') || snapshots[1] === 'new snapshot', where).toBe(true);
            if (snapshots[1] !== undefined) expect(snapshots[1], where).toBe('new snapshot');
            expect(text(disk, `${ROOT}/p/0.log`)?.startsWith('batch1;'), where).toBe(true);
            if (!committed) {
              crashedRounds++;
              continue;
            }
            expect(text(disk, `${ROOT}/checkpoint`), where).toBe('new checkpoint');
            expect(snapshots, where).toEqual([undefined, 'new snapshot']);
            expect(text(disk, `${ROOT}/p/0.log`), where).toBe('batch1;batch2;');
            expect(text(disk, `${ROOT}/q/0.log`), where).toBe('q;');
          }
        }
      }
      expect(crashedRounds).toBeGreaterThan(calls);
    });
  }

  it('makes a replaced file durable before a later call reads it back while deferring', () => {
    const disk = fresh(1, false);
    const deferred = new DeferredSyncDisk(disk);
    deferred.defer();
    writeFileAtomically(deferred, `${ROOT}/checkpoint`, Buffer.from('new checkpoint'), false);
    expect(deferred.exists(`${ROOT}/checkpoint.tmp`)).toBe(false);
    disk.powerLoss('strict');
    expect(text(disk, `${ROOT}/checkpoint`)).toBe('new checkpoint');
  });

  it('passes every call through when not deferring', () => {
    const disk = fresh(1, true);
    const deferred = new DeferredSyncDisk(disk, 0);
    writeFileAtomically(deferred, `${ROOT}/checkpoint`, Buffer.from('new checkpoint'));
    deferred.delete(`${ROOT}/p/1.snapshot`);
    deferred.fsyncDir(`${ROOT}/p`);
    disk.powerLoss('strict');
    expect(text(disk, `${ROOT}/checkpoint`)).toBe('new checkpoint');
    expect(disk.exists(`${ROOT}/p/1.snapshot`)).toBe(false);
    expect(deferred.deferring).toBe(false);
  });

  it('notes the fsync of a file the handle cache has closed instead of opening it again, and the commit makes it durable', () => {
    const disk = fresh(1, false);
    const deferred = new DeferredSyncDisk(disk);
    const files = new FileHandleCache(deferred, 1);
    disk.write(files.fd(`${ROOT}/p/0.log`), Buffer.from('batch2;'), 7);
    files.fd(`${ROOT}/checkpoint`); // evicts the .log's descriptor
    const opens: string[] = [];
    disk.faultRule = (op) => {
      if (op.kind === 'open') opens.push(op.path);
      return op.kind === 'syncFileSystem' ? { code: 'ENOTSUP' } : undefined;
    };
    deferred.defer();
    files.fsync(`${ROOT}/p/0.log`);
    expect(opens).toEqual([]);
    files.closeAll();
    deferred.commit([ROOT]);
    disk.powerLoss('strict');
    expect(text(disk, `${ROOT}/p/0.log`)).toBe('batch1;batch2;');
  });
});
