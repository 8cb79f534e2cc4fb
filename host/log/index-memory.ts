/**
 * Where offset and time index entries live in memory, with a bound.
 *
 * Index entries are kept in regions of the WebAssembly core's index arena, so the core's
 * binary search runs over them in place. The arena is fixed in size, so:
 * - indexes of closed segments are *evictable*: they are already on disk, and the least recently
 *   used ones are dropped (region freed) when space is needed, then read back on demand;
 * - when the arena still cannot satisfy an allocation, the index goes to the JavaScript heap
 *   instead (searched in JavaScript), so storage never fails for lack of index memory;
 * - evictable indexes also have a total byte budget wherever they live (`maxEvictableBytes`),
 *   which bounds memory for brokers with very many segments.
 */

/** A region handed out by the core's index arena (structurally `IndexRegion` of host/wasm/core.ts). */
export interface IndexRegion {
  ptr: number;
  capacityBytes: number;
  view: Buffer;
}

/** The part of the WebAssembly core the indexes use (structurally a subset of `Core`). */
export interface IndexCore {
  allocIndex(capacityBytes: number): IndexRegion | null;
  freeIndex(region: IndexRegion): void;
  offsetIndexLookup(region: IndexRegion, entryCount: number, targetRelativeOffset: number): number;
  timeIndexLookup(region: IndexRegion, entryCount: number, targetTimestamp: number): number;
}

/** Memory holding one index's entries: a core region, or a heap buffer when `region` is null. */
export interface IndexStore {
  view: Buffer;
  region: IndexRegion | null;
}

/** An index that can give its memory back and reload it from its file later. */
export interface EvictableIndex {
  /** Bytes of memory currently held. */
  readonly loadedBytes: number;
  /** Frees the memory; the index reloads from its file on the next use. */
  evict(): void;
}

/** Default budget for evictable (closed-segment) index memory, bytes. */
export const DEFAULT_MAX_EVICTABLE_INDEX_BYTES = 256 * 1024 * 1024;

export class IndexMemory {
  readonly core: IndexCore | null;
  readonly maxEvictableBytes: number;
  // Insertion order = LRU order (first key is least recently used).
  private readonly evictable = new Map<EvictableIndex, number>();
  private evictableBytes = 0;

  /**
   * @param core the WebAssembly core, or null to keep every index on the heap
   * @param maxEvictableBytes budget for closed-segment indexes, bytes
   */
  constructor(core: IndexCore | null, maxEvictableBytes = DEFAULT_MAX_EVICTABLE_INDEX_BYTES) {
    this.core = core;
    this.maxEvictableBytes = maxEvictableBytes;
  }

  /** Bytes held by evictable indexes. */
  get evictableLoadedBytes(): number {
    return this.evictableBytes;
  }

  /** Memory for `capacityBytes` of entries (zero-filled is not promised). Never fails. */
  allocate(capacityBytes: number): IndexStore {
    if (this.core !== null) {
      let region = this.core.allocIndex(capacityBytes);
      while (region === null && this.evictable.size > 0) {
        this.evictLeastRecentlyUsed();
        region = this.core.allocIndex(capacityBytes);
      }
      if (region !== null) return { view: region.view.subarray(0, capacityBytes), region };
    }
    return { view: Buffer.allocUnsafe(capacityBytes), region: null };
  }

  /** Returns memory from {@link allocate}. */
  free(store: IndexStore): void {
    if (store.region !== null) this.core!.freeIndex(store.region);
  }

  /** Marks `index` evictable (or refreshes its recency and size), then enforces the budget. */
  touchEvictable(index: EvictableIndex): void {
    const previous = this.evictable.get(index);
    if (previous !== undefined) {
      this.evictable.delete(index);
      this.evictableBytes -= previous;
    }
    this.evictable.set(index, index.loadedBytes);
    this.evictableBytes += index.loadedBytes;
    while (this.evictableBytes > this.maxEvictableBytes && this.evictable.size > 1) {
      const [lru] = this.evictable.keys();
      if (lru === index) break;
      this.evictLeastRecentlyUsed();
    }
  }

  /** Stops tracking `index` (it became active again, or is being closed). */
  forget(index: EvictableIndex): void {
    const bytes = this.evictable.get(index);
    if (bytes === undefined) return;
    this.evictable.delete(index);
    this.evictableBytes -= bytes;
  }

  private evictLeastRecentlyUsed(): void {
    const [lru] = this.evictable.keys();
    if (lru === undefined) return;
    this.forget(lru);
    lru.evict();
  }
}
