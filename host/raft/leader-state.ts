/**
 * LeaderState: what the leader of an epoch knows of its voters' replication, and the high
 * watermark rule (KIP-595):
 *
 * - a voter's end offset is the fetch offset of its latest valid Fetch (a follower flushes before
 *   it fetches, so the offset counts only durable data); the leader's own is its flushed offset;
 * - the high watermark is the largest offset a majority of voters has reached;
 * - it moves only once it is above the epoch start offset, i.e. once the LeaderChange record the
 *   leader wrote at its election is committed: a leader exposes no record of an older epoch before
 *   one of its own is committed (the rule that keeps Raft's figure-8 history from losing a
 *   committed entry);
 * - it never goes back.
 */
import type { ReplicaState } from './messages.js';

interface VoterProgress {
  endOffset: number;
  /** Wall-clock ms of the latest valid Fetch, -1 before any. */
  lastFetchTimestamp: number;
  /** Wall-clock ms at which the voter last reached the leader's end offset, -1 before. */
  lastCaughtUpTimestamp: number;
  /** Monotonic ms of the latest Fetch (check-quorum), -1 before any. */
  lastFetchMonotonicMs: number;
  /** The voter fetched (or answered BeginQuorumEpoch) in this epoch. */
  acknowledged: boolean;
}

/**
 * An observer not heard from this long is dropped from DescribeQuorum (Kafka's
 * OBSERVER_SESSION_TIMEOUT_MS), ms.
 */
export const OBSERVER_SESSION_TIMEOUT_MS = 300_000;

/** The leader's view of replication in one epoch. */
export class LeaderState {
  private readonly progress = new Map<number, VoterProgress>();
  /** Observers (broker-only nodes) that fetched in this epoch: reported by DescribeQuorum, never counted. */
  private readonly observers = new Map<number, ReplicaState>();
  private highWatermarkOffset: number | undefined;

  /**
   * @param epochStartOffset the offset of this epoch's LeaderChange record (the log end offset at
   *   election)
   */
  constructor(
    readonly localId: number,
    readonly epoch: number,
    readonly epochStartOffset: number,
    readonly voters: readonly number[],
    private readonly startMonotonicMs: number,
  ) {
    for (const id of voters) {
      this.progress.set(id, { endOffset: -1, lastFetchTimestamp: -1, lastCaughtUpTimestamp: -1, lastFetchMonotonicMs: -1, acknowledged: id === localId });
    }
  }

  /** The high watermark this leader established in its epoch, or undefined before the first commit. */
  get highWatermark(): number | undefined {
    return this.highWatermarkOffset;
  }

  /** Voters that have not acknowledged this leader yet (they get BeginQuorumEpoch). */
  unacknowledgedVoters(): number[] {
    return this.voters.filter((id) => !this.progress.get(id)!.acknowledged);
  }

  /** A voter answered BeginQuorumEpoch: it knows the leader. */
  acknowledge(voterId: number): void {
    const progress = this.progress.get(voterId);
    if (progress !== undefined) progress.acknowledged = true;
  }

  /**
   * Records the leader's flushed offset. Returns true when the high watermark moved.
   */
  updateLocal(flushedOffset: number, logEndOffset: number, wallMs: number): boolean {
    const progress = this.progress.get(this.localId);
    if (progress === undefined) return false;
    progress.endOffset = flushedOffset;
    progress.lastFetchTimestamp = wallMs;
    if (flushedOffset >= logEndOffset) progress.lastCaughtUpTimestamp = wallMs;
    return this.maybeAdvance();
  }

