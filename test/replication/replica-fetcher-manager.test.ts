/**
 * ReplicaFetcherManager: partitions grouped by (leader, Kafka's fetcher id), moved when their
 * leader changes, removed when this broker leads or stops hosting them, idle fetchers stopped.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_REPLICA_FETCHER_CONFIG } from '../../host/config/replica-fetcher-config.js';
import { ManualTime } from '../../host/io/time.js';
import { ReplicaFetcherManager } from '../../host/replication/replica-fetcher-manager.js';
import { FakeLeader, FakeReplica, pump } from './fetcher-fakes.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

function setup(numReplicaFetchers = 1): { time: ManualTime; leaders: Map<number, FakeLeader>; manager: ReplicaFetcherManager } {
  const time = new ManualTime();
  const leaders = new Map([1, 2, 3].map((id) => [id, new FakeLeader(id)]));
  const manager = new ReplicaFetcherManager({
    brokerId: 9,
    settings: { ...DEFAULT_REPLICA_FETCHER_CONFIG, numReplicaFetchers },
    time,
    leaderEndPoint: (leaderId) => leaders.get(leaderId)!,
    logger: silent,
  });
  return { time, leaders, manager };
}

describe('ReplicaFetcherManager', () => {
  it('computes Kafka\'s fetcher id: abs(31 * topic.hashCode() + partition) % num.replica.fetchers', () => {
    const { manager } = setup(3);
    // "orders".hashCode() in Java is -1008770331.
    expect(manager.fetcherId('orders', 0)).toBe(Math.abs((31 * -1008770331 + 0) | 0) % 3);
    expect(manager.fetcherId('orders', 1)).toBe(Math.abs((Math.imul(31, -1008770331) + 1) | 0) % 3);
    const ids = new Set(Array.from({ length: 12 }, (_, p) => manager.fetcherId('orders', p)));
    expect(ids).toEqual(new Set([0, 1, 2]));
  });

  it('fetches each partition from its leader, one fetcher per (leader, fetcher id)', async () => {
    const { time, leaders, manager } = setup(2);
    const replicas = [0, 1, 2, 3].map((p) => new FakeReplica('t', p));
    for (const [p, leaderId] of [[0, 1], [1, 1], [2, 2], [3, 2]] as const) leaders.get(leaderId)!.log('t', p, 0).appendBatch(p + 1, 0);
    manager.addFetcherForPartitions(replicas.map((replica, p) => ({ replica, leaderId: p < 2 ? 1 : 2, leaderEpoch: 0 })));
    const expectedFetchers = new Set(replicas.map((r, p) => `${p < 2 ? 1 : 2}/${manager.fetcherId('t', p)}`)).size;
    expect(manager.fetcherCount).toBe(expectedFetchers);
    await pump(time, 2);
    expect(replicas.map((r) => r.logEndOffset)).toEqual([1, 2, 3, 4]);
    expect(manager.leaderOf('t', 2)).toBe(2);
    manager.shutdown();
  });

  it('moves a partition to its new leader\'s fetcher and stops idle fetchers', async () => {
    const { time, leaders, manager } = setup();
    const replica = new FakeReplica('t', 0);
    leaders.get(1)!.log('t', 0, 0).appendBatch(1, 0);
    manager.addFetcherForPartitions([{ replica, leaderId: 1, leaderEpoch: 0 }]);
    await pump(time, 2);
    expect(replica.logEndOffset).toBe(1);
    const newLeader = leaders.get(3)!;
    const log = newLeader.log('t', 0, 1);
    log.appendBatch(1, 0);
    log.appendBatch(2, 1);
    manager.addFetcherForPartitions([{ replica, leaderId: 3, leaderEpoch: 1 }]);
    expect(manager.fetcherCount).toBe(1);
    expect(manager.leaderOf('t', 0)).toBe(3);
    const before = leaders.get(1)!.requests.length;
    await pump(time, 3);
    expect(leaders.get(1)!.requests.length).toBe(before);
    expect(replica.logEndOffset).toBe(3);
    manager.shutdown();
  });

  it('stops fetching a removed partition (this broker became its leader)', async () => {
    const { time, leaders, manager } = setup();
    const replica = new FakeReplica('t', 0);
    leaders.get(1)!.log('t', 0, 0);
    manager.addFetcherForPartitions([{ replica, leaderId: 1, leaderEpoch: 0 }]);
    await pump(time, 1);
    manager.removeFetcherForPartitions([{ topic: 't', partition: 0 }]);
    expect(manager.fetcherCount).toBe(0);
    expect(manager.leaderOf('t', 0)).toBeUndefined();
    leaders.get(1)!.log('t', 0).appendBatch(5, 0);
    await pump(time, 3);
    expect(replica.logEndOffset).toBe(0);
  });
});
