import { describe, expect, it } from 'vitest';
import type { JoinGroupResult, SyncGroupResult } from '../../host/coordinator/coordinator-types.js';
import { GroupState } from '../../host/coordinator/group-state.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { assignment, flush, joinParams, newHarness, subscription, track, type Harness } from './harness.js';

/** Forms a Stable group of `count` dynamic members joining together; returns their join results (leader first). */
async function stableGroup(h: Harness, count: number, groupId = 'group'): Promise<JoinGroupResult[]> {
  const joins = Array.from({ length: count }, (_, i) => h.coordinator.joinGroup(joinParams({ groupId, clientId: `c${i}` })));
  h.scheduler.advance(6_000);
  const results = await Promise.all(joins);
  for (const result of results) expect(result.errorCode).toBe(ErrorCode.NONE);
  const leader = results.find((result) => result.memberId === result.leaderId)!;
  const assignments = new Map(results.map((result, i) => [result.memberId, assignment({ topic: [i] })] as const));
  const syncs = results.map((result) =>
    h.coordinator.syncGroup({
      groupId,
      generationId: result.generationId,
      memberId: result.memberId,
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: result.memberId === leader.memberId ? assignments : new Map(),
    }),
  );
  for (const sync of await Promise.all(syncs)) expect(sync.errorCode).toBe(ErrorCode.NONE);
  expect(h.coordinator.group(groupId)!.state).toBe(GroupState.Stable);
  return [leader, ...results.filter((result) => result !== leader)];
}

function sync(h: Harness, result: JoinGroupResult, assignments = new Map<string, Uint8Array>(), groupId = 'group'): Promise<SyncGroupResult> {
  return h.coordinator.syncGroup({
    groupId,
    generationId: result.generationId,
    memberId: result.memberId,
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments,
  });
}

function heartbeat(h: Harness, result: { memberId: string; generationId: number }, groupId = 'group', groupInstanceId: string | null = null): number {
  return h.coordinator.heartbeat({ groupId, generationId: result.generationId, memberId: result.memberId, groupInstanceId });
}

