/**
 * Partition reassignment on the controller (KIP-455; Kafka's
 * ReplicationControlManager.alterPartitionReassignments / listPartitionReassignments), on the
 * replica arithmetic of partition-reassignment.ts and the election rule of
 * partition-change-builder.ts.
 *
 * ```
 * AlterPartitionReassignments Request (Version: 0) => timeout_ms [topics]
 *   topics => name [partitions]
 *     partitions => partition_index replicas      (replicas null: cancel)
 * AlterPartitionReassignments Response (Version: 0) => throttle_time_ms error_code error_message
 *   [responses] responses => name [partitions] partitions => partition_index error_code error_message
 * ListPartitionReassignments Request (Version: 0) => timeout_ms [topics]   (null: every topic)
 *   topics => name [partition_indexes]
 * ListPartitionReassignments Response (Version: 0) => throttle_time_ms error_code error_message
 *   [topics] topics => name [partitions]
 *     partitions => partition_index [replicas] [adding_replicas] [removing_replicas]
 * ```
 *
 * Errors per partition, as Kafka: UNKNOWN_TOPIC_OR_PARTITION (3); INVALID_REQUEST (42) for a
 * partition named twice in one request (ours: each change is planned on the state before the
 * request, so two would not compose; Kafka's admin client refuses them first); INVALID_REPLICA_ASSIGNMENT
 * (39) for an empty replica list, a broker named twice or not registered, or a cancel that would
 * need an unclean election the topic does not allow; NO_REASSIGNMENT_IN_PROGRESS (85) for a
 * cancel of a partition not being reassigned. The accepted changes are one batch (Kafka's
 * atomicOf); POLICY_VIOLATION (44) for every partition when they would pass
 * controller.max.records.per.user.op. A reassignment to the current replicas, or a reorder, is
 * accepted and completes at once (a reorder writes the new order; the same list writes nothing).
 */
import type {
  AlterPartitionReassignmentsResponseInit, ReassignableTopic,
} from '../protocol/generated/alter-partition-reassignments.js';
import type {
  ListPartitionReassignmentsResponseInit, ListPartitionReassignmentsTopics, OngoingPartitionReassignmentInit, OngoingTopicReassignmentInit,
} from '../protocol/generated/list-partition-reassignments.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { ControllerLimits } from './controller-limits.js';
import { type ApiError, type ControllerResult, NONE, duplicateKeys, fail } from './controller-result.js';
import type { LeaderElectionContext } from './leader-election-control.js';
import type { MetadataImage, PartitionRegistration, TopicImage } from './metadata-image.js';
import type { MetadataRecord } from './metadata-records.js';
import { buildPartitionChange } from './partition-change-builder.js';
import { isReassignmentInProgress, reassignmentReplicas, revertReassignment } from './partition-reassignment.js';

/**
 * AlterPartitionReassignments against the latest state: one PartitionChangeRecord per partition
 * that changes, and the answer per partition (see the file header). Never throws for client input.
 */
export function alterPartitionReassignments(
  context: LeaderElectionContext, limits: ControllerLimits, topics: readonly ReassignableTopic[],
): ControllerResult<AlterPartitionReassignmentsResponseInit> {
  const records: MetadataRecord[] = [];
  // Each change is computed on the state before the request: a partition named twice would get two.
  const duplicates = duplicateKeys(topics.flatMap((t) => t.partitions.map((p) => `${t.name}:${p.partitionIndex}`)), (key) => key);
  const responses: AlterPartitionReassignmentsResponseInit['responses'] = topics.map((topic) => ({
    name: topic.name,
    partitions: topic.partitions.map((target) => {
      const result = duplicates.has(`${topic.name}:${target.partitionIndex}`)
        ? fail(ErrorCode.INVALID_REQUEST, `Partition ${topic.name}:${target.partitionIndex} appears more than once in the request.`)
        : alterOne(context, topic.name, target.partitionIndex, target.replicas, records);
      return { partitionIndex: target.partitionIndex, errorCode: result.errorCode, errorMessage: result.errorMessage };
    }),
  }));
  const tooLarge = limits.checkRecords('AlterPartitionReassignments', records.length);
  if (tooLarge !== null) {
    const failed = responses.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ ...p, ...tooLarge })) }));
    return { records: [], response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses: failed } };
  }
  return { records, response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses } };
}

