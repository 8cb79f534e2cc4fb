/**
 * PartitionChangeBuilder (Kafka's name, reduced to what Tributary has: no reassignment in flight,
 * no eligible leader replicas, no log directories): from a partition's registration and a target
 * (ISR, election kind, leader recovery state), the one PartitionChangeRecord that gets there, or
 * null when nothing changes. Every leadership and ISR change the controller makes (fencing,
 * controlled shutdown, unfencing, AlterPartition, ElectLeaders, the leader balancer) goes through
 * {@link buildPartitionChange}, so they all follow one election rule:
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
 */
import { RECORD_VERSION, controllerAssert as assert } from './controller-result.js';
import { NO_LEADER, NO_LEADER_CHANGE, type PartitionRegistration } from './metadata-image.js';
import { type MetadataRecord, type PartitionChangeRecord, metadataRecord } from './metadata-records.js';

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
  const valid = (id: number): boolean => targetIsr.includes(id) && isAcceptableLeader(id);
  const elected = electLeader(partition, election, valid, isAcceptableLeader);

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
  }
  if (isr === null && !sameMembers(targetIsr, partition.isr)) isr = targetIsr;
  const targetRecovery = request.targetLeaderRecoveryState ?? partition.leaderRecoveryState;
  if (leaderRecoveryState === -1 && targetRecovery !== partition.leaderRecoveryState) leaderRecoveryState = targetRecovery;
  if (leader === NO_LEADER_CHANGE && isr === null && leaderRecoveryState === -1) {
    return { record: null, leader: partition.leader, unclean: false };
  }
  const resultingLeader = leader === NO_LEADER_CHANGE ? partition.leader : leader;
  assert(resultingLeader === NO_LEADER || (isr ?? partition.isr).includes(resultingLeader), 'a leader is in the ISR');
  const data: PartitionChangeRecord = {
    partitionId: partition.partitionId, topicId: request.topicId, isr, leader,
    replicas: null, removingReplicas: null, addingReplicas: null, leaderRecoveryState, directories: null,
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
  election: Election,
  valid: (id: number) => boolean,
  acceptable: (id: number) => boolean,
): { leader: number; unclean: boolean } {
  const replicas = partition.replicas;
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
