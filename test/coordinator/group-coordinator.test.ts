import { describe, expect, it } from 'vitest';
import { readOffsetCommitValue, readCoordinatorRecordKey } from '../../host/coordinator/coordinator-records.js';
import { GroupCoordinator, type RequestContext } from '../../host/coordinator/group-coordinator.js';
import { InMemoryOffsetsTopic } from '../../host/coordinator/in-memory-offsets-topic.js';
import { ManualScheduler } from '../../host/coordinator/scheduler.js';
import { decodeDeleteGroupsResponse, encodeDeleteGroupsResponse } from '../../host/protocol/generated/delete-groups.js';
import { decodeDescribeGroupsResponse, encodeDescribeGroupsResponse } from '../../host/protocol/generated/describe-groups.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeJoinGroupResponse, encodeJoinGroupResponse, type JoinGroupRequest, type JoinGroupResponse } from '../../host/protocol/generated/join-group.js';
import { decodeLeaveGroupResponse, encodeLeaveGroupResponse } from '../../host/protocol/generated/leave-group.js';
import { decodeListGroupsResponse, encodeListGroupsResponse } from '../../host/protocol/generated/list-groups.js';
import { decodeOffsetCommitResponse, encodeOffsetCommitResponse, type OffsetCommitRequest } from '../../host/protocol/generated/offset-commit.js';
import { decodeOffsetDeleteResponse, encodeOffsetDeleteResponse } from '../../host/protocol/generated/offset-delete.js';
import { decodeOffsetFetchResponse, encodeOffsetFetchResponse } from '../../host/protocol/generated/offset-fetch.js';
import { decodeSyncGroupResponse, encodeSyncGroupResponse } from '../../host/protocol/generated/sync-group.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';
import { readRecords } from '../../host/record/records.js';
import { assignment, flush, subscription, track } from './harness.js';

interface Setup {
  scheduler: ManualScheduler;
  offsetsTopic: InMemoryOffsetsTopic;
  coordinator: GroupCoordinator;
}

function setup(partitionExists?: (topic: string, partition: number) => boolean): Setup {
  const scheduler = new ManualScheduler();
  const offsetsTopic = new InMemoryOffsetsTopic();
  let next = 0;
  const coordinator = new GroupCoordinator({ time: scheduler, offsetsTopic, random: { uuid: () => `m${++next}` }, partitionExists });
  coordinator.startup();
  coordinator.loadAllPartitions();
  return { scheduler, offsetsTopic, coordinator };
}

const context = (apiVersion: number, clientId = 'client'): RequestContext => ({ apiVersion, clientId, clientHost: '/127.0.0.1' });

function joinRequest(overrides: Partial<JoinGroupRequest> = {}): JoinGroupRequest {
  return {
    groupId: 'group',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 60_000,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription(['topic']) }, { name: 'roundrobin', metadata: subscription(['topic']) }],
    ...overrides,
  };
}

/** Encodes with the generated encoder for `version` and decodes back: the response is well-formed on the wire. */
function wire<T>(encode: (w: Writer, version: number, message: T) => void, decode: (r: Reader, version: number) => T, version: number, message: T): T {
  const w = new Writer();
  encode(w, version, message);
  const r = new Reader(w.toBuffer());
  const decoded = decode(r, version);
  expect(r.error).toBeNull();
  expect(r.remaining).toBe(0);
  return decoded;
}

function commitRequest(overrides: Partial<OffsetCommitRequest> = {}): OffsetCommitRequest {
  return {
    groupId: 'group',
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1,
    topics: [{ name: 'topic', partitions: [{ partitionIndex: 0, committedOffset: 10, committedLeaderEpoch: 4, commitTimestamp: -1, committedMetadata: null }] }],
    ...overrides,
  };
}

