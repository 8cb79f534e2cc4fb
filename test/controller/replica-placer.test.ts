import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RoundRobinReplicaPlacer } from '../../host/controller/replica-placer.js';

describe('RoundRobinReplicaPlacer', () => {
  it('places every replica of a single-node cluster on that node', () => {
    const placer = new RoundRobinReplicaPlacer(() => 0);
    expect(placer.place(0, 3, 1, [5])).toEqual([[5], [5], [5]]);
  });

  it('follows Kafka\'s rack-unaware layout for a fixed start', () => {
    // Start index 0 and shift 0 over brokers 0..4 (the example of Kafka's AdminUtils docs).
    const placer = new RoundRobinReplicaPlacer(() => 0);
    expect(placer.place(0, 10, 3, [4, 3, 2, 1, 0])).toEqual([
      [0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 0], [4, 0, 1],
      [0, 2, 3], [1, 3, 4], [2, 4, 0], [3, 0, 1], [4, 1, 2],
    ]);
  });

  it('gives each partition distinct replicas and spreads leaders evenly for any start', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 7 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 50 }),
      (brokerCount, seed, partitions, startPartition) => {
        const brokers = Array.from({ length: brokerCount }, (_, i) => 10 + i);
        const replicationFactor = 1 + (seed % brokerCount);
        let draws = seed;
        const placer = new RoundRobinReplicaPlacer((bound) => (draws++ * 7919) % bound);
        const placed = placer.place(startPartition, partitions, replicationFactor, brokers);
        if (placed.length !== partitions) return false;
        const leaders = new Map<number, number>();
        for (const replicas of placed) {
          if (replicas.length !== replicationFactor || new Set(replicas).size !== replicationFactor) return false;
          if (!replicas.every((id) => brokers.includes(id))) return false;
          leaders.set(replicas[0]!, (leaders.get(replicas[0]!) ?? 0) + 1);
        }
        const counts = [...leaders.values()];
        return Math.max(...counts) - Math.min(...counts) <= 1;
      },
    ), { numRuns: 200 });
  });

  it('throws when asked for more replicas than brokers (callers validate first)', () => {
    expect(() => new RoundRobinReplicaPlacer(() => 0).place(0, 1, 2, [1])).toThrow(/replication factor 2/);
  });
});
