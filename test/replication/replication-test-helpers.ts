/**
 * Set-up shared by the replication tests: real UnifiedLogs in temp directories (one per replica),
 * batches built by our client's batch builder, and the leader's stamped bytes read back so a
 * follower can append them as a ReplicaFetcher would.
 */
import * as path from 'node:path';
import { ManualClock } from '../../host/io/clock.js';
import { NodeDisk } from '../../host/io/disk.js';
import { ProducerStateManager } from '../../host/log/producer-state-manager.js';
import { createStorageContext } from '../../host/log/storage-context.js';
import { UnifiedLog } from '../../host/log/unified-log.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { removeTempDirs, tempDir, testConfig } from '../log/log-test-helpers.js';

export { removeTempDirs };

const openLogs: UnifiedLog[] = [];

/** Closes the logs opened by {@link openReplicaLog}; call from afterEach (before removeTempDirs). */
export function closeReplicaLogs(): void {
  for (const log of openLogs.splice(0)) log.close();
}

/** A UnifiedLog for topic `t` partition 0 in `dir` (default: a new temp dir). */
export function openReplicaLog(options: { dir?: string; minInsyncReplicas?: number; clock?: ManualClock; segmentBytes?: number } = {}): UnifiedLog {
  const dir = options.dir ?? path.join(tempDir('tributary-repl-'), 't-0');
  const log = UnifiedLog.open({
    dir,
    topic: 't',
    partition: 0,
    config: testConfig({ segmentBytes: options.segmentBytes ?? 1 << 20, minInsyncReplicas: options.minInsyncReplicas ?? 1 }),
    context: createStorageContext({ clock: options.clock ?? new ManualClock() }),
  });
  openLogs.push(log);
  return log;
}

/** A fresh ProducerStateManager on the log's directory. */
export function producerStateFor(log: UnifiedLog): ProducerStateManager {
  return new ProducerStateManager({ dir: log.dir, disk: new NodeDisk() });
}

/** One batch of `count` records (values `v0`, `v1`, ...), optionally idempotent. */
export function recordsBatch(count: number, producer?: { producerId: number; producerEpoch: number; baseSequence: number }): Buffer {
  const records = Array.from({ length: count }, (_, i) => ({ value: `v${i}`, timestamp: 1_700_000_000_000 + i }));
  return buildRecordBatch({ records, ...(producer ?? {}) });
}

/** The leader's stored batches from `fromOffset` to its log end, as a Fetch response carries them. */
export function leaderBytes(log: UnifiedLog, fromOffset: number): Buffer {
  return log.read(fromOffset, 1 << 24, log.logEndOffset, true).records;
}

/** The partition leader epoch of every stored batch of `log`, in order. */
export function batchEpochs(log: UnifiedLog): number[] {
  const bytes = log.read(log.logStartOffset, 1 << 24, log.logEndOffset, true).records;
  const epochs: number[] = [];
  for (let at = 0; at < bytes.length; at += 12 + bytes.readInt32BE(at + 8)) epochs.push(bytes.readInt32BE(at + 12));
  return epochs;
}
