/**
 * The leader epochs of one partition's log (Kafka's UnifiedLog.leaderEpochCache, kept here beside
 * the Partition because our UnifiedLog is epoch-agnostic and the metadata log's FileRaftLog keeps
 * its own): which epoch wrote which offsets, so a leader can answer OffsetForLeaderEpoch and a
 * follower's Fetch with a DivergingEpoch (KIP-101/279/320), and a follower can find where its log
 * diverged.
 *
 * Who assigns what, as in Kafka:
 * ```
 *   makeLeader with a new epoch e        assign(e, LEO)                (the epoch starts at the log end)
 *   leader append in epoch e             assign(e, LEO) before writing, when e is not the latest
 *   follower append                      assign(batch.partitionLeaderEpoch, batch.baseOffset) per batch
 *   truncateTo(o) / full truncation      truncateFromEnd(LEO) / clear
 *   log start offset moved               truncateFromStart(logStartOffset)
 *   open                                 repair(): the cache may run ahead of the log after a crash
 *                                        (truncateFromEnd) or miss the tail's epochs (the active
 *                                        segment read again), or miss the head's epochs
 *                                        (truncated from a log start lost in a crash: read again)
 * ```
 * The file is `leader-epoch-checkpoint` in the partition directory (leader-epoch-file-cache.ts).
 * Truncations from the end rewrite it at once (at open, only when an entry starts past the log
 * end: see repair()). Assignments (the three first rows) and
 * truncations from the start (repair() truncates again at open) are deferred when the log
 * takes the checkpoint (UnifiedLog.setLeaderEpochCheckpoint): written at the log's next flush,
 * roll or clean close, before its recovery point passes them (issue 15: the first produce to
 * 5,000 new partitions cost 9,814 fsyncs on the event loop). A crash then loses at most the
 * epochs that start in the active segment, which repair() reads back from its batches (Kafka's
 * LogLoader rebuilds the epochs of the recovered segments the same way); an epoch assigned at
 * makeLeader before any batch of it is lost with nothing to rebuild, and needs nothing: an entry
 * starting at the log end answers as its absence does. A disk failure takes the log directory
 * offline (when the log can: UnifiedLog.storageFailure) and the DiskError propagates (the
 * ReplicaManager answers KAFKA_STORAGE_ERROR, 56).
 */
import { isDiskError } from '../io/disk.js';
import { type CheckpointWrite, type EpochEndOffset, type EpochEntry, LeaderEpochFileCache } from '../log/leader-epoch-file-cache.js';
import { BatchLayout } from '../wasm/batch-layout.js';
import type { PartitionLog } from './partition-log.js';

/** Bytes read per step when the tail's epochs are re-read at open. */
const REPAIR_READ_BYTES = 1 << 20;

/** The log calls the epochs need (UnifiedLog; storageFailure is optional for test logs). */
type EpochLog = Pick<PartitionLog, 'logStartOffset' | 'logEndOffset' | 'read' | 'setLeaderEpochCheckpoint'> & {
  readonly activeSegment?: { readonly baseOffset: number };
  storageFailure?(error: unknown): number;
};

export class PartitionLeaderEpochs {
  /** How assignments reach the file: deferred to the log's flushes when the log takes the checkpoint. */
  private readonly assignWrite: CheckpointWrite;

  /** Hands a file-backed `cache` to `log`, which then flushes it (replacing an earlier Partition's). */
  constructor(private readonly log: EpochLog, private readonly cache: LeaderEpochFileCache) {
    const flushedByLog = cache.filePath !== null && log.setLeaderEpochCheckpoint !== undefined;
    if (flushedByLog) log.setLeaderEpochCheckpoint!(cache);
    this.assignWrite = flushedByLog ? 'deferred' : 'durable';
  }

  /** The latest epoch known, or -1 (UNDEFINED_EPOCH) when none. */
  latestEpoch(): number {
    return this.cache.latestEpoch() ?? -1;
  }

  /** The (epoch, startOffset) entries, oldest first. */
  entries(): readonly { epoch: number; startOffset: number }[] {
    return this.cache.entries();
  }

  /**
   * Kafka's endOffsetForEpoch: the largest epoch <= `epoch` this log knows and the offset it
   * ended at (exclusive); `{ epoch: -1, endOffset: -1 }` when unknown (see
   * LeaderEpochFileCache.endOffsetFor for the edge cases).
   */
  endOffsetFor(epoch: number): EpochEndOffset {
    return this.cache.endOffsetFor(epoch, this.log.logEndOffset);
  }

