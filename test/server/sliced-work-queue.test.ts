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
});
