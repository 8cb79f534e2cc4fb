/**
 * Kafka's aborted-transaction index (TransactionIndex, `.txnindex`): per segment, one entry per
 * transaction whose ABORT marker lies in that segment, so read_committed fetches can tell the
 * consumer which producers' records to skip (Fetch aborted_transactions) without reading them.
 *
 * Entry layout (Kafka's AbortedTxn, version 0), 34 bytes, big-endian, entries in marker order:
 * ```
 *  0  version           int16   0
 *  2  producerId        int64
 * 10  firstOffset       int64   first offset of the aborted transaction
 * 18  lastOffset        int64   offset of its ABORT marker
 * 26  lastStableOffset  int64   the LSO right after the marker (first offset of the next open
 *                               transaction of another producer, else lastOffset + 1)
 * ```
 * Files are `<20-digit segment base offset>.txnindex` beside the segment's `.log`, deleted with
 * it. Here one object holds every segment's entries of a partition in memory (aborts are rare;
 * Kafka reads the files on each read_committed fetch) and writes them through to the files:
 * - written when an ABORT marker is appended (leader, follower, or the recovery's replay of the
 *   log tail, which rebuilds what a crash left out; appends of an entry already present are
 *   ignored, so a replay over indexed markers adds nothing);
 * - truncated with the log (`truncateFrom`), trimmed with retention (`deleteSegmentsBefore`);
 * - fsynced (`flush`) before every producer-state snapshot, so entries below a snapshot's offset
 *   (which the next recovery does not replay) are durable.
 *
 * Disk failures throw the Disk's error (callers map them to KAFKA_STORAGE_ERROR, 56).
 */
import * as path from 'node:path';
import { emptyMap, emptySet, ownMap, ownSet } from './empty-collections.js';
import { TXN_INDEX_FILE_SUFFIX } from './log-segment.js';
import type { ProducerStateDisk } from './producer-state-manager.js';

export { TXN_INDEX_FILE_SUFFIX } from './log-segment.js';

/** Kafka's AbortedTxn.TOTAL_SIZE. */
export const ABORTED_TXN_ENTRY_SIZE = 34;
const VERSION_OFFSET = 0;
const PRODUCER_ID_OFFSET = VERSION_OFFSET + 2;
const FIRST_OFFSET_OFFSET = PRODUCER_ID_OFFSET + 8;
const LAST_OFFSET_OFFSET = FIRST_OFFSET_OFFSET + 8;
const LAST_STABLE_OFFSET_OFFSET = LAST_OFFSET_OFFSET + 8;
const CURRENT_VERSION = 0;

/** One aborted transaction (Kafka's AbortedTxn). Offsets are log offsets. */
export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  /** Offset of the ABORT marker. */
  lastOffset: number;
  lastStableOffset: number;
}

/** `<20-digit base offset>.txnindex`. */
export function txnIndexFileName(baseOffset: number): string {
  return `${String(baseOffset).padStart(20, '0')}${TXN_INDEX_FILE_SUFFIX}`;
}

/** Encodes entries back to back (34 bytes each). */
export function encodeAbortedTxns(entries: readonly AbortedTxn[]): Buffer {
  const out = Buffer.alloc(entries.length * ABORTED_TXN_ENTRY_SIZE);
  entries.forEach((entry, i) => {
    const at = i * ABORTED_TXN_ENTRY_SIZE;
    out.writeInt16BE(CURRENT_VERSION, at + VERSION_OFFSET);
    out.writeBigInt64BE(BigInt(entry.producerId), at + PRODUCER_ID_OFFSET);
    out.writeBigInt64BE(BigInt(entry.firstOffset), at + FIRST_OFFSET_OFFSET);
    out.writeBigInt64BE(BigInt(entry.lastOffset), at + LAST_OFFSET_OFFSET);
    out.writeBigInt64BE(BigInt(entry.lastStableOffset), at + LAST_STABLE_OFFSET_OFFSET);
  });
  return out;
}

/**
 * Decodes a `.txnindex` file's bytes. A torn trailing partial entry is ignored (Kafka's iterator
 * stops there too); reading stops at an entry of an unknown version or with offsets out of order
 * (what follows is not trusted; recovery rebuilds entries past the last snapshot).
 */
export function decodeAbortedTxns(bytes: Uint8Array): AbortedTxn[] {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: AbortedTxn[] = [];
  for (let at = 0; at + ABORTED_TXN_ENTRY_SIZE <= data.length; at += ABORTED_TXN_ENTRY_SIZE) {
    if (data.readInt16BE(at + VERSION_OFFSET) !== CURRENT_VERSION) break;
    const entry = {
      producerId: Number(data.readBigInt64BE(at + PRODUCER_ID_OFFSET)),
      firstOffset: Number(data.readBigInt64BE(at + FIRST_OFFSET_OFFSET)),
      lastOffset: Number(data.readBigInt64BE(at + LAST_OFFSET_OFFSET)),
      lastStableOffset: Number(data.readBigInt64BE(at + LAST_STABLE_OFFSET_OFFSET)),
    };
    const previous = entries[entries.length - 1];
    if (entry.firstOffset > entry.lastOffset || (previous !== undefined && entry.lastOffset <= previous.lastOffset)) break;
    entries.push(entry);
  }
  return entries;
}

