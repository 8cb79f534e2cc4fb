/**
 * The in-sync replica set of a partition as its leader sees it (Kafka's PartitionState in
 * Partition.scala: CommittedPartitionState, PendingExpandIsr, PendingShrinkIsr), with the leader's
 * view of each follower (ReplicaState) and Kafka's rules that read them:
 *
 * ```
 *   committed(isr) ──expand proposal──► pendingExpand(isr, +id)  maximal ISR = isr ∪ {id}
 *        ▲  ▲      ──shrink proposal──► pendingShrink(isr, -ids) maximal ISR = isr
 *        │  └── the controller's answer committed (isr', partitionEpoch'), or refused with
 *        │      OPERATION_NOT_ATTEMPTED / INELIGIBLE_REPLICA (back to the committed state)
 *        └──── a metadata update (makeLeader / makeFollower): the controller's committed state
 * ```
 * - min.insync.replicas before an acks=all append counts the committed ISR;
 * - the high watermark and DelayedProduce's NOT_ENOUGH_REPLICAS_AFTER_APPEND count the maximal
 *   ISR (a follower being added already holds the high watermark; one being removed still does
 *   until the controller commits its removal);
 * - expand (isFollowerInSync): a follower outside the ISR whose log end offset reached the high
 *   watermark and the start offset of the current leader epoch;
 * - shrink (isCaughtUp): ISR followers whose log end offset differs from the leader's and whose
 *   lastCaughtUpTimeMs is older than replica.lag.time.max.ms;
 * - at most one proposal in flight; none while one is pending.
 */
import { ReplicaState, UNKNOWN_OFFSET } from './replica-state.js';

/** A proposal sent to the controller and not answered yet. */
export interface PendingIsrChange {
  readonly kind: 'expand' | 'shrink';
  readonly newIsr: readonly number[];
}

export class PartitionIsr {
  private committed: Set<number>;
  private maximal: Set<number>;
  private pendingChange: PendingIsrChange | null = null;
  /** The leader's view of every other assigned replica; empty on a follower. */
  readonly remoteReplicas = new Map<number, ReplicaState>();

  constructor(private readonly localBrokerId: number, isr: readonly number[]) {
    this.committed = new Set(isr);
    this.maximal = this.committed;
  }

  /** The committed ISR (what the controller last decided). */
  get isr(): ReadonlySet<number> {
    return this.committed;
  }

  /** The committed ISR plus a follower being added. */
  get maximalIsr(): ReadonlySet<number> {
    return this.maximal;
  }

  get pending(): PendingIsrChange | null {
    return this.pendingChange;
  }

  /** The controller's committed ISR (metadata or an AlterPartition answer); any proposal is over. */
  commit(isr: readonly number[]): void {
    this.committed = new Set(isr);
    this.maximal = this.committed;
    this.pendingChange = null;
  }

  /** A proposal was sent (see the file header for the maximal ISR it implies). */
  propose(change: PendingIsrChange): void {
    if (this.pendingChange !== null) throw new Error('assertion failed: one ISR proposal at a time');
    this.pendingChange = change;
    this.maximal = change.kind === 'expand' ? new Set([...this.committed, ...change.newIsr]) : this.committed;
  }

  /** The proposal was refused without being applied: back to the committed state. */
  abandonPending(): void {
    this.pendingChange = null;
    this.maximal = this.committed;
  }

  /** One ReplicaState per assigned replica other than this broker (kept across calls). */
  updateReplicaSet(replicas: readonly number[]): void {
    for (const brokerId of this.remoteReplicas.keys()) {
      if (!replicas.includes(brokerId)) this.remoteReplicas.delete(brokerId);
    }
    for (const brokerId of replicas) {
      if (brokerId !== this.localBrokerId && !this.remoteReplicas.has(brokerId)) this.remoteReplicas.set(brokerId, new ReplicaState(brokerId));
    }
  }

  /** A new leader epoch here: every follower's state is reset (ReplicaState.reset). */
  resetReplicas(nowMs: number, leaderLogEndOffset: number, isNewLeader: boolean): void {
    for (const replica of this.remoteReplicas.values()) {
      replica.reset(nowMs, leaderLogEndOffset, isNewLeader, this.committed.has(replica.brokerId));
    }
  }

