/**
 * AlterPartition on the controller (Kafka's ReplicationControlManager.alterPartition, KIP-497,
 * KIP-841, KIP-903): a partition leader proposes a new ISR; the controller checks the proposal
 * against the partition's registration and commits one PartitionChangeRecord (new ISR, partition
 * epoch + 1), answering with the state it commits.
 *
 * ```
 * AlterPartition Request (Version: 0-3) => broker_id broker_epoch [topics]
 *   topics => topic_name (v0-1) | topic_id (v2+) [partitions]
 *     partitions => partition_index leader_epoch new_isr (v0-2) | [new_isr_with_epochs (v3+):
 *       broker_id broker_epoch] leader_recovery_state (v1+) partition_epoch
 * AlterPartition Response => throttle_time_ms error_code [topics]
 *   topics => topic_name (v0-1) | topic_id (v2+) [partitions]
 *     partitions => partition_index error_code leader_id leader_epoch [isr]
 *       leader_recovery_state (v1+) partition_epoch
 * ```
 *
 * Checks, in Kafka's order (top level first, then per partition):
 * - STALE_BROKER_EPOCH (77, top level): the sender is not registered with `broker_epoch`
 * - UNKNOWN_TOPIC_ID (100, v2+) / UNKNOWN_TOPIC_OR_PARTITION (3, v0-1): unknown topic;
 *   UNKNOWN_TOPIC_OR_PARTITION (3): unknown partition
 * - NOT_CONTROLLER (41): the leader epoch or partition epoch is *newer* than ours (we are a
 *   stale controller; the sender looks for the active one)
 * - FENCED_LEADER_EPOCH (74): an older leader epoch (the sender was replaced as leader)
 * - NOT_LEADER_OR_FOLLOWER (6): the sender is not the leader (Kafka's KRaft controller answers
 *   INVALID_REQUEST here; ours lets a broker with stale metadata tell this apart from a bug)
 * - INVALID_UPDATE_VERSION (95): an older partition epoch, unless the proposed ISR is exactly the
 *   current one: a retry of a proposal already applied is answered as a success with the current
 *   state, so retries are idempotent
 * - INVALID_REQUEST (42): an ISR with duplicates, non-replicas or without the leader; a RECOVERING
 *   leader with more than itself in the ISR; RECOVERED back to RECOVERING
 * - INELIGIBLE_REPLICA (107, v2+; OPERATION_NOT_ATTEMPTED 55 before): the ISR names a broker that
 *   is unregistered, fenced, in controlled shutdown, or (v3+) registered with another epoch
 * - NEW_LEADER_ELECTED (108, v2+; FENCED_LEADER_EPOCH before): the change moved the leadership
 *   (cannot happen without reassignments; kept as Kafka does)
 */
import type { AlterPartitionRequest, AlterPartitionResponseInit, AlterPartitionResponsePartitionDataInit } from '../protocol/generated/alter-partition.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { ControllerResult } from './controller-result.js';
import { NO_LEADER_CHANGE, type MetadataImage, type PartitionRegistration, type TopicImage } from './metadata-image.js';
import type { MetadataRecord } from './metadata-records.js';
import { LEADER_RECOVERED, LEADER_RECOVERING, buildPartitionChange } from './partition-change-builder.js';

/** What AlterPartition needs from the controller's managers. */
export interface AlterPartitionContext {
  /** The controller's latest state. */
  readonly latest: () => MetadataImage;
  /** STALE_BROKER_EPOCH (77) unless registered with that epoch; null when it is. */
  readonly checkBrokerEpoch: (brokerId: number, brokerEpoch: number) => { errorCode: number } | null;
  /** Registered, unfenced, not in controlled shutdown. */
  readonly isActiveBroker: (brokerId: number) => boolean;
  readonly uncleanLeaderElectionEnabled: (topic: string) => boolean;
}

type PartitionRequest = AlterPartitionRequest['topics'][number]['partitions'][number];

/**
 * Answers one AlterPartition request of `version` (0-3) against the latest state: the records to
 * commit (one PartitionChangeRecord per accepted change) and the response to give once they are.
 * Errors are values (see the file header); never throws for client input.
 */
