/**
 * One entry of `log.dirs` and whether it is usable. A disk error (EIO, a failed fsync, ...) in
 * any log of the directory takes the whole directory offline, as Kafka's LogDirFailureChannel
 * does: every log in it answers KAFKA_STORAGE_ERROR (56) until the broker restarts, because after
 * a failed write or fsync nothing the page cache says about those files can be trusted.
 *
 * An ENOSPC on append whose partial write was rolled back does not take it offline: the directory
 * is *full* (that append failed with KAFKA_STORAGE_ERROR, the log is as before) until an append
 * in it succeeds again. Readiness (`/ready`) watches both conditions through {@link watch}.
 */
export type LogDirCondition = 'ONLINE' | 'LOG_DIR_FULL' | 'LOG_DIR_OFFLINE';

/** Told of every change of a directory's condition, with the error that caused it (none for ONLINE). */
export type LogDirWatcher = (directory: LogDirectory, condition: LogDirCondition, reason: unknown) => void;

export class LogDirectory {
  readonly path: string;
  /** Called once when the directory goes offline (replication uses it to give up leadership). */
  onOffline: ((directory: LogDirectory, reason: unknown) => void) | undefined;
  private offlineReason: unknown = undefined;
  private offline = false;
  private fullReason: unknown = undefined;
  private full = false;
  private readonly watchers: LogDirWatcher[] = [];
  /** Partition directories made in this directory so far whose entry may not be durable (a counter). */
  private createdEntries = 0;
  /** {@link createdEntries} as it was at the last fsync of this directory: those entries are durable. */
  private durableEntries = 0;

  constructor(dirPath: string) {
    this.path = dirPath;
  }

  /**
   * Notes that a partition directory was just made in this directory without fsyncing it (a log
   * created with its directory sync deferred to its first flush). Returns its ticket for
   * {@link syncEntriesUpTo}.
   */
  noteEntryCreated(): number {
    return ++this.createdEntries;
  }

  /**
   * Makes every entry noted up to `ticket` durable: one fsync of this directory, unless an fsync
   * since the entry was noted covered it already (so many logs flushed in one turn share one).
   * Throws DiskError.
   */
  syncEntriesUpTo(disk: { fsyncDir(dir: string): void }, ticket: number): void {
    if (ticket <= this.durableEntries) return;
    const covered = this.createdEntries;
    disk.fsyncDir(this.path);
    this.durableEntries = covered;
  }

  /** An fsync of this directory just completed (for another reason): every entry noted so far is durable. */
  noteEntriesSynced(): void {
    this.noteEntriesSyncedUpTo(this.createdEntries);
  }

  /** The ticket of the last entry noted: an fsync begun now covers the entries up to it. */
  get lastEntryTicket(): number {
    return this.createdEntries;
  }

  /** An fsync begun when {@link lastEntryTicket} was `ticket` completed: the entries up to it are durable. */
  noteEntriesSyncedUpTo(ticket: number): void {
    this.durableEntries = Math.max(this.durableEntries, ticket);
  }

  get isOffline(): boolean {
    return this.offline;
  }

  /** True while the last append in this (online) directory failed with ENOSPC. */
  get isFull(): boolean {
    return this.full;
  }

  /** The current condition: offline wins over full. */
  get condition(): LogDirCondition {
    return this.offline ? 'LOG_DIR_OFFLINE' : this.full ? 'LOG_DIR_FULL' : 'ONLINE';
  }

  /** The error that took the directory offline, or else the ENOSPC that made it full, if any. */
  get reason(): unknown {
    return this.offline ? this.offlineReason : this.fullReason;
  }

  /** Adds a watcher of condition changes (called synchronously on each transition). */
  watch(watcher: LogDirWatcher): void {
    this.watchers.push(watcher);
  }

  /** Takes the directory offline (idempotent). */
  markOffline(reason: unknown): void {
    if (this.offline) return;
    this.offline = true;
    this.offlineReason = reason;
    this.full = false;
    this.fullReason = undefined;
    this.onOffline?.(this, reason);
    this.notify(reason);
  }

  /** An append failed with ENOSPC and was rolled back: the directory is full (idempotent). */
  markFull(reason: unknown): void {
    if (this.offline || this.full) return;
    this.full = true;
    this.fullReason = reason;
    this.notify(reason);
  }

  /** An append succeeded: a full directory has room again (cheap no-op otherwise). */
  markWritable(): void {
    if (!this.full) return;
    this.full = false;
    this.fullReason = undefined;
    this.notify(undefined);
  }

  private notify(reason: unknown): void {
    for (const watcher of this.watchers) watcher(this, this.condition, reason);
  }
}
