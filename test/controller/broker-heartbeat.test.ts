import { describe, expect, it, vi } from 'vitest';
import { BrokerHeartbeatManager } from '../../host/controller/broker-heartbeat-manager.js';
import { ClusterControlManager, type BrokerHeartbeat } from '../../host/controller/cluster-control-manager.js';
import type { ControllerResult } from '../../host/controller/controller-result.js';
import { MetadataImage } from '../../host/controller/metadata-image.js';
import type { MetadataRecord } from '../../host/controller/metadata-records.js';
import { RoundRobinReplicaPlacer } from '../../host/controller/replica-placer.js';
import { ReplicationControlManager } from '../../host/controller/replication-control-manager.js';
import { SeededRandom } from '../../host/io/random.js';

/** Three brokers' controller state machines over one image; `apply` replays a result's records as a commit would. */
function managers(): {
  image: MetadataImage; cluster: ClusterControlManager; replication: ReplicationControlManager;
  apply<T>(result: ControllerResult<T>): T; epochs: Map<number, number>;
} {
  const image = new MetadataImage();
  const random = new SeededRandom(5);
  let offset = 0;
  const latest = (): MetadataImage => image;
  const replication = new ReplicationControlManager({
    config: { numPartitions: 1, defaultReplicationFactor: 3, deleteTopicEnable: true },
    latest, random, replicaPlacer: new RoundRobinReplicaPlacer(() => 0),
  });
  const cluster = new ClusterControlManager({ latest, nextOffset: () => offset, random, replication });
  const apply = <T>(result: ControllerResult<T>): T => {
    for (const record of result.records as readonly MetadataRecord[]) {
      image.replay(record);
      offset += 1;
    }
    return result.response;
  };
  const epochs = new Map<number, number>();
  for (const brokerId of [1, 2, 3]) {
    const registered = apply(cluster.registerBroker({
      brokerId, fenced: true, endpoints: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9090 + brokerId, securityProtocol: 0 }],
    }));
    epochs.set(brokerId, registered.brokerEpoch);
  }
  return { image, cluster, replication, apply, epochs };
}

const beat = (brokerId: number, brokerEpoch: number, extra: Partial<BrokerHeartbeat> = {}): BrokerHeartbeat =>
  ({ brokerId, brokerEpoch, currentMetadataOffset: 100, wantFence: false, wantShutDown: false, ...extra });

describe('BrokerHeartbeat in the ClusterControlManager (KIP-631 lifecycle)', () => {
  it('a registered broker stays fenced until its replayed metadata offset reaches its registration, then is unfenced', () => {
    const { image, cluster, apply, epochs } = managers();
    const epoch = epochs.get(2)!;
    const behind = apply(cluster.processBrokerHeartbeat(beat(2, epoch, { currentMetadataOffset: epoch - 1 })));
    expect(behind).toMatchObject({ errorCode: 0, isCaughtUp: false, isFenced: true, shouldShutDown: false });
    expect(image.broker(2)!.fenced).toBe(true);
    const caughtUp = apply(cluster.processBrokerHeartbeat(beat(2, epoch, { currentMetadataOffset: epoch })));
    expect(caughtUp).toMatchObject({ errorCode: 0, isCaughtUp: true, isFenced: false });
    expect(image.broker(2)!.fenced).toBe(false);
    // A further heartbeat changes nothing.
    const again = cluster.processBrokerHeartbeat(beat(2, epoch));
    expect(again.records).toEqual([]);
    expect(again.response.isFenced).toBe(false);
  });

  it('a heartbeat of an unknown broker or an old registration is STALE_BROKER_EPOCH (77) and fenced', () => {
    const { cluster, epochs } = managers();
    expect(cluster.processBrokerHeartbeat(beat(9, 0)).response).toMatchObject({ errorCode: 77, isFenced: true });
    expect(cluster.processBrokerHeartbeat(beat(1, epochs.get(1)! + 1000)).response).toMatchObject({ errorCode: 77, isFenced: true });
  });

  it('wantFence fences an unfenced broker, and a fenced leader gives up leadership to another ISR member', () => {
    const { image, cluster, replication, apply, epochs } = managers();
    for (const id of [1, 2, 3]) apply(cluster.processBrokerHeartbeat(beat(id, epochs.get(id)!)));
    apply(replication.createTopics([{ name: 't', numPartitions: 3, replicationFactor: 3 }]));
    const led = image.topic('t')!.partitions.filter((p) => p.leader === 1).map((p) => p.partitionId);
    expect(led.length).toBeGreaterThan(0);
    const fenced = apply(cluster.processBrokerHeartbeat(beat(1, epochs.get(1)!, { wantFence: true })));
    expect(fenced.isFenced).toBe(true);
    expect(image.broker(1)!.fenced).toBe(true);
    for (const p of image.topic('t')!.partitions) {
      expect(p.leader).not.toBe(1);
      expect(p.isr).not.toContain(1);
    }
  });

  it('wantShutDown: the broker leaves ISRs and leadership first, and is fenced and told to shut down once it leads nothing', () => {
    const { image, cluster, replication, apply, epochs } = managers();
    for (const id of [1, 2, 3]) apply(cluster.processBrokerHeartbeat(beat(id, epochs.get(id)!)));
    apply(replication.createTopics([{ name: 't', numPartitions: 6, replicationFactor: 3 }]));
    const epoch = epochs.get(2)!;
    const first = apply(cluster.processBrokerHeartbeat(beat(2, epoch, { wantShutDown: true })));
    expect(first).toMatchObject({ isFenced: false, shouldShutDown: false });
    expect(image.broker(2)!.inControlledShutdown).toBe(true);
    expect(image.topic('t')!.partitions.some((p) => p.leader === 2)).toBe(false);
    const second = apply(cluster.processBrokerHeartbeat(beat(2, epoch, { wantShutDown: true })));
    expect(second).toMatchObject({ isFenced: true, shouldShutDown: true });
    expect(image.broker(2)!.fenced).toBe(true);
    // A fenced broker asking to shut down may go at once.
    expect(cluster.processBrokerHeartbeat(beat(2, epoch, { wantShutDown: true })).response.shouldShutDown).toBe(true);
  });
});

