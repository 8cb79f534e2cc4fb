/**
 * Kafka's LogSegment: one `<20-digit base offset>.log` file of record batches, stored exactly as
 * appended (stamped), with its sparse `.index` (offset -> position) and `.timeindex`
 * (timestamp -> offset).
 *
 * Index entries follow one rule, applied per batch both on append and when recovery or a test
 * rebuilds them from the log, so the two always agree byte for byte: for each batch, first fold
 * its maxTimestamp into the segment's running maximum; then, if the batch starts more than
 * index.interval.bytes after the batch of the last index entry, add an offset entry (batch last
 * offset -> batch position) and a time entry (running max timestamp -> batch last offset of its
 * first occurrence), each only while its index has room. (Kafka applies the same rule per batch
 * in LogSegment.recover and per append call in LogSegment.append; Kafka also appends a final time
 * entry when a segment rolls. We keep the segment's largest timestamp in memory instead and
 * recompute it on load from the few batches after the last index entry.)
 *
 * Descriptors come from the shared FileHandleCache and are re-fetched before every call, since
 * any index load may evict them.
 */
import * as path from 'node:path';
import { isDiskError } from '../io/disk.js';
import { BatchLayout, RECORD_BATCH_OVERHEAD as BATCH_HEADER_SIZE } from '../wasm/batch-layout.js';
import type { Core } from '../wasm/core.js';
import { IndexCorruptError } from './abstract-index.js';
import { readStoredBatchHeader, storedBatchSize, type StoredBatchHeader } from './batch-header.js';
import type { FileHandleCache } from './file-handle-cache.js';
import { joinFlat } from './flat-path.js';
import type { FileMadeListener } from './partition-directory-sync.js';
import type { IndexMemory } from './index-memory.js';
import { freshReadBuffers, type ReadBuffers } from './read-buffer-pool.js';
import { OFFSET_INDEX_ENTRY_SIZE, OffsetIndex } from './offset-index.js';
import { NO_TIMESTAMP, TIME_INDEX_ENTRY_SIZE, TimeIndex } from './time-index.js';

export const LOG_FILE_SUFFIX = '.log';
export const INDEX_FILE_SUFFIX = '.index';
export const TIME_INDEX_FILE_SUFFIX = '.timeindex';
/** The aborted-transaction index (transaction-index.ts), deleted with its segment. */
export const TXN_INDEX_FILE_SUFFIX = '.txnindex';
/** Largest offset distance from the base offset an index entry can hold (int32). */
export const MAX_RELATIVE_OFFSET = 0x7fffffff;

/** Kafka's file name prefix: the offset as 20 zero-padded digits. */
export function offsetFileName(offset: number): string {
  return String(offset).padStart(20, '0');
}

/** The base offset encoded in a segment file name, or -1 when the name is not one. */
export function parseOffsetFileName(name: string, suffix: string): number {
  if (!name.endsWith(suffix)) return -1;
  const stem = name.slice(0, name.length - suffix.length);
  if (!/^\d{20}$/.test(stem)) return -1;
  const offset = Number(stem);
  return Number.isSafeInteger(offset) ? offset : -1;
}

/** Where one batch of an append sits and what the indexes need from it. */
export interface BatchPlacement {
  /** Byte offset of the batch inside the appended bytes. */
  position: number;
  lastOffset: number;
  maxTimestamp: number;
}

/** A batch found in a segment file: its position and header. */
export interface SegmentBatch {
  position: number;
  header: StoredBatchHeader;
}

/** What segments need from their LogManager-wide context. */
export interface SegmentContext {
  readonly files: FileHandleCache;
  readonly indexMemory: IndexMemory;
}

/** The running state of the indexing rule (see the file header). */
class IndexingState {
  maxTimestamp = NO_TIMESTAMP;
  offsetOfMaxTimestamp = -1;
  lastIndexEntryPosition = 0;

  /** Folds in one batch; true when an index entry is due at it. */
  observe(position: number, lastOffset: number, maxTimestamp: number, indexIntervalBytes: number): boolean {
    if (maxTimestamp > this.maxTimestamp) {
      this.maxTimestamp = maxTimestamp;
      this.offsetOfMaxTimestamp = lastOffset;
    }
    if (position - this.lastIndexEntryPosition > indexIntervalBytes) {
      this.lastIndexEntryPosition = position;
      return true;
    }
    return false;
  }
}

