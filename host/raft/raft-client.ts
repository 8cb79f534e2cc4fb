/**
 * RaftClient: one node of a KRaft-style Raft quorum (KIP-595, KIP-996 pre-vote), as a sans-I/O
 * state machine. The states and their transitions are drawn in `quorum-state.ts`; elections are in
 * `election.ts`, replication and snapshots in `replication.ts`.
 *
 * The driver (the CONTROLLER listener in a broker, the simulator in tests) owns all I/O:
 * - it hands every inbound message to {@link RaftClient.handle};
 * - it calls {@link RaftClient.poll} when the time it returned has come (and after every
 *   `handle`), and sends what {@link RaftClient.takeOutbound} returns;
 * - a message may be lost, delayed, duplicated or reordered: requests are idempotent, responses
 *   are matched to the one request in flight per destination by correlation id, and a request
 *   without an answer for `controller.quorum.request.timeout.ms` is given up.
 *
 * The state machine above it (the controller) proposes records with
 * {@link RaftClient.scheduleAppend} on the leader and learns what is committed through its
 * {@link RaftListener}: batches in offset order, once a majority has them durably.
 */
import type { RandomSource, Time } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { handleBeginQuorumEpochRequest, handleEndQuorumEpochRequest, handleQuorumEpochResponse, handleVoteRequest, handleVoteResponse, pollElection } from './election.js';
import type { DescribeQuorumResponse, RaftEnvelope } from './messages.js';
import { LeaderEpochError, NotLeaderError } from './raft-errors.js';
import type { RaftConfig } from './raft-config.js';
import { RaftCore } from './raft-core.js';
import { type RaftLog, type SnapshotId } from './raft-log.js';
import { QuorumState, initialEpochState } from './quorum-state.js';
import type { QuorumStateStore } from './quorum-state-store.js';
import {
  describeQuorum,
  handleFetchRequest,
  handleFetchResponse,
  handleFetchSnapshotRequest,
  handleFetchSnapshotResponse,
  pollFollower,
  pollLeader,
} from './replication.js';
import { type SnapshotReader, decodeSnapshotRecords, encodeSnapshotRecords } from './snapshot.js';

/** Committed records, in offset order, as a listener gets them. */
export interface CommittedBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** The epoch of the leader that wrote them. */
  readonly epoch: number;
  readonly records: readonly Uint8Array[];
}

/** The leader a node knows (-1 when none) in its current epoch. */
export interface LeaderAndEpoch {
  readonly leaderId: number;
  readonly epoch: number;
}

/** What the state machine above Raft implements (Kafka's RaftClient.Listener). */
export interface RaftListener {
  /** Committed records, in order, each offset once per life of the client. */
  handleCommit(batch: CommittedBatch): void;
  /** Replace the state with this snapshot's; commits continue at its end offset. */
  handleLoadSnapshot(snapshot: SnapshotReader): void;
  /**
   * The leader changed. On the leader itself it comes once the listener has applied every record
   * before the epoch start (so it acts on a complete state).
   */
  handleLeaderChange(leader: LeaderAndEpoch): void;
}

/** The parts a {@link RaftClient} is built from. */
export interface RaftClientOptions {
  config: RaftConfig;
  log: RaftLog;
  store: QuorumStateStore;
  time: Time;
  random: RandomSource;
}

interface ListenerContext {
  readonly listener: RaftListener;
  nextOffset: number;
  lastLeader: LeaderAndEpoch | undefined;
}

/** The most record bytes handed to a listener in one read of the log. */
const COMMIT_READ_MAX_BYTES = 1024 * 1024;

/** One Raft node; see the file header for how it is driven. */
export class RaftClient {
  private readonly options: RaftClientOptions;
  private core: RaftCore | undefined;
  private readonly listeners: ListenerContext[] = [];

  constructor(options: RaftClientOptions) {
    this.options = options;
  }

  /** Adds a listener; it gets the snapshot and the committed records from the start. */
  register(listener: RaftListener): void {
    this.listeners.push({ listener, nextOffset: 0, lastLeader: undefined });
  }

  /** Reads the persisted quorum state and enters the state it implies (see `initialEpochState`). */
  start(): void {
    if (this.core !== undefined) throw new Error('RaftClient already started');
    const { config, log, store, time, random } = this.options;
    const timeoutMs = config.electionTimeoutMs + random.int(0, config.electionTimeoutMs - 1);
    const initial = initialEpochState(config, store.read(), log.lastFetchedEpoch(), time.monotonicMs(), timeoutMs);
    const quorum = new QuorumState(config, store, initial);
    if (initial.kind === 'unattached' && initial.epoch !== (store.read()?.epoch ?? 0)) store.write({ epoch: initial.epoch, leaderId: -1, votedId: -1 });
    this.core = new RaftCore(config, log, quorum, time, random);
    // A lone voter need not wait for an election timeout.
    if (config.voters.length === 1 && config.voters[0] === config.nodeId && initial.kind !== 'leader') this.core.becomeProspective();
    this.deliver();
  }

