/**
 * MurmurHash2, 32-bit, as Kafka's Java client computes it (org.apache.kafka.common.utils.Utils
 * .murmur2: seed 0x9747b28c, m 0x5bd1e995, r 24, little-endian 4-byte blocks, tail bytes folded
 * in from the highest), so records with the same key land in the same partition whichever client
 * produced them. Values are Java ints (signed 32-bit).
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/** Java's Utils.murmur2 of `data`, a signed 32-bit integer. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const blocks = length >>> 2;
  for (let i = 0; i < blocks; i++) {
    const at = i * 4;
    let k = data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16) | (data[at + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }
  const tail = length & ~3;
  const rest = length & 3;
  // Java's switch falls through from case 3 to case 1.
  if (rest >= 3) h ^= data[tail + 2]! << 16;
  if (rest >= 2) h ^= data[tail + 1]! << 8;
  if (rest >= 1) {
    h ^= data[tail]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Java's Utils.toPositive: clears the sign bit (not Math.abs, which maps MIN_VALUE to itself). */
export function toPositive(value: number): number {
  return value & 0x7fffffff;
}

/** The partition Kafka's default partitioner picks for a non-null key. */
export function murmur2Partition(key: Uint8Array, partitionCount: number): number {
  return toPositive(murmur2(key)) % partitionCount;
}
