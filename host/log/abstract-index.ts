/**
 * What OffsetIndex and TimeIndex share: fixed-size big-endian entries sorted by key, held in
 * memory from {@link IndexMemory} and persisted to the segment's index file (Kafka's layout, no
 * header, size = entries x entry size).
 *
 * Unlike Kafka we neither mmap nor preallocate the file: entries are appended in memory and
 * written to the file by {@link AbstractIndex.flush} (segment roll, flush policy, clean shutdown).
 * An index that was not flushed before a crash belongs to a segment past the recovery point, and
 * recovery rebuilds it from the log. Indexes of closed segments are flushed, so they can be
 * evicted from memory and read back on demand.
 */
import type { FileHandleCache } from './file-handle-cache.js';
import type { EvictableIndex, IndexCore, IndexMemory, IndexStore } from './index-memory.js';

/** An index file that fails its sanity check; the owner rebuilds it from the log. */
export class IndexCorruptError extends Error {
  constructor(filePath: string, reason: string) {
    super(`corrupt index ${filePath}: ${reason}`);
    this.name = 'IndexCorruptError';
  }
}

/** Capacity of a fresh active index, bytes; it doubles up to the configured maximum. */
const INITIAL_ACTIVE_CAPACITY_BYTES = 8 * 1024;

export abstract class AbstractIndex implements EvictableIndex {
  readonly baseOffset: number;
  readonly filePath: string;
  readonly entrySize: number;
  /** floor(segment.index.bytes / entrySize): the index is full at this many entries. */
  readonly maxEntries: number;
  protected entryCount = 0;
  protected store: IndexStore | null = null;
  private readonly memory: IndexMemory;
  private readonly files: FileHandleCache;
  /** Leading entries whose bytes in the file are known to be right. */
  private persistedEntries = 0;
  /** Current length of the file, bytes (meaningless while {@link filePending}). */
  private fileBytes = 0;
  /** True until the first flush of a new segment's index: the file may be missing or stale. */
  private filePending = false;
  private active: boolean;

  protected constructor(
    baseOffset: number, filePath: string, entrySize: number, maxIndexSizeBytes: number,
    memory: IndexMemory, files: FileHandleCache, active: boolean,
  ) {
    this.baseOffset = baseOffset;
    this.filePath = filePath;
    this.entrySize = entrySize;
    this.maxEntries = Math.max(1, Math.floor(maxIndexSizeBytes / entrySize));
    this.memory = memory;
    this.files = files;
    this.active = active;
  }

  /** Number of entries. */
  get entries(): number {
    return this.entryCount;
  }

  /** True when no more entries fit (the segment must roll). */
  get isFull(): boolean {
    return this.entryCount >= this.maxEntries;
  }

  get loadedBytes(): number {
    return this.store === null ? 0 : this.store.view.length;
  }

  /** True while this index belongs to the active segment (never evicted). */
  get isActive(): boolean {
    return this.active;
  }

  /**
   * Starts an empty index for a new segment without touching the disk: the file is made (or an
   * old one at the same path emptied) by the first {@link flush} (Kafka's LazyIndex, which also
   * leaves the file alone until first used). A topic created with thousands of partitions then
   * costs no index files until each partition's first flush (roll, flush policy, clean
   * shutdown), and no descriptors churned through the FileHandleCache. Until then the file may
   * be missing or hold an old segment's entries; nothing reads it: the entries live in memory,
   * and an index is only evicted (and read back) once flushed. No memory is taken until the
   * first entry (or a lookup) either: most partitions of a broker with many are empty or never
   * reach index.interval.bytes.
   */
  protected initCreate(): void {
    this.entryCount = 0;
    this.persistedEntries = 0;
    this.fileBytes = 0;
    this.filePending = true;
    this.clearLastEntry();
  }