const SCAN_BUFFER = Buffer.allocUnsafe(64 * 1024);
const SMALL_SCAN_BYTES = 4096;
const RECOVERY_CHUNK_BYTES = 8 * 1024 * 1024;
const EMPTY = Buffer.alloc(0);

export class LogSegment {
  readonly baseOffset: number;
  readonly dir: string;
  readonly logPath: string;
  readonly offsetIndex: OffsetIndex;
  readonly timeIndex: TimeIndex;
  /** When this object was created (stands in for a file mtime where Kafka uses one), ms. */
  readonly createdMs: number;
  private readonly context: SegmentContext;
  private sizeBytes: number;
  private nextOffsetValue: number;
  private readonly indexing = new IndexingState();
  /** Timestamp of the first batch (segment.ms rolls from it); undefined = not read yet. */
  private firstBatchTimestampValue: number | undefined;
  private logDirty = false;
  /** The .log file is not made yet ({@link create} with `filesAbsent`): the first write or flush makes it. */
  private logFilePending = false;
  /** Hears that a pending file was made (its directory entry needs an fsync): the owning log's directory sync. */
  private fileMadeListener: FileMadeListener | null = null;
  /** Where the last read ended (offset after its last batch, file position): sequential reads skip the lookup. */
  private readCursor: { offset: number; position: number } | null = null;
  /** index.interval.bytes of the last append or recovery, for rebuilding a damaged index. */
  private indexIntervalBytes = 4096;

  private constructor(context: SegmentContext, dir: string, baseOffset: number, offsetIndex: OffsetIndex, timeIndex: TimeIndex, sizeBytes: number, nowMs: number) {
    this.context = context;
    this.dir = dir;
    this.baseOffset = baseOffset;
    this.logPath = joinFlat(dir, offsetFileName(baseOffset) + LOG_FILE_SUFFIX);
    this.offsetIndex = offsetIndex;
    this.timeIndex = timeIndex;
    this.sizeBytes = sizeBytes;
    this.nextOffsetValue = baseOffset;
    this.createdMs = nowMs;
  }

  /**
   * Creates an empty segment. Its index files are made at their first flush (AbstractIndex
   * initCreate, Kafka's LazyIndex). The .log file is made (emptied if it exists) now, unless the
   * caller knows no file of this base offset exists (`filesAbsent`: a new log's first segment in
   * a directory holding none): then it is made by the first append or flush, so a new partition
   * costs no file until it is used (one directory, nothing else). New files are not durable until
   * the directory is fsynced ({@link hasPendingFiles} tells the owner one is still to be made).
   * Throws DiskError.
   */
  static create(
    context: SegmentContext, dir: string, baseOffset: number, maxIndexSizeBytes: number, nowMs: number, active = true, filesAbsent = false,
  ): LogSegment {
    const offsetIndex = OffsetIndex.create(baseOffset, joinFlat(dir, offsetFileName(baseOffset) + INDEX_FILE_SUFFIX), maxIndexSizeBytes, context.indexMemory, context.files, active);
    const timeIndex = TimeIndex.create(baseOffset, joinFlat(dir, offsetFileName(baseOffset) + TIME_INDEX_FILE_SUFFIX), maxIndexSizeBytes, context.indexMemory, context.files, active);
    const segment = new LogSegment(context, dir, baseOffset, offsetIndex, timeIndex, 0, nowMs);
    if (filesAbsent) segment.logFilePending = true;
    else context.files.disk.truncate(context.files.fd(segment.logPath, true), 0);
    segment.firstBatchTimestampValue = NO_TIMESTAMP;
    return segment;
  }

  /** True while one of this segment's files is still to be made by its first append or flush. */
  get hasPendingFiles(): boolean {
    return this.logFilePending || this.offsetIndex.isFilePending || this.timeIndex.isFilePending;
  }

