/**
 * The metadata log on disk: Kafka's `__cluster_metadata-0` partition directory, a Tributary
 * UnifiedLog of record batches whose record values are framed metadata records
 * (metadata-records.ts). One controller operation = one batch, so a crash keeps either the whole
 * operation or none of it (recovery truncates a torn batch).
 *
 * As a quorum it is the embedded single node's: one voter, `localId`, which leads from the start
 * (epoch 1, or the highest epoch stored in the log) and never loses the leadership. A batch is
 * committed once it is fsynced (a majority of one), so append stores, flushes, moves the high
 * watermark and tells the listeners (handleCommit) before it returns. Committing inside append
 * rather than deferring it to a later turn keeps the single node's behaviour exactly as it was when
 * append meant "durable on return": an operation's change is in the image and its listeners have
 * run by the time the controller's call returns, in the same turn, with no extra event-loop hop
 * per admin request, and a manual test clock needs no stepping to see a commit.
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
import { RecordBatchWriter } from '../record/batch-builder.js';
import { iterateBatches, readBatch } from '../record/records.js';
import {
  type LeaderAndEpoch,
  type MetadataBatch,
  type MetadataLog,
  MetadataLogError,
  type MetadataLogListener,
  NOT_CONTROLLER_ERROR_CODE,
} from './metadata-log.js';
import { CLUSTER_METADATA_TOPIC_NAME } from './topic-name.js';

/** The metadata log's partition (Kafka's KafkaRaftServer.MetadataPartition is __cluster_metadata-0). */
export const CLUSTER_METADATA_PARTITION = 0;

/** Largest metadata batch, bytes (well under the core's 64 MiB scratch area). */
export const METADATA_MAX_BATCH_BYTES = 32 * 1024 * 1024;

/** Metadata records carry no headers. */
const NO_HEADERS: readonly never[] = [];

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

/** How a UnifiedLogMetadataLog is opened. */
export interface UnifiedLogMetadataLogOptions {
  /** node.id: the one voter, leader from the start. */
  readonly localId: number;
  /** Batch timestamps (a Time fits); default the system clock. */
  readonly time?: Clock;
}

export class UnifiedLogMetadataLog implements MetadataLog {
  private readonly localId: number;
  private readonly clock: Clock;
  private readonly listeners: MetadataLogListener[] = [];
  /** The leader epoch stamped on new batches: 1, or more when the log holds a later one. */
  private leaderEpoch = 1;

  /**
   * @param log the `__cluster_metadata-0` log (its config is replaced by METADATA_LOG_CONFIG);
   *   everything stored in it is committed (the high watermark moves to its end)
   */
  constructor(private readonly log: UnifiedLog, options: UnifiedLogMetadataLogOptions) {
    this.localId = options.localId;
    this.clock = options.time ?? new SystemClock();
    log.updateConfig(METADATA_LOG_CONFIG);
    // One voter: what recovery kept on disk was acknowledged by the majority of one.
    log.updateHighWatermark(log.logEndOffset);
  }

  /**
   * Opens (creating on first start) `__cluster_metadata-0` through `logManager`.
   * @throws MetadataLogError (56) when no log directory can hold it
   */
  static open(logManager: LogManager, options: UnifiedLogMetadataLogOptions): UnifiedLogMetadataLog {
    let log: UnifiedLog;
    try {
      log = logManager.getLog(CLUSTER_METADATA_TOPIC_NAME, CLUSTER_METADATA_PARTITION)
        ?? logManager.getOrCreateLog(CLUSTER_METADATA_TOPIC_NAME, CLUSTER_METADATA_PARTITION, METADATA_LOG_CONFIG);
    } catch (error) {
      throw new MetadataLogError(`cannot open the metadata log: ${(error as Error).message}`, { cause: error });
    }
    if (log.isOffline) throw new MetadataLogError(`the metadata log's directory ${log.dir} is offline`);
    return new UnifiedLogMetadataLog(log, options);
  }

  /** The underlying log (for diagnostics). */
  get unifiedLog(): UnifiedLog {
    return this.log;
  }

  register(listener: MetadataLogListener): void {
    this.listeners.push(listener);
    listener.handleLeaderChange(this.leaderAndEpoch());
  }

  /**
   * Stores the batch, fsyncs it and commits it (the listeners' handleCommit runs before this
   * returns). Errors as in {@link MetadataLog.append}: NOT_CONTROLLER (41) for an epoch other
   * than the current one, the log's error code when it refuses the batch, 56 when the flush fails.
   */
  append(epoch: number, values: readonly Uint8Array[]): number {
    if (values.length === 0) throw new Error('UnifiedLogMetadataLog.append: no records');
    if (epoch !== this.leaderEpoch) {
      throw new MetadataLogError(`node ${this.localId} leads epoch ${this.leaderEpoch}, not ${epoch}`, { errorCode: NOT_CONTROLLER_ERROR_CODE });
    }
    // Byte-identical to buildRecordBatch({ records: values with null keys, baseTimestamp: now }),
    // without an object per record.
    const nowMs = this.clock.nowMs();
    const writer = new RecordBatchWriter(values.reduce((sum, value) => sum + value.length + 8, 0));
    for (const value of values) writer.append(null, value, NO_HEADERS, nowMs);
    const batch = writer.build({ compression: 0, producerId: -1, producerEpoch: -1, baseSequence: -1 });
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
    const lastOffset = result.baseOffset + values.length - 1;
    const committed: MetadataBatch = { baseOffset: result.baseOffset, lastOffset, epoch, records: values };
    for (const listener of [...this.listeners]) listener.handleCommit(committed);
    return lastOffset;
  }

  highWatermark(): number {
    return this.log.highWatermark;
  }

  endOffset(): number {
    return this.log.logEndOffset;
  }

  leaderAndEpoch(): LeaderAndEpoch {
    return { leaderId: this.localId, epoch: this.leaderEpoch };
  }

  /**
   * Reads the stored batches (all committed); notes the highest leader epoch among them, which a
   * later {@link register} announces when above 1.
   */
  *readCommitted(fromOffset: number): Iterable<MetadataBatch> {
    let offset = Math.max(fromOffset, this.log.logStartOffset);
    const end = this.log.highWatermark;
    while (offset < end) {
      const read = this.log.read(offset, READ_CHUNK_BYTES, end, true);
      if (read.errorCode !== 0) throw new MetadataLogError(`reading the metadata log at offset ${offset} failed with error code ${read.errorCode}`);
      if (read.records.length === 0) throw new MetadataLogError(`the metadata log returned nothing at offset ${offset} before its end ${end}`);
      for (const bytes of iterateBatches(read.records)) {
        const { header, records } = readBatch(bytes);
        const values: Uint8Array[] = [];
        let baseOffset = -1;
        for (const record of records) {
          if (record.offset < offset || record.value === null) continue;
          if (baseOffset < 0) baseOffset = record.offset;
          values.push(record.value);
        }
        this.leaderEpoch = Math.max(this.leaderEpoch, header.partitionLeaderEpoch);
        if (values.length > 0) yield { baseOffset, lastOffset: baseOffset + values.length - 1, epoch: header.partitionLeaderEpoch, records: values };
        offset = Math.max(offset, header.lastOffset + 1);
      }
    }
  }
}