/**
 * The TransactionIndex of a partition directory that its producer state uses, registered so that
 * the log cleaner (which drops the entries of the ABORT markers it removes) changes the same
 * entries: otherwise a read_committed fetch would list an aborted transaction whose marker is
 * gone, and its consumer would skip the producer's later transactions. A new partition object
 * over the directory (a restart, another disk) registers a new index in place of the old one.
 * The registry holds indexes weakly: an index lives as long as a partition's producer state holds
 * it, so the indexes (and entries) of deleted partitions do not pile up in a long-running process.
 */
export function sharedTransactionIndex(dir: string, disk: ProducerStateDisk): TransactionIndex {
  const key = path.resolve(dir);
  let index = SHARED_INDEXES.get(key)?.deref();
  if (index === undefined || index.disk !== disk) {
    index = new TransactionIndex(dir, disk);
    SHARED_INDEXES.set(key, new WeakRef(index));
    FORGET_COLLECTED.register(index, key);
  }
  return index;
}

/** The registered index of `dir` ({@link sharedTransactionIndex}), if a live partition registered one. */
export function registeredTransactionIndex(dir: string): TransactionIndex | undefined {
  return SHARED_INDEXES.get(path.resolve(dir))?.deref();
}

const SHARED_INDEXES = new Map<string, WeakRef<TransactionIndex>>();
/** Drops a directory's entry once its index is collected (unless a newer index took the key). */
const FORGET_COLLECTED = new FinalizationRegistry<string>((key) => {
  if (SHARED_INDEXES.get(key)?.deref() === undefined) SHARED_INDEXES.delete(key);
});

/** `bases` of an index without entries, shared. */
const NO_BASES: readonly number[] = Object.freeze([]);

/** The aborted transactions of one partition, by segment, mirrored in `.txnindex` files. */
export class TransactionIndex {
  /** Whether {@link load} ran (a shared index may be asked before its partition loaded it). */
  private loadedValue = false;
  /**
   * Segment base offset -> its entries, in lastOffset order; bases ascending in `bases`. The
   * shared empty map (and set, and array) until a first entry: most partitions never see an
   * aborted transaction (empty-collections.ts).
   */
  private segments: ReadonlyMap<number, AbortedTxn[]> = emptyMap();
  private bases: readonly number[] = NO_BASES;
  /** Segments whose file was written since the last flush. */
  private dirty: ReadonlySet<number> = emptySet();

  constructor(
    /** The partition directory. */
    private readonly dir: string,
    readonly disk: ProducerStateDisk,
  ) {}

  /**
   * Reads every `.txnindex` file of the directory. Files of segments that no longer exist
   * (`segmentBaseOffsets` lists those that do) are deleted: a crash between a segment's deletion
   * and its index's.
   */
  load(segmentBaseOffsets: readonly number[]): void {
    this.loadedValue = true;
    this.segments = emptyMap();
    this.dirty = emptySet();
    const existing = new Set(segmentBaseOffsets);
    for (const name of this.disk.list(this.dir)) {
      const match = /^(\d{20})\.txnindex$/.exec(name);
      if (match === null) continue;
      const baseOffset = Number(match[1]);
      const file = path.join(this.dir, name);
      if (!existing.has(baseOffset)) {
        this.disk.delete(file);
        continue;
      }
      const entries = decodeAbortedTxns(this.readFile(file));
      if (entries.length > 0) this.writableSegments().set(baseOffset, entries);
    }
    this.sortBases();
  }

  get isLoaded(): boolean {
    return this.loadedValue;
  }

  /**
   * Drops the entries whose ABORT marker is at one of `markerOffsets` (the cleaner removed those
   * markers and, before them, every batch of their transactions). Returns how many it dropped.
   */
  removeAbortedTxns(markerOffsets: ReadonlySet<number>): number {
    let removed = 0;
    for (const base of [...this.bases]) {
      const entries = this.segments.get(base)!;
      const kept = entries.filter((entry) => !markerOffsets.has(entry.lastOffset));
      if (kept.length === entries.length) continue;
      removed += entries.length - kept.length;
      this.writableSegments().set(base, kept);
      this.rewrite(base);
      if (kept.length === 0) this.writableSegments().delete(base);
    }
    this.sortBases();
    return removed;
  }

  /** Every entry, in marker order (tests, the cleaner). */
  allAbortedTxns(): AbortedTxn[] {
    return this.bases.flatMap((base) => this.segments.get(base)!);
  }

