/**
 * States of a classic-protocol consumer group, Kafka's GroupState (GroupMetadata.scala).
 *
 * ```
 *                 member joins / first join of an empty group (after
 *                 group.initial.rebalance.delay.ms)
 *     +-------+ --------------------------------------> +--------------------+
 *     | Empty |                                          | PreparingRebalance | <--+  join of a new member,
 *     +-------+ <-------------------------------------- +--------------------+    |  leave, session expiry,
 *       |   ^      join phase ends with no members         |            ^          |  changed metadata,
 *       |   |                                              | join phase |          |  leader re-join,
 *       |   |                                              | complete   |          |  sync timeout
 *       |   |                                              v            |          |
 *       |   |                                   +---------------------+ |          |
 *       |   |                                   | CompletingRebalance | +          |
 *       |   |                                   +---------------------+            |
 *       |   |                                              | leader's SyncGroup    |
 *       |   |                                              | assignment persisted  |
 *       |   |                                              v                       |
 *       |   |                                         +--------+                   |
 *       |   |                                         | Stable | ------------------+
 *       |   |                                         +--------+
 *       v   |  (a new group starts Empty)
 *     +------+
 *     | Dead |  <- any state: group deleted, offsets of an empty group expired, partition unloaded
 *     +------+
 * ```
 *
 * Legal source states of each transition (asserted by {@link assertValidTransition}):
 * - Empty <- PreparingRebalance
 * - PreparingRebalance <- Empty, CompletingRebalance, Stable
 * - CompletingRebalance <- PreparingRebalance
 * - Stable <- CompletingRebalance
 * - Dead <- Empty, PreparingRebalance, CompletingRebalance, Stable, Dead
 */
export enum GroupState {
  Empty = 'Empty',
  PreparingRebalance = 'PreparingRebalance',
  CompletingRebalance = 'CompletingRebalance',
  Stable = 'Stable',
  Dead = 'Dead',
}

const validPreviousStates: ReadonlyMap<GroupState, ReadonlySet<GroupState>> = new Map([
  [GroupState.Empty, new Set([GroupState.PreparingRebalance])],
  [GroupState.PreparingRebalance, new Set([GroupState.Empty, GroupState.CompletingRebalance, GroupState.Stable])],
  [GroupState.CompletingRebalance, new Set([GroupState.PreparingRebalance])],
  [GroupState.Stable, new Set([GroupState.CompletingRebalance])],
  [
    GroupState.Dead,
    new Set([
      GroupState.Empty,
      GroupState.PreparingRebalance,
      GroupState.CompletingRebalance,
      GroupState.Stable,
      GroupState.Dead,
    ]),
  ],
]);

/** Whether `from -> to` is an edge of the diagram above. */
export function isValidTransition(from: GroupState, to: GroupState): boolean {
  return validPreviousStates.get(to)!.has(from);
}

/** Throws (a bug, never a client error) when `from -> to` is not an edge of the diagram above. */
export function assertValidTransition(groupId: string, from: GroupState, to: GroupState): void {
  if (!isValidTransition(from, to)) {
    throw new Error(`Group ${groupId} should be in one of [${[...validPreviousStates.get(to)!].join(', ')}] ` +
      `before moving to ${to}, but is ${from}`);
  }
}
