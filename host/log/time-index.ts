/**
 * Kafka's TimeIndex: a sparse map from timestamp to offset. Entries are 12 bytes, big-endian:
 * timestamp (int64, ms), then offset relative to the segment's base offset (int32). Timestamps
 * strictly increase; an entry (T, O) says T is the largest timestamp of the segment up to the
 * entry and O the first offset carrying it, so every record before O is older than T.
 * Search runs in the WebAssembly core (`timeIndexLookup`) when the entries live in its arena.
 */
import { AbstractIndex } from './abstract-index.js';
import type { FileHandleCache } from './file-handle-cache.js';
import type { IndexMemory } from './index-memory.js';

/** Bytes per entry (timestamp int64 + relative offset int32). */
export const TIME_INDEX_ENTRY_SIZE = 12;
const MAX_RELATIVE_OFFSET = 0x7fffffff;
/** Kafka's RecordBatch.NO_TIMESTAMP. */
export const NO_TIMESTAMP = -1;

/** A timestamp and an offset. */
export interface TimestampOffset {
  timestamp: number;
  offset: number;
}

export class TimeIndex extends AbstractIndex {
  private lastTimestampValue = NO_TIMESTAMP;
  private lastOffsetValue: number;

  private constructor(baseOffset: number, filePath: string, maxIndexSizeBytes: number, memory: IndexMemory, files: FileHandleCache, active: boolean) {
    super(baseOffset, filePath, TIME_INDEX_ENTRY_SIZE, maxIndexSizeBytes, memory, files, active);
    this.lastOffsetValue = baseOffset;
  }

  /** A new, empty index file at `filePath`. Throws DiskError. */
  static create(baseOffset: number, filePath: string, maxIndexSizeBytes: number, memory: IndexMemory, files: FileHandleCache, active: boolean): TimeIndex {
    const index = new TimeIndex(baseOffset, filePath, maxIndexSizeBytes, memory, files, active);
    index.initCreate();
    return index;
  }

  /**
   * An existing index file (loaded lazily; with `knownEmpty` not even opened, see
   * AbstractIndex.initOpen). Throws IndexCorruptError, DiskError.
   */
  static open(
    baseOffset: number, filePath: string, maxIndexSizeBytes: number, memory: IndexMemory, files: FileHandleCache, active: boolean, knownEmpty = false,
  ): TimeIndex {
    const index = new TimeIndex(baseOffset, filePath, maxIndexSizeBytes, memory, files, active);
    index.initOpen(knownEmpty);
    return index;
  }

  /** The last entry, or (NO_TIMESTAMP, baseOffset) when empty (as Kafka's lastEntry). */
  get lastEntry(): TimestampOffset {
    return { timestamp: this.lastTimestampValue, offset: this.lastOffsetValue };
  }

  /**
   * Adds (timestamp, offset) when `timestamp` is larger than the last entry's (Kafka's
   * TimeIndex.maybeAppend). Asserts offsets do not go backwards and the index is not full.
   */
  maybeAppend(timestamp: number, offset: number): void {
    if (this.entries > 0 && offset < this.lastOffsetValue) throw new Error(`TimeIndex append of offset ${offset} before ${this.lastOffsetValue}`);
    if (!(timestamp > this.lastTimestampValue)) return;
    if (this.isFull) throw new Error(`TimeIndex ${this.filePath} is full (${this.entries} entries)`);
    const relative = offset - this.baseOffset;
    if (!(relative >= 0 && relative <= MAX_RELATIVE_OFFSET)) throw new Error(`offset ${offset} out of range for base ${this.baseOffset}`);
    const view = this.reserveEntry();
    const at = this.entries * TIME_INDEX_ENTRY_SIZE;
    view.writeBigInt64BE(BigInt(timestamp), at);
    view.writeUInt32BE(relative, at + 8);
    this.commitEntry();
  }

  /** The entry with the largest timestamp <= `targetTimestamp`, or (NO_TIMESTAMP, baseOffset). */
  lookup(targetTimestamp: number): TimestampOffset {
    const slot = this.search(targetTimestamp);
    return slot < 0 ? { timestamp: NO_TIMESTAMP, offset: this.baseOffset } : this.entry(slot);
  }

  /** The entry at `slot` (0 <= slot < entries). */
  entry(slot: number): TimestampOffset {
    this.ensureLoaded();
    const at = slot * TIME_INDEX_ENTRY_SIZE;
    const view = this.store!.view;
    return { timestamp: Number(view.readBigInt64BE(at)), offset: this.baseOffset + view.readUInt32BE(at + 8) };
  }

  /** Removes every entry whose offset is >= `offset` (Kafka's TimeIndex.truncateTo). */
  truncateTo(offset: number): void {
    if (this.entries === 0) return;
    this.ensureLoaded();
    // Offsets are non-decreasing: binary search for the first entry at or after `offset`.
    let low = 0;
    let high = this.entries;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.entry(middle).offset < offset) low = middle + 1;
      else high = middle;
    }
    this.truncateEntries(low);
  }

  private search(targetTimestamp: number): number {
    if (this.entries === 0) return -1;
    this.ensureLoaded();
    const store = this.store!;
    if (store.region !== null) return this.memoryCore().timeIndexLookup(store.region, this.entries, targetTimestamp);
    const view = store.view;
    return this.searchHeap(targetTimestamp, (slot) => Number(view.readBigInt64BE(slot * TIME_INDEX_ENTRY_SIZE)));
  }

  protected checkEntries(): string | null {
    const view = this.store!.view;
    let previousTimestamp = -Infinity;
    let previousOffset = -1;
    for (let slot = 0; slot < this.entries; slot++) {
      const timestamp = Number(view.readBigInt64BE(slot * TIME_INDEX_ENTRY_SIZE));
      const relative = view.readUInt32BE(slot * TIME_INDEX_ENTRY_SIZE + 8);
      if (timestamp <= previousTimestamp) return `entry ${slot} timestamp ${timestamp} not after ${previousTimestamp}`;
      if (relative < previousOffset || relative > MAX_RELATIVE_OFFSET) return `entry ${slot} offset ${relative} before ${previousOffset}`;
      previousTimestamp = timestamp;
      previousOffset = relative;
    }
    return null;
  }

  protected cacheLastEntry(bytes: Buffer, position: number): void {
    this.lastTimestampValue = Number(bytes.readBigInt64BE(position));
    this.lastOffsetValue = this.baseOffset + bytes.readUInt32BE(position + 8);
  }

  protected clearLastEntry(): void {
    this.lastTimestampValue = NO_TIMESTAMP;
    this.lastOffsetValue = this.baseOffset;
  }
}
