/**
 * The coordinator's state is its records: a GroupCoordinator on another broker that loads the
 * same `__consumer_offsets` records answers OffsetFetch and DescribeGroups byte for byte as the
 * one that wrote them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupCoordinator, type RequestContext } from '../../host/coordinator/group-coordinator.js';
import { InMemoryOffsetsTopic } from '../../host/coordinator/in-memory-offsets-topic.js';
import { SeededRandom } from '../../host/io/random.js';
import { ManualTime } from '../../host/io/time.js';
import { encodeDescribeGroupsResponse } from '../../host/protocol/generated/describe-groups.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import type { JoinGroupResponse } from '../../host/protocol/generated/join-group.js';
import { encodeOffsetFetchResponse } from '../../host/protocol/generated/offset-fetch.js';
import { Writer } from '../../host/protocol/writer.js';
import { assignment, flush, subscription, track } from './harness.js';

const context = (apiVersion: number, clientId = 'client'): RequestContext => ({ apiVersion, clientId, clientHost: '/127.0.0.1' });

interface Broker {
  time: ManualTime;
  coordinator: GroupCoordinator;
}

function broker(offsetsTopic: InMemoryOffsetsTopic, seed: number, startMs?: number): Broker {
  const time = new ManualTime(startMs);
  const coordinator = new GroupCoordinator({ time, offsetsTopic, random: new SeededRandom(seed), config: { offsetsTopicNumPartitions: 5 } });
  coordinator.startup();
  coordinator.loadAllPartitions();
  return { time, coordinator };
}

function encoded<T>(encode: (w: Writer, version: number, message: T) => void, version: number, message: T): Buffer {
  const w = new Writer();
  encode(w, version, message);
  return w.toBuffer();
}

/** OffsetFetch v1 (named partitions) and v5 (every partition), DescribeGroups v0 and v4, as bytes. */
async function answers(coordinator: GroupCoordinator, groups: string[]): Promise<Buffer[]> {
  const result: Buffer[] = [];
  for (const groupId of groups) {
    const named = await coordinator.offsetFetch({ groupId, topics: [{ name: 'a', partitionIndexes: [0, 1, 2, 3] }, { name: 'b', partitionIndexes: [0] }] }, context(1));
    result.push(encoded(encodeOffsetFetchResponse, 1, named));
    const all = await coordinator.offsetFetch({ groupId, topics: null }, context(5));
    result.push(encoded(encodeOffsetFetchResponse, 5, all));
  }
  for (const version of [0, 4]) {
    const described = await coordinator.describeGroups({ groups, includeAuthorizedOperations: true }, context(version));
    result.push(encoded(encodeDescribeGroupsResponse, version, described));
  }
  return result;
}

/** Members join (the first JoinGroup of an empty group waits group.initial.rebalance.delay.ms), the leader assigns. */
async function formGroup(b: Broker, groupId: string, clients: { clientId: string; instance: string | null; topics: string[] }[]): Promise<JoinGroupResponse[]> {
  const join = (client: (typeof clients)[number], memberId: string) => b.coordinator.joinGroup({
    groupId, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 30_000, memberId, groupInstanceId: client.instance,
    protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(client.topics) }],
  }, context(5, client.clientId));
  // JoinGroup v5 without group.instance.id: MEMBER_ID_REQUIRED first, then join with that id (KIP-394).
  const joins = await Promise.all(clients.map(async (client) => {
    if (client.instance !== null) return track(join(client, ''));
    const first = await join(client, '');
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    return track(join(client, first.memberId));
  }));
  // New members extend the initial delay (KIP-134) up to the rebalance timeout.
  for (let i = 0; i < 10 && !joins.every((j) => j.settled); i++) {
    b.time.advance(3_000);
    await flush();
  }
  const responses = joins.map((join) => join.value);
  const leader = responses.find((response) => response.leader === response.memberId)!;
  const syncs = responses.map((response) => b.coordinator.syncGroup({
    groupId, generationId: response.generationId, memberId: response.memberId, groupInstanceId: null,
    assignments: response === leader ? leader.members.map((member, i) => ({ memberId: member.memberId, assignment: assignment({ a: [i] }) })) : [],
  }, context(3)));
  for (const sync of await Promise.all(syncs)) expect(sync.errorCode).toBe(ErrorCode.NONE);
  return responses;
}

