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

describe('RoundRobinReplicaPlacer with broker.rack (Kafka\'s rack-aware assignment)', () => {
  const rackOf = (racks: Record<number, string | null>) => (id: number): string | null => racks[id] ?? null;

  it('follows Kafka\'s rack-aware layout for a fixed start (the rack-alternated list, then one replica per rack)', () => {
    // Racks a={0,1}, b={2,3}, c={4,5}: the alternated list is [0,2,4,1,3,5] (AdminUtils' example).
    const racks = { 0: 'a', 1: 'a', 2: 'b', 3: 'b', 4: 'c', 5: 'c' };
    const placed = new RoundRobinReplicaPlacer(() => 0).place(0, 6, 3, [5, 4, 3, 2, 1, 0], rackOf(racks));
    expect(placed.map((replicas) => replicas[0])).toEqual([0, 2, 4, 1, 3, 5]);
    for (const replicas of placed) expect(new Set(replicas.map((id) => racks[id as keyof typeof racks])).size).toBe(3);
    expect(placed[0]).toEqual([0, 2, 4]);
    expect(placed[1]).toEqual([2, 4, 1]);
  });

  it('keeps the rack-unaware layout when no broker has a rack', () => {
    const withNulls = new RoundRobinReplicaPlacer(() => 0).place(0, 10, 3, [4, 3, 2, 1, 0], () => null);
    expect(withNulls).toEqual(new RoundRobinReplicaPlacer(() => 0).place(0, 10, 3, [4, 3, 2, 1, 0]));
  });

  it('puts each partition\'s replicas on distinct racks when racks >= RF (on every rack otherwise), on distinct brokers, with leaders balanced', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 1000 }),
      fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 50 }), fc.boolean(),
      (brokerCount, rackCount, seed, partitions, startPartition, oneWithoutRack) => {
        const brokers = Array.from({ length: brokerCount }, (_, i) => 100 - 3 * i);
        // Racks by a seeded shuffle: uneven racks too; sometimes one broker has no rack (a rack of its own).
        const racks: Record<number, string | null> = {};
        brokers.forEach((id, i) => { racks[id] = `rack-${(i * 7 + seed) % rackCount}`; });
        if (oneWithoutRack) racks[brokers[seed % brokerCount]!] = null;
        const distinctRacks = new Set(Object.values(racks)).size;
        const replicationFactor = 1 + (seed % brokerCount);
        let draws = seed;
        const placed = new RoundRobinReplicaPlacer((bound) => (draws++ * 7919) % bound).place(startPartition, partitions, replicationFactor, brokers, rackOf(racks));
        expect(placed).toHaveLength(partitions);
        const leaders = new Map<number, number>();
        for (const replicas of placed) {
          expect(replicas).toHaveLength(replicationFactor);
          expect(new Set(replicas).size).toBe(replicationFactor);
          expect(replicas.every((id) => brokers.includes(id))).toBe(true);
          expect(new Set(replicas.map((id) => racks[id])).size).toBe(Math.min(replicationFactor, distinctRacks));
          leaders.set(replicas[0]!, (leaders.get(replicas[0]!) ?? 0) + 1);
        }
        // Leaders round-robin over the brokers: counts differ by at most one, and every broker leads once per lap.
        const counts = [...leaders.values()];
        expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
        expect(leaders.size).toBe(Math.min(partitions, brokerCount));
      },
    ), { numRuns: 200 });
  });
});
