import { describe, expect, it } from 'vitest';
import { WebSocketMemoryBudget, type BufferedMemoryHolder } from '../../host/network/websocket-memory-budget.js';

/** A socket whose holdings the test sets; records its cut-off reason. */
class Holder implements BufferedMemoryHolder {
  cutOff: string | null = null;
  constructor(public heldBytes: number) {}
  terminate(reason: string): void {
    this.cutOff = reason;
  }
}

function heldTurns(): { defer: (task: () => void) => void; run: () => number } {
  const tasks: (() => void)[] = [];
  return { defer: (task) => tasks.push(task), run: () => { const n = tasks.length; tasks.splice(0).forEach((task) => task()); return n; } };
}

describe('WebSocketMemoryBudget (websocket.max.total.buffered.bytes)', () => {
  it('cuts off the largest holders, in a later turn, until the total is under the capacity', () => {
    const turns = heldTurns();
    const budget = new WebSocketMemoryBudget(100, turns.defer);
    const small = new Holder(10);
    const middle = new Holder(40);
    const large = new Holder(70);
    for (const holder of [small, middle, large]) budget.update(holder, holder.heldBytes);
    expect(budget.usedBytes).toBe(120);
    expect(large.cutOff).toBeNull();
    expect(turns.run()).toBe(1);
    expect(large.cutOff).toContain('websocket.max.total.buffered.bytes (100)');
    expect(large.cutOff).toContain('holds 70 bytes');
    expect(middle.cutOff).toBeNull();
    expect(small.cutOff).toBeNull();
    expect(budget.usedBytes).toBe(50);
    expect(budget.cutOffs).toBe(1);
  });

  it('re-reads every figure before cutting: a socket that drained meanwhile is not cut', () => {
    const turns = heldTurns();
    const budget = new WebSocketMemoryBudget(100, turns.defer);
    const drains = new Holder(90);
    const other = new Holder(30);
    budget.update(drains, 90);
    budget.update(other, 30);
    drains.heldBytes = 0;
    turns.run();
    expect(drains.cutOff).toBeNull();
    expect(other.cutOff).toBeNull();
    expect(budget.usedBytes).toBe(30);
  });

  it('cuts as many as it takes, schedules one check per excess, and forgets removed sockets', () => {
    const turns = heldTurns();
    const budget = new WebSocketMemoryBudget(50, turns.defer);
    const holders = [new Holder(40), new Holder(35), new Holder(30), new Holder(5)];
    for (const holder of holders) budget.update(holder, holder.heldBytes);
    expect(turns.run()).toBe(1);
    expect(holders.map((holder) => holder.cutOff !== null)).toEqual([true, true, false, false]);
    expect(budget.usedBytes).toBe(35);
    budget.remove(holders[2]!);
    expect(budget.usedBytes).toBe(5);
    expect(turns.run()).toBe(0);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new WebSocketMemoryBudget(0, () => {})).toThrow(RangeError);
  });
});
