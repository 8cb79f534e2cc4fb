import { describe, expect, it } from 'vitest';
import {
  groupMetadataKey,
  offsetCommitKey,
  offsetCommitValue,
  readCoordinatorRecordKey,
  readGroupMetadataValue,
  readOffsetCommitValue,
} from '../../host/coordinator/coordinator-records.js';
import type { JoinGroupResult } from '../../host/coordinator/coordinator-types.js';
import type { GroupCoordinatorConfig } from '../../host/coordinator/group-coordinator-config.js';
import { GroupState } from '../../host/coordinator/group-state.js';
import { InMemoryOffsetsTopic } from '../../host/coordinator/in-memory-offsets-topic.js';
import { javaStringHashCode, partitionForGroup } from '../../host/coordinator/offsets-topic.js';
import { ManualScheduler } from '../../host/coordinator/scheduler.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { readBatch } from '../../host/record/records.js';
import { assignment, flush, joinParams, newHarness, subscription, track, type Harness } from './harness.js';

async function formGroup(h: Harness, groupId: string, clients: string[]): Promise<JoinGroupResult[]> {
  const joins = clients.map((clientId, i) =>
    track(h.coordinator.joinGroup(joinParams({ groupId, clientId, groupInstanceId: i === 0 ? `${clientId}-instance` : null, protocols: [{ name: 'range', metadata: subscription([`topic-${i}`]) }] }))),
  );
  h.scheduler.advance(6_000);
  await flush();
  const results = joins.map((join) => join.value);
  const leader = results[0]!;
  const syncs = results.map((result, i) =>
    h.coordinator.syncGroup({
      groupId,
      generationId: result.generationId,
      memberId: result.memberId,
      groupInstanceId: i === 0 ? `${clients[0]}-instance` : null,
      protocolType: null,
      protocolName: null,
      assignments: i === 0 ? new Map(results.map((r, j) => [r.memberId, assignment({ [`topic-${j}`]: [j] })] as const)) : new Map(),
    }),
  );
  for (const sync of await Promise.all(syncs)) expect(sync.errorCode).toBe(ErrorCode.NONE);
  expect(leader.memberId).toBe(leader.leaderId);
  return results;
}

/** A second coordinator over the same records, as after a broker restart. */
function restart(h: Harness, config: Partial<GroupCoordinatorConfig> = {}): Harness {
  h.coordinator.shutdown();
  return newHarness(config, h.offsetsTopic, new ManualScheduler(h.scheduler.nowMs()));
}

describe('__consumer_offsets partitioning', () => {
  it('hashes group ids like Java String.hashCode', () => {
    expect(javaStringHashCode('')).toBe(0);
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('console-consumer-12345')).toBe(Number(BigInt.asIntN(32, [...'console-consumer-12345'].reduce((h, c) => h * 31n + BigInt(c.charCodeAt(0)), 0n))));
    expect(javaStringHashCode('polygenelubricants')).toBe(-2147483648);
  });

  it('maps a group to abs(hashCode) % offsets.topic.num.partitions, with Integer.MIN_VALUE going to 0', () => {
    expect(partitionForGroup('hello', 50)).toBe(99162322 % 50);
    expect(partitionForGroup('polygenelubricants', 50)).toBe(0);
    const negative = 'my-group';
    expect(javaStringHashCode(negative)).toBe(-1906497762);
    expect(partitionForGroup(negative, 50)).toBe(Math.abs(javaStringHashCode(negative)) % 50);
  });
});

