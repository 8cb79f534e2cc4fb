import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { encodeConsumerProtocolSubscription } from '../../host/protocol/generated/consumer-protocol-subscription.js';
import { decodeDeleteGroupsResponse, encodeDeleteGroupsRequest } from '../../host/protocol/generated/delete-groups.js';
import { decodeDescribeGroupsResponse, encodeDescribeGroupsRequest } from '../../host/protocol/generated/describe-groups.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeFindCoordinatorResponse, encodeFindCoordinatorRequest } from '../../host/protocol/generated/find-coordinator.js';
import { decodeHeartbeatResponse, encodeHeartbeatRequest } from '../../host/protocol/generated/heartbeat.js';
import { decodeJoinGroupResponse, encodeJoinGroupRequest, type JoinGroupResponse } from '../../host/protocol/generated/join-group.js';
import { decodeLeaveGroupResponse, encodeLeaveGroupRequest } from '../../host/protocol/generated/leave-group.js';
import { decodeListGroupsResponse, encodeListGroupsRequest } from '../../host/protocol/generated/list-groups.js';
import { decodeOffsetCommitResponse, encodeOffsetCommitRequest } from '../../host/protocol/generated/offset-commit.js';
import { decodeOffsetDeleteResponse, encodeOffsetDeleteRequest } from '../../host/protocol/generated/offset-delete.js';
import { decodeOffsetFetchResponse, encodeOffsetFetchRequest } from '../../host/protocol/generated/offset-fetch.js';
import { decodeSyncGroupResponse, encodeSyncGroupRequest } from '../../host/protocol/generated/sync-group.js';
import { Writer } from '../../host/protocol/writer.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { createTopic } from './requests.js';

function subscription(topics: string[]): Uint8Array {
  const w = new Writer();
  w.int16(0);
  encodeConsumerProtocolSubscription(w, 0, { topics });
  return Buffer.from(w.toBuffer());
}

