/**
 * The Raft core's messages (messages.ts) on Kafka's wire: each RaftApi maps field by field onto the
 * generated codecs of Kafka's RPC of the same name, for the single partition
 * `__cluster_metadata-0`. Used by the CONTROLLER listener (decode requests, encode responses) and
 * by the outgoing channels (encode requests, decode responses).
 *
 * Versions sent: Vote v2 (KIP-996 PreVote), BeginQuorumEpoch v0, EndQuorumEpoch v0, Fetch v12
 * (the first with ClusterId, LastFetchedEpoch, DivergingEpoch, SnapshotId and CurrentLeader;
 * topic by name), FetchSnapshot v0, DescribeQuorum v1. Any version the codecs accept is decoded.
 *
 * Errors: a response's top-level error code wins over the partition's (Kafka puts cluster-wide
 * errors such as INCONSISTENT_CLUSTER_ID (104) there); a response without our partition decodes
 * as UNKNOWN_TOPIC_OR_PARTITION (3). Kafka's "absent" defaults (-1 epochs and offsets) decode as
 * absent optional fields.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { decodeBeginQuorumEpochRequest, decodeBeginQuorumEpochResponse, encodeBeginQuorumEpochRequest, encodeBeginQuorumEpochResponse } from '../protocol/generated/begin-quorum-epoch.js';
import { decodeDescribeQuorumRequest, decodeDescribeQuorumResponse, encodeDescribeQuorumRequest, encodeDescribeQuorumResponse } from '../protocol/generated/describe-quorum.js';
import { decodeEndQuorumEpochRequest, decodeEndQuorumEpochResponse, encodeEndQuorumEpochRequest, encodeEndQuorumEpochResponse } from '../protocol/generated/end-quorum-epoch.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { decodeFetchRequest, decodeFetchResponse, encodeFetchRequest, encodeFetchResponse } from '../protocol/generated/fetch.js';
import { decodeFetchSnapshotRequest, decodeFetchSnapshotResponse, encodeFetchSnapshotRequest, encodeFetchSnapshotResponse } from '../protocol/generated/fetch-snapshot.js';
import { decodeVoteRequest, decodeVoteResponse, encodeVoteRequest, encodeVoteResponse } from '../protocol/generated/vote.js';
import type { Reader } from '../protocol/reader.js';
import type { Writer } from '../protocol/writer.js';
import { decodeLogBatches, encodeLogBatches } from './log-batch-codec.js';
import type { RaftApi, RaftRequests, RaftResponses } from './messages.js';

/** The metadata topic and its one partition. */
export const METADATA_TOPIC = '__cluster_metadata';
export const METADATA_PARTITION = 0;

/** One Raft API on the wire. */
export interface RaftWireApi<A extends RaftApi> {
  readonly api: A;
  readonly apiKey: number;
  /** The version this node sends. */
  readonly version: number;
  encodeRequest(w: Writer, version: number, body: RaftRequests[A]): void;
  /** Decodes a request; problems are recorded in `r.error` (answer INVALID_REQUEST then). */
  decodeRequest(r: Reader, version: number): RaftRequests[A];
  encodeResponse(w: Writer, version: number, body: RaftResponses[A]): void;
  decodeResponse(r: Reader, version: number): RaftResponses[A];
}

export type RaftWire = { readonly [A in RaftApi]: RaftWireApi<A> };

/** Top-level error codes (not about the partition). */
const TOP_LEVEL_ERRORS = new Set<number>([ErrorCode.INCONSISTENT_CLUSTER_ID, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, ErrorCode.INVALID_REQUEST]);

function split(errorCode: number): { top: number; partition: number } {
  return TOP_LEVEL_ERRORS.has(errorCode) ? { top: errorCode, partition: ErrorCode.NONE } : { top: ErrorCode.NONE, partition: errorCode };
}

/** The one partition of `__cluster_metadata` in a decoded topics array, or undefined. */
function ours<P>(topics: readonly { partitions: readonly P[] }[], name: (t: never) => string, index: (p: P) => number): P | undefined {
  for (const topic of topics) {
    if (name(topic as never) !== METADATA_TOPIC) continue;
    for (const partition of topic.partitions) if (index(partition) === METADATA_PARTITION) return partition;
  }
  return undefined;
}

