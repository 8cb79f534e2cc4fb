/**
 * Kafka's LogCleaner (compaction) for `cleanup.policy=compact` (and `compact,delete`): keeps
 * the latest record of every key in the closed segments, with offsets preserved.
 *
 * One pass over a log:
 * 1. The cleanable range is the leading run of closed segments entirely below the high watermark
 *    whose records are all older than min.compaction.lag.ms. The dirty part starts at the
 *    cleaner checkpoint (`cleaner-offset-checkpoint`, default the log start offset). A pass runs
 *    when dirty bytes / cleanable bytes >= min.cleanable.dirty.ratio.
 * 2. An offset map (key -> latest offset) is built from the dirty part, bounded to
 *    MAX_OFFSET_MAP_ENTRIES keys (a pass then stops at the segment where the map filled up).
 * 3. Every cleanable segment is rewritten to `<base>.log.cleaned` (+ indexes): a record survives
 *    unless a later offset of its key is in the map, or it is a tombstone whose delete horizon
 *    has passed. Batches keep their base offset, last offset delta, producer fields and
 *    compression; batches that lose records are rebuilt with their records' original offset
 *    deltas (host/record/batch-builder.ts), whole untouched batches are copied byte for byte.
 *    Tombstones get Kafka's KIP-534 delete horizon: the first pass that keeps a tombstone stamps
 *    now + delete.retention.ms into its batch (attributes bit 6); a later pass after that time
 *    drops it.
 * 4. The swap is committed crash-safely: the cleaned files are fsynced, renamed to `.swap`
 *    (indexes first, the log last: the log's rename is the commit point), the directory fsynced,
 *    then the swaps renamed over the old files. LogLoader finishes or discards a swap
 *    interrupted by a crash.
 *
 * Transactions (Kafka's cleaner with KIP-98): the batches of aborted transactions (listed in the
 * log's `.txnindex` files, transaction-index.ts: the ABORT marker is written) are removed whole,
 * so a cleaned segment never brings an aborted record back into view; they never enter the offset
 * map either, nor do other transactional records (an open or committed transaction's record never
 * shadows an older value). Other transactional batches are kept whole. A marker (control batch)
 * stays while data of its transaction remains before it in the log (Kafka's
 * CleanedTransactionMetadata: a COMMIT whose records are kept, an ABORT whose batches are not all
 * removed); once none does, the first pass stamps now + delete.retention.ms into it as its delete
 * horizon (KIP-534, as for tombstones) and a pass after that time removes it, with the `.txnindex`
 * entry of a removed ABORT (the partition's registered index, transaction-index.ts, so no
 * read_committed fetch lists an aborted transaction whose marker is gone). A consumer that read
 * an aborted transaction's data must read on to its marker within delete.retention.ms, as in Kafka.
 *
 * Simplifications (documented): keyless records are kept; a batch whose records all go is removed
 * even when it was its producer's last (producer state comes from snapshots); segments are not merged.
 */
import * as path from 'node:path';
import { isDiskError } from '../io/disk.js';
import { buildRecordBatch, type RecordInput } from '../record/batch-builder.js';
import { ControlRecordType, readBatch } from '../record/records.js';
import { BatchLayout, RECORD_BATCH_OVERHEAD as BATCH_HEADER_SIZE } from '../wasm/batch-layout.js';
import { readStoredBatchHeader, storedBatchSize } from './batch-header.js';
import { CLEANED_FILE_SUFFIX, SWAP_FILE_SUFFIX } from './log-loader.js';
import {
  type BatchPlacement, buildIndexEntries, INDEX_FILE_SUFFIX, LOG_FILE_SUFFIX, LogSegment, offsetFileName, TIME_INDEX_FILE_SUFFIX,
} from './log-segment.js';
import { OFFSET_INDEX_ENTRY_SIZE } from './offset-index.js';
import { readProducerBatchInfo } from './producer-state-manager.js';
import type { StorageContext } from './storage-context.js';
import { registeredTransactionIndex, TransactionIndex } from './transaction-index.js';
import { TIME_INDEX_ENTRY_SIZE } from './time-index.js';
import type { UnifiedLog } from './unified-log.js';

