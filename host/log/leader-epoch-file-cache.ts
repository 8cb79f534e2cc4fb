/**
 * Kafka's LeaderEpochFileCache: the leader epochs of one partition with the offset each started
 * at, so a replica can answer "where did epoch E end in my log" (OffsetsForLeaderEpoch, Raft's
 * diverging-epoch check) without reading the log.
 *
 * Persisted in the partition directory as `leader-epoch-checkpoint`, Kafka's checkpoint text
 * format (CheckpointFile with LeaderEpochCheckpointFile's entry format):
 * ```
 * 0            <- version
 * 2            <- number of entries
 * 1 0          <- epoch startOffset
 * 3 120
 * ```
 * Every write replaces the file atomically and durably (temp file, fsync, rename, directory
 * fsync), so the file always holds a state the cache had. Truncations from the end and the
 * metadata log's assignments write before the call returns. A data partition's assignments on append and at
 * makeLeader may be `deferred` (issue 15, Kafka's KAFKA-15046: 9,814 fsyncs and seconds of
 * stalled event loop for the first produce to 5,000 new partitions): the entry is kept in
 * memory and written by {@link LeaderEpochFileCache.flush}, which the log calls before its
 * recovery point moves past it (every flush, roll and clean close:
 * partition-directory-sync.ts). After a crash the file may then lack the epochs of batches above
 * the last flush, all in the active segment, which the partition reads back from the batches'
 * partitionLeaderEpoch (PartitionLeaderEpochs.repair, Kafka's LogLoader rebuilding the cache
 * from the recovered segments). A writer assigns an epoch before appending its first batch and
 * truncates the cache after truncating the log, so the cache may also run ahead of the log,
 * which {@link LeaderEpochFileCache.truncateFromEnd} at the recovered log end offset repairs.
 * Truncations from the start (the log start offset moved) may be deferred the same way: the
 * open truncates again at the recovered log start offset.
 *
 * Invariants (asserted): epochs strictly increasing, start offsets non-decreasing, both >= 0.
 */
import { type Disk, DiskError, isDiskError, readWholeFile, writeFileAtomically } from '../io/disk.js';
import { joinFlat } from './flat-path.js';

/** Kafka's file name for the cache. */
export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
/** Kafka's UNDEFINED_EPOCH: no epoch. */
export const UNDEFINED_EPOCH = -1;
/** Kafka's UNDEFINED_EPOCH_OFFSET: no offset. */
export const UNDEFINED_EPOCH_OFFSET = -1;

const CHECKPOINT_VERSION = 0;

/** One entry: `epoch` began at `startOffset` (the offset of its first record). */
export interface EpochEntry {
  readonly epoch: number;
  readonly startOffset: number;
}

/** An answer of {@link LeaderEpochFileCache.endOffsetFor}: an epoch and the offset it ended at (exclusive). */
export interface EpochEndOffset {
  readonly epoch: number;
  readonly endOffset: number;
}

/**
 * When a change reaches the file: `durable` before the call returns; `deferred` at the next
 * {@link LeaderEpochFileCache.flush} (see the file header for who may defer).
 */
export type CheckpointWrite = 'durable' | 'deferred';

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`LeaderEpochFileCache: ${message}`);
}

/**
 * Parses a `leader-epoch-checkpoint` file's text.
 * @throws DiskError `EBADMSG` naming `filePath` when the text is not a version-0 checkpoint of
 *   well-formed, ordered entries (Kafka fails the same way, with a KafkaStorageException: the
 *   file is written atomically, so a malformed one was damaged outside the broker)
 */
export function parseLeaderEpochCheckpoint(text: string, filePath: string): EpochEntry[] {
  const malformed = (detail: string): DiskError => new DiskError('EBADMSG', 'read', filePath, `malformed leader epoch checkpoint: ${detail}`);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length < 2) throw malformed('missing version or entry count line');
  if (lines[0] !== String(CHECKPOINT_VERSION)) throw malformed(`unknown version '${lines[0]}'`);
  const count = Number(lines[1]);
  if (!/^\d+$/.test(lines[1]!) || count !== lines.length - 2) throw malformed(`entry count '${lines[1]}' but ${lines.length - 2} entry lines`);
  const entries: EpochEntry[] = [];
  for (const [i, line] of lines.slice(2).entries()) {
    const match = /^(\d+) (\d+)$/.exec(line);
    const epoch = Number(match?.[1]);
    const startOffset = Number(match?.[2]);
    if (match === null || epoch > 0x7fffffff || !Number.isSafeInteger(startOffset)) throw malformed(`line ${i + 3} '${line}' is not 'epoch startOffset'`);
    const previous = entries[entries.length - 1];
    if (previous !== undefined && (epoch <= previous.epoch || startOffset < previous.startOffset)) {
      throw malformed(`line ${i + 3} '${line}' does not follow epoch ${previous.epoch} at ${previous.startOffset}`);
    }
    entries.push({ epoch, startOffset });
  }
  return entries;
}

