import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cooperativeStickyAssignor, rangeAssignor, roundRobinAssignor, stickyAssignor, type AssignorMember } from '../../../host/clients/consumer/assignors.js';
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from '../../../host/clients/consumer/consumer-protocol.js';

function member(memberId: string, topics: string[], owned: Record<string, number[]> = {}, groupInstanceId: string | null = null): AssignorMember {
  return { memberId, groupInstanceId, subscription: { topics, userData: null, ownedPartitions: owned, generationId: -1, rackId: null } };
}

describe('range assignor', () => {
  it('gives each member a contiguous range per topic, extras to the first members (Java RangeAssignor)', () => {
    const plan = rangeAssignor.assign([member('c1', ['t']), member('c0', ['t'])], new Map([['t', 5]]));
    expect(plan.get('c0')).toEqual({ t: [0, 1, 2] });
    expect(plan.get('c1')).toEqual({ t: [3, 4] });
  });

  it('assigns each topic independently, only to its subscribers', () => {
    const plan = rangeAssignor.assign(
      [member('a', ['t1', 't2']), member('b', ['t1'])],
      new Map([['t1', 2], ['t2', 3]]),
    );
    expect(plan.get('a')).toEqual({ t1: [0], t2: [0, 1, 2] });
    expect(plan.get('b')).toEqual({ t1: [1] });
  });

  it('orders static members by group.instance.id before member id', () => {
    const plan = rangeAssignor.assign([member('a', ['t'], {}, 'zz'), member('b', ['t'], {}, 'aa')], new Map([['t', 2]]));
    expect(plan.get('b')).toEqual({ t: [0] });
    expect(plan.get('a')).toEqual({ t: [1] });
  });
});

describe('round-robin assignor', () => {
  it('deals all partitions in (topic, partition) order to the sorted members', () => {
    const plan = roundRobinAssignor.assign([member('b', ['t1', 't2']), member('a', ['t1', 't2'])], new Map([['t1', 3], ['t2', 2]]));
    expect(plan.get('a')).toEqual({ t1: [0, 2], t2: [1] });
    expect(plan.get('b')).toEqual({ t1: [1], t2: [0] });
  });

  it('skips members not subscribed to a topic', () => {
    const plan = roundRobinAssignor.assign([member('a', ['t1']), member('b', ['t1', 't2'])], new Map([['t1', 2], ['t2', 2]]));
    expect(plan.get('a')).toEqual({ t1: [0] });
    expect(plan.get('b')).toEqual({ t1: [1], t2: [0, 1] });
  });
});

describe('sticky assignor', () => {
  it('keeps owned partitions when they are balanced and gives a newcomer the surplus', () => {
    const plan = stickyAssignor.assign(
      [member('a', ['t'], { t: [0, 1, 2] }), member('b', ['t'], { t: [3, 4, 5] }), member('c', ['t'])],
      new Map([['t', 6]]),
    );
    expect(plan.get('a')!.t!.every((p) => [0, 1, 2].includes(p))).toBe(true);
    expect(plan.get('b')!.t!.every((p) => [3, 4, 5].includes(p))).toBe(true);
    expect([...plan.values()].map((a) => a.t?.length ?? 0)).toEqual([2, 2, 2]);
  });
});

describe('cooperative-sticky assignor', () => {
  it('withholds partitions that move until their owner has revoked them', () => {
    const members = [member('a', ['t'], { t: [0, 1, 2, 3] }), member('b', ['t'])];
    const first = cooperativeStickyAssignor.assign(members, new Map([['t', 4]]));
    expect(first.get('a')!.t!.length).toBe(2);
    expect(first.get('b')).toEqual({});
    const second = cooperativeStickyAssignor.assign(
      [member('a', ['t'], first.get('a')!), member('b', ['t'])], new Map([['t', 4]]));
    expect(second.get('a')).toEqual(first.get('a'));
    expect([...second.get('a')!.t!, ...second.get('b')!.t!].sort()).toEqual([0, 1, 2, 3]);
  });
});

describe('every assignor', () => {
  it('assigns each partition of subscribed topics exactly once, to a subscriber, balanced within one', () => {
    const scenario = fc.record({
      memberCount: fc.integer({ min: 1, max: 6 }),
      partitions: fc.integer({ min: 0, max: 20 }),
    });
    fc.assert(fc.property(scenario, ({ memberCount, partitions }) => {
      const members = Array.from({ length: memberCount }, (_, i) => member(`m${i}`, ['t']));
      for (const assignor of [rangeAssignor, roundRobinAssignor, stickyAssignor]) {
        const plan = assignor.assign(members, new Map([['t', partitions]]));
        const all = [...plan.values()].flatMap((a) => a.t ?? []).sort((x, y) => x - y);
        if (JSON.stringify(all) !== JSON.stringify(Array.from({ length: partitions }, (_, i) => i))) return false;
        const counts = [...plan.values()].map((a) => a.t?.length ?? 0);
        if (Math.max(...counts) - Math.min(...counts) > 1) return false;
      }
      return true;
    }), { numRuns: 200 });
  });
});

describe('consumer protocol bytes', () => {
  it('round-trips a subscription with owned partitions and an assignment', () => {
    const subscription = decodeSubscription(encodeSubscription({ topics: ['b', 'a'], ownedPartitions: { a: [1, 0] }, generationId: 4, rackId: 'r1' }));
    expect(subscription).toEqual({ topics: ['a', 'b'], userData: null, ownedPartitions: { a: [0, 1] }, generationId: 4, rackId: 'r1' });
    expect(decodeAssignment(encodeAssignment({ partitions: { t: [2, 0] } }))).toEqual({ partitions: { t: [0, 2] }, userData: null });
  });

  it('reads an empty assignment as no partitions and garbage as null', () => {
    expect(decodeAssignment(new Uint8Array(0))).toEqual({ partitions: {}, userData: null });
    expect(decodeAssignment(Uint8Array.of(0, 0, 0xff))).toBeNull();
  });
});
