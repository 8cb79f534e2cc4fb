/**
 * Open file descriptors for segment and index files, opened on demand and bounded: a broker with
 * thousands of partitions must not hold three descriptors per segment. The least recently used
 * descriptor is closed when the bound is reached. All storage code is synchronous, so a
 * descriptor returned by {@link FileHandleCache.fd} stays valid until the next call into the
 * cache (never hold one across calls).
 */
import type { Disk } from '../io/disk.js';

/** Default bound on descriptors kept open by one cache. */
export const DEFAULT_MAX_OPEN_FILES = 512;

export class FileHandleCache {
  readonly disk: Disk;
  readonly maxOpenFiles: number;
  // Map iteration order is insertion order: re-inserting on use makes the first key the LRU.
  private readonly open = new Map<string, number>();

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
      const [lruPath, lruFd] = this.open.entries().next().value as [string, number];
      this.open.delete(lruPath);
      this.closeQuietly(lruFd);
    }
    const fd = this.disk.open(filePath, create ? 'create' : 'readWrite');
    this.open.set(filePath, fd);
    return fd;
  }

  /** Closes the descriptor of `filePath` if open (before a rename or delete of that file). */
  release(filePath: string): void {
    const fd = this.open.get(filePath);
    if (fd === undefined) return;
    this.open.delete(filePath);
    this.closeQuietly(fd);
  }

  /** Closes every descriptor whose path starts with `prefix` (a partition directory). */
  releaseUnder(prefix: string): void {
    for (const p of [...this.open.keys()]) if (p.startsWith(prefix)) this.release(p);
  }

  /** Closes everything. */
  closeAll(): void {
    for (const fd of this.open.values()) this.closeQuietly(fd);
    this.open.clear();
  }

  private closeQuietly(fd: number): void {
    try {
      this.disk.close(fd);
    } catch {
      // A failing close loses nothing we rely on: durability comes from fsync, never close.
    }
  }
}