/** The file content for `entries` (version line, count line, one `epoch startOffset` line each). */
export function leaderEpochCheckpointBytes(entries: readonly EpochEntry[]): Buffer {
  const lines = [String(CHECKPOINT_VERSION), String(entries.length)];
  for (const entry of entries) lines.push(`${entry.epoch} ${entry.startOffset}`);
  return Buffer.from(lines.join('\n') + '\n', 'utf8');
}

/** The epoch cache of one partition, backed by its `leader-epoch-checkpoint` file. */
export class LeaderEpochFileCache {
  /** The checkpoint file; null for a cache kept in memory only ({@link inMemory}). */
  readonly filePath: string | null;
  private entriesValue: EpochEntry[];
  /** A deferred change is not in the file yet. */
  private pendingWrite = false;

  private constructor(private readonly disk: Disk | null, filePath: string | null, entries: EpochEntry[]) {
    this.filePath = filePath;
    this.entriesValue = entries;
  }

  /**
   * Loads the cache of the partition directory `dir` (empty when the file does not exist; the
   * file is then created by the first change).
   * @throws DiskError on I/O failure, or `EBADMSG` for a malformed file (see
   *   {@link parseLeaderEpochCheckpoint}); callers answer KAFKA_STORAGE_ERROR (56)
   */
  static open(disk: Disk, dir: string): LeaderEpochFileCache {
    const filePath = joinFlat(dir, LEADER_EPOCH_CHECKPOINT_FILE);
    let entries: EpochEntry[] = [];
    try {
      entries = parseLeaderEpochCheckpoint(readWholeFile(disk, filePath).toString('utf8'), filePath);
    } catch (error) {
      if (!isDiskError(error) || error.code !== 'ENOENT') throw error;
    }
    return new LeaderEpochFileCache(disk, filePath, entries);
  }

  /**
   * A cache without a file, starting empty: for partitions over logs that have no directory of
   * their own (test logs); it forgets everything when the process stops.
   */
  static inMemory(): LeaderEpochFileCache {
    return new LeaderEpochFileCache(null, null, []);
  }

  /** The entries, oldest first. */
  entries(): readonly EpochEntry[] {
    return this.entriesValue;
  }

  /** True when the cache holds no epoch. */
  isEmpty(): boolean {
    return this.entriesValue.length === 0;
  }

  /** The latest epoch, or undefined when empty. */
  latestEpoch(): number | undefined {
    return this.latestEntry()?.epoch;
  }

  latestEntry(): EpochEntry | undefined {
    return this.entriesValue[this.entriesValue.length - 1];
  }

  earliestEntry(): EpochEntry | undefined {
    return this.entriesValue[0];
  }

  /**
   * Records that `epoch` starts at `startOffset`; returns true when the cache changed (and the
   * file was rewritten, or will be at the next {@link flush} when `write` is 'deferred'). Kafka's
   * rule (LeaderEpochFileCache.assign): an entry for the latest epoch at or after its known start
   * changes nothing (every append of a leader calls this); otherwise the entries that the new one
   * contradicts, those with an epoch >= `epoch` or a start offset >= `startOffset`, are dropped
   * first (a replica that saw a stale epoch), so epochs stay increasing.
   * @throws Error for a negative epoch or offset (a bug); DiskError when the file write fails
   */
  assign(epoch: number, startOffset: number, write: CheckpointWrite = 'durable'): boolean {
    assert(Number.isInteger(epoch) && epoch >= 0 && epoch <= 0x7fffffff, `epoch ${epoch}`);
    assert(Number.isSafeInteger(startOffset) && startOffset >= 0, `start offset ${startOffset}`);
    const latest = this.latestEntry();
    if (latest !== undefined && latest.epoch === epoch && startOffset >= latest.startOffset) return false;
    const kept = this.entriesValue.filter((entry) => entry.epoch < epoch && entry.startOffset < startOffset);
    kept.push({ epoch, startOffset });
    this.replace(kept, write);
    return true;
  }