  /**
   * Sets who hears that one of this segment's pending files was made (by an append, a read or a
   * flush): the owning log marks its directory dirty, so the flush that claims the file durable
   * fsyncs the directory entry too (a file made after the directory's last fsync is not durable).
   */
  onFileMade(listener: FileMadeListener): void {
    this.fileMadeListener = listener;
  }

  /**
   * Opens an existing segment. `healthy` is false when its index files are missing or fail
   * their sanity checks, or its tail does not parse: the caller must then {@link recover} it
   * (the indexes are left empty). `indexIntervalBytes` is used if a damaged index file must be
   * rebuilt later, when first loaded. `cleanShutdown`: the directory was shut down cleanly, so
   * an empty log file's indexes were flushed empty and are not opened until first used (Kafka's
   * LazyIndex; Kafka skips index sanity checks after a clean shutdown). The log file itself is
   * only sized here (one stat by path), not opened. Throws DiskError.
   */
  static open(
    context: SegmentContext, dir: string, baseOffset: number, maxIndexSizeBytes: number, nowMs: number, active: boolean, indexIntervalBytes = 4096,
    cleanShutdown = false,
  ): { segment: LogSegment; healthy: boolean } {
    const [logPath, offsetIndexPath, timeIndexPath] = [LOG_FILE_SUFFIX, INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX]
      .map((suffix) => joinFlat(dir, offsetFileName(baseOffset) + suffix)) as [string, string, string];
    const sizeBytes = context.files.disk.size(logPath);
    const knownEmpty = cleanShutdown && sizeBytes === 0;
    let healthy = true;
    let offsetIndex: OffsetIndex;
    let timeIndex: TimeIndex;
    try {
      offsetIndex = OffsetIndex.open(baseOffset, offsetIndexPath, maxIndexSizeBytes, context.indexMemory, context.files, active, knownEmpty);
      timeIndex = TimeIndex.open(baseOffset, timeIndexPath, maxIndexSizeBytes, context.indexMemory, context.files, active, knownEmpty);
    } catch (error) {
      if (!(error instanceof IndexCorruptError) && !(isDiskError(error) && error.code === 'ENOENT')) throw error;
      healthy = false;
      offsetIndex = OffsetIndex.create(baseOffset, offsetIndexPath, maxIndexSizeBytes, context.indexMemory, context.files, active);
      timeIndex = TimeIndex.create(baseOffset, timeIndexPath, maxIndexSizeBytes, context.indexMemory, context.files, active);
    }
    const segment = new LogSegment(context, dir, baseOffset, offsetIndex, timeIndex, sizeBytes, nowMs);
    segment.indexIntervalBytes = indexIntervalBytes;
    if (healthy) {
      try {
        healthy = segment.restoreTailState();
      } catch (error) {
        if (!(error instanceof IndexCorruptError)) throw error;
        healthy = false;
      }
    }
    return { segment, healthy };
  }

  /** Size of the .log file, bytes. */
  get size(): number {
    return this.sizeBytes;
  }

  /** One past the last offset in this segment (the base offset when empty). */
  get nextOffset(): number {
    return this.nextOffsetValue;
  }

  /** Largest batch timestamp in the segment, or NO_TIMESTAMP (-1). */
  get maxTimestampSoFar(): number {
    return this.indexing.maxTimestamp;
  }

  /** Last offset of the first batch carrying {@link maxTimestampSoFar}, or -1. */
  get offsetOfMaxTimestampSoFar(): number {
    return this.indexing.offsetOfMaxTimestamp;
  }

  /** Kafka's LogSegment.largestTimestamp: the max timestamp, or the creation time when none. */
  get largestTimestamp(): number {
    return this.indexing.maxTimestamp >= 0 ? this.indexing.maxTimestamp : this.createdMs;
  }

  /** True when bytes were appended since the last fsync. */
  get hasUnflushedData(): boolean {
    return this.logDirty;
  }

  /** Max timestamp of the first batch (NO_TIMESTAMP when empty or unknown); segment.ms rolls from it. */
  firstBatchTimestamp(): number {
    if (this.firstBatchTimestampValue === undefined) {
      this.firstBatchTimestampValue = NO_TIMESTAMP;
      if (this.sizeBytes >= BATCH_HEADER_SIZE) {
        const header = Buffer.allocUnsafe(BATCH_HEADER_SIZE);
        if (this.readInto(header, 0, BATCH_HEADER_SIZE) === BATCH_HEADER_SIZE) {
          this.firstBatchTimestampValue = readStoredBatchHeader(header, 0).maxTimestamp;
        }
      }
    }
    return this.firstBatchTimestampValue;
  }

