import { describe, expect, it } from 'vitest';
import type { ClassicGroupCoordinator, CommitOffsetsParams } from '../../host/coordinator/classic-group-coordinator.js';
import type { JoinGroupResult, TopicPartitionOffset } from '../../host/coordinator/coordinator-types.js';
import { GroupState } from '../../host/coordinator/group-state.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { assignment, flush, joinParams, newHarness, subscription, track, type Harness } from './harness.js';

const DAY_MS = 86_400_000;

function offset(topic: string, partition: number, value: number, commitTimestampMs: number, metadata = ''): TopicPartitionOffset {
  return { topic, partition, offsetAndMetadata: { offset: value, leaderEpoch: -1, metadata, commitTimestampMs, expireTimestampMs: null } };
}

function simpleCommit(coordinator: ClassicGroupCoordinator, groupId: string, offsets: TopicPartitionOffset[]) {
  return coordinator.commitOffsets({ groupId, memberId: '', groupInstanceId: null, generationId: -1, offsets });
}

async function stableMember(h: Harness, topics = ['topic'], groupId = 'group'): Promise<JoinGroupResult> {
  const join = track(h.coordinator.joinGroup(joinParams({ groupId, protocols: [{ name: 'range', metadata: subscription(topics) }] })));
  h.scheduler.advance(3_000);
  await flush();
  const member = join.value;
  const result = await h.coordinator.syncGroup({
    groupId,
    generationId: member.generationId,
    memberId: member.memberId,
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments: new Map([[member.memberId, assignment({ topic: [0] })]]),
  });
  expect(result.errorCode).toBe(ErrorCode.NONE);
  return member;
}

function memberCommit(member: JoinGroupResult, offsets: TopicPartitionOffset[], groupId = 'group'): CommitOffsetsParams {
  return { groupId, memberId: member.memberId, groupInstanceId: null, generationId: member.generationId, offsets };
}