function alterOne(
  context: LeaderElectionContext, topicName: string, partitionId: number, replicas: readonly number[] | null, records: MetadataRecord[],
): ApiError {
  const topic = context.latest().topic(topicName);
  if (topic === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find a topic named ${topicName}.`);
  const partition = topic.partitions[partitionId];
  if (partition === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find partition ${topicName}:${partitionId}.`);
  const outcome = replicas === null ? cancel(context, topic, partition) : change(context, topic, partition, replicas);
  if ('errorCode' in outcome) return outcome;
  if (outcome.record !== null) records.push(outcome.record);
  return NONE;
}

/** Kafka's cancelPartitionReassignment: back to the original replicas. */
function cancel(context: LeaderElectionContext, topic: TopicImage, partition: PartitionRegistration): ApiError | { record: MetadataRecord | null } {
  if (!isReassignmentInProgress(partition)) {
    return fail(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, 'No partition reassignment is in progress for this topic-partition.');
  }
  const revert = revertReassignment(partition);
  const unclean = context.uncleanLeaderElectionEnabled(topic.name);
  if (revert.unclean && !unclean) {
    return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      `Unable to revert partition assignment for ${topic.name}:${partition.partitionId} because it would require an unclean leader election.`);
  }
  const built = buildPartitionChange({
    topicId: topic.topicId, partition, isAcceptableLeader: context.isActiveBroker, election: unclean ? 'UNCLEAN' : 'ONLINE',
    targetIsr: revert.isr, targetReplicas: revert.replicas, targetAdding: [], targetRemoving: [],
  });
  if (built.unclean) context.noteUncleanElection(topic.name, partition.partitionId, built.leader, 'reassignment cancelled');
  return { record: built.record };
}

/** Kafka's changePartitionReassignment: stage 1 (or straight to stage 3 when the ISR already allows). */
function change(
  context: LeaderElectionContext, topic: TopicImage, partition: PartitionRegistration, target: readonly number[],
): ApiError | { record: MetadataRecord | null } {
  const invalid = invalidAssignment(context.latest(), target);
  if (invalid !== null) return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, invalid);
  const planned = reassignmentReplicas(partition.replicas, target);
  const built = buildPartitionChange({
    topicId: topic.topicId, partition, isAcceptableLeader: context.isActiveBroker,
    targetReplicas: planned.replicas, targetAdding: planned.adding, targetRemoving: planned.removing,
  });
  return { record: built.record };
}

/** Kafka's validateManualPartitionAssignment without a replication factor: why `replicas` cannot be a target, or null. */
function invalidAssignment(image: MetadataImage, replicas: readonly number[]): string | null {
  if (replicas.length === 0) return 'The manual partition assignment includes an empty replica list.';
  const seen = new Set<number>();
  for (const brokerId of [...replicas].sort((a, b) => a - b)) {
    if (image.broker(brokerId) === undefined) {
      return `The manual partition assignment includes broker ${brokerId}, but no such broker is registered.`;
    }
    if (seen.has(brokerId)) return `The manual partition assignment includes the broker ${brokerId} more than once.`;
    seen.add(brokerId);
  }
  return null;
}

/**
 * ListPartitionReassignments against `image` (the committed one): the partitions with a
 * reassignment in flight, of every topic (`topics` null) or of those named (unknown topics and
 * partitions, and those not being reassigned, are left out, as Kafka does). Every topic is
 * answered from the image's index of reassigning partitions, in O(answer), topics in name order
 * and partitions ascending; named ones in the order named.
 */
export function listPartitionReassignments(
  image: MetadataImage, topics: readonly ListPartitionReassignmentsTopics[] | null,
): ListPartitionReassignmentsResponseInit {
  const ongoing = (p: PartitionRegistration): OngoingPartitionReassignmentInit =>
    ({ partitionIndex: p.partitionId, replicas: [...p.replicas], addingReplicas: [...p.addingReplicas], removingReplicas: [...p.removingReplicas] });
  const answered: OngoingTopicReassignmentInit[] = [];
  if (topics === null) {
    // The image's index of reassigning partitions: O(answer), not a walk of the cluster (issue 15).
    for (const { topic, partitions } of image.reassigningPartitions()) answered.push({ name: topic.name, partitions: partitions.map(ongoing) });
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: answered };
  }
  for (const { name, partitionIndexes } of topics) {
    const topic = image.topic(name);
    if (topic === undefined) continue;
    const partitions = partitionIndexes
      .map((id) => topic.partitions[id])
      .filter((p): p is PartitionRegistration => p !== undefined && isReassignmentInProgress(p))
      .map(ongoing);
    if (partitions.length > 0) answered.push({ name, partitions });
  }
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: answered };
}