  /**
   * `epoch` starts at the log end offset unless it is already the latest (makeLeader, leader
   * appends). An epoch older than the latest known is a leadership of the past: a broker
   * replaying the metadata log at start-up passes through every leadership it once held, and
   * assigning one at today's log end would drop every newer entry (and, starting at the log end,
   * every older one after it): the checkpoint would forget where epochs ended, and a follower of
   * an epoch it forgot would be told the wrong end offset and could keep a divergent tail.
   */
  assignAtLogEnd(epoch: number): void {
    const latest = this.cache.latestEpoch();
    if (latest !== undefined && latest >= epoch) return;
    this.guard(() => this.cache.assign(epoch, this.log.logEndOffset, this.assignWrite));
  }

  /** After a follower append: each batch's partition leader epoch from its base offset on. */
  onFollowerAppend(batches: readonly { baseOffset: number; partitionLeaderEpoch: number }[]): void {
    let latest = this.cache.latestEpoch() ?? -1;
    for (const batch of batches) {
      // Kafka assigns only magic-2 batches with an epoch; a newer epoch opens an entry.
      if (batch.partitionLeaderEpoch < 0 || batch.partitionLeaderEpoch <= latest) continue;
      const { partitionLeaderEpoch, baseOffset } = batch;
      this.guard(() => this.cache.assign(partitionLeaderEpoch, baseOffset, this.assignWrite));
      latest = partitionLeaderEpoch;
    }
  }

  /** After the log was truncated (its end moved down): epochs starting at or after the end go. */
  afterTruncation(): void {
    const logEndOffset = this.log.logEndOffset;
    this.guard(() => {
      this.cache.truncateFromEnd(logEndOffset);
      if (logEndOffset === this.log.logStartOffset) this.cache.clear();
    });
  }

  /**
   * After the log start offset moved up (retention, DeleteRecords, a follower following its
   * leader). Written as assignments are (deferred to the log's flushes when it takes the
   * checkpoint): repair() at the next open truncates again at the recovered log start.
   */
  afterLogStartOffsetMoved(): void {
    const logStartOffset = this.log.logStartOffset;
    this.guard(() => this.cache.truncateFromStart(logStartOffset, this.assignWrite));
  }

  /**
   * At open (Kafka's LogLoader + recovery): drops epochs starting at or past the log end (the
   * cache ran ahead: an epoch assigned before a write lost in a crash) or before the log start,
   * then makes sure the latest epoch is the last batch's. When it is not (deferred assignments
   * lost in a crash, a crash between a follower's write and its epoch assignment, or no
   * checkpoint file yet), the active segment is read again from its base (or from the latest
   * entry's start when that lies in it), assigning each batch's epoch: the log flushes deferred
   * assignments at every roll, so the missing ones all start there (batch epochs never decrease,
   * so a last batch of the latest epoch means none is missing). Only when that does not end at
   * the last batch's epoch (entries but none before the active segment, an unreadable log) is
   * the last batch's epoch taken to start at the latest entry's start (or the log start, without
   * entries). An epoch claimed for older offsets than it really covers only makes a follower
   * truncate (and fetch again) more than needed, never keep records the leader does not have;
   * one claimed later could, so the repair never does that. What it assigns is written once,
   * durably, at the end.
   *
   * The truncations are written as assignments are (deferred to the log's flushes when it takes
   * the checkpoint) unless an entry starts past the log end, which is dropped durably at once
   * (issue 15: after a DeleteRecords up to the high watermark every partition's epoch starts at
   * the log end, now also the log start, and a restart rewrote every checkpoint: 20,000 fsyncs at
   * 10,000 partitions). What a crash can then leave in the file is entries before the log start,
   * which the next open truncates again, and an entry starting exactly at this open's log end:
   * the records written after it all lie at or after its start, so the next open reads their
   * epochs back from there (a newer epoch replaces it, the same epoch is it, an older one makes
   * the repair clear the cache and claim the last epoch from the log start: older offsets, safe).
   * An entry past the log end could split records written later, whose epochs the repair would
   * then read back only from that entry's start (claiming the newer epoch later than it began).
   */
  repair(): void {
    const { logStartOffset, logEndOffset } = this.log;
    const write = this.cache.entries().some((entry) => entry.startOffset > logEndOffset) ? 'durable' : this.assignWrite;
    this.guard(() => {
      this.cache.truncateFromEnd(logEndOffset, write);
      this.cache.truncateFromStart(logStartOffset, write);
      if (logEndOffset === logStartOffset) this.cache.clear(write);
    });
    if (logEndOffset === logStartOffset) return;
    this.repairHead();
    const lastEpoch = this.lastBatchEpoch();
    const latest = this.cache.latestEntry();
    if (lastEpoch < 0 || latest?.epoch === lastEpoch) return;
    if (latest !== undefined && latest.epoch > lastEpoch) this.guard(() => this.cache.clear());
    const kept = this.cache.latestEntry();
    const activeSegmentBaseOffset = this.log.activeSegment?.baseOffset ?? logStartOffset;
    if (kept !== undefined || activeSegmentBaseOffset <= logStartOffset) {
      this.reassignFrom(Math.max(kept?.startOffset ?? logStartOffset, activeSegmentBaseOffset));
    }
    if (this.cache.latestEpoch() !== lastEpoch) {
      const startOffset = kept?.startOffset ?? logStartOffset;
      this.guard(() => this.cache.assign(lastEpoch, startOffset, 'deferred'));
    }
    this.guard(() => this.cache.flush());
  }