const NO_PARTITION = { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, leaderId: -1, leaderEpoch: -1 };

/** Vote of `__cluster_metadata-0`. */
const VOTE_WIRE: RaftWireApi<'Vote'> = {
    api: 'Vote', apiKey: ApiKey.Vote, version: 2,
    encodeRequest(w, version, b) {
      encodeVoteRequest(w, version, {
        clusterId: b.clusterId,
        topics: [{ topicName: METADATA_TOPIC, partitions: [{
          partitionIndex: METADATA_PARTITION, candidateEpoch: b.candidateEpoch, candidateId: b.candidateId,
          lastOffsetEpoch: b.lastOffsetEpoch, lastOffset: b.lastOffset, ...(version >= 2 ? { preVote: b.preVote } : {}),
        }] }],
      });
    },
    decodeRequest(r, version) {
      const m = decodeVoteRequest(r, version);
      const p = ours(m.topics, (t: { topicName: string }) => t.topicName, (x) => x.partitionIndex);
      if (p === undefined) r.fail('Vote request without __cluster_metadata-0');
      return {
        clusterId: m.clusterId ?? '', candidateEpoch: p?.candidateEpoch ?? -1, candidateId: p?.candidateId ?? -1,
        lastOffsetEpoch: p?.lastOffsetEpoch ?? -1, lastOffset: p?.lastOffset ?? -1, preVote: p?.preVote ?? false,
      };
    },
    encodeResponse(w, version, b) {
      const { top, partition } = split(b.errorCode);
      encodeVoteResponse(w, version, {
        errorCode: top,
        topics: [{ topicName: METADATA_TOPIC, partitions: [{
          partitionIndex: METADATA_PARTITION, errorCode: partition, leaderId: b.leaderId, leaderEpoch: b.leaderEpoch, voteGranted: b.voteGranted,
        }] }],
      });
    },
    decodeResponse(r, version) {
      const m = decodeVoteResponse(r, version);
      const p = ours(m.topics, (t: { topicName: string }) => t.topicName, (x) => x.partitionIndex);
      if (p === undefined) return { ...NO_PARTITION, errorCode: m.errorCode || NO_PARTITION.errorCode, voteGranted: false };
      return { errorCode: m.errorCode || p.errorCode, leaderId: p.leaderId, leaderEpoch: p.leaderEpoch, voteGranted: p.voteGranted };
    },
  };

/** BeginQuorumEpoch of `__cluster_metadata-0`. */
const BEGIN_QUORUM_EPOCH_WIRE: RaftWireApi<'BeginQuorumEpoch'> = {
    api: 'BeginQuorumEpoch', apiKey: ApiKey.BeginQuorumEpoch, version: 0,
    encodeRequest(w, version, b) {
      encodeBeginQuorumEpochRequest(w, version, {
        clusterId: b.clusterId,
        topics: [{ topicName: METADATA_TOPIC, partitions: [{ partitionIndex: METADATA_PARTITION, leaderId: b.leaderId, leaderEpoch: b.leaderEpoch }] }],
      });
    },
    decodeRequest(r, version) {
      const m = decodeBeginQuorumEpochRequest(r, version);
      const p = ours(m.topics, (t: { topicName: string }) => t.topicName, (x) => x.partitionIndex);
      if (p === undefined) r.fail('BeginQuorumEpoch request without __cluster_metadata-0');
      return { clusterId: m.clusterId ?? '', leaderId: p?.leaderId ?? -1, leaderEpoch: p?.leaderEpoch ?? -1 };
    },
    encodeResponse(w, version, b) {
      const { top, partition } = split(b.errorCode);
      encodeBeginQuorumEpochResponse(w, version, {
        errorCode: top,
        topics: [{ topicName: METADATA_TOPIC, partitions: [{ partitionIndex: METADATA_PARTITION, errorCode: partition, leaderId: b.leaderId, leaderEpoch: b.leaderEpoch }] }],
      });
    },
    decodeResponse(r, version) {
      const m = decodeBeginQuorumEpochResponse(r, version);
      const p = ours(m.topics, (t: { topicName: string }) => t.topicName, (x) => x.partitionIndex);
      if (p === undefined) return { ...NO_PARTITION, errorCode: m.errorCode || NO_PARTITION.errorCode };
      return { errorCode: m.errorCode || p.errorCode, leaderId: p.leaderId, leaderEpoch: p.leaderEpoch };
    },
  };

