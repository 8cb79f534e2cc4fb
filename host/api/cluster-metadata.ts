/**
 * The cluster metadata the API handlers read and change: topics, their partitions (leader,
 * leader epoch, replicas, ISR), their config overrides, and producer id allocation. The broker
 * backs it with its MetadataCache for reads and the controller for changes
 * (host/server/controller-cluster-metadata.ts); handlers only see this interface.
 *
 * Requests are validated by the handlers (topic names, partition counts, configs) before they
 * reach these methods, but implementations re-check what only they can know (existence, races)
 * and answer with Kafka error codes, never exceptions.
 */

/** One partition as Metadata answers it. */
export interface PartitionState {
  readonly partition: number;
  /** Broker id of the leader, -1 when none. */
  readonly leaderId: number;
  readonly leaderEpoch: number;
  /** Bumped by every change of the partition's registration (KIP-497 partition epoch); AlterPartition carries it. */
  readonly partitionEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

/** One topic. */
export interface TopicState {
  readonly name: string;
  /** 32 lowercase hex digits (Kafka's topic UUID without dashes), stable for the topic's life. */
  readonly topicId: string;
  /** True for `__consumer_offsets` and `__transaction_state`. */
  readonly isInternal: boolean;
  /** Partitions in index order 0..n-1. */
  readonly partitions: readonly PartitionState[];
  /** Topic config overrides, Kafka name -> text (everything else follows the broker config). */
  readonly configs: ReadonlyMap<string, string>;
}

export interface CreateTopicSpec {
  readonly name: string;
  /** -1 only together with `assignments`. */
  readonly numPartitions: number;
  /** -1 only together with `assignments`. */
  readonly replicationFactor: number;
  /** A manual replica assignment (CreateTopics' assignments): partition index → broker ids, checked by the controller. */
  readonly assignments?: readonly { readonly partitionIndex: number; readonly brokerIds: readonly number[] }[];
  /** Validated overrides, Kafka name -> text. */
  readonly configs: Readonly<Record<string, string>>;
}

/** Outcome of a metadata change: Kafka error code (0 NONE) and an optional message. */
export interface MetadataResult {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/** One resource of IncrementalAlterConfigs (KIP-339). */
export interface ConfigChange {
  /** 2 TOPIC, 4 BROKER. */
  readonly resourceType: number;
  readonly resourceName: string;
  /** configOperation: SET 0, DELETE 1, APPEND 2, SUBTRACT 3. */
  readonly configs: readonly { readonly name: string; readonly configOperation: number; readonly value: string | null }[];
}

/** The outcome of one resource's config change. */
export interface ConfigChangeResult extends MetadataResult {
  readonly resourceType: number;
  readonly resourceName: string;
}

/** The answer to ElectLeaders: a top-level error (NOT_CONTROLLER, INVALID_REQUEST, ...) or one result per partition. */
export interface LeaderElectionResults {
  readonly errorCode: number;
  readonly results: readonly {
    readonly topic: string;
    readonly partitions: readonly { readonly partitionId: number; readonly errorCode: number; readonly errorMessage: string | null }[];
  }[];
}

/** One partition of AlterPartitionReassignments: the target replicas, or null to cancel. */
export interface ReassignmentTarget {
  readonly name: string;
  readonly partitions: readonly { readonly partitionIndex: number; readonly replicas: readonly number[] | null }[];
}

/** The answer to AlterPartitionReassignments: a top-level error (NOT_CONTROLLER, ...) or one result per partition. */
export interface ReassignmentResults extends MetadataResult {
  readonly topics: readonly {
    readonly name: string;
    readonly partitions: readonly { readonly partitionIndex: number; readonly errorCode: number; readonly errorMessage: string | null }[];
  }[];
}

/** The answer to ListPartitionReassignments: the partitions being reassigned. */
export interface OngoingReassignments extends MetadataResult {
  readonly topics: readonly {
    readonly name: string;
    readonly partitions: readonly {
      readonly partitionIndex: number;
      /** The union of the old and new replicas while moving (target first). */
      readonly replicas: readonly number[];
      readonly addingReplicas: readonly number[];
      readonly removingReplicas: readonly number[];
    }[];
  }[];
}

export interface ClusterMetadata {
  /** 22-character base64url cluster id (Kafka's Uuid.toString), stable across restarts. */
  readonly clusterId: string;
  /** The active controller's broker id (this node in combined mode). */
  readonly controllerId: number;
  topic(name: string): TopicState | undefined;
  /** Every topic, in name order. */
  topics(): TopicState[];
  /**
   * Creates a topic (replicas placed on live brokers). Errors: TOPIC_ALREADY_EXISTS (36),
   * INVALID_REPLICATION_FACTOR (38), INVALID_PARTITIONS (37), KAFKA_STORAGE_ERROR (56).
   * With `validateOnly` nothing changes. `applyWaitMs`: how long the answer may wait, once the
   * change is committed, for this broker to apply it to its storage (the request's timeoutMs;
   * absent: until applied); past it the answer is NONE all the same (the topic exists; its
   * partitions become usable here shortly, as in Kafka's KRaft mode, which never waits).
   */
  createTopic(spec: CreateTopicSpec, validateOnly: boolean, applyWaitMs?: number): Promise<MetadataResult>;
  /** Deletes a topic and its data. Errors: UNKNOWN_TOPIC_OR_PARTITION (3). */
  deleteTopic(name: string): Promise<MetadataResult>;
  /**
   * Grows a topic to `totalCount` partitions. Errors: UNKNOWN_TOPIC_OR_PARTITION (3),
   * INVALID_PARTITIONS (37) when not larger than now. `applyWaitMs` as for {@link createTopic}.
   */
  createPartitions(name: string, totalCount: number, validateOnly: boolean, applyWaitMs?: number): Promise<MetadataResult>;
  /**
   * Replaces a topic's config overrides with `overrides` (legacy AlterConfigs semantics: what is
   * not given returns to the default). Errors: UNKNOWN_TOPIC_OR_PARTITION (3).
   */
  alterTopicConfigs(name: string, overrides: Readonly<Record<string, string>>, validateOnly: boolean): Promise<MetadataResult>;
  /**
   * AlterConfigs on a BROKER resource (`""` = cluster default, else a broker id). Tributary has no
   * dynamic broker configs: known names answer INVALID_REQUEST (42, "Cannot update these configs
   * dynamically"), unknown ones INVALID_CONFIG (40); an empty list is accepted.
   */
  alterBrokerConfigs(
    name: string,
    configs: readonly { name: string; value: string | null }[],
    validateOnly: boolean,
  ): Promise<MetadataResult>;
  /**
   * IncrementalAlterConfigs: each config of each resource changed by its operation, the others
   * kept; one result per resource in request order. Errors per resource: UNKNOWN_TOPIC_OR_PARTITION
   * (3), INVALID_CONFIG (40), INVALID_REQUEST (42) (unknown operation, a config or resource named
   * twice, broker configs, which are not dynamic here).
   */
  incrementalAlterConfigs(resources: readonly ConfigChange[], validateOnly: boolean): Promise<ConfigChangeResult[]>;
  /**
   * ElectLeaders: `electionType` 0 PREFERRED, 1 UNCLEAN; `topicPartitions` null for every
   * partition. Per partition: ELECTION_NOT_NEEDED (84), PREFERRED_LEADER_NOT_AVAILABLE (80),
   * ELIGIBLE_LEADERS_NOT_AVAILABLE (83), UNKNOWN_TOPIC_OR_PARTITION (3). Absent where no
   * controller can be reached (the handler answers each partition NOT_CONTROLLER).
   */
  electLeaders?(electionType: number, topicPartitions: readonly { topic: string; partitions: readonly number[] }[] | null): Promise<LeaderElectionResults>;
  /**
   * AlterPartitionReassignments (KIP-455): per partition NONE, UNKNOWN_TOPIC_OR_PARTITION (3),
   * INVALID_REPLICA_ASSIGNMENT (39), NO_REASSIGNMENT_IN_PROGRESS (85); answered once the first
   * stage is committed. Absent where no controller can be reached.
   */
  alterPartitionReassignments?(topics: readonly ReassignmentTarget[]): Promise<ReassignmentResults>;
  /** ListPartitionReassignments: `topics` null for every topic. Absent where no controller can be reached. */
  listPartitionReassignments?(topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null): Promise<OngoingReassignments>;
  /** A new producer id for InitProducerId (never reused, also across restarts). */
  allocateProducerId(): Promise<{ errorCode: number; producerId: number }>;
}

/**
 * The index of the first topic of `sorted` (ordered by name, JavaScript string order) whose name
 * is `name` or after it; `sorted.length` when none is. Binary search: O(log n).
 */
export function firstTopicAtOrAfter(sorted: readonly { readonly name: string }[], name: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]!.name < name) low = middle + 1;
    else high = middle;
  }
  return low;
}
