import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { getCore, type IndexRegion } from '../../host/wasm/core.js';

const core = getCore();
const regions: IndexRegion[] = [];

function alloc(capacityBytes: number): IndexRegion {
  const region = core.allocIndex(capacityBytes);
  expect(region).not.toBeNull();
  regions.push(region!);
  return region!;
}

afterEach(() => {
  while (regions.length) core.freeIndex(regions.pop()!);
});

function bruteForceLargestAtMost(keys: number[], target: number): number {
  let found = -1;
  keys.forEach((key, slot) => { if (key <= target) found = slot; });
  return found;
}

const sortedUnique = (arb: fc.Arbitrary<number>, maxLength: number) =>
  fc.uniqueArray(arb, { maxLength }).map((keys) => keys.sort((a, b) => a - b));

describe('offset index', () => {
  it('appends Kafka 8-byte big-endian entries and finds the largest entry <= target like a brute-force model', () => {
    fc.assert(
      fc.property(sortedUnique(fc.nat(1_000_000), 200), fc.array(fc.integer({ min: -10, max: 1_000_010 }), { maxLength: 30 }), (keys, targets) => {
        const region = alloc(200 * 8);
        let count = 0;
        keys.forEach((key, slot) => { count = core.offsetIndexAppend(region, count, key, slot * 100); });
        expect(count).toBe(keys.length);
        keys.forEach((key, slot) => {
          expect(region.view.readInt32BE(slot * 8)).toBe(key);
          expect(region.view.readInt32BE(slot * 8 + 4)).toBe(slot * 100);
        });
        for (const target of [...targets, ...keys]) {
          expect(core.offsetIndexLookup(region, count, target)).toBe(bruteForceLargestAtMost(keys, target));
        }
        core.freeIndex(regions.pop()!);
      }),
      { numRuns: 200 },
    );
  });

  it('returns -1 on an empty index and when full, and throws on an out-of-order append', () => {
    const region = alloc(16);
    expect(core.offsetIndexLookup(region, 0, 5)).toBe(-1);
    expect(core.offsetIndexAppend(region, 0, 3, 0)).toBe(1);
    expect(() => core.offsetIndexAppend(region, 1, 3, 10)).toThrow();
    expect(core.offsetIndexAppend(region, 1, 4, 10)).toBe(2);
    expect(core.offsetIndexAppend(region, 2, 5, 20)).toBe(-1);
    expect(core.offsetIndexLookup(region, 2, 2)).toBe(-1);
  });

  it('searches entries written directly into the view', () => {
    const region = alloc(8 * 3);
    [[0, 0], [10, 4096], [20, 8192]].forEach(([offset, position], slot) => {
      region.view.writeInt32BE(offset!, slot * 8);
      region.view.writeInt32BE(position!, slot * 8 + 4);
    });
    expect(core.offsetIndexLookup(region, 3, 15)).toBe(1);
    expect(core.offsetIndexLookup(region, 3, 20)).toBe(2);
  });
});

describe('time index', () => {
  it('appends Kafka 12-byte entries and finds the largest entry <= target like a brute-force model', () => {
    fc.assert(
      fc.property(
        sortedUnique(fc.integer({ min: -1_000_000, max: 2 ** 45 }), 150),
        fc.array(fc.oneof(fc.integer({ min: -1_000_010, max: 2 ** 45 + 10 }), fc.constant(Number.MAX_SAFE_INTEGER), fc.constant(-Infinity), fc.constant(Infinity)), { maxLength: 30 }),
        (timestamps, targets) => {
          const region = alloc(150 * 12);
          let count = 0;
          timestamps.forEach((timestamp, slot) => { count = core.timeIndexAppend(region, count, timestamp, slot); });
          expect(count).toBe(timestamps.length);
          timestamps.forEach((timestamp, slot) => {
            expect(Number(region.view.readBigInt64BE(slot * 12))).toBe(timestamp);
            expect(region.view.readInt32BE(slot * 12 + 8)).toBe(slot);
          });
          for (const target of [...targets, ...timestamps]) {
            expect(core.timeIndexLookup(region, count, target)).toBe(bruteForceLargestAtMost(timestamps, target));
          }
          core.freeIndex(regions.pop()!);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('ignores an append with an equal timestamp and throws when time or offset goes backwards', () => {
    const region = alloc(12 * 4);
    expect(core.timeIndexAppend(region, 0, 100, 0)).toBe(1);
    expect(core.timeIndexAppend(region, 1, 100, 5)).toBe(1);
    expect(() => core.timeIndexAppend(region, 1, 99, 6)).toThrow();
    expect(() => core.timeIndexAppend(region, 1, 101, -1)).toThrow();
    expect(core.timeIndexAppend(region, 1, 101, 6)).toBe(2);
  });
});

describe('index arena', () => {
  it('hands out zeroed, non-overlapping regions, reuses freed space and returns null when full', () => {
    const a = alloc(1000);
    a.view.fill(0xff);
    const b = alloc(1000);
    expect(b.ptr).toBeGreaterThanOrEqual(a.ptr + 1000);
    core.freeIndex(regions.shift()!);
    const c = alloc(1000);
    expect(c.ptr).toBe(a.ptr);
    expect(c.view.every((byte) => byte === 0)).toBe(true);
    expect(core.allocIndex(core.arenaCapacityBytes)).toBeNull();
  });

  it('coalesces freed neighbours so a region spanning both fits at the lower address', () => {
    const first = core.allocIndex(4096)!;
    const second = core.allocIndex(4096)!;
    const keeper = alloc(64); // keeps the freed pair apart from the free tail of the arena
    expect(keeper.ptr).toBe(second.ptr + 4096);
    core.freeIndex(second);
    core.freeIndex(first);
    const spanning = alloc(8192);
    expect(spanning.ptr).toBe(first.ptr);
  });

  it('throws on a double free', () => {
    const region = core.allocIndex(64)!;
    core.freeIndex(region);
    expect(() => core.freeIndex(region)).toThrow();
  });
});