/** Bound on distinct keys held by one pass's offset map. */
export const MAX_OFFSET_MAP_ENTRIES = 1_000_000;
const READ_CHUNK_BYTES = 8 * 1024 * 1024;
const WRITE_BUFFER_BYTES = 4 * 1024 * 1024;
const TRANSACTIONAL_OR_CONTROL = 0x30;
const TRANSACTIONAL = 0x10;
const CONTROL = 0x20;
const DELETE_HORIZON_FLAG = 0x40;

/** What one cleaning pass did. */
export interface CleanerStats {
  segmentsCleaned: number;
  bytesRead: number;
  bytesWritten: number;
  recordsRemoved: number;
  /** Transaction markers removed (their delete horizon passed with no data of their transaction left). */
  markersRemoved: number;
  /** The new first dirty offset. */
  endOffset: number;
}

export class LogCleaner {
  private readonly context: StorageContext;
  private readonly firstDirty = new Map<UnifiedLog, number>();

  constructor(context: StorageContext) {
    this.context = context;
  }

  /** Where the next pass's dirty part starts (undefined when never cleaned nor checkpointed). */
  firstDirtyOffset(log: UnifiedLog): number | undefined {
    return this.firstDirty.get(log);
  }

  /** Restores the checkpointed first dirty offset at start-up. */
  setFirstDirtyOffset(log: UnifiedLog, offset: number): void {
    this.firstDirty.set(log, offset);
  }

  /** Forgets a deleted log. */
  forget(log: UnifiedLog): void {
    this.firstDirty.delete(log);
  }

  /**
   * Cleans `log` when its dirty ratio reaches min.cleanable.dirty.ratio. Returns the stats, or
   * null when nothing was due. A disk error takes the directory offline (returns null).
   */
  maybeClean(log: UnifiedLog, nowMs: number): CleanerStats | null {
    const range = this.cleanableRange(log, nowMs);
    if (range === null) return null;
    const total = range.cleanBytes + range.dirtyBytes;
    if (total === 0 || range.dirtyBytes / total < log.config.minCleanableDirtyRatio) return null;
    return this.clean(log, nowMs);
  }

  /**
   * One cleaning pass regardless of the dirty ratio (tests, admin). Returns null when there is no
   * dirty cleanable segment or the directory went offline.
   */
  clean(log: UnifiedLog, nowMs: number): CleanerStats | null {
    if (log.isOffline) return null;
    const range = this.cleanableRange(log, nowMs);
    if (range === null) return null;
    try {
      return this.cleanRange(log, range.segments, range.firstDirtyIndex, nowMs);
    } catch (error) {
      if (!isDiskError(error)) throw error;
      log.storageFailure(error);
      return null;
    }
  }

  /** The cleanable leading segments, where the dirty part starts, and the byte counts. */
  private cleanableRange(log: UnifiedLog, nowMs: number): { segments: LogSegment[]; firstDirtyIndex: number; cleanBytes: number; dirtyBytes: number } | null {
    const all = log.logSegments;
    const segments: LogSegment[] = [];
    for (let i = 0; i < all.length - 1; i++) {
      const segment = all[i]!;
      const next = all[i + 1]!;
      if (next.baseOffset > log.highWatermark) break;
      if (nowMs - segment.largestTimestamp < log.config.minCompactionLagMs) break;
      segments.push(segment);
    }
    const firstDirty = Math.max(this.firstDirty.get(log) ?? 0, log.logStartOffset);
    const firstDirtyIndex = segments.findIndex((_, i) => (segments[i + 1]?.baseOffset ?? all[segments.length]!.baseOffset) > firstDirty);
    if (firstDirtyIndex < 0) return null;
    let cleanBytes = 0;
    let dirtyBytes = 0;
    segments.forEach((segment, i) => {
      if (i < firstDirtyIndex) cleanBytes += segment.size;
      else dirtyBytes += segment.size;
    });
    return dirtyBytes === 0 ? null : { segments, firstDirtyIndex, cleanBytes, dirtyBytes };
  }

