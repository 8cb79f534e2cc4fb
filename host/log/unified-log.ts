/**
 * Kafka's UnifiedLog for one partition: an ordered list of segments, the last one active.
 *
 * ```
 *  logStartOffset          recoveryPoint      highWatermark       logEndOffset
 *       |  seg 0  |  seg 1  |  seg 2 ... |  active segment  |
 * ```
 * Invariants (asserted): logStartOffset <= highWatermark <= logEndOffset; recoveryPoint <=
 * logEndOffset; segments sorted by base offset, only the last one appended to.
 *
 * Appends: the WebAssembly core validates and stamps the Produce blob (one call), the stamped bytes
 * are written to the active segment as they are, and index entries follow the per-batch rule of
 * LogSegment. Flush policy (Kafka's): by default fsync happens only at segment roll and clean
 * shutdown, leaving durability to replication and the page cache; `flush.messages` /
 * `flush.ms` add fsyncs, and `flush.messages=1` fsyncs before every acknowledgement.
 *
 * Disk errors never escape as exceptions: they become KAFKA_STORAGE_ERROR (56) and take the log
 * directory offline, except an ENOSPC on append whose partial write was rolled back, which fails
 * only that append (appends resume when space returns). A write that fails midway is truncated
 * away (or, if even that fails, recovery truncates it at the next start: it is never served).
 */
import * as path from 'node:path';
import { isDiskError } from '../io/disk.js';
import type { PreparedAppend } from '../wasm/core.js';
import { recompressForTopic } from './batch-recompression.js';
import { checkClientBatches } from './compressed-batch-validation.js';
import { validateRecords } from './record-validation.js';
import { prepareFollowerAppend } from './follower-append.js';
import { defaultGroupFlusher, type GroupFlusher, type GroupFlushTarget } from './group-flush.js';
import { hasDeletePolicy, type LogConfig } from './log-config.js';
import { LogDirectory } from './log-directory.js';
import { type DeferredCheckpoint, PartitionDirectorySync } from './partition-directory-sync.js';
import { loadSegments } from './log-loader.js';
import { type AppendResult, EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, LogErrorCode, type ReadResult } from './log-results.js';
import { type BatchPlacement, LogSegment, MAX_RELATIVE_OFFSET } from './log-segment.js';
import { findOffsetByTimestamp } from './offset-by-timestamp.js';
import { withEndTxnMarkers } from './end-txn-marker.js';
import { checkProducerAppend, type ProducerAppendState } from './producer-append.js';
import type { AppendOrigin } from './producer-state-manager.js';
import { freshReadBuffers, type ReadBuffers } from './read-buffer-pool.js';
import { floorSegmentIndex, leadingDeletableSegments, oldestWithin, shouldRollSegment } from './segment-list.js';
import type { StorageContext } from './storage-context.js';

export { type AppendResult, EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, LogErrorCode, MAX_TIMESTAMP, type ReadResult } from './log-results.js';

export interface UnifiedLogOptions {
  /** The partition directory `<log.dir>/<topic>-<partition>`; created if missing. */
  dir: string;
  topic: string;
  partition: number;
  config: LogConfig;
  context: StorageContext;
  /** The log directory this log lives in (shared offline state); default: a private one. */
  logDirectory?: LogDirectory;
  /** From recovery-point-offset-checkpoint; default 0 (recover everything after an unclean stop). */
  recoveryPoint?: number;
  /** From log-start-offset-checkpoint; default 0. */
  logStartOffset?: number;
  /** From replication-offset-checkpoint; default 0. */
  highWatermark?: number;
  /** True when the log directory had a clean-shutdown marker; skips recovery. */
  hadCleanShutdown?: boolean;
  /** Where flush-per-append logs queue their fsync (group-flush.ts); default the process's one. */
  groupFlusher?: GroupFlusher;
  /**
   * The caller just made `dir` and fsynced nothing: the log's directory entries become durable at
   * its first flush, roll or new start (partition-directory-sync.ts), not now. Only for logs that
   * committed metadata recreates at start-up if a power loss takes them. Default false.
   */
  deferDirectorySync?: boolean;
}

const EMPTY = Buffer.alloc(0);

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`UnifiedLog assertion failed: ${message}`);
}

