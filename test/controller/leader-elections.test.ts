/**
 * Leader elections on the QuorumController (Kafka's ReplicationControlManager and
 * PartitionChangeBuilder rules): on fencing and unfencing, with and without
 * unclean.leader.election.enable, in a controlled shutdown, by ElectLeaders (PREFERRED, UNCLEAN)
 * and by the automatic leader balancer.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryMetadataLog } from '../../host/controller/in-memory-metadata-log.js';
import { type ControllerConfig, QuorumController } from '../../host/controller/quorum-controller.js';
import { ManualClock } from '../../host/io/clock.js';
import { SeededRandom } from '../../host/io/random.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startController } from './controller-fixture.js';

interface Logged { level: 'warn' | 'error'; message: string }

/** Brokers 1, 2, 3 unfenced; topic `t` with the given replica lists (preferred leader first). */
async function cluster(assignments: number[][], options: { config?: Partial<ControllerConfig>; topicConfigs?: Record<string, string> } = {}) {
  const logged: Logged[] = [];
  const controller = new QuorumController({
    config: { nodeId: 1, numPartitions: 1, defaultReplicationFactor: 1, deleteTopicEnable: true, ...options.config },
    log: new InMemoryMetadataLog(), random: new SeededRandom(3), clock: new ManualClock(),
    logger: { warn: (_f, message) => logged.push({ level: 'warn', message }), error: (_f, message) => logged.push({ level: 'error', message }) },
  });
  for (const brokerId of [1, 2, 3]) {
    const r = await controller.registerBroker({ brokerId, endpoints: [{ name: 'PLAINTEXT', host: 'h', port: 9000 + brokerId, securityProtocol: 0 }] });
    expect(r.errorCode).toBe(0);
  }
  const [created] = await controller.createTopics([{
    name: 't', numPartitions: -1, replicationFactor: -1,
    assignments: assignments.map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds })),
    configs: Object.entries(options.topicConfigs ?? {}).map(([name, value]) => ({ name, value })),
  }]);
  expect(created!.errorCode).toBe(0);
  const p = (id = 0) => controller.image.partition('t', id)!;
  const epoch = (brokerId: number) => controller.image.broker(brokerId)!.brokerEpoch;
  const fence = (brokerId: number) => controller.fenceBroker(brokerId, epoch(brokerId));
  const unfence = (brokerId: number) => controller.unfenceBroker(brokerId, epoch(brokerId));
  /** The leader of partition `id` sets its ISR through AlterPartition. */
  const setIsr = async (isr: number[], id = 0) => {
    const partition = p(id);
    const response = await controller.alterPartition({
      brokerId: partition.leader, brokerEpoch: epoch(partition.leader),
      topics: [{ topicName: '', topicId: created!.topicId, partitions: [{
        partitionIndex: id, leaderEpoch: partition.leaderEpoch, partitionEpoch: partition.partitionEpoch, newIsr: [],
        newIsrWithEpochs: isr.map((brokerId) => ({ brokerId, brokerEpoch: -1 })), leaderRecoveryState: 0,
      }] }],
    }, 3);
    expect(response.topics[0]!.partitions[0]!.errorCode).toBe(0);
  };
  return { controller, p, fence, unfence, setIsr, epoch, logged };
}

