import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../host/sim/raft-simulation.js';

/** Seeds of bugs the simulator found; each must stay green. */
const REGRESSION_SEEDS: readonly number[] = [
  // Followers back from a lost pre-vote round refused each other pre-votes while their dead leader
  // stayed "live" (deadline-based instead of last-successful-fetch-based): no leader after healing.
  36, 38, 62, 80,
  // A prospective went back to following the leader it had abandoned when a stale follower named it.
  928, 2777,
];

/** The short campaign of `npm test`: a few hundred seeds, a few tens of seconds on one core. */
const FIRST_SEED = 1;
const SEEDS = 500;

function failures(seeds: readonly number[]): string[] {
  const found: string[] = [];
  for (const seed of seeds) {
    const result = runSimulation({ seed });
    if (result.violation !== undefined) found.push(`SEED=${seed} step ${result.violationStep}: ${result.violation}`);
  }
  return found;
}

describe('Raft simulation', () => {
  it('keeps every invariant and makes progress after healing, for every seed of the short campaign', () => {
    const seeds = Array.from({ length: SEEDS }, (_, index) => FIRST_SEED + index);
    expect(failures(seeds)).toEqual([]);
  }, 120_000);

  it('keeps every invariant on the regression seeds', () => {
    expect(failures(REGRESSION_SEEDS)).toEqual([]);
  });

  it('replays a seed exactly', () => {
    const first = runSimulation({ seed: 4242 });
    const second = runSimulation({ seed: 4242 });
    expect(second).toEqual(first);
    expect(first.steps).toBeGreaterThan(100);
    expect(first.committed).toBeGreaterThan(0);
  });

  it('injects every fault kind over the short campaign', () => {
    const kinds = new Set<string>();
    for (let seed = FIRST_SEED; seed < FIRST_SEED + 40; seed++) {
      for (const [kind, count] of Object.entries(runSimulation({ seed }).faults)) if (count > 0) kinds.add(kind);
    }
    for (const kind of ['crash', 'restart', 'partition', 'isolateLeader', 'healPartition', 'messageLoss', 'duplication', 'reordering', 'resign', 'snapshot']) expect(kinds).toContain(kind);
  });
});
