/**
 * What the LogManager keeps per log directory, and the content of its four checkpoint files
 * (Kafka's recovery-point, log-start-offset, replication-offset and cleaner-offset checkpoints),
 * built from the directory's logs.
 */
import type { LogCleaner } from './log-cleaner.js';
import type { LogDirectory } from './log-directory.js';
import { type CheckpointEntry, type OffsetCheckpointFile, topicPartitionKey } from './offset-checkpoint-file.js';
import type { UnifiedLog } from './unified-log.js';

/** One checkpoint file's content: its entries and their text (for the unchanged-skip). */
export interface ChangedCheckpoint {
  file: OffsetCheckpointFile;
  text: string;
  entries: CheckpointEntry[];
}

/** What the LogManager keeps per log directory (`log.dirs` entry). */
export interface DirectoryState {
  directory: LogDirectory;
  recoveryPoints: OffsetCheckpointFile;
  logStartOffsets: OffsetCheckpointFile;
  highWatermarks: OffsetCheckpointFile;
  cleanerOffsets: OffsetCheckpointFile;
  /** Last written checkpoint text per file, to skip unchanged writes. */
  lastWritten: Map<string, string>;
  /** Synchronous writes per file, so a background write they overtook is dropped. */
  syncWrites: Map<string, number>;
  /** The background checkpoint write in progress (one at a time per directory), else null. */
  backgroundWrite: Promise<void> | null;
  /** Partitions (topicPartitionKey) a checkpoint file of the directory may hold with a non-zero offset. */
  nonZeroKeys: Set<string>;
  /** Logs held in this directory (where a new log goes: the directory holding the fewest). */
  logCount: number;
}

/**
 * The four checkpoints of a directory holding `logs`, in file order (recovery points, log start
 * offsets, high watermarks, cleaner offsets): each file's entries and their text (compared with
 * what was last written, to skip unchanged writes).
 */
export function checkpointContents(state: DirectoryState, logs: readonly UnifiedLog[], cleaner: LogCleaner): ChangedCheckpoint[] {
  const content = (file: OffsetCheckpointFile, offset: (log: UnifiedLog) => number | undefined): ChangedCheckpoint => {
    const entries: CheckpointEntry[] = [];
    for (const log of logs) {
      const value = offset(log);
      if (value !== undefined) entries.push({ topic: log.topic, partition: log.partition, offset: value });
    }
    const text = entries.map((entry) => `${entry.topic} ${entry.partition} ${entry.offset}`).join('\n');
    return { file, text, entries };
  };
  return [
    content(state.recoveryPoints, (log) => log.recoveryPoint),
    content(state.logStartOffsets, (log) => log.logStartOffset),
    content(state.highWatermarks, (log) => log.highWatermark),
    content(state.cleanerOffsets, (log) => cleaner.firstDirtyOffset(log)),
  ];
}

/** Notes the partitions of checkpoint `entries` about to be written (or read) with a non-zero offset. */
export function noteNonZero(state: DirectoryState, entries: Iterable<CheckpointEntry>): void {
  for (const entry of entries) if (entry.offset !== 0) state.nonZeroKeys.add(topicPartitionKey(entry.topic, entry.partition));
}
