/**
 * Kafka's LogManager: every partition log of the broker across `log.dirs`.
 *
 * Per log directory it keeps Kafka's files: `recovery-point-offset-checkpoint`,
 * `log-start-offset-checkpoint`, `replication-offset-checkpoint` (high watermarks),
 * `cleaner-offset-checkpoint` (compaction progress) and the clean-shutdown marker
 * `.kafka_cleanshutdown`. Start-up: each directory's marker says whether its logs need recovery;
 * the marker is deleted (durably) once every log is loaded, before anything is appended, so a later
 * crash is never mistaken for a clean stop. Shutdown: every log is flushed and closed, the
 * checkpoints written, and the marker created only in directories where all of that succeeded.
 *
 * A directory that fails (any disk error in it) goes offline: its logs answer
 * KAFKA_STORAGE_ERROR (56) and are skipped by housekeeping; the others carry on.
 */
import * as path from 'node:path';
import type { Clock } from '../io/clock.js';
import { type Disk, isDiskError, NodeDisk, writeFileAtomically } from '../io/disk.js';
import type { RandomSource } from '../io/environment.js';
import { CryptoRandom } from '../io/random.js';
import { DeferredSyncDisk } from '../io/deferred-sync-disk.js';
import { runWithDeferredSync } from './deferred-sync-commit.js';
import {
  fsyncDirectoryInBackground, makeDirectoryInBackground, removeDirectoryInBackground, renameInBackground, writeFileAtomicallyInBackground,
} from '../io/background-write.js';
import type { Core } from '../wasm/core.js';
import { LogCleaner } from './log-cleaner.js';
import { hasCompactPolicy, type LogConfig } from './log-config.js';
import type { LogDirectory } from './log-directory.js';
import { type CheckpointEntry, checkpointFileBytes, OffsetCheckpointFile, topicPartitionKey } from './offset-checkpoint-file.js';
import type { GroupFlusher } from './group-flush.js';
import { createStorageContext, type StorageContext } from './storage-context.js';
import { UnifiedLog } from './unified-log.js';
import { withKnownListings } from './log-loader.js';
import { loadPartitionLogs, removeDirectory } from './log-directory-loading.js';
import {
  addDirectoryLog, checkpointContents, type ChangedCheckpoint, type DirectoryState, newDirectoryState, noteNonZero, removeDirectoryLog,
} from './log-directory-state.js';
import { cappedDirName, DELETE_DIR_SUFFIX, parseTopicPartitionDir, STRAY_DIR_SUFFIX } from './partition-dir-names.js';

export { cappedDirName, DELETE_DIR_SUFFIX, parseTopicPartitionDir, STRAY_DIR_SUFFIX } from './partition-dir-names.js';

/** When a new log's directory entries become durable (see {@link LogManager.getOrCreateLogs}). */
export type DirectorySync = 'now' | 'first-flush';

/** Kafka's clean-shutdown marker file name. */
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';
/** Thrown when no online log directory can take a new log (Kafka's KafkaStorageException). */
export class KafkaStorageException extends Error {
  readonly errorCode = 56;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KafkaStorageException';
  }
}

export interface LogManagerOptions {
  /** The `log.dirs`; created when missing. */
  logDirs: string[];
  /** Defaults to NodeDisk. */
  disk?: Disk;
  /** Defaults to SystemTime. */
  clock?: Clock;
  /** Defaults to getCore(). */
  core?: Core;
  /** The group flush of flush-per-append logs; default the process's (a broker passes its own). */
  groupFlusher?: GroupFlusher;
  /** Names of partition directories being deleted; defaults to CryptoRandom. */
  random?: RandomSource;
  /** Broker-level defaults for every topic. */
  defaults: LogConfig;
  /** A topic's overrides, applied over `defaults` when its logs are loaded at start-up. */
  topicConfigs?: (topic: string) => Partial<LogConfig>;
  /** Bound on open file descriptors across all logs (default 512). */
  maxOpenFiles?: number;
  /** Budget for closed-segment index memory, bytes (default 256 MiB). */
  maxEvictableIndexBytes?: number;
}

