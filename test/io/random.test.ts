import { describe, expect, it } from 'vitest';
import { CryptoRandom, formatUuidV4, SeededRandom } from '../../host/io/random.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('SeededRandom', () => {
  it('gives the same numbers, bytes and uuids for the same seed', () => {
    const draw = (seed: number): unknown[] => {
      const random = new SeededRandom(seed);
      const bytes = new Uint8Array(8);
      random.fill(bytes);
      return [random.nextUint32(), random.next(), random.int(1, 6), [...bytes], random.uuid(), random.uuid()];
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it('makes version-4 uuids that differ from one call to the next', () => {
    const random = new SeededRandom(1);
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const uuid = random.uuid();
      expect(uuid).toMatch(UUID_V4);
      seen.add(uuid);
    }
    expect(seen.size).toBe(1000);
  });
});

describe('CryptoRandom', () => {
  it('stays in range and makes version-4 uuids', () => {
    const random = new CryptoRandom();
    for (let i = 0; i < 100; i++) {
      const value = random.int(3, 9);
      expect(value).toBeGreaterThanOrEqual(3);
      expect(value).toBeLessThanOrEqual(9);
      const unit = random.next();
      expect(unit).toBeGreaterThanOrEqual(0);
      expect(unit).toBeLessThan(1);
    }
    expect(random.uuid()).toMatch(UUID_V4);
    expect(() => random.int(2, 1)).toThrow();
  });
});

describe('formatUuidV4', () => {
  it('sets the version and variant bits and prints Java form', () => {
    expect(formatUuidV4(new Uint8Array(16).fill(0xff))).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(formatUuidV4(new Uint8Array(16))).toBe('00000000-0000-4000-8000-000000000000');
  });
});
