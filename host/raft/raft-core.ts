/**
 * RaftCore: the state one Raft node shares between its parts (election, replication, the client
 * facade): configuration, log, quorum state, leader state, high watermark, and the outbound queue
 * with the requests in flight. It performs the state transitions (each persisted by
 * {@link QuorumState} first) and the bookkeeping every transition needs. No I/O: messages go to
 * the outbound queue, time is read from the injected {@link Time}.
 */
import type { RandomSource, Time } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { leaderChangeRecord } from './control-records.js';
import { LeaderState } from './leader-state.js';
import type { FetchRequest, RaftApi, RaftEnvelope, RaftRequests, RaftResponses } from './messages.js';
import type { RaftConfig } from './raft-config.js';
import type { RaftLog, SnapshotId } from './raft-log.js';
import { QuorumState } from './quorum-state.js';

/** A request sent and not yet answered. */
export interface InflightRequest {
  readonly correlationId: number;
  readonly api: RaftApi;
  readonly deadlineMs: number;
  /** Vote: whether it was a pre-vote. */
  readonly preVote?: boolean;
  /** Fetch: the fetch offset sent. */
  readonly fetchOffset?: number;
}

/** A Fetch the leader holds until data or a new high watermark arrives (long poll). */
export interface HeldFetch {
  readonly envelope: { source: number; correlationId: number; body: FetchRequest };
  readonly deadlineMs: number;
}

/** A snapshot being fetched from the leader, chunk by chunk. */
export interface PendingSnapshot {
  readonly id: SnapshotId;
  readonly chunks: Uint8Array[];
  position: number;
}

/** Raft's limit on requests in flight: one per destination (as Kafka's RequestManager). */
export class RaftCore {
  readonly quorum: QuorumState;
  leaderState: LeaderState | undefined;
  /** The node's high watermark: committed offsets are below it. Never goes back in one life. */
  highWatermark: number;
  readonly outbound: RaftEnvelope[] = [];
  readonly inflight = new Map<number, InflightRequest>();
  readonly retryAtMs = new Map<number, number>();
  heldFetches: HeldFetch[] = [];
  /** Replica id -> the high watermark last sent in a Fetch response (leader only). */
  readonly highWatermarkSent = new Map<number, number>();
  pendingSnapshot: PendingSnapshot | undefined;
  /** Leader: when the appends not yet flushed must be flushed. */
  lingerDeadlineMs: number | undefined;
  /**
   * Monotonic ms of the latest successful Fetch or FetchSnapshot answer from the leader followed
   * (-Infinity before the first). A follower refuses pre-votes only while this is within the fetch
   * timeout (KIP-996), whatever its state's deadlines say.
   */
  leaderContactMs = Number.NEGATIVE_INFINITY;
  /**
   * The current uninterrupted contact with the quorum (RaftClient.quorumContact): when it began
   * (monotonic ms; a follower's first successful answer after more than the fetch timeout without
   * one, a leader's election) and the offset the node's state machine must have replayed to be
   * current (the leader's high watermark in that first answer; a new leader's epoch start offset).
   */
  contactStartMs = Number.NEGATIVE_INFINITY;
  contactCatchUpOffset = -1;
  /** Observers and followers: the node Fetch goes to. */
  fetchTarget = -1;
  private nextCorrelationId: number;

  constructor(
    readonly config: RaftConfig,
    readonly log: RaftLog,
    quorum: QuorumState,
    readonly time: Time,
    readonly random: RandomSource,
  ) {
    this.quorum = quorum;
    this.highWatermark = log.startOffset();
    this.fetchTarget = quorum.leaderId;
    // Random per life, so a late answer to a previous life's request matches nothing in flight.
    this.nextCorrelationId = random.int(1, 2 ** 30);
  }

  get nodeId(): number {
    return this.config.nodeId;
  }

  nowMs(): number {
    return this.time.monotonicMs();
  }

  /** A fresh election deadline: the election timeout randomised in [t, 2t). */
  electionDeadlineMs(): number {
    const timeoutMs = this.config.electionTimeoutMs;
    return this.nowMs() + timeoutMs + this.random.int(0, timeoutMs - 1);
  }

  /** A random backoff after `retries` lost rounds, capped by `controller.quorum.election.backoff.max.ms`. */
  electionBackoffMs(retries: number): number {
    const ceiling = Math.min(this.config.electionBackoffMaxMs, this.config.retryBackoffMs * 2 ** Math.min(retries, 16));
    return this.random.int(1, Math.max(1, ceiling));
  }

  isMajority(count: number): boolean {
    return count * 2 > this.config.voters.length;
  }

  otherVoters(): number[] {
    return this.config.voters.filter((id) => id !== this.nodeId);
  }

  /** True when nothing is in flight to `destination` and its retry backoff has passed. */
  canSend(destination: number): boolean {
    return !this.inflight.has(destination) && (this.retryAtMs.get(destination) ?? 0) <= this.nowMs();
  }

  sendRequest<A extends RaftApi>(destination: number, api: A, body: RaftRequests[A], extra: { preVote?: boolean; fetchOffset?: number } = {}): void {
    const correlationId = this.nextCorrelationId++;
    this.inflight.set(destination, { correlationId, api, deadlineMs: this.nowMs() + this.config.requestTimeoutMs, ...extra });
    this.outbound.push({ source: this.nodeId, destination, correlationId, kind: 'request', api, body } as RaftEnvelope);
  }

  respond<A extends RaftApi>(request: { source: number; correlationId: number }, api: A, body: RaftResponses[A]): void {
    this.outbound.push({ source: this.nodeId, destination: request.source, correlationId: request.correlationId, kind: 'response', api, body } as RaftEnvelope);
  }

