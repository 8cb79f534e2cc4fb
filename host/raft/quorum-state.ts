/**
 * QuorumState: the epoch state of one Raft node and its legal transitions (KIP-595, with KIP-996
 * pre-vote), persisted through a {@link QuorumStateStore} before the node acts in the new state.
 *
 * ```
 *                       higher epoch seen (any state) ──────────► Unattached(e')
 *
 *   Unattached(e) ──grant vote──► Voted(e, c)
 *        │  ▲                        │
 *        │  └──pre-vote lost,────────┤ election timeout
 *        │     nothing known         ▼
 *        └──election timeout──► Prospective(e) ──majority pre-votes──► Candidate(e+1) ──majority──► Leader(e+1)
 *                                ▲   │    ▲                              │ timeout / lost:            │
 *            fetch timeout,      │   │    └──────────backoff─────────────┘ backoff                    │ resign / check-quorum
 *            leader resigned     │   └──pre-vote lost, leader known──► Follower(e, l)                 ▼
 *   Follower(e, l) ──────────────┘                                                              Resigned(e)
 *   (any non-leader) ──BeginQuorumEpoch / Fetch answer from leader l of e──► Follower(e, l)          │ election timeout
 *                                                                                                   ▼
 *                                                                                              Prospective(e)
 * ```
 *
 * Rules kept here:
 * - The epoch never goes down; a node votes at most once per epoch (Voted, and Candidate and
 *   Resigned which voted for themselves, grant nobody else in their epoch).
 * - Everything that changes the epoch, the vote or the leader is written to the store first.
 *   Prospective changes nothing durable: a pre-vote bumps no epoch (KIP-996).
 * - Observers (nodes not among the voters) are only ever Unattached or Follower.
 */
import type { RaftConfig } from './raft-config.js';
import type { ElectionState, QuorumStateStore } from './quorum-state-store.js';

export interface UnattachedState {
  readonly kind: 'unattached';
  readonly epoch: number;
  readonly electionDeadlineMs: number;
}

export interface VotedState {
  readonly kind: 'voted';
  readonly epoch: number;
  readonly votedId: number;
  readonly electionDeadlineMs: number;
}

export interface ProspectiveState {
  readonly kind: 'prospective';
  readonly epoch: number;
  /** What the node knew of `epoch` before standing (a vote given, a leader followed), -1 if nothing. */
  readonly votedId: number;
  readonly leaderId: number;
  /**
   * The leader of `epoch` this node followed until it stood (resigned or not), -1 if none: a hint
   * naming it again does not send the node back to following it (it is why the node stands).
   */
  readonly abandonedLeaderId: number;
  /** Candidate rounds lost in a row (grows the backoff). */
  readonly retries: number;
  readonly electionDeadlineMs: number;
  readonly granted: Set<number>;
  readonly rejected: Set<number>;
}

export interface CandidateState {
  readonly kind: 'candidate';
  readonly epoch: number;
  readonly retries: number;
  readonly electionDeadlineMs: number;
  readonly granted: Set<number>;
  readonly rejected: Set<number>;
  /** Set once the round is lost: the time the next pre-vote round may start. */
  backoffUntilMs: number | undefined;
}

export interface LeaderStateMarker {
  readonly kind: 'leader';
  readonly epoch: number;
}

export interface FollowerState {
  readonly kind: 'follower';
  readonly epoch: number;
  readonly leaderId: number;
  /** Vote given in this epoch before the leader was known (kept so it survives a restart), or -1. */
  readonly votedId: number;
  /** Without a successful Fetch by then the node looks for a new leader. */
  fetchDeadlineMs: number;
  /** The leader announced its resignation (EndQuorumEpoch): pre-votes are granted again. */
  leaderResigned: boolean;
}

export interface ResignedState {
  readonly kind: 'resigned';
  readonly epoch: number;
  readonly preferredSuccessors: readonly number[];
  readonly electionDeadlineMs: number;
  /** Voters that acknowledged the EndQuorumEpoch. */
  readonly acknowledged: Set<number>;
}

export type EpochState = UnattachedState | VotedState | ProspectiveState | CandidateState | LeaderStateMarker | FollowerState | ResignedState;

export type EpochStateKind = EpochState['kind'];

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`QuorumState: ${message}`);
}

/** The epoch state of one node. Transitions assert their legal sources and persist first. */
export class QuorumState {
  private current: EpochState;

  constructor(
    private readonly config: RaftConfig,
    private readonly store: QuorumStateStore,
    initial: EpochState,
  ) {
    this.current = initial;
  }