  private cleanRange(log: UnifiedLog, segments: LogSegment[], firstDirtyIndex: number, nowMs: number): CleanerStats {
    const stats: CleanerStats = { segmentsCleaned: 0, bytesRead: 0, bytesWritten: 0, recordsRemoved: 0, markersRemoved: 0, endOffset: 0 };
    // Offset map over the dirty segments, stopping at a segment boundary when it fills up.
    const latest = new Map<string, number>();
    let end = firstDirtyIndex;
    for (; end < segments.length; end++) {
      if (latest.size >= MAX_OFFSET_MAP_ENTRIES && end > firstDirtyIndex) break;
      forEachBatch(segments[end]!, (batch, attributes) => {
        stats.bytesRead += batch.length;
        if ((attributes & TRANSACTIONAL_OR_CONTROL) !== 0) return;
        const decoded = tryReadBatch(batch);
        if (decoded === null) return;
        for (const record of decoded.records) {
          if (record.key !== null) latest.set(record.key.toString('latin1'), record.offset);
        }
      });
    }
    const cleanable = segments.slice(0, end);
    const index = transactionIndexOf(this.context, log);
    const txns: TxnCleaning = { aborted: abortedRanges(index), keptData: new Set(), removedAbortMarkers: new Set() };
    const endOffset = end < segments.length ? segments[end]!.baseOffset : log.logSegments[segments.length]!.baseOffset;
    for (const segment of cleanable) {
      const cleaned = this.cleanSegment(log, segment, latest, txns, nowMs, stats);
      log.replaceSegments(new Map([[segment.baseOffset, cleaned]]));
      stats.segmentsCleaned++;
    }
    if (txns.removedAbortMarkers.size > 0) index.removeAbortedTxns(txns.removedAbortMarkers);
    this.firstDirty.set(log, endOffset);
    stats.endOffset = endOffset;
    return stats;
  }

  /** Writes the cleaned copy of one segment, swaps it in, and returns the reopened segment. */
  private cleanSegment(
    log: UnifiedLog, segment: LogSegment, latest: Map<string, number>, txns: TxnCleaning, nowMs: number, stats: CleanerStats,
  ): LogSegment {
    const disk = this.context.disk;
    const files = this.context.files;
    const stem = path.join(log.dir, offsetFileName(segment.baseOffset));
    const logFile = stem + LOG_FILE_SUFFIX;
    const indexFile = stem + INDEX_FILE_SUFFIX;
    const timeIndexFile = stem + TIME_INDEX_FILE_SUFFIX;
    const cleanedLog = logFile + CLEANED_FILE_SUFFIX;
    const placements: BatchPlacement[] = [];
    const pending: Buffer[] = [];
    let pendingBytes = 0;
    let written = 0;
    const fd = disk.open(cleanedLog, 'create');
    try {
      disk.truncate(fd, 0);
      const flushPending = (): void => {
        if (pendingBytes === 0) return;
        disk.write(fd, Buffer.concat(pending, pendingBytes), written - pendingBytes);
        pending.length = 0;
        pendingBytes = 0;
      };
      forEachBatch(segment, (batch, attributes) => {
        const kept = (attributes & TRANSACTIONAL_OR_CONTROL) === 0
          ? this.filterBatch(batch, attributes, latest, nowMs, log.config.deleteRetentionMs, stats)
          : retainTransactional(batch, attributes, txns, nowMs, log.config.deleteRetentionMs, stats);
        if (kept === null) return;
        const header = readStoredBatchHeader(kept, 0);
        placements.push({ position: written, lastOffset: header.lastOffset, maxTimestamp: header.maxTimestamp });
        pending.push(kept);
        pendingBytes += kept.length;
        written += kept.length;
        if (pendingBytes >= WRITE_BUFFER_BYTES) flushPending();
      });
      flushPending();
      disk.fsync(fd);
    } finally {
      disk.close(fd);
    }
    stats.bytesWritten += written;
    const indexes = buildIndexEntries(placements, segment.baseOffset, log.config.indexIntervalBytes,
      Math.max(1, Math.floor(log.config.segmentIndexBytes / OFFSET_INDEX_ENTRY_SIZE)),
      Math.max(1, Math.floor(log.config.segmentIndexBytes / TIME_INDEX_ENTRY_SIZE)));
    writeDurably(this.context, indexFile + CLEANED_FILE_SUFFIX, indexes.offsetIndex);
    writeDurably(this.context, timeIndexFile + CLEANED_FILE_SUFFIX, indexes.timeIndex);
    // Commit: index swaps first, the log swap last (LogLoader treats the log swap as the commit).
    disk.rename(indexFile + CLEANED_FILE_SUFFIX, indexFile + SWAP_FILE_SUFFIX);
    disk.rename(timeIndexFile + CLEANED_FILE_SUFFIX, timeIndexFile + SWAP_FILE_SUFFIX);
    disk.rename(cleanedLog, logFile + SWAP_FILE_SUFFIX);
    disk.fsyncDir(log.dir);
    segment.close();
    for (const file of [indexFile, timeIndexFile, logFile]) {
      files.release(file);
      disk.rename(file + SWAP_FILE_SUFFIX, file);
    }
    disk.fsyncDir(log.dir);
    const { segment: reopened, healthy } = LogSegment.open(this.context, log.dir, segment.baseOffset, log.config.segmentIndexBytes, nowMs, false, log.config.indexIntervalBytes);
    if (!healthy) throw new Error(`cleaned segment ${logFile} failed its own checks`);
    return reopened;
  }

