/**
 * {@link FileRaftLog}: the {@link RaftLog} on disk, as KRaft's KafkaMetadataLog keeps it: the
 * `__cluster_metadata-0` partition directory of a UnifiedLog, with
 *
 * - one Kafka RecordBatch (magic 2) per Raft batch: baseOffset, partitionLeaderEpoch = the batch's
 *   epoch, the control attribute for Raft's control batches, record values = the opaque record
 *   bytes (log-batch-codec.ts);
 * - the epochs in `leader-epoch-checkpoint` (LeaderEpochFileCache), for lastFetchedEpoch,
 *   epochAt and endOffsetForEpoch without reading the log;
 * - the latest snapshot in `<endOffset>-<epoch>.checkpoint` (snapshot-files.ts).
 *
 * Durability: appends reach the page cache; {@link FileRaftLog.flush} fsyncs and moves the
 * UnifiedLog's recovery point, which is {@link FileRaftLog.flushedOffset}. Truncations, epoch
 * changes and snapshots are durable when their call returns. The order of writes keeps the three
 * consistent after a crash at any point:
 *
 * - an epoch is assigned (durably) before its first batch is appended, and removed after the log
 *   is truncated, so the cache can only run ahead of the log, which open repairs (truncateFromEnd
 *   at the recovered log end; a cache that disagrees with the log's last batch, or none at all,
 *   as in a log written before this file existed, is rebuilt by reading the log);
 * - a snapshot is durable before the log start moves past it (storeSnapshot) or the log is
 *   replaced (installSnapshot); open moves the log start up to the latest snapshot again, or
 *   starts the log at it when the log ends below it.
 * A torn tail is cut by UnifiedLog's recovery (CRC per batch), so no torn batch is ever read.
 *
 * Errors: a disk failure takes the log directory offline and throws KafkaStorageException (56);
 * the Raft node must stop (Kafka's controller exits). A violated precondition throws Error (a bug).
 */
import type { Clock } from '../io/clock.js';
import { SystemClock } from '../io/clock.js';
import { type Disk, isDiskError } from '../io/disk.js';
import { LeaderEpochFileCache } from '../log/leader-epoch-file-cache.js';
import { defaultLogConfig, type LogConfig } from '../log/log-config.js';
import { KafkaStorageException, type LogManager } from '../log/log-manager.js';
import type { UnifiedLog } from '../log/unified-log.js';
import { readBatchHeader } from '../record/records.js';
import { decodeLogBatches, encodeLogBatches } from './log-batch-codec.js';
import { type LogBatch, type OffsetAndEpoch, type RaftLog, type RaftSnapshot, lastOffsetOf } from './raft-log.js';
import { SnapshotFiles } from './snapshot-files.js';

/**
 * The metadata log's topic (Kafka's Topic.CLUSTER_METADATA_TOPIC_NAME; the controller names it
 * too, but raft/ sits below controller/ and may not import it).
 */
export const RAFT_LOG_TOPIC = '__cluster_metadata';
/** The metadata log's partition (`__cluster_metadata-0`). */
export const RAFT_LOG_PARTITION = 0;

/**
 * The largest batch the log takes, bytes: 32 MiB, what the metadata log took before Raft
 * (METADATA_MAX_BATCH_BYTES), so one controller operation still fits one batch. Kafka's Raft
 * caps batches at 8 MiB (KafkaRaftClient.MAX_BATCH_SIZE_BYTES) and splits larger operations.
 */
export const RAFT_MAX_BATCH_BYTES = 32 * 1024 * 1024;

/** Bytes asked of the UnifiedLog per read step. */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * The metadata log's LogConfig: Kafka's metadata.log.segment.bytes (1 GiB) and segment.ms
 * (7 days); never deleted by retention (only snapshots move the log start); no flush policy (Raft
 * flushes itself); batches up to RAFT_MAX_BATCH_BYTES plus the batch header.
 */
export const RAFT_LOG_CONFIG: LogConfig = Object.freeze({
  ...defaultLogConfig,
  retentionMs: -1,
  retentionBytes: -1,
  cleanupPolicy: ['delete'],
  messageTimestampType: 'CreateTime',
  maxMessageBytes: RAFT_MAX_BATCH_BYTES + 61,
  flushMessages: Number.MAX_SAFE_INTEGER,
  flushMs: Number.MAX_SAFE_INTEGER,
}) as LogConfig;

