/**
 * Replication, KRaft's pull model: followers Fetch the leader's log; the leader answers with
 * records, a diverging epoch or a snapshot id, and moves the high watermark from the fetch
 * offsets (see `leader-state.ts`).
 *
 * Fetch (leader side), after the epoch checks (older: FENCED_LEADER_EPOCH, newer:
 * UNKNOWN_LEADER_EPOCH, not the leader: NOT_LEADER_OR_FOLLOWER):
 *   - fetch offset below the log start, or a last fetched epoch older than the latest snapshot:
 *     answer the snapshot id (the follower fetches the snapshot);
 *   - (fetchOffset, lastFetchedEpoch) not on the leader's log (endOffsetForEpoch gives another
 *     epoch or an end below the fetch offset): answer the diverging (epoch, end offset);
 *   - else the offset is the follower's flushed log end: it counts towards the high watermark;
 *     records from it are answered, or, when there are none and the follower already has the high
 *     watermark, the Fetch is held up to the fetch max wait (long poll).
 * Fetch (follower side): a diverging epoch truncates (to the end of that epoch in both logs; never
 * below the high watermark), a snapshot id starts FetchSnapshot, records are appended; the high
 * watermark follows the leader's, bounded by the log end, and only from answers whose fetch
 * position the leader validated. The log is flushed before the next Fetch reports its end.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { DescribeQuorumResponse, FetchRequest, FetchResponse, FetchSnapshotRequest, FetchSnapshotResponse } from './messages.js';
import type { RaftCore } from './raft-core.js';
import type { OffsetAndEpoch } from './raft-log.js';

type Inbound<B> = { source: number; correlationId: number; body: B };

function fetchError(core: RaftCore, errorCode: number): FetchResponse {
  const { leaderId, epoch } = core.leaderAndEpoch();
  return { errorCode, leaderId, leaderEpoch: epoch, highWatermark: -1, logStartOffset: -1, batches: [] };
}

/** The leader-epoch checks Fetch and FetchSnapshot share: an error code, or NONE. */
function checkLeaderEpoch(core: RaftCore, clusterId: string, replicaEpoch: number): number {
  if (clusterId !== core.config.clusterId) return ErrorCode.INCONSISTENT_CLUSTER_ID;
  if (replicaEpoch < core.quorum.epoch) return ErrorCode.FENCED_LEADER_EPOCH;
  if (replicaEpoch > core.quorum.epoch) return ErrorCode.UNKNOWN_LEADER_EPOCH;
  if (core.leaderState === undefined) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  return ErrorCode.NONE;
}

type FetchPosition = { kind: 'valid' } | { kind: 'snapshot' } | { kind: 'diverging'; divergingEpoch: OffsetAndEpoch };

function validateFetchPosition(core: RaftCore, fetchOffset: number, lastFetchedEpoch: number): FetchPosition {
  const log = core.log;
  const snapshot = log.latestSnapshot();
  if (snapshot !== undefined && (fetchOffset < log.startOffset() || lastFetchedEpoch < snapshot.id.epoch)) return { kind: 'snapshot' };
  if (fetchOffset === 0 && lastFetchedEpoch === 0) return { kind: 'valid' };
  const end = log.endOffsetForEpoch(lastFetchedEpoch);
  if (end.epoch !== lastFetchedEpoch || end.offset < fetchOffset) return { kind: 'diverging', divergingEpoch: end };
  return { kind: 'valid' };
}

/**
 * Answers a Fetch (see the file header); returns undefined when the Fetch is held (long poll), to
 * be answered by {@link completeHeldFetches}.
 */