/** EndQuorumEpoch of `__cluster_metadata-0`. */
const END_QUORUM_EPOCH_WIRE: RaftWireApi<'EndQuorumEpoch'> = {
    api: 'EndQuorumEpoch', apiKey: ApiKey.EndQuorumEpoch, version: 0,
    encodeRequest(w, version, b) {
      encodeEndQuorumEpochRequest(w, version, {
        clusterId: b.clusterId,
        topics: [{ topicName: METADATA_TOPIC, partitions: [{
          partitionIndex: METADATA_PARTITION, leaderId: b.leaderId, leaderEpoch: b.leaderEpoch, preferredSuccessors: b.preferredSuccessors,
        }] }],
      });
    },
    decodeRequest(r, version) {
      const m = decodeEndQuorumEpochRequest(r, version);
      const p = ours(m.topics, (t: { topicName: string }) => t.topicName, (x) => x.partitionIndex);
      if (p === undefined) r.fail('EndQuorumEpoch request without __cluster_metadata-0');
      const successors = p === undefined ? [] : version >= 1 ? p.preferredCandidates.map((c) => c.candidateId) : p.preferredSuccessors;
      return { clusterId: m.clusterId ?? '', leaderId: p?.leaderId ?? -1, leaderEpoch: p?.leaderEpoch ?? -1, preferredSuccessors: successors };
    },
    encodeResponse(w, version, b) {
      const { top, partition } = split(b.errorCode);
      encodeEndQuorumEpochResponse(w, version, {
        errorCode: top,
        topics: [{ topicName: METADATA_TOPIC, partitions: [{ partitionIndex: METADATA_PARTITION, errorCode: partition, leaderId: b.leaderId, leaderEpoch: b.leaderEpoch }] }],
      });
    },
    decodeResponse(r, version) {
      const m = decodeEndQuorumEpochResponse(r, version);
      const p = ours(m.topics, (t: { topicName: string }) => t.topicName, (x) => x.partitionIndex);
      if (p === undefined) return { ...NO_PARTITION, errorCode: m.errorCode || NO_PARTITION.errorCode };
      return { errorCode: m.errorCode || p.errorCode, leaderId: p.leaderId, leaderEpoch: p.leaderEpoch };
    },
  };

/** FetchSnapshot of `__cluster_metadata-0`. */
const FETCH_SNAPSHOT_WIRE: RaftWireApi<'FetchSnapshot'> = {
    api: 'FetchSnapshot', apiKey: ApiKey.FetchSnapshot, version: 0,
    encodeRequest(w, version, b) {
      encodeFetchSnapshotRequest(w, version, {
        clusterId: b.clusterId, replicaId: b.replicaId, maxBytes: b.maxBytes,
        topics: [{ name: METADATA_TOPIC, partitions: [{
          partition: METADATA_PARTITION, currentLeaderEpoch: b.currentLeaderEpoch,
          snapshotId: { endOffset: b.snapshotId.endOffset, epoch: b.snapshotId.epoch }, position: b.position,
        }] }],
      });
    },
    decodeRequest(r, version) {
      const m = decodeFetchSnapshotRequest(r, version);
      const p = ours(m.topics, (t: { name: string }) => t.name, (x) => x.partition);
      if (p === undefined) r.fail('FetchSnapshot request without __cluster_metadata-0');
      return {
        clusterId: m.clusterId ?? '', replicaId: m.replicaId, currentLeaderEpoch: p?.currentLeaderEpoch ?? -1,
        snapshotId: { endOffset: p?.snapshotId.endOffset ?? -1, epoch: p?.snapshotId.epoch ?? -1 }, position: p?.position ?? 0, maxBytes: m.maxBytes,
      };
    },
    encodeResponse(w, version, b) {
      const { top, partition } = split(b.errorCode);
      encodeFetchSnapshotResponse(w, version, {
        throttleTimeMs: 0, errorCode: top,
        topics: [{ name: METADATA_TOPIC, partitions: [{
          index: METADATA_PARTITION, errorCode: partition, snapshotId: { endOffset: b.snapshotId.endOffset, epoch: b.snapshotId.epoch },
          currentLeader: { leaderId: b.leaderId, leaderEpoch: b.leaderEpoch }, size: b.size, position: b.position, unalignedRecords: b.bytes,
        }] }],
      });
    },
    decodeResponse(r, version) {
      const m = decodeFetchSnapshotResponse(r, version);
      const p = ours(m.topics, (t: { name: string }) => t.name, (x) => x.index);
      if (p === undefined) {
        return { ...NO_PARTITION, errorCode: m.errorCode || NO_PARTITION.errorCode, snapshotId: { endOffset: -1, epoch: -1 }, size: 0, position: 0, bytes: new Uint8Array(0) };
      }
      return {
        errorCode: m.errorCode || p.errorCode, leaderId: p.currentLeader.leaderId, leaderEpoch: p.currentLeader.leaderEpoch,
        snapshotId: { endOffset: p.snapshotId.endOffset, epoch: p.snapshotId.epoch }, size: p.size, position: p.position,
        bytes: p.unalignedRecords ?? new Uint8Array(0),
      };
    },
  };