/** How a FileRaftLog is opened. */
export interface FileRaftLogOptions {
  /**
   * The partition log, open and recovered (LogManager.getOrCreateLog or UnifiedLog.open). The
   * FileRaftLog is its only writer from now on; its owner still closes it.
   */
  readonly log: UnifiedLog;
  /** The disk the log lives on (the LogManager's `context.disk`), for the epoch cache and snapshots. */
  readonly disk: Disk;
  /** Batch timestamps (ms); default the system clock. */
  readonly clock?: Clock;
  /**
   * Overrides of {@link RAFT_LOG_CONFIG} (tests use small segments); retention stays off whatever
   * is given.
   */
  readonly logConfig?: Partial<LogConfig>;
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`FileRaftLog: ${message}`);
}

function recordBytes(batch: LogBatch): number {
  let total = 0;
  for (const record of batch.records) total += record.length;
  return total;
}

/** The {@link RaftLog} of a node, on disk. Synchronous, like the Disk seam under it. */
export class FileRaftLog implements RaftLog {
  private readonly log: UnifiedLog;
  private readonly clock: Clock;
  private readonly epochs: LeaderEpochFileCache;
  private readonly snapshots: SnapshotFiles;

  private constructor(options: FileRaftLogOptions, epochs: LeaderEpochFileCache, snapshots: SnapshotFiles) {
    this.log = options.log;
    this.clock = options.clock ?? new SystemClock();
    this.epochs = epochs;
    this.snapshots = snapshots;
  }

  /**
   * Opens the Raft log over `options.log` (see {@link FileRaftLogOptions}): applies
   * RAFT_LOG_CONFIG, loads the epoch cache and the latest snapshot, and brings the three into
   * agreement after a crash (see the file header).
   * @throws KafkaStorageException (56) on a disk failure or a malformed `leader-epoch-checkpoint`
   */
  static open(options: FileRaftLogOptions): FileRaftLog {
    const { log, disk } = options;
    log.updateConfig({ ...RAFT_LOG_CONFIG, ...options.logConfig, retentionMs: -1, retentionBytes: -1 });
    if (log.isOffline) throw new KafkaStorageException(`the Raft log's directory ${log.dir} is offline`);
    const raftLog = guarded(log, 'opening the Raft log', () =>
      new FileRaftLog(options, LeaderEpochFileCache.open(disk, log.dir), SnapshotFiles.open(disk, log.dir)));
    raftLog.recover();
    return raftLog;
  }

  /**
   * Opens (creating on first start) `__cluster_metadata-0` through `logManager`, which recovered
   * it at start-up with the other logs, then {@link open}s the Raft log over it.
   * @throws KafkaStorageException (56) when no log directory can hold it or on a disk failure
   */
  static openInLogManager(logManager: LogManager, options: Omit<FileRaftLogOptions, 'log' | 'disk'> = {}): FileRaftLog {
    const config = { ...RAFT_LOG_CONFIG, ...options.logConfig };
    const log = logManager.getLog(RAFT_LOG_TOPIC, RAFT_LOG_PARTITION) ?? logManager.getOrCreateLog(RAFT_LOG_TOPIC, RAFT_LOG_PARTITION, config);
    return FileRaftLog.open({ ...options, log, disk: logManager.context.disk });
  }

  /** The underlying partition log (diagnostics, tests, closing). */
  get unifiedLog(): UnifiedLog {
    return this.log;
  }

  startOffset(): number {
    return this.log.logStartOffset;
  }

  endOffset(): number {
    return this.log.logEndOffset;
  }

  flushedOffset(): number {
    return Math.max(this.log.recoveryPoint, this.log.logStartOffset);
  }

  lastFetchedEpoch(): number {
    const snapshotEpoch = this.snapshots.latest()?.epoch ?? 0;
    if (this.endOffset() === this.startOffset()) return snapshotEpoch;
    return this.epochs.latestEpoch() ?? snapshotEpoch;
  }

