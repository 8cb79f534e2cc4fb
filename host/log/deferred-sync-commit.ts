/**
 * The log directories' side of a deferred-sync batch (host/io/deferred-sync-disk.ts): which
 * directories the commit syncs whole, and what a failed commit takes offline.
 */
import type { DeferredSyncDisk } from '../io/deferred-sync-disk.js';
import { isDiskError } from '../io/disk.js';
import type { LogDirectory } from './log-directory.js';

/**
 * Runs `work` (synchronous: nothing else writes meanwhile) with `disk`'s fsyncs, renames and
 * deletes deferred, then commits: two syncfs per online log directory instead of an fsync per
 * file (or the same fsyncs in a crash-safe order where syncfs is missing). For the clean
 * shutdown's writes of every partition (producer-state snapshots, the logs' flushes); whatever
 * claims those writes durable (recovery-point checkpoints, the clean-shutdown marker) is written
 * after this returns. A disk error in the commit takes every online directory offline: nothing
 * written in `work` can be assumed durable, and without the marker the next start recovers them.
 * A call made while already deferring runs `work` inside the outer batch. Rethrows what `work`
 * throws, after the commit.
 */
export function runWithDeferredSync(disk: DeferredSyncDisk, directories: readonly LogDirectory[], work: () => void): void {
  if (disk.deferring) return work();
  disk.defer();
  try {
    work();
  } finally {
    const online = directories.filter((directory) => !directory.isOffline);
    try {
      disk.commit(online.map((directory) => directory.path));
    } catch (error) {
      if (!isDiskError(error)) throw error;
      for (const directory of online) directory.markOffline(error);
    }
  }
}