describe('fencing visits the partitions of the broker only (BrokersToIsrs)', () => {
  it('fencing, unfencing and unregistering never walk every topic, and change exactly the partitions concerned', () => {
    const { image, cluster, replication, apply, epochs } = managers();
    for (const id of [1, 2, 3]) apply(cluster.processBrokerHeartbeat(beat(id, epochs.get(id)!)));
    apply(replication.createTopics([{ name: 'wide', numPartitions: 300, replicationFactor: 1 }]));
    apply(replication.createTopics([{ name: 'shared', numPartitions: 3, replicationFactor: 3 }]));
    const inIsrOf1 = (): number => image.topics().flatMap((t) => t.partitions).filter((p) => p.isr.includes(1)).length;
    const before = inIsrOf1();
    const walks = vi.spyOn(image, 'topics');
    const fence = cluster.fenceBroker(1, epochs.get(1)!);
    // The BrokerRegistrationChangeRecord, then one PartitionChangeRecord per shared partition (the
    // single-replica ones keep broker 1 as their last ISR member and only lose their leader).
    expect(fence.records.filter((r) => r.type === 'PartitionChangeRecord')).toHaveLength(before);
    apply(fence);
    apply(cluster.unfenceBroker(1, epochs.get(1)!));
    apply(cluster.unregisterBroker(2));
    expect(walks).not.toHaveBeenCalled();
    walks.mockRestore();
    expect(image.topic('wide')!.partitions.filter((p) => p.replicas[0] === 1).every((p) => p.leader === 1)).toBe(true);
    expect(image.topic('wide')!.partitions.filter((p) => p.replicas[0] === 2).every((p) => p.leader === -1)).toBe(true);
  });
});

describe('BrokerHeartbeatManager', () => {
  it('expires brokers not heard from within broker.session.timeout.ms and reports when the next expiry is due', () => {
    const manager = new BrokerHeartbeatManager(9000);
    manager.touch(1, 0);
    manager.touch(2, 5000);
    expect(manager.expired([1, 2], 9000)).toEqual([]);
    expect(manager.nextExpiryDelayMs(9000)).toBe(1);
    expect(manager.expired([1, 2], 9001)).toEqual([1]);
    expect(manager.expired([2, 1], 14_001)).toEqual([1, 2]);
    // A candidate never heard from starts its session now.
    expect(manager.expired([3], 20_000)).toEqual([]);
    expect(manager.lastContact(3)).toBe(20_000);
  });

  it('a new active controller counts every registered broker as heard from when it takes over', () => {
    const manager = new BrokerHeartbeatManager(9000);
    manager.touch(1, 0);
    manager.resetAll([1, 2], 50_000);
    expect(manager.expired([1, 2], 59_000)).toEqual([]);
    expect(manager.expired([1, 2], 59_001)).toEqual([1, 2]);
    manager.remove(1);
    expect(manager.lastContact(1)).toBeUndefined();
    expect(() => new BrokerHeartbeatManager(0)).toThrow(RangeError);
  });
});
