/**
 * Leader elections an operator or a timer asks for (Kafka's ReplicationControlManager.electLeaders,
 * maybeBalancePartitionLeaders, maybeElectUncleanLeaders), on the rule of
 * partition-change-builder.ts:
 *
 * - {@link electLeaders}: the ElectLeaders API (key 43, KIP-460). Per partition:
 *   UNKNOWN_TOPIC_OR_PARTITION (3); ELECTION_NOT_NEEDED (84) when PREFERRED finds the preferred
 *   replica leading, or UNCLEAN finds a leader; PREFERRED_LEADER_NOT_AVAILABLE (80) when the
 *   preferred replica cannot lead (not in the ISR, fenced, shutting down);
 *   ELIGIBLE_LEADERS_NOT_AVAILABLE (83) when no live replica exists for UNCLEAN. With no partition
 *   list every partition is tried and ELECTION_NOT_NEEDED ones are left out of the answer.
 *   An election type other than 0 (PREFERRED) or 1 (UNCLEAN): INVALID_REQUEST (42) at the top.
 * - {@link balancePartitionLeaders}: `auto.leader.rebalance.enable`'s periodic check. A broker is
 *   imbalanced when more than `leader.imbalance.per.broker.percentage` % of the partitions it is
 *   the preferred replica of are led by another broker (the rule of Kafka's ZooKeeper controller,
 *   which has that setting); those partitions get a PREFERRED election.
 * - {@link electUncleanLeaders}: leaderless partitions of topics that allow unclean elections
 *   (a config turned on after the partition went offline) elect a live out-of-sync replica.
 *
 * Each operation writes at most {@link MAX_ELECTIONS_PER_OPERATION} changes, as Kafka bounds
 * `maxElectionsPerImbalance`; a timer runs the next round.
 */
import type { ElectLeadersResponseInit, PartitionResultInit } from '../protocol/generated/elect-leaders.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { ControllerResult } from './controller-result.js';
import { NO_LEADER, type MetadataImage, type PartitionRegistration, type TopicImage } from './metadata-image.js';
import type { MetadataRecord } from './metadata-records.js';
import { buildPartitionChange, type Election } from './partition-change-builder.js';

/** Kafka's ElectionType codes (ElectLeaders v1+). */
export const ElectionType = { PREFERRED: 0, UNCLEAN: 1 } as const;

/** Kafka's bound on elections per balancing round (QuorumController's maxElectionsPerImbalance). */
export const MAX_ELECTIONS_PER_OPERATION = 1_000;

/** What the elections need from the controller's managers. */
export interface LeaderElectionContext {
  readonly latest: () => MetadataImage;
  /** Registered, unfenced, not in controlled shutdown. */
  readonly isActiveBroker: (brokerId: number) => boolean;
  readonly uncleanLeaderElectionEnabled: (topic: string) => boolean;
  /** Says loudly that an unclean election happened. */
  readonly noteUncleanElection: (topic: string, partitionId: number, leader: number, why: string) => void;
}

/** One topic and the partitions to elect (ElectLeaders' TopicPartitions). */
export interface ElectLeadersTopic {
  readonly topic: string;
  readonly partitions: readonly number[];
}

/**
 * The ElectLeaders API on the controller: `topicPartitions` null elects every partition.
 * Answers in the wire shape (throttle time 0); see the file header for the errors.
 */
export function electLeaders(
  context: LeaderElectionContext, electionType: number, topicPartitions: readonly ElectLeadersTopic[] | null,
): ControllerResult<ElectLeadersResponseInit> {
  if (electionType !== ElectionType.PREFERRED && electionType !== ElectionType.UNCLEAN) {
    return { records: [], response: { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, replicaElectionResults: [] } };
  }
  const records: MetadataRecord[] = [];
  const results: ElectLeadersResponseInit['replicaElectionResults'] = [];
  const requested = topicPartitions ?? context.latest().topics().map((t) => ({ topic: t.name, partitions: t.partitions.map((p) => p.partitionId) }));
  for (const { topic, partitions } of requested) {
    const partitionResult: PartitionResultInit[] = [];
    for (const partitionId of partitions) {
      const result = electOne(context, topic, partitionId, electionType, records);
      if (topicPartitions === null && result.errorCode === ErrorCode.ELECTION_NOT_NEEDED) continue;
      partitionResult.push(result);
    }
    results.push({ topic, partitionResult });
  }
  return { records, response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, replicaElectionResults: results } };
}

