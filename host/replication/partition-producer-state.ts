/**
 * A Partition's producer state (PartitionOptions.producerState) and the calls the partition makes
 * on it around the log (the lifecycle in host/log/producer-state-manager.ts): recovered at
 * construction and after a follower truncation, snapshotted at segment rolls and clean shutdown,
 * trimmed when the log start offset moves, fed the batches of follower appends (leader appends
 * feed it inside UnifiedLog.appendAsLeader). Absent state makes every call a no-op.
 *
 * Transactions: the aborted-transaction index (host/log/transaction-index.ts, `.txnindex` per
 * segment) lives here beside the state whose completed transactions fill it: every ABORT marker
 * the state applies (leader append, follower append, recovery replay) adds an entry to the
 * segment holding the marker. Recovery first drops the entries past the log end (a truncated
 * tail), then the replay of the log tail from the newest snapshot re-adds what a crash left out;
 * the index is fsynced before each snapshot, so what the next replay skips is durable.
 */
import { readEndTxnMarker, storedBatchSizeAt } from '../log/end-txn-marker.js';
import type { CompletedTxn, ProducerBatchInfo, ProducerStateManager } from '../log/producer-state-manager.js';
import { type AbortedTxn, sharedTransactionIndex, type TransactionIndex } from '../log/transaction-index.js';
import type { PartitionLog } from './partition-log.js';

/** One entry of Fetch's aborted_transactions. */
export interface FetchAbortedTransaction {
  producerId: number;
  firstOffset: number;
}

export class PartitionProducerState {
  private lastActiveSegmentBaseOffset: number;
  /** The log start offset the state was last trimmed to (truncateHead). */
  private trimmedLogStartOffset: number;
  /** Null when the partition keeps no producer state. */
  private readonly txnIndex: TransactionIndex | null;

  constructor(
    /** Null: the partition keeps no producer state. */
    readonly manager: ProducerStateManager | null,
    private readonly log: PartitionLog,
    /**
     * Where a failed snapshot is logged (the append itself has succeeded), with the log's topic
     * and partition. A logger shared by every partition rather than a callback made per
     * partition: a closure and its context are 96 bytes (issue 15).
     */
    private readonly logger: { error(fields: object, message: string): void } | undefined,
  ) {
    this.lastActiveSegmentBaseOffset = log.activeSegment?.baseOffset ?? -1;
    this.txnIndex = manager === null ? null : sharedTransactionIndex(manager.dir, manager.disk);
    if (manager !== null) manager.onCompletedTxn = (txn, lastStableOffset) => this.onCompletedTxn(txn, lastStableOffset);
    this.recover();
    this.trimmedLogStartOffset = log.logStartOffset;
  }

  /** Rebuilds the state and the aborted-transaction index from disk and the log tail (construction, truncation). */
  recover(): void {
    this.lastActiveSegmentBaseOffset = this.log.activeSegment?.baseOffset ?? -1;
    this.trimmedLogStartOffset = this.log.logStartOffset;
    if (this.manager === null) return;
    const log = this.log;
    this.txnIndex!.load(this.segmentBaseOffsets());
    this.txnIndex!.truncateFrom(log.logEndOffset);
    this.manager.recover(log.logStartOffset, log.logEndOffset, (fetchOffset, maxBytes) =>
      log.read(fetchOffset, maxBytes, log.logEndOffset, true).records);
  }

  /**
   * A follower appended `batches` (the leader's offsets), which are `records` back to back: the
   * markers among them are read, the batches recorded, then a snapshot at a roll.
   */
  onFollowerAppend(records: Uint8Array, batches: readonly ProducerBatchInfo[]): void {
    if (this.manager === null) return;
    let position = 0;
    let infos = batches;
    if (batches.some((batch) => batch.isControl)) {
      infos = batches.map((batch) => {
        const size = storedBatchSizeAt(records, position);
        const at = position;
        position += size;
        return batch.isControl ? { ...batch, endTxnMarker: readEndTxnMarker(records, at, size) } : batch;
      });
    }
    this.manager.onAppended(infos);
    this.maybeSnapshot();
  }