describe('__consumer_offsets records', () => {
  it('use Kafka layouts: OffsetCommitKey v1 and OffsetCommitValue v3 (v1 with an expire timestamp)', () => {
    const key = offsetCommitKey('g', 'topic', 3);
    expect([...key]).toEqual([0, 1, 0, 1, 0x67, 0, 5, ...Buffer.from('topic'), 0, 0, 0, 3]);
    const value = offsetCommitValue({ offset: 42, leaderEpoch: 7, metadata: 'm', commitTimestampMs: 1000, expireTimestampMs: null });
    expect([...value]).toEqual([0, 3, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0, 7, 0, 1, 0x6d, 0, 0, 0, 0, 0, 0, 0x03, 0xe8]);
    const withExpiry = offsetCommitValue({ offset: 1, leaderEpoch: 7, metadata: '', commitTimestampMs: 1000, expireTimestampMs: 2000 });
    expect(withExpiry.readInt16BE(0)).toBe(1);
    expect(readOffsetCommitValue(withExpiry)).toEqual({ offset: 1, leaderEpoch: -1, metadata: '', commitTimestampMs: 1000, expireTimestampMs: 2000 });
    expect(readCoordinatorRecordKey(key)).toEqual({ type: 'offsetCommit', group: 'g', topic: 'topic', partition: 3 });
  });

  it('use Kafka layouts: GroupMetadataKey v2 and GroupMetadataValue v3', async () => {
    const h = newHarness();
    const [leader, follower] = await formGroup(h, 'layout', ['a', 'b']);
    const partition = partitionForGroup('layout', 50);
    expect(h.offsetsTopic.partitions()).toEqual([partition]);
    const batches = h.offsetsTopic.batches(partition);
    const { header, records } = readBatch(batches[batches.length - 1]!);
    expect(header).toMatchObject({ magic: 2, compression: 0, timestampType: 0, producerId: -1, isTransactional: false });
    expect(records).toHaveLength(1);
    expect([...records[0]!.key!]).toEqual([...groupMetadataKey('layout')]);
    expect([...records[0]!.key!]).toEqual([0, 2, 0, 6, ...Buffer.from('layout')]);
    expect(records[0]!.value!.readInt16BE(0)).toBe(3);
    const value = readGroupMetadataValue(records[0]!.value!)!;
    expect(value).toMatchObject({ protocolType: 'consumer', generation: 1, protocol: 'range', leader: leader!.memberId });
    expect(value.currentStateTimestamp).toBe(h.scheduler.nowMs());
    expect(value.members.map((member) => [member.memberId, member.groupInstanceId, member.clientId, member.sessionTimeout, member.rebalanceTimeout])).toEqual([
      [leader!.memberId, 'a-instance', 'a', 10_000, 60_000],
      [follower!.memberId, null, 'b', 10_000, 60_000],
    ]);
    expect(value.members[1]!.subscription).toEqual(subscription(['topic-1']));
    expect(value.members[1]!.assignment).toEqual(assignment({ 'topic-1': [1] }));
  });
});

