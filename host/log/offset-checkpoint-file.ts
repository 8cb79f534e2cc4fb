/**
 * Kafka's OffsetCheckpointFile: the per-log-directory files `recovery-point-offset-checkpoint`,
 * `log-start-offset-checkpoint`, `replication-offset-checkpoint` and `cleaner-offset-checkpoint`.
 * Text, one item per line:
 * ```
 * 0                      <- version
 * 2                      <- number of entries
 * my-topic 0 1234        <- topic partition offset
 * my-topic 1 99
 * ```
 * Written atomically (temp file, fsync, rename, directory fsync), so a reader sees the old or the
 * new content, never a mix.
 */
import * as path from 'node:path';
import { type Disk, isDiskError, readWholeFile, writeFileAtomically } from '../io/disk.js';

export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';
export const REPLICATION_OFFSET_CHECKPOINT_FILE = 'replication-offset-checkpoint';
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';

const CHECKPOINT_VERSION = 0;

/** The key checkpoints use for a partition: `<topic>-<partition>`, like its directory name. */
export function topicPartitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

export interface CheckpointEntry {
  topic: string;
  partition: number;
  offset: number;
}

export class OffsetCheckpointFile {
  readonly disk: Disk;
  readonly filePath: string;

  constructor(disk: Disk, dir: string, name: string) {
    this.disk = disk;
    this.filePath = path.join(dir, name);
  }

  /**
   * The entries, keyed by {@link topicPartitionKey}. A missing file reads as empty; so does a
   * malformed one (it can only come from outside tampering, since writes are atomic, and every
   * checkpoint is a hint that is safe to lose: recovery re-reads more, the log start offset falls
   * back to the first segment, the high watermark to the log start). Throws DiskError on I/O
   * failure.
   */
  read(): Map<string, CheckpointEntry> {
    const entries = new Map<string, CheckpointEntry>();
    let text: string;
    try {
      text = readWholeFile(this.disk, this.filePath).toString('utf8');
    } catch (error) {
      if (isDiskError(error) && error.code === 'ENOENT') return entries;
      throw error;
    }
    const lines = text.split('\n').filter((line) => line.length > 0);
    if (lines.length < 2 || Number(lines[0]) !== CHECKPOINT_VERSION) return new Map();
    const count = Number(lines[1]);
    if (!Number.isInteger(count) || count !== lines.length - 2) return new Map();
    for (const line of lines.slice(2)) {
      const parts = line.split(' ');
      if (parts.length !== 3) return new Map();
      const partition = Number(parts[1]);
      const offset = Number(parts[2]);
      if (!Number.isInteger(partition) || partition < 0 || !Number.isSafeInteger(offset)) return new Map();
      entries.set(topicPartitionKey(parts[0]!, partition), { topic: parts[0]!, partition, offset });
    }
    return entries;
  }

  /** Replaces the file with `entries`, atomically and durably. Throws DiskError. */
  write(entries: Iterable<CheckpointEntry>): void {
    writeFileAtomically(this.disk, this.filePath, checkpointFileBytes(entries));
  }
}

/** The file content for `entries` (version line, count line, one `topic partition offset` line each). */
export function checkpointFileBytes(entries: Iterable<CheckpointEntry>): Buffer {
  const list = [...entries];
  const lines = [String(CHECKPOINT_VERSION), String(list.length)];
  for (const entry of list) lines.push(`${entry.topic} ${entry.partition} ${entry.offset}`);
  return Buffer.from(lines.join('\n') + '\n', 'utf8');
}
