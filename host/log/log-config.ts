/**
 * Per-log configuration: Kafka's topic-level config names camelCased (`segment.bytes` ->
 * `segmentBytes`), durations in ms, sizes in bytes. Kafka's Long.MAX_VALUE ("never") is
 * Number.MAX_SAFE_INTEGER. The same shape is declared by host/config/topic-config.ts, which
 * builds these objects from topic overrides and broker defaults; the two must stay identical.
 */
/**
 * compression.type values (Kafka's BrokerCompressionType): `producer` keeps each batch's codec,
 * the others are the codec every stored batch gets (the leader recompresses batches that differ).
 */
export type TopicCompressionType = 'producer' | 'uncompressed' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

export interface LogConfig {
  /** segment.bytes: roll the active segment before it would exceed this size. */
  segmentBytes: number;
  /** segment.ms: roll once the active segment's first batch is this old. */
  segmentMs: number;
  /** segment.index.bytes: maximum size of a segment's offset and time index. */
  segmentIndexBytes: number;
  /** index.interval.bytes: log bytes between two index entries. */
  indexIntervalBytes: number;
  /** retention.ms: delete closed segments whose largest timestamp is older; -1 = keep forever. */
  retentionMs: number;
  /** retention.bytes: delete oldest segments while the log is larger; -1 = no limit. */
  retentionBytes: number;
  /** cleanup.policy: `delete`, `compact` or both. */
  cleanupPolicy: ('delete' | 'compact')[];
  /** delete.retention.ms: how long the cleaner keeps tombstones. */
  deleteRetentionMs: number;
  /** min.compaction.lag.ms: records younger than this are not compacted. */
  minCompactionLagMs: number;
  /** flush.messages: fsync after this many messages (1 = before every acknowledgement). */
  flushMessages: number;
  /** flush.ms: fsync when the last flush is this old. */
  flushMs: number;
  /** message.timestamp.type. */
  messageTimestampType: 'CreateTime' | 'LogAppendTime';
  /**
   * message.timestamp.before.max.ms / after.max.ms: how far a CreateTime record's timestamp may
   * lie before / after the broker's clock (INVALID_TIMESTAMP beyond); Number.MAX_SAFE_INTEGER =
   * no limit. message.timestamp.difference.max.ms (deprecated, KIP-937) stands in for either
   * left at its default.
   */
  messageTimestampBeforeMaxMs: number;
  messageTimestampAfterMaxMs: number;
  messageTimestampDifferenceMaxMs: number;
  /** max.message.bytes: largest record batch accepted, bytes. */
  maxMessageBytes: number;
  /** file.delete.delay.ms (unused: reads copy synchronously, so files are deleted at once). */
  fileDeleteDelayMs: number;
  /** min.insync.replicas (used by replication, carried here as in Kafka's LogConfig). */
  minInsyncReplicas: number;
  /** min.cleanable.dirty.ratio: compact when dirty bytes / cleanable bytes reach this. */
  minCleanableDirtyRatio: number;
  /** compression.type: the codec of stored batches, or `producer` (as sent). */
  compressionType: TopicCompressionType;
  /** compression.gzip.level (KIP-390): 1-9, or -1 for zlib's default. */
  compressionGzipLevel: number;
  /** compression.lz4.level (KIP-390): 1-17; validated, but lz4-napi writes its one (fast) level. */
  compressionLz4Level: number;
  /** compression.zstd.level (KIP-390): -131072..22. */
  compressionZstdLevel: number;
}

/** Kafka's defaults (Kafka 3.9 TopicConfig / LogConfig). */
export const defaultLogConfig: LogConfig = Object.freeze({
  segmentBytes: 1024 * 1024 * 1024,
  segmentMs: 7 * 24 * 60 * 60 * 1000,
  segmentIndexBytes: 10 * 1024 * 1024,
  indexIntervalBytes: 4096,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
  retentionBytes: -1,
  cleanupPolicy: Object.freeze(['delete']) as ('delete' | 'compact')[],
  deleteRetentionMs: 24 * 60 * 60 * 1000,
  minCompactionLagMs: 0,
  flushMessages: Number.MAX_SAFE_INTEGER,
  flushMs: Number.MAX_SAFE_INTEGER,
  messageTimestampType: 'CreateTime',
  messageTimestampBeforeMaxMs: Number.MAX_SAFE_INTEGER,
  messageTimestampAfterMaxMs: Number.MAX_SAFE_INTEGER,
  messageTimestampDifferenceMaxMs: Number.MAX_SAFE_INTEGER,
  maxMessageBytes: 1024 * 1024 + 12,
  fileDeleteDelayMs: 60_000,
  minInsyncReplicas: 1,
  minCleanableDirtyRatio: 0.5,
  compressionType: 'producer',
  compressionGzipLevel: -1,
  compressionLz4Level: 9,
  compressionZstdLevel: 3,
}) as LogConfig;

/** True when the policy includes `delete`. */
export function hasDeletePolicy(config: LogConfig): boolean {
  return config.cleanupPolicy.includes('delete');
}

/** True when the policy includes `compact`. */
export function hasCompactPolicy(config: LogConfig): boolean {
  return config.cleanupPolicy.includes('compact');
}

/**
 * The window of CreateTime timestamps a leader accepts, as Kafka's LogConfig computes it: each
 * bound is its own config unless left at Long.MAX_VALUE, then message.timestamp.difference.max.ms.
 */
export function timestampBounds(config: LogConfig): { beforeMaxMs: number; afterMaxMs: number } {
  const never = Number.MAX_SAFE_INTEGER;
  return {
    beforeMaxMs: config.messageTimestampBeforeMaxMs !== never ? config.messageTimestampBeforeMaxMs : config.messageTimestampDifferenceMaxMs,
    afterMaxMs: config.messageTimestampAfterMaxMs !== never ? config.messageTimestampAfterMaxMs : config.messageTimestampDifferenceMaxMs,
  };
}