  /**
   * Appends stamped batches at the end of the file and indexes them. On a DiskError nothing in
   * memory changes, but a prefix of `bytes` may be in the file: the caller calls
   * {@link rollbackTo} with the old {@link size}.
   */
  append(bytes: Uint8Array, batches: readonly BatchPlacement[], indexIntervalBytes: number): void {
    if (batches.length === 0) return;
    this.indexIntervalBytes = indexIntervalBytes;
    const position = this.sizeBytes;
    if (position + bytes.length > 0x7fffffff) throw new Error(`segment ${this.logPath} would exceed 2 GiB`);
    this.context.files.disk.write(this.fd(), bytes, position);
    this.sizeBytes += bytes.length;
    this.logDirty = true;
    if (position === 0) this.firstBatchTimestampValue = batches[0]!.maxTimestamp;
    for (const batch of batches) {
      this.indexBatch(position + batch.position, batch.lastOffset, batch.maxTimestamp, indexIntervalBytes);
    }
  }

  /** Cuts the file back to `size` bytes after a failed append. Throws DiskError. */
  rollbackTo(size: number): void {
    this.readCursor = null;
    this.context.files.disk.truncate(this.fd(), size);
  }

  /**
   * The first batch whose last offset is >= `offset` (it may start before `offset`), found from
   * the offset index and a header scan; null when the segment holds no such batch.
   */
  translateOffset(offset: number): SegmentBatch | null {
    if (offset >= this.nextOffsetValue) return null;
    const start = this.withIndexes(() => this.offsetIndex.lookup(offset).position);
    let found: SegmentBatch | null = null;
    this.forEachBatch(start, this.sizeBytes, (header, position) => {
      if (header.lastOffset < offset) return true;
      found = { position, header };
      return false;
    });
    return found;
  }

  /**
   * Whole batches from the one holding `startOffset`, at most `maxBytes` (the first batch alone
   * may exceed it when `minOneMessage`), none with offsets at or after `upperBoundOffset`.
   * Returns null when no batch of this segment ends at or after `startOffset` (read the next
   * segment), an empty buffer when the batch found is past the bound or too large.
   * The bytes are read with one copy (file → a buffer from `buffers`); the result is that buffer
   * or a subarray of it, so the caller owns it and gives it back to `buffers` when done (see
   * read-buffer-pool.ts); buffers this method does not return it gives back itself.
   * Throws DiskError.
   */
  read(startOffset: number, maxBytes: number, upperBoundOffset: number, minOneMessage: boolean, buffers: ReadBuffers = freshReadBuffers): Buffer | null {
    let position: number;
    let buffer: Buffer;
    let n: number;
    const cursor = this.readCursor;
    // A disk error (thrown) leaves the buffer to the garbage collector.
    if (cursor !== null && cursor.offset === startOffset && cursor.position < this.sizeBytes && maxBytes >= BATCH_HEADER_SIZE) {
      // A sequential reader: the batch holding startOffset starts where the last read ended, so
      // read the data straight away (one read, no index lookup, no header scan).
      position = cursor.position;
      const limit = Math.min(maxBytes, this.sizeBytes - position);
      buffer = buffers.acquire(limit);
      n = this.readInto(buffer, position, limit);
      if (n < BATCH_HEADER_SIZE || lastOffsetAt(buffer, 0) >= upperBoundOffset) {
        buffers.release(buffer);
        return EMPTY;
      }
      const firstSize = storedBatchSize(buffer, 0);
      if (firstSize > n) {
        buffers.release(buffer);
        if (!minOneMessage) return EMPTY;
        buffer = buffers.acquire(firstSize);
        n = this.readInto(buffer, position, firstSize);
      }
    } else {
      const first = this.translateOffset(startOffset);
      if (first === null) return null;
      if (first.header.lastOffset >= upperBoundOffset) return EMPTY;
      position = first.position;
      let limit = Math.min(maxBytes, this.sizeBytes - position);
      if (first.header.sizeInBytes > limit) {
        if (!minOneMessage) return EMPTY;
        limit = first.header.sizeInBytes;
      }
      buffer = buffers.acquire(limit);
      n = this.readInto(buffer, position, limit);
    }
    const checkBound = upperBoundOffset < this.nextOffsetValue;
    let end = 0;
    let lastBatch = 0;
    while (end + BATCH_HEADER_SIZE <= n) {
      const size = storedBatchSize(buffer, end);
      if (size < BATCH_HEADER_SIZE || end + size > n) break;
      if (checkBound && lastOffsetAt(buffer, end) >= upperBoundOffset) break;
      lastBatch = end;
      end += size;
    }
    if (end === 0) {
      buffers.release(buffer);
      return EMPTY;
    }
    this.readCursor = { offset: lastOffsetAt(buffer, lastBatch) + 1, position: position + end };
    return end === buffer.length ? buffer : buffer.subarray(0, end);
  }

