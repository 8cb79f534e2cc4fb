/**
 * The messages the Raft core exchanges, as plain values inside an {@link RaftEnvelope}. Each body
 * is the single-partition (`__cluster_metadata-0`) content of Kafka's RPC of the same name, with
 * Kafka's field names, so the network layer maps it to the generated codecs
 * (`host/protocol/generated/vote.ts`, `begin-quorum-epoch.ts`, `end-quorum-epoch.ts`, `fetch.ts`,
 * `fetch-snapshot.ts`, `describe-quorum.ts`) field by field:
 *
 * - Vote (52): `preVote` is KIP-996's field (Vote v2); on a v0-1 wire it is false.
 * - Fetch (1): `replicaId` (ReplicaState.ReplicaId), `replicaEpoch` (CurrentLeaderEpoch),
 *   `fetchOffset`, `lastFetchedEpoch`; the response's `divergingEpoch` and `snapshotId` are
 *   Kafka's DivergingEpoch and SnapshotId, `batches` its Records.
 * - FetchSnapshot (59): `position` and `bytes` are Kafka's Position and UnalignedRecords.
 *
 * Errors are Kafka error codes (`ErrorCode`), never exceptions. Every response carries the
 * sender's view of the leader (`leaderId`, -1 when unknown, and `leaderEpoch`) so a node behind
 * learns the current epoch from any answer.
 */
import type { LogBatch, OffsetAndEpoch, SnapshotId } from './raft-log.js';

/** The Raft RPCs. */
export type RaftApi = 'Vote' | 'BeginQuorumEpoch' | 'EndQuorumEpoch' | 'Fetch' | 'FetchSnapshot' | 'DescribeQuorum';

export interface VoteRequest {
  clusterId: string;
  /** The epoch the candidate stands in (for a pre-vote: the epoch it would bump to). */
  candidateEpoch: number;
  candidateId: number;
  lastOffsetEpoch: number;
  /** The candidate's log end offset. */
  lastOffset: number;
  /** KIP-996: asks "would you vote for me?" without anyone changing epoch or vote. */
  preVote: boolean;
}

export interface VoteResponse {
  errorCode: number;
  leaderId: number;
  leaderEpoch: number;
  voteGranted: boolean;
}

export interface BeginQuorumEpochRequest {
  clusterId: string;
  leaderId: number;
  leaderEpoch: number;
}

export interface EndQuorumEpochRequest {
  clusterId: string;
  leaderId: number;
  leaderEpoch: number;
  /** Voters in the order the resigning leader prefers them as its successor (most caught up first). */
  preferredSuccessors: number[];
}

/** The response of BeginQuorumEpoch and EndQuorumEpoch. */
export interface QuorumEpochResponse {
  errorCode: number;
  leaderId: number;
  leaderEpoch: number;
}

export interface FetchRequest {
  clusterId: string;
  replicaId: number;
  /** The epoch of the leader the follower fetches from (Kafka's CurrentLeaderEpoch). */
  replicaEpoch: number;
  fetchOffset: number;
  lastFetchedEpoch: number;
  maxBytes: number;
}

export interface FetchResponse {
  errorCode: number;
  leaderId: number;
  leaderEpoch: number;
  /** The leader's high watermark (-1 when unknown). */
  highWatermark: number;
  logStartOffset: number;
  /** Records from the fetch offset; empty with a diverging epoch or a snapshot id. */
  batches: LogBatch[];
  /** Set when the follower's log diverges: truncate to at most this (epoch, end offset). */
  divergingEpoch?: OffsetAndEpoch;
  /** Set when the fetch offset is below the leader's log start: fetch this snapshot first. */
  snapshotId?: SnapshotId;
}

export interface FetchSnapshotRequest {
  clusterId: string;
  replicaId: number;
  currentLeaderEpoch: number;
  snapshotId: SnapshotId;
  /** Byte position in the snapshot to read from. */
  position: number;
  maxBytes: number;
}

export interface FetchSnapshotResponse {
  errorCode: number;
  leaderId: number;
  leaderEpoch: number;
  snapshotId: SnapshotId;
  /** The snapshot's total size, bytes. */
  size: number;
  position: number;
  bytes: Uint8Array;
}

export type DescribeQuorumRequest = Record<string, never>;

/** One voter's replication state, as DescribeQuorum reports it (times are wall-clock ms, -1 unknown). */
export interface ReplicaState {
  replicaId: number;
  logEndOffset: number;
  lastFetchTimestamp: number;
  lastCaughtUpTimestamp: number;
}

export interface DescribeQuorumResponse {
  errorCode: number;
  leaderId: number;
  leaderEpoch: number;
  highWatermark: number;
  currentVoters: ReplicaState[];
  observers: ReplicaState[];
}

/** Request bodies by API. */
export interface RaftRequests {
  Vote: VoteRequest;
  BeginQuorumEpoch: BeginQuorumEpochRequest;
  EndQuorumEpoch: EndQuorumEpochRequest;
  Fetch: FetchRequest;
  FetchSnapshot: FetchSnapshotRequest;
  DescribeQuorum: DescribeQuorumRequest;
}

/** Response bodies by API. */
export interface RaftResponses {
  Vote: VoteResponse;
  BeginQuorumEpoch: QuorumEpochResponse;
  EndQuorumEpoch: QuorumEpochResponse;
  Fetch: FetchResponse;
  FetchSnapshot: FetchSnapshotResponse;
  DescribeQuorum: DescribeQuorumResponse;
}

/**
 * One message between two nodes. A response carries the `correlationId` of its request and goes
 * back to the request's `source`. Bodies are never mutated after they are handed over.
 */
export type RaftEnvelope =
  | { [A in RaftApi]: { source: number; destination: number; correlationId: number; kind: 'request'; api: A; body: RaftRequests[A] } }[RaftApi]
  | { [A in RaftApi]: { source: number; destination: number; correlationId: number; kind: 'response'; api: A; body: RaftResponses[A] } }[RaftApi];
