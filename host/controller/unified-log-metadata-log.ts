/**
 * The metadata log on disk: Kafka's `__cluster_metadata-0` partition directory, a Tributary
 * UnifiedLog of record batches whose record values are framed metadata records
 * (metadata-records.ts). One controller operation = one batch, appended and fsynced before the
 * controller replays it, so a crash keeps either the whole operation or none of it (recovery
 * truncates a torn batch).
 *
 * The log is opened through the broker's LogManager (which recovers it with the other logs at
 * start-up, so it must not be opened twice); on a fresh start it lands in the first log
 * directory, `<log.dirs[0]>/__cluster_metadata-0/`, as Kafka's metadata.log.dir defaults to.
 * Retention is off: the log is the only copy of the metadata until snapshots exist.
 * The broker must treat `__cluster_metadata` as no user topic (never list, fetch or delete it).
 */
import type { Clock } from '../io/clock.js';
import { SystemClock } from '../io/clock.js';
import { defaultLogConfig, type LogConfig } from '../log/log-config.js';
import type { LogManager } from '../log/log-manager.js';
import type { UnifiedLog } from '../log/unified-log.js';
import { buildRecordBatch } from '../record/batch-builder.js';
import { iterateBatches, readBatch } from '../record/records.js';
import { type MetadataLog, type MetadataLogEntry, MetadataLogError } from './metadata-log.js';
import { CLUSTER_METADATA_TOPIC_NAME } from './topic-name.js';

/** The metadata log's partition (Kafka's KafkaRaftServer.MetadataPartition is __cluster_metadata-0). */
export const CLUSTER_METADATA_PARTITION = 0;

/** Largest metadata batch, bytes (well under the core's 64 MiB scratch area). */
export const METADATA_MAX_BATCH_BYTES = 32 * 1024 * 1024;

/** Bytes read per step when replaying the log at start-up. */
const READ_CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * The metadata log's LogConfig: Kafka's metadata.log.segment.bytes (1 GiB) and segment.ms
 * (7 days), no retention by time or size, batches up to METADATA_MAX_BATCH_BYTES.
 */
export const METADATA_LOG_CONFIG: LogConfig = Object.freeze({
  ...defaultLogConfig,
  retentionMs: -1,
  retentionBytes: -1,
  cleanupPolicy: ['delete'],
  messageTimestampType: 'CreateTime',
  maxMessageBytes: METADATA_MAX_BATCH_BYTES,
}) as LogConfig;

export class UnifiedLogMetadataLog implements MetadataLog {
  /** The leader epoch stamped on batches (a single-node quorum never changes leader). */
  private readonly leaderEpoch = 0;

  /**
   * @param log the `__cluster_metadata-0` log (its config is replaced by METADATA_LOG_CONFIG)
   * @param clock batch timestamps
   */
  constructor(private readonly log: UnifiedLog, private readonly clock: Clock = new SystemClock()) {
    log.updateConfig(METADATA_LOG_CONFIG);
  }

  /**
   * Opens (creating on first start) `__cluster_metadata-0` through `logManager`.
   * @throws MetadataLogError (56) when no log directory can hold it
   */
  static open(logManager: LogManager, clock: Clock = new SystemClock()): UnifiedLogMetadataLog {
    let log: UnifiedLog;
    try {
      log = logManager.getLog(CLUSTER_METADATA_TOPIC_NAME, CLUSTER_METADATA_PARTITION)
        ?? logManager.getOrCreateLog(CLUSTER_METADATA_TOPIC_NAME, CLUSTER_METADATA_PARTITION, METADATA_LOG_CONFIG);
    } catch (error) {
      throw new MetadataLogError(`cannot open the metadata log: ${(error as Error).message}`, { cause: error });
    }
    if (log.isOffline) throw new MetadataLogError(`the metadata log's directory ${log.dir} is offline`);
    return new UnifiedLogMetadataLog(log, clock);
  }

  /** The underlying log (for diagnostics). */
  get unifiedLog(): UnifiedLog {
    return this.log;
  }

  append(values: readonly Uint8Array[]): number {
    if (values.length === 0) throw new Error('UnifiedLogMetadataLog.append: no records');
    const batch = buildRecordBatch({
      records: values.map((value) => ({ key: null, value })),
      baseTimestamp: this.clock.nowMs(),
    });
    const result = this.log.appendAsLeader(batch, this.leaderEpoch);
    if (result.errorCode !== 0) {
      throw new MetadataLogError(
        `appending ${values.length} metadata record(s) (${batch.length} bytes) failed with error code ${result.errorCode}`,
        { errorCode: result.errorCode },
      );
    }
    this.log.flush();
    if (this.log.isOffline) throw new MetadataLogError(`flushing the metadata log in ${this.log.dir} failed`);
    this.log.updateHighWatermark(this.log.logEndOffset);
    return result.baseOffset;
  }

  *readAll(): Iterable<MetadataLogEntry> {
    let offset = this.log.logStartOffset;
    const end = this.log.logEndOffset;
    while (offset < end) {
      const read = this.log.read(offset, READ_CHUNK_BYTES, end, true);
      if (read.errorCode !== 0) throw new MetadataLogError(`reading the metadata log at offset ${offset} failed with error code ${read.errorCode}`);
      if (read.records.length === 0) throw new MetadataLogError(`the metadata log returned nothing at offset ${offset} before its end ${end}`);
      for (const bytes of iterateBatches(read.records)) {
        const { header, records } = readBatch(bytes);
        for (const record of records) {
          if (record.offset < offset || record.value === null) continue;
          yield { offset: record.offset, value: record.value };
        }
        offset = Math.max(offset, header.lastOffset + 1);
      }
    }
    this.log.updateHighWatermark(end);
  }

  endOffset(): number {
    return this.log.logEndOffset;
  }
}