export class UnifiedLog implements GroupFlushTarget {
  readonly topic: string;
  readonly partition: number;
  readonly dir: string;
  readonly logDirectory: LogDirectory;
  config: LogConfig;
  private readonly context: StorageContext;
  private segments: LogSegment[];
  private logStartOffsetValue: number;
  private highWatermarkValue: number;
  private recoveryPointValue: number;
  private lastFlushMs: number;
  /** What must be fsynced before a flush claims the files durable. */
  private readonly directorySync: PartitionDirectorySync;
  private closed = false;
  /** Settles `pendingFlush`; non-null while this log waits for the turn's group flush. */
  private settleFlush: ((errorCode: number) => void) | null = null;
  private pendingFlushValue: Promise<number> | null = null;
  /** High watermark asked for while a group flush is pending; applied once it succeeds. */
  private requestedHighWatermark = -1;
  private readonly groupFlusher: GroupFlusher | undefined;

  private constructor(options: UnifiedLogOptions, segments: LogSegment[]) {
    this.topic = options.topic;
    this.partition = options.partition;
    this.dir = options.dir;
    this.config = options.config;
    this.context = options.context;
    this.logDirectory = options.logDirectory ?? new LogDirectory(path.dirname(options.dir));
    this.segments = segments;
    this.logStartOffsetValue = Math.max(options.logStartOffset ?? 0, segments[0]!.baseOffset);
    this.recoveryPointValue = this.logEndOffset;
    this.highWatermarkValue = 0;
    this.lastFlushMs = options.context.clock.nowMs();
    this.groupFlusher = options.groupFlusher;
    this.directorySync = new PartitionDirectorySync(options.context.files.disk, this.dir, this.logDirectory, options.deferDirectorySync ?? false);
    for (const segment of segments) this.watchFiles(segment);
  }

  /** A file `segment` makes later (LogSegment.onFileMade) is fsynced into the directory by the next flush. */
  private watchFiles(segment: LogSegment): void {
    if (segment.hasPendingFiles) segment.onFileMade(this.directorySync);
  }

  /**
   * Opens (creating if needed) and recovers the log in `options.dir`. Throws DiskError when the
   * directory cannot be read (the caller takes the log directory offline).
   */
  static open(options: UnifiedLogOptions): UnifiedLog {
    const { segments } = loadSegments({
      dir: options.dir,
      context: options.context,
      config: options.config,
      recoveryPoint: options.recoveryPoint ?? 0,
      logStartOffset: options.logStartOffset ?? 0,
      hadCleanShutdown: options.hadCleanShutdown ?? false,
      nowMs: options.context.clock.nowMs(),
    });
    const log = new UnifiedLog(options, segments);
    if (log.logStartOffsetValue > log.logEndOffset) {
      // Records below the checkpointed log start offset are deleted anyway; start over there.
      log.truncateFullyAndStartAtUnsafe(log.logStartOffsetValue);
    }
    log.highWatermarkValue = Math.min(Math.max(options.highWatermark ?? 0, log.logStartOffsetValue), log.logEndOffset);
    return log;
  }

  get logStartOffset(): number {
    return this.logStartOffsetValue;
  }

  /** One past the last offset appended (the next offset to assign). */
  get logEndOffset(): number {
    return this.activeSegment.nextOffset;
  }

  get highWatermark(): number {
    return this.highWatermarkValue;
  }

  /** Offsets below this are fsynced (log and indexes). */
  get recoveryPoint(): number {
    return this.recoveryPointValue;
  }

  /** True when this log's directory is offline (every call answers KAFKA_STORAGE_ERROR). */
  get isOffline(): boolean {
    return this.logDirectory.isOffline;
  }

  /** Total bytes of all segment files. */
  get size(): number {
    let total = 0;
    for (const segment of this.segments) total += segment.size;
    return total;
  }

  get numberOfSegments(): number {
    return this.segments.length;
  }

  /** The segments, oldest first (read-only view for tests, the cleaner and metrics). */
  get logSegments(): readonly LogSegment[] {
    return this.segments;
  }

  get activeSegment(): LogSegment {
    return this.segments[this.segments.length - 1]!;
  }

