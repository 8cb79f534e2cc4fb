/**
 * Elections: Vote (with KIP-996 pre-vote), BeginQuorumEpoch and EndQuorumEpoch, and the election
 * timers of the non-leader states.
 *
 * Vote
 *   A pre-vote (preVote = true, candidateEpoch = the prospective's epoch + 1) changes nothing on
 *   either side. It is granted when the candidate's epoch is above the voter's, its log is at
 *   least as up to date ((lastOffsetEpoch, lastOffset) compared as a pair), and the voter has no
 *   live leader (it is not the leader, nor a follower whose leader is fetchable and did not
 *   resign). A standard vote in a higher epoch first moves the voter to Unattached in that epoch
 *   (persisted); it is granted to an up-to-date candidate if the voter has not voted in the epoch
 *   (or voted for this candidate), and the vote is persisted before the answer.
 * BeginQuorumEpoch
 *   The new leader's announcement; the receiver follows it. Sent to every voter until it answers
 *   or fetches.
 * EndQuorumEpoch
 *   A resigning leader's notice, naming its preferred successors; the first stands at once, the
 *   others after a backoff growing with their position.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { BeginQuorumEpochRequest, EndQuorumEpochRequest, QuorumEpochResponse, VoteRequest, VoteResponse } from './messages.js';
import type { RaftCore } from './raft-core.js';

type Inbound<B> = { source: number; correlationId: number; body: B };

function voteResponse(core: RaftCore, errorCode: number, voteGranted: boolean): VoteResponse {
  const { leaderId, epoch } = core.leaderAndEpoch();
  return { errorCode, leaderId, leaderEpoch: epoch, voteGranted };
}

function isLogUpToDate(core: RaftCore, request: VoteRequest): boolean {
  const lastEpoch = core.log.lastFetchedEpoch();
  if (request.lastOffsetEpoch !== lastEpoch) return request.lastOffsetEpoch > lastEpoch;
  return request.lastOffset >= core.log.endOffset();
}

function hasLiveLeader(core: RaftCore): boolean {
  const state = core.quorum.state;
  if (state.kind === 'leader') return true;
  return state.kind === 'follower' && !state.leaderResigned && core.nowMs() - core.leaderContactMs < core.config.fetchTimeoutMs;
}

function canGrantStandardVote(core: RaftCore, candidateId: number): boolean {
  const state = core.quorum.state;
  switch (state.kind) {
    case 'unattached':
      return true;
    case 'voted':
      return state.votedId === candidateId;
    case 'prospective':
      return (state.votedId < 0 && state.leaderId < 0) || state.votedId === candidateId;
    default:
      return false;
  }
}

/** Answers a Vote request (see the file header). */
export function handleVoteRequest(core: RaftCore, request: Inbound<VoteRequest>): VoteResponse {
  const body = request.body;
  if (body.clusterId !== core.config.clusterId) return voteResponse(core, ErrorCode.INCONSISTENT_CLUSTER_ID, false);
  if (!core.quorum.isVoter || !core.config.voters.includes(body.candidateId)) return voteResponse(core, ErrorCode.INCONSISTENT_VOTER_SET, false);
  if (body.lastOffset < 0 || body.lastOffsetEpoch < 0 || body.lastOffsetEpoch >= body.candidateEpoch) return voteResponse(core, ErrorCode.INVALID_REQUEST, false);
  if (body.candidateEpoch < core.quorum.epoch) return voteResponse(core, ErrorCode.FENCED_LEADER_EPOCH, false);
  const upToDate = isLogUpToDate(core, body);
  if (body.preVote) {
    const granted = body.candidateEpoch > core.quorum.epoch && upToDate && !hasLiveLeader(core);
    return voteResponse(core, ErrorCode.NONE, granted);
  }
  if (body.candidateEpoch > core.quorum.epoch) core.becomeUnattached(body.candidateEpoch);
  const granted = upToDate && canGrantStandardVote(core, body.candidateId);
  const state = core.quorum.state;
  if (granted && (state.kind === 'unattached' || (state.kind === 'prospective' && state.votedId < 0))) {
    core.quorum.toVoted(body.candidateId, core.electionDeadlineMs());
  }
  return voteResponse(core, ErrorCode.NONE, granted);
}

