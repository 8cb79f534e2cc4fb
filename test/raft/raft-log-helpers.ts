/**
 * Opening FileRaftLogs for tests: on the fault-injecting in-memory disk (crashes, power loss) or
 * on the real one, in `<dir>/__cluster_metadata-0`, with small segments so snapshots delete some.
 */
import * as path from 'node:path';
import { ManualClock } from '../../host/io/clock.js';
import type { Disk } from '../../host/io/disk.js';
import { FaultDisk } from '../../host/io/fault-disk.js';
import type { LogConfig } from '../../host/log/log-config.js';
import { createStorageContext } from '../../host/log/storage-context.js';
import { UnifiedLog } from '../../host/log/unified-log.js';
import { FileRaftLog, RAFT_LOG_CONFIG, RAFT_LOG_PARTITION, RAFT_LOG_TOPIC } from '../../host/raft/file-raft-log.js';
import type { LogBatch, RaftLog } from '../../host/raft/raft-log.js';

export const METADATA_LOG_DIR = '/data/metadata';
export const PARTITION_DIR = path.join(METADATA_LOG_DIR, `${RAFT_LOG_TOPIC}-${RAFT_LOG_PARTITION}`);

/** Small segments: a few batches each, so storeSnapshot deletes whole segments. */
export const SMALL_SEGMENTS: Partial<LogConfig> = { segmentBytes: 1024, indexIntervalBytes: 256 };

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
export const text = (value: Uint8Array): string => new TextDecoder().decode(value);

/** A FaultDisk with the metadata log directory made durable. */
export function freshFaultDisk(seed = 1): FaultDisk {
  const disk = new FaultDisk(seed);
  disk.mkdir(METADATA_LOG_DIR);
  disk.syncAll();
  return disk;
}

/**
 * Opens (recovering) the UnifiedLog in `dir` on `disk`, then the FileRaftLog over it. The caller
 * closes `raftLog.unifiedLog` (close() is a clean shutdown; closeWithoutFlush() a crash).
 */
export function openFileRaftLog(disk: Disk, dir = PARTITION_DIR, clock = new ManualClock(), logConfig = SMALL_SEGMENTS): FileRaftLog {
  const config = { ...RAFT_LOG_CONFIG, ...logConfig };
  const context = createStorageContext({ disk, clock });
  const log = UnifiedLog.open({ dir, topic: RAFT_LOG_TOPIC, partition: RAFT_LOG_PARTITION, config, context });
  return FileRaftLog.open({ log, disk, clock, logConfig });
}

/** Every record of the log from its start, as text. */
export function allRecords(log: RaftLog): string[] {
  return log.read(log.startOffset(), Number.MAX_SAFE_INTEGER).flatMap((batch) => batch.records.map(text));
}

/** The batches' shapes without the record bytes' types (Buffer or Uint8Array). */
export function shapes(batches: readonly LogBatch[]): { baseOffset: number; epoch: number; control: boolean; records: string[] }[] {
  return batches.map((batch) => ({ baseOffset: batch.baseOffset, epoch: batch.epoch, control: batch.control, records: batch.records.map(text) }));
}
