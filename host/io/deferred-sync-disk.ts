/**
 * A {@link Disk} that can defer durability: between {@link DeferredSyncDisk.defer} and
 * {@link DeferredSyncDisk.commit}, fsyncs of files and directories cost nothing and renames and
 * deletes wait; the commit then makes all of it durable at once, in an order that keeps every
 * crash-safety promise the callers made one fsync at a time.
 *
 * Why: a clean shutdown of 50,000 written partitions made some seven fsyncs per partition (the
 * .log, two indexes, the producer-state snapshot and its directory, the leader epoch checkpoint,
 * the partition directory), 350,000 fsyncs of about 1 ms each, one after the other. The commit
 * makes the same state durable with two `syncfs(2)` calls per log directory (Linux, through
 * coreutils' `sync --file-system`), whatever the number of files (from
 * {@link SYNC_FILE_SYSTEM_MIN_FSYNCS} deferred fsyncs on; fewer are replayed one by one).
 *
 * The commit, in three phases (what a crash in each phase leaves is what a crash in the middle of
 * the same calls made one at a time could have left, never less):
 * 1. every file written so far becomes durable (content and size): `syncFileSystem` of each root,
 *    or without it each file that was fsynced during the batch (opened again by path);
 * 2. the renames and deletes, in the order they were asked for: each file a rename publishes
 *    (a `.tmp` written and fsynced, then renamed over a checkpoint) is durable before its new
 *    name is, so a crash still leaves the old or the new content, never an empty file; and a
 *    file deleted after a newer one replaced it (an old producer snapshot) goes after it;
 * 3. the directories become durable: `syncFileSystem` of each root again, or each directory that
 *    was fsynced or touched by a rename or delete, in order.
 * While deferring, a call naming a path a waiting rename or delete involves (reading a checkpoint
 * just replaced, say) first settles the waiting operations up to the last one involving it, one
 * at a time as without deferral; `list` shows the waiting renames and deletes as done.
 *
 * Errors: calls made while deferring throw as usual; the commit throws the first
 * {@link DiskError} (then nothing can be assumed durable: the caller takes its directories
 * offline, and without the clean-shutdown marker the next start recovers, as after a crash).
 */
import * as path from 'node:path';
import { type Disk, DiskError, type OpenMode } from './disk.js';

/**
 * Fewer deferred fsyncs than this are replayed one by one rather than by syncfs: syncfs also
 * writes back every other process's dirty pages on that file system (0.4 s seen on a busy shared
 * machine, where a clean stop of an idle broker needs a handful of fsyncs of 1 ms).
 */
export const SYNC_FILE_SYSTEM_MIN_FSYNCS = 64;

/** A rename (`to` set) or delete (`to` null) waiting for the commit. */
interface WaitingOperation {
  /** Position in the batch's order, from 0. */
  readonly sequence: number;
  readonly from: string;
  readonly to: string | null;
  /** Done early by a settle (then skipped by the commit). */
  done: boolean;
}

/** What one batch collected. Never replaced, only emptied (see the note on Object.create below). */
interface Batch {
  active: boolean;
  /** Paths of the files fsynced while deferring, in order. */
  readonly files: Set<string>;
  /** Directories fsynced, or named by a waiting rename or delete, in order. */
  readonly directories: Set<string>;
  readonly waiting: WaitingOperation[];
  /** Operations waiting[0..settled) are done (a settle runs a prefix). */
  settled: number;
  /** The last waiting operation naming each path (from or to): settles look up here, not scan. */
  readonly lastByPath: Map<string, WaitingOperation>;
  /** The waiting operations naming a file of each directory, in order (for `list`). */
  readonly byDirectory: Map<string, WaitingOperation[]>;
}

/**
 * Wraps a disk; passes every call through unless deferring. State lives in one `batch` object
 * that is mutated, never reassigned, so that views made with `Object.create(disk)` (LogStorage's
 * producer-state disk) share it.
 */