  /** @throws KafkaStorageException (56) on a disk failure; Error for an empty list or an older epoch */
  append(epoch: number, records: readonly Uint8Array[], control: boolean): number {
    assert(records.length > 0, 'append of no records');
    this.appendBatches([{ baseOffset: this.endOffset(), epoch, control, records }]);
    return this.endOffset() - 1;
  }

  /** @throws KafkaStorageException (56) on a disk failure; Error when the batches do not follow the log */
  appendAsFollower(batches: readonly LogBatch[]): void {
    if (batches.length > 0) this.appendBatches(batches);
  }

  /**
   * Removes every record at or after `offset`. Durable on return. When `offset` falls inside a
   * batch, the batch is cut: its records below `offset` are written again as a batch of the
   * same epoch (the UnifiedLog truncates whole batches).
   * @throws KafkaStorageException (56) on a disk failure
   */
  truncateTo(offset: number): void {
    const startOffset = this.startOffset();
    assert(offset >= startOffset, `truncation to ${offset} below the log start ${startOffset}`);
    assert(offset <= this.endOffset(), `truncation to ${offset} above the log end ${this.endOffset()}`);
    if (offset === this.endOffset()) return;
    const flushed = this.flushedOffset();
    const cut = this.batchHolding(offset);
    this.checked('truncating the Raft log', () => this.log.truncateTo(offset));
    if (this.endOffset() < offset) {
      // The batch holding `offset` went whole: write back its records below `offset`.
      const prefix: LogBatch = { ...cut, baseOffset: this.endOffset(), records: cut.records.slice(0, offset - this.endOffset()) };
      this.checked('appending a cut batch', () => this.log.appendAsFollower(encodeLogBatches([prefix], this.clock.nowMs())));
      if (flushed > prefix.baseOffset) this.flush();
      if (this.startOffset() < startOffset) this.raiseLogStartTo(startOffset);
    }
    guarded(this.log, 'truncating the epoch cache', () => this.epochs.truncateFromEnd(offset));
  }

  /** fsyncs the log up to its end. @throws KafkaStorageException (56) */
  flush(): void {
    this.checked('flushing the Raft log', () => this.log.flush());
  }

  endOffsetForEpoch(epoch: number): OffsetAndEpoch {
    const starts = this.knownEpochs();
    let found = -1;
    for (let i = 0; i < starts.length; i++) {
      if (starts[i]!.epoch <= epoch) found = i;
      else break;
    }
    if (found < 0) return { epoch: 0, offset: this.startOffset() };
    const next = starts[found + 1];
    return { epoch: starts[found]!.epoch, offset: next === undefined ? this.endOffset() : next.startOffset };
  }

  epochAt(offset: number): number {
    assert(offset >= this.startOffset() && offset < this.endOffset(), `epochAt(${offset}) outside [${this.startOffset()}, ${this.endOffset()})`);
    const epoch = this.epochs.epochForOffset(offset);
    assert(epoch !== undefined, `no epoch known for offset ${offset}`);
    return epoch;
  }

  /** Batches as in {@link RaftLog.read}; CRCs are checked. @throws KafkaStorageException (56) */
  read(fromOffset: number, maxBytes: number): LogBatch[] {
    const start = this.startOffset();
    const end = this.endOffset();
    assert(fromOffset >= start && fromOffset <= end, `read at ${fromOffset} outside [${start}, ${end}]`);
    return this.readBatchesFrom(fromOffset, maxBytes);
  }

  /** @throws KafkaStorageException (56) when the snapshot file cannot be read */
  latestSnapshot(): RaftSnapshot | undefined {
    return guarded(this.log, 'reading the latest snapshot', () => this.snapshots.latestSnapshot());
  }

  /**
   * Writes the snapshot file (durably), then moves the log start up to `id.endOffset` (segments
   * entirely below it are deleted) and deletes the older snapshot. A snapshot not newer than the
   * latest is ignored. @throws KafkaStorageException (56)
   */
  storeSnapshot(snapshot: RaftSnapshot): void {
    const endOffset = snapshot.id.endOffset;
    assert(endOffset >= this.startOffset() && endOffset <= this.endOffset(), `snapshot at ${endOffset} outside [${this.startOffset()}, ${this.endOffset()}]`);
    const latest = this.snapshots.latest();
    if (latest !== undefined && latest.endOffset >= endOffset) return;
    guarded(this.log, 'storing a snapshot', () => {
      this.snapshots.store(snapshot);
      this.epochs.truncateFromStart(endOffset);
    });
    this.raiseLogStartTo(endOffset);
  }