describe('persistence across restarts', () => {
  it('restores committed offsets and a Stable group (generation, leader, members, assignments) from the records', async () => {
    const h = newHarness();
    const [leader, follower] = await formGroup(h, 'group', ['a', 'b']);
    const commitTimestampMs = h.scheduler.nowMs();
    await h.coordinator.commitOffsets({
      groupId: 'group',
      memberId: leader!.memberId,
      groupInstanceId: 'a-instance',
      generationId: 1,
      offsets: [{ topic: 'topic-0', partition: 0, offsetAndMetadata: { offset: 100, leaderEpoch: 3, metadata: 'checkpoint', commitTimestampMs, expireTimestampMs: null } }],
    });
    await h.coordinator.commitOffsets({
      groupId: 'simple',
      memberId: '',
      groupInstanceId: null,
      generationId: -1,
      offsets: [{ topic: 't', partition: 9, offsetAndMetadata: { offset: 5, leaderEpoch: -1, metadata: '', commitTimestampMs, expireTimestampMs: null } }],
    });

    const after = restart(h);
    const group = after.coordinator.group('group')!;
    expect(group.state).toBe(GroupState.Stable);
    expect(group.generationId).toBe(1);
    expect(group.leaderId).toBe(leader!.memberId);
    expect(group.protocolName).toBe('range');
    expect(group.currentStaticMemberId('a-instance')).toBe(leader!.memberId);
    expect(group.get(follower!.memberId).assignment).toEqual(assignment({ 'topic-1': [1] }));
    expect(after.coordinator.fetchOffsets('group', true, null).partitions).toEqual([
      { topic: 'topic-0', partition: 0, offset: 100, leaderEpoch: 3, metadata: 'checkpoint', errorCode: ErrorCode.NONE },
    ]);
    expect(after.coordinator.fetchOffsets('simple', false, null).partitions[0]!.offset).toBe(5);
    expect(after.coordinator.group('simple')!.state).toBe(GroupState.Empty);

    // Members carry on with their generation: heartbeat and re-sync work after the restart.
    expect(after.coordinator.heartbeat({ groupId: 'group', generationId: 1, memberId: follower!.memberId, groupInstanceId: null })).toBe(ErrorCode.NONE);
    const resync = await after.coordinator.syncGroup({ groupId: 'group', generationId: 1, memberId: follower!.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: new Map() });
    expect(resync.assignment).toEqual(assignment({ 'topic-1': [1] }));
  });

  it('expires the sessions of restored members that never come back', async () => {
    const h = newHarness();
    await formGroup(h, 'group', ['a', 'b']);
    const after = restart(h);
    after.scheduler.advance(10_000);
    const group = after.coordinator.group('group')!;
    expect(group.size).toBe(0);
    expect(group.state).toBe(GroupState.Empty);
    expect(group.generationId).toBe(2);
    // And the Empty generation was written too: a second restart sees it.
    const again = restart(after);
    expect(again.coordinator.group('group')!.state).toBe(GroupState.Empty);
    expect(again.coordinator.group('group')!.generationId).toBe(2);
  });

  it('applies tombstones: deleted groups, deleted offsets and expired offsets stay gone after a restart', async () => {
    const h = newHarness({ offsetsRetentionMinutes: 1 });
    const commit = (groupId: string, topic: string, partition: number) => h.coordinator.commitOffsets({
      groupId,
      memberId: '',
      groupInstanceId: null,
      generationId: -1,
      offsets: [{ topic, partition, offsetAndMetadata: { offset: 1, leaderEpoch: -1, metadata: '', commitTimestampMs: h.scheduler.nowMs(), expireTimestampMs: null } }],
    });
    const [member] = await formGroup(h, 'deleted', ['a']);
    h.coordinator.leaveGroup('deleted', [{ memberId: member!.memberId, groupInstanceId: 'a-instance', reason: null }]);
    expect(h.coordinator.group('deleted')!.state).toBe(GroupState.Empty);
    await commit('deleted', 't', 0);
    expect(h.coordinator.deleteGroups(['deleted'])[0]!.errorCode).toBe(ErrorCode.NONE);
    await commit('offsets', 't', 0);
    await commit('offsets', 't', 1);
    expect(h.coordinator.deleteOffsets('offsets', [{ topic: 't', partition: 0 }]).partitions[0]!.errorCode).toBe(ErrorCode.NONE);

    const partitionOfDeleted = partitionForGroup('deleted', 50);
    const lastBatch = h.offsetsTopic.batches(partitionOfDeleted).at(-1)!;
    const tombstones = readBatch(lastBatch).records;
    expect(tombstones.map((record) => readCoordinatorRecordKey(record.key!))).toEqual([
      { type: 'offsetCommit', group: 'deleted', topic: 't', partition: 0 },
      { type: 'groupMetadata', group: 'deleted' },
    ]);
    expect(tombstones.every((record) => record.value === null)).toBe(true);

    const after = restart(h, { offsetsRetentionMinutes: 1 });
    expect(after.coordinator.group('deleted')).toBeUndefined();
    expect(after.coordinator.describeGroup('deleted').state).toBe('Dead');
    expect(after.coordinator.fetchOffsets('offsets', false, null).partitions.map((p) => p.partition)).toEqual([1]);

    // Offset expiry writes tombstones too.
    after.scheduler.advance(11 * 60_000);
    expect(after.coordinator.group('offsets')).toBeUndefined();
    const third = restart(after);
    expect(third.coordinator.group('offsets')).toBeUndefined();
    expect(third.coordinator.fetchOffsets('offsets', false, null).partitions).toEqual([]);
  });

  it('keeps the newest record per key and skips records of newer coordinators and garbage', () => {
    const offsetsTopic = new InMemoryOffsetsTopic();
    const h = newHarness({}, offsetsTopic);
    const partition = h.coordinator.partitionFor('g');
    const value = (offset: number) => offsetCommitValue({ offset, leaderEpoch: -1, metadata: '', commitTimestampMs: 0, expireTimestampMs: null });
    const summary = h.coordinator.loadPartition(partition, [
      { key: offsetCommitKey('g', 't', 0), value: value(1) },
      { key: offsetCommitKey('g', 't', 0), value: value(2) },
      { key: offsetCommitKey('g', 't', 1), value: value(3) },
      { key: offsetCommitKey('g', 't', 1), value: null },
      { key: Buffer.from([0, 3, 0, 1, 0x67]), value: Buffer.from([0, 0]) }, // ConsumerGroupMetadataKey (KIP-848)
      { key: Buffer.from([0, 1, 0]), value: value(9) }, // truncated key
      { key: null, value: value(9) },
    ]);
    expect(summary).toMatchObject({ partition, groupsLoaded: 1, offsetsLoaded: 1, recordsSkipped: 3 });
    expect(h.coordinator.fetchOffsets('g', false, null).partitions.map((p) => [p.partition, p.offset])).toEqual([[0, 2]]);
  });

  it('survives a restart while a rebalance was in progress: the last persisted generation comes back', async () => {
    const h = newHarness();
    const [leader] = await formGroup(h, 'group', ['a', 'b']);
    void h.coordinator.joinGroup(joinParams({ memberId: leader!.memberId, groupInstanceId: 'a-instance', clientId: 'a' }));
    expect(h.coordinator.group('group')!.state).toBe(GroupState.PreparingRebalance);
    const after = restart(h);
    expect(after.coordinator.group('group')!.state).toBe(GroupState.Stable);
    expect(after.coordinator.group('group')!.generationId).toBe(1);
  });
});