export function handleFetchRequest(core: RaftCore, request: Inbound<FetchRequest>, mayHold: boolean): FetchResponse | undefined {
  const body = request.body;
  const errorCode = checkLeaderEpoch(core, body.clusterId, body.replicaEpoch);
  if (errorCode !== ErrorCode.NONE) return fetchError(core, errorCode);
  if (body.fetchOffset < 0 || body.lastFetchedEpoch < 0 || body.lastFetchedEpoch > core.quorum.epoch) return fetchError(core, ErrorCode.INVALID_REQUEST);
  const leader = core.leaderState!;
  const log = core.log;
  const base = { errorCode: ErrorCode.NONE, leaderId: core.nodeId, leaderEpoch: core.quorum.epoch, highWatermark: core.highWatermark, logStartOffset: log.startOffset(), batches: [] };
  const position = validateFetchPosition(core, body.fetchOffset, body.lastFetchedEpoch);
  leader.recordContact(body.replicaId, core.nowMs());
  if (position.kind === 'snapshot') return { ...base, snapshotId: log.latestSnapshot()!.id };
  if (position.kind === 'diverging') return { ...base, divergingEpoch: position.divergingEpoch };
  if (leader.updateReplica(body.replicaId, body.fetchOffset, log.endOffset(), core.time.nowMs(), core.nowMs())) {
    core.adoptLeaderHighWatermark();
    completeHeldFetches(core);
  }
  const batches = log.read(body.fetchOffset, Math.min(body.maxBytes, core.config.fetchMaxBytes));
  if (mayHold && batches.length === 0 && core.highWatermarkSent.get(body.replicaId) === core.highWatermark) {
    core.heldFetches.push({ envelope: request, deadlineMs: core.nowMs() + core.config.fetchMaxWaitMs });
    return undefined;
  }
  core.highWatermarkSent.set(body.replicaId, core.highWatermark);
  return { ...base, highWatermark: core.highWatermark, batches };
}

/** Answers the held Fetches (new data, a new high watermark, or their wait is over). */
export function completeHeldFetches(core: RaftCore, onlyExpired = false): void {
  if (core.heldFetches.length === 0) return;
  const now = core.nowMs();
  const held = core.heldFetches;
  core.heldFetches = [];
  for (const fetch of held) {
    if (onlyExpired && fetch.deadlineMs > now) {
      core.heldFetches.push(fetch);
      continue;
    }
    const response = handleFetchRequest(core, fetch.envelope, false)!;
    core.respond(fetch.envelope, 'Fetch', response);
  }
}

function truncationOffset(core: RaftCore, diverging: OffsetAndEpoch): number {
  const log = core.log;
  if (diverging.epoch === 0) return Math.min(diverging.offset, log.endOffset());
  const local = log.endOffsetForEpoch(diverging.epoch);
  return local.epoch === diverging.epoch ? Math.min(local.offset, diverging.offset) : local.offset;
}

/** Applies a Fetch answer from the leader this node follows (see the file header). */
export function handleFetchResponse(core: RaftCore, source: number, sentFetchOffset: number, body: FetchResponse): void {
  if (core.observeLeader(body.leaderEpoch, body.leaderId)) return;
  const state = core.quorum.state;
  if (body.errorCode !== ErrorCode.NONE || state.kind !== 'follower' || state.leaderId !== source || body.leaderEpoch !== state.epoch) {
    core.backoff(source);
    return;
  }
  state.fetchDeadlineMs = core.nowMs() + core.config.fetchTimeoutMs;
  core.touchLeaderContact(body.highWatermark);
  const log = core.log;
  if (sentFetchOffset !== log.endOffset()) return;
  if (body.divergingEpoch !== undefined) {
    const offset = Math.max(truncationOffset(core, body.divergingEpoch), log.startOffset());
    if (offset < core.highWatermark) throw new Error(`Raft: truncation to ${offset} below the high watermark ${core.highWatermark} (node ${core.nodeId})`);
    log.truncateTo(offset);
    return;
  }
  if (body.snapshotId !== undefined) {
    core.pendingSnapshot = { id: body.snapshotId, chunks: [], position: 0 };
    return;
  }
  for (const batch of body.batches) {
    if (batch.epoch > body.leaderEpoch) throw new Error(`Raft: batch of epoch ${batch.epoch} from the leader of epoch ${body.leaderEpoch}`);
  }
  if (body.batches.length > 0) log.appendAsFollower(body.batches);
  if (body.highWatermark >= 0) core.advanceHighWatermark(body.highWatermark);
}

