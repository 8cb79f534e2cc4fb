/**
 * The shapes of the ReplicaManager's Produce and Fetch paths (requests in, per-partition results
 * out), in their own file so that the delayed operations (delayed-produce.ts, delayed-fetch.ts) and
 * the ReplicaManager that creates them share them without importing each other.
 */
import type { AppendOrigin } from '../log/producer-state-manager.js';
import type { PartitionAppendResult, PartitionReadResult } from './partition.js';

/** One partition's records of a Produce request. */
export interface ProducePartitionData {
  topic: string;
  partition: number;
  /** The partition's records blob from the Produce request (null is treated as empty). */
  records: Uint8Array | null;
}

/** A Produce request as the ReplicaManager takes it (appendRecords). */
export interface ProduceParams {
  /** -1 (all ISR), 0 (none: the caller sends no response), 1 (leader). */
  requiredAcks: number;
  /** Produce timeout_ms: how long acks=-1 may wait for the ISR. */
  timeoutMs: number;
  entries: readonly ProducePartitionData[];
  /** True for the broker's own writes (group coordinator to __consumer_offsets). */
  internalTopicsAllowed?: boolean;
  /**
   * Kafka's AppendOrigin: 'client' (default) or 'coordinator' for the broker's own writes, which
   * may hold transaction markers (control batches) and are checked for producer epochs only.
   * Default: 'coordinator' when internalTopicsAllowed, else 'client'.
   */
  origin?: AppendOrigin;
}

/** The outcome of one partition's append: error code, base offset, log append time, log start offset. */
export interface ProducePartitionResult extends PartitionAppendResult {
  topic: string;
  partition: number;
}

/** One partition of a Fetch request: where to read from and how much (bytes). */
export interface FetchPartitionRequest {
  topic: string;
  partition: number;
  fetchOffset: number;
  /** partition_max_bytes, bytes. */
  partitionMaxBytes: number;
  /** Fetch v9+ current_leader_epoch; -1 or absent = not checked. */
  currentLeaderEpoch?: number;
  /** Fetch v12+ last_fetched_epoch (KIP-320); -1 or absent = no divergence check. */
  lastFetchedEpoch?: number;
  /** Fetch v5+ log_start_offset of a follower; -1 or absent for consumers. */
  logStartOffset?: number;
}

/** A Fetch request as the ReplicaManager takes it (fetchMessages): wait, size bounds, isolation. */
export interface FetchParams {
  /** Fetch max_wait_ms. */
  maxWaitMs: number;
  /** Fetch min_bytes. */
  minBytes: number;
  /** Fetch max_bytes (v3+; pass a large value such as 0x7fffffff for v0-2). */
  maxBytes: number;
  /** 0 read_uncommitted, 1 read_committed (Fetch v4+; 0 before). */
  isolationLevel: number;
  /** True for Fetch v3+ (first batch returned even above the limits); false for v0-2. */
  minOneMessage: boolean;
  partitions: readonly FetchPartitionRequest[];
  /**
   * Replica id of a follower fetch (Fetch replica_id, v15+ ReplicaState.replica_id); -1 / absent
   * for consumers. A follower reads up to the log end and its fetch offset is recorded.
   */
  replicaId?: number;
}

/** One partition's read: error code, high watermark, last stable offset, log start offset, records. */
export interface FetchPartitionResult extends PartitionReadResult {
  topic: string;
  partition: number;
}
