/**
 * Partition reassignment on the QuorumController (KIP-455 as Kafka's KRaft controller does it):
 * AlterPartitionReassignments writes the union of old and new replicas with adding/removing,
 * the leader's AlterPartition that brings every target replica into the ISR completes it (a
 * removed leader is replaced from the target), a cancel reverts, ListPartitionReassignments shows
 * what is in flight; errors as Kafka's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryMetadataLog } from '../../host/controller/in-memory-metadata-log.js';
import { completeReassignment, reassignmentReplicas, revertReassignment } from '../../host/controller/partition-reassignment.js';
import { QuorumController } from '../../host/controller/quorum-controller.js';
import { ManualClock } from '../../host/io/clock.js';
import { SeededRandom } from '../../host/io/random.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';

/** Brokers 1-5 unfenced; topic `t` with the given replica lists (preferred leader first). */
async function cluster(assignments: number[][], topicConfigs: Record<string, string> = {}) {
  const controller = new QuorumController({
    config: { nodeId: 1, numPartitions: 1, defaultReplicationFactor: 1, deleteTopicEnable: true },
    log: new InMemoryMetadataLog(), random: new SeededRandom(5), clock: new ManualClock(),
  });
  for (const brokerId of [1, 2, 3, 4, 5]) {
    const r = await controller.registerBroker({ brokerId, endpoints: [{ name: 'PLAINTEXT', host: 'h', port: 9000 + brokerId, securityProtocol: 0 }] });
    expect(r.errorCode).toBe(0);
  }
  const [created] = await controller.createTopics([{
    name: 't', numPartitions: -1, replicationFactor: -1,
    assignments: assignments.map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds })),
    configs: Object.entries(topicConfigs).map(([name, value]) => ({ name, value })),
  }]);
  expect(created!.errorCode).toBe(0);
  const p = (id = 0) => controller.image.partition('t', id)!;
  const epoch = (brokerId: number) => controller.image.broker(brokerId)!.brokerEpoch;
  /** AlterPartitionReassignments of partition `id` of `t` (null: cancel); the partition's error code. */
  const reassign = async (replicas: number[] | null, id = 0, topic = 't') => {
    const response = await controller.alterPartitionReassignments([{ name: topic, partitions: [{ partitionIndex: id, replicas }] }]);
    expect(response.errorCode).toBe(0);
    return response.responses[0]!.partitions[0]!;
  };
  /** The leader of partition `id` proposes `isr` (AlterPartition v3); the partition's answer. */
  const alterIsr = async (isr: number[], id = 0) => {
    const partition = p(id);
    const response = await controller.alterPartition({
      brokerId: partition.leader, brokerEpoch: epoch(partition.leader),
      topics: [{ topicName: '', topicId: created!.topicId, partitions: [{
        partitionIndex: id, leaderEpoch: partition.leaderEpoch, partitionEpoch: partition.partitionEpoch, newIsr: [],
        newIsrWithEpochs: isr.map((brokerId) => ({ brokerId, brokerEpoch: -1 })), leaderRecoveryState: 0,
      }] }],
    }, 3);
    return response.topics[0]!.partitions[0]!;
  };
  return { controller, p, reassign, alterIsr, epoch };
}

