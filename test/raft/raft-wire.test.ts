import { describe, expect, it } from 'vitest';
import { decodeLogBatches, encodeLogBatches } from '../../host/raft/log-batch-codec.js';
import type { RaftApi, RaftRequests, RaftResponses } from '../../host/raft/messages.js';
import type { LogBatch } from '../../host/raft/raft-log.js';
import { raftWire, type RaftWireApi } from '../../host/raft/raft-wire.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { CorruptRecordError } from '../../host/record/records.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';

const wire = raftWire(() => 1_700_000_000_000);

function roundTripRequest<A extends RaftApi>(api: RaftWireApi<A>, body: RaftRequests[A], version = api.version): RaftRequests[A] {
  const w = new Writer();
  api.encodeRequest(w, version, body);
  const r = new Reader(w.toBuffer());
  const decoded = api.decodeRequest(r, version);
  expect(r.error).toBeNull();
  expect(r.remaining).toBe(0);
  return decoded;
}

function roundTripResponse<A extends RaftApi>(api: RaftWireApi<A>, body: RaftResponses[A], version = api.version): RaftResponses[A] {
  const w = new Writer();
  api.encodeResponse(w, version, body);
  const r = new Reader(w.toBuffer());
  const decoded = api.decodeResponse(r, version);
  expect(r.error).toBeNull();
  expect(r.remaining).toBe(0);
  return decoded;
}

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

describe('Raft messages on the Kafka wire', () => {
  it('Vote carries every field, PreVote from v2 (KIP-996) and not before', () => {
    const vote = { clusterId: 'c1', candidateEpoch: 7, candidateId: 2, lastOffsetEpoch: 6, lastOffset: 120, preVote: true };
    expect(roundTripRequest(wire.Vote, vote)).toEqual(vote);
    expect(roundTripRequest(wire.Vote, { ...vote, preVote: false }, 1)).toEqual({ ...vote, preVote: false });
    const granted = { errorCode: 0, leaderId: -1, leaderEpoch: 6, voteGranted: true };
    expect(roundTripResponse(wire.Vote, granted)).toEqual(granted);
  });

  it('BeginQuorumEpoch, EndQuorumEpoch and their responses round-trip; cluster-wide errors travel at the top level', () => {
    const begin = { clusterId: 'c1', leaderId: 3, leaderEpoch: 9 };
    expect(roundTripRequest(wire.BeginQuorumEpoch, begin)).toEqual(begin);
    const end = { clusterId: 'c1', leaderId: 3, leaderEpoch: 9, preferredSuccessors: [1, 2] };
    expect(roundTripRequest(wire.EndQuorumEpoch, end)).toEqual(end);
    for (const errorCode of [0, 6, 104]) {
      const response = { errorCode, leaderId: 3, leaderEpoch: 9 };
      expect(roundTripResponse(wire.BeginQuorumEpoch, response)).toEqual(response);
      expect(roundTripResponse(wire.EndQuorumEpoch, response)).toEqual(response);
    }
  });

  it('Fetch v12 carries the fetch position and answers with batches, high watermark, diverging epoch or snapshot id', () => {
    const fetch = { clusterId: 'c1', replicaId: 2, replicaEpoch: 4, fetchOffset: 17, lastFetchedEpoch: 3, maxBytes: 1 << 20 };
    expect(roundTripRequest(wire.Fetch, fetch)).toEqual(fetch);
    const batches: LogBatch[] = [
      { baseOffset: 17, epoch: 4, control: true, records: [bytes(1, 2, 3)] },
      { baseOffset: 18, epoch: 4, control: false, records: [bytes(9), bytes(), bytes(7, 7)] },
    ];
    const withRecords = { errorCode: 0, leaderId: 1, leaderEpoch: 4, highWatermark: 18, logStartOffset: 0, batches };
    const decoded = roundTripResponse(wire.Fetch, withRecords);
    expect({ ...decoded, batches: decoded.batches.map((b) => ({ ...b, records: b.records.map((x) => [...x]) })) })
      .toEqual({ ...withRecords, batches: batches.map((b) => ({ ...b, records: b.records.map((x) => [...x]) })) });
    const diverging = { errorCode: 0, leaderId: 1, leaderEpoch: 4, highWatermark: 18, logStartOffset: 0, batches: [], divergingEpoch: { epoch: 3, offset: 15 } };
    expect(roundTripResponse(wire.Fetch, diverging)).toEqual(diverging);
    const snapshot = { errorCode: 0, leaderId: 1, leaderEpoch: 4, highWatermark: 18, logStartOffset: 10, batches: [], snapshotId: { endOffset: 10, epoch: 2 } };
    expect(roundTripResponse(wire.Fetch, snapshot)).toEqual(snapshot);
    const fenced = { errorCode: 74, leaderId: 3, leaderEpoch: 5, highWatermark: -1, logStartOffset: -1, batches: [] };
    expect(roundTripResponse(wire.Fetch, fenced)).toEqual(fenced);
  });

  it('FetchSnapshot and DescribeQuorum round-trip', () => {
    const request = { clusterId: 'c1', replicaId: 2, currentLeaderEpoch: 4, snapshotId: { endOffset: 100, epoch: 3 }, position: 4096, maxBytes: 8192 };
    expect(roundTripRequest(wire.FetchSnapshot, request)).toEqual(request);
    const response = { errorCode: 0, leaderId: 1, leaderEpoch: 4, snapshotId: { endOffset: 100, epoch: 3 }, size: 9000, position: 4096, bytes: bytes(5, 6) };
    const decoded = roundTripResponse(wire.FetchSnapshot, response);
    expect({ ...decoded, bytes: [...decoded.bytes] }).toEqual({ ...response, bytes: [5, 6] });
    expect(roundTripRequest(wire.DescribeQuorum, {})).toEqual({});
    const quorum = {
      errorCode: 0, leaderId: 1, leaderEpoch: 4, highWatermark: 120,
      currentVoters: [{ replicaId: 1, logEndOffset: 121, lastFetchTimestamp: -1, lastCaughtUpTimestamp: -1 }, { replicaId: 2, logEndOffset: 120, lastFetchTimestamp: 5, lastCaughtUpTimestamp: 4 }],
      observers: [{ replicaId: 9, logEndOffset: 100, lastFetchTimestamp: 3, lastCaughtUpTimestamp: 2 }],
    };
    expect(roundTripResponse(wire.DescribeQuorum, quorum)).toEqual(quorum);
  });

  it('a request without __cluster_metadata-0 is a decode error', () => {
    const w = new Writer();
    // DescribeQuorum v1 with an empty topic list.
    w.uvarint(1); // compact array of 0 topics
    w.uvarint(0); // no tagged fields
    const r = new Reader(w.toBuffer());
    wire.DescribeQuorum.decodeRequest(r, 1);
    expect(r.error).toMatch(/__cluster_metadata-0/);
  });
});