export class DeferredSyncDisk implements Disk {
  private readonly batch: Batch = {
    active: false, files: new Set(), directories: new Set(), waiting: [], settled: 0, lastByPath: new Map(), byDirectory: new Map(),
  };
  /** Path of each descriptor opened through this disk (fsync by descriptor is replayed by path). */
  private readonly openPaths = new Map<number, string>();

  /** @param minFsyncsForSyncFileSystem see {@link SYNC_FILE_SYSTEM_MIN_FSYNCS} (tests lower it) */
  constructor(readonly inner: Disk, private readonly minFsyncsForSyncFileSystem = SYNC_FILE_SYSTEM_MIN_FSYNCS) {}

  /** True between {@link defer} and {@link commit}. */
  get deferring(): boolean {
    return this.batch.active;
  }

  /** Starts deferring fsyncs, renames and deletes. @throws Error when already deferring (a bug) */
  defer(): void {
    if (this.batch.active) throw new Error('DeferredSyncDisk.defer: already deferring');
    this.batch.active = true;
  }

  /**
   * Makes everything done since {@link defer} durable (the three phases above) and stops
   * deferring, also when it throws. `roots` are the directories under which the deferred files
   * lie (the log directories): each is synced whole when the disk can. @throws DiskError
   */
  commit(roots: readonly string[]): void {
    const batch = this.batch;
    if (!batch.active) return;
    batch.active = false;
    try {
      const whole = batch.files.size + batch.directories.size >= this.minFsyncsForSyncFileSystem && this.syncRoots(roots);
      for (const file of batch.files) {
        if (!whole || !isUnderAny(file, roots)) this.fsyncPath(file);
      }
      for (const operation of batch.waiting) if (!operation.done) this.apply(operation);
      const wholeAgain = whole && this.syncRoots(roots);
      for (const directory of batch.directories) {
        if ((!wholeAgain || !isUnderAny(directory, roots)) && this.inner.isDirectory(directory)) this.inner.fsyncDir(directory);
      }
    } finally {
      batch.files.clear();
      batch.directories.clear();
      batch.waiting.length = 0;
      batch.settled = 0;
      batch.lastByPath.clear();
      batch.byDirectory.clear();
    }
  }

  open(filePath: string, mode: OpenMode): number {
    this.settle(filePath);
    const fd = this.inner.open(filePath, mode);
    this.openPaths.set(fd, filePath);
    return fd;
  }

  close(fd: number): void {
    this.openPaths.delete(fd);
    this.inner.close(fd);
  }

  read(fd: number, target: Uint8Array, targetOffset: number, length: number, position: number): number {
    return this.inner.read(fd, target, targetOffset, length, position);
  }

  write(fd: number, data: Uint8Array, position: number): void {
    this.inner.write(fd, data, position);
  }

  fsync(fd: number): void {
    const filePath = this.openPaths.get(fd);
    if (!this.batch.active || filePath === undefined) {
      this.inner.fsync(fd);
      return;
    }
    this.batch.files.add(filePath);
  }

  /** While deferring: `filePath` (an existing file) is fsynced by the commit, as by {@link fsync} of a descriptor of it. @throws Error when not deferring (a bug) */
  deferFsyncOf(filePath: string): void {
    if (!this.batch.active) throw new Error('DeferredSyncDisk.deferFsyncOf: not deferring');
    this.batch.files.add(filePath);
  }

  fileSize(fd: number): number {
    return this.inner.fileSize(fd);
  }

  truncate(fd: number, length: number): void {
    this.inner.truncate(fd, length);
  }

  size(filePath: string): number {
    this.settle(filePath);
    return this.inner.size(filePath);
  }

  exists(filePath: string): boolean {
    this.settle(filePath);
    return this.inner.exists(filePath);
  }

  rename(from: string, to: string): void {
    if (!this.batch.active) {
      this.inner.rename(from, to);
      return;
    }
    this.wait(from, to);
  }