  /**
   * For the time search: visits, from the position the indexes give for (`timestamp`,
   * `startingOffset`), each batch that ends at or after `startingOffset` and whose max timestamp
   * is >= `timestamp`, with its bytes, until `visit` returns a non-null result.
   */
  searchForTimestamp<T>(timestamp: number, startingOffset: number, visit: (batch: Buffer, header: StoredBatchHeader) => T | null): T | null {
    const start = this.withIndexes(() => {
      const entry = this.timeIndex.lookup(timestamp);
      return this.offsetIndex.lookup(Math.max(entry.offset, startingOffset)).position;
    });
    const candidates: SegmentBatch[] = [];
    let result: T | null = null;
    let position = start;
    // Collect a few candidates at a time so no disk read happens inside the header scan.
    while (result === null && position < this.sizeBytes) {
      candidates.length = 0;
      const stopped = this.forEachBatch(position, this.sizeBytes, (header, at) => {
        if (header.lastOffset >= startingOffset && header.maxTimestamp >= timestamp) {
          candidates.push({ position: at, header });
          if (candidates.length >= 16) return false;
        }
        return true;
      });
      if (candidates.length === 0) break;
      for (const candidate of candidates) {
        result = visit(this.readBytes(candidate.position, candidate.header.sizeInBytes), candidate.header);
        if (result !== null) break;
      }
      const last = candidates[candidates.length - 1]!;
      position = Math.max(stopped, last.position + last.header.sizeInBytes);
    }
    return result;
  }

  /** Reads `length` bytes at `position` (fewer at end of file). Throws DiskError. */
  readBytes(position: number, length: number): Buffer {
    const buffer = Buffer.allocUnsafe(length);
    const n = this.readInto(buffer, position, length);
    return n === length ? buffer : buffer.subarray(0, n);
  }

  /**
   * Removes every batch from the one holding `offset` on (a batch that starts before `offset`
   * but reaches it goes too), with its index entries, and fsyncs. Returns the bytes removed.
   * Throws DiskError.
   */
  truncateTo(offset: number): number {
    const found = this.translateOffset(offset);
    if (found === null) return 0;
    this.offsetIndex.truncateTo(offset);
    this.timeIndex.truncateTo(offset);
    const removed = this.sizeBytes - found.position;
    this.readCursor = null;
    this.context.files.disk.truncate(this.fd(), found.position);
    this.sizeBytes = found.position;
    if (this.sizeBytes === 0) this.firstBatchTimestampValue = NO_TIMESTAMP;
    if (!this.restoreTailState()) throw new Error(`segment ${this.logPath} unreadable after truncation`);
    this.logDirty = true;
    this.flush();
    return removed;
  }