async function stableMember(s: Setup, version = 5): Promise<JoinGroupResponse> {
  let join = await s.coordinator.joinGroup(joinRequest(), context(version));
  if (join.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
    const second = track(s.coordinator.joinGroup(joinRequest({ memberId: join.memberId }), context(version)));
    s.scheduler.advance(3_000);
    await flush();
    join = second.value;
  }
  const sync = await s.coordinator.syncGroup(
    { groupId: 'group', generationId: join.generationId, memberId: join.memberId, groupInstanceId: null, assignments: [{ memberId: join.memberId, assignment: assignment({ topic: [0] }) }] },
    context(3),
  );
  expect(sync.errorCode).toBe(ErrorCode.NONE);
  return join;
}

describe('GroupCoordinator JoinGroup versions', () => {
  it('demands the two-step join (MEMBER_ID_REQUIRED) from JoinGroup v4+', async () => {
    const s = setup();
    const first = wire(encodeJoinGroupResponse, decodeJoinGroupResponse, 4, await s.coordinator.joinGroup(joinRequest(), context(4)));
    expect(first).toMatchObject({ errorCode: ErrorCode.MEMBER_ID_REQUIRED, memberId: 'client-m1', generationId: -1, leader: '', protocolName: '' });
    const second = track(s.coordinator.joinGroup(joinRequest({ memberId: first.memberId }), context(4)));
    s.scheduler.advance(3_000);
    await flush();
    const response = wire(encodeJoinGroupResponse, decodeJoinGroupResponse, 4, second.value);
    expect(response).toMatchObject({ errorCode: ErrorCode.NONE, memberId: 'client-m1', generationId: 1, leader: 'client-m1', protocolName: 'range' });
    expect(response.members.map((member) => member.memberId)).toEqual(['client-m1']);
  });

  it('never answers MEMBER_ID_REQUIRED below v4 (kafka-python sends v2)', async () => {
    const s = setup();
    const join = track(s.coordinator.joinGroup(joinRequest(), context(2)));
    s.scheduler.advance(3_000);
    await flush();
    expect(wire(encodeJoinGroupResponse, decodeJoinGroupResponse, 2, join.value)).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1 });
  });

  it('admits a static member (v5 group.instance.id) without the two-step join', async () => {
    const s = setup();
    const join = track(s.coordinator.joinGroup(joinRequest({ groupInstanceId: 'instance-1' }), context(5)));
    s.scheduler.advance(3_000);
    await flush();
    const response = wire(encodeJoinGroupResponse, decodeJoinGroupResponse, 5, join.value);
    expect(response).toMatchObject({ errorCode: ErrorCode.NONE, memberId: 'instance-1-m1' });
    expect(response.members).toEqual([{ memberId: 'instance-1-m1', groupInstanceId: 'instance-1', metadata: subscription(['topic']) }]);
  });

  it('uses the session timeout as rebalance timeout for JoinGroup v0', async () => {
    const s = setup();
    void s.coordinator.joinGroup(joinRequest({ rebalanceTimeoutMs: -1, sessionTimeoutMs: 7_000 }), context(0));
    expect(s.coordinator.classic.group('group')!.rebalanceTimeoutMs).toBe(7_000);
  });
});

describe('GroupCoordinator SyncGroup, Heartbeat and LeaveGroup versions', () => {
  it('distributes the assignment and answers heartbeats', async () => {
    const s = setup();
    const member = await stableMember(s);
    const again = await s.coordinator.syncGroup({ groupId: 'group', generationId: 1, memberId: member.memberId, groupInstanceId: null, assignments: [] }, context(1));
    expect(wire(encodeSyncGroupResponse, decodeSyncGroupResponse, 1, again)).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, assignment: assignment({ topic: [0] }) });
    const heartbeat = await s.coordinator.heartbeat({ groupId: 'group', generationId: 1, memberId: member.memberId, groupInstanceId: null }, context(3));
    expect(heartbeat.errorCode).toBe(ErrorCode.NONE);
  });

  it('answers LeaveGroup v1 with the single member error at top level', async () => {
    const s = setup();
    await stableMember(s);
    const unknown = await s.coordinator.leaveGroup({ groupId: 'group', memberId: 'ghost', members: [] }, context(1));
    expect(wire(encodeLeaveGroupResponse, decodeLeaveGroupResponse, 1, unknown)).toMatchObject({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, members: [] });
  });

  it('answers LeaveGroup v3 per member for a batch', async () => {
    const s = setup();
    const member = await stableMember(s);
    const response = await s.coordinator.leaveGroup({
      groupId: 'group',
      memberId: '',
      members: [{ memberId: member.memberId, groupInstanceId: null }, { memberId: 'ghost', groupInstanceId: null }],
    }, context(3));
    expect(wire(encodeLeaveGroupResponse, decodeLeaveGroupResponse, 3, response)).toEqual({
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      members: [
        { memberId: member.memberId, groupInstanceId: null, errorCode: ErrorCode.NONE },
        { memberId: 'ghost', groupInstanceId: null, errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
      ],
    });
    expect(s.coordinator.classic.group('group')!.state).toBe('Empty');
  });
});