  /**
   * Validates and appends a Produce `records` blob as the leader: the core checks every batch
   * (CRC, framing, records) and stamps base offsets from the log end offset, `leaderEpoch`, and
   * for LogAppendTime topics the broker time. Never throws for bad client bytes; errors:
   * CORRUPT_MESSAGE (2) / INVALID_RECORD (87) for bad batches, MESSAGE_TOO_LARGE (10) for a batch
   * above max.message.bytes, RECORD_LIST_TOO_LARGE (18) for a blob above segment.bytes,
   * KAFKA_STORAGE_ERROR (56) for disk failures. With `producerState`, the core's batch summaries
   * are checked against it after those checks and before the write (producer-append.ts):
   * OUT_OF_ORDER_SEQUENCE_NUMBER (45), INVALID_PRODUCER_EPOCH (47), or
   * for a retried duplicate errorCode 0 with the original offsets and nothing written; after the
   * write it records the appended batches. `origin` 'coordinator' (the broker's own writes) allows
   * control batches (transaction markers) and skips sequence checks (Kafka's AppendOrigin).
   * compression.type other than `producer`: client batches are recompressed (batch-recompression.ts).
   */
  appendAsLeader(records: Uint8Array, leaderEpoch: number, producerState?: ProducerAppendState, origin: AppendOrigin = 'client'): AppendResult {
    this.assertOpen();
    if (this.logDirectory.isOffline) return this.failedAppend(LogErrorCode.KAFKA_STORAGE_ERROR);
    if (records.length > this.config.segmentBytes) return this.failedAppend(LogErrorCode.RECORD_LIST_TOO_LARGE);
    const nowMs = this.context.clock.nowMs();
    const logAppendTimeMs = this.config.messageTimestampType === 'LogAppendTime' ? nowMs : -1;
    const prepared = this.context.core.prepareAppend(records, this.logEndOffset, leaderEpoch, logAppendTimeMs);
    if (prepared.errorCode !== LogErrorCode.NONE) return this.failedAppend(prepared.errorCode);
    if (prepared.validBytes !== records.length || prepared.batches.length === 0) return this.failedAppend(LogErrorCode.CORRUPT_MESSAGE);
    const sections = checkClientBatches(records, prepared.batches, this.config.maxMessageBytes, origin === 'coordinator');
    if (typeof sections === 'number') return this.failedAppend(sections);
    const bad = origin === 'client' ? validateRecords(records, prepared.batches, this.config, nowMs, this.topic, this.partition, sections) : null;
    if (bad !== null) return { ...this.failedAppend(bad.errorCode), errorMessage: bad.errorMessage, recordErrors: bad.recordErrors };
    const toWrite = origin === 'client' ? recompressForTopic(prepared, this.config, this.context.core, sections) : prepared;
    if (typeof toWrite === 'number') return this.failedAppend(toWrite);
    const batches = origin === 'coordinator' ? withEndTxnMarkers(records, toWrite.batches) : toWrite.batches;
    const refused = producerState && checkProducerAppend(producerState, batches, logAppendTimeMs, this.logStartOffsetValue, origin);
    if (refused) return refused;
    const errorCode = this.appendPrepared(toWrite, nowMs);
    if (errorCode !== LogErrorCode.NONE) return this.failedAppend(errorCode);
    producerState?.onAppended(batches);
    return {
      errorCode: LogErrorCode.NONE, baseOffset: prepared.firstOffset, lastOffset: prepared.lastOffset, logAppendTimeMs,
      logStartOffset: this.logStartOffsetValue, batches: toWrite.batches,
    };
  }

  /**
   * Appends batches that already carry their offsets (a follower copying its leader): validated
   * with the rules for stored batches (compacted batches allowed), not restamped. The first batch
   * must start at or after the log end offset. Errors as {@link appendAsLeader}, plus
   * OFFSET_OUT_OF_RANGE (1) when the offsets go backwards.
   */
  appendAsFollower(records: Uint8Array): AppendResult {
    this.assertOpen();
    if (this.logDirectory.isOffline) return this.failedAppend(LogErrorCode.KAFKA_STORAGE_ERROR);
    if (records.length > this.config.segmentBytes) return this.failedAppend(LogErrorCode.RECORD_LIST_TOO_LARGE);
    const prepared = prepareFollowerAppend(this.context.core, records, this.logEndOffset);
    if (typeof prepared === 'number') return this.failedAppend(prepared);
    const errorCode = this.appendPrepared(prepared, this.context.clock.nowMs());
    if (errorCode !== LogErrorCode.NONE) return this.failedAppend(errorCode);
    return {
      errorCode: LogErrorCode.NONE, baseOffset: prepared.firstOffset, lastOffset: prepared.lastOffset, logAppendTimeMs: -1,
      logStartOffset: this.logStartOffsetValue, batches: prepared.batches,
    };
  }