  /**
   * Opens an existing index file: checks its size and reads only its last entry (the rest loads
   * on demand). Throws IndexCorruptError when the size is not a whole number of entries, or
   * DiskError.
   *
   * `knownEmpty`: the caller knows the file holds no entries (after a clean shutdown, the index
   * of an empty log segment was flushed empty), so it is neither opened nor sized, and no memory
   * is taken until the first entry or lookup (Kafka's LazyIndex; its clean-shutdown load skips
   * index sanity checks too). A start-up with 10,000 idle partitions saves four syscalls, a
   * descriptor and an 8 KiB region per index.
   */
  protected initOpen(knownEmpty = false): void {
    if (knownEmpty) {
      this.entryCount = 0;
      this.persistedEntries = 0;
      this.fileBytes = 0;
      this.clearLastEntry();
      return;
    }
    const fd = this.files.fd(this.filePath);
    const size = this.files.disk.fileSize(fd);
    if (size % this.entrySize !== 0) throw new IndexCorruptError(this.filePath, `size ${size} is not a multiple of ${this.entrySize}`);
    this.entryCount = size / this.entrySize;
    this.persistedEntries = this.entryCount;
    this.fileBytes = size;
    if (this.entryCount > 0) {
      const last = Buffer.alloc(this.entrySize);
      this.files.disk.read(fd, last, 0, this.entrySize, size - this.entrySize);
      this.cacheLastEntry(last, 0);
    } else {
      this.clearLastEntry();
    }
    if (this.active && this.entryCount > 0) this.ensureLoaded();
  }

  /** Replaces all entries (recovery rebuild, cleaner output); the file is rewritten at flush. No memory is held for none. */
  resetEntries(entries: Buffer): void {
    if (entries.length % this.entrySize !== 0) throw new Error('resetEntries: partial entry');
    this.release();
    this.entryCount = entries.length / this.entrySize;
    this.persistedEntries = 0;
    if (this.entryCount === 0) {
      // Empty (a recovered empty segment): no memory until the first entry, as after initCreate.
      this.clearLastEntry();
      return;
    }
    this.allocateFor(Math.max(entries.length, this.entrySize), this.active ? INITIAL_ACTIVE_CAPACITY_BYTES : 0);
    entries.copy(this.store!.view, 0);
    this.cacheLastEntry(this.store!.view, (this.entryCount - 1) * this.entrySize);
  }

  /** A copy of the entries' bytes (tests, rebuild comparison). */
  entryBytes(): Buffer {
    this.ensureLoaded();
    return Buffer.from(this.store!.view.subarray(0, this.entryCount * this.entrySize));
  }

  /**
   * Writes entries not yet in the file and fsyncs it. Throws DiskError; on failure nothing in
   * memory changes and the next flush rewrites what is missing.
   */
  flush(): void {
    const wanted = this.entryCount * this.entrySize;
    if (!this.filePending && this.persistedEntries === this.entryCount && this.fileBytes === wanted) return;
    const fd = this.files.fd(this.filePath, true);
    const disk = this.files.disk;
    const made = this.filePending;
    // A new file is truncated only when a stale one is longer: the write below covers [0, wanted),
    // and truncating an empty file makes its close start writeback on ext4 (writeFileAtomically).
    if ((made ? disk.fileSize(fd) : this.fileBytes) > wanted) disk.truncate(fd, wanted);
    this.fileBytes = made ? wanted : Math.min(this.fileBytes, wanted);
    const from = this.persistedEntries * this.entrySize;
    if (wanted > from) disk.write(fd, this.store!.view.subarray(from, wanted), from);
    // A new empty file needs no fsync (as when it was made at segment creation): an index that
    // is missing or empty after a crash is rebuilt by recovery, or empty anyway.
    if (!made || wanted > 0) disk.fsync(fd);
    this.filePending = false;
    this.persistedEntries = this.entryCount;
    this.fileBytes = wanted;
    this.maybeEvictable();
  }

  /** True until the first flush of a new segment's index (its file not made yet). */
  get isFilePending(): boolean {
    return this.filePending;
  }

  /**
   * The segment stopped being active: shrink memory to the entries, and if the file is current,
   * let the memory be evicted.
   */
  markInactive(): void {
    this.active = false;
    if (this.store !== null) {
      const exact = Math.max(this.entryCount * this.entrySize, this.entrySize);
      if (this.store.view.length > exact) {
        const old = this.store;
        this.store = this.memory.allocate(exact);
        old.view.copy(this.store.view, 0, 0, this.entryCount * this.entrySize);
        this.memory.free(old);
      }
    }
    this.maybeEvictable();
  }