  delete(filePath: string): void {
    if (!this.batch.active) {
      this.inner.delete(filePath);
      return;
    }
    this.wait(filePath, null);
  }

  list(dir: string): string[] {
    const names = this.inner.list(dir);
    const waiting = this.batch.byDirectory.get(dir);
    if (waiting === undefined) return names;
    const shown = new Set(names);
    for (const { from, to, done } of waiting) {
      if (done) continue;
      if (path.dirname(from) === dir) shown.delete(path.basename(from));
      if (to !== null && path.dirname(to) === dir) shown.add(path.basename(to));
    }
    return [...shown].sort();
  }

  isDirectory(filePath: string): boolean {
    this.settle(filePath);
    return this.inner.isDirectory(filePath);
  }

  mkdir(dir: string): void {
    this.inner.mkdir(dir);
  }

  fsyncDir(dir: string): void {
    if (!this.batch.active) {
      this.inner.fsyncDir(dir);
      return;
    }
    this.batch.directories.add(dir);
  }

  syncFileSystem(dir: string): void {
    if (this.inner.syncFileSystem === undefined) throw new DiskError('ENOTSUP', 'syncfs', dir);
    this.inner.syncFileSystem(dir);
  }

  // ---- internals ----

  /** syncFileSystem of every root; false when the disk cannot (then the caller syncs file by file). */
  private syncRoots(roots: readonly string[]): boolean {
    if (this.inner.syncFileSystem === undefined || roots.length === 0) return false;
    try {
      for (const root of roots) this.inner.syncFileSystem(root);
    } catch (error) {
      if (error instanceof DiskError && error.code === 'ENOTSUP') return false;
      throw error;
    }
    return true;
  }

  /** fsync of a file by path; one deleted meanwhile needs none. */
  private fsyncPath(filePath: string): void {
    if (!this.inner.exists(filePath)) return;
    const fd = this.inner.open(filePath, 'readWrite');
    try {
      this.inner.fsync(fd);
    } finally {
      this.inner.close(fd);
    }
  }

  private apply({ from, to }: WaitingOperation): void {
    if (to === null) this.inner.delete(from);
    else this.inner.rename(from, to);
  }

  /** Queues a rename (`to` set) or delete, indexed by path and directory. */
  private wait(from: string, to: string | null): void {
    const batch = this.batch;
    const operation: WaitingOperation = { sequence: batch.waiting.length, from, to, done: false };
    batch.waiting.push(operation);
    for (const filePath of to === null ? [from] : [from, to]) {
      batch.lastByPath.set(filePath, operation);
      const directory = path.dirname(filePath);
      batch.directories.add(directory);
      const inDirectory = batch.byDirectory.get(directory);
      if (inDirectory === undefined) batch.byDirectory.set(directory, [operation]);
      else if (inDirectory[inDirectory.length - 1] !== operation) inDirectory.push(operation);
    }
  }

  /**
   * A call names `filePath`: the waiting operations up to the last one involving it are done
   * now, each as it would have been without deferral (a renamed file fsynced first, the
   * directories after).
   */
  private settle(filePath: string): void {
    const batch = this.batch;
    const last = batch.lastByPath.get(filePath);
    if (last === undefined || last.done) return;
    for (; batch.settled <= last.sequence; batch.settled++) {
      const operation = batch.waiting[batch.settled]!;
      operation.done = true;
      if (operation.to !== null && batch.files.delete(operation.from)) this.fsyncPath(operation.from);
      this.apply(operation);
      this.inner.fsyncDir(path.dirname(operation.from));
      if (operation.to !== null && path.dirname(operation.to) !== path.dirname(operation.from)) this.inner.fsyncDir(path.dirname(operation.to));
    }
  }
}

/** True when `filePath` is `root` or lies below it, for one of `roots`. */
function isUnderAny(filePath: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const relative = path.relative(root, filePath);
    return !relative.startsWith('..') && !path.isAbsolute(relative);
  });
}
