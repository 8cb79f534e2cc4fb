import { describe, expect, it } from 'vitest';
import { mapInSlices, nextTurn } from '../../host/api/request-slices.js';

/** A defer that holds tasks until the test runs them (one event-loop turn each). */
function heldTurns(): { defer: (task: () => void) => void; runNext: () => boolean; pending: () => number } {
  const tasks: (() => void)[] = [];
  return { defer: (task) => tasks.push(task), runNext: () => (tasks.shift()?.(), tasks.length >= 0), pending: () => tasks.length };
}

const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('mapInSlices (issue 15: bounded work per request turn)', () => {
  it('maps a long list slice by slice, one event-loop turn between slices, keeping the order', async () => {
    const turns = heldTurns();
    const seen: number[][] = [];
    const items = Array.from({ length: 10 }, (_, i) => i);
    const done = mapInSlices(items, 4, (slice) => {
      seen.push([...slice]);
      return slice.map((item) => item * 10);
    }, turns.defer);
    await flush();
    expect(seen).toEqual([[0, 1, 2, 3]]);
    expect(turns.pending()).toBe(1);
    turns.runNext();
    await flush();
    expect(seen).toHaveLength(2);
    turns.runNext();
    expect(await done).toEqual(items.map((item) => item * 10));
    expect(seen).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]);
  });

  it('keeps one slice (and any list without a defer) synchronous', async () => {
    const turns = heldTurns();
    expect(await mapInSlices([1, 2, 3], 3, (slice) => slice.map((item) => -item), turns.defer)).toEqual([-1, -2, -3]);
    expect(await mapInSlices([1, 2, 3, 4, 5], 2, (slice) => [...slice], undefined)).toEqual([1, 2, 3, 4, 5]);
    expect(turns.pending()).toBe(0);
    await nextTurn(undefined);
  });
});