/** DescribeQuorum of `__cluster_metadata-0`. */
const DESCRIBE_QUORUM_WIRE: RaftWireApi<'DescribeQuorum'> = {
    api: 'DescribeQuorum', apiKey: ApiKey.DescribeQuorum, version: 1,
    encodeRequest(w, version) {
      encodeDescribeQuorumRequest(w, version, { topics: [{ topicName: METADATA_TOPIC, partitions: [{ partitionIndex: METADATA_PARTITION }] }] });
    },
    decodeRequest(r, version) {
      const m = decodeDescribeQuorumRequest(r, version);
      if (ours(m.topics, (t: { topicName: string }) => t.topicName, (x) => x.partitionIndex) === undefined) r.fail('DescribeQuorum request without __cluster_metadata-0');
      return {};
    },
    encodeResponse(w, version, b) {
      const { top, partition } = split(b.errorCode);
      const replica = (s: RaftResponses['DescribeQuorum']['currentVoters'][number]) => ({
        replicaId: s.replicaId, logEndOffset: s.logEndOffset, lastFetchTimestamp: s.lastFetchTimestamp, lastCaughtUpTimestamp: s.lastCaughtUpTimestamp,
      });
      encodeDescribeQuorumResponse(w, version, {
        errorCode: top,
        topics: [{ topicName: METADATA_TOPIC, partitions: [{
          partitionIndex: METADATA_PARTITION, errorCode: partition, leaderId: b.leaderId, leaderEpoch: b.leaderEpoch, highWatermark: b.highWatermark,
          currentVoters: b.currentVoters.map(replica), observers: b.observers.map(replica),
        }] }],
      });
    },
    decodeResponse(r, version) {
      const m = decodeDescribeQuorumResponse(r, version);
      const p = ours(m.topics, (t: { topicName: string }) => t.topicName, (x) => x.partitionIndex);
      if (p === undefined) return { ...NO_PARTITION, errorCode: m.errorCode || NO_PARTITION.errorCode, highWatermark: -1, currentVoters: [], observers: [] };
      const replica = (s: { replicaId: number; logEndOffset: number; lastFetchTimestamp: number; lastCaughtUpTimestamp: number }) => ({
        replicaId: s.replicaId, logEndOffset: s.logEndOffset, lastFetchTimestamp: s.lastFetchTimestamp, lastCaughtUpTimestamp: s.lastCaughtUpTimestamp,
      });
      return {
        errorCode: m.errorCode || p.errorCode, leaderId: p.leaderId, leaderEpoch: p.leaderEpoch, highWatermark: p.highWatermark,
        currentVoters: p.currentVoters.map(replica), observers: p.observers.map(replica),
      };
    },
  };

/**
 * The wire table.
 * @param nowMs wall-clock ms stamped on records sent in Fetch responses
 */
