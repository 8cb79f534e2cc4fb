/**
 * AlterPartition on the QuorumController (KIP-497 / KIP-841 / KIP-903): every rule of
 * alter-partition-control.ts, on three registered brokers and a topic with three replicas.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryMetadataLog } from '../../host/controller/in-memory-metadata-log.js';
import type { PartitionRegistration } from '../../host/controller/metadata-image.js';
import type { QuorumController } from '../../host/controller/quorum-controller.js';
import type { AlterPartitionRequest } from '../../host/protocol/generated/alter-partition.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startController } from './controller-fixture.js';

async function cluster(): Promise<{ controller: QuorumController; partition: () => PartitionRegistration; topicId: string }> {
  const fixture = await startController({ brokers: [1, 2, 3], config: { defaultReplicationFactor: 3 } });
  const { controller } = fixture;
  const [created] = await controller.createTopics([{ name: 't', numPartitions: 1, replicationFactor: 3, assignments: [] }]);
  expect(created!.errorCode).toBe(0);
  return { controller, partition: () => controller.image.partition('t', 0)!, topicId: created!.topicId };
}

interface Proposal {
  brokerId?: number;
  brokerEpoch?: number;
  leaderEpoch?: number;
  partitionEpoch?: number;
  newIsr: number[];
  brokerEpochs?: number[];
  leaderRecoveryState?: number;
  topicId?: string;
  partitionIndex?: number;
}

/** A v3 request for t-0 from its leader with the current epochs, as `p` overrides. */
function request(controller: QuorumController, topicId: string, p: Proposal, version = 3): AlterPartitionRequest {
  const current = controller.image.partition('t', 0)!;
  const brokerId = p.brokerId ?? current.leader;
  return {
    brokerId,
    brokerEpoch: p.brokerEpoch ?? controller.image.broker(brokerId)?.brokerEpoch ?? -1,
    topics: [{
      topicName: version < 2 ? 't' : '', topicId: p.topicId ?? topicId,
      partitions: [{
        partitionIndex: p.partitionIndex ?? 0,
        leaderEpoch: p.leaderEpoch ?? current.leaderEpoch,
        partitionEpoch: p.partitionEpoch ?? current.partitionEpoch,
        newIsr: version < 3 ? p.newIsr : [],
        newIsrWithEpochs: version < 3 ? [] : p.newIsr.map((id, i) => ({ brokerId: id, brokerEpoch: p.brokerEpochs?.[i] ?? -1 })),
        leaderRecoveryState: p.leaderRecoveryState ?? 0,
      }],
    }],
  };
}

async function alter(controller: QuorumController, topicId: string, p: Proposal, version = 3) {
  const response = await controller.alterPartition(request(controller, topicId, p, version), version);
  return { top: response.errorCode, partition: response.topics[0]?.partitions[0] };
}