  /**
   * Whole batches from the one holding `fetchOffset` (which may start before it, as in Kafka), up
   * to `maxBytes` (the first whole even when larger, if `minOneMessage`), none with offsets at or
   * after `upperBoundOffset` (the high watermark for consumers, the log end for followers). One
   * segment at a time, as Kafka's read. `records` comes from `buffers` (default: fresh buffers the
   * caller may keep; a pool's are given back by the caller, read-buffer-pool.ts).
   * Errors: OFFSET_OUT_OF_RANGE (1) outside [logStartOffset, logEndOffset], KAFKA_STORAGE_ERROR (56).
   */
  read(fetchOffset: number, maxBytes: number, upperBoundOffset: number, minOneMessage: boolean, buffers: ReadBuffers = freshReadBuffers): ReadResult {
    this.assertOpen();
    if (this.logDirectory.isOffline) return { errorCode: LogErrorCode.KAFKA_STORAGE_ERROR, records: EMPTY };
    const logEndOffset = this.logEndOffset;
    if (fetchOffset < this.logStartOffsetValue || fetchOffset > logEndOffset) {
      return { errorCode: LogErrorCode.OFFSET_OUT_OF_RANGE, records: EMPTY };
    }
    const upperBound = Math.min(upperBoundOffset, logEndOffset);
    if (fetchOffset >= upperBound || (maxBytes <= 0 && !minOneMessage)) return { errorCode: LogErrorCode.NONE, records: EMPTY };
    try {
      for (let i = Math.max(0, this.floorSegmentIndex(fetchOffset)); i < this.segments.length; i++) {
        const segment = this.segments[i]!;
        if (segment.baseOffset >= upperBound) break;
        const records = segment.read(fetchOffset, maxBytes, upperBound, minOneMessage, buffers);
        if (records !== null) return { errorCode: LogErrorCode.NONE, records };
      }
    } catch (error) {
      return { errorCode: this.storageFailure(error), records: EMPTY };
    }
    return { errorCode: LogErrorCode.NONE, records: EMPTY };
  }

  /**
   * Kafka's fetchOffsetByTimestamp (ListOffsets): the first record at or after the log start
   * offset whose timestamp is >= `timestampMs`, as (offset, timestamp); null when none. The
   * special values LATEST_TIMESTAMP (-1), EARLIEST_TIMESTAMP (-2) and MAX_TIMESTAMP (-3) give
   * the log end offset, the log start offset, and the first record with the largest timestamp.
   * Records are decoded only for the one batch where the answer lies (CreateTime batches).
   * A disk error takes the directory offline and gives null (check {@link isOffline}).
   */
  fetchOffsetByTimestamp(timestampMs: number): { offset: number; timestamp: number } | null {
    this.assertOpen();
    if (this.logDirectory.isOffline) return null;
    if (timestampMs === LATEST_TIMESTAMP) return { offset: this.logEndOffset, timestamp: -1 };
    if (timestampMs === EARLIEST_TIMESTAMP) return { offset: this.logStartOffsetValue, timestamp: -1 };
    try {
      return findOffsetByTimestamp(this.segments, this.logStartOffsetValue, timestampMs);
    } catch (error) {
      this.storageFailure(error);
    }
    return null;
  }

