/**
 * PartitionChangeBuilder (Kafka's name, reduced to what Tributary has: no eligible leader
 * replicas, no log directories): from a partition's registration and a target (ISR, replicas and
 * the adding/removing replicas of a reassignment, election kind, leader recovery state), the one
 * PartitionChangeRecord that gets there, or null when nothing changes. Every leadership, ISR and
 * replica change the controller makes (fencing, controlled shutdown, unfencing, AlterPartition,
 * ElectLeaders, the leader balancer, reassignments) goes through {@link buildPartitionChange}, so
 * they all follow one election rule, over the target replicas in order:
 *
 * ```
 * valid(r)  = r in the target ISR and acceptable (registered, unfenced, not shutting down)
 * PREFERRED: replicas[0] if valid, else the current leader if valid, else the first valid replica
 * ONLINE:    the current leader if valid, else the first valid replica (in replica order)
 * UNCLEAN:   as ONLINE; if none, the first acceptable replica even outside the ISR (ISR := [it],
 *            leader recovery state RECOVERING: records the ISR did not hold may be lost)
 * none:      leader -1 (the partition is offline)
 * ```
 *
 * The ISR is never set empty: removing its last member keeps it (Kafka keeps the last in-sync
 * replica so it can lead again without an unclean election). Replaying the record bumps the
 * partition epoch, and the leader epoch when the leader field is set (metadata-image.ts); the
 * leader epoch is not bumped on an ISR shrink (metadata.version 3.6-IV2 and later, KAFKA-15021).
 *
 * Reassignment (KIP-455, Kafka's completeReassignmentIfNeeded): before the election, a
 * reassignment in flight whose target replicas are all in the target ISR completes: the removing
 * replicas leave the replicas and the ISR, adding and removing are cleared, and a leader being
 * removed is replaced by the election. A change whose replicas drop one of the current replicas
 * bumps the leader epoch even when the leader stays (Kafka's
 * triggerLeaderEpochBumpForReplicaReassignmentIfNeeded), so the removed replicas' fetches are fenced.
 */
import { RECORD_VERSION, controllerAssert as assert } from './controller-result.js';
import { NO_LEADER, NO_LEADER_CHANGE, type PartitionRegistration } from './metadata-image.js';
import { type MetadataRecord, type PartitionChangeRecord, metadataRecord } from './metadata-records.js';
import { completeReassignment } from './partition-reassignment.js';

/** Kafka's PartitionChangeBuilder.Election. */
export type Election = 'PREFERRED' | 'ONLINE' | 'UNCLEAN';

/** Kafka's LeaderRecoveryState: the leader was elected cleanly (or has recovered). */
export const LEADER_RECOVERED = 0;
/** Kafka's LeaderRecoveryState: elected by an unclean election and not yet recovered. */
export const LEADER_RECOVERING = 1;

export interface PartitionChangeRequest {
  readonly topicId: string;
  readonly partition: PartitionRegistration;
  /** Whether a broker may lead (Kafka's LeaderAcceptor): usually registered, unfenced, not in controlled shutdown. */
  readonly isAcceptableLeader: (brokerId: number) => boolean;
  /** Default ONLINE. */
  readonly election?: Election;
  /** Default the current ISR. An empty target leaves the ISR as it is. */
  readonly targetIsr?: readonly number[];
  /** Default the current state. */
  readonly targetLeaderRecoveryState?: number;
  /** Default the current replicas (a reassignment sets the union of old and new, see partition-reassignment.ts). */
  readonly targetReplicas?: readonly number[];
  /** Default the current adding replicas. */
  readonly targetAdding?: readonly number[];
  /** Default the current removing replicas. */
  readonly targetRemoving?: readonly number[];
}

/** The outcome: the record (null when nothing changes) and whether the leader came from an unclean election. */
export interface PartitionChange {
  readonly record: MetadataRecord | null;
  /** The leader after the change (-1: none). */
  readonly leader: number;
  readonly unclean: boolean;
}