  /**
   * The batch to write for `batch`: itself, a rebuilt copy without the removed records (and with
   * a delete horizon when it keeps tombstones), or null when nothing of it remains.
   */
  private filterBatch(batch: Buffer, attributes: number, latest: Map<string, number>, nowMs: number, deleteRetentionMs: number, stats: CleanerStats): Buffer | null {
    if ((attributes & TRANSACTIONAL_OR_CONTROL) !== 0) return batch;
    const decoded = tryReadBatch(batch);
    if (decoded === null) return batch;
    const { header, records } = decoded;
    const horizonPassed = header.hasDeleteHorizon && nowMs >= header.baseTimestamp;
    const kept = records.filter((record) => {
      if (record.key === null) return true;
      const latestOffset = latest.get(record.key.toString('latin1'));
      if (latestOffset !== undefined && record.offset < latestOffset) return false;
      return !(record.value === null && horizonPassed);
    });
    stats.recordsRemoved += records.length - kept.length;
    const keepsTombstone = kept.some((record) => record.value === null);
    const needsHorizon = keepsTombstone && !header.hasDeleteHorizon;
    if (kept.length === records.length && !needsHorizon) return batch;
    if (kept.length === 0) return null;
    const inputs: RecordInput[] = kept.map((record) => ({
      key: record.key,
      value: record.value,
      headers: record.headers,
      timestamp: record.timestamp,
      offsetDelta: record.offset - header.baseOffset,
    }));
    try {
      return buildRecordBatch({
        records: inputs,
        baseOffset: header.baseOffset,
        partitionLeaderEpoch: header.partitionLeaderEpoch,
        compression: header.compression,
        timestampType: header.timestampType === 1 ? 1 : 0,
        producerId: header.producerId,
        producerEpoch: header.producerEpoch,
        baseSequence: header.baseSequence,
        lastOffsetDelta: header.lastOffsetDelta,
        ...(header.timestampType === 1 ? { maxTimestamp: header.maxTimestamp } : {}),
        ...(keepsTombstone ? { deleteHorizonMs: header.hasDeleteHorizon ? header.baseTimestamp : nowMs + deleteRetentionMs } : {}),
      });
    } catch {
      // A codec that cannot re-encode here keeps the batch whole: keeping more is always safe.
      return batch;
    }
  }
}

/** Aborted transactions by producer id: [firstOffset, lastOffset] ranges (lastOffset = the ABORT marker). */
type AbortedRanges = ReadonlyMap<number, readonly { firstOffset: number; lastOffset: number }[]>;

/** A pass's view of transactions (Kafka's CleanedTransactionMetadata), in offset order. */
interface TxnCleaning {
  readonly aborted: AbortedRanges;
  /** Producers with transactional data kept since their last marker: their next marker stays. */
  readonly keptData: Set<number>;
  /** Offsets of the ABORT markers removed (their `.txnindex` entries go too). */
  readonly removedAbortMarkers: Set<number>;
}

/**
 * The log's aborted-transaction index: its partition's (registered) one, else read from the
 * `.txnindex` files. Throws DiskError.
 */
function transactionIndexOf(context: StorageContext, log: UnifiedLog): TransactionIndex {
  const index = registeredTransactionIndex(log.dir) ?? new TransactionIndex(log.dir, context.disk);
  if (!index.isLoaded) index.load(log.logSegments.map((segment) => segment.baseOffset));
  return index;
}

/** The aborted transactions of `index` by producer id. */
function abortedRanges(index: TransactionIndex): AbortedRanges {
  const ranges = new Map<number, { firstOffset: number; lastOffset: number }[]>();
  for (const txn of index.allAbortedTxns()) {
    let list = ranges.get(txn.producerId);
    if (list === undefined) ranges.set(txn.producerId, list = []);
    list.push({ firstOffset: txn.firstOffset, lastOffset: txn.lastOffset });
  }
  return ranges;
}