export function raftWire(nowMs: () => number): RaftWire {
  return {
    Vote: VOTE_WIRE,
    BeginQuorumEpoch: BEGIN_QUORUM_EPOCH_WIRE,
    EndQuorumEpoch: END_QUORUM_EPOCH_WIRE,
    Fetch: fetchWire(nowMs),
    FetchSnapshot: FETCH_SNAPSHOT_WIRE,
    DescribeQuorum: DESCRIBE_QUORUM_WIRE,
  };
}

/** Fetch of `__cluster_metadata-0` (KRaft's pull replication). */
function fetchWire(nowMs: () => number): RaftWireApi<'Fetch'> {
  return {
    api: 'Fetch', apiKey: ApiKey.Fetch, version: 12,
    encodeRequest(w, version, b) {
      encodeFetchRequest(w, version, {
        clusterId: b.clusterId, replicaId: b.replicaId, maxWaitMs: 0, minBytes: 0, maxBytes: b.maxBytes,
        topics: [{ topic: METADATA_TOPIC, partitions: [{
          partition: METADATA_PARTITION, currentLeaderEpoch: b.replicaEpoch, fetchOffset: b.fetchOffset,
          lastFetchedEpoch: b.lastFetchedEpoch, partitionMaxBytes: b.maxBytes,
        }] }],
      });
    },
    decodeRequest(r, version) {
      const m = decodeFetchRequest(r, version);
      const p = ours(m.topics, (t: { topic: string }) => t.topic, (x) => x.partition);
      if (p === undefined) r.fail('Fetch request without __cluster_metadata-0');
      return {
        clusterId: m.clusterId ?? '', replicaId: version >= 15 ? m.replicaState.replicaId : m.replicaId,
        replicaEpoch: p?.currentLeaderEpoch ?? -1, fetchOffset: p?.fetchOffset ?? 0, lastFetchedEpoch: p?.lastFetchedEpoch ?? -1,
        maxBytes: Math.min(m.maxBytes, p?.partitionMaxBytes ?? m.maxBytes),
      };
    },
    encodeResponse(w, version, b) {
      const { top, partition } = split(b.errorCode);
      encodeFetchResponse(w, version, {
        throttleTimeMs: 0, errorCode: top, sessionId: 0,
        responses: [{ topic: METADATA_TOPIC, partitions: [{
          partitionIndex: METADATA_PARTITION, errorCode: partition, highWatermark: b.highWatermark, logStartOffset: b.logStartOffset,
          ...(b.divergingEpoch === undefined ? {} : { divergingEpoch: { epoch: b.divergingEpoch.epoch, endOffset: b.divergingEpoch.offset } }),
          ...(b.snapshotId === undefined ? {} : { snapshotId: { endOffset: b.snapshotId.endOffset, epoch: b.snapshotId.epoch } }),
          currentLeader: { leaderId: b.leaderId, leaderEpoch: b.leaderEpoch },
          records: encodeLogBatches(b.batches, nowMs()),
        }] }],
      });
    },
    decodeResponse(r, version) {
      const m = decodeFetchResponse(r, version);
      const p = ours(m.responses, (t: { topic: string }) => t.topic, (x) => x.partitionIndex);
      if (p === undefined) {
        return { ...NO_PARTITION, errorCode: m.errorCode || NO_PARTITION.errorCode, highWatermark: -1, logStartOffset: -1, batches: [] };
      }
      let batches;
      try {
        batches = decodeLogBatches(p.records ?? new Uint8Array(0));
      } catch (error) {
        return { ...NO_PARTITION, errorCode: ErrorCode.CORRUPT_MESSAGE, highWatermark: -1, logStartOffset: -1, batches: [] };
      }
      return {
        errorCode: m.errorCode || p.errorCode, leaderId: p.currentLeader.leaderId, leaderEpoch: p.currentLeader.leaderEpoch,
        highWatermark: p.highWatermark, logStartOffset: p.logStartOffset, batches,
        ...(p.divergingEpoch.epoch < 0 ? {} : { divergingEpoch: { epoch: p.divergingEpoch.epoch, offset: p.divergingEpoch.endOffset } }),
        ...(p.snapshotId.endOffset < 0 ? {} : { snapshotId: { endOffset: p.snapshotId.endOffset, epoch: p.snapshotId.epoch } }),
      };
    },
  };
}