describe('LogBatch codec', () => {
  it('round-trips data and control batches as Kafka RecordBatches with the epoch as partitionLeaderEpoch', () => {
    const batches: LogBatch[] = [
      { baseOffset: 0, epoch: 1, control: true, records: [bytes(1)] },
      { baseOffset: 1, epoch: 1, control: false, records: [bytes(2), bytes(3)] },
      { baseOffset: 3, epoch: 2, control: false, records: [bytes(4)] },
    ];
    const encoded = encodeLogBatches(batches, 0);
    expect(decodeLogBatches(encoded).map((b) => ({ ...b, records: b.records.map((x) => [...x]) })))
      .toEqual(batches.map((b) => ({ ...b, records: b.records.map((x) => [...x]) })));
    // A cut at the end (Fetch's byte limit) drops the partial batch only.
    expect(decodeLogBatches(encoded.subarray(0, encoded.length - 5))).toHaveLength(2);
    expect(encodeLogBatches([], 0)).toHaveLength(0);
  });

  it('refuses a batch whose CRC does not match', () => {
    const encoded = Uint8Array.from(encodeLogBatches([{ baseOffset: 0, epoch: 1, control: false, records: [bytes(1, 2, 3)] }], 0));
    encoded[encoded.length - 1]! ^= 0xff;
    expect(() => decodeLogBatches(encoded)).toThrow(CorruptRecordError);
    // A batch written by the record builder for a producer (no epoch stamped) decodes too.
    const plain = Uint8Array.from(buildRecordBatch({ records: [{ value: bytes(1) }], baseTimestamp: 0, maxTimestamp: 0 }));
    expect(decodeLogBatches(plain)).toEqual([{ baseOffset: 0, epoch: -1, control: false, records: [Buffer.from([1])] }]);
  });
});