function snapshotError(core: RaftCore, errorCode: number, request: FetchSnapshotRequest): FetchSnapshotResponse {
  const { leaderId, epoch } = core.leaderAndEpoch();
  return { errorCode, leaderId, leaderEpoch: epoch, snapshotId: request.snapshotId, size: -1, position: -1, bytes: new Uint8Array(0) };
}

/** Answers a chunk of the leader's latest snapshot (SNAPSHOT_NOT_FOUND for any other id). */
export function handleFetchSnapshotRequest(core: RaftCore, request: Inbound<FetchSnapshotRequest>): FetchSnapshotResponse {
  const body = request.body;
  const errorCode = checkLeaderEpoch(core, body.clusterId, body.currentLeaderEpoch);
  if (errorCode !== ErrorCode.NONE) return snapshotError(core, errorCode, body);
  core.leaderState!.recordContact(body.replicaId, core.nowMs());
  const snapshot = core.log.latestSnapshot();
  if (snapshot === undefined || snapshot.id.endOffset !== body.snapshotId.endOffset || snapshot.id.epoch !== body.snapshotId.epoch) {
    return snapshotError(core, ErrorCode.SNAPSHOT_NOT_FOUND, body);
  }
  if (body.position < 0 || body.position > snapshot.bytes.length) return snapshotError(core, ErrorCode.INVALID_REQUEST, body);
  const length = Math.min(body.maxBytes, core.config.fetchMaxBytes);
  const bytes = snapshot.bytes.subarray(body.position, body.position + length);
  return { errorCode: ErrorCode.NONE, leaderId: core.nodeId, leaderEpoch: core.quorum.epoch, snapshotId: snapshot.id, size: snapshot.bytes.length, position: body.position, bytes };
}

/** Adds a chunk to the snapshot being fetched; installs it when complete. */
export function handleFetchSnapshotResponse(core: RaftCore, source: number, body: FetchSnapshotResponse): void {
  if (core.observeLeader(body.leaderEpoch, body.leaderId)) return;
  const state = core.quorum.state;
  const pending = core.pendingSnapshot;
  if (body.errorCode === ErrorCode.SNAPSHOT_NOT_FOUND) {
    core.pendingSnapshot = undefined;
    return;
  }
  if (body.errorCode !== ErrorCode.NONE || state.kind !== 'follower' || state.leaderId !== source || pending === undefined) {
    core.backoff(source);
    return;
  }
  if (body.snapshotId.endOffset !== pending.id.endOffset || body.snapshotId.epoch !== pending.id.epoch || body.position !== pending.position) return;
  state.fetchDeadlineMs = core.nowMs() + core.config.fetchTimeoutMs;
  core.touchLeaderContact(pending.id.endOffset);
  pending.chunks.push(body.bytes.slice());
  pending.position += body.bytes.length;
  if (pending.position < body.size) return;
  const bytes = new Uint8Array(pending.position);
  let offset = 0;
  for (const chunk of pending.chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  core.pendingSnapshot = undefined;
  if (pending.id.endOffset < core.highWatermark) throw new Error(`Raft: snapshot at ${pending.id.endOffset} below the high watermark ${core.highWatermark}`);
  core.log.installSnapshot({ id: pending.id, bytes });
  core.advanceHighWatermark(pending.id.endOffset);
}

/** The DescribeQuorum answer (the leader's view; NOT_LEADER_OR_FOLLOWER elsewhere). */
export function describeQuorum(core: RaftCore): DescribeQuorumResponse {
  const { leaderId, epoch } = core.leaderAndEpoch();
  const leader = core.leaderState;
  if (leader === undefined) return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, leaderId, leaderEpoch: epoch, highWatermark: -1, currentVoters: [], observers: [] };
  return { errorCode: ErrorCode.NONE, leaderId, leaderEpoch: epoch, highWatermark: core.highWatermark, currentVoters: leader.describeVoters(), observers: leader.describeObservers(core.time.nowMs()) };
}