  /** Handles an inbound request or response addressed to this node; answers go to the outbound queue. */
  handle(envelope: RaftEnvelope): void {
    const core = this.started();
    if (envelope.destination !== core.nodeId) return;
    if (envelope.kind === 'request') this.handleRequest(core, envelope);
    else this.handleResponse(core, envelope);
    this.deliver();
  }

  /**
   * Runs the work that is due: timeouts, flushes, requests to send. Returns the monotonic time
   * (ms, on the injected Time) at which it wants to be polled next; poll again after every
   * {@link handle} too.
   */
  poll(): number {
    const core = this.started();
    const now = core.nowMs();
    for (const [destination, request] of core.inflight) {
      if (request.deadlineMs <= now) {
        core.inflight.delete(destination);
        if (request.api === 'Fetch' || request.api === 'FetchSnapshot') core.backoff(destination);
      }
    }
    let next = pollElection(core);
    next = Math.min(next, pollLeader(core), pollFollower(core));
    for (const request of core.inflight.values()) next = Math.min(next, request.deadlineMs);
    for (const retryMs of core.retryAtMs.values()) if (retryMs > now) next = Math.min(next, retryMs);
    this.deliver();
    return Number.isFinite(next) ? Math.max(next, now) : now + core.config.electionTimeoutMs;
  }

  /** The messages to send, oldest first; the queue is emptied. */
  takeOutbound(): RaftEnvelope[] {
    const core = this.started();
    return core.outbound.splice(0, core.outbound.length);
  }

  /**
   * Appends records as the leader of `epoch`; they are flushed after `controller.quorum.append.linger.ms`
   * and committed once a majority has them. Returns the offset of the last record.
   * @throws NotLeaderError (NOT_LEADER_OR_FOLLOWER) when this node does not lead; LeaderEpochError
   *   (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH) when `epoch` is not its epoch
   */
  scheduleAppend(epoch: number, values: readonly Uint8Array[]): number {
    const core = this.started();
    if (core.leaderState === undefined) {
      const known = core.leaderAndEpoch();
      throw new NotLeaderError(known.leaderId, known.epoch, `node ${core.nodeId} is not the leader (leader ${known.leaderId}, epoch ${known.epoch})`);
    }
    if (epoch !== core.quorum.epoch) throw new LeaderEpochError(epoch, core.quorum.epoch);
    if (values.length === 0) return core.log.endOffset() - 1;
    const lastOffset = core.log.append(epoch, values, false);
    if (core.lingerDeadlineMs === undefined) core.lingerDeadlineMs = core.nowMs() + core.config.appendLingerMs;
    return lastOffset;
  }

  /** The leader this node knows and its epoch. */
  leaderAndEpoch(): LeaderAndEpoch {
    return this.started().leaderAndEpoch();
  }

  /** The node's high watermark: records below it are committed. */
  highWatermark(): number {
    return this.started().highWatermark;
  }

  /**
   * Whether this node is in touch with a live quorum, and since when: a leader while a majority of
   * voters (itself included) fetched from it within `controller.quorum.fetch.timeout.ms`; a
   * follower or observer while its last successful Fetch answer from the leader is younger than
   * that. Null otherwise (candidate, resigned, a follower past its fetch timeout, ...): the node's
   * view of the metadata may be stale, as on a node cut off from the quorum. `catchUpOffset` is
   * the offset the state machine must have replayed (exclusive) before its view is current again:
   * the leader's high watermark when the contact began (a new leader: its epoch start offset).
   */
  quorumContact(): { sinceMs: number; catchUpOffset: number } | null {
    const core = this.started();
    const state = core.quorum.state;
    const now = core.nowMs();
    const window = core.config.fetchTimeoutMs;
    const inContact = state.kind === 'leader'
      ? core.config.voters.length <= 1 || core.leaderState?.hasMajorityFetchedWithin(now, window) === true
      : state.kind === 'follower' && !state.leaderResigned && now - core.leaderContactMs < window;
    return inContact ? { sinceMs: core.contactStartMs, catchUpOffset: core.contactCatchUpOffset } : null;
  }

  /** The quorum state's name (unattached, voted, prospective, candidate, leader, follower, resigned). */
  stateName(): string {
    return this.started().quorum.state.kind;
  }

  /** The underlying log (read-only use: tools and the simulator's checks). */
  get log(): RaftLog {
    return this.options.log;
  }

  /**
   * The leader's view of the quorum, as DescribeQuorum answers it: voters with their log end
   * offsets and last fetch times.
   * @throws NotLeaderError when this node does not lead
   */
  describeQuorum(): DescribeQuorumResponse {
    const response = describeQuorum(this.started());
    if (response.errorCode !== ErrorCode.NONE) throw new NotLeaderError(response.leaderId, response.leaderEpoch, 'DescribeQuorum on a node that does not lead');
    return response;
  }

  /**
   * Gives up leadership of `epoch` gracefully: EndQuorumEpoch names the most caught-up voters as
   * successors. A no-op when the node does not lead `epoch`.
   */
  resign(epoch: number): void {
    const core = this.started();
    if (core.leaderState === undefined || core.quorum.epoch !== epoch) return;
    core.becomeResigned();
  }