  get state(): EpochState {
    return this.current;
  }

  get epoch(): number {
    return this.current.epoch;
  }

  get isVoter(): boolean {
    return this.config.voters.includes(this.config.nodeId);
  }

  /** The leader this node knows for its epoch, or -1. */
  get leaderId(): number {
    const state = this.current;
    if (state.kind === 'leader') return this.config.nodeId;
    if (state.kind === 'follower') return state.leaderId;
    return -1;
  }

  /** The vote this node gave in its epoch, or -1 (Candidate, Leader and Resigned voted for themselves). */
  get votedId(): number {
    const state = this.current;
    switch (state.kind) {
      case 'voted':
      case 'prospective':
      case 'follower':
        return state.votedId;
      case 'candidate':
      case 'leader':
      case 'resigned':
        return this.config.nodeId;
      default:
        return -1;
    }
  }

  /** Unattached in a higher epoch: nothing known of it yet. Legal from any state. */
  toUnattached(epoch: number, electionDeadlineMs: number): void {
    assert(epoch > this.epoch, `unattached in epoch ${epoch} from ${this.describe()}`);
    this.persist({ epoch, leaderId: -1, votedId: -1 });
    this.current = { kind: 'unattached', epoch, electionDeadlineMs };
  }

  /** Grants a vote in the current epoch. Legal from Unattached, or Prospective that knew nothing. */
  toVoted(candidateId: number, electionDeadlineMs: number): void {
    const state = this.current;
    assert(state.kind === 'unattached' || (state.kind === 'prospective' && state.votedId < 0 && state.leaderId < 0), `vote from ${this.describe()}`);
    assert(this.config.voters.includes(candidateId), `vote for non-voter ${candidateId}`);
    this.persist({ epoch: state.epoch, leaderId: -1, votedId: candidateId });
    this.current = { kind: 'voted', epoch: state.epoch, votedId: candidateId, electionDeadlineMs };
  }

  /**
   * Starts a pre-vote round in the current epoch (no bump, nothing persisted). Legal from every
   * state but Leader, for voters only.
   */
  toProspective(electionDeadlineMs: number): void {
    const state = this.current;
    assert(this.isVoter, 'an observer never stands');
    assert(state.kind !== 'leader', `prospective from ${this.describe()}`);
    const retries = state.kind === 'candidate' ? state.retries : state.kind === 'prospective' ? state.retries : 0;
    let votedId = -1;
    let leaderId = -1;
    if (state.kind === 'voted' || state.kind === 'prospective') votedId = state.votedId;
    if (state.kind === 'follower') {
      votedId = state.votedId;
      if (!state.leaderResigned) leaderId = state.leaderId;
    }
    if (state.kind === 'prospective') leaderId = state.leaderId;
    if (state.kind === 'candidate' || state.kind === 'resigned') votedId = this.config.nodeId;
    const abandonedLeaderId = state.kind === 'follower' ? state.leaderId : state.kind === 'prospective' ? state.abandonedLeaderId : -1;
    this.current = { kind: 'prospective', epoch: state.epoch, votedId, leaderId, abandonedLeaderId, retries, electionDeadlineMs, granted: new Set([this.config.nodeId]), rejected: new Set() };
  }

  /**
   * A lost pre-vote round goes back to what the node knew: following the leader, the vote it
   * gave, or nothing. Nothing durable changes (it was persisted before).
   */
  returnFromProspective(electionDeadlineMs: number, fetchDeadlineMs: number): void {
    const state = this.current;
    assert(state.kind === 'prospective', `return from prospective in ${this.describe()}`);
    if (state.leaderId >= 0) {
      this.current = { kind: 'follower', epoch: state.epoch, leaderId: state.leaderId, votedId: state.votedId, fetchDeadlineMs, leaderResigned: false };
    } else if (state.votedId >= 0 && state.votedId !== this.config.nodeId) {
      this.current = { kind: 'voted', epoch: state.epoch, votedId: state.votedId, electionDeadlineMs };
    } else {
      // Nothing known, or a vote for itself in a round it lost: stay prospective, retry at the deadline.
      this.current = { ...state, electionDeadlineMs, granted: new Set([this.config.nodeId]), rejected: new Set() };
    }
  }

