import type { CoordinatorLog, CoordinatorRecord } from './coordinator-log.js';

/** Name of the internal topic holding committed offsets and group metadata. */
export const OFFSETS_TOPIC_NAME = '__consumer_offsets';

/** One record of `__consumer_offsets` as the coordinator replays it (a null value is a tombstone). */
export type OffsetsTopicRecord = CoordinatorRecord;

/**
 * The group coordinator's persistence seam, wired by the broker to the `__consumer_offsets` logs
 * (compacted, offsets.topic.num.partitions partitions): the {@link CoordinatorLog} of its
 * runtime. The coordinator decides which partition a group lives in ({@link partitionForGroup})
 * and writes whole record batches.
 */
export type OffsetsTopic = CoordinatorLog;

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
