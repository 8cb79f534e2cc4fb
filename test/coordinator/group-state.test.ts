import { describe, expect, it } from 'vitest';
import { GroupMetadata } from '../../host/coordinator/group-metadata.js';
import { assertValidTransition, GroupState, isValidTransition } from '../../host/coordinator/group-state.js';

const allStates = [GroupState.Empty, GroupState.PreparingRebalance, GroupState.CompletingRebalance, GroupState.Stable, GroupState.Dead];

const diagram = new Set([
  'PreparingRebalance->Empty',
  'Empty->PreparingRebalance',
  'CompletingRebalance->PreparingRebalance',
  'Stable->PreparingRebalance',
  'PreparingRebalance->CompletingRebalance',
  'CompletingRebalance->Stable',
  'Empty->Dead',
  'PreparingRebalance->Dead',
  'CompletingRebalance->Dead',
  'Stable->Dead',
  'Dead->Dead',
]);

describe('group states', () => {
  it('allow exactly the transitions drawn in the diagram', () => {
    for (const from of allStates) {
      for (const to of allStates) {
        expect(isValidTransition(from, to), `${from} -> ${to}`).toBe(diagram.has(`${from}->${to}`));
      }
    }
  });

  it('throw when a transition leaves the diagram', () => {
    expect(() => assertValidTransition('g', GroupState.Empty, GroupState.Stable)).toThrow(/Empty/);
    expect(() => assertValidTransition('g', GroupState.Stable, GroupState.CompletingRebalance)).toThrow();
    expect(() => assertValidTransition('g', GroupState.Dead, GroupState.Empty)).toThrow();
  });

  it('are stamped with the time a group entered them', () => {
    const group = new GroupMetadata('g', GroupState.Empty, 1_000);
    group.transitionTo(GroupState.PreparingRebalance, 2_000);
    expect(group.state).toBe(GroupState.PreparingRebalance);
    expect(group.currentStateTimestampMs).toBe(2_000);
    expect(() => group.transitionTo(GroupState.Stable, 3_000)).toThrow();
    expect(group.state).toBe(GroupState.PreparingRebalance);
  });
});
