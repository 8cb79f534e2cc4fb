/**
 * The two {@link RandomSource}s: {@link CryptoRandom} for a real broker (cluster ids, topic ids,
 * member ids must not collide across machines) and {@link SeededRandom} for tests and the
 * simulator (the same seed gives the same run).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { RandomSource } from './environment.js';

/**
 * Formats 16 random bytes as a version-4 UUID (RFC 9562 section 5.4: version nibble 4, variant
 * bits 10), in the 36-character text form of Java's `UUID.toString()`. Modifies `bytes`.
 */
export function formatUuidV4(bytes: Uint8Array): string {
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Cryptographic randomness from `node:crypto` (the operating system's CSPRNG). */
export class CryptoRandom implements RandomSource {
  nextUint32(): number {
    return randomBytes(4).readUInt32BE(0);
  }

  next(): number {
    return this.nextUint32() / 4294967296;
  }

  int(min: number, max: number): number {
    if (max < min) throw new Error(`CryptoRandom.int: empty range [${min}, ${max}]`);
    return min + Math.floor(this.next() * (max - min + 1));
  }

  fill(target: Uint8Array): void {
    const bytes = randomBytes(target.length);
    target.set(bytes);
  }

  uuid(): string {
    return randomUUID();
  }
}

/**
 * Seeded pseudo-random numbers for tests and simulators (randomness as a seam, like time and
 * disk). The generator is mulberry32: 32-bit state, fast, good enough for choosing faults; not
 * for cryptography. Print the seed on failure so a run can be replayed.
 */
export class SeededRandom implements RandomSource {
  readonly seed: number;
  private state: number;

  /** @param seed any integer; the same seed gives the same sequence */
  constructor(seed: number) {
    this.seed = seed >>> 0;
    this.state = this.seed;
  }

  /** Uniform 32-bit unsigned integer. */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [min, max] (inclusive). */
  int(min: number, max: number): number {
    if (max < min) throw new Error(`SeededRandom.int: empty range [${min}, ${max}]`);
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Fills `target` with random bytes. */
  fill(target: Uint8Array): void {
    for (let i = 0; i < target.length; i++) target[i] = this.nextUint32() & 0xff;
  }

  /** A version-4 UUID from 16 bytes of this generator (see {@link formatUuidV4}). */
  uuid(): string {
    const bytes = new Uint8Array(16);
    this.fill(bytes);
    return formatUuidV4(bytes);
  }
}