  /**
   * After an append the log recorded in the producer state: snapshots it if the append rolled a
   * segment (Kafka snapshots at every roll).
   */
  maybeSnapshot(): void {
    if (this.manager === null) return;
    const activeSegmentBaseOffset = this.log.activeSegment?.baseOffset ?? -1;
    if (activeSegmentBaseOffset === this.lastActiveSegmentBaseOffset) return;
    this.lastActiveSegmentBaseOffset = activeSegmentBaseOffset;
    try {
      this.takeSnapshot();
    } catch (error) {
      // A snapshot only shortens the next recovery; the append is durable in the log already.
      this.logger?.error({ topic: this.log.topic, partition: this.log.partition, err: error }, 'producer-state snapshot failed');
    }
  }

  /** Fsyncs the aborted-transaction index, then snapshots the state (clean shutdown, rolls). Throws the disk's error. */
  takeSnapshot(): void {
    if (this.manager === null) return;
    this.txnIndex!.flush();
    this.manager.takeSnapshot();
  }

  /**
   * Kafka's LSO: min(first offset of an open or not yet replicated transaction, high watermark).
   * A log that states its own LSO (test fakes) bounds it too.
   */
  lastStableOffset(): number {
    const highWatermark = this.log.highWatermark;
    const stated = this.log.lastStableOffset ?? highWatermark;
    const firstUnstable = this.manager?.firstUnstableOffset(highWatermark) ?? -1;
    return Math.min(highWatermark, stated, firstUnstable < 0 ? highWatermark : firstUnstable);
  }

  /**
   * Fetch aborted_transactions for a read_committed read of [fetchOffset, upperBoundOffset):
   * the producers and first offsets of the aborted transactions overlapping it, in marker order.
   */
  abortedTransactions(fetchOffset: number, upperBoundOffset: number): FetchAbortedTransaction[] {
    if (this.txnIndex === null) return [];
    return this.txnIndex.collectAbortedTxns(fetchOffset, upperBoundOffset)
      .map((txn) => ({ producerId: txn.producerId, firstOffset: txn.firstOffset }));
  }

  /** Every entry of the aborted-transaction index, in marker order (tests, the cleaner). */
  allAbortedTxns(): AbortedTxn[] {
    return this.txnIndex?.allAbortedTxns() ?? [];
  }

  /**
   * When the log start offset moved up since the last call: forgets the producers whose last
   * batch is gone (ProducerStateManager.truncateHead) and the index entries of deleted segments,
   * calling `alsoOnMove` first; snapshots the state when an open transaction now starts below the
   * log start offset. Returns true when it moved. Throws the disk's error; the next call retries.
   */
  onLogStartOffsetMaybeIncremented(alsoOnMove: () => void): boolean {
    const logStartOffset = this.log.logStartOffset;
    if (logStartOffset === this.trimmedLogStartOffset) return false;
    // A lower start (a truncation below it) leaves nothing to trim.
    const moved = logStartOffset > this.trimmedLogStartOffset;
    if (moved) {
      alsoOnMove();
      this.manager?.truncateHead(logStartOffset);
      // An open transaction below the new start survives a restart only through a snapshot.
      if (this.manager?.needsSnapshotForOpenTxns() === true) this.takeSnapshot();
      const segments = this.log.logSegments;
      if (segments !== undefined && segments.length > 0) this.txnIndex?.deleteSegmentsBefore(segments[0]!.baseOffset);
    }
    this.trimmedLogStartOffset = logStartOffset;
    return moved;
  }

  /** The log was emptied and restarts at `offset`. */
  truncateFullyAndStartAt(offset: number): void {
    this.manager?.truncateFullyAndStartAt(offset);
    this.txnIndex?.deleteAll();
  }

  private onCompletedTxn(txn: CompletedTxn, lastStableOffset: number): void {
    if (!txn.isAborted) return;
    this.txnIndex!.append(this.segmentBaseOffsetOf(txn.lastOffset), {
      producerId: txn.producerId, firstOffset: txn.firstOffset, lastOffset: txn.lastOffset, lastStableOffset,
    });
  }

  private segmentBaseOffsets(): number[] {
    const segments = this.log.logSegments;
    if (segments !== undefined) return segments.map((segment) => segment.baseOffset);
    return this.log.activeSegment === undefined ? [0] : [this.log.activeSegment.baseOffset];
  }

  /** Base offset of the segment holding `offset` (0 for a log that does not tell its segments). */
  private segmentBaseOffsetOf(offset: number): number {
    const segments = this.log.logSegments ?? (this.log.activeSegment === undefined ? [] : [this.log.activeSegment]);
    let base = segments.length > 0 ? segments[0]!.baseOffset : 0;
    for (const segment of segments) {
      if (segment.baseOffset > offset) break;
      base = segment.baseOffset;
    }
    return base;
  }
}