/** A detached log's directory on its way to its `-delete` name. */
interface LogMove {
  readonly key: string;
  readonly state: DirectoryState;
  readonly from: string;
  readonly to: string;
  /** The rename failed (the directory went offline). */
  failed: boolean;
}

/**
 * Which periodic log tasks a tick runs besides flushing and checkpoints: Kafka runs retention
 * every log.retention.check.interval.ms and the cleaner after log.cleaner.backoff.ms when it found
 * nothing to clean (host/server/housekeeping.ts keeps that schedule).
 */
export interface MaintenanceDue {
  readonly retention: boolean;
  readonly cleaning: boolean;
}

const EVERYTHING_DUE: MaintenanceDue = { retention: true, cleaning: true };

export class LogManager {
  readonly context: StorageContext;
  readonly defaults: LogConfig;
  readonly cleaner: LogCleaner;
  private readonly directories: DirectoryState[];
  private readonly logs = new Map<string, UnifiedLog>();
  private readonly logDirOf = new Map<string, DirectoryState>();
  private shutDown = false;
  /** Removals of deleted partitions' directories running on the thread pool (NodeDisk). */
  private readonly removals = new Set<Promise<void>>();
  /** Each partition directory's entries as listed while loading, until taken or released. */
  private readonly startupListings = new Map<string, string[]>();
  /** Partition directories made empty on the thread pool ({@link prepareLogDirectories}), not yet taken by a new log: key → where. */
  private readonly preparedDirs = new Map<string, DirectoryState>();
  private readonly random: RandomSource;
  /** context.disk, deferring fsyncs in {@link withDeferredSync}; onNodeDisk: directory work may go to libuv's thread pool. */
  private readonly deferredSync: DeferredSyncDisk;
  private readonly onNodeDisk: boolean;

  private constructor(context: StorageContext, defaults: LogConfig, directories: DirectoryState[], random: RandomSource) {
    this.context = context;
    this.deferredSync = context.disk as DeferredSyncDisk;
    this.onNodeDisk = this.deferredSync.inner instanceof NodeDisk;
    this.random = random;
    this.defaults = defaults;
    this.directories = directories;
    this.cleaner = new LogCleaner(context);
  }