/**
 * The leader side of poll: flush after the linger, check-quorum, BeginQuorumEpoch to voters that
 * have not acknowledged, held Fetches whose wait is over. Returns the next deadline (ms).
 */
export function pollLeader(core: RaftCore): number {
  const leader = core.leaderState;
  if (leader === undefined) return Number.POSITIVE_INFINITY;
  const now = core.nowMs();
  if (core.lingerDeadlineMs !== undefined && now >= core.lingerDeadlineMs) {
    core.log.flush();
    core.leaderFlushed();
    completeHeldFetches(core);
  }
  const checkQuorumWindowMs = core.config.fetchTimeoutMs * 1.5;
  if (core.config.voters.length > 1 && !leader.hasMajorityFetchedWithin(now, checkQuorumWindowMs)) {
    core.becomeResigned();
    return now;
  }
  for (const voter of leader.unacknowledgedVoters()) {
    if (core.canSend(voter)) core.sendRequest(voter, 'BeginQuorumEpoch', { clusterId: core.config.clusterId, leaderId: core.nodeId, leaderEpoch: leader.epoch });
  }
  completeHeldFetches(core, true);
  let next = now + leader.msUntilCheckQuorumExpires(now, checkQuorumWindowMs);
  if (core.lingerDeadlineMs !== undefined) next = Math.min(next, core.lingerDeadlineMs);
  for (const held of core.heldFetches) next = Math.min(next, held.deadlineMs);
  return next;
}

/**
 * The follower side of poll: after the fetch timeout a voter looks for a new leader (pre-vote),
 * an observer asks another voter; else it flushes and sends the next Fetch or FetchSnapshot.
 * Returns the next deadline (ms).
 */
export function pollFollower(core: RaftCore): number {
  const state = core.quorum.state;
  const now = core.nowMs();
  if (state.kind === 'unattached' && !core.quorum.isVoter) return pollObserverDiscovery(core);
  if (state.kind !== 'follower') return Number.POSITIVE_INFINITY;
  if (now >= state.fetchDeadlineMs) {
    if (core.quorum.isVoter) {
      core.becomeProspective();
      return now;
    }
    state.fetchDeadlineMs = now + core.config.fetchTimeoutMs;
    core.fetchTarget = core.config.voters[core.random.int(0, core.config.voters.length - 1)]!;
    core.inflight.clear();
  }
  const target = core.fetchTarget;
  if (core.canSend(target)) sendFetch(core, target, state.epoch);
  return state.fetchDeadlineMs;
}

function pollObserverDiscovery(core: RaftCore): number {
  const voters = core.config.voters;
  const target = voters[core.random.int(0, voters.length - 1)]!;
  if (core.inflight.size === 0 && core.canSend(target)) sendFetch(core, target, core.quorum.epoch);
  return core.nowMs() + core.config.requestTimeoutMs;
}

function sendFetch(core: RaftCore, target: number, epoch: number): void {
  const log = core.log;
  const pending = core.pendingSnapshot;
  if (pending !== undefined) {
    core.sendRequest(target, 'FetchSnapshot', {
      clusterId: core.config.clusterId,
      replicaId: core.nodeId,
      currentLeaderEpoch: epoch,
      snapshotId: pending.id,
      position: pending.position,
      maxBytes: core.config.fetchMaxBytes,
    });
    return;
  }
  // A voter acknowledges only durable data: flush before the fetch offset says "I have it".
  if (core.quorum.isVoter) log.flush();
  const fetchOffset = log.endOffset();
  core.sendRequest(
    target,
    'Fetch',
    { clusterId: core.config.clusterId, replicaId: core.nodeId, replicaEpoch: epoch, fetchOffset, lastFetchedEpoch: log.lastFetchedEpoch(), maxBytes: core.config.fetchMaxBytes },
    { fetchOffset },
  );
}
