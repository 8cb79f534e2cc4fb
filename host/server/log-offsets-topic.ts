/**
 * The group coordinator's {@link OffsetsTopic} over the broker's own `__consumer_offsets`
 * partitions (and the transaction coordinator's over `__transaction_state`): appends go through the ReplicaManager like any leader append (internal topics
 * allowed), and loading reads the partition log from its start to its end.
 */
import type { OffsetsTopic, OffsetsTopicRecord } from '../coordinator/offsets-topic.js';
import { coordinatorRecordsOf } from '../coordinator/offsets-batch.js';
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { iterateBatches, readBatch } from '../record/records.js';
import type { ReplicaManager } from '../replication/replica-manager.js';

/** Bytes read per step when loading a partition. */
const LOAD_READ_BYTES = 1 << 20;
/** How long an offsets append may wait for the ISR (Kafka's offsets.commit.timeout.ms default). */
const OFFSETS_COMMIT_TIMEOUT_MS = 5_000;

/** The log reads a load needs (UnifiedLog satisfies it). */
export interface ReadableLog {
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  read(fetchOffset: number, maxBytes: number, upperBoundOffset: number, minOneMessage: boolean): { errorCode: number; records: Buffer };
}

export interface LogOffsetsTopicOptions {
  replicaManager: ReplicaManager;
  /** The internal topic (default `__consumer_offsets`; the transaction coordinator's is `__transaction_state`). */
  topic?: string;
  /** The log of a `__consumer_offsets` partition, or undefined while the topic does not exist. */
  log(partition: number): ReadableLog | undefined;
  /** Creates `__consumer_offsets` when missing; resolves with a Kafka error code. */
  ensureTopic(): Promise<number>;
  logger?: { warn(fields: object, message: string): void };
}

export class LogOffsetsTopic implements OffsetsTopic {
  private readonly topic: string;

  constructor(private readonly options: LogOffsetsTopicOptions) {
    this.topic = options.topic ?? OFFSETS_TOPIC_NAME;
  }

  async append(partition: number, batch: Uint8Array): Promise<number> {
    const ensured = await this.options.ensureTopic();
    if (ensured !== ErrorCode.NONE) return ensured;
    const [result] = await this.options.replicaManager.appendRecords({
      requiredAcks: -1,
      timeoutMs: OFFSETS_COMMIT_TIMEOUT_MS,
      entries: [{ topic: this.topic, partition, records: batch }],
      internalTopicsAllowed: true,
    });
    return result?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
  }

  *readAll(partition: number): Iterable<OffsetsTopicRecord> {
    const log = this.options.log(partition);
    if (log === undefined) return;
    const end = log.logEndOffset;
    let offset = log.logStartOffset;
    while (offset < end) {
      const read = log.read(offset, LOAD_READ_BYTES, end, true);
      if (read.errorCode !== ErrorCode.NONE || read.records.length === 0) {
        this.options.logger?.warn({ event: 'offsets.load_stopped', partition, offset, errorCode: read.errorCode },
          `loading ${this.topic}-${partition} stopped at offset ${offset}`);
        return;
      }
      let progressed = false;
      for (const bytes of iterateBatches(read.records)) {
        const { header, records } = readBatch(bytes, { verifyCrc: false });
        if (header.lastOffset < offset) continue;
        progressed = true;
        offset = header.lastOffset + 1;
        yield* coordinatorRecordsOf(header, records);
      }
      if (!progressed) return;
    }
  }
}
