/** Name of the internal topic holding committed offsets and group metadata. */
export const OFFSETS_TOPIC_NAME = '__consumer_offsets';

/** One record of `__consumer_offsets` as the coordinator replays it (a null value is a tombstone). */
export interface OffsetsTopicRecord {
  key: Uint8Array | null;
  value: Uint8Array | null;
}

/**
 * The coordinator's persistence seam, wired by the broker to the `__consumer_offsets` logs
 * (compacted, offsets.topic.num.partitions partitions). The coordinator decides which partition
 * a group lives in ({@link partitionForGroup}) and writes whole record batches.
 */
export interface OffsetsTopic {
  /**
   * Appends one v2 record batch (uncompressed, CreateTime, no producer id) to `partition` as
   * leader. Returns the Kafka error code of the append (0 when durable per the topic's acks),
   * synchronously or as a promise (e.g. once replication acknowledges). Never throws for a disk
   * failure: that is KAFKA_STORAGE_ERROR (56).
   */
  append(partition: number, batch: Uint8Array): number | Promise<number>;
  /** Every record of `partition` from the log start to the end, in offset order. */
  readAll(partition: number): Iterable<OffsetsTopicRecord>;
}

/**
 * Java's String.hashCode: s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, in 32-bit
 * two's-complement arithmetic.
 */
export function javaStringHashCode(value: string): number {
  let hash = 0;
  for (let i = 0; i < value.length; i++) hash = (Math.imul(hash, 31) + value.charCodeAt(i)) | 0;
  return hash;
}

/**
 * The `__consumer_offsets` partition (and so the coordinator) of a group:
 * `Utils.abs(groupId.hashCode) % offsets.topic.num.partitions`, where Kafka's Utils.abs maps
 * Integer.MIN_VALUE to 0. FindCoordinator and the coordinator must agree on this.
 */
export function partitionForGroup(groupId: string, numPartitions: number): number {
  const hash = javaStringHashCode(groupId);
  const abs = hash === -2147483648 ? 0 : Math.abs(hash);
  return abs % numPartitions;
}