  /**
   * Records a voter's valid Fetch at `fetchOffset` (which may go back after the voter truncated).
   * Returns true when the high watermark moved. A non-voter's Fetch is only noted for
   * DescribeQuorum's observers.
   */
  updateReplica(replicaId: number, fetchOffset: number, leaderEndOffset: number, wallMs: number, monotonicMs: number): boolean {
    const progress = this.progress.get(replicaId);
    if (progress === undefined && replicaId >= 0) {
      const previous = this.observers.get(replicaId);
      this.observers.set(replicaId, {
        replicaId, logEndOffset: fetchOffset, lastFetchTimestamp: wallMs,
        lastCaughtUpTimestamp: fetchOffset >= leaderEndOffset ? wallMs : previous?.lastCaughtUpTimestamp ?? -1,
      });
    }
    if (progress === undefined || replicaId === this.localId) return false;
    progress.endOffset = fetchOffset;
    progress.lastFetchTimestamp = wallMs;
    progress.lastFetchMonotonicMs = monotonicMs;
    progress.acknowledged = true;
    if (fetchOffset >= leaderEndOffset) progress.lastCaughtUpTimestamp = wallMs;
    return this.maybeAdvance();
  }

  /**
   * Check-quorum: true while a majority of voters (the leader included) fetched within `windowMs`
   * of `nowMonotonicMs`; a leader just elected counts its election time as their last fetch.
   */
  hasMajorityFetchedWithin(nowMonotonicMs: number, windowMs: number): boolean {
    let recent = 0;
    for (const [id, progress] of this.progress) {
      const last = id === this.localId ? nowMonotonicMs : Math.max(progress.lastFetchMonotonicMs, this.startMonotonicMs);
      if (nowMonotonicMs - last <= windowMs) recent++;
    }
    return recent * 2 > this.voters.length;
  }

  /** A voter was heard from (Fetch or FetchSnapshot, valid or not): check-quorum counts it. */
  recordContact(replicaId: number, monotonicMs: number): void {
    const progress = this.progress.get(replicaId);
    if (progress !== undefined) progress.lastFetchMonotonicMs = monotonicMs;
  }

  /** Ms until {@link hasMajorityFetchedWithin} may turn false (0 when it already is). */
  msUntilCheckQuorumExpires(nowMonotonicMs: number, windowMs: number): number {
    const lasts = this.voters
      .map((id) => (id === this.localId ? nowMonotonicMs : Math.max(this.progress.get(id)!.lastFetchMonotonicMs, this.startMonotonicMs)))
      .sort((a, b) => b - a);
    const majorityLast = lasts[Math.floor(this.voters.length / 2)]!;
    return Math.max(0, majorityLast + windowMs - nowMonotonicMs + 1);
  }

  /** Voters other than the leader, most caught up first (the EndQuorumEpoch successor order). */
  preferredSuccessors(): number[] {
    return this.voters
      .filter((id) => id !== this.localId)
      .sort((a, b) => this.progress.get(b)!.endOffset - this.progress.get(a)!.endOffset || a - b);
  }

  /** The voters' states as DescribeQuorum reports them. */
  describeVoters(): ReplicaState[] {
    return this.voters.map((id) => {
      const progress = this.progress.get(id)!;
      return { replicaId: id, logEndOffset: progress.endOffset, lastFetchTimestamp: progress.lastFetchTimestamp, lastCaughtUpTimestamp: progress.lastCaughtUpTimestamp };
    });
  }

  /** The observers that fetched within {@link OBSERVER_SESSION_TIMEOUT_MS} of `nowWallMs`, by id, as DescribeQuorum reports them. */
  describeObservers(nowWallMs: number): ReplicaState[] {
    for (const [id, state] of this.observers) {
      if (nowWallMs - state.lastFetchTimestamp > OBSERVER_SESSION_TIMEOUT_MS) this.observers.delete(id);
    }
    return [...this.observers.values()].sort((a, b) => a.replicaId - b.replicaId).map((state) => ({ ...state }));
  }

  private maybeAdvance(): boolean {
    const offsets = this.voters.map((id) => this.progress.get(id)!.endOffset).sort((a, b) => b - a);
    const majorityOffset = offsets[Math.floor(this.voters.length / 2)]!;
    if (majorityOffset <= this.epochStartOffset) return false;
    if (this.highWatermarkOffset !== undefined && majorityOffset <= this.highWatermarkOffset) return false;
    this.highWatermarkOffset = majorityOffset;
    return true;
  }
}