export function alterPartition(context: AlterPartitionContext, request: AlterPartitionRequest, version: number): ControllerResult<AlterPartitionResponseInit> {
  const stale = context.checkBrokerEpoch(request.brokerId, request.brokerEpoch);
  if (stale !== null) return { records: [], response: { throttleTimeMs: 0, errorCode: stale.errorCode, topics: [] } };
  const records: MetadataRecord[] = [];
  const topics: AlterPartitionResponseInit['topics'] = [];
  for (const topicData of request.topics) {
    const topic = version >= 2 ? context.latest().topicById(topicData.topicId) : context.latest().topic(topicData.topicName);
    const partitions: AlterPartitionResponsePartitionDataInit[] = [];
    topics.push({ topicName: topicData.topicName, topicId: topicData.topicId, partitions });
    for (const partitionData of topicData.partitions) {
      if (topic === undefined) {
        partitions.push(failed(partitionData.partitionIndex, version >= 2 ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
        continue;
      }
      partitions.push(alterOne(context, request.brokerId, topic, partitionData, version, records));
    }
  }
  return { records, response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, topics } };
}

function alterOne(
  context: AlterPartitionContext, brokerId: number, topic: TopicImage, data: PartitionRequest, version: number, records: MetadataRecord[],
): AlterPartitionResponsePartitionDataInit {
  const partition = topic.partitions[data.partitionIndex];
  if (partition === undefined) return failed(data.partitionIndex, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  const newIsr = version >= 3 ? data.newIsrWithEpochs.map((b) => b.brokerId) : data.newIsr;
  const error = validate(context, brokerId, partition, data, newIsr, version);
  if (error === 'ALREADY_APPLIED') return current(partition);
  if (error !== ErrorCode.NONE) return failed(data.partitionIndex, error);
  const change = buildPartitionChange({
    topicId: topic.topicId,
    partition,
    isAcceptableLeader: context.isActiveBroker,
    election: context.uncleanLeaderElectionEnabled(topic.name) ? 'UNCLEAN' : 'ONLINE',
    targetIsr: newIsr,
    targetLeaderRecoveryState: data.leaderRecoveryState,
  });
  if (change.record === null) return current(partition);
  records.push(change.record);
  const record = change.record;
  if (record.type !== 'PartitionChangeRecord') throw new Error('AlterPartition builds PartitionChangeRecords');
  if (record.data.leader !== NO_LEADER_CHANGE && record.data.leader !== brokerId) {
    return failed(data.partitionIndex, version > 1 ? ErrorCode.NEW_LEADER_ELECTED : ErrorCode.FENCED_LEADER_EPOCH);
  }
  return {
    partitionIndex: partition.partitionId,
    errorCode: ErrorCode.NONE,
    leaderId: change.leader,
    leaderEpoch: record.data.leader === NO_LEADER_CHANGE ? partition.leaderEpoch : partition.leaderEpoch + 1,
    isr: [...(record.data.isr ?? partition.isr)],
    leaderRecoveryState: record.data.leaderRecoveryState === -1 ? partition.leaderRecoveryState : record.data.leaderRecoveryState,
    partitionEpoch: partition.partitionEpoch + 1,
  };
}

function validate(
  context: AlterPartitionContext, brokerId: number, partition: PartitionRegistration, data: PartitionRequest,
  newIsr: readonly number[], version: number,
): number | 'ALREADY_APPLIED' {
  if (data.leaderEpoch > partition.leaderEpoch || data.partitionEpoch > partition.partitionEpoch) return ErrorCode.NOT_CONTROLLER;
  if (data.leaderEpoch < partition.leaderEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
  if (brokerId !== partition.leader) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  if (data.partitionEpoch < partition.partitionEpoch) {
    const sameIsr = newIsr.length === partition.isr.length && newIsr.every((id, i) => id === partition.isr[i]);
    return sameIsr && data.leaderRecoveryState === partition.leaderRecoveryState ? 'ALREADY_APPLIED' : ErrorCode.INVALID_UPDATE_VERSION;
  }
  if (newIsr.length === 0 || new Set(newIsr).size !== newIsr.length || !newIsr.every((id) => partition.replicas.includes(id))) {
    return ErrorCode.INVALID_REQUEST;
  }
  if (!newIsr.includes(partition.leader)) return ErrorCode.INVALID_REQUEST;
  if (data.leaderRecoveryState !== LEADER_RECOVERED && data.leaderRecoveryState !== LEADER_RECOVERING) return ErrorCode.INVALID_REQUEST;
  if (data.leaderRecoveryState === LEADER_RECOVERING && newIsr.length > 1) return ErrorCode.INVALID_REQUEST;
  if (partition.leaderRecoveryState === LEADER_RECOVERED && data.leaderRecoveryState === LEADER_RECOVERING) return ErrorCode.INVALID_REQUEST;
  const ineligible = (version >= 3 ? data.newIsrWithEpochs : newIsr.map((id) => ({ brokerId: id, brokerEpoch: -1 }))).some((member) => {
    if (!context.isActiveBroker(member.brokerId)) return true;
    return member.brokerEpoch !== -1 && context.latest().broker(member.brokerId)!.brokerEpoch !== member.brokerEpoch;
  });
  if (ineligible) return version > 1 ? ErrorCode.INELIGIBLE_REPLICA : ErrorCode.OPERATION_NOT_ATTEMPTED;
  return ErrorCode.NONE;
}

function current(partition: PartitionRegistration): AlterPartitionResponsePartitionDataInit {
  return {
    partitionIndex: partition.partitionId, errorCode: ErrorCode.NONE, leaderId: partition.leader, leaderEpoch: partition.leaderEpoch,
    isr: [...partition.isr], leaderRecoveryState: partition.leaderRecoveryState, partitionEpoch: partition.partitionEpoch,
  };
}

function failed(partitionIndex: number, errorCode: number): AlterPartitionResponsePartitionDataInit {
  return { partitionIndex, errorCode, leaderId: -1, leaderEpoch: -1, isr: [], leaderRecoveryState: 0, partitionEpoch: -1 };
}
