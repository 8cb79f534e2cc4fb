/**
 * What of a partition directory must be fsynced before its log may claim its files are durable
 * (a flush, a roll or a truncation to a new start moving the recovery point): the directory's own
 * entries (segment files made or removed since the last fsync), and, for a log created with its
 * sync deferred (LogManager.getOrCreateLogs 'first-flush'), the partition directory's entry in its
 * log directory, where one fsync serves every log created before it (LogDirectory.syncEntriesUpTo);
 * and the partition's leader epoch checkpoint when it holds a deferred change (its epochs of
 * offsets below the recovery point must be on disk: recovery reads back only the active
 * segment's, leader-epoch-file-cache.ts).
 */
import type { Disk } from '../io/disk.js';
import type { LogDirectory } from './log-directory.js';

/** A file of the partition directory written late (LeaderEpochFileCache's deferred writes). */
export interface DeferredCheckpoint {
  /**
   * Writes what is pending, file fsynced and renamed into place, leaving the directory fsync to
   * the caller when `syncDirectory` is false; true when it wrote. Throws DiskError.
   */
  flush(syncDirectory: boolean): boolean;
}

/**
 * Who hears that a segment made a pending file (LogSegment.onFileMade): the owning log's
 * PartitionDirectorySync itself, an object the log holds anyway, rather than a closure per
 * segment (96 bytes, issue 15).
 */
export interface FileMadeListener {
  /** The directory has an entry not fsynced yet. */
  markDirty(): void;
}

export class PartitionDirectorySync implements FileMadeListener {
  /** Entries of the partition directory not fsynced yet. */
  private dirty: boolean;
  /** The ticket of the partition directory's entry while not durable (LogDirectory.noteEntryCreated), else 0. */
  private pendingEntry: number;
  /** The leader epoch checkpoint flushed with the directory (UnifiedLog.setLeaderEpochCheckpoint). */
  checkpoint: DeferredCheckpoint | null = null;

  /**
   * `deferred`: the directory was just made and its entry in the log directory is not durable
   * yet. Its own entries are: it holds no file until one is made, and every file made in it
   * marks it dirty ({@link markDirty}), so an empty directory costs no fsync of its own.
   */
  constructor(
    private readonly disk: Pick<Disk, 'fsyncDir'>,
    private readonly dir: string,
    private readonly logDirectory: LogDirectory,
    deferred: boolean,
  ) {
    this.dirty = false;
    this.pendingEntry = deferred ? logDirectory.noteEntryCreated() : 0;
  }

  /** A file was created or deleted in the partition directory. */
  markDirty(): void {
    this.dirty = true;
  }

  /** Makes what is pending durable (at most one fsync of each directory). Throws DiskError. */
  sync(): void {
    if (this.checkpoint?.flush(false) === true) this.dirty = true;
    if (this.dirty) {
      this.disk.fsyncDir(this.dir);
      this.dirty = false;
    }
    if (this.pendingEntry !== 0) {
      this.logDirectory.syncEntriesUpTo(this.disk, this.pendingEntry);
      this.pendingEntry = 0;
    }
  }
}
