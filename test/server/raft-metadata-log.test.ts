/**
 * Three QuorumControllers over three RaftClients (RaftMetadataLog), driven by the Raft unit
 * tests' harness on one manual clock: only the elected leader's controller writes, its answers
 * come once a majority has the batch, every controller replays the same committed image, and a
 * new leader carries on after the old one is cut off (whose pending write answers NOT_CONTROLLER).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { SeededRandom } from '../../host/io/random.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { QuorumController } from '../../host/controller/quorum-controller.js';
import { RaftMetadataLog } from '../../host/server/raft-metadata-log.js';
import { RaftHarness } from '../raft/raft-cluster-harness.js';
import { DEFAULT_CONFIG } from '../controller/controller-fixture.js';

const VOTERS = [1, 2, 3];

function quorum(): { harness: RaftHarness; controllers: Map<number, QuorumController> } {
  const harness = new RaftHarness(VOTERS, 3);
  const controllers = new Map<number, QuorumController>();
  for (const id of VOTERS) {
    controllers.set(id, new QuorumController({
      config: { ...DEFAULT_CONFIG, nodeId: id },
      log: new RaftMetadataLog(harness.node(id).client),
      random: new SeededRandom(10 + id),
      clock: new ManualClock(),
    }));
  }
  harness.start();
  harness.run(3000);
  return { harness, controllers };
}

function active(controllers: Map<number, QuorumController>): QuorumController[] {
  return [...controllers.values()].filter((controller) => controller.isActive);
}

/** Lets every settled promise's callbacks run. */
const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs the quorum until `answer` settles (bounded), then returns it. */
async function settled<T>(harness: RaftHarness, answer: Promise<T>): Promise<T> {
  let done = false;
  void answer.then(() => { done = true; });
  for (let step = 0; step < 200 && !done; step++) {
    harness.run(10);
    await drain();
  }
  return answer;
}

describe('QuorumController over a Raft quorum', () => {
  it('writes only on the leader, answers once committed, and every node replays the same image', async () => {
    const { harness, controllers } = quorum();
    const leaders = active(controllers);
    expect(leaders).toHaveLength(1);
    const leader = leaders[0]!;
    expect(harness.leaders()).toEqual([leader.nodeId]);
    for (const id of VOTERS) {
      const registered = await settled(harness, leader.registerBroker({ brokerId: id, endpoints: [] }));
      expect(registered.errorCode).toBe(0);
    }
    const pending = leader.createTopics([{ name: 'orders', numPartitions: 3, replicationFactor: 3 }]);
    expect(leader.image.topic('orders')).toBeUndefined();
    const [created] = await settled(harness, pending);
    expect(created).toMatchObject({ errorCode: 0, numPartitions: 3, replicationFactor: 3 });
    harness.run(100);
    for (const controller of controllers.values()) {
      expect(controller.image.toJSON()).toEqual(leader.image.toJSON());
      expect(controller.image.featureLevel('metadata.version')).toBeDefined();
    }
    const follower = [...controllers.values()].find((controller) => controller !== leader)!;
    const [refused] = await follower.createTopics([{ name: 'elsewhere', numPartitions: 1, replicationFactor: 1 }]);
    expect(refused!.errorCode).toBe(ErrorCode.NOT_CONTROLLER);
    expect(refused!.errorMessage).toContain(`node ${leader.nodeId}`);
  });

  it('fails the cut-off leader\'s pending write with NOT_CONTROLLER and carries on under the new leader', async () => {
    const { harness, controllers } = quorum();
    const old = active(controllers)[0]!;
    await settled(harness, old.registerBroker({ brokerId: 1, endpoints: [] }));
    harness.run(100);
    // Cut the leader off: its next write never reaches a majority.
    harness.filter = (envelope) => envelope.source !== old.nodeId && envelope.destination !== old.nodeId;
    const lost = old.createTopics([{ name: 'lost', numPartitions: 1, replicationFactor: 1 }]);
    let answer: Awaited<typeof lost> | undefined;
    void lost.then((results) => { answer = results; });
    harness.run(6000);
    await drain();
    const successors = active(controllers).filter((controller) => controller !== old);
    expect(successors).toHaveLength(1);
    const successor = successors[0]!;
    expect(old.isActive).toBe(false);
    expect(answer?.[0]?.errorCode).toBe(ErrorCode.NOT_CONTROLLER);
    const [created] = await settled(harness, successor.createTopics([{ name: 'kept', numPartitions: 2, replicationFactor: 1 }]));
    expect(created!.errorCode).toBe(0);

    harness.filter = () => true;
    harness.run(3000);
    for (const controller of controllers.values()) {
      expect(controller.image.topic('lost')).toBeUndefined();
      expect(controller.image.toJSON()).toEqual(successor.image.toJSON());
    }
    expect(successor.image.topic('kept')!.partitions).toHaveLength(2);
  });
});