  /**
   * Kafka's LogSegment.recover: validates every batch (CRC and framing, in the WebAssembly core),
   * checks offsets increase from the base offset, rebuilds both indexes, and truncates the file
   * at the first batch that is torn, corrupt or out of order. Returns the bytes truncated.
   * Throws DiskError.
   */
  recover(core: Core, indexIntervalBytes: number): number {
    this.readCursor = null;
    this.indexIntervalBytes = indexIntervalBytes;
    this.offsetIndex.resetEntries(EMPTY);
    this.timeIndex.resetEntries(EMPTY);
    this.resetIndexing();
    let expected = this.baseOffset;
    let position = 0;
    let chunkBytes = RECOVERY_CHUNK_BYTES;
    let buffer = Buffer.allocUnsafe(Math.min(chunkBytes, this.sizeBytes));
    let stop = false;
    while (!stop && position < this.sizeBytes) {
      const length = Math.min(chunkBytes, this.sizeBytes - position);
      if (buffer.length < length) buffer = Buffer.allocUnsafe(length);
      const n = this.readInto(buffer, position, length);
      const chunk = buffer.subarray(0, n);
      const result = core.validateBatches(chunk);
      let consumed = 0;
      for (const batch of result.batches) {
        const lastOffset = batch.baseOffset + batch.lastOffsetDelta;
        if (batch.baseOffset < expected || lastOffset < batch.baseOffset || lastOffset - this.baseOffset > MAX_RELATIVE_OFFSET) {
          stop = true;
          break;
        }
        this.indexBatch(position + batch.position, lastOffset, batch.maxTimestamp, indexIntervalBytes);
        expected = lastOffset + 1;
        consumed = batch.position + batch.sizeInBytes;
      }
      position += consumed;
      if (stop || consumed === n) continue;
      // Something after `consumed` did not validate. If it is a whole batch cut by the chunk
      // boundary, read again from it with room for it; otherwise the tail is torn or corrupt.
      const size = storedBatchSize(chunk, consumed);
      const cutByChunk = n === length && position - consumed + n < this.sizeBytes && size > BATCH_HEADER_SIZE
        && consumed + size > n && position + size <= this.sizeBytes && size <= core.maxBlobBytes;
      if (cutByChunk && consumed === 0) chunkBytes = Math.max(chunkBytes, size);
      else if (!cutByChunk) stop = true;
    }
    const truncated = this.sizeBytes - position;
    if (truncated > 0) {
      this.context.files.disk.truncate(this.fd(), position);
      this.sizeBytes = position;
    }
    this.nextOffsetValue = expected;
    this.firstBatchTimestampValue = undefined;
    this.logDirty = true;
    return truncated;
  }

  /**
   * The index entries a rebuild from the log would produce (headers only, no CRC), for tests
   * that check the written indexes against it. Throws DiskError.
   */
  rebuiltIndexEntries(indexIntervalBytes: number): { offsetIndex: Buffer; timeIndex: Buffer } {
    const batches: BatchPlacement[] = [];
    this.forEachBatch(0, this.sizeBytes, (header, position) => {
      batches.push({ position, lastOffset: header.lastOffset, maxTimestamp: header.maxTimestamp });
      return true;
    });
    return buildIndexEntries(batches, this.baseOffset, indexIntervalBytes, this.offsetIndex.maxEntries, this.timeIndex.maxEntries);
  }

  /** Makes pending files, fsyncs a dirty log, writes + fsyncs both indexes; no file while the .log is pending and empty (its empty directory loads as this segment). Throws DiskError. */
  flush(): void {
    if (this.logFilePending && this.sizeBytes === 0) return;
    if (this.logFilePending) this.fd();
    if (this.logDirty) {
      this.context.files.fsync(this.logPath);
      this.logDirty = false;
    }
    const indexesPending = this.offsetIndex.isFilePending || this.timeIndex.isFilePending;
    this.offsetIndex.flush();
    this.timeIndex.flush();
    if (indexesPending) this.fileMadeListener?.markDirty();
  }

  /** fsyncs only the .log file (the active segment's indexes are rebuilt by recovery anyway). */
  flushLogOnly(): void {
    if (!this.logDirty) return;
    if (this.logFilePending) this.fd();
    this.context.files.fsync(this.logPath);
    this.logDirty = false;
  }

  /** Deletes whatever files exist for `baseOffset` (cleanup after a failed create). Throws DiskError. */
  static deleteFilesFor(context: SegmentContext, dir: string, baseOffset: number): void {
    const stem = path.join(dir, offsetFileName(baseOffset));
    for (const suffix of [LOG_FILE_SUFFIX, INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX]) {
      context.files.release(stem + suffix);
      context.files.disk.delete(stem + suffix);
    }
  }

