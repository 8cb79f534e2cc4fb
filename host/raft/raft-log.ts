/**
 * The replicated log a {@link RaftClient} works on: KRaft's `ReplicatedLog` (the
 * `__cluster_metadata-0` partition), reduced to what the Raft core needs and free of I/O so the
 * simulator can run it in memory ({@link MemoryRaftLog}) and the broker on disk.
 *
 * Offsets are record offsets (int64 as numbers). A batch holds records of one epoch written by one
 * leader in one append; a control batch holds Raft's own records (the LeaderChange message written
 * at the start of every leader epoch) and is never handed to the state machine.
 *
 * Durability: appends land in memory first; {@link RaftLog.flush} makes everything up to the end
 * offset durable (fsync). A crash loses what was not flushed. Raft acknowledges only flushed data:
 * a leader counts its own flushed offset towards the high watermark, a follower flushes before its
 * next Fetch reports the new fetch offset.
 */

/** An (offset, epoch) pair: a log position and the epoch of the record before it. */
export interface OffsetAndEpoch {
  readonly offset: number;
  readonly epoch: number;
}

/**
 * A snapshot's identity, as Kafka's `OffsetAndEpoch` snapshot id: `endOffset` is exclusive (the
 * snapshot holds the state after applying every record below it) and `epoch` is the epoch of the
 * record at `endOffset - 1`.
 */
export interface SnapshotId {
  readonly endOffset: number;
  readonly epoch: number;
}

/** A batch of records in the log (offsets `baseOffset .. baseOffset + records.length - 1`). */
export interface LogBatch {
  readonly baseOffset: number;
  /** The leader epoch the batch was written in. */
  readonly epoch: number;
  /** True for Raft's own control records (LeaderChange); never delivered to listeners. */
  readonly control: boolean;
  /** Record values, opaque bytes. At least one. */
  readonly records: readonly Uint8Array[];
}

/** The offset of the last record of `batch`. */
export function lastOffsetOf(batch: LogBatch): number {
  return batch.baseOffset + batch.records.length - 1;
}

/** A stored snapshot: its id and its content, serialized (see `snapshot.ts`). */
export interface RaftSnapshot {
  readonly id: SnapshotId;
  readonly bytes: Uint8Array;
}

/**
 * The log. Implementations assert their invariants (offsets contiguous, epochs never decreasing)
 * and throw `Error` on a violation: that is a bug in the caller, never a protocol error.
 */
export interface RaftLog {
  /** The first offset held in the log (0, or the end offset of the latest snapshot). */
  startOffset(): number;
  /** The offset the next appended record gets (LEO). */
  endOffset(): number;
  /** Everything below this offset is durable. Never above {@link endOffset}. */
  flushedOffset(): number;
  /** The epoch of the last record (or of the snapshot when the log is empty; 0 for an empty log). */
  lastFetchedEpoch(): number;
  /**
   * Appends `records` at {@link endOffset} in `epoch` (as leader or follower; epochs never go
   * down). Returns the offset of the last record.
   */
  append(epoch: number, records: readonly Uint8Array[], control: boolean): number;
  /** Appends batches received from the leader, which must start at {@link endOffset}. */
  appendAsFollower(batches: readonly LogBatch[]): void;
  /** Removes every record at or after `offset` (`startOffset <= offset <= endOffset`). */
  truncateTo(offset: number): void;
  /** Makes everything below {@link endOffset} durable. */
  flush(): void;
  /**
   * Kafka's `endOffsetForEpoch`: the largest epoch `e <= epoch` the log (or its snapshot) knows and
   * the end offset of `e` (the start offset of the next epoch, or the log end offset). The latest
   * snapshot counts as a record of its epoch just before {@link startOffset}. For an epoch below
   * every known epoch: `{ epoch: 0, offset: startOffset }` (nothing older is known).
   */
  endOffsetForEpoch(epoch: number): OffsetAndEpoch;
  /** The epoch of the record at `offset` (startOffset <= offset < endOffset). */
  epochAt(offset: number): number;
  /**
   * Batches starting at `fromOffset` (the first one cut to start there), whole batches up to about
   * `maxBytes` of record bytes; at least one batch when `fromOffset < endOffset`.
   */
  read(fromOffset: number, maxBytes: number): LogBatch[];
  /** The latest snapshot, if any. */
  latestSnapshot(): RaftSnapshot | undefined;
  /**
   * Stores a snapshot made locally at a committed offset (`startOffset <= id.endOffset <=
   * endOffset`) and deletes the log before it: `startOffset` becomes `id.endOffset`. Durable.
   */
  storeSnapshot(snapshot: RaftSnapshot): void;
  /**
   * Installs a snapshot fetched from the leader: the whole log is replaced, start and end offset
   * become `id.endOffset`. Durable.
   */
  installSnapshot(snapshot: RaftSnapshot): void;
}