describe('AlterPartitionReassignments on the controller', () => {
  it('moves {1,2,3} to {2,3,4}: the union with adding [4] and removing [1] first, the leader stays; once 4 is in the ISR the reassignment completes and a new leader from the target leads', async () => {
    const { controller, p, reassign, alterIsr } = await cluster([[1, 2, 3]]);
    expect((await reassign([2, 3, 4])).errorCode).toBe(0);
    expect(p()).toMatchObject({ replicas: [2, 3, 4, 1], addingReplicas: [4], removingReplicas: [1], isr: [1, 2, 3], leader: 1, leaderEpoch: 0, partitionEpoch: 1 });
    expect(controller.listPartitionReassignments(null).topics).toEqual([
      { name: 't', partitions: [{ partitionIndex: 0, replicas: [2, 3, 4, 1], addingReplicas: [4], removingReplicas: [1] }] },
    ]);

    // The leader (1, being removed) adds 4 to the ISR: the change completes the reassignment and
    // moves the leadership, so the sender hears NEW_LEADER_ELECTED (108) as in Kafka.
    const answer = await alterIsr([1, 2, 3, 4]);
    expect(answer.errorCode).toBe(ErrorCode.NEW_LEADER_ELECTED);
    expect(p()).toMatchObject({ replicas: [2, 3, 4], addingReplicas: [], removingReplicas: [], isr: [2, 3, 4], leader: 2, leaderEpoch: 1, partitionEpoch: 2 });
    expect(controller.listPartitionReassignments(null).topics).toEqual([]);
  });

  it('keeps the leader when it stays in the target, bumping the leader epoch as the removed replica leaves', async () => {
    const { p, reassign, alterIsr } = await cluster([[1, 2, 3]]);
    expect((await reassign([1, 2, 4])).errorCode).toBe(0);
    expect(p()).toMatchObject({ replicas: [1, 2, 4, 3], addingReplicas: [4], removingReplicas: [3], leader: 1, leaderEpoch: 0 });
    const answer = await alterIsr([1, 2, 3, 4]);
    expect(answer).toMatchObject({ errorCode: 0, leaderId: 1, leaderEpoch: 1, isr: [1, 2, 4] });
    expect(p()).toMatchObject({ replicas: [1, 2, 4], addingReplicas: [], removingReplicas: [], isr: [1, 2, 4], leader: 1, leaderEpoch: 1 });
  });

  it('does not complete while a target replica is out of the ISR (an ISR change that leaves it out changes only the ISR)', async () => {
    const { p, reassign, alterIsr } = await cluster([[1, 2, 3]]);
    await reassign([2, 3, 4]);
    expect((await alterIsr([1, 2])).errorCode).toBe(0);
    expect(p()).toMatchObject({ replicas: [2, 3, 4, 1], addingReplicas: [4], removingReplicas: [1], isr: [1, 2], leader: 1 });
  });

  it('completes at once a reorder of the current replicas (a new preferred leader, no adding or removing)', async () => {
    const { p, reassign } = await cluster([[1, 2, 3]]);
    expect((await reassign([3, 2, 1])).errorCode).toBe(0);
    expect(p()).toMatchObject({ replicas: [3, 2, 1], addingReplicas: [], removingReplicas: [], leader: 1, partitionEpoch: 1 });
    // The same list again writes nothing.
    expect((await reassign([3, 2, 1])).errorCode).toBe(0);
    expect(p().partitionEpoch).toBe(1);
  });

  it('completes at once a shrink to replicas already in the ISR (RF 3 to RF 2), the removed leader replaced', async () => {
    const { p, reassign } = await cluster([[1, 2, 3]]);
    expect((await reassign([3, 2])).errorCode).toBe(0);
    expect(p()).toMatchObject({ replicas: [3, 2], isr: [2, 3], addingReplicas: [], removingReplicas: [], leader: 3, leaderEpoch: 1 });
  });

  it('cancels (null replicas) back to the original replicas and ISR', async () => {
    const { controller, p, reassign, alterIsr } = await cluster([[1, 2, 3]]);
    await reassign([2, 4, 5]);
    expect(p()).toMatchObject({ replicas: [2, 4, 5, 1, 3], addingReplicas: [4, 5], removingReplicas: [1, 3] });
    expect((await alterIsr([1, 2, 3, 4])).errorCode).toBe(0);
    expect((await reassign(null)).errorCode).toBe(0);
    expect(p()).toMatchObject({ replicas: [2, 1, 3], isr: [1, 2, 3], addingReplicas: [], removingReplicas: [], leader: 1 });
    expect(controller.listPartitionReassignments(null).topics).toEqual([]);
  });

  it('a new target during a reassignment starts from the union: an adding replica the new target leaves out is removed', async () => {
    const { p, reassign } = await cluster([[1, 2, 3]]);
    await reassign([2, 3, 4]);
    await reassign([2, 3, 5]);
    expect(p()).toMatchObject({ replicas: [2, 3, 5, 1, 4], addingReplicas: [5], removingReplicas: [1, 4], leader: 1 });
  });

  it('answers Kafka\'s errors: NO_REASSIGNMENT_IN_PROGRESS, INVALID_REPLICA_ASSIGNMENT, UNKNOWN_TOPIC_OR_PARTITION (and INVALID_REQUEST for a partition named twice)', async () => {
    const { controller, p, reassign } = await cluster([[1, 2, 3]]);
    expect((await reassign(null)).errorCode).toBe(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
    expect((await reassign([])).errorCode).toBe(ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    expect((await reassign([2, 2, 3])).errorCode).toBe(ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    expect((await reassign([2, 3, 9])).errorCode).toBe(ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    expect((await reassign([2, 3, 4], 7)).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect((await reassign([2, 3, 4], 0, 'nope')).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(p()).toMatchObject({ replicas: [1, 2, 3], partitionEpoch: 0 });
    const twice = await controller.alterPartitionReassignments([{ name: 't', partitions: [{ partitionIndex: 0, replicas: [2, 3, 4] }, { partitionIndex: 0, replicas: [1, 2, 5] }] }]);
    expect(twice.responses[0]!.partitions.map((r) => r.errorCode)).toEqual([ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
    expect(p().partitionEpoch).toBe(0);
    // Unknown topics and partitions are left out of the list, as Kafka does.
    expect(controller.listPartitionReassignments([{ name: 'nope', partitionIndexes: [0] }, { name: 't', partitionIndexes: [0, 5] }]).topics).toEqual([]);
  });

  it('refuses a cancel that needs an unclean election unless the topic allows one', async () => {
    for (const allowed of [false, true]) {
      const { controller, p, reassign, alterIsr, epoch } = await cluster([[1, 2]], allowed ? { 'unclean.leader.election.enable': 'true' } : {});
      await reassign([3, 4]);
      expect((await alterIsr([1, 3])).errorCode).toBe(0);
      await controller.fenceBroker(1, epoch(1));
      // Only the adding replica 3 is in sync (and leads): a revert would have no original replica in sync.
      expect(p()).toMatchObject({ replicas: [3, 4, 1, 2], isr: [3], leader: 3 });
      const answer = await reassign(null);
      if (!allowed) {
        expect(answer.errorCode).toBe(ErrorCode.INVALID_REPLICA_ASSIGNMENT);
        expect(p()).toMatchObject({ replicas: [3, 4, 1, 2], addingReplicas: [3, 4] });
      } else {
        // The unclean choice: the first original replica that can lead (1 is fenced), alone in the ISR.
        expect(answer.errorCode).toBe(0);
        expect(p()).toMatchObject({ replicas: [1, 2], isr: [2], leader: 2, addingReplicas: [], removingReplicas: [], leaderRecoveryState: 1 });
      }
    }
  });

  it('is answered NOT_CONTROLLER (41) by an inactive controller', async () => {
    const { controller } = await cluster([[1, 2, 3]]);
    const log = (controller as unknown as { log: { resign(epoch: number, leader?: number): void } }).log;
    log.resign(5, 2);
    expect((await controller.alterPartitionReassignments([{ name: 't', partitions: [{ partitionIndex: 0, replicas: [1] }] }])).errorCode).toBe(ErrorCode.NOT_CONTROLLER);
    expect(controller.listPartitionReassignments(null).errorCode).toBe(ErrorCode.NOT_CONTROLLER);
  });
});

describe('the replica arithmetic of a reassignment (property checks)', () => {
  const brokerSet = fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 6 });

  it('stage 1 holds target then removing; adding and removing are the differences; completion with every replica in sync gives the target', () => {
    fc.assert(fc.property(brokerSet, brokerSet, (current, target) => {
      const planned = reassignmentReplicas(current, target);
      expect(planned.replicas.slice(0, target.length)).toEqual(target);
      expect(new Set(planned.replicas)).toEqual(new Set([...current, ...target]));
      expect(planned.adding.every((id) => target.includes(id) && !current.includes(id))).toBe(true);
      expect(planned.removing.every((id) => current.includes(id) && !target.includes(id))).toBe(true);
      if (planned.adding.length + planned.removing.length === 0) return;
      const done = completeReassignment(planned, planned.replicas);
      expect(done).toEqual({ replicas: target, isr: target });
      const reverted = revertReassignment({ replicas: planned.replicas, isr: current, addingReplicas: planned.adding });
      expect(new Set(reverted.replicas)).toEqual(new Set(current));
      expect(reverted.unclean).toBe(false);
    }));
  });

  it('never completes while a target replica is outside the ISR', () => {
    fc.assert(fc.property(brokerSet, brokerSet, fc.integer({ min: 0, max: 5 }), (current, target, dropAt) => {
      const planned = reassignmentReplicas(current, target);
      const missing = target[dropAt % target.length]!;
      expect(completeReassignment(planned, planned.replicas.filter((id) => id !== missing))).toBeNull();
    }));
  });
});
