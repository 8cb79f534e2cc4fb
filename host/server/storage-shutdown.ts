/**
 * The storage half of a clean broker shutdown, each phase logged at info with its partition count
 * and duration (issue 15: a stop of 50,000 written partitions spent minutes after
 * `broker.stopping` with nothing in the log to say where). Both phases write every partition, so
 * both run in one deferred-sync batch of the LogManager (host/io/deferred-sync-disk.ts): the
 * files are written, then made durable together.
 */
import type { Time } from '../io/environment.js';
import type { LogManager } from '../log/log-manager.js';
import type { Logger } from '../observability/logger.js';
import type { LogStorage } from './log-storage.js';

/** What the snapshot phase needs of the ReplicaManager. */
interface ShuttingDownReplicas {
  allPartitions(): readonly unknown[];
  /** Answers what waits and snapshots every partition's producer state (ReplicaManager.shutdown). */
  shutdown(): void;
}

/**
 * ReplicaManager.shutdown (waiting fetches and produces answered, one producer-state snapshot per
 * partition) inside one deferred-sync batch; logs `shutdown.snapshots`. Never throws for disk
 * errors (a failed snapshot is logged by the ReplicaManager; a failed commit takes the log
 * directories offline, and the next start recovers them).
 */
export function snapshotProducerStates(logManager: LogManager, replicas: ShuttingDownReplicas | null, logger: Logger, time: Pick<Time, 'monotonicMs'>): void {
  if (replicas === null) return;
  const startedMs = time.monotonicMs();
  logManager.withDeferredSync(() => replicas.shutdown());
  const partitions = replicas.allPartitions().length;
  logger.info({ event: 'shutdown.snapshots', partitions, durationMs: Math.round(time.monotonicMs() - startedMs) },
    `producer states of ${partitions} partitions snapshotted`);
}

/**
 * Waits for background checkpoint writes, closes every log (flushed, made durable together,
 * then the checkpoints and the clean-shutdown marker: LogManager.shutdown) and releases the
 * log.dirs locks; logs `shutdown.logs_closed`.
 */
export async function closeLogs(storage: LogStorage, logger: Logger, time: Pick<Time, 'monotonicMs'>): Promise<void> {
  // A background checkpoint write would be dropped by shutdown's own writes anyway; waiting
  // lets it finish instead of leaving its temp file to race the directory's release.
  await storage.logManager.backgroundWritesIdle();
  const startedMs = time.monotonicMs();
  const logs = storage.logManager.allLogs().length;
  storage.logManager.shutdown();
  storage.releaseLocks();
  const offline = storage.logManager.logDirectories.filter((directory) => directory.isOffline).length;
  logger.info({ event: 'shutdown.logs_closed', logs, offlineLogDirs: offline, durationMs: Math.round(time.monotonicMs() - startedMs) },
    `${logs} logs flushed and closed${offline > 0 ? ` (${offline} log directories offline: no clean-shutdown marker there)` : ''}`);
}