describe('group APIs', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker();
    client = await RawKafkaClient.connect(broker.broker.port);
    expect(await createTopic(client, 'consumed', 2)).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  /** Joins `groupId` as a new single member at JoinGroup `version` (re-joining on MEMBER_ID_REQUIRED for v4+). */
  async function join(groupId: string, version: number, memberId = ''): Promise<JoinGroupResponse> {
    const ask = (id: string) => client.request(ApiKey.JoinGroup, version, encodeJoinGroupRequest, decodeJoinGroupResponse, {
      groupId, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: id, groupInstanceId: null,
      protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(['consumed']) }],
    });
    const first = await ask(memberId);
    if (version >= 4 && memberId === '') {
      expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
      expect(first.memberId).not.toBe('');
      return ask(first.memberId);
    }
    return first;
  }

  it('finds this broker as coordinator with FindCoordinator v0-2, for groups and transactional ids', async () => {
    for (let version = 0; version <= 2; version++) {
      const response = await client.request(ApiKey.FindCoordinator, version, encodeFindCoordinatorRequest, decodeFindCoordinatorResponse,
        { key: `group-${version}`, keyType: 0 });
      expect(response).toMatchObject({ errorCode: ErrorCode.NONE, nodeId: 1, host: '127.0.0.1', port: broker.broker.port });
    }
    const transaction = await client.request(ApiKey.FindCoordinator, 1, encodeFindCoordinatorRequest, decodeFindCoordinatorResponse,
      { key: 'txn', keyType: 1 });
    expect(transaction).toMatchObject({ errorCode: ErrorCode.NONE, nodeId: 1, host: '127.0.0.1', port: broker.broker.port });
  });

  it('runs join, sync, heartbeat and leave with every JoinGroup version 0-5', async () => {
    for (let version = 0; version <= 5; version++) {
      const groupId = `join-v${version}`;
      const joined = await join(groupId, version);
      expect(joined.errorCode).toBe(ErrorCode.NONE);
      expect(joined.leader).toBe(joined.memberId);
      expect(joined.protocolName).toBe('range');
      expect(joined.members.map((m) => m.memberId)).toEqual([joined.memberId]);
      const smaller = Math.min(version, 3);
      const assignment = Buffer.from(`assignment-${version}`);
      const synced = await client.request(ApiKey.SyncGroup, smaller, encodeSyncGroupRequest, decodeSyncGroupResponse, {
        groupId, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null,
        assignments: [{ memberId: joined.memberId, assignment }],
      });
      expect(synced.errorCode).toBe(ErrorCode.NONE);
      expect(Buffer.from(synced.assignment)).toEqual(assignment);
      const beat = await client.request(ApiKey.Heartbeat, smaller, encodeHeartbeatRequest, decodeHeartbeatResponse,
        { groupId, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null });
      expect(beat.errorCode).toBe(ErrorCode.NONE);
      const left = await client.request(ApiKey.LeaveGroup, smaller, encodeLeaveGroupRequest, decodeLeaveGroupResponse,
        { groupId, memberId: joined.memberId, members: [{ memberId: joined.memberId, groupInstanceId: null }] });
      expect(left.errorCode).toBe(ErrorCode.NONE);
      const gone = await client.request(ApiKey.Heartbeat, smaller, encodeHeartbeatRequest, decodeHeartbeatResponse,
        { groupId, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null });
      expect(gone.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    }
  });

  it('never answers MEMBER_ID_REQUIRED below JoinGroup v4 (kafka-python sends v2)', async () => {
    const joined = await join('kafka-python-style', 2);
    expect(joined.errorCode).toBe(ErrorCode.NONE);
  });

  it('commits with every OffsetCommit version 0-7 and reads back with OffsetFetch v1-5', async () => {
    for (let version = 0; version <= 7; version++) {
      const groupId = `commits-v${version}`;
      const committed = await client.request(ApiKey.OffsetCommit, version, encodeOffsetCommitRequest, decodeOffsetCommitResponse, {
        groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
        topics: [{ name: 'consumed', partitions: [{ partitionIndex: 1, committedOffset: 40 + version, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: `m${version}` }] }],
      });
      expect(committed.topics[0]!.partitions[0]).toMatchObject({ partitionIndex: 1, errorCode: ErrorCode.NONE });
      for (let fetchVersion = 1; fetchVersion <= 5; fetchVersion++) {
        const fetched = await client.request(ApiKey.OffsetFetch, fetchVersion, encodeOffsetFetchRequest, decodeOffsetFetchResponse,
          { groupId, topics: [{ name: 'consumed', partitionIndexes: [0, 1] }] });
        if (fetchVersion >= 2) expect(fetched.errorCode).toBe(ErrorCode.NONE);
        const partitions = fetched.topics[0]!.partitions;
        expect(partitions.find((p) => p.partitionIndex === 1)).toMatchObject({ committedOffset: 40 + version, metadata: `m${version}`, errorCode: ErrorCode.NONE });
        expect(partitions.find((p) => p.partitionIndex === 0)).toMatchObject({ committedOffset: -1 });
      }
    }
    const all = await client.request(ApiKey.OffsetFetch, 2, encodeOffsetFetchRequest, decodeOffsetFetchResponse, { groupId: 'commits-v7', topics: null });
    expect(all.topics.map((t) => t.name)).toEqual(['consumed']);
    const v0 = await client.request(ApiKey.OffsetFetch, 0, encodeOffsetFetchRequest, decodeOffsetFetchResponse,
      { groupId: 'commits-v7', topics: [{ name: 'consumed', partitionIndexes: [1] }] });
    expect(v0.topics[0]!.partitions[0]!.partitionIndex).toBe(1);
  });

  it('answers UNKNOWN_TOPIC_OR_PARTITION for commits to partitions that do not exist', async () => {
    const committed = await client.request(ApiKey.OffsetCommit, 7, encodeOffsetCommitRequest, decodeOffsetCommitResponse, {
      groupId: 'strays', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 'consumed', partitions: [{ partitionIndex: 9, committedOffset: 1, committedLeaderEpoch: -1, committedMetadata: null }] }],
    });
    expect(committed.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('describes and lists groups with DescribeGroups v0-4 and ListGroups v0-2', async () => {
    const joined = await join('described', 5);
    await client.request(ApiKey.SyncGroup, 3, encodeSyncGroupRequest, decodeSyncGroupResponse, {
      groupId: 'described', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null,
      assignments: [{ memberId: joined.memberId, assignment: Buffer.from('a') }],
    });
    for (let version = 0; version <= 4; version++) {
      const response = await client.request(ApiKey.DescribeGroups, version, encodeDescribeGroupsRequest, decodeDescribeGroupsResponse,
        { groups: ['described', 'nobody-here'], includeAuthorizedOperations: false });
      const [described, missing] = response.groups;
      expect(described).toMatchObject({ errorCode: ErrorCode.NONE, groupId: 'described', groupState: 'Stable', protocolType: 'consumer', protocolData: 'range' });
      expect(described!.members).toHaveLength(1);
      expect(described!.members[0]).toMatchObject({ memberId: joined.memberId, clientId: 'raw-test', clientHost: '/127.0.0.1' });
      expect(missing!.groupState).toBe('Dead');
    }
    for (let version = 0; version <= 2; version++) {
      const response = await client.request(ApiKey.ListGroups, version, encodeListGroupsRequest, decodeListGroupsResponse, {});
      expect(response.errorCode).toBe(ErrorCode.NONE);
      expect(response.groups.map((g) => g.groupId)).toEqual(expect.arrayContaining(['described', 'commits-v0']));
    }
  });

  it('lists groups with ListGroups v3-5, by state (v4+, KIP-518) and type (v5+, KIP-848), case-insensitively as Kafka 3.9', async () => {
    const joined = await join('listed', 5);
    await client.request(ApiKey.SyncGroup, 3, encodeSyncGroupRequest, decodeSyncGroupResponse, {
      groupId: 'listed', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null,
      assignments: [{ memberId: joined.memberId, assignment: Buffer.from('a') }],
    });
    const list = (version: number, statesFilter: string[] = [], typesFilter: string[] = []) =>
      client.request(ApiKey.ListGroups, version, encodeListGroupsRequest, decodeListGroupsResponse, { statesFilter, typesFilter });
    const v3 = await list(3);
    expect(v3.errorCode).toBe(ErrorCode.NONE);
    expect(v3.groups.map((g) => g.groupId)).toContain('listed');
    const all = await list(4);
    expect(all.groups.find((g) => g.groupId === 'listed')).toMatchObject({ protocolType: 'consumer', groupState: 'Stable' });
    expect(new Set(all.groups.map((g) => g.groupState))).toContain('Empty');
    const stable = await list(4, ['stable']);
    expect(stable.groups.map((g) => g.groupId)).toContain('listed');
    expect(stable.groups.every((g) => g.groupState === 'Stable')).toBe(true);
    const empty = await list(4, ['Empty', 'Dead']);
    expect(empty.groups.length).toBeGreaterThan(0);
    expect(empty.groups.map((g) => g.groupId)).not.toContain('listed');
    const classic = await list(5, ['Stable'], ['CLASSIC']);
    expect(classic.groups.find((g) => g.groupId === 'listed')).toMatchObject({ groupState: 'Stable', groupType: 'classic' });
    expect((await list(5, [], ['consumer'])).groups).toEqual([]);
  });

  it('deletes empty groups with DeleteGroups v0-1 and refuses groups with members', async () => {
    for (let version = 0; version <= 1; version++) {
      const response = await client.request(ApiKey.DeleteGroups, version, encodeDeleteGroupsRequest, decodeDeleteGroupsResponse,
        { groupsNames: [`commits-v${version}`, 'described', 'never-was'] });
      expect(response.results.map((r) => [r.groupId, r.errorCode])).toEqual([
        [`commits-v${version}`, ErrorCode.NONE],
        ['described', ErrorCode.NON_EMPTY_GROUP],
        ['never-was', ErrorCode.GROUP_ID_NOT_FOUND],
      ]);
    }
    const fetched = await client.request(ApiKey.OffsetFetch, 5, encodeOffsetFetchRequest, decodeOffsetFetchResponse,
      { groupId: 'commits-v0', topics: [{ name: 'consumed', partitionIndexes: [1] }] });
    expect(fetched.topics[0]!.partitions[0]!.committedOffset).toBe(-1);
  });

  it('deletes offsets of an unsubscribed group with OffsetDelete v0', async () => {
    const response = await client.request(ApiKey.OffsetDelete, 0, encodeOffsetDeleteRequest, decodeOffsetDeleteResponse,
      { groupId: 'commits-v5', topics: [{ name: 'consumed', partitions: [{ partitionIndex: 1 }] }] });
    expect(response.errorCode).toBe(ErrorCode.NONE);
    expect(response.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    const fetched = await client.request(ApiKey.OffsetFetch, 5, encodeOffsetFetchRequest, decodeOffsetFetchResponse,
      { groupId: 'commits-v5', topics: [{ name: 'consumed', partitionIndexes: [1] }] });
    expect(fetched.topics[0]!.partitions[0]!.committedOffset).toBe(-1);
    const unknown = await client.request(ApiKey.OffsetDelete, 0, encodeOffsetDeleteRequest, decodeOffsetDeleteResponse,
      { groupId: 'never-was', topics: [] });
    expect(unknown.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});