  /**
   * The records between the log start and the earliest entry have no epoch: the cache was
   * truncated from the start (DeleteRecords, retention) at a log start offset that did not survive
   * a crash (the checkpoint is rewritten at once, the log start offset checkpoint later). The
   * earliest epoch then claims later offsets than it covers and the older epochs are gone, so a
   * follower of an older epoch would not be told where it diverged. Kafka's rule, the cache
   * rebuilt from the batches: the head's epochs are read back from its batches; when they
   * contradict the cache (or cannot be read), the earliest epoch is claimed from the log start
   * (older offsets than it covers: safe, see {@link repair}).
   */
  private repairHead(): void {
    const logStartOffset = this.log.logStartOffset;
    const earliest = this.cache.earliestEntry();
    if (earliest === undefined || earliest.startOffset <= logStartOffset) return;
    const head: EpochEntry[] = [];
    let consistent = true;
    const complete = this.forEachBatch(logStartOffset, (baseOffset, epoch) => {
      if (baseOffset >= earliest.startOffset) return false;
      const last = head[head.length - 1];
      if (epoch < 0 || (last !== undefined && epoch === last.epoch)) return true;
      consistent = epoch <= earliest.epoch && (last === undefined || epoch > last.epoch);
      if (consistent) head.push({ epoch, startOffset: Math.max(baseOffset, logStartOffset) });
      return consistent && epoch < earliest.epoch;
    });
    const rebuilt = complete && consistent ? head : [{ epoch: earliest.epoch, startOffset: logStartOffset }];
    this.guard(() => this.cache.prepend(rebuilt));
  }

  /**
   * Calls `visit(baseOffset, partitionLeaderEpoch)` for each batch from the one holding
   * `fromOffset` to the log end, until it answers false; false when the log could not be read.
   */
  private forEachBatch(fromOffset: number, visit: (baseOffset: number, epoch: number) => boolean): boolean {
    const logEndOffset = this.log.logEndOffset;
    let offset = fromOffset;
    while (offset < logEndOffset) {
      const read = this.log.read(offset, REPAIR_READ_BYTES, logEndOffset, true);
      if (read.errorCode !== 0 || read.records.length < BatchLayout.RECORDS) return false;
      const records = read.records;
      let position = 0;
      while (position + BatchLayout.RECORDS <= records.length) {
        const baseOffset = Number(records.readBigInt64BE(position + BatchLayout.BASE_OFFSET));
        if (!visit(baseOffset, records.readInt32BE(position + BatchLayout.PARTITION_LEADER_EPOCH))) return true;
        offset = baseOffset + records.readInt32BE(position + BatchLayout.LAST_OFFSET_DELTA) + 1;
        position += BatchLayout.LOG_OVERHEAD + records.readInt32BE(position + BatchLayout.BATCH_LENGTH);
      }
    }
    return true;
  }

  /** The partition leader epoch of the log's last batch (-1 when unreadable). */
  private lastBatchEpoch(): number {
    const logEndOffset = this.log.logEndOffset;
    const read = this.log.read(logEndOffset - 1, 1, logEndOffset, true);
    let position = 0;
    let epoch = -1;
    // The read starts with the batch holding logEndOffset - 1; the last whole batch is the one.
    while (read.errorCode === 0 && position + BatchLayout.RECORDS <= read.records.length) {
      epoch = read.records.readInt32BE(position + BatchLayout.PARTITION_LEADER_EPOCH);
      position += BatchLayout.LOG_OVERHEAD + read.records.readInt32BE(position + BatchLayout.BATCH_LENGTH);
    }
    return epoch;
  }

  /** Assigns the epochs of every batch from `fromOffset` to the log end (see {@link repair}). */
  private reassignFrom(fromOffset: number): void {
    this.forEachBatch(fromOffset, (baseOffset, epoch) => {
      if (epoch >= 0 && epoch > (this.cache.latestEpoch() ?? -1)) this.guard(() => this.cache.assign(epoch, baseOffset, 'deferred'));
      return true;
    });
  }

  private guard(run: () => unknown): void {
    try {
      run();
    } catch (error) {
      if (isDiskError(error)) this.log.storageFailure?.(error);
      throw error;
    }
  }

  /** The cache of a partition without a checkpoint file (test logs). */
  static inMemory(log: EpochLog): PartitionLeaderEpochs {
    return new PartitionLeaderEpochs(log, LeaderEpochFileCache.inMemory());
  }
}
