/**
 * One entry of `log.dirs` and whether it is usable. A disk error (EIO, a failed fsync, ...) in
 * any log of the directory takes the whole directory offline, as Kafka's LogDirFailureChannel
 * does: every log in it answers KAFKA_STORAGE_ERROR (56) until the broker restarts, because after
 * a failed write or fsync nothing the page cache says about those files can be trusted.
 */
export class LogDirectory {
  readonly path: string;
  /** Called once when the directory goes offline (replication uses it to give up leadership). */
  onOffline: ((directory: LogDirectory, reason: unknown) => void) | undefined;
  private offlineReason: unknown = undefined;
  private offline = false;

  constructor(dirPath: string) {
    this.path = dirPath;
  }

  get isOffline(): boolean {
    return this.offline;
  }

  /** The error that took the directory offline, if any. */
  get reason(): unknown {
    return this.offlineReason;
  }

  /** Takes the directory offline (idempotent). */
  markOffline(reason: unknown): void {
    if (this.offline) return;
    this.offline = true;
    this.offlineReason = reason;
    this.onOffline?.(this, reason);
  }
}
