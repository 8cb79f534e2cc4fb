/**
 * What a follower's fetcher asks of one partition leader's broker (Kafka's LeaderEndPoint): one
 * replica Fetch for many partitions, and the leader's earliest / latest offset of one partition
 * (for OFFSET_OUT_OF_RANGE). The remote implementation (remote-leader-end-point.ts) speaks Fetch
 * v12 and ListOffsets over a NodeChannel; tests use a fake leader.
 *
 * Results are values: a leader that does not answer is `timeout`, one that cannot be reached is
 * `disconnected`; neither is thrown.
 */

/** One partition of a replica Fetch (Fetch v12 FetchPartition, as a follower fills it). */
export interface ReplicaFetchPartition {
  readonly topic: string;
  readonly partition: number;
  /** The follower's log end offset: where it continues. */
  readonly fetchOffset: number;
  /** The leader epoch the follower knows (the leader answers FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH otherwise). */
  readonly currentLeaderEpoch: number;
  /** The epoch of the follower's last batch, -1 when its log has none (KIP-320: the leader checks it for divergence). */
  readonly lastFetchedEpoch: number;
  /** The follower's log start offset. */
  readonly logStartOffset: number;
  /** replica.fetch.max.bytes. */
  readonly partitionMaxBytes: number;
}

/** One replica Fetch request, ms and bytes. */
export interface ReplicaFetchRequest {
  /** This broker's node.id (Fetch replica_id). */
  readonly replicaId: number;
  /** replica.fetch.wait.max.ms. */
  readonly maxWaitMs: number;
  /** replica.fetch.min.bytes. */
  readonly minBytes: number;
  /** replica.fetch.response.max.bytes. */
  readonly maxBytes: number;
  readonly partitions: readonly ReplicaFetchPartition[];
}

/** The leader's answer for one partition (Fetch v12 PartitionData, what a follower reads of it). */
export interface ReplicaFetchPartitionData {
  readonly topic: string;
  readonly partition: number;
  /** 0, or a Kafka error code (1, 3, 6, 56, 74, 75, ...). */
  readonly errorCode: number;
  readonly highWatermark: number;
  readonly logStartOffset: number;
  /** KIP-320: set when the follower's log diverges from the leader's after `endOffset` of `epoch`. */
  readonly divergingEpoch: { readonly epoch: number; readonly endOffset: number } | null;
  /** Whole batches with the leader's offsets and epochs; null or empty when none. */
  readonly records: Uint8Array | null;
}

/** What became of one request to the leader. */
export type LeaderResult<T> =
  | { readonly kind: 'response'; readonly body: T }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'disconnected'; readonly reason: string };

/** The leader's answer to a replica Fetch: a top-level error code and the partitions it answered. */
export interface ReplicaFetchResponse {
  readonly errorCode: number;
  readonly partitions: readonly ReplicaFetchPartitionData[];
}

/** An offset of the leader's log (ListOffsets): errorCode 0 and the offset, or an error code and -1. */
export interface LeaderOffset {
  readonly errorCode: number;
  readonly offset: number;
}

/** One source broker as the fetcher sees it. */
export interface LeaderEndPoint {
  /** The leader's broker id. */
  readonly brokerId: number;
  /** Sends one replica Fetch; resolves with the answer, a timeout or a disconnect. */
  fetch(request: ReplicaFetchRequest): Promise<LeaderResult<ReplicaFetchResponse>>;
  /** The leader's log start offset of a partition (ListOffsets EARLIEST). */
  fetchEarliestOffset(topic: string, partition: number, currentLeaderEpoch: number): Promise<LeaderResult<LeaderOffset>>;
  /**
   * The leader's latest offset of a partition (ListOffsets LATEST): its log end offset for a
   * replica request in Kafka; at worst its high watermark, which is below it (truncating a
   * follower to it only makes it fetch more).
   */
  fetchLatestOffset(topic: string, partition: number, currentLeaderEpoch: number): Promise<LeaderResult<LeaderOffset>>;
}