  /**
   * Records an aborted transaction whose marker is in the segment at `segmentBaseOffset`. An
   * entry with the same marker offset already present is left as it is (a replay).
   */
  append(segmentBaseOffset: number, entry: AbortedTxn): void {
    assert(entry.firstOffset <= entry.lastOffset && segmentBaseOffset <= entry.lastOffset, 'aborted txn inside its segment');
    let entries = this.segments.get(segmentBaseOffset);
    if (entries?.some((e) => e.lastOffset === entry.lastOffset)) return;
    if (entries === undefined) {
      entries = [];
      this.writableSegments().set(segmentBaseOffset, entries);
      this.sortBases();
    }
    const last = entries[entries.length - 1];
    if (last === undefined || last.lastOffset < entry.lastOffset) {
      entries.push(entry);
      this.writeAt(segmentBaseOffset, encodeAbortedTxns([entry]), (entries.length - 1) * ABORTED_TXN_ENTRY_SIZE);
    } else {
      // Out of order (a replay filling a gap): rewrite the segment's file.
      entries.push(entry);
      entries.sort((a, b) => a.lastOffset - b.lastOffset);
      this.rewrite(segmentBaseOffset);
    }
  }

  /** Removes the entries whose marker is at or past `offset` (the log was truncated there). */
  truncateFrom(offset: number): void {
    for (const base of [...this.bases]) {
      const entries = this.segments.get(base)!;
      const kept = entries.filter((entry) => entry.lastOffset < offset);
      if (kept.length === entries.length) continue;
      if (kept.length === 0) {
        this.writableSegments().delete(base);
        if (this.dirty.has(base)) this.writableDirty().delete(base);
        this.disk.delete(this.fileOf(base));
      } else {
        this.writableSegments().set(base, kept);
        this.rewrite(base);
      }
    }
    this.sortBases();
  }

  /** Forgets (and deletes the files of) the segments below `baseOffset` (retention, DeleteRecords). */
  deleteSegmentsBefore(baseOffset: number): void {
    for (const base of this.bases) {
      if (base >= baseOffset) break;
      this.writableSegments().delete(base);
      if (this.dirty.has(base)) this.writableDirty().delete(base);
      this.disk.delete(this.fileOf(base));
    }
    this.sortBases();
  }

  /** Forgets everything and deletes every file (the log was emptied). */
  deleteAll(): void {
    this.deleteSegmentsBefore(Number.MAX_SAFE_INTEGER);
  }

  /** Fsyncs the files written since the last flush. */
  flush(): void {
    for (const base of this.dirty) {
      const fd = this.disk.open(this.fileOf(base), 'readWrite');
      try {
        this.disk.fsync(fd);
      } finally {
        this.disk.close(fd);
      }
    }
    this.dirty = emptySet();
  }

  /**
   * Kafka's collectAbortedTxns over the segments: the aborted transactions overlapping
   * [fetchOffset, upperBoundOffset) (lastOffset >= fetchOffset and firstOffset < upperBoundOffset),
   * in marker order. The search stops at the first entry whose lastStableOffset reaches
   * upperBoundOffset: every later transaction started at or after it.
   */
  collectAbortedTxns(fetchOffset: number, upperBoundOffset: number): AbortedTxn[] {
    const found: AbortedTxn[] = [];
    for (const base of this.bases) {
      for (const entry of this.segments.get(base)!) {
        if (entry.lastOffset < fetchOffset) continue;
        if (entry.firstOffset < upperBoundOffset) found.push(entry);
        if (entry.lastStableOffset >= upperBoundOffset) return found;
      }
    }
    return found;
  }

  private sortBases(): void {
    this.bases = this.segments.size === 0 ? NO_BASES : [...this.segments.keys()].sort((a, b) => a - b);
  }

  /** The segments map to write to: this index's own, made on the first write. */
  private writableSegments(): Map<number, AbortedTxn[]> {
    const own = ownMap(this.segments);
    this.segments = own;
    return own;
  }

  /** The dirty set to write to: this index's own, made on the first write. */
  private writableDirty(): Set<number> {
    const own = ownSet(this.dirty);
    this.dirty = own;
    return own;
  }

  private fileOf(baseOffset: number): string {
    return path.join(this.dir, txnIndexFileName(baseOffset));
  }

  private rewrite(baseOffset: number): void {
    const bytes = encodeAbortedTxns(this.segments.get(baseOffset) ?? []);
    const fd = this.disk.open(this.fileOf(baseOffset), 'create');
    try {
      this.disk.truncate(fd, 0);
      this.disk.write(fd, bytes, 0);
    } finally {
      this.disk.close(fd);
    }
    this.writableDirty().add(baseOffset);
  }

  private writeAt(baseOffset: number, bytes: Uint8Array, position: number): void {
    const fd = this.disk.open(this.fileOf(baseOffset), 'create');
    try {
      // A torn tail left by a crash is overwritten (or cut) here.
      if (this.disk.fileSize(fd) !== position) this.disk.truncate(fd, position);
      this.disk.write(fd, bytes, position);
    } finally {
      this.disk.close(fd);
    }
    this.writableDirty().add(baseOffset);
  }

  private readFile(file: string): Buffer {
    const fd = this.disk.open(file, 'read');
    try {
      const size = this.disk.fileSize(fd);
      const buffer = Buffer.alloc(size);
      const read = this.disk.read(fd, buffer, 0, size, 0);
      return buffer.subarray(0, read);
    } finally {
      this.disk.close(fd);
    }
  }
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`TransactionIndex assertion failed: ${message}`);
}