  /**
   * Opens every log directory and loads (recovering after an unclean stop) every partition log
   * in it. A directory that cannot be read goes offline; the others load. Never throws for disk
   * errors.
   */
  static open(options: LogManagerOptions): LogManager {
    const context = createStorageContext({
      disk: new DeferredSyncDisk(options.disk ?? new NodeDisk()),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.core === undefined ? {} : { core: options.core }),
      ...(options.groupFlusher === undefined ? {} : { groupFlusher: options.groupFlusher }),
      ...(options.maxOpenFiles === undefined ? {} : { maxOpenFiles: options.maxOpenFiles }),
      ...(options.maxEvictableIndexBytes === undefined ? {} : { maxEvictableIndexBytes: options.maxEvictableIndexBytes }),
    });
    const disk = context.disk;
    const directories = options.logDirs.map((dir) => newDirectoryState(disk, path.resolve(dir)));
    const manager = new LogManager(context, options.defaults, directories, options.random ?? new CryptoRandom());
    for (const state of directories) manager.loadDirectory(state, options);
    return manager;
  }

  /** True once {@link shutdown} ran: nothing may be created any more. */
  get isShutDown(): boolean {
    return this.shutDown;
  }

  /** The log directories and their state. */
  get logDirectories(): readonly LogDirectory[] {
    return this.directories.map((state) => state.directory);
  }

  getLog(topic: string, partition: number): UnifiedLog | undefined {
    return this.logs.get(topicPartitionKey(topic, partition));
  }

  /**
   * The log of a partition, created (in the online directory holding the fewest logs) when
   * missing. Throws KafkaStorageException when no directory is online or creation fails.
   */
  getOrCreateLog(topic: string, partition: number, config: LogConfig, directorySync: DirectorySync = 'now'): UnifiedLog {
    return this.getOrCreateLogs([{ topic, partition, config }], directorySync)[0]!;
  }

  /**
   * getOrCreateLog for many partitions at once (a topic created with thousands of partitions).
   * `directorySync` 'now': the missing logs' directories are all made first and each parent log
   * directory is fsynced once for all of them, then each log fsyncs its own directory once its
   * files exist: the new logs are durable when this returns. 'first-flush': nothing is fsynced
   * here; each new log makes its directory entries durable at its first flush (UnifiedLogOptions
   * .deferDirectorySync), logs flushed in the same turn sharing one fsync of the log directory.
   * For partitions of the metadata image only: a power loss before that flush may take the empty
   * log, and the broker's start-up recreates it from the committed metadata (applyAllTopics).
   * Returns the logs in request order. Throws KafkaStorageException when no directory is online
   * or a creation fails (that directory goes offline; logs created before stay).
   */
  getOrCreateLogs(requests: readonly { topic: string; partition: number; config: LogConfig }[], directorySync: DirectorySync = 'now'): UnifiedLog[] {
    const missing = new Map<string, { topic: string; partition: number; config: LogConfig; state?: DirectoryState }>();
    for (const request of requests) {
      const key = topicPartitionKey(request.topic, request.partition);
      if (!this.logs.has(key) && !missing.has(key)) missing.set(key, { ...request });
    }
    if (missing.size > 0) this.createLogs(missing, directorySync);
    return requests.map((request) => this.logs.get(topicPartitionKey(request.topic, request.partition))!);
  }

  /**
   * Makes the missing partition directories of `requests` on libuv's thread pool (NodeDisk only),
   * in the log directories a {@link getOrCreateLogs} would choose, so the getOrCreateLogs that
   * follows finds them made and empty: no stat, mkdir or listing of them on the event loop (with
   * lazy segment files a new log then costs no syscall there at all). Null when there is nothing
   * to make off the event loop (another disk, every log present). Never rejects: a directory not
   * made here is made by getOrCreateLogs as before, which reports its errors.
   */
  prepareLogDirectories(requests: readonly { topic: string; partition: number }[]): Promise<void> | null {
    if (!this.onNodeDisk || this.shutDown) return null;
    const keys = requests.map(({ topic, partition }) => topicPartitionKey(topic, partition))
      .filter((key) => !this.logs.has(key) && !this.preparedDirs.has(key) && !this.mayHoldStaleEntry(key));
    const chosen = this.chooseDirectories(keys);
    if (chosen === null || chosen.size === 0) return null;
    return Promise.all([...chosen].map(async ([key, state]) => {
      try {
        if (await makeDirectoryInBackground(path.join(state.directory.path, key))) this.preparedDirs.set(key, state);
      } catch (error) {
        if (!isDiskError(error)) throw error;
      }
    })).then(() => undefined);
  }

  /** True when a checkpoint file may still hold a non-zero entry of `key` (a deleted log's). */
  private mayHoldStaleEntry(key: string): boolean {
    return !this.logs.has(key) && this.directories.some((state) => state.nonZeroKeys.has(key));
  }

  /** For each key, the online log directory holding the fewest logs (counting the ones chosen before it); null when none is online. */
  private chooseDirectories(keys: Iterable<string>): Map<string, DirectoryState> | null {
    const candidates = this.directories.filter((state) => !state.directory.isOffline);
    if (candidates.length === 0) return null;
    const counts = new Map<DirectoryState, number>(candidates.map((state) => [state, state.logs.size]));
    const chosen = new Map<string, DirectoryState>();
    for (const key of keys) {
      let best = candidates[0]!;
      for (const state of candidates) if (counts.get(state)! < counts.get(best)!) best = state;
      chosen.set(key, best);
      counts.set(best, counts.get(best)! + 1);
    }
    return chosen;
  }

  private createLogs(missing: Map<string, { topic: string; partition: number; config: LogConfig; state?: DirectoryState }>, directorySync: DirectorySync): void {
    // A deleted log's non-zero entries stay in the checkpoint files until the next write: before a
    // directory of its key exists again (a start would give the new log the old offsets), write them.
    const stale = this.directories.filter((state) => [...missing.keys()].some((key) => state.nonZeroKeys.has(key)));
    this.writeOnlineCheckpoints(stale);
    for (const state of stale) if (!state.directory.isOffline) for (const key of missing.keys()) state.nonZeroKeys.delete(key);
    // Directories made by prepareLogDirectories: empty, nothing to stat or list.
    const fresh = new Map<string, readonly string[]>();
    for (const [key, entry] of missing) {
      const prepared = this.preparedDirs.get(key);
      if (prepared === undefined) continue;
      this.preparedDirs.delete(key);
      if (prepared.directory.isOffline) continue;
      entry.state = prepared;
      fresh.set(path.join(prepared.directory.path, key), []);
    }
    const unplaced = [...missing].filter(([, entry]) => entry.state === undefined).map(([key]) => key);
    const chosen = this.chooseDirectories(unplaced);
    if (chosen === null) throw new KafkaStorageException(`no online log directory for ${unplaced[0]}`);
    for (const [key, state] of chosen) missing.get(key)!.state = state;
    const disk = this.context.disk;
    const fail = (state: DirectoryState, key: string, error: unknown): never => {
      if (!isDiskError(error)) throw error;
      state.directory.markOffline(error);
      throw new KafkaStorageException(`cannot create log ${key} in ${state.directory.path}`, { cause: error });
    };
    // 1. Every partition directory, then (sync 'now') one fsync per parent (the loader then finds them).
    const parents = new Set<DirectoryState>();
    const made = new Set<string>();
    for (const [key, entry] of missing) {
      const state = entry.state!;
      const dir = path.join(state.directory.path, key);
      try {
        if (fresh.has(dir)) {
          parents.add(state);
          made.add(key);
          // The producer state's snapshot listing (log-storage.ts) need not look either.
          this.startupListings.set(dir, []);
        } else if (!disk.isDirectory(dir)) {
          disk.mkdir(dir);
          parents.add(state);
          made.add(key);
        }
      } catch (error) {
        fail(state, key, error);
      }
    }
    for (const state of directorySync === 'now' ? parents : []) {
      try {
        disk.fsyncDir(state.directory.path);
        state.directory.noteEntriesSynced();
      } catch (error) {
        fail(state, state.directory.path, error);
      }
    }
    // 2. The logs (segment files are made by their first append or flush).
    withKnownListings(this.context, fresh, () => this.openNewLogs(missing, directorySync, made, fail));
  }

  private openNewLogs(
    missing: Map<string, { topic: string; partition: number; config: LogConfig; state?: DirectoryState }>, directorySync: DirectorySync,
    made: ReadonlySet<string>, fail: (state: DirectoryState, key: string, error: unknown) => never,
  ): void {
    for (const [key, { topic, partition, config, state }] of missing) {
      try {
        const log = UnifiedLog.open({
          dir: path.join(state!.directory.path, key), topic, partition, config, context: this.context,
          logDirectory: state!.directory, hadCleanShutdown: true,
          deferDirectorySync: directorySync === 'first-flush' && made.has(key),
        });
        this.logs.set(key, log);
        this.logDirOf.set(key, state!);
        addDirectoryLog(state!, log);
      } catch (error) {
        fail(state!, key, error);
      }
    }
  }

  /** Deletes a partition's log (see {@link deleteLogs}). */
  deleteLog(topic: string, partition: number): void {
    this.deleteLogs([{ topic, partition }]);
  }

  /**
   * Deletes partitions' logs (e.g. a whole topic; Kafka's asyncDelete). Each log is closed and its
   * directory renamed to `<topic>-<partition>.<id>-delete`; each log directory is then fsynced
   * once for all its renames (durable: the partitions do not come back after a power loss), and
   * the renamed directories are removed: on the thread pool with NodeDisk (nothing waits for it;
   * {@link backgroundWritesIdle} covers it), at once with other disks; an interrupted removal
   * finishes at the next start. The checkpoint files are rewritten at once only when one of them
   * may hold a non-zero offset of a deleted partition (a topic recreated under the same name
   * would inherit it at the next start), else the next tick drops the entries. Unknown
   * partitions are ignored. A disk error takes that directory offline.
   */
  deleteLogs(partitions: readonly { topic: string; partition: number }[]): void {
    const moves = this.detachForDeletion(partitions);
    const disk = this.context.disk;
    for (const move of moves) {
      try {
        disk.rename(move.from, move.to);
      } catch (error) {
        this.failMove(move, error);
      }
    }
    this.finishDeletion(moves, (state) => {
      disk.fsyncDir(state.directory.path);
      state.directory.noteEntriesSynced();
    });
  }

  /**
   * {@link deleteLogs} with the renames and the log directories' fsync on libuv's thread pool
   * (NodeDisk), so deleting a topic does no directory syscall on the event loop: the logs are
   * detached (closed, forgotten) at once, and the promise settles once their directories are
   * durably renamed away. The caller must not create a log of the same partitions before it
   * settles (the metadata publisher's slice queue waits for it). Null on other disks (the
   * simulator's): use deleteLogs. Never rejects: a disk error takes that directory offline.
   */
  deleteLogsInBackground(partitions: readonly { topic: string; partition: number }[]): Promise<void> | null {
    if (!this.onNodeDisk) return null;
    const moves = this.detachForDeletion(partitions);
    if (moves.length === 0) return null;
    const renames = moves.map((move) => renameInBackground(move.from, move.to).catch((error: unknown) => this.failMove(move, error)));
    const deletion = Promise.all(renames).then(async () => {
      const synced = new Set<DirectoryState>();
      await Promise.all([...new Set(moves.map((move) => move.state))].map(async (state) => {
        const ticket = state.directory.lastEntryTicket;
        try {
          await fsyncDirectoryInBackground(state.directory.path);
          state.directory.noteEntriesSyncedUpTo(ticket);
          synced.add(state);
        } catch (error) {
          if (!isDiskError(error)) throw error;
          if (!this.shutDown) state.directory.markOffline(error);
        }
      }));
      if (!this.shutDown) this.finishDeletion(moves.filter((move) => synced.has(move.state)), () => {});
    });
    const removal: Promise<void> = deletion.finally(() => this.removals.delete(removal));
    this.removals.add(removal);
    return removal;
  }

  /** Detaches each known log of `partitions`: where its directory goes (a `-delete` name in the same log directory). */
  private detachForDeletion(partitions: readonly { topic: string; partition: number }[]): LogMove[] {
    const moves: LogMove[] = [];
    for (const { topic, partition } of partitions) {
      const detached = this.detachLog(topic, partition);
      if (detached === undefined) continue;
      const { key, log, state } = detached;
      moves.push({ key, state, from: log.dir, to: path.join(state.directory.path, cappedDirName(topic, partition, `${this.randomHex(8)}${DELETE_DIR_SUFFIX}`)), failed: false });
    }
    return moves;
  }

  private failMove(move: LogMove, error: unknown): void {
    if (!isDiskError(error)) throw error;
    move.failed = true;
    if (!this.shutDown) move.state.directory.markOffline(error);
  }

  /**
   * After the renames: per online log directory, `syncDirectory` (unless done already) and the
   * `-delete` directories removed. The checkpoints are not rewritten (once per slice of a
   * 50k-partition topic's deletion, each over every partition, that was quadratic): the next
   * write drops the deleted logs' entries, and a log created again under a key whose entry may
   * still be non-zero (`nonZeroKeys`) has the checkpoints rewritten first ({@link createLogs}).
   */
  private finishDeletion(moves: readonly LogMove[], syncDirectory: (state: DirectoryState) => void): void {
    const renamed = new Map<DirectoryState, LogMove[]>();
    for (const move of moves) {
      if (move.failed) continue;
      if (!renamed.has(move.state)) renamed.set(move.state, []);
      renamed.get(move.state)!.push(move);
    }
    for (const [state, done] of renamed) {
      if (state.directory.isOffline) continue;
      try {
        syncDirectory(state);
        for (const move of done) this.removeDeletedDirectory(state, move.to);
      } catch (error) {
        if (!isDiskError(error)) throw error;
        state.directory.markOffline(error);
      }
    }
  }

  /** Removes a renamed-away (`-delete`) partition directory: in the background with NodeDisk. Throws DiskError. */
  private removeDeletedDirectory(state: DirectoryState, dir: string): void {
    if (!this.onNodeDisk) {
      removeDirectory(this.context.disk, dir, false);
      return;
    }
    const removal: Promise<void> = removeDirectoryInBackground(dir)
      .catch((error: unknown) => {
        if (!isDiskError(error)) throw error;
        if (!this.shutDown) state.directory.markOffline(error);
      })
      .finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }

  /**
   * Forgets a log and closes it without flushing (its files are about to be renamed away), and
   * releases its cached file handles. Returns what the caller needs to move its directory, or
   * undefined when the log is unknown or its log directory is offline (nothing to move).
   */
  private detachLog(topic: string, partition: number): { key: string; log: UnifiedLog; state: DirectoryState } | undefined {
    const key = topicPartitionKey(topic, partition);
    const log = this.logs.get(key);
    const state = this.logDirOf.get(key);
    if (log === undefined || state === undefined) return undefined;
    this.logs.delete(key);
    this.logDirOf.delete(key);
    // A listing of the old directory must not describe the one a recreated partition makes there.
    this.startupListings.delete(log.dir);
    removeDirectoryLog(state, log);
    this.cleaner.forget(log);
    log.closeWithoutFlush();
    this.context.files.releaseDirectory(log.dir);
    if (state.directory.isOffline) return undefined;
    return { key, log, state };
  }

  /**
   * Sets a log aside as stray (its partition is not in the metadata image): the log is closed and
   * its directory renamed (durably) to `<topic>-<partition>.<timestampMs>-stray`, which later
   * starts skip; nothing is deleted (KRaft's stray-log handling, Kafka's `.<uuid>-stray`).
   * Returns the new path, or undefined when the log is unknown or its directory is offline.
   */
  markStray(topic: string, partition: number, nowMs: number): string | undefined {
    const detached = this.detachLog(topic, partition);
    if (detached === undefined) return undefined;
    const { key, log, state } = detached;
    const disk = this.context.disk;
    try {
      const stray = path.join(state.directory.path, cappedDirName(topic, partition, `${nowMs}${STRAY_DIR_SUFFIX}`));
      disk.rename(log.dir, stray);
      disk.fsyncDir(state.directory.path);
      this.writeCheckpoints(state);
      return stray;
    } catch (error) {
      if (!isDiskError(error)) throw error;
      state.directory.markOffline(error);
      return undefined;
    }
  }

  /**
   * The entries of a partition directory as listed when the log was loaded at start-up, once
   * (the entry is forgotten), or undefined. Only the names of files loading does not create or
   * delete (e.g. producer-state `.snapshot` files) can be relied on; it spares a start-up with
   * thousands of partitions a second listing of each directory.
   */
  takeStartupListing(dir: string): string[] | undefined {
    const entries = this.startupListings.get(dir);
    if (entries !== undefined) this.startupListings.delete(dir);
    return entries;
  }

  /** Forgets the start-up listings not taken (call once start-up is over). */
  releaseStartupListings(): void {
    this.startupListings.clear();
  }

  allLogs(): UnifiedLog[] {
    return [...this.logs.values()];
  }

  /**
   * Housekeeping, every few seconds: flush.ms, retention, compaction, then the checkpoints
   * (written only when changed). Logs in offline directories are skipped. Never throws for disk
   * errors.
   */
  tick(nowMs: number, due: MaintenanceDue = EVERYTHING_DUE): void {
    if (this.shutDown) return;
    this.maintainLogs(nowMs, due);
    this.writeOnlineCheckpoints();
  }

  /**
   * tick() for the broker's event loop: the same housekeeping, but the checkpoint files are
   * fsynced on the thread pool (writeFileAtomicallyInBackground), so no produce or fetch waits
   * for the disk. A directory whose previous background write is still running skips this
   * round (the next tick writes the newer offsets). With a Disk other than NodeDisk (tests, the
   * simulator) the writes stay synchronous, as in tick(). A disk error takes the directory
   * offline, as in tick().
   */
  tickInBackground(nowMs: number, due: MaintenanceDue = EVERYTHING_DUE): number {
    if (this.shutDown) return 0;
    const cleaned = this.maintainLogs(nowMs, due);
    this.writeCheckpointsInBackground();
    return cleaned;
  }

  /** The checkpoint half of {@link tickInBackground}, for a caller that maintained the logs itself ({@link maintainLogs}). */
  writeCheckpointsInBackground(): void {
    if (this.shutDown) return;
    if (!this.onNodeDisk) return this.writeOnlineCheckpoints();
    for (const state of this.directories) {
      if (state.directory.isOffline || state.backgroundWrite !== null) continue;
      const changed = this.changedCheckpoints(state);
      if (changed.length === 0) continue;
      const write = this.writeInBackground(state, changed).finally(() => {
        state.backgroundWrite = null;
      });
      state.backgroundWrite = write;
    }
  }

  /** Resolves once no background checkpoint write or directory removal is running (e.g. before shutdown). */
  async backgroundWritesIdle(): Promise<void> {
    for (;;) {
      const running = [...this.directories.map((state) => state.backgroundWrite).filter((write) => write !== null), ...this.removals];
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  /** `byteCount` random bytes as hex (a unique suffix for a directory being deleted). */
  private randomHex(byteCount: number): string {
    const bytes = new Uint8Array(byteCount);
    this.random.fill(bytes);
    return Buffer.from(bytes).toString('hex');
  }

  /**
   * Flush, and when due retention and compaction, of the online logs among `logs` this manager
   * still holds (default every log; the housekeeping passes slices of allLogs()); returns the logs cleaned.
   */
  maintainLogs(nowMs: number, due: MaintenanceDue, logs?: Iterable<UnifiedLog>): number {
    if (this.shutDown) return 0;
    let cleaned = 0;
    for (const log of logs ?? this.logs.values()) {
      if (log.isOffline || (logs !== undefined && !this.directories.some((state) => state.logs.has(log)))) continue;
      log.maintain(nowMs, due.retention);
      if (due.cleaning && !log.isOffline && hasCompactPolicy(log.config) && this.cleaner.maybeClean(log, nowMs) !== null) cleaned++;
    }
    return cleaned;
  }

  private async writeInBackground(state: DirectoryState, changed: ChangedCheckpoint[]): Promise<void> {
    for (const { file, text, entries } of changed) {
      const filePath = file.filePath;
      noteNonZero(state, entries);
      const syncWritesBefore = state.syncWrites.get(filePath) ?? 0;
      try {
        const outcome = await writeFileAtomicallyInBackground(filePath, checkpointFileBytes(entries), () =>
          !this.shutDown && !state.directory.isOffline && (state.syncWrites.get(filePath) ?? 0) === syncWritesBefore);
        if (outcome === 'dropped') return;
        state.lastWritten.set(filePath, text);
      } catch (error) {
        if (!isDiskError(error)) throw error;
        if (!this.shutDown) state.directory.markOffline(error);
        return;
      }
    }
  }

  /** Flushes every log and writes the checkpoints now (e.g. before a controlled restart). */
  checkpointAll(): void {
    for (const log of this.logs.values()) if (!log.isOffline) log.flush();
    this.writeOnlineCheckpoints();
  }

  /** Writes the checkpoints of each online directory given (default: all); a disk error takes that directory offline. */
  private writeOnlineCheckpoints(states: Iterable<DirectoryState> = this.directories): void {
    for (const state of states) {
      if (state.directory.isOffline) continue;
      try {
        this.writeCheckpoints(state);
      } catch (error) {
        if (!isDiskError(error)) throw error;
        state.directory.markOffline(error);
      }
    }
  }

  /**
   * Clean shutdown: flush and close every log, write the checkpoints, then the clean-shutdown
   * marker in each directory where all of it succeeded. Never throws for disk errors.
   */
  shutdown(): void {
    if (this.shutDown) return;
    this.shutDown = true;
    const clean = new Map<DirectoryState, boolean>();
    for (const state of this.directories) clean.set(state, !state.directory.isOffline);
    // The checkpoints below claim the logs durable: they are written after the commit.
    this.withDeferredSync(() => {
      for (const [key, log] of this.logs) {
        const state = this.logDirOf.get(key)!;
        if (!log.close()) clean.set(state, false);
      }
    });
    for (const state of this.directories) {
      if (!clean.get(state) || state.directory.isOffline) continue;
      try {
        this.writeCheckpoints(state, true);
        writeFileAtomically(this.context.disk, path.join(state.directory.path, CLEAN_SHUTDOWN_FILE), Buffer.from('{"version":0,"broker_epoch":-1}'));
      } catch (error) {
        if (!isDiskError(error)) throw error;
        state.directory.markOffline(error);
      }
    }
    this.context.files.closeAll();
  }

  /** Runs `work` with this manager's fsyncs, renames and deletes deferred to one commit ({@link runWithDeferredSync}). */
  withDeferredSync(work: () => void): void {
    runWithDeferredSync(this.deferredSync, this.directories.map((state) => state.directory), work);
  }

  // ---- internals ----

  private loadDirectory(state: DirectoryState, options: LogManagerOptions): void {
    const disk = this.context.disk;
    const dir = state.directory.path;
    try {
      if (!disk.isDirectory(dir)) {
        disk.mkdir(dir);
        disk.fsyncDir(path.dirname(dir));
      }
      const markerPath = path.join(dir, CLEAN_SHUTDOWN_FILE);
      const hadCleanShutdown = disk.exists(markerPath);
      const loaded = loadPartitionLogs({
        state, context: this.context, hadCleanShutdown, listings: this.startupListings,
        configOf: (topic) => ({ ...options.defaults, ...(options.topicConfigs?.(topic) ?? {}) }),
      });
      for (const { key, log, cleanerOffset } of loaded) {
        if (this.logs.has(key)) throw new Error(`duplicate log directory for ${key} in ${dir}`);
        if (cleanerOffset !== undefined) this.cleaner.setFirstDirtyOffset(log, cleanerOffset);
        this.logs.set(key, log);
        this.logDirOf.set(key, state);
        addDirectoryLog(state, log);
      }
      if (hadCleanShutdown) {
        disk.delete(markerPath);
        disk.fsyncDir(dir);
      }
      this.writeCheckpoints(state);
    } catch (error) {
      if (!isDiskError(error)) throw error;
      state.directory.markOffline(error);
    }
  }

  /** Writes the four checkpoint files of a directory (unchanged ones skipped unless `force`). */
  private writeCheckpoints(state: DirectoryState, force = false): void {
    for (const { file, text, entries } of checkpointContents(state, this.cleaner)) {
      if (!force && state.lastWritten.get(file.filePath) === text) continue;
      noteNonZero(state, entries);
      file.write(entries);
      state.lastWritten.set(file.filePath, text);
      state.syncWrites.set(file.filePath, (state.syncWrites.get(file.filePath) ?? 0) + 1);
    }
  }

  /** The checkpoints of a directory whose content differs from what was last written. */
  private changedCheckpoints(state: DirectoryState): ChangedCheckpoint[] {
    return checkpointContents(state, this.cleaner).filter(({ file, text }) => state.lastWritten.get(file.filePath) !== text);
  }
}