  /** The segment is no longer the active one: its indexes may be trimmed and evicted. */
  markInactive(): void {
    this.offsetIndex.markInactive();
    this.timeIndex.markInactive();
  }

  /** The segment became the active one again (truncation). */
  markActive(): void {
    this.offsetIndex.markActive();
    this.timeIndex.markActive();
  }

  /** Frees memory and descriptors; files stay. */
  close(): void {
    this.offsetIndex.release();
    this.timeIndex.release();
    this.context.files.release(this.logPath);
    this.context.files.release(this.offsetIndex.filePath);
    this.context.files.release(this.timeIndex.filePath);
  }

  /** Closes and deletes all three files (not durable until the directory is fsynced). Throws DiskError. */
  deleteFiles(): void {
    this.close();
    this.context.files.disk.delete(this.logPath);
    this.offsetIndex.deleteFile();
    this.timeIndex.deleteFile();
    // The aborted-transaction index (transaction-index.ts) goes with its segment; often absent.
    this.context.files.disk.delete(this.logPath.slice(0, -LOG_FILE_SUFFIX.length) + TXN_INDEX_FILE_SUFFIX);
  }

  // ---- internals ----

  private fd(): number {
    if (!this.logFilePending) return this.context.files.fd(this.logPath);
    const fd = this.context.files.fd(this.logPath, true);
    this.logFilePending = false;
    this.fileMadeListener?.markDirty();
    return fd;
  }

  private readInto(target: Buffer, position: number, length: number): number {
    return this.context.files.disk.read(this.fd(), target, 0, length, position);
  }

  private resetIndexing(): void {
    this.indexing.maxTimestamp = NO_TIMESTAMP;
    this.indexing.offsetOfMaxTimestamp = -1;
    this.indexing.lastIndexEntryPosition = 0;
  }

  /**
   * Runs an index lookup; when a lazily loaded index file turns out damaged, rebuilds both
   * indexes from the log (headers only) and runs it again.
   */
  private withIndexes<T>(lookup: () => T): T {
    try {
      return lookup();
    } catch (error) {
      if (!(error instanceof IndexCorruptError)) throw error;
      const rebuilt = this.rebuiltIndexEntries(this.indexIntervalBytes);
      this.offsetIndex.resetEntries(rebuilt.offsetIndex);
      this.timeIndex.resetEntries(rebuilt.timeIndex);
      this.offsetIndex.flush();
      this.timeIndex.flush();
      return lookup();
    }
  }

  private indexBatch(position: number, lastOffset: number, maxTimestamp: number, indexIntervalBytes: number): void {
    if (this.indexing.observe(position, lastOffset, maxTimestamp, indexIntervalBytes)) {
      if (!this.offsetIndex.isFull) this.offsetIndex.append(lastOffset, position);
      if (!this.timeIndex.isFull) this.timeIndex.maybeAppend(this.indexing.maxTimestamp, this.indexing.offsetOfMaxTimestamp);
    }
    this.nextOffsetValue = lastOffset + 1;
  }

  /**
   * Recomputes nextOffset and the indexing state from the last index entries and the batches
   * after the last offset entry (a short scan). False when the tail does not parse or disagrees
   * with the index.
   */
  private restoreTailState(): boolean {
    const lastTime = this.timeIndex.lastEntry;
    this.indexing.maxTimestamp = lastTime.timestamp;
    this.indexing.offsetOfMaxTimestamp = lastTime.timestamp >= 0 ? lastTime.offset : -1;
    const hasEntry = this.offsetIndex.entries > 0;
    this.indexing.lastIndexEntryPosition = hasEntry ? this.offsetIndex.lastPosition : 0;
    if (hasEntry && this.offsetIndex.lastPosition >= this.sizeBytes) return false;
    let next = this.baseOffset;
    let ok = true;
    let first = true;
    const stopped = this.forEachBatch(this.indexing.lastIndexEntryPosition, this.sizeBytes, (header) => {
      if (first && hasEntry && header.lastOffset !== this.offsetIndex.lastOffset) {
        ok = false;
        return false;
      }
      first = false;
      if (header.baseOffset < next || header.lastOffset < header.baseOffset || header.lastOffset - this.baseOffset > MAX_RELATIVE_OFFSET) {
        ok = false;
        return false;
      }
      if (header.maxTimestamp > this.indexing.maxTimestamp) {
        this.indexing.maxTimestamp = header.maxTimestamp;
        this.indexing.offsetOfMaxTimestamp = header.lastOffset;
      }
      next = header.lastOffset + 1;
      return true;
    });
    this.nextOffsetValue = next;
    return ok && stopped === this.sizeBytes;
  }