  /** Stands in epoch + 1, voting for itself. Legal from Prospective only. */
  toCandidate(electionDeadlineMs: number): void {
    const state = this.current;
    assert(state.kind === 'prospective', `candidate from ${this.describe()}`);
    const epoch = state.epoch + 1;
    this.persist({ epoch, leaderId: -1, votedId: this.config.nodeId });
    this.current = { kind: 'candidate', epoch, retries: state.retries + 1, electionDeadlineMs, granted: new Set([this.config.nodeId]), rejected: new Set(), backoffUntilMs: undefined };
  }

  /** Leads the current epoch. Legal from Candidate with a majority. */
  toLeader(): void {
    const state = this.current;
    assert(state.kind === 'candidate', `leader from ${this.describe()}`);
    assert(state.granted.size * 2 > this.config.voters.length, `leader with ${state.granted.size} of ${this.config.voters.length} votes`);
    this.persist({ epoch: state.epoch, leaderId: this.config.nodeId, votedId: this.config.nodeId });
    this.current = { kind: 'leader', epoch: state.epoch };
  }

  /**
   * Follows `leaderId` in `epoch`. Legal from any state in a lower epoch; in the same epoch from
   * every state but Leader and Resigned (two leaders in one epoch) and Follower of another leader.
   */
  toFollower(epoch: number, leaderId: number, fetchDeadlineMs: number): void {
    const state = this.current;
    assert(epoch >= state.epoch, `follower in epoch ${epoch} from ${this.describe()}`);
    assert(leaderId !== this.config.nodeId, 'following itself');
    if (epoch === state.epoch) {
      assert(state.kind !== 'leader' && state.kind !== 'resigned', `two leaders in epoch ${epoch}: ${leaderId} and ${this.config.nodeId}`);
      assert(state.kind !== 'follower' || state.leaderId === leaderId, `two leaders in epoch ${epoch}: ${leaderId} and ${state.kind === 'follower' ? state.leaderId : -1}`);
    }
    const votedId = epoch === state.epoch ? this.votedId : -1;
    this.persist({ epoch, leaderId, votedId });
    this.current = { kind: 'follower', epoch, leaderId, votedId, fetchDeadlineMs, leaderResigned: false };
  }

  /** Gives up leadership of the current epoch. Legal from Leader. */
  toResigned(preferredSuccessors: readonly number[], electionDeadlineMs: number): void {
    const state = this.current;
    assert(state.kind === 'leader', `resigned from ${this.describe()}`);
    this.current = { kind: 'resigned', epoch: state.epoch, preferredSuccessors, electionDeadlineMs, acknowledged: new Set() };
  }

  describe(): string {
    const state = this.current;
    return `${state.kind}(epoch ${state.epoch}, leader ${this.leaderId}, voted ${this.votedId})`;
  }

  private persist(election: ElectionState): void {
    this.store.write(election);
  }
}

/**
 * The state a node starts in from what it persisted (Kafka's QuorumState.initialize): leading
 * before the crash gives Resigned (it must not lead again without an election), a known leader
 * gives Follower, a vote gives Voted, else Unattached. A log ahead of the stored epoch (possible
 * only if the store was lost) moves the epoch up to the log's.
 */
export function initialEpochState(config: RaftConfig, stored: ElectionState | undefined, logEpoch: number, nowMs: number, electionTimeoutMs: number): EpochState {
  const election = stored ?? { epoch: 0, leaderId: -1, votedId: -1 };
  const electionDeadlineMs = nowMs + electionTimeoutMs;
  if (logEpoch > election.epoch) return { kind: 'unattached', epoch: logEpoch, electionDeadlineMs };
  const isVoter = config.voters.includes(config.nodeId);
  if (election.leaderId === config.nodeId && isVoter) {
    return { kind: 'resigned', epoch: election.epoch, preferredSuccessors: [], electionDeadlineMs, acknowledged: new Set() };
  }
  if (election.leaderId >= 0) {
    return { kind: 'follower', epoch: election.epoch, leaderId: election.leaderId, votedId: election.votedId, fetchDeadlineMs: nowMs + config.fetchTimeoutMs, leaderResigned: false };
  }
  if (election.votedId >= 0 && isVoter) {
    if (election.votedId === config.nodeId) {
      // It stood in this epoch and the round's outcome is unknown: a lost round, backing off.
      return { kind: 'candidate', epoch: election.epoch, retries: 1, electionDeadlineMs, granted: new Set([config.nodeId]), rejected: new Set(), backoffUntilMs: electionDeadlineMs };
    }
    return { kind: 'voted', epoch: election.epoch, votedId: election.votedId, electionDeadlineMs };
  }
  return { kind: 'unattached', epoch: election.epoch, electionDeadlineMs };
}