/**
 * What stays of a transactional data batch or a marker: an aborted transaction's batch goes
 * (counted in recordsRemoved), another transactional batch stays whole; a marker stays while data
 * of its transaction was kept before it, else gets its delete horizon or, once that passed, goes.
 */
function retainTransactional(batch: Buffer, attributes: number, txns: TxnCleaning, nowMs: number, deleteRetentionMs: number, stats: CleanerStats): Buffer | null {
  if ((attributes & CONTROL) === 0) {
    if (isAbortedBatch(batch, attributes, txns.aborted, stats)) return null;
    txns.keptData.add(readProducerBatchInfo(batch, 0).producerId);
    return batch;
  }
  const decoded = tryReadBatch(batch);
  if (decoded === null || txns.keptData.delete(decoded.header.producerId)) return batch;
  const { header, records } = decoded;
  if (header.hasDeleteHorizon) {
    if (nowMs < header.baseTimestamp) return batch;
    if (records[0]?.key?.readInt16BE(2) === ControlRecordType.ABORT) txns.removedAbortMarkers.add(header.baseOffset);
    stats.markersRemoved++;
    return null;
  }
  try {
    return buildRecordBatch({
      records: records.map((record) => ({
        key: record.key, value: record.value, headers: record.headers, timestamp: record.timestamp, offsetDelta: record.offset - header.baseOffset,
      })),
      baseOffset: header.baseOffset,
      partitionLeaderEpoch: header.partitionLeaderEpoch,
      producerId: header.producerId,
      producerEpoch: header.producerEpoch,
      baseSequence: header.baseSequence,
      lastOffsetDelta: header.lastOffsetDelta,
      isTransactional: true,
      isControl: true,
      deleteHorizonMs: nowMs + deleteRetentionMs,
    });
  } catch {
    return batch;
  }
}

/** True (counting its records as removed) for a data batch of an aborted transaction. */
function isAbortedBatch(batch: Buffer, attributes: number, aborted: AbortedRanges, stats: CleanerStats): boolean {
  if ((attributes & TRANSACTIONAL_OR_CONTROL) !== TRANSACTIONAL || aborted.size === 0) return false;
  const info = readProducerBatchInfo(batch, 0);
  const ranges = aborted.get(info.producerId);
  if (ranges === undefined || !ranges.some((r) => r.firstOffset <= info.baseOffset && info.baseOffset <= r.lastOffset)) return false;
  stats.recordsRemoved += batch.readInt32BE(BatchLayout.RECORDS_COUNT);
  return true;
}

function tryReadBatch(batch: Buffer): ReturnType<typeof readBatch> | null {
  try {
    return readBatch(batch, { verifyCrc: false });
  } catch {
    return null;
  }
}

/** Visits every whole batch of a segment with its bytes, reading in chunks. Throws DiskError. */
function forEachBatch(segment: LogSegment, visit: (batch: Buffer, attributes: number) => void): void {
  let position = 0;
  let chunkBytes = READ_CHUNK_BYTES;
  while (position < segment.size) {
    const chunk = segment.readBytes(position, Math.min(chunkBytes, segment.size - position));
    let at = 0;
    while (at + BATCH_HEADER_SIZE <= chunk.length) {
      const size = storedBatchSize(chunk, at);
      if (size < BATCH_HEADER_SIZE || at + size > chunk.length) break;
      const batch = chunk.subarray(at, at + size);
      visit(batch, batch.readInt16BE(BatchLayout.ATTRIBUTES));
      at += size;
    }
    if (at === 0) {
      const size = storedBatchSize(chunk, 0);
      if (size < BATCH_HEADER_SIZE || position + size > segment.size) return; // unreadable tail: stop
      chunkBytes = Math.max(chunkBytes, size);
      continue;
    }
    position += at;
  }
}

/** Writes a whole file and fsyncs it. Throws DiskError. */
function writeDurably(context: StorageContext, filePath: string, data: Buffer): void {
  const fd = context.disk.open(filePath, 'create');
  try {
    context.disk.truncate(fd, 0);
    if (data.length > 0) context.disk.write(fd, data, 0);
    context.disk.fsync(fd);
  } finally {
    context.disk.close(fd);
  }
}