  /**
   * Walks batch headers from `from` while they fit before `to`, calling `visit` for each; stops
   * when `visit` returns false (returning that batch's position) or at the first header that
   * does not fit (returning its position). `visit` must not read this segment's files.
   */
  private forEachBatch(from: number, to: number, visit: (header: StoredBatchHeader, position: number) => boolean): number {
    let chunkStart = 0;
    let chunkLength = 0;
    // Small reads while batches are large (headers far apart), large ones while they are small.
    let readSize = SMALL_SCAN_BYTES;
    let position = from;
    while (position + BATCH_HEADER_SIZE <= to) {
      if (position < chunkStart || position + BATCH_HEADER_SIZE > chunkStart + chunkLength) {
        chunkStart = position;
        chunkLength = this.context.files.disk.read(this.fd(), SCAN_BUFFER, 0, Math.min(readSize, to - position), position);
        if (chunkLength < BATCH_HEADER_SIZE) break;
      }
      const header = readStoredBatchHeader(SCAN_BUFFER, position - chunkStart);
      if (header.sizeInBytes < BATCH_HEADER_SIZE || position + header.sizeInBytes > to) break;
      if (!visit(header, position)) return position;
      position += header.sizeInBytes;
      readSize = header.sizeInBytes >= SMALL_SCAN_BYTES ? SMALL_SCAN_BYTES : SCAN_BUFFER.length;
    }
    return position;
  }
}

/**
 * The offset and time index entries for a segment holding `batches` (positions in the segment
 * file, in order), by the indexing rule in the file header; used by the cleaner for the
 * segments it writes and by rebuild checks.
 */
export function buildIndexEntries(
  batches: Iterable<BatchPlacement>, baseOffset: number, indexIntervalBytes: number, maxOffsetEntries: number, maxTimeEntries: number,
): { offsetIndex: Buffer; timeIndex: Buffer } {
  const state = new IndexingState();
  const offsets: Buffer[] = [];
  const times: Buffer[] = [];
  let lastTimestamp = NO_TIMESTAMP;
  for (const batch of batches) {
    if (!state.observe(batch.position, batch.lastOffset, batch.maxTimestamp, indexIntervalBytes)) continue;
    if (offsets.length < maxOffsetEntries) {
      const entry = Buffer.alloc(OFFSET_INDEX_ENTRY_SIZE);
      entry.writeUInt32BE(batch.lastOffset - baseOffset, 0);
      entry.writeUInt32BE(batch.position, 4);
      offsets.push(entry);
    }
    if (times.length < maxTimeEntries && state.maxTimestamp > lastTimestamp) {
      const entry = Buffer.alloc(TIME_INDEX_ENTRY_SIZE);
      entry.writeBigInt64BE(BigInt(state.maxTimestamp), 0);
      entry.writeUInt32BE(state.offsetOfMaxTimestamp - baseOffset, 8);
      times.push(entry);
      lastTimestamp = state.maxTimestamp;
    }
  }
  return { offsetIndex: Buffer.concat(offsets), timeIndex: Buffer.concat(times) };
}

/** baseOffset + lastOffsetDelta of the batch at `position` (header fields, big-endian). */
function lastOffsetAt(bytes: Buffer, position: number): number {
  const high = bytes.readInt32BE(position + BatchLayout.BASE_OFFSET);
  const low = bytes.readUInt32BE(position + BatchLayout.BASE_OFFSET + 4);
  return high * 4294967296 + low + bytes.readInt32BE(position + BatchLayout.LAST_OFFSET_DELTA);
}
