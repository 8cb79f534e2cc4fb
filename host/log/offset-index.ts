/**
 * Kafka's OffsetIndex: a sparse map from offset to the file position of the batch holding it.
 * Entries are 8 bytes, big-endian: offset relative to the segment's base offset (int32), then
 * the position of the batch in the .log file (int32). An entry (offset O, position P) means the
 * batch starting at P ends at offset O, so a batch containing any target >= O starts at or after
 * P. Search runs in the WebAssembly core (`offsetIndexLookup`) when the entries live in its arena.
 */
import { AbstractIndex } from './abstract-index.js';
import type { FileHandleCache } from './file-handle-cache.js';
import type { IndexMemory } from './index-memory.js';

/** Bytes per entry (relative offset int32 + position int32). */
export const OFFSET_INDEX_ENTRY_SIZE = 8;
const MAX_RELATIVE_OFFSET = 0x7fffffff;

/** An offset and the file position of the batch that ends at it. */
export interface OffsetPosition {
  offset: number;
  position: number;
}

export class OffsetIndex extends AbstractIndex {
  private lastOffsetValue: number;
  private lastPositionValue = 0;

  private constructor(baseOffset: number, filePath: string, maxIndexSizeBytes: number, memory: IndexMemory, files: FileHandleCache, active: boolean) {
    super(baseOffset, filePath, OFFSET_INDEX_ENTRY_SIZE, maxIndexSizeBytes, memory, files, active);
    this.lastOffsetValue = baseOffset;
  }

  /** A new, empty index file at `filePath`. Throws DiskError. */
  static create(baseOffset: number, filePath: string, maxIndexSizeBytes: number, memory: IndexMemory, files: FileHandleCache, active: boolean): OffsetIndex {
    const index = new OffsetIndex(baseOffset, filePath, maxIndexSizeBytes, memory, files, active);
    index.initCreate();
    return index;
  }

  /**
   * An existing index file (loaded lazily; with `knownEmpty` not even opened, see
   * AbstractIndex.initOpen). Throws IndexCorruptError, DiskError.
   */
  static open(
    baseOffset: number, filePath: string, maxIndexSizeBytes: number, memory: IndexMemory, files: FileHandleCache, active: boolean, knownEmpty = false,
  ): OffsetIndex {
    const index = new OffsetIndex(baseOffset, filePath, maxIndexSizeBytes, memory, files, active);
    index.initOpen(knownEmpty);
    return index;
  }

  /** Offset of the last entry, or the base offset when empty. */
  get lastOffset(): number {
    return this.lastOffsetValue;
  }

  /** Position of the last entry, or 0 when empty. */
  get lastPosition(): number {
    return this.lastPositionValue;
  }

  /** Adds an entry; offsets must increase. Asserts the index is not full. */
  append(offset: number, position: number): void {
    if (this.isFull) throw new Error(`OffsetIndex ${this.filePath} is full (${this.entries} entries)`);
    if (this.entries > 0 && offset <= this.lastOffsetValue) throw new Error(`OffsetIndex append of ${offset} after ${this.lastOffsetValue}`);
    const relative = offset - this.baseOffset;
    if (!(relative >= 0 && relative <= MAX_RELATIVE_OFFSET)) throw new Error(`offset ${offset} out of range for base ${this.baseOffset}`);
    const view = this.reserveEntry();
    const at = this.entries * OFFSET_INDEX_ENTRY_SIZE;
    view.writeUInt32BE(relative, at);
    view.writeUInt32BE(position, at + 4);
    this.commitEntry();
  }

  /** The entry with the largest offset <= `targetOffset`, or (baseOffset, 0) when none. */
  lookup(targetOffset: number): OffsetPosition {
    const slot = this.search(targetOffset);
    return slot < 0 ? { offset: this.baseOffset, position: 0 } : this.entry(slot);
  }

  /** The entry at `slot` (0 <= slot < entries). */
  entry(slot: number): OffsetPosition {
    this.ensureLoaded();
    const at = slot * OFFSET_INDEX_ENTRY_SIZE;
    const view = this.store!.view;
    return { offset: this.baseOffset + view.readUInt32BE(at), position: view.readUInt32BE(at + 4) };
  }

  /** Removes every entry whose offset is >= `offset` (Kafka's OffsetIndex.truncateTo). */
  truncateTo(offset: number): void {
    const slot = this.search(offset);
    if (slot < 0) this.truncateEntries(0);
    else this.truncateEntries(this.entry(slot).offset === offset ? slot : slot + 1);
  }

  private search(targetOffset: number): number {
    if (this.entries === 0 || targetOffset < this.baseOffset) return -1;
    this.ensureLoaded();
    const relative = Math.min(targetOffset - this.baseOffset, MAX_RELATIVE_OFFSET);
    const store = this.store!;
    if (store.region !== null) {
      return this.memoryCore().offsetIndexLookup(store.region, this.entries, relative);
    }
    const view = store.view;
    return this.searchHeap(relative, (slot) => view.readUInt32BE(slot * OFFSET_INDEX_ENTRY_SIZE));
  }

  protected checkEntries(): string | null {
    const view = this.store!.view;
    let previous = -1;
    let previousPosition = -1;
    for (let slot = 0; slot < this.entries; slot++) {
      const relative = view.readUInt32BE(slot * OFFSET_INDEX_ENTRY_SIZE);
      const position = view.readUInt32BE(slot * OFFSET_INDEX_ENTRY_SIZE + 4);
      if (relative <= previous || relative > MAX_RELATIVE_OFFSET) return `entry ${slot} offset ${relative} not after ${previous}`;
      if (position <= previousPosition) return `entry ${slot} position ${position} not after ${previousPosition}`;
      previous = relative;
      previousPosition = position;
    }
    return null;
  }

  protected cacheLastEntry(bytes: Buffer, position: number): void {
    this.lastOffsetValue = this.baseOffset + bytes.readUInt32BE(position);
    this.lastPositionValue = bytes.readUInt32BE(position + 4);
  }

  protected clearLastEntry(): void {
    this.lastOffsetValue = this.baseOffset;
    this.lastPositionValue = 0;
  }
}