describe('elections when brokers are fenced and unfenced', () => {
  it('a fenced leader leaves the ISR and the next in-sync replica in replica order leads, with leader epoch + 1 and partition epoch + 1', async () => {
    const { p, fence } = await cluster([[1, 3, 2]]);
    expect(p()).toMatchObject({ leader: 1, isr: [1, 3, 2], leaderEpoch: 0, partitionEpoch: 0 });
    await fence(1);
    expect(p()).toMatchObject({ leader: 3, isr: [3, 2], leaderEpoch: 1, partitionEpoch: 1 });
  });

  it('a fenced follower leaves the ISR without a leader epoch bump', async () => {
    const { p, fence } = await cluster([[1, 2, 3]]);
    await fence(2);
    expect(p()).toMatchObject({ leader: 1, isr: [1, 3], leaderEpoch: 0, partitionEpoch: 1 });
  });

  it('the last in-sync replica stays in the ISR when fenced and the partition goes offline (leader -1); it leads again when unfenced', async () => {
    const { p, fence, unfence, setIsr, logged } = await cluster([[1, 2, 3]]);
    await setIsr([1]);
    await fence(1);
    expect(p()).toMatchObject({ leader: -1, isr: [1], leaderEpoch: 1 });
    // Unfencing an out-of-sync replica elects nobody without unclean elections.
    await fence(2);
    await unfence(2);
    expect(p().leader).toBe(-1);
    await unfence(1);
    expect(p()).toMatchObject({ leader: 1, isr: [1], leaderEpoch: 2, leaderRecoveryState: 0 });
    expect(logged).toEqual([]);
  });

  it('with unclean.leader.election.enable=true on the topic, a live out-of-sync replica leads when no ISR member lives, with ISR [it], RECOVERING, and an error in the log', async () => {
    const { p, fence, setIsr, logged } = await cluster([[1, 2, 3]], { topicConfigs: { 'unclean.leader.election.enable': 'true' } });
    await setIsr([1]);
    await fence(1);
    expect(p()).toMatchObject({ leader: 2, isr: [2], leaderEpoch: 1, leaderRecoveryState: 1 });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'error' });
    expect(logged[0]!.message).toMatch(/unclean leader election for t-0: broker 2/);
  });

  it('the broker config unclean.leader.election.enable=true applies to topics without an override, and a topic override of false wins', async () => {
    const broker = await cluster([[1, 2, 3]], { config: { uncleanLeaderElectionEnable: true } });
    await broker.setIsr([1]);
    await broker.fence(1);
    expect(broker.p().leader).toBe(2);
    const topic = await cluster([[1, 2, 3]], { config: { uncleanLeaderElectionEnable: true }, topicConfigs: { 'unclean.leader.election.enable': 'false' } });
    await topic.setIsr([1]);
    await topic.fence(1);
    expect(topic.p().leader).toBe(-1);
  });

  it('turning unclean elections on for an offline topic elects a live replica at once', async () => {
    const { controller, p, fence, setIsr } = await cluster([[1, 2, 3]]);
    await setIsr([1]);
    await fence(1);
    expect(p().leader).toBe(-1);
    expect(await controller.electUncleanLeaders()).toBe(0);
    const [altered] = await controller.incrementalAlterConfigs([{ resourceType: 2, resourceName: 't', configs: [{ name: 'unclean.leader.election.enable', configOperation: 0, value: 'true' }] }]);
    expect(altered!.errorCode).toBe(0);
    expect(p()).toMatchObject({ leader: 2, isr: [2] });
  });

  it('with unclean elections allowed, unfencing an out-of-sync replica of a partition with no live replica elects it', async () => {
    const { controller, p, fence, unfence, setIsr } = await cluster([[1, 2, 3]], { topicConfigs: { 'unclean.leader.election.enable': 'true' } });
    await setIsr([1]);
    for (const id of [1, 2, 3]) await fence(id);
    expect(p().leader).toBe(-1);
    expect(await controller.electUncleanLeaders()).toBe(0);
    await unfence(3);
    expect(p()).toMatchObject({ leader: 3, isr: [3] });
    expect(await controller.electUncleanLeaders()).toBe(0);
  });

  it('unregistering a broker takes it out of ISRs and leadership, even when it was already fenced', async () => {
    const { controller, p, fence } = await cluster([[1, 2, 3], [2, 1, 3]]);
    await fence(1);
    expect(p(0).leader).toBe(2);
    expect(await controller.unregisterBroker(1)).toMatchObject({ errorCode: 0 });
    expect(p(0).isr).toEqual([2, 3]);
    expect(p(1).isr).toEqual([2, 3]);
  });
});

describe('controlled shutdown (BrokerHeartbeat with wantShutDown)', () => {
  it('moves leadership off the broker and out of the ISRs before answering shouldShutDown, then fences it', async () => {
    const { controller, p, epoch } = await cluster([[1, 2, 3], [2, 1, 3], [3, 2, 1]]);
    const beat = () => controller.brokerHeartbeat({ brokerId: 1, brokerEpoch: epoch(1), currentMetadataOffset: 10_000, wantFence: false, wantShutDown: true });
    const first = await beat();
    expect(first).toMatchObject({ errorCode: 0, shouldShutDown: false, isFenced: false });
    expect(controller.image.broker(1)!.inControlledShutdown).toBe(true);
    expect([0, 1, 2].map((id) => p(id).leader)).toEqual([2, 2, 3]);
    for (const id of [0, 1, 2]) expect(p(id).isr).not.toContain(1);
    const second = await beat();
    expect(second).toMatchObject({ errorCode: 0, shouldShutDown: true, isFenced: true });
    expect(controller.image.broker(1)!.fenced).toBe(true);
  });

  it('a broker in controlled shutdown is not elected when another broker is fenced', async () => {
    const { controller, p, fence, epoch } = await cluster([[3, 1, 2]]);
    await controller.brokerHeartbeat({ brokerId: 1, brokerEpoch: epoch(1), currentMetadataOffset: 10_000, wantFence: false, wantShutDown: true });
    await fence(3);
    expect(p()).toMatchObject({ leader: 2, isr: [2] });
  });
});