  /**
   * Writes the snapshot file (durably), then replaces the whole log by an empty one starting at
   * `id.endOffset`, and forgets every epoch. @throws KafkaStorageException (56)
   */
  installSnapshot(snapshot: RaftSnapshot): void {
    guarded(this.log, 'installing a snapshot', () => this.snapshots.store(snapshot));
    this.checked('replacing the Raft log by a snapshot', () => this.log.truncateFullyAndStartAt(snapshot.id.endOffset));
    guarded(this.log, 'clearing the epoch cache', () => this.epochs.clear());
  }

  // ---- internals ----

  /** Writes batches that start at the log end, epochs not decreasing; their epochs first. */
  private appendBatches(batches: readonly LogBatch[]): void {
    let expected = this.endOffset();
    let lastEpoch = this.lastFetchedEpoch();
    for (const batch of batches) {
      assert(batch.records.length > 0, 'empty batch');
      assert(batch.baseOffset === expected, `batch at ${batch.baseOffset} appended at end offset ${expected}`);
      assert(batch.epoch >= lastEpoch, `append in epoch ${batch.epoch} after epoch ${lastEpoch}`);
      expected = lastOffsetOf(batch) + 1;
      lastEpoch = batch.epoch;
    }
    guarded(this.log, 'assigning an epoch', () => {
      for (const batch of batches) this.epochs.assign(batch.epoch, batch.baseOffset);
    });
    const result = this.log.appendAsFollower(encodeLogBatches(batches, this.clock.nowMs()));
    if (result.errorCode === 0) return;
    if (!this.log.isOffline) guarded(this.log, 'undoing an epoch', () => this.epochs.truncateFromEnd(this.endOffset()));
    if (result.errorCode === 56) throw new KafkaStorageException(`appending to the Raft log in ${this.log.dir} failed: the directory is offline`);
    throw new Error(`FileRaftLog: the log refused ${batches.length} batch(es) at offset ${batches[0]!.baseOffset} with error code ${result.errorCode}`);
  }

  /** Batches from `fromOffset` (the first one cut to start there), record bytes up to `maxBytes`. */
  private readBatchesFrom(fromOffset: number, maxBytes: number): LogBatch[] {
    const end = this.endOffset();
    const result: LogBatch[] = [];
    let bytes = 0;
    let offset = fromOffset;
    while (offset < end) {
      const read = this.log.read(offset, READ_CHUNK_BYTES, end, true);
      if (read.errorCode === 56) throw new KafkaStorageException(`reading the Raft log in ${this.log.dir} at offset ${offset} failed`);
      assert(read.errorCode === 0 && read.records.length > 0, `read at ${offset} below the end ${end} gave error ${read.errorCode}, ${read.records.length} bytes`);
      for (let batch of decodeLogBatches(read.records)) {
        if (lastOffsetOf(batch) < offset) continue;
        if (batch.baseOffset < offset) batch = { ...batch, baseOffset: offset, records: batch.records.slice(offset - batch.baseOffset) };
        const size = recordBytes(batch);
        if (result.length > 0 && bytes + size > maxBytes) return result;
        result.push(batch);
        bytes += size;
        offset = lastOffsetOf(batch) + 1;
      }
    }
    return result;
  }

  /** The stored batch holding `offset` (startOffset <= offset < endOffset), uncut. */
  private batchHolding(offset: number): LogBatch {
    const read = this.log.read(offset, 1, this.endOffset(), true);
    if (read.errorCode === 56) throw new KafkaStorageException(`reading the Raft log in ${this.log.dir} at offset ${offset} failed`);
    const batch = decodeLogBatches(read.records)[0];
    assert(read.errorCode === 0 && batch !== undefined && batch.baseOffset <= offset && lastOffsetOf(batch) >= offset, `no batch holds offset ${offset}`);
    return batch;
  }

