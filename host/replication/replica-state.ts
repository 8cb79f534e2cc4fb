/**
 * Kafka's Replica (cluster/Replica.scala) for a remote replica seen from the partition leader:
 * what the leader knows of one follower from its Fetch requests. The leader keeps one per
 * assigned replica other than itself, reset whenever it becomes leader (a new epoch).
 *
 * Kafka's rule for `lastCaughtUpTimeMs` (updateFetchStateOrThrow): a fetch at `fetchOffset` made at
 * `fetchTimeMs` proves the follower was caught up
 *   - at `fetchTimeMs` when fetchOffset >= the leader's log end offset now, and
 *   - at the time of its previous fetch when fetchOffset >= the leader's log end offset at that
 *     previous fetch (it has everything the leader had then);
 * the later of the two applies, never moving the time backwards. ISR shrink compares it with
 * `replica.lag.time.max.ms`.
 */

/** Kafka's UnifiedLog.UnknownOffset: no fetch seen since this broker became leader. */
export const UNKNOWN_OFFSET = -1;
/**
 * "Never" for the times below (Kafka uses 0 on its wall clock; ours is the monotonic clock, which
 * may start near 0, so 0 could read as "just now").
 */
export const NEVER_MS = Number.NEGATIVE_INFINITY;

/** The leader's view of one follower. */
export class ReplicaState {
  /** The follower's log end offset: the offset of its last fetch; UNKNOWN_OFFSET before one. */
  logEndOffset = UNKNOWN_OFFSET;
  /** The follower's log start offset from its last fetch (Fetch's log_start_offset). */
  logStartOffset = UNKNOWN_OFFSET;
  /** The last time (ms) the follower was known to be caught up with the leader. */
  lastCaughtUpTimeMs = NEVER_MS;
  /**
   * The broker epoch (KIP-903) of the follower's registration its last fetch was made under, as
   * this leader's metadata knew it then; -1 unknown (no fetch since this broker became leader).
   */
  brokerEpoch = -1;
  /** The leader's log end offset at the follower's previous fetch. */
  private lastFetchLeaderLogEndOffset = UNKNOWN_OFFSET;
  /** When the previous fetch happened (ms). */
  private lastFetchTimeMs = NEVER_MS;

  constructor(readonly brokerId: number) {}

  /**
   * Records a fetch: `fetchOffset` becomes the follower's log end offset (Kafka's
   * updateFollowerFetchState), and `lastCaughtUpTimeMs` moves by the rule in the file header.
   */
  updateFetchState(fetchOffset: number, followerLogStartOffset: number, fetchTimeMs: number, leaderLogEndOffset: number, brokerEpoch = -1): void {
    this.brokerEpoch = brokerEpoch;
    if (fetchOffset >= leaderLogEndOffset) {
      this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, fetchTimeMs);
    } else if (fetchOffset >= this.lastFetchLeaderLogEndOffset && this.lastFetchLeaderLogEndOffset >= 0) {
      this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, this.lastFetchTimeMs);
    }
    this.logEndOffset = fetchOffset;
    this.logStartOffset = followerLogStartOffset;
    this.lastFetchLeaderLogEndOffset = leaderLogEndOffset;
    this.lastFetchTimeMs = fetchTimeMs;
  }

  /**
   * This broker became leader, or was re-elected (Kafka's resetReplicaState): a follower in the
   * ISR counts as caught up now (so it is not shrunk out before it can fetch), one outside it as
   * never caught up (so it does not hold the high watermark back). A new leader forgets the
   * follower's offsets; a re-elected one keeps them and takes `leaderLogEndOffset` as the
   * previous fetch's leader end (only for an in-sync follower is that fetch "now").
   */
  reset(nowMs: number, leaderLogEndOffset: number, isNewLeader: boolean, inSync: boolean): void {
    this.lastCaughtUpTimeMs = inSync ? nowMs : NEVER_MS;
    this.lastFetchTimeMs = inSync ? nowMs : NEVER_MS;
    if (isNewLeader) {
      this.brokerEpoch = -1;
      this.logEndOffset = UNKNOWN_OFFSET;
      this.logStartOffset = UNKNOWN_OFFSET;
      this.lastFetchLeaderLogEndOffset = UNKNOWN_OFFSET;
      this.lastFetchTimeMs = NEVER_MS;
    } else {
      this.lastFetchLeaderLogEndOffset = leaderLogEndOffset;
    }
  }
}