/** Counts a Vote answer in the current round (pre-vote or standard). */
export function handleVoteResponse(core: RaftCore, source: number, preVote: boolean, body: VoteResponse): void {
  if (core.observeLeader(body.leaderEpoch, body.leaderId)) return;
  if (body.errorCode !== ErrorCode.NONE) {
    core.backoff(source);
    return;
  }
  const state = core.quorum.state;
  if (state.kind === 'prospective' && preVote && body.leaderEpoch <= state.epoch) {
    (body.voteGranted ? state.granted : state.rejected).add(source);
    if (core.config.voters.length - state.rejected.size < Math.floor(core.config.voters.length / 2) + 1) {
      core.quorum.returnFromProspective(core.electionDeadlineMs(), core.nowMs() + core.config.fetchTimeoutMs);
      core.fetchTarget = core.quorum.leaderId;
      return;
    }
  } else if (state.kind === 'candidate' && !preVote && body.leaderEpoch === state.epoch && state.backoffUntilMs === undefined) {
    (body.voteGranted ? state.granted : state.rejected).add(source);
    if (core.config.voters.length - state.rejected.size < Math.floor(core.config.voters.length / 2) + 1) {
      state.backoffUntilMs = core.nowMs() + core.electionBackoffMs(state.retries);
      return;
    }
  }
  core.maybeWinElection();
}

function epochResponse(core: RaftCore, errorCode: number): QuorumEpochResponse {
  const { leaderId, epoch } = core.leaderAndEpoch();
  return { errorCode, leaderId, leaderEpoch: epoch };
}

/** Follows the leader that announces itself (BeginQuorumEpoch). */
export function handleBeginQuorumEpochRequest(core: RaftCore, request: Inbound<BeginQuorumEpochRequest>): QuorumEpochResponse {
  const body = request.body;
  if (body.clusterId !== core.config.clusterId) return epochResponse(core, ErrorCode.INCONSISTENT_CLUSTER_ID);
  if (!core.config.voters.includes(body.leaderId)) return epochResponse(core, ErrorCode.INCONSISTENT_VOTER_SET);
  if (body.leaderEpoch < core.quorum.epoch) return epochResponse(core, ErrorCode.FENCED_LEADER_EPOCH);
  const state = core.quorum.state;
  if (body.leaderEpoch > state.epoch || state.kind !== 'follower' || state.leaderId !== body.leaderId) {
    core.becomeFollower(body.leaderEpoch, body.leaderId);
  }
  return epochResponse(core, ErrorCode.NONE);
}

/** The leader learns that a voter knows it; the resigned leader that a voter got its notice. */
export function handleQuorumEpochResponse(core: RaftCore, source: number, api: 'BeginQuorumEpoch' | 'EndQuorumEpoch', body: QuorumEpochResponse): void {
  if (core.observeLeader(body.leaderEpoch, body.leaderId)) return;
  if (body.errorCode !== ErrorCode.NONE) {
    core.backoff(source);
    return;
  }
  const state = core.quorum.state;
  if (api === 'BeginQuorumEpoch' && body.leaderEpoch === state.epoch) core.leaderState?.acknowledge(source);
  if (api === 'EndQuorumEpoch' && state.kind === 'resigned' && body.leaderEpoch === state.epoch) state.acknowledged.add(source);
}