  /** The epochs the log knows with their start offsets, the snapshot's epoch first. */
  private knownEpochs(): readonly { epoch: number; startOffset: number }[] {
    const entries = this.epochs.entries();
    const snapshot = this.snapshots.latest();
    if (snapshot === undefined) return entries;
    if (entries[0] !== undefined && entries[0].epoch === snapshot.epoch) return entries;
    return [{ epoch: snapshot.epoch, startOffset: this.startOffset() }, ...entries];
  }

  /** Moves the log start up to `offset` (<= log end), deleting the segments entirely below it. */
  private raiseLogStartTo(offset: number): void {
    // The UnifiedLog deletes records only below its high watermark; a snapshot's offset is committed.
    this.log.updateHighWatermark(Math.max(this.log.highWatermark, offset));
    const errorCode = this.log.deleteRecordsBefore(offset);
    if (errorCode === 56 || this.log.isOffline) throw new KafkaStorageException(`moving the Raft log start to ${offset} in ${this.log.dir} failed`);
    assert(errorCode === 0 && this.startOffset() === offset, `log start ${this.startOffset()} after moving it to ${offset} (error ${errorCode})`);
  }

  /** After open: log start at the latest snapshot, epoch cache matching the log. */
  private recover(): void {
    const snapshot = this.snapshots.latest();
    if (snapshot !== undefined && this.endOffset() < snapshot.endOffset) {
      this.checked('starting the Raft log at its snapshot', () => this.log.truncateFullyAndStartAt(snapshot.endOffset));
    } else if (snapshot !== undefined && this.startOffset() < snapshot.endOffset) {
      this.raiseLogStartTo(snapshot.endOffset);
    }
    guarded(this.log, 'recovering the epoch cache', () => {
      this.epochs.truncateFromEnd(this.endOffset());
      this.epochs.truncateFromStart(this.startOffset());
      if (this.endOffset() === this.startOffset()) this.epochs.clear();
    });
    if (this.endOffset() > this.startOffset() && !this.epochCacheMatchesLog()) this.rebuildEpochCache();
  }

  /** True when the cache covers the log start and its latest epoch is the last batch's. */
  private epochCacheMatchesLog(): boolean {
    const earliest = this.epochs.earliestEntry();
    if (earliest === undefined || earliest.startOffset !== this.startOffset()) return false;
    const read = this.log.read(this.endOffset() - 1, 1, this.endOffset(), true);
    if (read.errorCode === 56) throw new KafkaStorageException(`reading the Raft log in ${this.log.dir} failed`);
    assert(read.errorCode === 0 && read.records.length > 0, `cannot read the last batch (error ${read.errorCode})`);
    return readBatchHeader(read.records).partitionLeaderEpoch === this.epochs.latestEpoch();
  }

  /** Reads the whole log and assigns every batch's epoch (a log without a valid cache). */
  private rebuildEpochCache(): void {
    guarded(this.log, 'clearing the epoch cache', () => this.epochs.clear());
    let offset = this.startOffset();
    while (offset < this.endOffset()) {
      const batches = this.readBatchesFrom(offset, READ_CHUNK_BYTES);
      guarded(this.log, 'rebuilding the epoch cache', () => {
        for (const batch of batches) this.epochs.assign(batch.epoch, batch.baseOffset);
      });
      offset = lastOffsetOf(batches[batches.length - 1]!) + 1;
    }
  }

  /** Runs a UnifiedLog call that reports disk failures by going offline, and throws when it did. */
  private checked(what: string, run: () => void): void {
    run();
    if (this.log.isOffline) throw new KafkaStorageException(`${what} in ${this.log.dir} failed: the log directory is offline`);
  }
}

/**
 * Runs `run`; a DiskError takes the log's directory offline and becomes KafkaStorageException
 * (56) naming `what`; anything else propagates.
 */
function guarded<T>(log: UnifiedLog, what: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!isDiskError(error)) throw error;
    log.storageFailure(error);
    throw new KafkaStorageException(`${what} in ${log.dir} failed: ${error.message}`, { cause: error });
  }
}
