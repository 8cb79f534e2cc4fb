import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RingFrameArena } from '../../host/wasm/frame-arena.js';

function offsetIn(region: Buffer, block: Buffer): number {
  return block.byteOffset - region.byteOffset;
}

describe('RingFrameArena', () => {
  it('starts again at the region start once every block is released', () => {
    const region = Buffer.alloc(4096);
    const arena = new RingFrameArena(region);
    const a = arena.allocate(1000)!;
    const b = arena.allocate(1000)!;
    expect(offsetIn(region, a)).toBe(0);
    expect(offsetIn(region, b)).toBe(1024); // 64-byte aligned after a
    arena.release(a);
    arena.release(b);
    expect(arena.liveBlocks).toBe(0);
    expect(offsetIn(region, arena.allocate(10)!)).toBe(0);
  });

  it('reclaims space only when every older block is released (out-of-order completion)', () => {
    const region = Buffer.alloc(3 * 1024);
    const arena = new RingFrameArena(region);
    const a = arena.allocate(1024)!;
    const b = arena.allocate(1024)!;
    const c = arena.allocate(1024)!;
    arena.release(b);
    expect(arena.allocate(1)).toBeNull(); // b's space is behind the live a
    arena.release(a);
    const d = arena.allocate(2048)!; // wraps to the start: a and b are both free
    expect(offsetIn(region, d)).toBe(0);
    expect(arena.allocate(1)).toBeNull(); // c still holds the tail
    arena.release(c);
    arena.release(d);
    expect(arena.liveBlocks).toBe(0);
  });

  it('wraps to the start when the tail has no room, and never overlaps the oldest live block', () => {
    const region = Buffer.alloc(4096);
    const arena = new RingFrameArena(region);
    const a = arena.allocate(1500)!;
    const b = arena.allocate(1500)!; // at 1536
    arena.release(a);
    expect(arena.allocate(1600)).toBeNull(); // neither the tail (3072..4096) nor the head (0..1536) fits
    const c = arena.allocate(1536)!;
    expect(offsetIn(region, c)).toBe(0);
    expect(arena.allocate(1)).toBeNull(); // c ends exactly where the live b starts
    arena.release(b);
    arena.release(c);
  });

  it('returns null for a frame larger than the region and rejects non-positive sizes', () => {
    const arena = new RingFrameArena(Buffer.alloc(1024));
    expect(arena.allocate(1025)).toBeNull();
    expect(() => arena.allocate(0)).toThrow();
    expect(() => arena.allocate(1.5)).toThrow();
  });

  it('refuses a double release and a buffer it did not hand out', () => {
    const region = Buffer.alloc(1024);
    const arena = new RingFrameArena(region);
    const a = arena.allocate(100)!;
    arena.release(a);
    expect(() => arena.release(a)).toThrow(/not live/);
    expect(() => arena.release(Buffer.alloc(100))).toThrow(/not live/);
    const b = arena.allocate(100)!;
    expect(() => arena.release(b.subarray(1))).toThrow(/not live/);
    expect(arena.owns(b.subarray(10, 20))).toBe(true);
    expect(arena.owns(Buffer.alloc(10))).toBe(false);
  });

  it('never hands out overlapping live blocks, whatever the order of allocations and releases (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.record({ allocate: fc.integer({ min: 1, max: 700 }) }), fc.record({ release: fc.nat() })), { maxLength: 80 }),
        (steps) => {
          const region = Buffer.alloc(2048);
          const arena = new RingFrameArena(region);
          const live: { block: Buffer; fill: number }[] = [];
          let fill = 0;
          for (const step of steps) {
            if ('allocate' in step) {
              const block = arena.allocate(step.allocate);
              if (block === null) continue;
              expect(block.length).toBe(step.allocate);
              fill = (fill + 1) % 256;
              block.fill(fill);
              live.push({ block, fill });
            } else if (live.length > 0) {
              const [victim] = live.splice(step.release % live.length, 1);
              arena.release(victim!.block);
            }
            // Every live block still holds what its owner wrote: nothing overlapped it.
            for (const { block, fill: expected } of live) expect(block.every((b) => b === expected)).toBe(true);
          }
          for (const { block } of live) arena.release(block);
          expect(arena.liveBlocks).toBe(0);
        },
      ),
    );
  });
});
