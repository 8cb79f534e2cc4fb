/**
 * The controller's write path against a metadata log that commits when told (InMemoryMetadataLog
 * with commitOnAppend off): answers wait for the commit and come in offset order, the image shows
 * only committed records, leadership loss fails what is pending with NOT_CONTROLLER (41), and a
 * follower replays what another leader wrote.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { InMemoryMetadataLog } from '../../host/controller/in-memory-metadata-log.js';
import { ProducerIdManager } from '../../host/controller/producer-id-manager.js';
import { ZERO_TOPIC_ID } from '../../host/controller/topic-id.js';
import { restartController, startController } from './controller-fixture.js';

const topic = (name: string, numPartitions = 1) => ({ name, numPartitions, replicationFactor: 1, configs: [] });

/** Lets every settled promise's callbacks run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A controller whose broker 1 is registered (committed), over a log that from then on commits only when told. */
async function heldController(brokers = [1]) {
  const fixture = await startController({ brokers });
  fixture.log.commitOnAppend = false;
  return fixture;
}

describe('QuorumController answers when the metadata log commits', () => {
  it('answers pending writes only once committed, in offset order, and shows nothing uncommitted in the image', async () => {
    const { controller, log } = await heldController();
    const answered: string[] = [];
    const first = controller.createTopics([topic('a')]).then((results) => { answered.push('a'); return results; });
    const firstLastOffset = log.endOffset() - 1;
    const second = controller.createTopics([topic('b', 2)]).then((results) => { answered.push('b'); return results; });
    await settle();
    expect(answered).toEqual([]);
    expect(controller.pendingWriteCount).toBe(2);
    expect(controller.image.topic('a')).toBeUndefined();
    expect(controller.image.topic('b')).toBeUndefined();
    // Validation sees the uncommitted topics already: a second 'a' is refused without a write.
    const [again] = await controller.createTopics([topic('a')]);
    expect(again!.errorCode).toBe(ErrorCode.TOPIC_ALREADY_EXISTS);

    log.commitUpTo(firstLastOffset);
    await settle();
    expect(answered).toEqual(['a']);
    expect(controller.image.topic('a')).toBeDefined();
    expect(controller.image.topic('b')).toBeUndefined();
    expect(controller.lastCommittedOffset).toBe(firstLastOffset);

    log.commitAll();
    const [[a], [b]] = await Promise.all([first, second]);
    expect(answered).toEqual(['a', 'b']);
    expect(a).toMatchObject({ errorCode: 0, numPartitions: 1 });
    expect(b).toMatchObject({ errorCode: 0, numPartitions: 2 });
    expect(controller.image.topic('b')!.topicId).toBe(b!.topicId);
    expect(controller.pendingWriteCount).toBe(0);
  });

  it('tells the listeners at the commit, not at the append', async () => {
    const { controller, log } = await heldController();
    const created: string[] = [];
    controller.addListener({ onTopicCreated: (t) => created.push(t.name) });
    const pending = controller.createTopics([topic('later')]);
    expect(created).toEqual([]);
    log.commitAll();
    expect(created).toEqual(['later']);
    expect((await pending)[0]!.errorCode).toBe(0);
  });

  it('fails the pending writes with NOT_CONTROLLER when the leadership is lost, and reverts what was not committed', async () => {
    const { controller, log } = await heldController();
    const committed = controller.createTopics([topic('kept')]);
    log.commitAll();
    await committed;
    const lost = controller.createTopics([topic('lost', 3)]);
    const epoch = controller.image.broker(1)!.brokerEpoch;
    const fence = controller.fenceBroker(1, epoch);
    log.resign(2, 2);
    const [lostResult] = await lost;
    expect(lostResult).toMatchObject({ errorCode: ErrorCode.NOT_CONTROLLER, topicId: ZERO_TOPIC_ID, numPartitions: -1 });
    expect(lostResult!.errorMessage).toContain('node 2');
    expect((await fence).errorCode).toBe(ErrorCode.NOT_CONTROLLER);
    expect(controller.isActive).toBe(false);
    expect(controller.pendingWriteCount).toBe(0);
    expect(controller.image.topic('lost')).toBeUndefined();
    expect(controller.image.broker(1)!.fenced).toBe(false);
    // Not active: every change is refused.
    expect((await controller.createTopics([topic('refused')]))[0]!.errorCode).toBe(ErrorCode.NOT_CONTROLLER);

    // Leader again: the uncommitted topic is gone from the latest state too, so it can be created.
    log.commitOnAppend = true;
    log.elect(1, 3);
    expect(controller.isActive).toBe(true);
    const [created] = await controller.createTopics([topic('lost', 2)]);
    expect(created).toMatchObject({ errorCode: 0, numPartitions: 2 });
    expect(controller.image.topic('kept')).toBeDefined();
    expect(controller.image.topic('lost')!.partitions).toHaveLength(2);
    expect(restartController(log).image.toJSON()).toEqual(controller.image.toJSON());
  });

  it('refuses a write the log rejects for a stale epoch with NOT_CONTROLLER and keeps its state', async () => {
    const { controller, log } = await heldController();
    log.commitOnAppend = true;
    // Node 1 is re-elected in epoch 5; the controller has not heard yet and writes in epoch 1.
    log.elect(1, 5, { tell: false });
    const [result] = await controller.createTopics([topic('stale')]);
    expect(result!.errorCode).toBe(ErrorCode.NOT_CONTROLLER);
    expect(controller.failedReason).toBeNull();
    expect(controller.image.topic('stale')).toBeUndefined();
    log.tellLeader();
    const [retried] = await controller.createTopics([topic('stale')]);
    expect(retried!.errorCode).toBe(0);
    expect(controller.image.topic('stale')).toBeDefined();
  });

  it('replays batches another leader committed, and leads on from them when elected', async () => {
    // Node 2 leads and writes; node 1 follows: its log receives node 2's batches.
    const leader = await startController({ config: { nodeId: 2 }, brokers: [1, 2], log: new InMemoryMetadataLog({ localId: 2 }) });
    const followerLog = new InMemoryMetadataLog({ localId: 1 });
    followerLog.resign(2, 2);
    const follower = restartController(followerLog);
    const heard: string[] = [];
    follower.addListener({ onTopicCreated: (t) => heard.push(t.name) });
    expect(follower.isActive).toBe(false);
    expect(follower.leaderAndEpoch).toEqual({ leaderId: 2, epoch: 2 });

    await leader.controller.createTopics([topic('orders', 3), topic('audit')]);
    await leader.controller.createPartitions([{ name: 'orders', count: 5 }]);
    for (const batch of leader.log.readCommitted(0)) followerLog.appendFromLeader(batch.records);
    expect(follower.image.toJSON()).toEqual(leader.controller.image.toJSON());
    expect(follower.lastCommittedOffset).toBe(leader.controller.lastCommittedOffset);
    expect(heard).toEqual(['orders', 'audit']);
    expect((await follower.createTopics([topic('mine')]))[0]!.errorCode).toBe(ErrorCode.NOT_CONTROLLER);

    followerLog.elect(1, 3);
    expect(follower.isActive).toBe(true);
    const [again, fresh] = await follower.createTopics([topic('orders'), topic('fresh')]);
    expect(again!.errorCode).toBe(ErrorCode.TOPIC_ALREADY_EXISTS);
    expect(fresh!.errorCode).toBe(0);
    expect(follower.image.topic('orders')!.partitions).toHaveLength(5);
  });

  it('skips records handed again, as a log that replays from its start does', async () => {
    const { controller, log } = await startController();
    await controller.createTopics([topic('once', 2)]);
    const image = controller.image.toJSON();
    const last = controller.lastCommittedOffset;
    for (const batch of log.readCommitted(0)) controller.handleCommit(batch);
    expect(controller.image.toJSON()).toEqual(image);
    expect(controller.lastCommittedOffset).toBe(last);
  });

  it('commits inside append with the single-node log: the change is in the image when the call returns', async () => {
    const { controller } = await startController();
    const pending = controller.createTopics([topic('now')]);
    expect(controller.image.topic('now')).toBeDefined();
    expect(controller.pendingWriteCount).toBe(0);
    expect((await pending)[0]!.errorCode).toBe(0);
  });

  it('replays its own committed batches from the records it wrote: the same image as decoding them, lists shared', async () => {
    const { controller, log } = await startController({ brokers: [1, 2, 3] });
    await controller.fenceBroker(3, controller.image.broker(3)!.brokerEpoch);
    const assignments = [0, 1, 2, 3, 4, 5].map((partitionIndex) => ({ partitionIndex, brokerIds: partitionIndex % 2 === 0 ? [3, 1, 2] : [2, 3, 1] }));
    const [created] = await controller.createTopics([{ name: 'spread', numPartitions: -1, replicationFactor: -1, assignments, configs: [{ name: 'retention.ms', value: '1000' }] }]);
    expect(created!.errorCode).toBe(0);
    await controller.createTopics([{ name: 'auto', numPartitions: 4, replicationFactor: 2, configs: [] }]);
    await controller.createPartitions([{ name: 'auto', count: 9 }]);
    const spread = controller.image.topic('spread')!;
    // ISRs without the fenced broker 3 (its first replica), led by the next; an empty list is the image's one shared empty array.
    expect(spread.partitions.map((p) => [p.replicas, p.isr, p.leader])).toEqual([0, 1, 2, 3, 4, 5].map((i) => (i % 2 === 0 ? [[3, 1, 2], [1, 2], 1] : [[2, 3, 1], [2, 1], 2])));
    expect(controller.image.topic('auto')!.partitions).toHaveLength(9);
    const partitions = [...spread.partitions, ...controller.image.topic('auto')!.partitions];
    expect(new Set(partitions.flatMap((p) => [p.addingReplicas, p.removingReplicas])).size).toBe(1);
    expect(partitions.every((p) => Object.isFrozen(p.replicas) && Object.isFrozen(p.isr))).toBe(true);
    // A restart decodes every record: the same image.
    expect(restartController(log).image.toJSON()).toEqual(controller.image.toJSON());
  });

  it('asks for one producer id block however many callers wait for it', async () => {
    const { controller, log } = await heldController();
    const epoch = controller.image.broker(1)!.brokerEpoch;
    let requests = 0;
    const manager = new ProducerIdManager(() => { requests++; return controller.allocateProducerIds(1, epoch); });
    const ids = [manager.generateProducerId(), manager.generateProducerId(), manager.generateProducerId()];
    await settle();
    expect(requests).toBe(1);
    log.commitAll();
    expect((await Promise.all(ids)).map((r) => r.producerId)).toEqual([0, 1, 2]);
    expect(requests).toBe(1);
  });
});
