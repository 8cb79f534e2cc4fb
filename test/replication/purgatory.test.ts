import { describe, expect, it } from 'vitest';
import { ManualScheduler } from '../../host/replication/delay-scheduler.js';
import { DelayedOperation } from '../../host/replication/delayed-operation.js';
import { Purgatory } from '../../host/replication/purgatory.js';

/** Completes once `target` units arrived on any watched key. */
class Counting extends DelayedOperation<number> {
  received = 0;
  completions = 0;
  expired = false;

  constructor(delayMs: number, private readonly target: number) {
    super(delayMs);
  }

  tryComplete(_key?: string, units?: number): boolean {
    if (units !== undefined) this.received += units;
    if (this.received >= this.target) {
      this.forceComplete();
      return true;
    }
    return false;
  }

  protected override onExpiration(): void {
    this.expired = true;
  }

  protected onComplete(): void {
    this.completions++;
  }
}

describe('Purgatory', () => {
  it('completes an operation at once when its condition already holds', () => {
    const purgatory = new Purgatory<Counting, number>('test', new ManualScheduler());
    const op = new Counting(100, 0);
    expect(purgatory.tryCompleteElseWatch(op, ['a-0'])).toBe(true);
    expect(op.completions).toBe(1);
    expect(purgatory.delayed).toBe(0);
  });

  it('completes a watched operation when a key it watches reports enough', () => {
    const scheduler = new ManualScheduler();
    const purgatory = new Purgatory<Counting, number>('test', scheduler);
    const op = new Counting(100, 5);
    expect(purgatory.tryCompleteElseWatch(op, ['a-0', 'b-0'])).toBe(false);
    expect(purgatory.checkAndComplete('c-0', 10)).toBe(0);
    expect(purgatory.checkAndComplete('a-0', 3)).toBe(0);
    expect(purgatory.checkAndComplete('b-0', 2)).toBe(1);
    expect(op.completions).toBe(1);
    expect(purgatory.delayed).toBe(0);
    expect(purgatory.watched('a-0')).toBe(0);
    scheduler.advance(1000);
    expect(op.completions).toBe(1);
    expect(op.expired).toBe(false);
    // The purgatory's timer, left set for the completed operation, does not re-arm for nothing.
    expect(scheduler.pendingCount).toBe(0);
  });

  it('expires operations with different delays each at its own deadline', () => {
    const scheduler = new ManualScheduler();
    const purgatory = new Purgatory<Counting, number>('test', scheduler);
    const slow = new Counting(300, 5);
    const fast = new Counting(100, 5);
    const middle = new Counting(200, 5);
    for (const op of [slow, fast, middle]) purgatory.tryCompleteElseWatch(op, ['a-0']);
    scheduler.advance(100);
    expect([slow.expired, fast.expired, middle.expired]).toEqual([false, true, false]);
    scheduler.advance(100);
    expect([slow.expired, middle.expired]).toEqual([false, true]);
    expect(purgatory.delayed).toBe(1);
    scheduler.advance(100);
    expect(slow.expired).toBe(true);
    expect(purgatory.delayed).toBe(0);
    expect(scheduler.pendingCount).toBe(0);
  });

  it('keeps expiring on time while many short operations complete behind a long-waiting one', () => {
    const scheduler = new ManualScheduler();
    const purgatory = new Purgatory<Counting, number>('test', scheduler);
    const idle = new Counting(30_000, 5);
    purgatory.tryCompleteElseWatch(idle, ['idle-0']);
    for (let i = 0; i < 1000; i++) {
      const op = new Counting(100, 1);
      purgatory.tryCompleteElseWatch(op, ['busy-0']);
      expect(purgatory.checkAndComplete('busy-0', 1)).toBe(1);
      expect(op.completions).toBe(1);
      scheduler.advance(1);
    }
    const late = new Counting(100, 5);
    purgatory.tryCompleteElseWatch(late, ['busy-0']);
    scheduler.advance(100);
    expect(late.expired).toBe(true);
    expect(idle.expired).toBe(false);
    expect(purgatory.delayed).toBe(1);
    scheduler.advance(30_000);
    expect(idle.expired).toBe(true);
    expect(idle.completions).toBe(1);
    expect(purgatory.delayed).toBe(0);
  });

  it('expires an operation after its delay, exactly once', () => {
    const scheduler = new ManualScheduler();
    const purgatory = new Purgatory<Counting, number>('test', scheduler);
    const op = new Counting(100, 5);
    purgatory.tryCompleteElseWatch(op, ['a-0']);
    scheduler.advance(99);
    expect(op.completions).toBe(0);
    scheduler.advance(1);
    expect(op.expired).toBe(true);
    expect(op.completions).toBe(1);
    expect(purgatory.delayed).toBe(0);
    expect(purgatory.checkAndComplete('a-0', 10)).toBe(0);
    expect(op.completions).toBe(1);
  });

  it('completes new operations at once when the bound is reached', () => {
    const purgatory = new Purgatory<Counting, number>('test', new ManualScheduler(), 2);
    const ops = [new Counting(100, 5), new Counting(100, 5), new Counting(100, 5)];
    expect(ops.map((op) => purgatory.tryCompleteElseWatch(op, ['a-0']))).toEqual([false, false, true]);
    expect(ops.map((op) => op.completions)).toEqual([0, 0, 1]);
  });

  it('completes everything watching a key, or everything, on demand', () => {
    const purgatory = new Purgatory<Counting, number>('test', new ManualScheduler());
    const a = new Counting(100, 5);
    const b = new Counting(100, 5);
    purgatory.tryCompleteElseWatch(a, ['a-0']);
    purgatory.tryCompleteElseWatch(b, ['b-0']);
    expect(purgatory.completeAll('a-0')).toBe(1);
    expect([a.completions, b.completions]).toEqual([1, 0]);
    expect(purgatory.completeAll()).toBe(1);
    expect([a.completions, b.completions]).toEqual([1, 1]);
  });
});