  /** The segment became active again (truncation): pin the index in memory (an empty one at its first entry). */
  markActive(): void {
    this.active = true;
    this.memory.forget(this);
    if (this.entryCount > 0) this.ensureLoaded();
  }

  evict(): void {
    if (this.active || this.persistedEntries !== this.entryCount) throw new Error(`evicting unpersisted index ${this.filePath}`);
    const store = this.store;
    this.store = null;
    if (store !== null) this.memory.free(store);
  }

  /** Frees memory and closes the file handle (segment closed or deleted). */
  release(): void {
    this.memory.forget(this);
    if (this.store !== null) {
      this.memory.free(this.store);
      this.store = null;
    }
  }

  /** Closes and deletes the file. Throws DiskError. */
  deleteFile(): void {
    this.release();
    this.files.release(this.filePath);
    this.files.disk.delete(this.filePath);
  }

  /** Loads the entries into memory if evicted or never loaded. Throws IndexCorruptError, DiskError. */
  protected ensureLoaded(): void {
    if (this.store !== null) {
      if (!this.active) this.maybeEvictable();
      return;
    }
    const bytes = this.entryCount * this.entrySize;
    this.allocateFor(Math.max(bytes, this.entrySize), this.active ? INITIAL_ACTIVE_CAPACITY_BYTES : 0);
    if (bytes > 0) {
      const fd = this.files.fd(this.filePath);
      const n = this.files.disk.read(fd, this.store!.view, 0, bytes, 0);
      if (n !== bytes) {
        this.release();
        throw new IndexCorruptError(this.filePath, `short file: ${n} of ${bytes} bytes`);
      }
      const problem = this.checkEntries();
      if (problem !== null) {
        this.release();
        throw new IndexCorruptError(this.filePath, problem);
      }
    }
    this.maybeEvictable();
  }

  /**
   * Room for one more entry (growing the active index's memory by doubling). A closed segment's
   * index gains entries only while recovery rebuilds it: it stops being evictable until flushed
   * (only an index whose file holds every entry may be dropped, and never while it grows here).
   */
  protected reserveEntry(): Buffer {
    this.ensureLoaded();
    if (!this.active) this.memory.forget(this);
    const needed = (this.entryCount + 1) * this.entrySize;
    if (needed > this.store!.view.length) {
      const capacity = Math.min(Math.max(needed, this.store!.view.length * 2), this.maxEntries * this.entrySize);
      const old = this.store!;
      this.store = this.memory.allocate(Math.max(capacity, needed));
      old.view.copy(this.store.view, 0, 0, this.entryCount * this.entrySize);
      this.memory.free(old);
    }
    return this.store!.view;
  }

  /** Drops entries from `keep` on. */
  protected truncateEntries(keep: number): void {
    if (keep >= this.entryCount) return;
    this.entryCount = keep;
    this.persistedEntries = Math.min(this.persistedEntries, keep);
    if (keep > 0) this.cacheLastEntry(this.store!.view, (keep - 1) * this.entrySize);
    else this.clearLastEntry();
  }

  /** Counts an entry written by the subclass at slot `entryCount`. */
  protected commitEntry(): void {
    this.entryCount++;
    this.cacheLastEntry(this.store!.view, (this.entryCount - 1) * this.entrySize);
  }

  /** Largest slot whose key <= `target` in JavaScript (heap indexes), or -1. */
  protected searchHeap(target: number, keyAt: (slot: number) => number): number {
    let low = 0;
    let high = this.entryCount - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (keyAt(middle) <= target) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  }

  /** The core that owns regions (only called when `store.region` is not null). */
  protected memoryCore(): IndexCore {
    return this.memory.core!;
  }

  /** Checks loaded entries (ordering, ranges); returns a reason or null. */
  protected abstract checkEntries(): string | null;
  protected abstract cacheLastEntry(bytes: Buffer, position: number): void;
  protected abstract clearLastEntry(): void;

  private allocateFor(bytes: number, activeMinimum: number): void {
    const capacity = this.active ? Math.min(Math.max(bytes, activeMinimum), Math.max(bytes, this.maxEntries * this.entrySize)) : bytes;
    this.store = this.memory.allocate(capacity);
  }

  private maybeEvictable(): void {
    if (!this.active && this.store !== null && this.persistedEntries === this.entryCount) this.memory.touchEvictable(this);
  }
}
