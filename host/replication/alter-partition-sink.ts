/**
 * Where a partition leader sends its ISR proposals (Kafka's AlterPartitionManager seen from
 * Partition): the leader proposes, the controller decides and commits a PartitionChangeRecord,
 * and the leader adopts the answer (KIP-497, AlterPartition API key 56).
 *
 * Flow, as in Kafka's Partition.maybeExpandIsr / maybeShrinkIsr:
 *   leader sees a follower caught up (expand) or lagging past `replica.lag.time.max.ms` (shrink)
 *     → submit({..., newIsr}) while no other proposal of this partition is in flight
 *     → resolved with the committed state (errorCode 0): the leader takes its isr and partitionEpoch
 *     → resolved with an error code: FENCED_LEADER_EPOCH (74), INVALID_UPDATE_VERSION (95),
 *       INELIGIBLE_REPLICA (107), NEW_LEADER_ELECTED (108), NOT_LEADER_OR_FOLLOWER (6),
 *       UNKNOWN_TOPIC_OR_PARTITION (3), UNKNOWN_TOPIC_ID (100), INVALID_REQUEST (42),
 *       OPERATION_NOT_ATTEMPTED (55, also: another proposal of the partition is pending, or the
 *       broker is stopping): the leader keeps its ISR and waits for the next metadata
 *       update (or retries later for a retriable one).
 * While a proposal is in flight the leader uses the maximal ISR (current ∪ proposed) for the high
 * watermark and acks=all, and the current ISR for min.insync.replicas — Kafka's
 * PendingExpandIsr / PendingShrinkIsr.
 */

/** One ISR proposal for a partition this broker leads. */
export interface AlterPartitionItem {
  /** 32 lowercase hex digits, as in TopicState.topicId. */
  readonly topicId: string;
  readonly topic: string;
  readonly partition: number;
  /** The leader's current epoch for the partition. */
  readonly leaderEpoch: number;
  /** The partition epoch the leader last saw (the controller refuses a stale one: INVALID_UPDATE_VERSION 95). */
  readonly partitionEpoch: number;
  /** The proposed in-sync replica ids (the leader included). */
  readonly newIsr: readonly number[];
  /** The same with each member's broker epoch (KIP-903; -1: not checked); absent: all -1. */
  readonly newIsrWithEpochs?: readonly { readonly brokerId: number; readonly brokerEpoch: number }[];
}

/** The controller's answer to one proposal. */
export interface AlterPartitionResult {
  /** 0 when committed; otherwise a Kafka error code (see the file header). */
  readonly errorCode: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly isr: readonly number[];
}

/** Sends ISR proposals to the active controller. Implementations never reject: failures are error codes. */
export interface AlterPartitionSink {
  submit(item: AlterPartitionItem): Promise<AlterPartitionResult>;
}
