/**
 * A Partition's idempotent-producer state (PartitionOptions.producerState) and the calls the
 * partition makes on it around the log (the lifecycle in host/log/producer-state-manager.ts):
 * recovered at construction and after a follower truncation, snapshotted at segment rolls and
 * clean shutdown, trimmed when the log start offset moves, fed the batches of follower appends
 * (leader appends feed it inside UnifiedLog.appendAsLeader). Absent state makes every call a no-op.
 */
import type { ProducerBatchInfo, ProducerStateManager } from '../log/producer-state-manager.js';
import type { PartitionLog } from './partition-log.js';

export class PartitionProducerState {
  private lastActiveSegmentBaseOffset: number;
  /** The log start offset the state was last trimmed to (truncateHead). */
  private trimmedLogStartOffset: number;

  constructor(
    /** Null: the partition keeps no producer state. */
    readonly manager: ProducerStateManager | null,
    private readonly log: PartitionLog,
    /** Where a failed snapshot is reported (the append itself has succeeded). */
    private readonly onSnapshotError: (error: unknown) => void,
  ) {
    this.lastActiveSegmentBaseOffset = log.activeSegment?.baseOffset ?? -1;
    this.recover();
    this.trimmedLogStartOffset = log.logStartOffset;
  }

  /** Rebuilds the state from its snapshots and the log tail (construction, truncation). */
  recover(): void {
    this.lastActiveSegmentBaseOffset = this.log.activeSegment?.baseOffset ?? -1;
    this.trimmedLogStartOffset = this.log.logStartOffset;
    if (this.manager === null) return;
    const log = this.log;
    this.manager.recover(log.logStartOffset, log.logEndOffset, (fetchOffset, maxBytes) =>
      log.read(fetchOffset, maxBytes, log.logEndOffset, true).records);
  }

  /** A follower appended `batches` (the leader's offsets): recorded, then a snapshot at a roll. */
  onFollowerAppend(batches: readonly ProducerBatchInfo[]): void {
    if (this.manager === null) return;
    this.manager.onAppended(batches);
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
      this.manager.takeSnapshot();
    } catch (error) {
      // A snapshot only shortens the next recovery; the append is durable in the log already.
      this.onSnapshotError(error);
    }
  }

  /**
   * When the log start offset moved up since the last call: forgets the producers whose last
   * batch lies below it (ProducerStateManager.truncateHead), calling `alsoOnMove` first. Returns
   * true when it moved. Throws the disk's error; the next call retries.
   */
  onLogStartOffsetMaybeIncremented(alsoOnMove: () => void): boolean {
    const logStartOffset = this.log.logStartOffset;
    if (logStartOffset === this.trimmedLogStartOffset) return false;
    // A lower start (a truncation below it) leaves nothing to trim.
    const moved = logStartOffset > this.trimmedLogStartOffset;
    if (moved) {
      alsoOnMove();
      this.manager?.truncateHead(logStartOffset);
    }
    this.trimmedLogStartOffset = logStartOffset;
    return moved;
  }

  /** The log was emptied and restarts at `offset`. */
  truncateFullyAndStartAt(offset: number): void {
    this.manager?.truncateFullyAndStartAt(offset);
  }
}
