/**
 * Start-up of one log directory: reads its four checkpoint files (Kafka's recovery-point,
 * log-start-offset, replication-offset and cleaner-offset checkpoints), removes `-delete`
 * directories left by an interrupted deletion, skips `-stray` ones and directories that are not
 * partition logs, and opens (recovering when needed) every partition log in it.
 */
import * as path from 'node:path';
import { isDiskError } from '../io/disk.js';
import type { LogConfig } from './log-config.js';
import { type DirectoryState, noteNonZero } from './log-directory-state.js';
import { withKnownListings } from './log-loader.js';
import { topicPartitionKey } from './offset-checkpoint-file.js';
import { DELETE_DIR_SUFFIX, parseTopicPartitionDir, STRAY_DIR_SUFFIX } from './partition-dir-names.js';
import type { StorageContext } from './storage-context.js';
import { LEADER_EPOCH_CHECKPOINT_FILE } from './leader-epoch-file-cache.js';
import { UnifiedLog } from './unified-log.js';

/** One partition log found in a log directory. */
export interface LoadedLog {
  /** topicPartitionKey: `<topic>-<partition>`. */
  readonly key: string;
  readonly log: UnifiedLog;
  /** From cleaner-offset-checkpoint, when it has an entry. */
  readonly cleanerOffset?: number;
}

export interface LoadPartitionLogsOptions {
  readonly state: DirectoryState;
  readonly context: StorageContext;
  /** The directory had its clean-shutdown marker: logs skip recovery. */
  readonly hadCleanShutdown: boolean;
  /** Filled with each partition directory's listing (reused by the loader and the producer state). */
  readonly listings: Map<string, string[]>;
  /** A topic's log config (broker defaults with the topic's overrides). */
  readonly configOf: (topic: string) => LogConfig;
}

/**
 * Opens every partition log of `state`'s directory, in listing order. What is on disk counts as
 * written for the checkpoint files (`state.lastWritten`), so the write after the load only touches
 * files whose content changes. Throws DiskError (the caller takes the directory offline).
 */
export function loadPartitionLogs(options: LoadPartitionLogsOptions): LoadedLog[] {
  const { state, context, hadCleanShutdown, listings } = options;
  const disk = context.files.disk;
  const dir = state.directory.path;
  const recoveryPoints = state.recoveryPoints.read();
  const logStartOffsets = state.logStartOffsets.read();
  const highWatermarks = state.highWatermarks.read();
  const cleanerOffsets = state.cleanerOffsets.read();
  // A restart after a clean stop usually rewrites no checkpoint (each rewrite is two fsyncs
  // before the broker can listen).
  for (const [file, entries] of [
    [state.recoveryPoints, recoveryPoints], [state.logStartOffsets, logStartOffsets],
    [state.highWatermarks, highWatermarks], [state.cleanerOffsets, cleanerOffsets],
  ] as const) {
    state.lastWritten.set(file.filePath, [...entries.values()].map((entry) => `${entry.topic} ${entry.partition} ${entry.offset}`).join('\n'));
    noteNonZero(state, entries.values());
  }
  const loaded: LoadedLog[] = [];
  // The loader reuses each partition directory's listing from this scan (no second stat + list).
  withKnownListings(context, listings, () => {
    for (const name of disk.list(dir)) {
      const full = path.join(dir, name);
      if (name.endsWith(DELETE_DIR_SUFFIX)) {
        if (disk.isDirectory(full)) removeDirectory(disk, full);
        continue;
      }
      if (name.endsWith(STRAY_DIR_SUFFIX)) continue;
      const parsed = parseTopicPartitionDir(name);
      if (parsed === null) continue;
      // Listing a partition directory also tells it is one (a file answers ENOTDIR and is
      // skipped), so no stat per entry.
      let entries: string[];
      try {
        entries = disk.list(full);
      } catch (error) {
        if (isDiskError(error) && error.code === 'ENOTDIR') continue;
        throw error;
      }
      // A non-empty directory holding no segment file and none of a log's own files is not a
      // partition log (e.g. `backup-2024`): opening it would write a segment into someone else's
      // directory. A log never appended to has no segment file (they are made by the first
      // append), but may have its leader-epoch-checkpoint (a replicated partition's epoch).
      if (entries.length > 0 && !entries.some(isPartitionLogFile)) continue;
      listings.set(full, entries);
      const key = topicPartitionKey(parsed.topic, parsed.partition);
      const log = UnifiedLog.open({
        dir: full, topic: parsed.topic, partition: parsed.partition, config: options.configOf(parsed.topic), context,
        logDirectory: state.directory,
        recoveryPoint: recoveryPoints.get(key)?.offset ?? 0,
        logStartOffset: logStartOffsets.get(key)?.offset ?? 0,
        highWatermark: highWatermarks.get(key)?.offset ?? 0,
        hadCleanShutdown,
      });
      const cleanerOffset = cleanerOffsets.get(key)?.offset;
      loaded.push(cleanerOffset === undefined ? { key, log } : { key, log, cleanerOffset });
    }
  });
  return loaded;
}

/** Deletes a directory's files, then the directory (one level); with `durable`, fsyncs its parent. Throws DiskError. */
export function removeDirectory(disk: { list(dir: string): string[]; delete(filePath: string): void; fsyncDir(dir: string): void }, dir: string, durable = true): void {
  for (const name of disk.list(dir)) disk.delete(path.join(dir, name));
  disk.delete(dir);
  if (durable) disk.fsyncDir(path.dirname(dir));
}

/** A file only a partition log holds: a segment, or the leader-epoch checkpoint. */
function isPartitionLogFile(name: string): boolean {
  return name.endsWith('.log') || name === LEADER_EPOCH_CHECKPOINT_FILE;
}
