/**
 * One partition as a follower's fetcher holds it (Kafka's PartitionFetchState, reduced): the
 * follower replica it writes to, the leader epoch it fetches under, and whether it is fetched now.
 *
 * ```
 *              add (leader, epoch)
 *   (none) ───────────────────────────► fetching ◄──── backoff over ──── delayed
 *                                         │  │                              ▲
 *                                         │  └─ retriable error / leader ───┘
 *                                         │     unreachable (replica.fetch.backoff.ms)
 *                                         └─ FENCED_LEADER_EPOCH / append failure ──► parked
 *   parked: not fetched until the metadata names a newer leader epoch (add again).
 * ```
 * The fetch offset is always the replica's log end offset: only the fetcher writes to a
 * follower's log, appending the leader's batches and truncating a divergent tail.
 */

/** What the fetcher needs of a follower replica (Kafka's Partition seen from ReplicaFetcherThread). */
export interface FetcherPartition {
  readonly topic: string;
  readonly partition: number;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  /** The epoch of the last batch in the log (the leader epoch cache), -1 when none. */
  readonly latestEpoch: number;
  /**
   * The largest epoch <= `epoch` this log knows and where it ends (the start of the next epoch, or
   * the log end offset); null when the log knows no epoch <= `epoch` (Kafka's LeaderEpochFileCache.endOffsetFor).
   */
  endOffsetForEpoch(leaderEpoch: number): { leaderEpoch: number; endOffset: number } | null;
  /** Appends the leader's batches as they are; errorCode 0, or a Kafka error code (1 when they start below the log end). */
  appendRecordsAsFollower(records: Uint8Array): { errorCode: number };
  /** Removes the batches from the one holding `offset` on. */
  truncateTo(offset: number): void;
  /** Deletes everything and continues as an empty log at `offset`. */
  truncateFullyAndStartAt(offset: number): void;
  /** Takes the leader's high watermark (capped at the log end offset). */
  updateFollowerHighWatermark(leaderHighWatermark: number): unknown;
  /** Takes the leader's log start offset (deletes below min(it, the high watermark)). */
  updateFollowerLogStartOffset?(leaderLogStartOffset: number): unknown;
}

/** Fetched now, waiting out a backoff, or left alone until the metadata moves. */
export type FetchStateKind = 'fetching' | 'delayed' | 'parked';

/** One partition of a fetcher. A new object per (re)add, so an old round's answer is recognised as stale. */
export class PartitionFetchState {
  kind: FetchStateKind = 'fetching';
  /** Monotonic ms at which a delayed partition fetches again. */
  delayedUntilMs = 0;
  /** Why a partition is parked (logged, and for tests). */
  parkedReason: string | null = null;

  constructor(
    readonly replica: FetcherPartition,
    /** The leader epoch of the metadata that made this broker a follower (Fetch current_leader_epoch). */
    readonly currentLeaderEpoch: number,
  ) {}

  /** `topic-partition`. */
  get key(): string {
    return `${this.replica.topic}-${this.replica.partition}`;
  }

  /** True when it goes into the next Fetch. */
  isReadyForFetch(nowMs: number): boolean {
    if (this.kind === 'delayed' && nowMs >= this.delayedUntilMs) this.kind = 'fetching';
    return this.kind === 'fetching';
  }

  /** Leaves the next fetches out until `untilMs` (monotonic). */
  delay(untilMs: number): void {
    if (this.kind === 'parked') return;
    this.kind = 'delayed';
    this.delayedUntilMs = untilMs;
  }

  /** Stops fetching it until the partition is added again (a newer leader epoch). */
  park(reason: string): void {
    this.kind = 'parked';
    this.parkedReason = reason;
  }
}