  /**
   * Stores a snapshot of the state machine at a committed offset (`endOffset <= highWatermark`)
   * and deletes the log before it. Returns its id; an older or equal offset than the latest
   * snapshot's is a no-op returning the latest id.
   * @throws Error when `endOffset` is above the high watermark or below the log start
   */
  createSnapshot(endOffset: number, records: readonly Uint8Array[]): SnapshotId {
    const core = this.started();
    const log = core.log;
    if (endOffset > core.highWatermark) throw new Error(`snapshot at ${endOffset} above the high watermark ${core.highWatermark}`);
    const latest = log.latestSnapshot();
    if (latest !== undefined && endOffset <= latest.id.endOffset) return latest.id;
    if (endOffset <= log.startOffset()) throw new Error(`snapshot at ${endOffset} at or below the log start ${log.startOffset()}`);
    const id = { endOffset, epoch: log.epochAt(endOffset - 1) };
    log.storeSnapshot({ id, bytes: encodeSnapshotRecords(records) });
    return id;
  }

  private started(): RaftCore {
    if (this.core === undefined) throw new Error('RaftClient not started');
    return this.core;
  }

  private handleRequest(core: RaftCore, envelope: RaftEnvelope & { kind: 'request' }): void {
    switch (envelope.api) {
      case 'Vote':
        core.respond(envelope, 'Vote', handleVoteRequest(core, envelope));
        break;
      case 'BeginQuorumEpoch':
        core.respond(envelope, 'BeginQuorumEpoch', handleBeginQuorumEpochRequest(core, envelope));
        break;
      case 'EndQuorumEpoch':
        core.respond(envelope, 'EndQuorumEpoch', handleEndQuorumEpochRequest(core, envelope));
        break;
      case 'Fetch': {
        const response = handleFetchRequest(core, envelope, true);
        if (response !== undefined) core.respond(envelope, 'Fetch', response);
        break;
      }
      case 'FetchSnapshot':
        core.respond(envelope, 'FetchSnapshot', handleFetchSnapshotRequest(core, envelope));
        break;
      case 'DescribeQuorum':
        core.respond(envelope, 'DescribeQuorum', describeQuorum(core));
        break;
    }
  }

  private handleResponse(core: RaftCore, envelope: RaftEnvelope & { kind: 'response' }): void {
    const inflight = core.inflight.get(envelope.source);
    if (inflight === undefined || inflight.correlationId !== envelope.correlationId || inflight.api !== envelope.api) return;
    core.inflight.delete(envelope.source);
    switch (envelope.api) {
      case 'Vote':
        handleVoteResponse(core, envelope.source, inflight.preVote === true, envelope.body);
        break;
      case 'BeginQuorumEpoch':
      case 'EndQuorumEpoch':
        handleQuorumEpochResponse(core, envelope.source, envelope.api, envelope.body);
        break;
      case 'Fetch':
        handleFetchResponse(core, envelope.source, inflight.fetchOffset ?? -1, envelope.body);
        break;
      case 'FetchSnapshot':
        handleFetchSnapshotResponse(core, envelope.source, envelope.body);
        break;
      case 'DescribeQuorum':
        break;
    }
  }

  /** Hands listeners the snapshot, the newly committed records and leader changes. */
  private deliver(): void {
    const core = this.core;
    if (core === undefined) return;
    for (const context of this.listeners) {
      this.deliverCommits(core, context);
      this.deliverLeaderChange(core, context);
    }
  }

  private deliverCommits(core: RaftCore, context: ListenerContext): void {
    const log = core.log;
    const snapshot = log.latestSnapshot();
    if (snapshot !== undefined && context.nextOffset < log.startOffset()) {
      context.listener.handleLoadSnapshot({ snapshotId: snapshot.id, records: decodeSnapshotRecords(snapshot.bytes) });
      context.nextOffset = snapshot.id.endOffset;
    }
    while (context.nextOffset < core.highWatermark) {
      const batches = log.read(context.nextOffset, COMMIT_READ_MAX_BYTES);
      for (const batch of batches) {
        const lastOffset = Math.min(batch.baseOffset + batch.records.length, core.highWatermark) - 1;
        if (!batch.control) {
          const records = batch.records.slice(0, lastOffset - batch.baseOffset + 1);
          context.listener.handleCommit({ baseOffset: batch.baseOffset, lastOffset, epoch: batch.epoch, records });
        }
        context.nextOffset = lastOffset + 1;
        if (context.nextOffset >= core.highWatermark) break;
      }
    }
  }

  private deliverLeaderChange(core: RaftCore, context: ListenerContext): void {
    const current = core.leaderAndEpoch();
    const last = context.lastLeader;
    if (last !== undefined && last.leaderId === current.leaderId && last.epoch === current.epoch) return;
    const leader = core.leaderState;
    if (leader !== undefined && context.nextOffset <= leader.epochStartOffset) return;
    context.lastLeader = current;
    context.listener.handleLeaderChange(current);
  }
}