  /**
   * Removes every batch from the one holding `offset` on (replication's truncation). The log
   * end offset becomes <= `offset` (less when `offset` falls inside a batch). A disk error takes
   * the directory offline.
   */
  truncateTo(offset: number): void {
    this.assertOpen();
    assert(Number.isSafeInteger(offset) && offset >= 0, `truncation offset ${offset}`);
    if (this.logDirectory.isOffline || offset >= this.logEndOffset) return;
    try {
      if (offset < this.segments[0]!.baseOffset) {
        this.truncateFullyAndStartAtUnsafe(offset);
        return;
      }
      const keep = this.floorSegmentIndex(offset);
      const removed = this.segments.splice(keep + 1);
      // Last first, durably, before the cut: no later segment may come back behind a cut or
      // missing one after a crash (an offset gap the loader would take for compaction).
      for (const segment of removed.reverse()) segment.deleteFiles();
      if (removed.length > 0) this.context.files.disk.fsyncDir(this.dir);
      const active = this.activeSegment;
      if (removed.length > 0) active.markActive();
      active.truncateTo(offset);
      this.context.files.disk.fsyncDir(this.dir);
      this.recoveryPointValue = Math.min(this.recoveryPointValue, this.logEndOffset);
      this.logStartOffsetValue = Math.min(this.logStartOffsetValue, this.logEndOffset);
      this.highWatermarkValue = Math.min(this.highWatermarkValue, this.logEndOffset);
    } catch (error) {
      this.storageFailure(error);
    }
    this.checkInvariants();
  }

  /**
   * Deletes everything and continues at `offset` as an empty log (a follower whose fetch offset
   * fell out of the leader's range). A disk error takes the directory offline.
   */
  truncateFullyAndStartAt(offset: number): void {
    this.assertOpen();
    assert(Number.isSafeInteger(offset) && offset >= 0, `new start offset ${offset}`);
    if (this.logDirectory.isOffline) return;
    try {
      this.truncateFullyAndStartAtUnsafe(offset);
    } catch (error) {
      this.storageFailure(error);
    }
  }

