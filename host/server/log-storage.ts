/**
 * The broker's storage at start-up: the `log.dirs` locks (a second broker on the same
 * directories is refused before anything there is read or written), `meta.properties` (cluster
 * id), and the LogManager, which loads every log and, after an unclean stop, recovers them
 * (LogLoader: CRC of every batch past the recovery point, torn tails truncated, indexes rebuilt).
 * Also where logs the metadata does not know are set aside as stray (KRaft).
 */
import type { BrokerConfig } from '../config/broker-config.js';
import { brokerLogConfigDefaults } from '../config/topic-config.js';
import { CLUSTER_METADATA_TOPIC_NAME } from '../controller/topic-name.js';
import type { Disk } from '../io/disk.js';
import type { Environment } from '../io/environment.js';
import { lockLogDirs } from '../log/log-dir-lock.js';
import { LogManager } from '../log/log-manager.js';
import type { Logger } from '../observability/logger.js';
import type { GroupFlusher } from '../log/group-flush.js';
import type { Core } from '../wasm/core.js';
import { clusterIdForVoters, ensureMetaProperties } from './meta-properties.js';
import type { MetadataCache } from './metadata-cache.js';

/** The opened storage of one broker. */
export interface LogStorage {
  readonly clusterId: string;
  readonly logManager: LogManager;
  /**
   * The environment's disk, except that the first listing of each partition directory is served
   * from the one loading the logs has just done (producer-state snapshots are found by listing).
   */
  readonly producerStateDisk: Disk;
  /** Releases the log.dirs locks (after the logs are closed). */
  releaseLocks(): void;
}

/**
 * Locks the log directories, reads (or writes) meta.properties and opens the LogManager on the
 * environment's disk, clock and randomness with the broker's core and group flusher.
 * Topic overrides are not known yet (the controller replays them from the metadata log, which the
 * LogManager itself opens): logs get their real configs when the metadata publisher applies them.
 * @throws LogDirInUseError when a directory is locked by a live process;
 *   InconsistentMetaPropertiesError for another node's or cluster's directories; the fs error
 *   when a directory cannot be read or written (nothing stays locked)
 */
export function openLogStorage(
  config: BrokerConfig,
  environment: Environment,
  logger: Logger,
  resources: { readonly core: Core; readonly groupFlusher: GroupFlusher },
): LogStorage {
  const logDirLocks = lockLogDirs(config.logDirs, logger);
  let clusterId: string;
  let logManager: LogManager;
  try {
    // The nodes of one multi-voter quorum agree on a cluster id derived from the voters.
    const initialClusterId = config.controllerQuorumVoters.length > 1
      ? clusterIdForVoters(config.controllerQuorumVoters.map((voter) => voter.id))
      : undefined;
    ({ clusterId } = ensureMetaProperties(config.logDirs, config.nodeId, {
      random: environment.random, disk: environment.disk, time: environment.time, ...(initialClusterId === undefined ? {} : { initialClusterId }),
    }));
    logManager = LogManager.open({
      logDirs: [...config.logDirs],
      defaults: brokerLogConfigDefaults(config),
      disk: environment.disk,
      clock: environment.time,
      random: environment.random,
      core: resources.core,
      groupFlusher: resources.groupFlusher,
    });
  } catch (error) {
    logDirLocks.release();
    throw error;
  }
  // The LogManager's disk, so that the clean shutdown's snapshots share its deferred sync.
  const disk = logManager.context.disk;
  const producerStateDisk: Disk = Object.assign(Object.create(disk) as Disk, {
    list: (dir: string): string[] => logManager.takeStartupListing(dir) ?? disk.list(dir),
  });
  return { clusterId, logManager, producerStateDisk, releaseLocks: () => logDirLocks.release() };
}

/**
 * Sets aside every log on disk whose topic the metadata cache does not hold (e.g. a crash after a
 * topic deletion was committed but before its logs were removed): KRaft treats such logs as stray,
 * renaming them `<topic>-<partition>.<timestampMs>-stray` and never serving them. Nothing is
 * created. One warning per topic.
 */
export function setAsideStrayLogs(cache: MetadataCache, logManager: LogManager, nowMs: number, logger: Logger): void {
  const stray = new Map<string, number[]>();
  for (const log of logManager.allLogs()) {
    if (log.topic === CLUSTER_METADATA_TOPIC_NAME || cache.topic(log.topic) !== undefined) continue;
    const partitions = stray.get(log.topic) ?? [];
    partitions.push(log.partition);
    stray.set(log.topic, partitions);
  }
  for (const [topic, partitions] of stray) {
    for (const partition of partitions) logManager.markStray(topic, partition, nowMs);
    logger.warn({ event: 'topic.stray_logs', topic, count: partitions.length },
      `${partitions.length} log(s) of topic ${topic} are not in the metadata; renamed with the -stray suffix and not served`);
  }
}
