import { describe, expect, it } from 'vitest';
import { ManualTime, SystemTime } from '../../host/io/time.js';

describe('ManualTime', () => {
  it('moves wall and monotonic clocks together, only when told', () => {
    const time = new ManualTime({ startMs: 5_000, monotonicStartMs: 10 });
    expect(time.nowMs()).toBe(5_000);
    expect(time.monotonicMs()).toBe(10);
    time.advance(250);
    expect(time.nowMs()).toBe(5_250);
    expect(time.monotonicMs()).toBe(260);
    time.set(6_000);
    expect(time.nowMs()).toBe(6_000);
    expect(time.monotonicMs()).toBe(1_010);
    expect(() => time.set(5_999)).toThrow();
    expect(() => time.advance(-1)).toThrow();
    expect(() => time.advance(Number.NaN)).toThrow();
  });

  it('takes a bare number as the wall start, and defaults to 1_700_000_000_000 and monotonic 0', () => {
    expect(new ManualTime(42).nowMs()).toBe(42);
    const time = new ManualTime();
    expect(time.nowMs()).toBe(1_700_000_000_000);
    expect(time.monotonicMs()).toBe(0);
  });

  it('runs timers due at the same instant in scheduling order, each at its own due time', () => {
    const time = new ManualTime({ startMs: 0 });
    const seen: string[] = [];
    time.setTimeout(() => seen.push(`b@${time.nowMs()}`), 20);
    time.setTimeout(() => seen.push(`a1@${time.nowMs()}`), 10);
    time.setTimeout(() => seen.push(`a2@${time.nowMs()}`), 10);
    time.setTimeout(() => seen.push(`late@${time.nowMs()}`), 31);
    time.advance(30);
    expect(seen).toEqual(['a1@10', 'a2@10', 'b@20']);
    expect(time.nowMs()).toBe(30);
    expect(time.pendingCount).toBe(1);
  });

  it('runs a timer scheduled by a timer inside the same advance, and not a cancelled one', () => {
    const time = new ManualTime({ startMs: 0 });
    const seen: number[] = [];
    const cancelled = time.setTimeout(() => seen.push(-1), 5);
    time.setTimeout(() => {
      seen.push(time.nowMs());
      time.setTimeout(() => seen.push(time.nowMs()), 3);
    }, 4);
    time.clearTimeout(cancelled);
    time.clearTimeout(cancelled);
    time.advance(10);
    expect(seen).toEqual([4, 7]);
    expect(time.pendingCount).toBe(0);
  });

  it('runs deferred tasks in order before time moves and after each timer', () => {
    const time = new ManualTime({ startMs: 0 });
    const seen: string[] = [];
    time.defer(() => {
      seen.push(`d1@${time.nowMs()}`);
      time.defer(() => seen.push(`d1.1@${time.nowMs()}`));
    });
    time.defer(() => seen.push(`d2@${time.nowMs()}`));
    time.setTimeout(() => {
      seen.push(`t@${time.nowMs()}`);
      time.defer(() => seen.push(`d3@${time.nowMs()}`));
    }, 5);
    time.setTimeout(() => seen.push(`u@${time.nowMs()}`), 5);
    expect(time.deferredCount).toBe(2);
    time.advance(10);
    expect(seen).toEqual(['d1@0', 'd2@0', 'd1.1@0', 't@5', 'd3@5', 'u@5']);
  });

  it('runDeferred runs deferred work without moving time', () => {
    const time = new ManualTime({ startMs: 0 });
    let ran = 0;
    time.defer(() => ran++);
    time.setTimeout(() => ran += 10, 0);
    time.runDeferred();
    expect(ran).toBe(1);
    expect(time.nowMs()).toBe(0);
    expect(time.pendingCount).toBe(1);
  });

  it('runUntilIdle runs everything pending, stopping at a horizon for periodic tasks', () => {
    const time = new ManualTime({ startMs: 0 });
    const seen: number[] = [];
    time.setTimeout(() => seen.push(time.nowMs()), 100);
    time.setTimeout(() => seen.push(time.nowMs()), 40);
    expect(time.runUntilIdle()).toBe(100);
    expect(seen).toEqual([40, 100]);

    let ticks = 0;
    const tick = (): void => {
      ticks++;
      time.setTimeout(tick, 10);
    };
    time.setTimeout(tick, 10);
    expect(time.runUntilIdle(55)).toBe(50);
    expect(ticks).toBe(5);
    expect(time.pendingCount).toBe(1);
  });

  it('gives the same trace for the same schedule (determinism)', () => {
    const run = (): string[] => {
      const time = new ManualTime();
      const trace: string[] = [];
      for (let i = 0; i < 20; i++) time.setTimeout(() => trace.push(`${i}@${time.monotonicMs()}`), (i * 7) % 5);
      time.runUntilIdle();
      return trace;
    };
    expect(run()).toEqual(run());
  });
});

describe('SystemTime', () => {
  it('reads the real clocks', () => {
    const time = new SystemTime();
    expect(Math.abs(time.nowMs() - Date.now())).toBeLessThan(1000);
    const before = time.monotonicMs();
    expect(time.monotonicMs()).toBeGreaterThanOrEqual(before);
  });

  it('runs a deferred task and a timer, and not a cancelled timer', async () => {
    const time = new SystemTime();
    const seen: string[] = [];
    const cancelled = time.setTimeout(() => seen.push('cancelled'), 0);
    time.clearTimeout(cancelled);
    await new Promise<void>((resolve) => {
      time.defer(() => seen.push('deferred'));
      time.setTimeout(() => {
        seen.push('timer');
        resolve();
      }, 1);
    });
    expect(seen).toEqual(['deferred', 'timer']);
  });
});