  /**
   * DeleteRecords: moves the log start offset up to `offset` and deletes the segments entirely
   * below it. Errors: OFFSET_OUT_OF_RANGE (1) when `offset` is above the high watermark,
   * KAFKA_STORAGE_ERROR (56).
   */
  deleteRecordsBefore(offset: number): number {
    this.assertOpen();
    if (this.logDirectory.isOffline) return LogErrorCode.KAFKA_STORAGE_ERROR;
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > this.highWatermarkValue) return LogErrorCode.OFFSET_OUT_OF_RANGE;
    if (offset <= this.logStartOffsetValue) return LogErrorCode.NONE;
    this.logStartOffsetValue = offset;
    try {
      this.deleteSegments(this.deletableSegments((_, next) => next !== undefined && next.baseOffset <= this.logStartOffsetValue));
    } catch (error) {
      return this.storageFailure(error);
    }
    return LogErrorCode.NONE;
  }

  /**
   * Sets the high watermark, clamped to [logStartOffset, logEndOffset]; returns the value set.
   * While a group flush is pending the value set stops at what was visible or flushed before
   * (records of a flush-per-append log become visible only once fsynced, as with the inline
   * flush); the rest is applied when the flush succeeds.
   */
  updateHighWatermark(offset: number): number {
    const target = Math.min(Math.max(offset, this.logStartOffsetValue), this.logEndOffset);
    if (this.pendingFlushValue !== null) {
      this.requestedHighWatermark = target;
      this.highWatermarkValue = Math.min(target, Math.max(this.highWatermarkValue, this.recoveryPointValue));
    } else {
      this.highWatermarkValue = target;
    }
    return this.highWatermarkValue;
  }

  /**
   * The group flush the records appended so far wait for (group-flush.ts): resolves with 0 once
   * they are fsynced, or 56 KAFKA_STORAGE_ERROR when the fsync failed (the directory is then
   * offline); null when nothing waits. Only appends that reach flush.messages create one.
   */
  get pendingFlush(): Promise<number> | null {
    return this.pendingFlushValue;
  }

  /** The turn's group flush (GroupFlusher): Kafka's flush of this log, then the waiting answers. */
  runGroupFlush(): void {
    if (this.pendingFlushValue === null || this.closed) return;
    let errorCode: number = LogErrorCode.NONE;
    if (this.logDirectory.isOffline) {
      errorCode = LogErrorCode.KAFKA_STORAGE_ERROR;
    } else {
      try {
        this.flushUnsafe(false);
      } catch (error) {
        if (!isDiskError(error)) this.finishGroupFlush(LogErrorCode.KAFKA_STORAGE_ERROR);
        errorCode = this.storageFailure(error);
      }
    }
    this.finishGroupFlush(errorCode);
  }

  /** New topic configuration; segment-shape settings apply from the next segment on. */
  updateConfig(config: LogConfig): void {
    this.config = config;
  }

  /**
   * fsyncs everything up to the log end offset and moves the recovery point there. The active
   * segment's index files are left to roll or close: recovery always rebuilds the active segment
   * after an unclean stop, so only its log bytes need to be durable. A disk error takes the
   * directory offline.
   */
  flush(): void {
    this.assertOpen();
    if (this.logDirectory.isOffline) return;
    try {
      this.flushUnsafe(false);
    } catch (error) {
      this.finishGroupFlush(LogErrorCode.KAFKA_STORAGE_ERROR);
      this.storageFailure(error);
      return;
    }
    // Everything appended is fsynced: a pending group flush has nothing left to do.
    this.finishGroupFlush(LogErrorCode.NONE);
  }

  /**
   * Time-driven housekeeping (LogManager.tick): flush.ms, and with `retention` (Kafka's
   * kafka-log-retention task, due every log.retention.check.interval.ms) retention.ms,
   * retention.bytes and the log start offset; all when the directory is online.
   * Returns the number of segments deleted.
   */
  maintain(nowMs: number, retention = true): number {
    this.assertOpen();
    if (this.logDirectory.isOffline) return 0;
    try {
      if (nowMs - this.lastFlushMs >= this.config.flushMs && this.logEndOffset > this.recoveryPointValue) this.flushUnsafe(false);
      return retention ? this.deleteOldSegments(nowMs) : 0;
    } catch (error) {
      this.storageFailure(error);
      return 0;
    }
  }

  /**
   * Kafka's deleteOldSegments: with cleanup.policy including `delete`, segments entirely older
   * than retention.ms (by their largest timestamp), the oldest segments while the log exceeds
   * retention.bytes, and always segments entirely below the log start offset. Only segments
   * entirely below the high watermark go; the active segment is never deleted (when everything
   * is deletable it rolls first). Returns the number deleted. Throws DiskError.
   */
  deleteOldSegments(nowMs: number): number {
    let deleted = this.deleteSegments(this.deletableSegments((_, next) => next !== undefined && next.baseOffset <= this.logStartOffsetValue));
    if (!hasDeletePolicy(this.config)) return deleted;
    const retentionMs = this.config.retentionMs;
    if (retentionMs >= 0) {
      deleted += this.deleteSegments(this.deletableSegments((segment) => nowMs - segment.largestTimestamp > retentionMs));
    }
    const retentionBytes = this.config.retentionBytes;
    if (retentionBytes >= 0) deleted += this.deleteSegments(this.deletableSegments(oldestWithin(this.size - retentionBytes)));
    return deleted;
  }

  /**
   * Flushes everything (indexes included) and releases memory and descriptors: a clean close.
   * Returns false when the directory is or went offline (then the close is not clean).
   */
  close(): boolean {
    if (this.closed) return !this.logDirectory.isOffline;
    let clean = !this.logDirectory.isOffline;
    if (clean) {
      try {
        this.flushUnsafe(true);
      } catch (error) {
        this.finishGroupFlush(LogErrorCode.KAFKA_STORAGE_ERROR);
        this.storageFailure(error);
        clean = false;
      }
    }
    this.finishGroupFlush(clean ? LogErrorCode.NONE : LogErrorCode.KAFKA_STORAGE_ERROR);
    for (const segment of this.segments) segment.close();
    this.closed = true;
    return clean;
  }

  /** Releases memory and descriptors without flushing (log deletion, offline directory). */
  closeWithoutFlush(): void {
    this.finishGroupFlush(LogErrorCode.KAFKA_STORAGE_ERROR);
    for (const segment of this.segments) segment.close();
    this.closed = true;
  }

  /**
   * Replaces closed segments by cleaned ones (LogCleaner), same base offsets, in order. The new
   * segments must already be in place on disk.
   */
  replaceSegments(replacements: Map<number, LogSegment>): void {
    this.segments = this.segments.map((segment, i) => {
      const replacement = replacements.get(segment.baseOffset);
      if (replacement === undefined) return segment;
      assert(i < this.segments.length - 1, 'the active segment is never replaced');
      segment.close();
      return replacement;
    });
  }

  /**
   * The partition's leader epoch checkpoint (Kafka's UnifiedLog.leaderEpochCache; ours is the
   * Partition's): its deferred writes are made durable by every flush, roll and clean close,
   * before the recovery point moves past them. Replaces an earlier one; null detaches.
   */
  setLeaderEpochCheckpoint(checkpoint: DeferredCheckpoint | null): void {
    this.directorySync.checkpoint = checkpoint;
  }

  /** Takes the directory offline for `error` when it is a DiskError (rethrows anything else). */
  storageFailure(error: unknown): number {
    if (!isDiskError(error)) throw error;
    this.logDirectory.markOffline(error);
    return LogErrorCode.KAFKA_STORAGE_ERROR;
  }

  // ---- internals ----

  private assertOpen(): void {
    assert(!this.closed, `log ${this.topic}-${this.partition} is closed`);
  }

  private checkInvariants(): void {
    assert(this.logStartOffsetValue <= this.logEndOffset, 'logStartOffset <= logEndOffset');
    assert(this.highWatermarkValue <= this.logEndOffset, 'highWatermark <= logEndOffset');
    assert(this.recoveryPointValue <= this.logEndOffset, 'recoveryPoint <= logEndOffset');
  }

  private failedAppend(errorCode: number): AppendResult {
    return { errorCode, baseOffset: -1, lastOffset: -1, logAppendTimeMs: -1, logStartOffset: this.logStartOffsetValue, batches: [] };
  }

  /** Writes stamped batches (rolling first if needed) and applies the flush policy. */
  private appendPrepared(prepared: PreparedAppend, nowMs: number): number {
    let bytes: Uint8Array = prepared.bytes;
    const placements: BatchPlacement[] = prepared.batches.map((batch) => ({
      position: batch.position,
      lastOffset: batch.baseOffset + batch.lastOffsetDelta,
      maxTimestamp: batch.maxTimestamp,
    }));
    if (shouldRollSegment(this.activeSegment, this.config, bytes.length, prepared.maxTimestamp, prepared.lastOffset, nowMs)) { // Kafka's shouldRoll
      // Rolling calls into the core (index memory), which invalidates a view of the scratch region.
      if (!prepared.stable) bytes = Buffer.from(bytes);
      const rolled = this.roll(nowMs);
      if (rolled !== LogErrorCode.NONE) return rolled;
    }
    const active = this.activeSegment;
    if (prepared.lastOffset - active.baseOffset > MAX_RELATIVE_OFFSET) return LogErrorCode.INVALID_RECORD;
    const sizeBefore = active.size;
    try {
      active.append(bytes, placements, this.config.indexIntervalBytes);
    } catch (error) {
      if (!isDiskError(error)) throw error;
      let rolledBack = false;
      try {
        active.rollbackTo(sizeBefore);
        rolledBack = true;
      } catch (rollbackError) {
        if (!isDiskError(rollbackError)) throw rollbackError;
      }
      // ENOSPC with the partial write removed leaves the log exactly as before: only this
      // append fails. Anything else leaves the page cache's state unknown.
      if (!rolledBack || error.code !== 'ENOSPC') this.logDirectory.markOffline(error);
      else this.logDirectory.markFull(error);
      return LogErrorCode.KAFKA_STORAGE_ERROR;
    }
    this.logDirectory.markWritable();
    if (this.logEndOffset - this.recoveryPointValue >= this.config.flushMessages && this.pendingFlushValue === null) {
      // Group commit: the fsync runs once at the end of this event-loop turn for every append
      // made in it; answers wait for it (pendingFlush).
      this.pendingFlushValue = new Promise<number>((resolve) => { this.settleFlush = resolve; });
      this.requestedHighWatermark = -1;
      (this.groupFlusher ?? this.context.groupFlusher ?? defaultGroupFlusher).mark(this);
    }
    return LogErrorCode.NONE;
  }

  /** Settles the pending group flush; on success applies the high watermark held back meanwhile. */
  private finishGroupFlush(errorCode: number): void {
    const settle = this.settleFlush;
    if (settle === null) return;
    this.settleFlush = null;
    this.pendingFlushValue = null;
    if (errorCode === LogErrorCode.NONE && this.requestedHighWatermark >= 0) {
      this.highWatermarkValue = Math.min(Math.max(this.requestedHighWatermark, this.highWatermarkValue, this.logStartOffsetValue), this.logEndOffset);
    }
    this.requestedHighWatermark = -1;
    settle(errorCode);
  }

  /**
   * Starts a new active segment at the log end offset, after fsyncing the old one (log and
   * indexes), so the recovery point can move to the new base offset. Returns an error code.
   */
  private roll(nowMs: number): number {
    const old = this.activeSegment;
    const newBase = this.logEndOffset;
    if (old.size === 0) return LogErrorCode.NONE;
    let created: LogSegment | null = null;
    try {
      old.flush();
      // The recovery point passes the old segment: its directory entry must be durable as well.
      this.directorySync.sync();
      created = LogSegment.create(this.context, this.dir, newBase, this.config.segmentIndexBytes, nowMs, true);
      this.watchFiles(created);
    } catch (error) {
      if (!isDiskError(error)) throw error;
      // Creating files can fail for lack of space: clean up and fail only this append.
      let cleaned = true;
      if (created === null) {
        try {
          LogSegment.deleteFilesFor(this.context, this.dir, newBase);
        } catch (cleanupError) {
          if (!isDiskError(cleanupError)) throw cleanupError;
          cleaned = false;
        }
      }
      if (!cleaned || error.code !== 'ENOSPC') this.logDirectory.markOffline(error);
      else this.logDirectory.markFull(error);
      return LogErrorCode.KAFKA_STORAGE_ERROR;
    }
    old.markInactive();
    this.segments.push(created);
    this.directorySync.markDirty();
    this.recoveryPointValue = Math.max(this.recoveryPointValue, newBase);
    return LogErrorCode.NONE;
  }

  private flushUnsafe(includeActiveIndexes: boolean): void {
    const from = Math.max(0, this.floorSegmentIndex(this.recoveryPointValue));
    for (let i = from; i < this.segments.length; i++) {
      const segment = this.segments[i]!;
      if (segment === this.activeSegment && !includeActiveIndexes) {
        if (segment.hasUnflushedData) segment.flushLogOnly();
      } else {
        segment.flush();
      }
    }
    this.directorySync.sync();
    this.recoveryPointValue = this.logEndOffset;
    this.lastFlushMs = this.context.clock.nowMs();
  }

  /** Index of the last segment with baseOffset <= offset, or -1. */
  private floorSegmentIndex(offset: number): number {
    return floorSegmentIndex(this.segments, offset);
  }

  /** Kafka's deletableSegments: the leading run satisfying `predicate`, below the high watermark. */
  private deletableSegments(predicate: (segment: LogSegment, next: LogSegment | undefined) => boolean): LogSegment[] {
    return leadingDeletableSegments(this.segments, this.highWatermarkValue, this.logEndOffset, predicate);
  }

  /** Deletes a leading run of segments (rolling first when it is all of them). Throws DiskError. */
  private deleteSegments(deletable: LogSegment[]): number {
    if (deletable.length === 0) return 0;
    if (deletable.length === this.segments.length) {
      const rolled = this.roll(this.context.clock.nowMs());
      if (rolled !== LogErrorCode.NONE) return 0;
    }
    this.segments.splice(0, deletable.length);
    for (const segment of deletable) segment.deleteFiles();
    this.context.files.disk.fsyncDir(this.dir);
    this.logStartOffsetValue = Math.max(this.logStartOffsetValue, this.segments[0]!.baseOffset);
    this.highWatermarkValue = Math.max(this.highWatermarkValue, this.logStartOffsetValue);
    return deletable.length;
  }

  private truncateFullyAndStartAtUnsafe(offset: number): void {
    const old = this.segments;
    const created = LogSegment.create(this.context, this.dir, offset, this.config.segmentIndexBytes, this.context.clock.nowMs(), true);
    this.watchFiles(created);
    for (const segment of old) {
      if (segment.baseOffset === offset) segment.close();
      else segment.deleteFiles();
    }
    this.segments = [created];
    created.flush();
    this.directorySync.markDirty();
    this.directorySync.sync();
    this.logStartOffsetValue = offset;
    this.highWatermarkValue = offset;
    this.recoveryPointValue = offset;
  }
}
