/**
 * What the LogManager keeps per log directory, and the content of its four checkpoint files
 * (Kafka's recovery-point, log-start-offset, replication-offset and cleaner-offset checkpoints),
 * built from the directory's logs.
 */
import type { LogCleaner } from './log-cleaner.js';
import type { Disk } from '../io/disk.js';
import { LogDirectory } from './log-directory.js';
import {
  CLEANER_OFFSET_CHECKPOINT_FILE, type CheckpointEntry, LOG_START_OFFSET_CHECKPOINT_FILE, OffsetCheckpointFile,
  RECOVERY_POINT_CHECKPOINT_FILE, REPLICATION_OFFSET_CHECKPOINT_FILE, topicPartitionKey,
} from './offset-checkpoint-file.js';
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
  /**
   * The logs held in this directory (its size: where a new log goes, the directory holding the
   * fewest), in the order they were added, each with its offsets in the last built content of each
   * checkpoint file (file order; {@link ABSENT_OFFSET} when left out), so an unchanged file is
   * not built again (issue 15: building the four files of 50k partitions every housekeeping
   * period stalled an idle broker 100-300 ms). Changed through {@link addDirectoryLog} and
   * {@link removeDirectoryLog} only. The offsets are a plain array, not a Float64Array: a typed
   * array is three heap objects and a native block, about 300 bytes a partition against 80.
   */
  logs: Map<UnifiedLog, number[]>;
  /** The last built content of each checkpoint file (file order); null until built, or after the logs changed. */
  built: (ChangedCheckpoint | null)[];
}

/** A log's offset left out of a checkpoint file (no cleaner offset yet). */
const ABSENT_OFFSET = -1;
/** The checkpoint files of a directory: recovery points, log start offsets, high watermarks, cleaner offsets. */
const CHECKPOINT_FILE_COUNT = 4;

/** Empty {@link DirectoryState.logs} and {@link DirectoryState.built}, for a new DirectoryState. */
export function emptyDirectoryLogs(): Pick<DirectoryState, 'logs' | 'built'> {
  return { logs: new Map(), built: new Array<ChangedCheckpoint | null>(CHECKPOINT_FILE_COUNT).fill(null) };
}

/** The state of log directory `resolved` (an absolute path) before it is loaded: no logs, nothing written. */
export function newDirectoryState(disk: Disk, resolved: string): DirectoryState {
  return {
    directory: new LogDirectory(resolved),
    recoveryPoints: new OffsetCheckpointFile(disk, resolved, RECOVERY_POINT_CHECKPOINT_FILE),
    logStartOffsets: new OffsetCheckpointFile(disk, resolved, LOG_START_OFFSET_CHECKPOINT_FILE),
    highWatermarks: new OffsetCheckpointFile(disk, resolved, REPLICATION_OFFSET_CHECKPOINT_FILE),
    cleanerOffsets: new OffsetCheckpointFile(disk, resolved, CLEANER_OFFSET_CHECKPOINT_FILE),
    lastWritten: new Map(),
    syncWrites: new Map(),
    backgroundWrite: null,
    nonZeroKeys: new Set(),
    ...emptyDirectoryLogs(),
  };
}

/** `log` is now held in `state`'s directory: every checkpoint file is built again at the next write. */
export function addDirectoryLog(state: DirectoryState, log: UnifiedLog): void {
  state.logs.set(log, new Array<number>(CHECKPOINT_FILE_COUNT).fill(ABSENT_OFFSET));
  state.built.fill(null);
}

/** `log` left `state`'s directory: every checkpoint file is built again at the next write. */
export function removeDirectoryLog(state: DirectoryState, log: UnifiedLog): void {
  if (state.logs.delete(log)) state.built.fill(null);
}

/**
 * The four checkpoints of a directory holding `state.logs`, in file order (recovery points, log
 * start offsets, high watermarks, cleaner offsets): each file's entries and their text (compared
 * with what was last written, to skip unchanged writes). A file none of whose logs' offsets moved
 * since it was last built (and whose logs are the same) is the very same object as then, its text
 * the same string: one pass reading four numbers per log, no entry or text built.
 */
export function checkpointContents(state: DirectoryState, cleaner: LogCleaner): ChangedCheckpoint[] {
  const files = [state.recoveryPoints, state.logStartOffsets, state.highWatermarks, state.cleanerOffsets];
  const offsetOf = (log: UnifiedLog, file: number): number => {
    switch (file) {
      case 0: return log.recoveryPoint;
      case 1: return log.logStartOffset;
      case 2: return log.highWatermark;
      default: return cleaner.firstDirtyOffset(log) ?? ABSENT_OFFSET;
    }
  };
  const stale = state.built.map((content) => content === null);
  if (!stale.every(Boolean)) {
    for (const [log, built] of state.logs) {
      for (let file = 0; file < CHECKPOINT_FILE_COUNT; file++) if (built[file] !== offsetOf(log, file)) stale[file] = true;
    }
  }
  for (let file = 0; file < CHECKPOINT_FILE_COUNT; file++) {
    if (!stale[file]) continue;
    const entries: CheckpointEntry[] = [];
    for (const [log, built] of state.logs) {
      const offset = offsetOf(log, file);
      built[file] = offset;
      if (offset !== ABSENT_OFFSET) entries.push({ topic: log.topic, partition: log.partition, offset });
    }
    const text = entries.map((entry) => `${entry.topic} ${entry.partition} ${entry.offset}`).join('\n');
    state.built[file] = { file: files[file]!, text, entries };
  }
  return state.built as ChangedCheckpoint[];
}

/** Notes the partitions of checkpoint `entries` about to be written (or read) with a non-zero offset. */
export function noteNonZero(state: DirectoryState, entries: Iterable<CheckpointEntry>): void {
  for (const entry of entries) if (entry.offset !== 0) state.nonZeroKeys.add(topicPartitionKey(entry.topic, entry.partition));
}