describe('a coordinator that loads the records of another', () => {
  it('answers OffsetFetch and DescribeGroups identically for stable, simple, emptied and deleted groups', async () => {
    const offsetsTopic = new InMemoryOffsetsTopic();
    const first = broker(offsetsTopic, 1);
    const members = await formGroup(first, 'orders', [
      { clientId: 'c1', instance: null, topics: ['a'] },
      { clientId: 'c2', instance: 'static-2', topics: ['a', 'b'] },
    ]);
    for (const [i, member] of members.entries()) {
      const committed = await first.coordinator.offsetCommit({
        groupId: 'orders', generationIdOrMemberEpoch: member.generationId, memberId: member.memberId, groupInstanceId: null, retentionTimeMs: -1,
        topics: [{ name: 'a', partitions: [{ partitionIndex: i, committedOffset: 10 + i, committedLeaderEpoch: 3, commitTimestamp: -1, committedMetadata: `m${i}` }] }],
      }, context(7));
      expect(committed.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    }
    // A simple consumer (OffsetCommit v2 with a retention time), a group that rebalanced and
    // emptied, and a group deleted with its offsets.
    await first.coordinator.offsetCommit({
      groupId: 'simple', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: 86_400_000,
      topics: [{ name: 'a', partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, committedOffset: 5, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null })) }],
    }, context(2));
    const [emptied] = await formGroup(first, 'emptied', [{ clientId: 'c3', instance: null, topics: ['b'] }]);
    await first.coordinator.offsetCommit({
      groupId: 'emptied', generationIdOrMemberEpoch: emptied!.generationId, memberId: emptied!.memberId, groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 'b', partitions: [{ partitionIndex: 0, committedOffset: 7, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    }, context(5));
    await first.coordinator.leaveGroup({ groupId: 'emptied', memberId: emptied!.memberId, members: [] }, context(1));
    await formGroup(first, 'deleted', [{ clientId: 'c4', instance: null, topics: ['a'] }]);
    const deletedMember = first.coordinator.classic.group('deleted')!.leaderId!;
    await first.coordinator.leaveGroup({ groupId: 'deleted', memberId: deletedMember, members: [] }, context(1));
    expect((await first.coordinator.deleteGroups({ groupsNames: ['deleted'] }, context(1))).results[0]!.errorCode).toBe(ErrorCode.NONE);

    const groups = ['orders', 'simple', 'emptied', 'deleted', 'unknown'];
    const second = broker(offsetsTopic, 2, first.time.nowMs());
    expect(await answers(second.coordinator, groups)).toEqual(await answers(first.coordinator, groups));
    // ... and the answers are the interesting ones.
    const described = await second.coordinator.describeGroups({ groups, includeAuthorizedOperations: false }, context(4));
    expect(described.groups.map((group) => [group.groupState, group.members.length])).toEqual([['Stable', 2], ['Empty', 0], ['Empty', 0], ['Dead', 0], ['Dead', 0]]);
    const fetched = await second.coordinator.offsetFetch({ groupId: 'orders', topics: null }, context(5));
    expect(fetched.topics).toEqual([{ name: 'a', partitions: [0, 1].map((i) => ({ partitionIndex: i, committedOffset: 10 + i, committedLeaderEpoch: 3, metadata: `m${i}`, errorCode: ErrorCode.NONE })) }]);
  });

  it('answers identically after any sequence of commits, deletions and expiries by simple consumers', async () => {
    type Op =
      | { kind: 'commit'; group: number; topic: string; partition: number; offset: number; retention: boolean }
      | { kind: 'deleteOffsets'; group: number; topic: string; partition: number }
      | { kind: 'deleteGroup'; group: number }
      | { kind: 'advance'; ms: number };
    const topic = fc.constantFrom('a', 'b');
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('commit' as const), group: fc.nat(3), topic, partition: fc.nat(3), offset: fc.nat(1_000), retention: fc.boolean() }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteOffsets' as const), group: fc.nat(3), topic, partition: fc.nat(3) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteGroup' as const), group: fc.nat(3) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(60_000, 3_600_000, 86_400_000) }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        const offsetsTopic = new InMemoryOffsetsTopic();
        const first = broker(offsetsTopic, 1);
        for (const o of ops) {
          const groupId = `g${'group' in o ? o.group : 0}`;
          if (o.kind === 'commit') {
            await first.coordinator.offsetCommit({
              groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: o.retention ? 7_200_000 : -1,
              topics: [{ name: o.topic, partitions: [{ partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
            }, context(2));
          } else if (o.kind === 'deleteOffsets') {
            await first.coordinator.offsetDelete({ groupId, topics: [{ name: o.topic, partitions: [{ partitionIndex: o.partition }] }] }, context(0));
          } else if (o.kind === 'deleteGroup') {
            await first.coordinator.deleteGroups({ groupsNames: [groupId] }, context(1));
          } else {
            // Runs the periodic expiry (offsets.retention.check.interval.ms is 10 minutes).
            first.time.advance(o.ms);
          }
        }
        const groups = ['g0', 'g1', 'g2', 'g3'];
        const second = broker(offsetsTopic, 2, first.time.nowMs());
        expect(await answers(second.coordinator, groups)).toEqual(await answers(first.coordinator, groups));
        first.coordinator.shutdown();
        second.coordinator.shutdown();
      }),
      { numRuns: 60 },
    );
  });
});