describe('AlterPartition on the controller', () => {
  it('a leader shrinking and then expanding its ISR commits each change with partition epoch + 1 and no new leader epoch', async () => {
    const { controller, partition, topicId } = await cluster();
    const before = partition();
    expect(before.isr).toEqual([...before.replicas]);
    const follower = before.replicas.find((id) => id !== before.leader)!;
    const shrunk = before.isr.filter((id) => id !== follower);
    const shrink = await alter(controller, topicId, { newIsr: shrunk });
    expect(shrink.top).toBe(0);
    expect(shrink.partition).toMatchObject({ errorCode: 0, leaderId: before.leader, leaderEpoch: before.leaderEpoch, isr: shrunk, partitionEpoch: before.partitionEpoch + 1 });
    expect(partition()).toMatchObject({ isr: shrunk, leaderEpoch: before.leaderEpoch, partitionEpoch: before.partitionEpoch + 1 });
    const expand = await alter(controller, topicId, { newIsr: [...before.isr] });
    expect(expand.partition).toMatchObject({ errorCode: 0, isr: [...before.isr], partitionEpoch: before.partitionEpoch + 2 });
    expect(partition().isr).toEqual([...before.isr]);
  });

  it('a retry of a proposal already applied (older partition epoch, same ISR) answers the current state without a new record', async () => {
    const { controller, partition, topicId } = await cluster();
    const before = partition();
    const shrunk = [before.leader];
    await alter(controller, topicId, { newIsr: shrunk });
    const records = controller.lastCommittedOffset;
    const retry = await alter(controller, topicId, { newIsr: shrunk, partitionEpoch: before.partitionEpoch });
    expect(retry.partition).toMatchObject({ errorCode: 0, isr: shrunk, partitionEpoch: before.partitionEpoch + 1 });
    expect(controller.lastCommittedOffset).toBe(records);
    // The same ISR at the current epoch is no change either.
    const same = await alter(controller, topicId, { newIsr: shrunk });
    expect(same.partition).toMatchObject({ errorCode: 0, partitionEpoch: before.partitionEpoch + 1 });
    expect(controller.lastCommittedOffset).toBe(records);
  });

  it('an older partition epoch with another ISR is INVALID_UPDATE_VERSION (95)', async () => {
    const { controller, partition, topicId } = await cluster();
    const before = partition();
    await alter(controller, topicId, { newIsr: [before.leader] });
    const stale = await alter(controller, topicId, { newIsr: [...before.isr], partitionEpoch: before.partitionEpoch });
    expect(stale.partition!.errorCode).toBe(ErrorCode.INVALID_UPDATE_VERSION);
    expect(partition().isr).toEqual([before.leader]);
  });

  it('a stale broker epoch is STALE_BROKER_EPOCH (77) at the top level', async () => {
    const { controller, partition, topicId } = await cluster();
    const result = await alter(controller, topicId, { newIsr: [partition().leader], brokerEpoch: 12345 });
    expect(result.top).toBe(ErrorCode.STALE_BROKER_EPOCH);
    expect(partition().isr.length).toBe(3);
  });

  it('a request from a replica that is not the leader is NOT_LEADER_OR_FOLLOWER (6)', async () => {
    const { controller, partition, topicId } = await cluster();
    const follower = partition().replicas.find((id) => id !== partition().leader)!;
    const result = await alter(controller, topicId, { brokerId: follower, newIsr: [follower] });
    expect(result.partition!.errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  });

  it('an older leader epoch is FENCED_LEADER_EPOCH (74); a newer leader or partition epoch is NOT_CONTROLLER (41)', async () => {
    const { controller, partition, topicId } = await cluster();
    const leader = partition().leader;
    // Move the leadership and back, so the leader epoch is 2 and the old leader epoch 0 is fenced.
    const other = partition().replicas.find((id) => id !== leader)!;
    await controller.fenceBroker(leader, controller.image.broker(leader)!.brokerEpoch);
    expect(partition().leader).toBe(other);
    const fenced = await alter(controller, topicId, { brokerId: other, newIsr: [other], leaderEpoch: partition().leaderEpoch - 1 });
    expect(fenced.partition!.errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
    const newerLeaderEpoch = await alter(controller, topicId, { newIsr: [other], leaderEpoch: partition().leaderEpoch + 1 });
    expect(newerLeaderEpoch.partition!.errorCode).toBe(ErrorCode.NOT_CONTROLLER);
    const newerPartitionEpoch = await alter(controller, topicId, { newIsr: [other], partitionEpoch: partition().partitionEpoch + 1 });
    expect(newerPartitionEpoch.partition!.errorCode).toBe(ErrorCode.NOT_CONTROLLER);
  });

  it('an ISR naming a fenced, shutting-down, unregistered broker or one of another epoch is INELIGIBLE_REPLICA (107); OPERATION_NOT_ATTEMPTED (55) before v2', async () => {
    const { controller, partition, topicId } = await cluster();
    const leader = partition().leader;
    const [a, b] = partition().replicas.filter((id) => id !== leader) as [number, number];
    await alter(controller, topicId, { newIsr: [leader] });
    await controller.fenceBroker(a, controller.image.broker(a)!.brokerEpoch);
    expect((await alter(controller, topicId, { newIsr: [leader, a] })).partition!.errorCode).toBe(ErrorCode.INELIGIBLE_REPLICA);
    expect((await alter(controller, topicId, { newIsr: [leader, a] }, 1)).partition!.errorCode).toBe(ErrorCode.OPERATION_NOT_ATTEMPTED);
    expect((await alter(controller, topicId, { newIsr: [leader, b], brokerEpochs: [-1, 999] })).partition!.errorCode).toBe(ErrorCode.INELIGIBLE_REPLICA);
    // In controlled shutdown (a heartbeat with wantShutDown): not eligible either.
    await controller.brokerHeartbeat({ brokerId: b, brokerEpoch: controller.image.broker(b)!.brokerEpoch, currentMetadataOffset: 1_000, wantFence: false, wantShutDown: true });
    expect(controller.image.broker(b)!.inControlledShutdown).toBe(true);
    expect((await alter(controller, topicId, { newIsr: [leader, b] })).partition!.errorCode).toBe(ErrorCode.INELIGIBLE_REPLICA);
    await controller.unregisterBroker(a);
    expect((await alter(controller, topicId, { newIsr: [leader, a] })).partition!.errorCode).toBe(ErrorCode.INELIGIBLE_REPLICA);
    expect(partition().isr).toEqual([leader]);
  });

  it('an ISR with a non-replica, a duplicate, nobody, or without the leader is INVALID_REQUEST (42)', async () => {
    const { controller, partition, topicId } = await cluster();
    const leader = partition().leader;
    const follower = partition().replicas.find((id) => id !== leader)!;
    for (const newIsr of [[leader, 9], [leader, leader], [], [follower]]) {
      expect((await alter(controller, topicId, { newIsr })).partition!.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    }
    expect((await alter(controller, topicId, { newIsr: [leader, follower], leaderRecoveryState: 1 })).partition!.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(partition().isr.length).toBe(3);
  });

  it('an unknown topic id is UNKNOWN_TOPIC_ID (100) (v2+), an unknown name UNKNOWN_TOPIC_OR_PARTITION (3) (v0-1), an unknown partition UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const { controller, partition, topicId } = await cluster();
    const leader = partition().leader;
    expect((await alter(controller, topicId, { newIsr: [leader], topicId: 'ab'.repeat(16) })).partition!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_ID);
    expect((await alter(controller, topicId, { newIsr: [leader], partitionIndex: 7 })).partition!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const byName = request(controller, topicId, { newIsr: [leader] }, 1);
    byName.topics[0]!.topicName = 'nope';
    const v1 = await controller.alterPartition(byName, 1);
    expect(v1.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    byName.topics[0]!.topicName = 't';
    const named = await controller.alterPartition(byName, 1);
    expect(named.topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, isr: [leader] });
  });

  it('a controller that is not active answers NOT_CONTROLLER (41) at the top level', async () => {
    const { controller, partition, topicId } = await cluster();
    const log = (controller as unknown as { log: { resign(epoch: number, leader?: number): void } }).log;
    log.resign(5, 2);
    const result = await alter(controller, topicId, { newIsr: [partition().leader] });
    expect(result.top).toBe(ErrorCode.NOT_CONTROLLER);
  });

  it('the answer to a proposal already applied waits until the records before it are committed', async () => {
    const log = new InMemoryMetadataLog();
    const fixture = await startController({ brokers: [1, 2, 3], log });
    const { controller } = fixture;
    const [created] = await controller.createTopics([{ name: 't', numPartitions: 1, replicationFactor: 3 }]);
    const leader = controller.image.partition('t', 0)!.leader;
    const before = controller.image.partition('t', 0)!;
    log.commitOnAppend = false;
    let firstAnswered = false;
    const first = controller.alterPartition(request(controller, created!.topicId, { newIsr: [leader] }), 3).then((r) => {
      firstAnswered = true;
      return r;
    });
    let retryAnswered = false;
    const retry = controller.alterPartition(request(controller, created!.topicId, { newIsr: [leader], partitionEpoch: before.partitionEpoch }), 3).then((r) => {
      retryAnswered = true;
      return r;
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(firstAnswered).toBe(false);
    expect(retryAnswered).toBe(false);
    log.commitAll();
    expect((await first).topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, isr: [leader], partitionEpoch: before.partitionEpoch + 1 });
    expect((await retry).topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, isr: [leader], partitionEpoch: before.partitionEpoch + 1 });
  });
});