describe('JoinGroup', () => {
  it('holds the first member of an empty group for group.initial.rebalance.delay.ms, then makes it leader of generation 1', async () => {
    const h = newHarness();
    const join = track(h.coordinator.joinGroup(joinParams()));
    expect(h.coordinator.group('group')!.state).toBe(GroupState.PreparingRebalance);
    h.scheduler.advance(2_999);
    await flush();
    expect(join.settled).toBe(false);
    h.scheduler.advance(1);
    await flush();
    expect(join.value.errorCode).toBe(ErrorCode.NONE);
    expect(join.value.generationId).toBe(1);
    expect(join.value.leaderId).toBe(join.value.memberId);
    expect(join.value.memberId).toBe('client-m1');
    expect(join.value.protocolName).toBe('range');
    expect(join.value.protocolType).toBe('consumer');
    expect(join.value.members.map((member) => member.memberId)).toEqual([join.value.memberId]);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.CompletingRebalance);
  });

  it('extends the initial delay while new members keep arriving, up to the rebalance timeout', async () => {
    const h = newHarness({ groupInitialRebalanceDelayMs: 3_000 });
    const first = track(h.coordinator.joinGroup(joinParams({ rebalanceTimeoutMs: 10_000 })));
    h.scheduler.advance(2_000);
    const second = track(h.coordinator.joinGroup(joinParams({ rebalanceTimeoutMs: 10_000, clientId: 'other' })));
    h.scheduler.advance(3_999); // t = 5999: the delay was extended at t = 3000 to t = 6000
    await flush();
    expect(first.settled).toBe(false);
    h.scheduler.advance(1);
    await flush();
    expect(first.value.generationId).toBe(1);
    expect(second.value.generationId).toBe(1);
    expect(first.value.members).toHaveLength(2);
    expect(second.value.members).toEqual([]);
  });

  it('stops extending the initial delay once the rebalance timeout is used up', async () => {
    const h = newHarness({ groupInitialRebalanceDelayMs: 3_000 });
    const first = track(h.coordinator.joinGroup(joinParams({ rebalanceTimeoutMs: 4_000 })));
    h.scheduler.advance(2_000);
    h.coordinator.joinGroup(joinParams({ rebalanceTimeoutMs: 4_000, clientId: 'b' })); // remaining 1000 at t=3000
    h.scheduler.advance(1_500); // t = 3500: extension of min(3000, 1000) ends at 4000
    h.coordinator.joinGroup(joinParams({ rebalanceTimeoutMs: 4_000, clientId: 'c' }));
    h.scheduler.advance(500); // t = 4000: remaining is 0, no further extension
    await flush();
    expect(first.value.members).toHaveLength(3);
  });

  it('rebalances three members: same generation for all, metadata for the leader only, assignments for everyone', async () => {
    const h = newHarness();
    const a = track(h.coordinator.joinGroup(joinParams({ clientId: 'a', protocols: [{ name: 'range', metadata: subscription(['t1']) }] })));
    const b = track(h.coordinator.joinGroup(joinParams({ clientId: 'b', protocols: [{ name: 'range', metadata: subscription(['t2']) }] })));
    const c = track(h.coordinator.joinGroup(joinParams({ clientId: 'c', protocols: [{ name: 'range', metadata: subscription(['t1', 't3']) }] })));
    h.scheduler.advance(6_000);
    await flush();
    const results = [a.value, b.value, c.value];
    expect(new Set(results.map((result) => result.generationId))).toEqual(new Set([1]));
    expect(new Set(results.map((result) => result.leaderId)).size).toBe(1);
    const leader = results.find((result) => result.memberId === result.leaderId)!;
    expect(leader.memberId).toBe(a.value.memberId);
    expect(leader.members.map((member) => member.memberId)).toEqual(results.map((result) => result.memberId));
    expect(leader.members[1]!.metadata).toEqual(subscription(['t2']));
    for (const follower of results.filter((result) => result !== leader)) expect(follower.members).toEqual([]);
    expect(h.coordinator.group('group')!.subscribedTopics).toEqual(new Set(['t1', 't2', 't3']));

    const followerSyncB = track(sync(h, b.value));
    const followerSyncC = track(sync(h, c.value));
    await flush();
    expect(followerSyncB.settled).toBe(false);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.CompletingRebalance);
    const assignments = new Map([
      [a.value.memberId, assignment({ t1: [0] })],
      [b.value.memberId, assignment({ t2: [0] })],
      [c.value.memberId, assignment({ t1: [1], t3: [0] })],
    ]);
    const leaderSync = await sync(h, a.value, assignments);
    await flush();
    expect(leaderSync.assignment).toEqual(assignment({ t1: [0] }));
    expect(followerSyncB.value).toMatchObject({ errorCode: ErrorCode.NONE, protocolType: 'consumer', protocolName: 'range' });
    expect(followerSyncB.value.assignment).toEqual(assignment({ t2: [0] }));
    expect(followerSyncC.value.assignment).toEqual(assignment({ t1: [1], t3: [0] }));
    expect(h.coordinator.group('group')!.state).toBe(GroupState.Stable);
  });

  it('answers MEMBER_ID_REQUIRED with a member id first when a known member id is required, then admits that id', async () => {
    const h = newHarness();
    const first = await h.coordinator.joinGroup(joinParams({ requireKnownMemberId: true }));
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(first.memberId).toBe('client-m1');
    expect(h.coordinator.group('group')!.size).toBe(0);
    const second = track(h.coordinator.joinGroup(joinParams({ requireKnownMemberId: true, memberId: first.memberId })));
    h.scheduler.advance(3_000);
    await flush();
    expect(second.value.errorCode).toBe(ErrorCode.NONE);
    expect(second.value.memberId).toBe(first.memberId);
  });

  it('forgets a pending member that never re-joins after its session timeout, without holding up the rebalance', async () => {
    const h = newHarness();
    const [leader] = await stableGroup(h, 1);
    const pending = await h.coordinator.joinGroup(joinParams({ requireKnownMemberId: true, clientId: 'late' }));
    expect(pending.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const rejoin = track(h.coordinator.joinGroup(joinParams({ memberId: leader!.memberId, clientId: 'c0' })));
    expect(h.coordinator.group('group')!.state).toBe(GroupState.PreparingRebalance);
    h.scheduler.advance(9_999);
    await flush();
    expect(rejoin.settled).toBe(false);
    h.scheduler.advance(1);
    await flush();
    expect(rejoin.value.generationId).toBe(2);
    expect(rejoin.value.members).toHaveLength(1);
  });

  it('rejects session timeouts outside group.min.session.timeout.ms and group.max.session.timeout.ms', async () => {
    const h = newHarness();
    expect((await h.coordinator.joinGroup(joinParams({ sessionTimeoutMs: 5_999 }))).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect((await h.coordinator.joinGroup(joinParams({ sessionTimeoutMs: 1_800_001 }))).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect(h.coordinator.group('group')).toBeUndefined();
  });

  it('rejects an empty group id and a member id the group does not know', async () => {
    const h = newHarness();
    expect((await h.coordinator.joinGroup(joinParams({ groupId: '' }))).errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
    expect((await h.coordinator.joinGroup(joinParams({ memberId: 'ghost' }))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    await stableGroup(h, 1);
    const stale = await h.coordinator.joinGroup(joinParams({ memberId: 'ghost' }));
    expect(stale.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(stale.generationId).toBe(-1);
  });

  it('rejects a member whose protocol type or protocols do not fit the group with INCONSISTENT_GROUP_PROTOCOL', async () => {
    const h = newHarness();
    await stableGroup(h, 1);
    const otherType = await h.coordinator.joinGroup(joinParams({ protocolType: 'connect' }));
    expect(otherType.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    // kafkajs names its assignor RoundRobinAssigner: nothing in common with range/roundrobin members.
    const kafkajs = await h.coordinator.joinGroup(joinParams({ protocols: [{ name: 'RoundRobinAssigner', metadata: subscription(['topic']) }] }));
    expect(kafkajs.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await h.coordinator.joinGroup(joinParams({ groupId: 'fresh', protocols: [] }))).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await h.coordinator.joinGroup(joinParams({ groupId: 'fresh', protocolType: '' }))).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.Stable);
  });

  it('selects, among the protocols every member supports, the one most members prefer', async () => {
    const h = newHarness();
    const meta = subscription(['topic']);
    const a = track(h.coordinator.joinGroup(joinParams({ clientId: 'a', protocols: [{ name: 'range', metadata: meta }, { name: 'roundrobin', metadata: meta }, { name: 'sticky', metadata: meta }] })));
    h.coordinator.joinGroup(joinParams({ clientId: 'b', protocols: [{ name: 'sticky', metadata: meta }, { name: 'roundrobin', metadata: meta }, { name: 'range', metadata: meta }] }));
    h.coordinator.joinGroup(joinParams({ clientId: 'c', protocols: [{ name: 'roundrobin', metadata: meta }, { name: 'range', metadata: meta }] }));
    h.scheduler.advance(6_000);
    await flush();
    // sticky is not supported by c; votes: a -> range, b -> roundrobin, c -> roundrobin.
    expect(a.value.protocolName).toBe('roundrobin');
  });

  it('gives a follower re-joining a Stable group with unchanged metadata the current generation without a rebalance', async () => {
    const h = newHarness();
    const [, follower] = await stableGroup(h, 2);
    const rejoin = await h.coordinator.joinGroup(joinParams({ memberId: follower!.memberId, clientId: 'c1' }));
    expect(rejoin.errorCode).toBe(ErrorCode.NONE);
    expect(rejoin.generationId).toBe(1);
    expect(rejoin.members).toEqual([]);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.Stable);
  });

  it('rebalances when a member re-joins with a different subscription', async () => {
    const h = newHarness();
    const [leader, follower] = await stableGroup(h, 2);
    const rejoin = track(h.coordinator.joinGroup(joinParams({
      memberId: follower!.memberId,
      protocols: [{ name: 'range', metadata: subscription(['topic', 'another']) }],
    })));
    expect(h.coordinator.group('group')!.state).toBe(GroupState.PreparingRebalance);
    expect(heartbeat(h, leader!)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const leaderRejoin = await h.coordinator.joinGroup(joinParams({ memberId: leader!.memberId }));
    await flush();
    expect(leaderRejoin.generationId).toBe(2);
    expect(rejoin.value.generationId).toBe(2);
    expect(h.coordinator.group('group')!.subscribedTopics).toEqual(new Set(['topic', 'another']));
  });

  it('rebalances when the leader re-joins a Stable group, so it can reassign after metadata changes only it sees', async () => {
    const h = newHarness();
    const [leader, follower] = await stableGroup(h, 2);
    const rejoin = track(h.coordinator.joinGroup(joinParams({ memberId: leader!.memberId })));
    expect(h.coordinator.group('group')!.state).toBe(GroupState.PreparingRebalance);
    await h.coordinator.joinGroup(joinParams({ memberId: follower!.memberId }));
    await flush();
    expect(rejoin.value.generationId).toBe(2);
  });

  it('gives a member that re-sends JoinGroup with the same metadata during CompletingRebalance the same generation', async () => {
    const h = newHarness();
    const first = track(h.coordinator.joinGroup(joinParams()));
    h.scheduler.advance(3_000);
    await flush();
    const again = await h.coordinator.joinGroup(joinParams({ memberId: first.value.memberId }));
    expect(again).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1, leaderId: first.value.memberId });
    expect(again.members).toHaveLength(1);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.CompletingRebalance);
  });

  it('answers a JoinGroup superseded by a newer one from the same member with REBALANCE_IN_PROGRESS', async () => {
    const h = newHarness();
    const [leader, follower] = await stableGroup(h, 2);
    const firstAttempt = track(h.coordinator.joinGroup(joinParams({ memberId: leader!.memberId })));
    const secondAttempt = track(h.coordinator.joinGroup(joinParams({ memberId: leader!.memberId })));
    await flush();
    expect(firstAttempt.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    await h.coordinator.joinGroup(joinParams({ memberId: follower!.memberId }));
    await flush();
    expect(secondAttempt.value.generationId).toBe(2);
  });

  it('refuses members beyond group.max.size with GROUP_MAX_SIZE_REACHED', async () => {
    const h = newHarness({ groupMaxSize: 2 });
    await stableGroup(h, 2);
    const third = await h.coordinator.joinGroup(joinParams({ clientId: 'third' }));
    expect(third.errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
    expect(h.coordinator.group('group')!.size).toBe(2);
  });

  it('drops dynamic members that do not re-join within the rebalance timeout', async () => {
    const h = newHarness();
    const [leader, follower] = await stableGroup(h, 2);
    const rejoin = track(h.coordinator.joinGroup(joinParams({ memberId: leader!.memberId })));
    // The follower keeps heartbeating but never re-joins; the join phase lasts the largest
    // rebalance timeout (60 s).
    for (let t = 0; t < 60_000; t += 5_000) {
      expect(heartbeat(h, follower!)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
      h.scheduler.advance(5_000);
    }
    await flush();
    expect(rejoin.value.generationId).toBe(2);
    expect(rejoin.value.members.map((member) => member.memberId)).toEqual([leader!.memberId]);
    expect(heartbeat(h, { memberId: follower!.memberId, generationId: 2 })).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });
});

describe('SyncGroup', () => {
  it('rejects stale generations, unknown members and syncs during a rebalance', async () => {
    const h = newHarness();
    const [leader, follower] = await stableGroup(h, 2);
    expect((await sync(h, { ...follower!, generationId: 0 })).errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect((await sync(h, { ...follower!, memberId: 'ghost' })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await sync(h, follower!, new Map(), 'nobody')).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    void h.coordinator.joinGroup(joinParams({ memberId: leader!.memberId }));
    expect((await sync(h, follower!)).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('rejects a SyncGroup naming another protocol type or protocol with INCONSISTENT_GROUP_PROTOCOL', async () => {
    const h = newHarness();
    const [leader] = await stableGroup(h, 1);
    const base = { groupId: 'group', generationId: 1, memberId: leader!.memberId, groupInstanceId: null, assignments: new Map() };
    expect((await h.coordinator.syncGroup({ ...base, protocolType: 'connect', protocolName: null })).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await h.coordinator.syncGroup({ ...base, protocolType: 'consumer', protocolName: 'roundrobin' })).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await h.coordinator.syncGroup({ ...base, protocolType: 'consumer', protocolName: 'range' })).errorCode).toBe(ErrorCode.NONE);
  });

  it('gives members the leader left out an empty assignment', async () => {
    const h = newHarness();
    const a = track(h.coordinator.joinGroup(joinParams({ clientId: 'a' })));
    const b = track(h.coordinator.joinGroup(joinParams({ clientId: 'b' })));
    h.scheduler.advance(6_000);
    await flush();
    const followerSync = track(sync(h, b.value));
    await sync(h, a.value, new Map([[a.value.memberId, assignment({ topic: [0, 1] })]]));
    await flush();
    expect(followerSync.value.errorCode).toBe(ErrorCode.NONE);
    expect(followerSync.value.assignment).toHaveLength(0);
  });

  it('removes members that never sync within the rebalance timeout and rebalances the rest', async () => {
    const h = newHarness();
    const a = track(h.coordinator.joinGroup(joinParams({ clientId: 'a', rebalanceTimeoutMs: 30_000 })));
    const b = track(h.coordinator.joinGroup(joinParams({ clientId: 'b', rebalanceTimeoutMs: 30_000 })));
    h.scheduler.advance(6_000);
    await flush();
    await sync(h, a.value, new Map([[a.value.memberId, assignment({ topic: [0] })], [b.value.memberId, assignment({ topic: [1] })]]));
    expect(h.coordinator.group('group')!.state).toBe(GroupState.Stable);
    // b heartbeats but never sends SyncGroup.
    for (let t = 0; t < 30_000; t += 5_000) {
      expect(heartbeat(h, a.value)).toBe(ErrorCode.NONE);
      expect(heartbeat(h, b.value)).toBe(ErrorCode.NONE);
      h.scheduler.advance(5_000);
    }
    const group = h.coordinator.group('group')!;
    expect(group.has(b.value.memberId)).toBe(false);
    expect(group.state).toBe(GroupState.PreparingRebalance);
    expect(heartbeat(h, a.value)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('answers waiting SyncGroups with REBALANCE_IN_PROGRESS when a new member joins during CompletingRebalance', async () => {
    const h = newHarness();
    const a = track(h.coordinator.joinGroup(joinParams({ clientId: 'a' })));
    const b = track(h.coordinator.joinGroup(joinParams({ clientId: 'b' })));
    h.scheduler.advance(6_000);
    await flush();
    const followerSync = track(sync(h, b.value));
    h.coordinator.joinGroup(joinParams({ clientId: 'late' }));
    await flush();
    expect(followerSync.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.PreparingRebalance);
    expect((await sync(h, a.value)).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('answers every waiting member with the mapped error and rebalances when the assignment cannot be persisted', async () => {
    const h = newHarness();
    const a = track(h.coordinator.joinGroup(joinParams({ clientId: 'a' })));
    const b = track(h.coordinator.joinGroup(joinParams({ clientId: 'b' })));
    h.scheduler.advance(6_000);
    await flush();
    const followerSync = track(sync(h, b.value));
    h.offsetsTopic.failAppendsWith = ErrorCode.KAFKA_STORAGE_ERROR;
    const leaderSync = await sync(h, a.value, new Map([[a.value.memberId, assignment({ topic: [0] })]]));
    await flush();
    expect(leaderSync.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(followerSync.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.PreparingRebalance);
  });

  it('keeps the group CompletingRebalance until a deferred append of the assignment completes', async () => {
    const h = newHarness();
    const a = track(h.coordinator.joinGroup(joinParams()));
    h.scheduler.advance(3_000);
    await flush();
    h.offsetsTopic.deferAppends = true;
    const leaderSync = track(sync(h, a.value, new Map([[a.value.memberId, assignment({ topic: [0] })]])));
    await flush();
    expect(leaderSync.settled).toBe(false);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.CompletingRebalance);
    h.offsetsTopic.completePendingAppends();
    await flush();
    expect(leaderSync.value.errorCode).toBe(ErrorCode.NONE);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.Stable);
  });
});

describe('Heartbeat and session expiry', () => {
  it('keeps a heartbeating member alive well past its session timeout', async () => {
    const h = newHarness();
    const [leader] = await stableGroup(h, 1);
    for (let t = 0; t < 60_000; t += 5_000) {
      expect(heartbeat(h, leader!)).toBe(ErrorCode.NONE);
      h.scheduler.advance(5_000);
    }
    expect(h.coordinator.group('group')!.state).toBe(GroupState.Stable);
  });

  it('rejects stale generations, unknown members and unknown groups', async () => {
    const h = newHarness();
    const [leader] = await stableGroup(h, 1);
    expect(heartbeat(h, { ...leader!, generationId: 7 })).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(heartbeat(h, { ...leader!, memberId: 'ghost' })).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(heartbeat(h, leader!, 'nobody')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(heartbeat(h, leader!, '')).toBe(ErrorCode.INVALID_GROUP_ID);
  });

  it('removes a member whose session expires and rebalances the others without it', async () => {
    const h = newHarness();
    const [leader, follower] = await stableGroup(h, 2);
    h.scheduler.advance(5_000);
    expect(heartbeat(h, leader!)).toBe(ErrorCode.NONE);
    h.scheduler.advance(5_000); // the follower's 10 s session has passed without a heartbeat
    const group = h.coordinator.group('group')!;
    expect(group.has(follower!.memberId)).toBe(false);
    expect(group.state).toBe(GroupState.PreparingRebalance);
    expect(heartbeat(h, leader!)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoin = await h.coordinator.joinGroup(joinParams({ memberId: leader!.memberId }));
    expect(rejoin.generationId).toBe(2);
    expect(rejoin.members.map((member) => member.memberId)).toEqual([leader!.memberId]);
  });

  it('leaves the group Empty at a new generation when its last member expires', async () => {
    const h = newHarness();
    await stableGroup(h, 1);
    h.scheduler.advance(10_000);
    const group = h.coordinator.group('group')!;
    expect(group.state).toBe(GroupState.Empty);
    expect(group.generationId).toBe(2);
    expect(group.protocolName).toBeNull();
  });

  it('answers a new member whose JoinGroup waited too long with UNKNOWN_MEMBER_ID', async () => {
    const h = newHarness();
    const [leader] = await stableGroup(h, 1);
    // A new member with a 10 minute rebalance timeout joins; the leader heartbeats but never
    // re-joins, so the join phase outlasts the new member's 5 minute join timeout.
    const newcomer = track(h.coordinator.joinGroup(joinParams({ clientId: 'new', rebalanceTimeoutMs: 600_000 })));
    for (let t = 0; t < 300_000; t += 5_000) {
      heartbeat(h, leader!);
      h.scheduler.advance(5_000);
    }
    await flush();
    expect(newcomer.value.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(h.coordinator.group('group')!.size).toBe(1);
  });
});

describe('LeaveGroup', () => {
  it('rebalances the remaining members when one leaves', async () => {
    const h = newHarness();
    const [leader, follower] = await stableGroup(h, 2);
    const result = h.coordinator.leaveGroup('group', [{ memberId: leader!.memberId, groupInstanceId: null, reason: 'closing' }]);
    expect(result).toEqual({ errorCode: ErrorCode.NONE, members: [{ memberId: leader!.memberId, groupInstanceId: null, errorCode: ErrorCode.NONE }] });
    expect(heartbeat(h, follower!)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoin = await h.coordinator.joinGroup(joinParams({ memberId: follower!.memberId }));
    expect(rejoin.generationId).toBe(2);
    expect(rejoin.leaderId).toBe(follower!.memberId);
  });

  it('makes the group Empty when the last member leaves', async () => {
    const h = newHarness();
    const [leader] = await stableGroup(h, 1);
    h.coordinator.leaveGroup('group', [{ memberId: leader!.memberId, groupInstanceId: null, reason: null }]);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.Empty);
  });

  it('reports unknown members per member and a missing group as unknown members', async () => {
    const h = newHarness();
    await stableGroup(h, 1);
    const result = h.coordinator.leaveGroup('group', [{ memberId: 'ghost', groupInstanceId: null, reason: null }]);
    expect(result.members[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(h.coordinator.leaveGroup('nobody', [{ memberId: 'x', groupInstanceId: null, reason: null }]).members[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });
});

describe('static membership', () => {
  async function staticGroup(h: Harness): Promise<{ a: JoinGroupResult; b: JoinGroupResult }> {
    const a = track(h.coordinator.joinGroup(joinParams({ clientId: 'a', groupInstanceId: 'instance-a' })));
    const b = track(h.coordinator.joinGroup(joinParams({ clientId: 'b', groupInstanceId: 'instance-b' })));
    h.scheduler.advance(6_000);
    await flush();
    const followerSync = sync(h, b.value);
    await sync(h, a.value, new Map([[a.value.memberId, assignment({ topic: [0] })], [b.value.memberId, assignment({ topic: [1] })]]));
    await followerSync;
    return { a: a.value, b: b.value };
  }

  it('gives static members ids derived from group.instance.id', async () => {
    const h = newHarness();
    const { a, b } = await staticGroup(h);
    expect(a.memberId).toBe('instance-a-m1');
    expect(b.memberId).toBe('instance-b-m2');
  });

  it('lets a restarted static member take over its slot in a Stable group without a rebalance', async () => {
    const h = newHarness();
    const { a, b } = await staticGroup(h);
    const rejoin = await h.coordinator.joinGroup(joinParams({ clientId: 'b', groupInstanceId: 'instance-b' }));
    expect(rejoin.errorCode).toBe(ErrorCode.NONE);
    expect(rejoin.memberId).not.toBe(b.memberId);
    expect(rejoin.generationId).toBe(1);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.Stable);
    // The restarted member gets its old assignment back.
    const restored = await sync(h, rejoin);
    expect(restored.assignment).toEqual(assignment({ topic: [1] }));
    // Its previous incarnation is fenced.
    expect(heartbeat(h, b, 'group', 'instance-b')).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(heartbeat(h, rejoin, 'group', 'instance-b')).toBe(ErrorCode.NONE);
    expect(heartbeat(h, a, 'group', 'instance-a')).toBe(ErrorCode.NONE);
  });

  it('reverts a static member takeover that cannot be persisted and answers it with the mapped error', async () => {
    const h = newHarness();
    const { b } = await staticGroup(h);
    h.offsetsTopic.failAppendsWith = ErrorCode.KAFKA_STORAGE_ERROR;
    const rejoin = await h.coordinator.joinGroup(joinParams({ clientId: 'b', groupInstanceId: 'instance-b' }));
    expect(rejoin.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(rejoin.memberId).toBe('');
    expect(h.coordinator.group('group')!.currentStaticMemberId('instance-b')).toBe(b.memberId);
    expect(heartbeat(h, b, 'group', 'instance-b')).toBe(ErrorCode.NONE);
  });

  it('returns the old leader id to a restarted static leader before JoinGroup v9 so it acts as a follower', async () => {
    const h = newHarness();
    const { a } = await staticGroup(h);
    const rejoin = await h.coordinator.joinGroup(joinParams({ clientId: 'a', groupInstanceId: 'instance-a' }));
    expect(rejoin.leaderId).toBe(a.memberId);
    expect(rejoin.members).toEqual([]);
    expect(h.coordinator.group('group')!.leaderId).toBe(rejoin.memberId);
  });

  it('tells a restarted static leader on JoinGroup v9+ to skip the assignment', async () => {
    const h = newHarness();
    await staticGroup(h);
    const rejoin = await h.coordinator.joinGroup(joinParams({ clientId: 'a', groupInstanceId: 'instance-a', supportSkippingAssignment: true }));
    expect(rejoin.leaderId).toBe(rejoin.memberId);
    expect(rejoin.skipAssignment).toBe(true);
    expect(rejoin.members).toHaveLength(2);
  });

  it('answers a JoinGroup still waiting under a static member old id with FENCED_INSTANCE_ID when the member restarts', async () => {
    const h = newHarness();
    const { a, b } = await staticGroup(h);
    const changed = [{ name: 'range', metadata: subscription(['topic', 'more']) }];
    const oldB = track(h.coordinator.joinGroup(joinParams({ memberId: b.memberId, groupInstanceId: 'instance-b', clientId: 'b', protocols: changed })));
    await flush();
    expect(oldB.settled).toBe(false);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.PreparingRebalance);
    const restartedB = track(h.coordinator.joinGroup(joinParams({ groupInstanceId: 'instance-b', clientId: 'b', protocols: changed })));
    await flush();
    expect(oldB.value.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(restartedB.settled).toBe(false);
    await h.coordinator.joinGroup(joinParams({ memberId: a.memberId, groupInstanceId: 'instance-a', clientId: 'a' }));
    await flush();
    expect(restartedB.value.errorCode).toBe(ErrorCode.NONE);
    expect(restartedB.value.generationId).toBe(2);
    expect(restartedB.value.memberId).not.toBe(b.memberId);
  });

  it('fences SyncGroup and Heartbeat from the old incarnation of a restarted static member', async () => {
    const h = newHarness();
    const { a, b } = await staticGroup(h);
    const changed = [{ name: 'range', metadata: subscription(['topic', 'x']) }];
    void h.coordinator.joinGroup(joinParams({ memberId: a.memberId, groupInstanceId: 'instance-a', clientId: 'a', protocols: changed }));
    // The group waits for b; b restarts instead of re-joining with its old id.
    const restartedB = track(h.coordinator.joinGroup(joinParams({ groupInstanceId: 'instance-b', clientId: 'b' })));
    await flush();
    expect(restartedB.value.errorCode).toBe(ErrorCode.NONE);
    expect(restartedB.value.generationId).toBe(2);
    const zombie = await h.coordinator.syncGroup({ groupId: 'group', generationId: 2, memberId: b.memberId, groupInstanceId: 'instance-b', protocolType: null, protocolName: null, assignments: new Map() });
    expect(zombie.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(heartbeat(h, { memberId: b.memberId, generationId: 2 }, 'group', 'instance-b')).toBe(ErrorCode.FENCED_INSTANCE_ID);
  });

  it('rebalances when a restarted static member would change the selected protocol', async () => {
    const h = newHarness();
    await staticGroup(h);
    const meta = subscription(['topic']);
    // b now supports only roundrobin: range is no longer common, so selection must change.
    const rejoin = await h.coordinator.joinGroup(joinParams({ groupInstanceId: 'instance-b', clientId: 'b', protocols: [{ name: 'roundrobin', metadata: meta }] }));
    expect(rejoin.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const both = await h.coordinator.joinGroup(joinParams({ groupInstanceId: 'instance-b', clientId: 'b', protocols: [{ name: 'roundrobin', metadata: meta }, { name: 'range', metadata: meta }] }));
    // roundrobin preferred by b, range by a: a tie broken by join order keeps range, so no rebalance.
    expect(both.generationId).toBe(1);
    expect(h.coordinator.group('group')!.state).toBe(GroupState.Stable);
  });

  it('keeps static members that do not re-join in the group across a rebalance', async () => {
    const h = newHarness();
    const { a, b } = await staticGroup(h);
    const rejoin = track(h.coordinator.joinGroup(joinParams({ memberId: a.memberId, groupInstanceId: 'instance-a', clientId: 'a' })));
    h.scheduler.advance(5_000);
    heartbeat(h, b, 'group', 'instance-b');
    h.scheduler.advance(5_000);
    heartbeat(h, b, 'group', 'instance-b');
    // Rebalance timeout (60 s) passes while b keeps heartbeating without re-joining.
    for (let t = 0; t < 50_000; t += 5_000) {
      h.scheduler.advance(5_000);
      heartbeat(h, b, 'group', 'instance-b');
    }
    await flush();
    expect(rejoin.value.generationId).toBe(2);
    expect(rejoin.value.members.map((member) => member.memberId).sort()).toEqual([a.memberId, b.memberId].sort());
  });

  it('removes a static member by group.instance.id alone (administrative LeaveGroup) and fences wrong member ids', async () => {
    const h = newHarness();
    const { a, b } = await staticGroup(h);
    const fenced = h.coordinator.leaveGroup('group', [{ memberId: 'wrong', groupInstanceId: 'instance-a', reason: null }]);
    expect(fenced.members[0]!.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const removed = h.coordinator.leaveGroup('group', [
      { memberId: '', groupInstanceId: 'instance-b', reason: 'scale down' },
      { memberId: '', groupInstanceId: 'instance-zzz', reason: null },
    ]);
    expect(removed.members.map((member) => member.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID]);
    const group = h.coordinator.group('group')!;
    expect(group.has(b.memberId)).toBe(false);
    expect(group.has(a.memberId)).toBe(true);
    expect(group.state).toBe(GroupState.PreparingRebalance);
  });
});

describe('topic partition changes', () => {
  it('rebalance Stable consumer groups subscribed to the changed topic and no others', async () => {
    const h = newHarness();
    await stableGroup(h, 1, 'subscribed');
    const other = track(h.coordinator.joinGroup(joinParams({ groupId: 'other', protocols: [{ name: 'range', metadata: subscription(['elsewhere']) }] })));
    h.scheduler.advance(3_000);
    await flush();
    await sync(h, other.value, new Map([[other.value.memberId, assignment({ elsewhere: [0] })]]), 'other');
    expect(h.coordinator.onTopicPartitionsChanged(['topic'])).toEqual(['subscribed']);
    expect(h.coordinator.group('subscribed')!.state).toBe(GroupState.PreparingRebalance);
    expect(h.coordinator.group('other')!.state).toBe(GroupState.Stable);
  });
});
