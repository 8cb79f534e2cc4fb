/**
 * Seeded pseudo-random numbers for tests and simulators (randomness as a seam, like time and
 * disk). The generator is mulberry32: 32-bit state, fast, good enough for choosing faults; not
 * for cryptography. Print the seed on failure so a run can be replayed.
 */
export class SeededRandom {
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
}