  /**
   * Kafka's endOffsetFor (OffsetsForLeaderEpoch): for `requestedEpoch`, the largest known epoch
   * <= it and where that epoch ended (exclusive): the start offset of the next known epoch, or
   * `logEndOffset` for the latest epoch. Kafka's edge cases, kept exactly:
   * - `requestedEpoch` is UNDEFINED_EPOCH (-1), or above every known epoch, or the cache is
   *   empty: `{ epoch: -1, endOffset: -1 }` (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET);
   * - `requestedEpoch` below every known epoch: `{ epoch: requestedEpoch, endOffset: start of the
   *   earliest epoch }` (the caller truncates there).
   */
  endOffsetFor(requestedEpoch: number, logEndOffset: number): EpochEndOffset {
    const entries = this.entriesValue;
    const undefinedAnswer = { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    if (requestedEpoch === UNDEFINED_EPOCH || entries.length === 0) return undefinedAnswer;
    if (this.latestEpoch() === requestedEpoch) return { epoch: requestedEpoch, endOffset: logEndOffset };
    const higher = entries.findIndex((entry) => entry.epoch > requestedEpoch);
    if (higher < 0) return undefinedAnswer;
    const floor = entries[higher - 1];
    return { epoch: floor === undefined ? requestedEpoch : floor.epoch, endOffset: entries[higher]!.startOffset };
  }

  /**
   * The epoch of the record at `offset` (the latest entry starting at or before it), or undefined
   * when `offset` is below the earliest entry (Kafka's epochForOffset). The caller keeps `offset`
   * below the log end offset: the latest epoch is answered for any offset past its start.
   */
  epochForOffset(offset: number): number | undefined {
    let epoch: number | undefined;
    for (const entry of this.entriesValue) {
      if (entry.startOffset > offset) break;
      epoch = entry.epoch;
    }
    return epoch;
  }

  /**
   * After the log was truncated to end at `endOffset`: drops the entries starting at or after it
   * (Kafka's truncateFromEnd). Durable when it returns, or with `write` 'deferred' at the next
   * {@link flush} (only for entries starting exactly at the log end, at open:
   * PartitionLeaderEpochs.repair). @throws DiskError
   */
  truncateFromEnd(endOffset: number, write: CheckpointWrite = 'durable'): void {
    assert(Number.isSafeInteger(endOffset) && endOffset >= 0, `end offset ${endOffset}`);
    const kept = this.entriesValue.filter((entry) => entry.startOffset < endOffset);
    if (kept.length !== this.entriesValue.length) this.replace(kept, write);
  }

  /**
   * After the log start moved up to `startOffset` (deleted records, a snapshot): drops the entries
   * starting at or before it, except the latest of them, which now starts at `startOffset`: its
   * epoch still covers the records from there (Kafka's truncateFromStart). Durable when it
   * returns, or with `write` 'deferred' at the next {@link flush} (Kafka's
   * truncateFromStartAsyncFlush, KAFKA-15046: a DeleteRecords of 50,000 partitions made two fsyncs
   * each): entries a crash keeps from before the log start are dropped again by the truncation at
   * the next open (PartitionLeaderEpochs.repair). @throws DiskError
   */
  truncateFromStart(startOffset: number, write: CheckpointWrite = 'durable'): void {
    assert(Number.isSafeInteger(startOffset) && startOffset >= 0, `start offset ${startOffset}`);
    const first = this.earliestEntry();
    if (first === undefined || first.startOffset >= startOffset) return;
    const removed = this.entriesValue.filter((entry) => entry.startOffset <= startOffset);
    const kept = this.entriesValue.slice(removed.length);
    kept.unshift({ epoch: removed[removed.length - 1]!.epoch, startOffset });
    this.replace(kept, write);
  }

  /**
   * Puts `head` before the entries: the epochs of records below the earliest entry, read back
   * from the log's batches at open (PartitionLeaderEpochs.repair). A head entry with the earliest
   * entry's epoch moves that entry's start down to it. Durable when it returns.
   * @throws Error when the result would not have increasing epochs and start offsets (a bug);
   *   DiskError when the file write fails
   */
  prepend(head: readonly EpochEntry[]): void {
    if (head.length === 0) return;
    const merged: EpochEntry[] = [];
    for (const entry of [...head, ...this.entriesValue]) {
      const last = merged[merged.length - 1];
      if (last !== undefined && last.epoch === entry.epoch) continue;
      assert(last === undefined || (entry.epoch > last.epoch && entry.startOffset > last.startOffset), `epoch ${entry.epoch} at ${entry.startOffset}`);
      merged.push({ epoch: entry.epoch, startOffset: entry.startOffset });
    }
    this.replace(merged);
  }

  /**
   * Forgets every epoch (the log was replaced whole, Kafka's clearAndFlush). Durable when it
   * returns, or with `write` 'deferred' at the next {@link flush}. @throws DiskError
   */
  clear(write: CheckpointWrite = 'durable'): void {
    if (this.entriesValue.length > 0) this.replace([], write);
  }

  /** True while a deferred change is not in the file (always false without a file). */
  get hasPendingWrite(): boolean {
    return this.pendingWrite;
  }

  /**
   * Writes a deferred change to the file, atomically and durably (temp file, fsync, rename);
   * returns true when it wrote. With `syncDirectory` false the caller fsyncs the partition
   * directory for the rename (the log's flush does it once for its own files too).
   * @throws DiskError when the write fails (the change stays pending)
   */
  flush(syncDirectory = true): boolean {
    if (!this.pendingWrite) return false;
    this.write(this.entriesValue, syncDirectory);
    return true;
  }

  /** Adopts `entries`, writing them to the file now (every pending change with them) unless `deferred`. */
  private replace(entries: EpochEntry[], write: CheckpointWrite = 'durable'): void {
    if (write === 'durable') this.write(entries, true);
    else this.pendingWrite = this.filePath !== null;
    this.entriesValue = entries;
  }

  private write(entries: readonly EpochEntry[], syncDirectory: boolean): void {
    if (this.disk !== null && this.filePath !== null) writeFileAtomically(this.disk, this.filePath, leaderEpochCheckpointBytes(entries), syncDirectory);
    this.pendingWrite = false;
  }
}