describe('ElectLeaders (api key 43)', () => {
  it('PREFERRED moves leadership back to the preferred replica once it is in the ISR again', async () => {
    const { controller, p, fence, unfence, setIsr } = await cluster([[1, 2, 3]]);
    await fence(1);
    await unfence(1);
    expect(p()).toMatchObject({ leader: 2, isr: [2, 3] });
    const notInIsr = await controller.electLeaders(0, [{ topic: 't', partitions: [0] }]);
    expect(notInIsr.replicaElectionResults[0]!.partitionResult[0]!.errorCode).toBe(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE);
    await setIsr([2, 3, 1]);
    const elected = await controller.electLeaders(0, [{ topic: 't', partitions: [0] }]);
    expect(elected).toMatchObject({ errorCode: 0, replicaElectionResults: [{ topic: 't', partitionResult: [{ partitionId: 0, errorCode: 0 }] }] });
    expect(p()).toMatchObject({ leader: 1, isr: [2, 3, 1], leaderEpoch: 2 });
    const again = await controller.electLeaders(0, [{ topic: 't', partitions: [0] }]);
    expect(again.replicaElectionResults[0]!.partitionResult[0]!.errorCode).toBe(ErrorCode.ELECTION_NOT_NEEDED);
  });

  it('for every partition (null), only the partitions it tried to change are answered; unknown partitions are UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const { controller, fence, unfence } = await cluster([[1, 2, 3], [2, 3, 1]]);
    await fence(1);
    await unfence(1);
    const all = await controller.electLeaders(0, null);
    // t-1 already has its preferred leader (left out); t-0's preferred replica is out of the ISR.
    expect(all.replicaElectionResults).toEqual([{ topic: 't', partitionResult: [{ partitionId: 0, errorCode: ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, errorMessage: expect.any(String) }] }]);
    const unknown = await controller.electLeaders(0, [{ topic: 'nope', partitions: [0] }, { topic: 't', partitions: [9] }]);
    expect(unknown.replicaElectionResults.map((r) => r.partitionResult[0]!.errorCode)).toEqual([ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    expect((await controller.electLeaders(7, null)).errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('UNCLEAN elects a live out-of-sync replica of an offline partition even when the topic does not allow it automatically', async () => {
    const { controller, p, fence, setIsr, logged } = await cluster([[1, 2, 3]]);
    expect((await controller.electLeaders(1, [{ topic: 't', partitions: [0] }])).replicaElectionResults[0]!.partitionResult[0]!.errorCode)
      .toBe(ErrorCode.ELECTION_NOT_NEEDED);
    await setIsr([1]);
    await fence(1);
    expect(p().leader).toBe(-1);
    const result = await controller.electLeaders(1, [{ topic: 't', partitions: [0] }]);
    expect(result.replicaElectionResults[0]!.partitionResult[0]!.errorCode).toBe(0);
    expect(p()).toMatchObject({ leader: 2, isr: [2], leaderRecoveryState: 1 });
    expect(logged.some((l) => l.level === 'error' && /unclean/.test(l.message))).toBe(true);
  });

  it('UNCLEAN with no live replica is ELIGIBLE_LEADERS_NOT_AVAILABLE (83)', async () => {
    const { controller, fence, setIsr } = await cluster([[1, 2, 3]]);
    await setIsr([1]);
    for (const id of [1, 2, 3]) await fence(id);
    const result = await controller.electLeaders(1, [{ topic: 't', partitions: [0] }]);
    expect(result.replicaElectionResults[0]!.partitionResult[0]!.errorCode).toBe(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE);
  });
});

describe('automatic leader balancing (auto.leader.rebalance.enable)', () => {
  it('moves leaders back to their preferred replicas when more than leader.imbalance.per.broker.percentage of them lead elsewhere', async () => {
    const assignments = Array.from({ length: 10 }, () => [1, 2, 3]);
    const { controller, p, fence, unfence, setIsr } = await cluster(assignments);
    await fence(1);
    await unfence(1);
    // Broker 1 is back but leads none of its 10 preferred partitions; one returns to its ISR.
    await setIsr([2, 3, 1], 0);
    expect(p(0).leader).toBe(2);
    // 10 of 10 preferred partitions are led elsewhere (100% > 10%): the one with 1 in its ISR moves.
    expect(await controller.balancePartitionLeaders(10)).toBe(1);
    expect(p(0).leader).toBe(1);
    for (let id = 1; id < 10; id++) await setIsr([2, 3, 1], id);
    for (let id = 1; id < 10; id++) expect(p(id).leader).toBe(2);
    // 9 of 10 led elsewhere: 90% is not above 95%, nothing moves; above 10% it does.
    expect(await controller.balancePartitionLeaders(95)).toBe(0);
    expect(await controller.balancePartitionLeaders(10)).toBe(9);
    for (let id = 0; id < 10; id++) expect(p(id).leader).toBe(1);
    expect(await controller.balancePartitionLeaders(10)).toBe(0);
  });
});