describe('OffsetCommit and OffsetFetch', () => {
  it('store a member commit of the current generation and fetch it back', async () => {
    const h = newHarness();
    const member = await stableMember(h);
    const now = h.scheduler.nowMs();
    const errors = await h.coordinator.commitOffsets(memberCommit(member, [offset('topic', 0, 42, now, 'meta'), offset('topic', 1, 7, now)]));
    expect(errors.map((error) => error.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
    const fetched = h.coordinator.fetchOffsets('group', false, [{ topic: 'topic', partition: 0 }, { topic: 'topic', partition: 5 }]);
    expect(fetched.errorCode).toBe(ErrorCode.NONE);
    expect(fetched.partitions).toEqual([
      { topic: 'topic', partition: 0, offset: 42, leaderEpoch: -1, metadata: 'meta', errorCode: ErrorCode.NONE },
      { topic: 'topic', partition: 5, offset: -1, leaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE },
    ]);
  });

  it('returns every committed partition when no partitions are named, and nothing for unknown groups', async () => {
    const h = newHarness();
    await simpleCommit(h.coordinator, 'g', [offset('a', 0, 1, 0), offset('b', 3, 2, 0)]);
    const all = h.coordinator.fetchOffsets('g', false, null);
    expect(all.partitions.map((p) => `${p.topic}-${p.partition}:${p.offset}`)).toEqual(['a-0:1', 'b-3:2']);
    expect(h.coordinator.fetchOffsets('unknown', false, null).partitions).toEqual([]);
    expect(h.coordinator.fetchOffsets('unknown', false, [{ topic: 'a', partition: 0 }]).partitions[0]!.offset).toBe(-1);
  });

  it('reject commits from stale generations, unknown members and during CompletingRebalance', async () => {
    const h = newHarness();
    const member = await stableMember(h);
    const entries = [offset('topic', 0, 1, 0)];
    expect((await h.coordinator.commitOffsets({ ...memberCommit(member, entries), generationId: 0 }))[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect((await h.coordinator.commitOffsets({ ...memberCommit(member, entries), memberId: 'ghost' }))[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await h.coordinator.commitOffsets(memberCommit(member, entries, 'nonexistent')))[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    // A new member makes the group rebalance; the old member's commit is still accepted in PreparingRebalance.
    const newcomer = track(h.coordinator.joinGroup(joinParams({ clientId: 'new' })));
    expect((await h.coordinator.commitOffsets(memberCommit(member, entries)))[0]!.errorCode).toBe(ErrorCode.NONE);
    const rejoin = await h.coordinator.joinGroup(joinParams({ memberId: member.memberId }));
    await flush();
    expect(newcomer.value.generationId).toBe(2);
    expect((await h.coordinator.commitOffsets(memberCommit(rejoin, entries)))[0]!.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('accept simple commits (generation -1, no member) only while the group is Empty or unknown', async () => {
    const h = newHarness();
    expect((await simpleCommit(h.coordinator, 'simple', [offset('t', 0, 5, 0)]))[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(h.coordinator.group('simple')!.state).toBe(GroupState.Empty);
    await stableMember(h);
    expect((await simpleCommit(h.coordinator, 'group', [offset('t', 0, 5, 0)]))[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('refuse metadata longer than offset.metadata.max.bytes for that partition only', async () => {
    const h = newHarness({ offsetMetadataMaxBytes: 8 });
    const errors = await simpleCommit(h.coordinator, 'g', [offset('t', 0, 1, 0, 'x'.repeat(9)), offset('t', 1, 2, 0, 'short')]);
    expect(errors.map((error) => error.errorCode)).toEqual([ErrorCode.OFFSET_METADATA_TOO_LARGE, ErrorCode.NONE]);
    expect(h.coordinator.fetchOffsets('g', false, [{ topic: 't', partition: 0 }]).partitions[0]!.offset).toBe(-1);
  });

  it('answer only after the append completes, with RequireStable fetches seeing UNSTABLE_OFFSET_COMMIT meanwhile', async () => {
    const h = newHarness();
    h.offsetsTopic.deferAppends = true;
    const commit = track(simpleCommit(h.coordinator, 'g', [offset('t', 0, 10, 0)]));
    await flush();
    expect(commit.settled).toBe(false);
    expect(h.coordinator.fetchOffsets('g', true, [{ topic: 't', partition: 0 }]).partitions[0]!.errorCode).toBe(ErrorCode.UNSTABLE_OFFSET_COMMIT);
    expect(h.coordinator.fetchOffsets('g', false, [{ topic: 't', partition: 0 }]).partitions[0]!.offset).toBe(-1);
    h.offsetsTopic.completePendingAppends();
    await flush();
    expect(commit.value[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(h.coordinator.fetchOffsets('g', true, [{ topic: 't', partition: 0 }]).partitions[0]!.offset).toBe(10);
  });

  it('map append failures to coordinator errors and keep the previous offset', async () => {
    const h = newHarness();
    await simpleCommit(h.coordinator, 'g', [offset('t', 0, 1, 0)]);
    const cases: [number, number][] = [
      [ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.NOT_COORDINATOR],
      [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NOT_COORDINATOR],
      [ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.COORDINATOR_NOT_AVAILABLE],
      [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.COORDINATOR_NOT_AVAILABLE],
      [ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.INVALID_COMMIT_OFFSET_SIZE],
    ];
    for (const [appendError, commitError] of cases) {
      h.offsetsTopic.failAppendsWith = appendError;
      expect((await simpleCommit(h.coordinator, 'g', [offset('t', 0, 99, 0)]))[0]!.errorCode).toBe(commitError);
    }
    expect(h.coordinator.fetchOffsets('g', true, [{ topic: 't', partition: 0 }]).partitions[0]).toMatchObject({ offset: 1, errorCode: ErrorCode.NONE });
  });
});

describe('OffsetDelete', () => {
  it('deletes offsets of topics nobody subscribes to and refuses subscribed ones with GROUP_SUBSCRIBED_TO_TOPIC', async () => {
    const h = newHarness();
    const member = await stableMember(h, ['topic']);
    await h.coordinator.commitOffsets(memberCommit(member, [offset('topic', 0, 1, 0), offset('old', 0, 2, 0)]));
    const result = h.coordinator.deleteOffsets('group', [{ topic: 'topic', partition: 0 }, { topic: 'old', partition: 0 }]);
    expect(result).toEqual({
      errorCode: ErrorCode.NONE,
      partitions: [
        { topic: 'topic', partition: 0, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC },
        { topic: 'old', partition: 0, errorCode: ErrorCode.NONE },
      ],
    });
    expect(h.coordinator.fetchOffsets('group', false, null).partitions.map((p) => p.topic)).toEqual(['topic']);
  });

  it('answers GROUP_ID_NOT_FOUND for unknown groups and NON_EMPTY_GROUP for active groups of other protocol types', async () => {
    const h = newHarness();
    expect(h.coordinator.deleteOffsets('nobody', [{ topic: 't', partition: 0 }]).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    const join = track(h.coordinator.joinGroup(joinParams({ groupId: 'connect', protocolType: 'connect', protocols: [{ name: 'default', metadata: new Uint8Array([1]) }] })));
    h.scheduler.advance(3_000);
    await flush();
    expect(join.value.errorCode).toBe(ErrorCode.NONE);
    expect(h.coordinator.deleteOffsets('connect', [{ topic: 't', partition: 0 }])).toEqual({ errorCode: ErrorCode.NON_EMPTY_GROUP, partitions: [] });
  });

  it('removes an Empty group once its last offset is deleted', async () => {
    const h = newHarness();
    await simpleCommit(h.coordinator, 'g', [offset('t', 0, 1, 0)]);
    expect(h.coordinator.deleteOffsets('g', [{ topic: 't', partition: 0 }]).partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(h.coordinator.group('g')).toBeUndefined();
    expect(h.coordinator.deleteOffsets('g', [{ topic: 't', partition: 0 }]).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});

describe('offset expiry (offsets.retention.minutes)', () => {
  it('expires offsets of an Empty group the retention after it became Empty, not after the commit', async () => {
    const h = newHarness();
    const member = await stableMember(h);
    await h.coordinator.commitOffsets(memberCommit(member, [offset('topic', 0, 5, h.scheduler.nowMs())]));
    // The member stays for 6 days, then leaves.
    for (let t = 0; t < 6 * DAY_MS; t += 5_000) {
      h.coordinator.heartbeat({ groupId: 'group', generationId: member.generationId, memberId: member.memberId, groupInstanceId: null });
      h.scheduler.advance(5_000);
    }
    h.coordinator.leaveGroup('group', [{ memberId: member.memberId, groupInstanceId: null, reason: null }]);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.Empty);
    h.scheduler.advance(2 * DAY_MS); // 8 days after the commit, 2 after becoming Empty
    expect(h.coordinator.fetchOffsets('group', false, [{ topic: 'topic', partition: 0 }]).partitions[0]!.offset).toBe(5);
    h.scheduler.advance(5 * DAY_MS + 600_000); // the periodic check runs every offsets.retention.check.interval.ms
    expect(h.coordinator.fetchOffsets('group', false, [{ topic: 'topic', partition: 0 }]).partitions[0]!.offset).toBe(-1);
    expect(h.coordinator.group('group')).toBeUndefined();
  });

  it('expires offsets of a group used only for offset storage the retention after each commit', async () => {
    const h = newHarness({ offsetsRetentionMinutes: 60, offsetsRetentionCheckIntervalMs: 1_000 * DAY_MS });
    await simpleCommit(h.coordinator, 'g', [offset('t', 0, 1, h.scheduler.nowMs())]);
    h.scheduler.advance(30 * 60_000);
    await simpleCommit(h.coordinator, 'g', [offset('t', 1, 2, h.scheduler.nowMs())]);
    expect(h.coordinator.cleanupExpiredOffsets()).toBe(0);
    h.scheduler.advance(30 * 60_000);
    expect(h.coordinator.cleanupExpiredOffsets()).toBe(1);
    expect(h.coordinator.fetchOffsets('g', false, null).partitions.map((p) => p.partition)).toEqual([1]);
  });

  it('expires a Stable consumer group offsets only for topics it no longer subscribes to', async () => {
    const h = newHarness({ offsetsRetentionMinutes: 60 });
    const member = await stableMember(h, ['topic']);
    const now = h.scheduler.nowMs();
    await h.coordinator.commitOffsets(memberCommit(member, [offset('topic', 0, 1, now), offset('gone', 0, 1, now)]));
    for (let t = 0; t < 71 * 60_000; t += 5_000) { // expiry is checked every 10 minutes
      h.coordinator.heartbeat({ groupId: 'group', generationId: member.generationId, memberId: member.memberId, groupInstanceId: null });
      h.scheduler.advance(5_000);
    }
    expect(h.coordinator.group('group')!.state).toBe(GroupState.Stable);
    expect(h.coordinator.fetchOffsets('group', false, null).partitions.map((p) => p.topic)).toEqual(['topic']);
  });

  it('never expires an offset whose commit is still being appended', async () => {
    const h = newHarness({ offsetsRetentionMinutes: 1 });
    await simpleCommit(h.coordinator, 'g', [offset('t', 0, 1, h.scheduler.nowMs())]);
    h.scheduler.advance(2 * 60_000);
    h.offsetsTopic.deferAppends = true;
    void simpleCommit(h.coordinator, 'g', [offset('t', 0, 2, 0)]);
    expect(h.coordinator.cleanupExpiredOffsets()).toBe(0);
  });
});

describe('DescribeGroups, ListGroups and DeleteGroups', () => {
  it('describe a Stable group with member metadata and assignments, and an unknown group as Dead', async () => {
    const h = newHarness();
    const member = await stableMember(h);
    const summary = h.coordinator.describeGroup('group');
    expect(summary).toMatchObject({ errorCode: ErrorCode.NONE, state: 'Stable', protocolType: 'consumer', protocol: 'range' });
    expect(summary.members).toEqual([{
      memberId: member.memberId,
      groupInstanceId: null,
      clientId: 'client',
      clientHost: '/127.0.0.1',
      metadata: subscription(['topic']),
      assignment: assignment({ topic: [0] }),
    }]);
    expect(h.coordinator.describeGroup('unknown')).toMatchObject({ errorCode: ErrorCode.NONE, state: 'Dead', members: [] });
  });

  it('describe a rebalancing group without member metadata', async () => {
    const h = newHarness();
    void h.coordinator.joinGroup(joinParams());
    const summary = h.coordinator.describeGroup('group');
    expect(summary.state).toBe('PreparingRebalance');
    expect(summary.protocol).toBe('');
    expect(summary.members[0]!.metadata).toHaveLength(0);
  });

  it('list live groups with protocol type and state, optionally filtered by state', async () => {
    const h = newHarness();
    await stableMember(h);
    await simpleCommit(h.coordinator, 'simple', [offset('t', 0, 1, 0)]);
    expect(h.coordinator.listGroups().groups).toEqual([
      { groupId: 'group', protocolType: 'consumer', state: 'Stable' },
      { groupId: 'simple', protocolType: '', state: 'Empty' },
    ]);
    expect(h.coordinator.listGroups(['Empty']).groups.map((group) => group.groupId)).toEqual(['simple']);
  });

  it('delete Empty groups with their offsets and refuse active or unknown ones', async () => {
    const h = newHarness();
    await stableMember(h);
    await simpleCommit(h.coordinator, 'simple', [offset('t', 0, 1, 0)]);
    expect(h.coordinator.deleteGroups(['group', 'simple', 'unknown', 'simple'])).toEqual([
      { groupId: 'group', errorCode: ErrorCode.NON_EMPTY_GROUP },
      { groupId: 'simple', errorCode: ErrorCode.NONE },
      { groupId: 'unknown', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
    ]);
    expect(h.coordinator.group('simple')).toBeUndefined();
    expect(h.coordinator.fetchOffsets('simple', false, [{ topic: 't', partition: 0 }]).partitions[0]!.offset).toBe(-1);
    expect(h.coordinator.describeGroup('simple').state).toBe('Dead');
  });

  it('cancel the timers of a deleted group, such as a pending member expiry', async () => {
    const h = newHarness();
    const timersBefore = h.scheduler.pendingCount; // the periodic offset expiry
    expect((await h.coordinator.joinGroup(joinParams({ requireKnownMemberId: true }))).errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(h.scheduler.pendingCount).toBe(timersBefore + 1);
    expect(h.coordinator.deleteGroups(['group'])[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(h.scheduler.pendingCount).toBe(timersBefore);
  });

  it('remove committed offsets of deleted topics from every group', async () => {
    const h = newHarness();
    await simpleCommit(h.coordinator, 'a', [offset('doomed', 0, 1, 0), offset('kept', 0, 1, 0)]);
    await simpleCommit(h.coordinator, 'b', [offset('doomed', 1, 1, 0)]);
    expect(h.coordinator.onTopicsDeleted(['doomed'])).toBe(2);
    expect(h.coordinator.fetchOffsets('a', false, null).partitions.map((p) => p.topic)).toEqual(['kept']);
    expect(h.coordinator.group('b')).toBeUndefined();
  });
});

describe('coordinator lifecycle', () => {
  it('answers NOT_COORDINATOR for groups of partitions it has not loaded', async () => {
    const h = newHarness();
    const partition = h.coordinator.partitionFor('group');
    h.coordinator.unloadPartition(partition);
    expect((await h.coordinator.joinGroup(joinParams())).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(h.coordinator.fetchOffsets('group', false, null).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });

  it('moves groups in every state to Dead on unload, answering waiting JoinGroup and SyncGroup with NOT_COORDINATOR', async () => {
    const h = newHarness();
    await stableMember(h, ['topic'], 'stable');
    const completing = track(h.coordinator.joinGroup(joinParams({ groupId: 'completing', clientId: 'a' })));
    const completingFollower = track(h.coordinator.joinGroup(joinParams({ groupId: 'completing', clientId: 'b' })));
    h.scheduler.advance(6_000);
    await flush();
    const waitingSync = track(h.coordinator.syncGroup({
      groupId: 'completing', generationId: 1, memberId: completingFollower.value.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: new Map(),
    }));
    const preparing = track(h.coordinator.joinGroup(joinParams({ groupId: 'preparing' })));
    await simpleCommit(h.coordinator, 'empty', [offset('t', 0, 1, 0)]);
    const groups = ['stable', 'completing', 'preparing', 'empty'].map((groupId) => h.coordinator.group(groupId)!);
    expect(groups.map((group) => group.state)).toEqual([GroupState.Stable, GroupState.CompletingRebalance, GroupState.PreparingRebalance, GroupState.Empty]);
    expect(completing.value.errorCode).toBe(ErrorCode.NONE);
    for (const group of groups) h.coordinator.unloadPartition(h.coordinator.partitionFor(group.groupId));
    await flush();
    expect(groups.map((group) => group.state)).toEqual([GroupState.Dead, GroupState.Dead, GroupState.Dead, GroupState.Dead]);
    expect(waitingSync.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(preparing.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(h.coordinator.group('stable')).toBeUndefined();
  });

  it('answers waiting JoinGroups with NOT_COORDINATOR on shutdown and everything after with COORDINATOR_NOT_AVAILABLE', async () => {
    const h = newHarness();
    const join = track(h.coordinator.joinGroup(joinParams()));
    h.coordinator.shutdown();
    await flush();
    expect(join.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect((await h.coordinator.joinGroup(joinParams())).errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(h.coordinator.listGroups().errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(h.scheduler.pendingCount).toBe(0);
  });
});