describe('GroupCoordinator OffsetCommit and OffsetFetch versions', () => {
  it('commits as a simple consumer with v0 and fetches with v1', async () => {
    const s = setup();
    const response = await s.coordinator.offsetCommit(commitRequest(), context(0));
    expect(wire(encodeOffsetCommitResponse, decodeOffsetCommitResponse, 0, response).topics).toEqual([
      { name: 'topic', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE }] },
    ]);
    const fetched = await s.coordinator.offsetFetch({ groupId: 'group', topics: [{ name: 'topic', partitionIndexes: [0, 1] }] }, context(1));
    expect(wire(encodeOffsetFetchResponse, decodeOffsetFetchResponse, 1, fetched).topics).toEqual([
      {
        name: 'topic',
        partitions: [
          { partitionIndex: 0, committedOffset: 10, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE },
          { partitionIndex: 1, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE },
        ],
      },
    ]);
  });

  it('commits with the member generation (v7 with leader epoch) and fetches every partition with v5 null topics', async () => {
    const s = setup();
    const member = await stableMember(s);
    const response = await s.coordinator.offsetCommit(commitRequest({ generationIdOrMemberEpoch: member.generationId, memberId: member.memberId }), context(7));
    expect(response.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    const stale = await s.coordinator.offsetCommit(commitRequest({ generationIdOrMemberEpoch: 9, memberId: member.memberId }), context(7));
    expect(stale.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    const fetched = wire(encodeOffsetFetchResponse, decodeOffsetFetchResponse, 5, await s.coordinator.offsetFetch({ groupId: 'group', topics: null }, context(5)));
    expect(fetched).toEqual({
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      topics: [{ name: 'topic', partitions: [{ partitionIndex: 0, committedOffset: 10, committedLeaderEpoch: 4, metadata: '', errorCode: ErrorCode.NONE }] }],
    });
  });

  it('stores an OffsetCommit v2 retention time as an expire timestamp (OffsetCommitValue v1)', async () => {
    const s = setup();
    const now = s.scheduler.nowMs();
    await s.coordinator.offsetCommit(commitRequest({ retentionTimeMs: 60_000 }), context(2));
    const partition = s.coordinator.partitionFor('group');
    const [record] = readRecords(s.offsetsTopic.batches(partition)[0]!);
    expect(readCoordinatorRecordKey(record!.key!)).toEqual({ type: 'offsetCommit', group: 'group', topic: 'topic', partition: 0 });
    expect(record!.value!.readInt16BE(0)).toBe(1);
    expect(readOffsetCommitValue(record!.value!)).toEqual({ offset: 10, leaderEpoch: -1, metadata: '', commitTimestampMs: now, expireTimestampMs: now + 60_000 });
    expect(record!.timestamp).toBe(now);
  });

  it('keeps a v1 commit timestamp given by the client', async () => {
    const s = setup();
    const member = await stableMember(s);
    await s.coordinator.offsetCommit(commitRequest({
      generationIdOrMemberEpoch: member.generationId,
      memberId: member.memberId,
      topics: [{ name: 'topic', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: 12_345, committedMetadata: 'x' }] }],
    }), context(1));
    expect(s.coordinator.classic.committedOffset('group', 'topic', 0)!.commitTimestampMs).toBe(12_345);
  });

  it('answers UNKNOWN_TOPIC_OR_PARTITION for partitions the broker does not have', async () => {
    const s = setup((topic) => topic === 'topic');
    const response = await s.coordinator.offsetCommit(commitRequest({
      topics: [
        { name: 'topic', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] },
        { name: 'missing', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] },
      ],
    }), context(2));
    expect(response.topics.map((topic) => topic.partitions[0]!.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
  });

  it('puts a group error on every partition for OffsetFetch v1 and at top level for v2+', async () => {
    const s = setup();
    s.coordinator.unloadPartition(s.coordinator.partitionFor('group'));
    const request = { groupId: 'group', topics: [{ name: 'topic', partitionIndexes: [0, 1] }] };
    const v1 = wire(encodeOffsetFetchResponse, decodeOffsetFetchResponse, 1, await s.coordinator.offsetFetch(request, context(1)));
    expect(v1.topics[0]!.partitions.map((partition) => partition.errorCode)).toEqual([ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR]);
    const v3 = wire(encodeOffsetFetchResponse, decodeOffsetFetchResponse, 3, await s.coordinator.offsetFetch(request, context(3)));
    expect(v3).toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR, topics: [] });
  });
});

