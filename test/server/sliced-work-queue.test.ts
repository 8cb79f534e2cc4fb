import { describe, expect, it } from 'vitest';
import { SlicedWorkQueue } from '../../host/server/sliced-work-queue.js';

describe('SlicedWorkQueue', () => {
  it('runs the first slice at once, one later slice per deferred turn, jobs in the order given', async () => {
    const turns: (() => void)[] = [];
    const ran: string[] = [];
    const queue = new SlicedWorkQueue((task) => turns.push(task), (error) => { throw error; });
    queue.enqueue([() => ran.push('a1'), () => ran.push('a2')]);
    queue.enqueue([() => ran.push('b1')]);
    expect(ran).toEqual(['a1']);
    expect(queue.pendingSlices).toBe(2);
    const idle = queue.whenIdle();
    turns.shift()!();
    expect(ran).toEqual(['a1', 'a2']);
    ran.push('other client');
    turns.shift()!();
    expect(ran).toEqual(['a1', 'a2', 'other client', 'b1']);
    expect(turns).toHaveLength(0);
    await idle;
  });

  it('reports a failing slice and goes on; without defer everything runs at once', () => {
    const errors: unknown[] = [];
    const ran: string[] = [];
    const queue = new SlicedWorkQueue(undefined, (error) => errors.push(error));
    queue.enqueue([() => { throw new Error('disk'); }, () => ran.push('next')]);
    expect(errors).toHaveLength(1);
    expect(ran).toEqual(['next']);
    expect(queue.pendingSlices).toBe(0);
  });

  it('whenRunThrough resolves once the slices queued before it ran, though new work keeps coming (a FIFO barrier, not idleness)', async () => {
    const turns: (() => void)[] = [];
    const ran: string[] = [];
    const queue = new SlicedWorkQueue((task) => turns.push(task), (error) => { throw error; });
    queue.enqueue([() => ran.push('a1'), () => ran.push('a2'), () => ran.push('a3')]);
    let through = false;
    let idle = false;
    void queue.whenRunThrough().then(() => { through = true; });
    void queue.whenIdle().then(() => { idle = true; });
    const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    // Every turn another job arrives: the queue is never idle.
    for (let turn = 0; turn < 5; turn++) {
      queue.enqueue([() => ran.push(`more${turn}`)]);
      turns.shift()!();
      await settle();
      expect(through).toBe(ran.includes('a3'));
    }
    expect(ran.slice(0, 3)).toEqual(['a1', 'a2', 'a3']);
    expect(through).toBe(true);
    expect(idle).toBe(false);
    expect(queue.pendingSlices).toBeGreaterThan(0);
  });

  it('whenRunThrough: at once on an empty queue; counts a failed slice as run; resolves waiters in order', async () => {
    const turns: (() => void)[] = [];
    const order: string[] = [];
    const queue = new SlicedWorkQueue((task) => turns.push(task), () => order.push('error'));
    await queue.whenRunThrough();
    queue.enqueue([() => {}, () => { throw new Error('disk'); }]);
    const first = queue.whenRunThrough().then(() => order.push('first'));
    queue.enqueue([() => {}]);
    const second = queue.whenRunThrough().then(() => order.push('second'));
    while (turns.length > 0) turns.shift()!();
    await Promise.all([first, second]);
    expect(order).toEqual(['error', 'first', 'second']);
  });

  it('whenRunThrough without defer: everything ran in enqueue, resolved at once', async () => {
    const queue = new SlicedWorkQueue(undefined, (error) => { throw error; });
    queue.enqueue([() => {}, () => {}]);
    await queue.whenRunThrough();
  });

  it('a slice ending in a promise holds the queue until it settles, counts as run only then, and a rejection is reported', async () => {
    const turns: (() => void)[] = [];
    const ran: string[] = [];
    const errors: unknown[] = [];
    const queue = new SlicedWorkQueue((task) => turns.push(task), (error) => errors.push(error));
    let finishA!: () => void;
    let failB!: (error: Error) => void;
    queue.enqueue([() => {
      ran.push('a sync');
      return new Promise<void>((resolve) => { finishA = () => { ran.push('a done'); resolve(); }; });
    }, () => {
      ran.push('b sync');
      return new Promise<void>((_, reject) => { failB = reject; });
    }, () => { ran.push('c'); }]);
    let through = false;
    void queue.whenRunThrough().then(() => { through = true; });
    expect(ran).toEqual(['a sync']);
    // Waiting on a's promise: no turn is scheduled and later enqueues do not start anything.
    expect(turns).toHaveLength(0);
    queue.enqueue([() => { ran.push('d'); }]);
    expect(ran).toEqual(['a sync']);
    expect(queue.pendingSlices).toBe(4);
    finishA();
    await Promise.resolve();
    await Promise.resolve();
    expect(turns).toHaveLength(1);
    turns.shift()!();
    expect(ran).toEqual(['a sync', 'a done', 'b sync']);
    expect(turns).toHaveLength(0);
    failB(new Error('rename failed'));
    for (let i = 0; i < 4 && turns.length === 0; i++) await Promise.resolve();
    expect(errors).toHaveLength(1);
    while (turns.length > 0) turns.shift()!();
    await Promise.resolve();
    expect(ran).toEqual(['a sync', 'a done', 'b sync', 'c', 'd']);
    expect(through).toBe(true);
    expect(queue.pendingSlices).toBe(0);
  });

  it('without defer, a promise still holds the queue; the rest runs when it settles', async () => {
    const ran: string[] = [];
    const queue = new SlicedWorkQueue(undefined, (error) => { throw error; });
    let finish!: () => void;
    queue.enqueue([() => new Promise<void>((resolve) => { finish = resolve; }), () => { ran.push('after'); }]);
    expect(ran).toEqual([]);
    finish();
    await queue.whenIdle();
    expect(ran).toEqual(['after']);
  });
});
