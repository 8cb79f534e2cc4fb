/**
 * Group coordinator settings, Kafka's broker config names camelCased, with Kafka's defaults.
 */
export interface GroupCoordinatorConfig {
  /** group.min.session.timeout.ms: smaller JoinGroup session timeouts get INVALID_SESSION_TIMEOUT (26). */
  groupMinSessionTimeoutMs: number;
  /** group.max.session.timeout.ms: larger JoinGroup session timeouts get INVALID_SESSION_TIMEOUT (26). */
  groupMaxSessionTimeoutMs: number;
  /** group.initial.rebalance.delay.ms: how long the first rebalance of an empty group waits for more members. */
  groupInitialRebalanceDelayMs: number;
  /** group.max.size: members beyond this get GROUP_MAX_SIZE_REACHED (81). */
  groupMaxSize: number;
  /** offsets.topic.num.partitions: partitions of __consumer_offsets (the coordinator of G owns abs(hash(G)) % this). */
  offsetsTopicNumPartitions: number;
  /** offsets.retention.minutes: how long offsets of an empty group outlive it (7 days). */
  offsetsRetentionMinutes: number;
  /** offsets.retention.check.interval.ms: how often expired offsets are removed. */
  offsetsRetentionCheckIntervalMs: number;
  /** offset.metadata.max.bytes: longer commit metadata gets OFFSET_METADATA_TOO_LARGE (12). */
  offsetMetadataMaxBytes: number;
}

export const defaultGroupCoordinatorConfig: Readonly<GroupCoordinatorConfig> = Object.freeze({
  groupMinSessionTimeoutMs: 6_000,
  groupMaxSessionTimeoutMs: 1_800_000,
  groupInitialRebalanceDelayMs: 3_000,
  groupMaxSize: 2_147_483_647,
  offsetsTopicNumPartitions: 50,
  offsetsRetentionMinutes: 10_080,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetMetadataMaxBytes: 4_096,
});

/**
 * Kafka's JoinGroup timeout for members that have not yet received their first JoinGroup
 * response (GroupCoordinator.NewMemberJoinTimeoutMs, 5 minutes): such members cannot heartbeat,
 * so a defunct one is dropped after this long rather than after its session timeout.
 */
export const NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000;
