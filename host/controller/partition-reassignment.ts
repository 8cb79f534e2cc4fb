/**
 * The replica arithmetic of a partition reassignment (KIP-455 as Kafka's KRaft controller does
 * it: PartitionReassignmentReplicas, PartitionReassignmentRevert). A reassignment from the
 * current replicas C to the target T runs in three stages:
 *
 * ```
 * 1. one PartitionChangeRecord: replicas = T then (C - T), adding = T - C, removing = C - T
 *    (the leader keeps leading; the adding replicas become followers and fetch)
 * 2. the leader proposes each adding replica for the ISR once it caught up (AlterPartition)
 * 3. when every replica of T is in the ISR: replicas = T, ISR = ISR - removing, adding =
 *    removing = [] (partition-change-builder.ts completes it on any change; a leader being
 *    removed is replaced from T by the election)
 * ```
 *
 * A target that only reorders C (or whose new replicas are already in the ISR) completes in the
 * first record. Cancelling (null replicas) reverts: replicas = the original ones (the union
 * without the adding ones), ISR without the adding ones; when only adding replicas were in sync,
 * the first original replica becomes the ISR, an unclean election the topic must allow.
 */

/** A partition's replicas, adding and removing replicas (PartitionRegistration's fields). */
export interface ReassignmentReplicas {
  /** Target replicas first, then the removing ones. */
  readonly replicas: readonly number[];
  readonly adding: readonly number[];
  readonly removing: readonly number[];
}

/** Whether a reassignment is in flight (Kafka's isReassignmentInProgress). */
export function isReassignmentInProgress(partition: { readonly addingReplicas: readonly number[]; readonly removingReplicas: readonly number[] }): boolean {
  return partition.addingReplicas.length > 0 || partition.removingReplicas.length > 0;
}

/**
 * Stage 1 (Kafka's PartitionReassignmentReplicas(current, target)): removing = current - target
 * and adding = target - current, each ascending; replicas = target, then the removing ones.
 * `current` is the partition's replicas now (during a reassignment, the union: a replica being
 * added that the new target leaves out is removed in turn).
 */
export function reassignmentReplicas(current: readonly number[], target: readonly number[]): ReassignmentReplicas {
  const removing = current.filter((id) => !target.includes(id)).sort((a, b) => a - b);
  const adding = target.filter((id) => !current.includes(id)).sort((a, b) => a - b);
  return { replicas: [...target, ...removing], adding, removing };
}

/**
 * Stage 3 (Kafka's maybeCompleteReassignment): the replicas and ISR once the reassignment is
 * done, or null when it cannot complete with `targetIsr` (no reassignment in flight, some target
 * replica not in sync, or nothing would be left).
 */
export function completeReassignment(
  state: ReassignmentReplicas, targetIsr: readonly number[],
): { replicas: number[]; isr: number[] } | null {
  if (state.adding.length === 0 && state.removing.length === 0) return null;
  const isr = targetIsr.filter((id) => !state.removing.includes(id));
  const replicas = state.replicas.filter((id) => !state.removing.includes(id));
  if (isr.length === 0 || replicas.length === 0) return null;
  if (!replicas.every((id) => isr.includes(id))) return null;
  return { replicas, isr };
}

/**
 * Cancelling (Kafka's PartitionReassignmentRevert): the original replicas, the ISR without the
 * adding replicas, and whether that needed an unclean choice (no original replica was in sync:
 * the first original replica becomes the ISR).
 * @throws Error when every replica is an adding one (cannot happen for a partition that had replicas)
 */
export function revertReassignment(partition: {
  readonly replicas: readonly number[]; readonly isr: readonly number[]; readonly addingReplicas: readonly number[];
}): { replicas: number[]; isr: number[]; unclean: boolean } {
  const replicas = partition.replicas.filter((id) => !partition.addingReplicas.includes(id));
  const isr = partition.isr.filter((id) => !partition.addingReplicas.includes(id));
  if (replicas.length === 0) throw new Error('assertion failed: a reassignment kept at least one original replica');
  if (isr.length > 0) return { replicas, isr, unclean: false };
  return { replicas, isr: [replicas[0]!], unclean: true };
}
