import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { murmur2, murmur2Partition, toPositive } from '../../../host/clients/producer/murmur2.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/**
 * An independent reference written from the algorithm description (MurmurHash2 with Kafka's
 * seed), in BigInt arithmetic modulo 2^32, to check the Math.imul implementation.
 */
function referenceMurmur2(data: Uint8Array): number {
  const mask = 0xffffffffn;
  const m = 0x5bd1e995n;
  let h = (0x9747b28cn ^ BigInt(data.length)) & mask;
  const blocks = Math.floor(data.length / 4);
  for (let i = 0; i < blocks; i++) {
    let k = BigInt(data[4 * i]!) | (BigInt(data[4 * i + 1]!) << 8n) | (BigInt(data[4 * i + 2]!) << 16n) | (BigInt(data[4 * i + 3]!) << 24n);
    k = (k * m) & mask;
    k ^= k >> 24n;
    k = (k * m) & mask;
    h = (h * m) & mask;
    h ^= k;
  }
  const rest = data.length % 4;
  const tail = data.length - rest;
  if (rest >= 3) h ^= BigInt(data[tail + 2]!) << 16n;
  if (rest >= 2) h ^= BigInt(data[tail + 1]!) << 8n;
  if (rest >= 1) {
    h ^= BigInt(data[tail]!);
    h = (h * m) & mask;
  }
  h ^= h >> 13n;
  h = (h * m) & mask;
  h ^= h >> 15n;
  return Number(BigInt.asIntN(32, h));
}

describe('murmur2', () => {
  // The values Kafka's own UtilsTest.testMurmur2 asserts for Java's Utils.murmur2.
  it.each([
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
  ])('hashes %j to Java\'s value %d', (key, expected) => {
    expect(murmur2(bytes(key))).toBe(expected);
  });

  it('agrees with a BigInt reference implementation on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (data) => murmur2(data) === referenceMurmur2(data)), { numRuns: 500 });
  });

  it('hashes the empty key and high bytes like the reference', () => {
    expect(murmur2(new Uint8Array(0))).toBe(referenceMurmur2(new Uint8Array(0)));
    expect(murmur2(Uint8Array.of(0xff, 0xfe, 0x80))).toBe(referenceMurmur2(Uint8Array.of(0xff, 0xfe, 0x80)));
  });

  it('maps keys to partitions as Java does: toPositive(murmur2(key)) % count', () => {
    expect(toPositive(-973932308)).toBe(-973932308 & 0x7fffffff);
    expect(murmur2Partition(bytes('21'), 3)).toBe(0);
    expect(murmur2Partition(bytes('foobar'), 10)).toBe(6);
    expect(murmur2Partition(bytes('a-little-bit-long-string'), 3)).toBe(2);
    expect(murmur2Partition(bytes('abc'), 10)).toBe(7);
  });
});