  /**
   * Kafka's maybeIncrementLeaderHW candidate: the smallest log end offset among the leader and
   * the followers in the maximal ISR, or, with `waitForJoiners` (the leader can expand its ISR),
   * outside it but caught up and eligible (they are about to join: Kafka holds the high watermark
   * for them too, but not for a fenced or shutting-down broker: `isEligible`).
   */
  highWatermarkCandidate(
    leaderLogEndOffset: number, time: { monotonicMs(): number }, replicaLagTimeMaxMs: number, waitForJoiners: boolean,
    isEligible: (brokerId: number) => boolean = () => true,
  ): number {
    let candidate = leaderLogEndOffset;
    // The single-node path (every append): no clock read, no loop.
    if (this.maximal.size <= 1 && (this.remoteReplicas.size === 0 || !waitForJoiners)) return candidate;
    const nowMs = time.monotonicMs();
    for (const replica of this.remoteReplicas.values()) {
      if (replica.logEndOffset >= candidate) continue;
      if (this.maximal.has(replica.brokerId) || (waitForJoiners && isCaughtUp(replica, leaderLogEndOffset, nowMs, replicaLagTimeMaxMs) && isEligible(replica.brokerId))) {
        candidate = replica.logEndOffset;
      }
    }
    // An ISR member this leader has no state for (metadata naming a non-replica) holds it too.
    for (const brokerId of this.maximal) {
      if (brokerId !== this.localBrokerId && !this.remoteReplicas.has(brokerId)) return Math.min(candidate, UNKNOWN_OFFSET);
    }
    return candidate;
  }

  /**
   * `isr` with each follower's broker epoch of its last fetch (KIP-903's new_isr_with_epochs);
   * this leader's own entry is -1 (its epoch is the request's broker_epoch, checked on its own).
   */
  withBrokerEpochs(isr: readonly number[]): { brokerId: number; brokerEpoch: number }[] {
    return isr.map((brokerId) => ({ brokerId, brokerEpoch: brokerId === this.localBrokerId ? -1 : this.remoteReplicas.get(brokerId)?.brokerEpoch ?? -1 }));
  }

  /** The new ISR with `follower` added when it is in sync (Kafka's canAddReplicaToIsr), else null. */
  expandCandidate(follower: ReplicaState, highWatermark: number, leaderEpochStartOffset: number): readonly number[] | null {
    if (this.pendingChange !== null || this.committed.has(follower.brokerId)) return null;
    const logEndOffset = follower.logEndOffset;
    if (logEndOffset < highWatermark || leaderEpochStartOffset < 0 || logEndOffset < leaderEpochStartOffset) return null;
    return [...this.committed, follower.brokerId];
  }

  /** The new ISR without the followers that are no longer caught up (Kafka's getOutOfSyncReplicas), else null. */
  shrinkCandidate(leaderLogEndOffset: number, nowMs: number, replicaLagTimeMaxMs: number): readonly number[] | null {
    if (this.pendingChange !== null) return null;
    const outOfSync: number[] = [];
    for (const brokerId of this.committed) {
      if (brokerId === this.localBrokerId) continue;
      const replica = this.remoteReplicas.get(brokerId);
      if (replica === undefined || !isCaughtUp(replica, leaderLogEndOffset, nowMs, replicaLagTimeMaxMs)) outOfSync.push(brokerId);
    }
    if (outOfSync.length === 0) return null;
    return [...this.committed].filter((brokerId) => !outOfSync.includes(brokerId));
  }
}

/** Kafka's ReplicaState.isCaughtUp: at the leader's log end, or caught up within the lag time. */
function isCaughtUp(replica: ReplicaState, leaderLogEndOffset: number, nowMs: number, replicaLagTimeMaxMs: number): boolean {
  return replica.logEndOffset === leaderLogEndOffset || nowMs - replica.lastCaughtUpTimeMs <= replicaLagTimeMaxMs;
}
