/**
 * Open file descriptors for segment and index files, opened on demand and bounded: a broker with
 * thousands of partitions must not hold three descriptors per segment. The least recently used
 * descriptor is closed when the bound is reached. All storage code is synchronous, so a
 * descriptor returned by {@link FileHandleCache.fd} stays valid until the next call into the
 * cache (never hold one across calls).
 */
import path from 'node:path';
import { DeferredSyncDisk } from '../io/deferred-sync-disk.js';
import type { Disk } from '../io/disk.js';

/** Default bound on descriptors kept open by one cache. */
export const DEFAULT_MAX_OPEN_FILES = 512;

export class FileHandleCache {
  readonly disk: Disk;
  readonly maxOpenFiles: number;
  // Map iteration order is insertion order: re-inserting on use makes the first key the LRU.
  private readonly open = new Map<string, number>();
  /** The open paths of each directory (resolved), so a partition's are released without a scan of all. */
  private readonly openByDir = new Map<string, Set<string>>();

  constructor(disk: Disk, maxOpenFiles = DEFAULT_MAX_OPEN_FILES) {
    if (!(maxOpenFiles >= 1)) throw new Error(`maxOpenFiles must be >= 1, got ${maxOpenFiles}`);
    this.disk = disk;
    this.maxOpenFiles = maxOpenFiles;
  }

  /** Number of descriptors currently open. */
  get openCount(): number {
    return this.open.size;
  }

  /**
   * A read-write descriptor for an existing file (or a new empty one when `create`).
   * Throws DiskError (ENOENT when missing and not `create`).
   */
  fd(filePath: string, create = false): number {
    const existing = this.open.get(filePath);
    if (existing !== undefined) {
      this.open.delete(filePath);
      this.open.set(filePath, existing);
      return existing;
    }
    while (this.open.size >= this.maxOpenFiles) {
      const lruPath = this.open.keys().next().value as string;
      this.release(lruPath);
    }
    const fd = this.disk.open(filePath, create ? 'create' : 'readWrite');
    this.open.set(filePath, fd);
    const dir = path.dirname(path.resolve(filePath));
    let paths = this.openByDir.get(dir);
    if (paths === undefined) this.openByDir.set(dir, paths = new Set());
    paths.add(filePath);
    return fd;
  }

  /**
   * fsync of an existing file. When the disk defers its fsyncs (a clean shutdown's
   * DeferredSyncDisk batch) and the file is not open, its path is noted instead: a shutdown of
   * 50,000 written partitions otherwise opened every .log file again (this cache keeps
   * {@link DEFAULT_MAX_OPEN_FILES}) only to fsync it later. Throws DiskError.
   */
  fsync(filePath: string): void {
    const disk = this.disk;
    if (disk instanceof DeferredSyncDisk && disk.deferring && !this.open.has(filePath)) {
      disk.deferFsyncOf(filePath);
      return;
    }
    disk.fsync(this.fd(filePath));
  }

  /** Closes the descriptor of `filePath` if open (before a rename or delete of that file). */
  release(filePath: string): void {
    const fd = this.open.get(filePath);
    if (fd === undefined) return;
    this.open.delete(filePath);
    const dir = path.dirname(path.resolve(filePath));
    const paths = this.openByDir.get(dir);
    if (paths !== undefined) {
      paths.delete(filePath);
      if (paths.size === 0) this.openByDir.delete(dir);
    }
    this.closeQuietly(fd);
  }

  /**
   * Closes every descriptor of a file directly in `dir` (a partition directory, before it is
   * renamed or deleted): O(its open files), not O(all open files).
   */
  releaseDirectory(dir: string): void {
    const paths = this.openByDir.get(path.resolve(dir));
    if (paths === undefined) return;
    for (const filePath of [...paths]) this.release(filePath);
  }

  /** Closes everything. */
  closeAll(): void {
    for (const fd of this.open.values()) this.closeQuietly(fd);
    this.open.clear();
    this.openByDir.clear();
  }

  private closeQuietly(fd: number): void {
    try {
      this.disk.close(fd);
    } catch {
      // A failing close loses nothing we rely on: durability comes from fsync, never close.
    }
  }
}