/** Builds the change; see the file header for the rule. */
export function buildPartitionChange(request: PartitionChangeRequest): PartitionChange {
  const { partition, isAcceptableLeader } = request;
  const election = request.election ?? 'ONLINE';
  let targetIsr = [...(request.targetIsr ?? partition.isr)];
  if (targetIsr.length === 0) targetIsr = [...partition.isr];
  let targetReplicas = [...(request.targetReplicas ?? partition.replicas)];
  let targetAdding = [...(request.targetAdding ?? partition.addingReplicas)];
  let targetRemoving = [...(request.targetRemoving ?? partition.removingReplicas)];
  const completed = completeReassignment({ replicas: targetReplicas, adding: targetAdding, removing: targetRemoving }, targetIsr);
  if (completed !== null) {
    targetIsr = completed.isr;
    targetReplicas = completed.replicas;
    targetAdding = [];
    targetRemoving = [];
  }
  const valid = (id: number): boolean => targetIsr.includes(id) && isAcceptableLeader(id);
  const elected = electLeader(partition, targetReplicas, election, valid, isAcceptableLeader);

  let leader = NO_LEADER_CHANGE;
  let isr: number[] | null = null;
  let leaderRecoveryState = -1;
  if (elected.leader !== partition.leader) {
    leader = elected.leader;
    if (elected.unclean) {
      // Data the ISR held may be gone: the new leader alone is in sync until followers catch up.
      isr = [elected.leader];
      if (partition.leaderRecoveryState !== LEADER_RECOVERING) leaderRecoveryState = LEADER_RECOVERING;
    }
  } else if (!partition.replicas.every((id) => targetReplicas.includes(id))) {
    // Replicas leave: a new leader epoch fences their fetches (the leader itself stays).
    leader = partition.leader;
  }
  if (isr === null && !sameMembers(targetIsr, partition.isr)) isr = targetIsr;
  const targetRecovery = request.targetLeaderRecoveryState ?? partition.leaderRecoveryState;
  if (leaderRecoveryState === -1 && targetRecovery !== partition.leaderRecoveryState) leaderRecoveryState = targetRecovery;
  const replicas = sameMembers(targetReplicas, partition.replicas) ? null : targetReplicas;
  const addingReplicas = sameMembers(targetAdding, partition.addingReplicas) ? null : targetAdding;
  const removingReplicas = sameMembers(targetRemoving, partition.removingReplicas) ? null : targetRemoving;
  if (leader === NO_LEADER_CHANGE && isr === null && leaderRecoveryState === -1 && replicas === null && addingReplicas === null && removingReplicas === null) {
    return { record: null, leader: partition.leader, unclean: false };
  }
  const resultingLeader = leader === NO_LEADER_CHANGE ? partition.leader : leader;
  assert(resultingLeader === NO_LEADER || (isr ?? partition.isr).includes(resultingLeader), 'a leader is in the ISR');
  assert((isr ?? partition.isr).every((id) => (replicas ?? partition.replicas).includes(id)), 'the ISR is among the replicas');
  const data: PartitionChangeRecord = {
    partitionId: partition.partitionId, topicId: request.topicId, isr, leader,
    replicas, removingReplicas, addingReplicas, leaderRecoveryState, directories: null,
    eligibleLeaderReplicas: null, lastKnownElr: null,
  };
  return {
    record: metadataRecord('PartitionChangeRecord', RECORD_VERSION.PartitionChangeRecord, data),
    leader: resultingLeader,
    unclean: elected.unclean && leader !== NO_LEADER_CHANGE,
  };
}

function electLeader(
  partition: PartitionRegistration,
  replicas: readonly number[],
  election: Election,
  valid: (id: number) => boolean,
  acceptable: (id: number) => boolean,
): { leader: number; unclean: boolean } {
  if (election === 'PREFERRED' && replicas.length > 0 && valid(replicas[0]!)) return { leader: replicas[0]!, unclean: false };
  if (partition.leader !== NO_LEADER && valid(partition.leader)) return { leader: partition.leader, unclean: false };
  const clean = replicas.find(valid);
  if (clean !== undefined) return { leader: clean, unclean: false };
  if (election === 'UNCLEAN') {
    const unclean = replicas.find(acceptable);
    if (unclean !== undefined) return { leader: unclean, unclean: true };
  }
  return { leader: NO_LEADER, unclean: false };
}

/** Same ids in the same order (Kafka compares the ISR as a list). */
function sameMembers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
