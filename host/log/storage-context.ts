/**
 * The shared machinery every log of one LogManager uses: the disk and clock seams, the
 * WebAssembly core, one bounded cache of open file descriptors and one bounded pool of index
 * memory (so the bounds hold across all partitions, not per partition).
 */
import type { Clock } from '../io/clock.js';
import type { Disk } from '../io/disk.js';
import { NodeDisk } from '../io/disk.js';
import { SystemTime } from '../io/time.js';
import { type Core, getCore } from '../wasm/core.js';
import { DEFAULT_MAX_OPEN_FILES, FileHandleCache } from './file-handle-cache.js';
import type { GroupFlusher } from './group-flush.js';
import { DEFAULT_MAX_EVICTABLE_INDEX_BYTES, IndexMemory } from './index-memory.js';

export interface StorageContext {
  readonly disk: Disk;
  readonly clock: Clock;
  readonly core: Core;
  readonly files: FileHandleCache;
  readonly indexMemory: IndexMemory;
  /** The group flush of this manager's logs; undefined: the process's (defaultGroupFlusher). */
  readonly groupFlusher: GroupFlusher | undefined;
}

export interface StorageContextOptions {
  /** Defaults to NodeDisk. */
  disk?: Disk;
  /** Defaults to SystemTime. */
  clock?: Clock;
  /** Defaults to getCore(). */
  core?: Core;
  /** Bound on open file descriptors (default 512). */
  maxOpenFiles?: number;
  /** Budget for closed-segment index memory, bytes (default 256 MiB). */
  maxEvictableIndexBytes?: number;
  /** The group flush for flush-per-append logs (a broker's own); default the process's. */
  groupFlusher?: GroupFlusher;
}

/** Builds a context; the defaults are the real disk, the system clock and the process's core. */
export function createStorageContext(options: StorageContextOptions = {}): StorageContext {
  const disk = options.disk ?? new NodeDisk();
  const core = options.core ?? getCore();
  return {
    disk,
    clock: options.clock ?? new SystemTime(),
    core,
    files: new FileHandleCache(disk, options.maxOpenFiles ?? DEFAULT_MAX_OPEN_FILES),
    indexMemory: new IndexMemory(core, options.maxEvictableIndexBytes ?? DEFAULT_MAX_EVICTABLE_INDEX_BYTES),
    groupFlusher: options.groupFlusher,
  };
}