/** A leader resigns: its followers look for a successor, the preferred first. */
export function handleEndQuorumEpochRequest(core: RaftCore, request: Inbound<EndQuorumEpochRequest>): QuorumEpochResponse {
  const body = request.body;
  if (body.clusterId !== core.config.clusterId) return epochResponse(core, ErrorCode.INCONSISTENT_CLUSTER_ID);
  if (!core.config.voters.includes(body.leaderId)) return epochResponse(core, ErrorCode.INCONSISTENT_VOTER_SET);
  if (body.leaderEpoch < core.quorum.epoch) return epochResponse(core, ErrorCode.FENCED_LEADER_EPOCH);
  if (body.leaderEpoch > core.quorum.epoch) core.becomeUnattached(body.leaderEpoch);
  const state = core.quorum.state;
  if (state.kind === 'follower' && state.leaderId === body.leaderId) {
    const position = body.preferredSuccessors.indexOf(core.nodeId);
    const waitMs = position < 0 ? core.config.electionTimeoutMs : position === 0 ? 0 : core.electionBackoffMs(position);
    state.leaderResigned = true;
    state.fetchDeadlineMs = Math.min(state.fetchDeadlineMs, core.nowMs() + waitMs);
  }
  return epochResponse(core, ErrorCode.NONE);
}

function sendVotes(core: RaftCore, granted: Set<number>, rejected: Set<number>, preVote: boolean): void {
  const epoch = core.quorum.epoch;
  for (const voter of core.otherVoters()) {
    if (granted.has(voter) || rejected.has(voter) || !core.canSend(voter)) continue;
    core.sendRequest(
      voter,
      'Vote',
      {
        clusterId: core.config.clusterId,
        candidateEpoch: preVote ? epoch + 1 : epoch,
        candidateId: core.nodeId,
        lastOffsetEpoch: core.log.lastFetchedEpoch(),
        lastOffset: core.log.endOffset(),
        preVote,
      },
      { preVote },
    );
  }
}

/**
 * The election side of poll: timeouts of Unattached, Voted, Prospective, Candidate and Resigned,
 * and the Vote and EndQuorumEpoch requests they send. Returns the next deadline (ms).
 */
export function pollElection(core: RaftCore): number {
  const now = core.nowMs();
  const state = core.quorum.state;
  if (!core.quorum.isVoter) return Number.POSITIVE_INFINITY;
  switch (state.kind) {
    case 'unattached':
    case 'voted':
      if (now >= state.electionDeadlineMs) core.becomeProspective();
      break;
    case 'prospective':
      if (now >= state.electionDeadlineMs) core.becomeProspective();
      break;
    case 'candidate':
      if (state.backoffUntilMs === undefined && now >= state.electionDeadlineMs) state.backoffUntilMs = now + core.electionBackoffMs(state.retries);
      if (state.backoffUntilMs !== undefined && now >= state.backoffUntilMs) core.becomeProspective();
      break;
    case 'resigned':
      if (now >= state.electionDeadlineMs) core.becomeProspective();
      break;
    default:
      return Number.POSITIVE_INFINITY;
  }
  const current = core.quorum.state;
  if (current.kind === 'prospective') sendVotes(core, current.granted, current.rejected, true);
  if (current.kind === 'candidate' && current.backoffUntilMs === undefined) sendVotes(core, current.granted, current.rejected, false);
  if (current.kind === 'resigned') {
    for (const voter of core.otherVoters()) {
      if (current.acknowledged.has(voter) || !core.canSend(voter)) continue;
      core.sendRequest(voter, 'EndQuorumEpoch', { clusterId: core.config.clusterId, leaderId: core.nodeId, leaderEpoch: current.epoch, preferredSuccessors: [...current.preferredSuccessors] });
    }
  }
  switch (current.kind) {
    case 'unattached':
    case 'voted':
    case 'prospective':
    case 'resigned':
      return current.electionDeadlineMs;
    case 'candidate':
      return current.backoffUntilMs ?? current.electionDeadlineMs;
    default:
      return Number.POSITIVE_INFINITY;
  }
}