describe('GroupCoordinator admin APIs', () => {
  it('describes groups with authorized operations only when asked (v3+)', async () => {
    const s = setup();
    const member = await stableMember(s);
    const response = wire(encodeDescribeGroupsResponse, decodeDescribeGroupsResponse, 4,
      await s.coordinator.describeGroups({ groups: ['group', 'unknown'], includeAuthorizedOperations: true }, context(4)));
    expect(response.groups[0]).toMatchObject({ errorCode: ErrorCode.NONE, groupId: 'group', groupState: 'Stable', protocolType: 'consumer', protocolData: 'range', authorizedOperations: 328 });
    expect(response.groups[0]!.members).toEqual([{
      memberId: member.memberId,
      groupInstanceId: null,
      clientId: 'client',
      clientHost: '/127.0.0.1',
      memberMetadata: subscription(['topic']),
      memberAssignment: assignment({ topic: [0] }),
    }]);
    expect(response.groups[1]).toMatchObject({ groupId: 'unknown', groupState: 'Dead', members: [] });
    const v0 = wire(encodeDescribeGroupsResponse, decodeDescribeGroupsResponse, 0,
      await s.coordinator.describeGroups({ groups: ['group'], includeAuthorizedOperations: false }, context(0)));
    expect(v0.groups[0]!.groupState).toBe('Stable');
  });

  it('lists, deletes and deletes offsets of groups', async () => {
    const s = setup();
    await s.coordinator.offsetCommit(commitRequest(), context(2));
    await s.coordinator.offsetCommit(commitRequest({ groupId: 'other' }), context(2));
    const listed = wire(encodeListGroupsResponse, decodeListGroupsResponse, 2, await s.coordinator.listGroups({ statesFilter: [], typesFilter: [] }, context(2)));
    expect(listed).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups: [{ groupId: 'group', protocolType: '', groupState: '', groupType: '' }, { groupId: 'other', protocolType: '', groupState: '', groupType: '' }] });

    const offsetDelete = wire(encodeOffsetDeleteResponse, decodeOffsetDeleteResponse, 0,
      await s.coordinator.offsetDelete({ groupId: 'other', topics: [{ name: 'topic', partitions: [{ partitionIndex: 0 }] }] }, context(0)));
    expect(offsetDelete).toEqual({ errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics: [{ name: 'topic', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE }] }] });
    const missing = await s.coordinator.offsetDelete({ groupId: 'other', topics: [] }, context(0));
    expect(missing.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);

    const deleted = wire(encodeDeleteGroupsResponse, decodeDeleteGroupsResponse, 1,
      await s.coordinator.deleteGroups({ groupsNames: ['group', 'nope'] }, context(1)));
    expect(deleted.results).toEqual([{ groupId: 'group', errorCode: ErrorCode.NONE }, { groupId: 'nope', errorCode: ErrorCode.GROUP_ID_NOT_FOUND }]);
  });
});