function electOne(context: LeaderElectionContext, topicName: string, partitionId: number, electionType: number, records: MetadataRecord[]): PartitionResultInit {
  const answer = (errorCode: number, errorMessage: string | null = null): PartitionResultInit => ({ partitionId, errorCode, errorMessage });
  const topic = context.latest().topic(topicName);
  const partition = topic?.partitions[partitionId];
  if (topic === undefined || partition === undefined) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `No such partition as ${topicName}-${partitionId}.`);
  const preferred = electionType === ElectionType.PREFERRED;
  if (preferred ? partition.leader === partition.replicas[0] : partition.leader !== NO_LEADER) return answer(ErrorCode.ELECTION_NOT_NEEDED);
  const elected = elect(context, topic, partition, preferred ? 'PREFERRED' : 'UNCLEAN', 'ElectLeaders');
  if (elected === null) {
    return preferred
      ? answer(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, `The preferred replica ${partition.replicas[0]} of ${topicName}-${partitionId} is not in the ISR or not alive.`)
      : answer(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, `No live replica of ${topicName}-${partitionId} can lead.`);
  }
  records.push(elected);
  return answer(ErrorCode.NONE);
}

/** The record of a leadership change by `election`, or null when the leader stays. */
function elect(context: LeaderElectionContext, topic: TopicImage, partition: PartitionRegistration, election: Election, why: string): MetadataRecord | null {
  const change = buildPartitionChange({ topicId: topic.topicId, partition, isAcceptableLeader: context.isActiveBroker, election });
  if (change.record === null || change.leader === partition.leader) return null;
  if (change.unclean) context.noteUncleanElection(topic.name, partition.partitionId, change.leader, why);
  return change.record;
}

/**
 * One round of automatic preferred leader balancing (`leader.imbalance.per.broker.percentage`,
 * Kafka default 10): PREFERRED elections for the partitions whose preferred replica is an
 * imbalanced broker; answers how many leaders moved.
 */
export function balancePartitionLeaders(context: LeaderElectionContext, imbalancePercentage: number): ControllerResult<number> {
  const preferredCount = new Map<number, number>();
  const notLeading = new Map<number, { topic: TopicImage; partition: PartitionRegistration }[]>();
  for (const topic of context.latest().topics()) {
    for (const partition of topic.partitions) {
      const preferred = partition.replicas[0];
      if (preferred === undefined) continue;
      preferredCount.set(preferred, (preferredCount.get(preferred) ?? 0) + 1);
      if (partition.leader === preferred) continue;
      const list = notLeading.get(preferred) ?? [];
      list.push({ topic, partition });
      notLeading.set(preferred, list);
    }
  }
  const records: MetadataRecord[] = [];
  for (const [brokerId, partitions] of [...notLeading].sort(([a], [b]) => a - b)) {
    if (!context.isActiveBroker(brokerId)) continue;
    if ((partitions.length * 100) / preferredCount.get(brokerId)! <= imbalancePercentage) continue;
    for (const { topic, partition } of partitions) {
      if (records.length >= MAX_ELECTIONS_PER_OPERATION) return { records, response: records.length };
      const elected = elect(context, topic, partition, 'PREFERRED', 'leader balancing');
      if (elected !== null) records.push(elected);
    }
  }
  return { records, response: records.length };
}

/** Unclean elections for the leaderless partitions of topics that allow them; answers how many partitions got a leader. */
export function electUncleanLeaders(context: LeaderElectionContext): ControllerResult<number> {
  const records: MetadataRecord[] = [];
  for (const topic of context.latest().topics()) {
    if (!context.uncleanLeaderElectionEnabled(topic.name)) continue;
    for (const partition of topic.partitions) {
      if (partition.leader !== NO_LEADER) continue;
      if (records.length >= MAX_ELECTIONS_PER_OPERATION) return { records, response: records.length };
      const elected = elect(context, topic, partition, 'UNCLEAN', 'offline partition, unclean.leader.election.enable=true');
      if (elected !== null) records.push(elected);
    }
  }
  return { records, response: records.length };
}
