/**
 * The storage side of the network-model prototypes (bench only): one UnifiedLog per partition of
 * the benchmark topics, opened over a StorageContext whose Disk is either the real NodeDisk
 * (variants A and C: the event loop writes synchronously, as the broker does today) or a
 * WorkerDisk (variant B: writes and fsyncs run on a storage thread; see worker-disk.ts).
 *
 * Produce acknowledges when the bytes are in the page cache, as Kafka's acks=1: for B that is when
 * the storage thread reports the write (and, for flush.messages=1 topics, the fsync) done.
 */
import path from 'node:path';
import type { Disk } from '../../../host/io/disk.js';
import { defaultLogConfig, type LogConfig } from '../../../host/log/log-config.js';
import { createStorageContext } from '../../../host/log/storage-context.js';
import { UnifiedLog } from '../../../host/log/unified-log.js';

/** A benchmark topic: name, partition count, and whether every append is fsynced (W5's flush.messages=1). */
export interface TopicSpec {
  readonly name: string;
  readonly partitions: number;
  readonly fsyncEachAppend: boolean;
}

/** The topics every prototype server creates at start. */
export const BENCH_TOPICS: readonly TopicSpec[] = [
  { name: 't1', partitions: 1, fsyncEachAppend: false },
  { name: 't8', partitions: 8, fsyncEachAppend: false },
  { name: 'f1', partitions: 1, fsyncEachAppend: true },
  { name: 'f1s', partitions: 1, fsyncEachAppend: true },
  /** Warm-up: every thread's code is JIT-compiled before anything is measured. */
  { name: 'w8', partitions: 8, fsyncEachAppend: false },
];

export interface AppendOutcome {
  errorCode: number;
  baseOffset: number;
  logStartOffset: number;
}

/** Something that tells when every write submitted so far has reached the page cache. */
export interface WriteBarrier {
  /** Resolves once the writes submitted before this call are done; null when they already are. */
  afterPendingWrites(): Promise<void> | null;
}

/** The logs a prototype server owns, keyed `topic-partition`. */
export class PartitionStore {
  private readonly logs = new Map<string, UnifiedLog>();

  /**
   * Opens (creating) the logs of `topics` under `dir` for the partitions `owns` accepts.
   * @param barrier null for a synchronous disk (writes are done when append returns)
   */
  constructor(dir: string, topics: readonly TopicSpec[], owns: (partition: number) => boolean, disk: Disk | undefined, private readonly barrier: WriteBarrier | null) {
    const context = createStorageContext(disk === undefined ? {} : { disk });
    for (const topic of topics) {
      const config: LogConfig = { ...defaultLogConfig, flushMessages: topic.fsyncEachAppend ? 1 : defaultLogConfig.flushMessages };
      for (let partition = 0; partition < topic.partitions; partition++) {
        if (!owns(partition)) continue;
        const log = UnifiedLog.open({ dir: path.join(dir, `${topic.name}-${partition}`), topic: topic.name, partition, config, context });
        this.logs.set(`${topic.name}-${partition}`, log);
      }
    }
  }

  log(topic: string, partition: number): UnifiedLog | undefined {
    return this.logs.get(`${topic}-${partition}`);
  }

  /** Validates, stamps and appends one partition's blob (UnifiedLog.appendAsLeader), then moves the high watermark (one replica). */
  append(log: UnifiedLog, records: Uint8Array): AppendOutcome {
    const result = log.appendAsLeader(records, 0);
    if (result.errorCode === 0) log.updateHighWatermark(log.logEndOffset);
    return { errorCode: result.errorCode, baseOffset: result.baseOffset, logStartOffset: result.logStartOffset };
  }

  /** When the appends made so far are acknowledgeable (null: now). */
  afterPendingWrites(): Promise<void> | null {
    return this.barrier === null ? null : this.barrier.afterPendingWrites();
  }

  close(): void {
    for (const log of this.logs.values()) log.close();
  }
}