  /** After a failed request: wait `controller.quorum.retry.backoff.ms` before the next to `destination`. */
  backoff(destination: number): void {
    this.retryAtMs.set(destination, this.nowMs() + this.config.retryBackoffMs);
  }

  /**
   * What every message tells: the sender's epoch and leader. A higher epoch moves this node to it
   * (following the leader if named); a leader named for the current epoch while none is known is
   * followed. Returns true when the state changed (the caller stops handling the message).
   */
  observeLeader(epoch: number, leaderId: number): boolean {
    const quorum = this.quorum;
    if (epoch > quorum.epoch) {
      if (leaderId >= 0 && leaderId !== this.nodeId) this.becomeFollower(epoch, leaderId);
      else this.becomeUnattached(epoch);
      return true;
    }
    const state = quorum.state;
    const kind = state.kind;
    const abandoned = kind === 'prospective' && state.abandonedLeaderId === leaderId;
    if (epoch === quorum.epoch && leaderId >= 0 && leaderId !== this.nodeId && !abandoned && kind !== 'follower' && kind !== 'leader' && kind !== 'resigned') {
      this.becomeFollower(epoch, leaderId);
      return true;
    }
    return false;
  }

  becomeUnattached(epoch: number): void {
    this.quorum.toUnattached(epoch, this.electionDeadlineMs());
    this.afterTransition();
  }

  becomeFollower(epoch: number, leaderId: number): void {
    this.quorum.toFollower(epoch, leaderId, this.nowMs() + this.config.fetchTimeoutMs);
    this.afterTransition();
  }

  becomeProspective(): void {
    this.quorum.toProspective(this.electionDeadlineMs());
    this.afterTransition();
    this.maybeWinElection();
  }

  /** Leads the current epoch: writes and flushes the LeaderChange record at the epoch start offset. */
  becomeLeader(grantingVoters: readonly number[]): void {
    this.quorum.toLeader();
    const epoch = this.quorum.epoch;
    const epochStartOffset = this.log.endOffset();
    this.log.append(epoch, [leaderChangeRecord(this.nodeId, this.config.voters, grantingVoters)], true);
    this.log.flush();
    this.afterTransition();
    const leader = new LeaderState(this.nodeId, epoch, epochStartOffset, this.config.voters, this.nowMs());
    this.leaderState = leader;
    this.contactStartMs = this.nowMs();
    this.contactCatchUpOffset = epochStartOffset;
    this.leaderFlushed();
  }

  becomeResigned(): void {
    const successors = this.leaderState?.preferredSuccessors() ?? this.otherVoters();
    this.quorum.toResigned(successors, this.electionDeadlineMs());
    this.afterTransition();
  }

  /** Prospective or Candidate with a majority moves on (a single voter wins at once). */
  maybeWinElection(): void {
    const state = this.quorum.state;
    if (state.kind === 'prospective' && this.isMajority(state.granted.size)) {
      this.quorum.toCandidate(this.electionDeadlineMs());
      this.afterTransition();
    }
    const next = this.quorum.state;
    if (next.kind === 'candidate' && next.backoffUntilMs === undefined && this.isMajority(next.granted.size)) this.becomeLeader([...next.granted]);
  }

  /** The leader flushed its log (or was just elected): its own end offset counts now. */
  leaderFlushed(): void {
    const leader = this.leaderState;
    if (leader === undefined) return;
    this.lingerDeadlineMs = undefined;
    if (leader.updateLocal(this.log.flushedOffset(), this.log.endOffset(), this.time.nowMs())) this.adoptLeaderHighWatermark();
  }

  /** The leader's high watermark moved: the node's follows. */
  adoptLeaderHighWatermark(): void {
    const leaderHighWatermark = this.leaderState?.highWatermark;
    if (leaderHighWatermark !== undefined) this.advanceHighWatermark(leaderHighWatermark);
  }

  /** Moves the high watermark forward (never back; never past the log end). */
  advanceHighWatermark(offset: number): void {
    const bounded = Math.min(offset, this.log.endOffset());
    if (bounded > this.highWatermark) this.highWatermark = bounded;
  }

  /** The leader and epoch this node knows. */
  leaderAndEpoch(): { leaderId: number; epoch: number } {
    return { leaderId: this.quorum.leaderId, epoch: this.quorum.epoch };
  }

  /** A successful Fetch or FetchSnapshot answer from the leader followed; `leaderHighWatermark` is the one it states. */
  touchLeaderContact(leaderHighWatermark: number): void {
    const now = this.nowMs();
    if (now - this.leaderContactMs >= this.config.fetchTimeoutMs) {
      this.contactStartMs = now;
      this.contactCatchUpOffset = leaderHighWatermark;
    }
    this.leaderContactMs = now;
  }

  private afterTransition(): void {
    this.leaderContactMs = Number.NEGATIVE_INFINITY;
    this.contactStartMs = Number.NEGATIVE_INFINITY;
    this.contactCatchUpOffset = -1;
    this.inflight.clear();
    this.retryAtMs.clear();
    this.pendingSnapshot = undefined;
    this.fetchTarget = this.quorum.leaderId;
    if (this.quorum.state.kind !== 'leader') {
      this.leaderState = undefined;
      this.lingerDeadlineMs = undefined;
      this.highWatermarkSent.clear();
      const { leaderId, epoch } = this.leaderAndEpoch();
      for (const held of this.heldFetches) {
        this.respond(held.envelope, 'Fetch', { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, leaderId, leaderEpoch: epoch, highWatermark: -1, logStartOffset: -1, batches: [] });
      }
      this.heldFetches = [];
    }
  }
}
