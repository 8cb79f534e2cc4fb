/**
 * Kafka's ProducerStateManager: per partition, what each idempotent producer last wrote, so that
 * a retried batch is acknowledged with its original offsets instead of being appended twice, and
 * a gap in a producer's sequence numbers is refused.
 *
 * Protocol facts (KIP-98, Kafka's ProducerAppendInfo / ProducerStateEntry):
 * - Only batches with producerId >= 0 are tracked (CLIENTS.md quirk 8: non-idempotent batches
 *   carry epoch/sequence -1 or 0 depending on the client).
 * - A batch covers sequences baseSequence .. baseSequence + lastOffsetDelta (wrapping past
 *   2^31-1 to 0). Per producer the last 5 batches are cached (the client's
 *   max.in.flight.requests.per.connection bound for idempotence).
 * - Checks, in order, for each batch of an append:
 *     duplicate of a cached batch (same epoch, same first and last sequence) → the original
 *       offsets, nothing appended;
 *     producerEpoch older than the known epoch → INVALID_PRODUCER_EPOCH (47);
 *     unknown producer (its state removed by retention, DeleteRecords or expiry) → accepted
 *       with any sequence and tracked from there (KIP-360, Kafka 2.5+; no UNKNOWN_PRODUCER_ID);
 *     newer epoch and baseSequence != 0 → OUT_OF_ORDER_SEQUENCE_NUMBER (45) (an epoch bump
 *       restarts sequences at 0);
 *     same epoch and baseSequence != lastSequence + 1 → OUT_OF_ORDER_SEQUENCE_NUMBER (45);
 *     a non-transactional batch while the producer has an open transaction → INVALID_TXN_STATE (48).
 *   Sequences are checked only for client appends (origin 'client'); the broker's own writes
 *   (origin 'coordinator': transaction markers, transactional offset commits) only for epochs.
 *
 * Transactions (KIP-98, Kafka's ProducerAppendInfo.appendDataBatch / appendEndTxnMarker):
 * - a transactional batch of a producer without an open transaction opens one at its base offset;
 * - a control batch holding an EndTransactionMarker (end-txn-marker.ts) closes it: the marker's
 *   producerEpoch older than the known one → INVALID_PRODUCER_EPOCH (47), its coordinatorEpoch
 *   older than the last marker's → TRANSACTION_COORDINATOR_FENCED (52); a marker without an open
 *   transaction is stored and changes only the epochs. A closed non-empty transaction is a
 *   CompletedTxn, reported to `onCompletedTxn` with Kafka's lastStableOffset(completedTxn) (the
 *   aborted ones go to the `.txnindex`: transaction-index.ts), and stays unstable until the high
 *   watermark passes its marker (Kafka's unreplicatedTxns);
 * - {@link firstUnstableOffset} bounds the last stable offset: LSO = min(it, high watermark).
 * Open transactions' first offsets and coordinator epochs are in the snapshot, so a restart (even
 * after SIGKILL) knows them; their producers are never expired nor trimmed by retention.
 *
 * Lifecycle with the log (everything is synchronous). The replication Partition owns the state
 * and makes these calls, except the two of each leader append, which UnifiedLog.appendAsLeader
 * makes on the WebAssembly core's batch summaries when the Partition hands it the state
 * (producer-append.ts: no host walk of the Produce bytes of its own); retention in LogManager.tick
 * reaches truncateHead through the broker's housekeeping (Partition.onLogStartOffsetMaybeIncremented, same turn):
 * ```
 *   recover(logStartOffset, logEndOffset, readBatches)  at open and after truncation: load() the
 *                                                       newest snapshot, then replay the log tail
 *     (= load(logStartOffset, logEndOffset) → replayFrom, then replayBatch(b) for every batch at
 *      or past replayFrom, headers only, in offset order)
 *   checkAndPrepare(batches) → errorCode | duplicateOf  in each leader append, after validation
 *                                                       and stamping, before the write (no change)
 *   onAppended(batches)                                 after the write, with real offsets
 *   takeSnapshot()                                      at segment roll and clean shutdown
 *   truncateHead(logStartOffset)                        when the log start offset moves
 *   removeExpiredProducers(nowMs)                       every broker tick (producer.id.expiration.ms)
 * ```
 * Snapshots are `<20-digit offset>.snapshot` files in the partition directory (format in
 * producer-state-snapshot.ts), written atomically; the newest `maxSnapshots` are kept.
 *
 * Disk failures throw the Disk's error (the log maps them to KAFKA_STORAGE_ERROR, 56).
 */
import * as path from 'node:path';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { BatchAttributes, BatchLayout, MAGIC_V2, RECORD_BATCH_OVERHEAD } from '../wasm/batch-layout.js';
import { emptyMap, ownMap } from './empty-collections.js';
import { ControlRecordType, type EndTxnMarker, readEndTxnMarker } from './end-txn-marker.js';
import {
  checkEndTxnMarker, checkProducerEpoch, checkSequence, incrementSequence, lastSequenceOf, type TentativeProducerState,
} from './producer-state-checks.js';
import {
  decodeProducerSnapshot,
  encodeProducerSnapshot,
  parseSnapshotFileName,
  snapshotFileName,
  type ProducerBatchMetadata,
  type ProducerStateEntry,
} from './producer-state-snapshot.js';

export type { ProducerBatchMetadata, ProducerStateEntry } from './producer-state-snapshot.js';
export { incrementSequence } from './producer-state-checks.js';

const { NONE, INVALID_TXN_STATE } = ErrorCode;

/** Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN. */
export const NUM_BATCHES_TO_RETAIN = 5;
/** Kafka's default producer.id.expiration.ms: 1 day. */
export const DEFAULT_PRODUCER_ID_EXPIRATION_MS = 86_400_000;
/** Snapshots kept on disk after a new one is written. */
export const DEFAULT_MAX_SNAPSHOTS = 2;

/** Bytes read per step when replaying the log tail. */
const REPLAY_READ_BYTES = 1 << 20;

/**
 * The fields of a batch header the producer state needs; `BatchSummary` (host/wasm/core.ts)
 * satisfies it. `baseOffset` must be the real (stamped) offset for onAppended/replayBatch.
 */
export interface ProducerBatchInfo {
  baseOffset: number;
  lastOffsetDelta: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  isControl: boolean;
  /**
   * For a control batch: its COMMIT/ABORT marker (end-txn-marker.ts), null when it holds none.
   * A control batch without this field is treated as holding none.
   */
  endTxnMarker?: EndTxnMarker | null;
}

/** Who wrote an append (Kafka's AppendOrigin): clients are sequence-checked, the broker's own writes are not. */
export type AppendOrigin = 'client' | 'coordinator';

/** A transaction ended by a marker (Kafka's CompletedTxn). */
export interface CompletedTxn {
  producerId: number;
  /** Offset of the transaction's first batch. */
  firstOffset: number;
  /** Offset of the marker. */
  lastOffset: number;
  isAborted: boolean;
}

/** Result of {@link ProducerStateManager.checkAndPrepare}. */
export interface ProducerCheckResult {
  /**
   * 0 NONE, 45 OUT_OF_ORDER_SEQUENCE_NUMBER, 47 INVALID_PRODUCER_EPOCH, 48 INVALID_TXN_STATE,
   * 52 TRANSACTION_COORDINATOR_FENCED, 59 UNKNOWN_PRODUCER_ID.
   */
  errorCode: number;
  /** Human-readable reason for a non-zero errorCode (logs, Produce v8+ error_message). */
  errorMessage?: string;
  /**
   * Set (with errorCode 0) when the append retries a cached batch: acknowledge with these
   * offsets and append nothing.
   */
  duplicateOf?: { baseOffset: number; lastOffset: number; timestamp: number };
}

/**
 * The file operations snapshots need; structurally the `Disk` of host/io/disk.ts, so a NodeDisk
 * or a fault-injecting disk can be passed.
 */
export interface ProducerStateDisk {
  open(filePath: string, mode: 'read' | 'readWrite' | 'create'): number;
  close(fd: number): void;
  read(fd: number, target: Uint8Array, targetOffset: number, length: number, position: number): number;
  write(fd: number, data: Uint8Array, position: number): void;
  fsync(fd: number): void;
  fileSize(fd: number): number;
  truncate(fd: number, length: number): void;
  exists(filePath: string): boolean;
  rename(from: string, to: string): void;
  delete(filePath: string): void;
  list(dir: string): string[];
  fsyncDir(dir: string): void;
}

export interface ProducerStateManagerOptions {
  /** The partition directory (`<log.dir>/<topic>-<partition>`), which must exist. */
  dir: string;
  disk: ProducerStateDisk;
  /** producer.id.expiration.ms. */
  producerIdExpirationMs?: number;
  /** Snapshot files kept (>= 1). */
  maxSnapshots?: number;
}

export class ProducerStateManager {
  /** Producer id -> its state; the shared empty map until the first producer (empty-collections.ts). */
  private producers: ReadonlyMap<number, ProducerStateEntry> = emptyMap();
  /** The partition directory (also where the `.txnindex` files of its segments are). */
  readonly dir: string;
  readonly disk: ProducerStateDisk;
  private readonly producerIdExpirationMs: number;
  private readonly maxSnapshots: number;
  /** Every batch below this offset is reflected in the state (Kafka's lastMapOffset + 1). */
  private mapEndOffsetValue = 0;
  /** The log start offset last given (load, truncateHead, truncateFullyAndStartAt). */
  private logStartOffsetValue = 0;
  /** Offset of the newest snapshot file on disk, as far as this manager knows; -1 for none. */
  private lastSnapshotOffset = -1;
  /** False while the state is exactly what the file at lastSnapshotOffset holds. */
  private changedSinceSnapshot = true;
  /** Open transactions: producer id -> first offset (Kafka's ongoingTxns); the shared empty map until the first. */
  private ongoingTxns: ReadonlyMap<number, number> = emptyMap();
  /** Completed transactions whose marker the high watermark has not passed yet, in marker order. */
  private unreplicatedTxns: CompletedTxn[] = [];
  /**
   * Told of every transaction a marker completes (appends, replays), in log order, with the
   * last stable offset right after the marker (Kafka's lastStableOffset(completedTxn)).
   */
  onCompletedTxn: ((txn: CompletedTxn, lastStableOffset: number) => void) | null = null;

  constructor(options: ProducerStateManagerOptions) {
    this.dir = options.dir;
    this.disk = options.disk;
    this.producerIdExpirationMs = options.producerIdExpirationMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_MS;
    this.maxSnapshots = options.maxSnapshots ?? DEFAULT_MAX_SNAPSHOTS;
    assert(this.maxSnapshots >= 1, 'maxSnapshots must be >= 1');
  }

  /** Offset up to which (exclusive) the state reflects the log. */
  get mapEndOffset(): number {
    return this.mapEndOffsetValue;
  }

  /** Number of producers with state. */
  get producerCount(): number {
    return this.producers.size;
  }

  /** The state of one producer, or undefined. The returned object must not be modified. */
  lastEntry(producerId: number): Readonly<ProducerStateEntry> | undefined {
    return this.producers.get(producerId);
  }

  /** All producers' state (read-only views). */
  activeProducers(): Iterable<Readonly<ProducerStateEntry>> {
    return this.producers.values();
  }

  /** Offsets of the snapshot files present, ascending. */
  snapshotOffsets(): number[] {
    return this.disk
      .list(this.dir)
      .map(parseSnapshotFileName)
      .filter((offset) => offset >= 0)
      .sort((a, b) => a - b);
  }

  /**
   * (Re)loads state for a log spanning [logStartOffset, logEndOffset): deletes snapshots past
   * logEndOffset (left by a truncation) and unreadable ones, loads the newest remaining, drops
   * producers whose last batch lies below logStartOffset.
   * @returns the offset from which the caller must `replayBatch` every batch up to the log end.
   */
  load(logStartOffset: number, logEndOffset: number): number {
    assert(logStartOffset <= logEndOffset, 'logStartOffset <= logEndOffset');
    this.producers = emptyMap();
    this.ongoingTxns = emptyMap();
    this.unreplicatedTxns = [];
    this.mapEndOffsetValue = logStartOffset;
    this.logStartOffsetValue = logStartOffset;
    this.lastSnapshotOffset = -1;
    this.changedSinceSnapshot = true;
    const offsets = this.snapshotOffsets();
    for (let i = offsets.length - 1; i >= 0; i--) {
      const offset = offsets[i]!;
      const file = path.join(this.dir, snapshotFileName(offset));
      if (offset > logEndOffset) {
        this.disk.delete(file);
        continue;
      }
      const decoded = decodeProducerSnapshot(this.readFile(file));
      if (decoded === null || decoded.snapshotOffset !== offset) {
        this.disk.delete(file);
        continue;
      }
      for (const entry of decoded.entries) {
        this.writableProducers().set(entry.producerId, entry);
        if (entry.currentTxnFirstOffset >= 0) this.writableOngoingTxns().set(entry.producerId, entry.currentTxnFirstOffset);
      }
      this.mapEndOffsetValue = Math.max(offset, logStartOffset);
      // Older snapshots may remain, but this one (the newest) is what a restart would load.
      this.lastSnapshotOffset = offset;
      this.changedSinceSnapshot = false;
      break;
    }
    if (this.removeUnretainedProducers(logStartOffset) > 0) this.changedSinceSnapshot = true;
    return this.mapEndOffsetValue;
  }

  /**
   * Rebuilds the state of a log spanning [logStartOffset, logEndOffset): {@link load}, then
   * replays every batch header from the returned offset to the log end, reading through
   * `readBatches(fetchOffset, maxBytes)`, which must return whole stored batches starting with
   * the one holding fetchOffset (e.g. `(o, n) => log.read(o, n, logEndOffset, true).records`).
   * Returns the number of batches replayed.
   */
  recover(
    logStartOffset: number,
    logEndOffset: number,
    readBatches: (fetchOffset: number, maxBytes: number) => Uint8Array,
  ): number {
    let offset = this.load(logStartOffset, logEndOffset);
    let replayed = 0;
    while (offset < logEndOffset) {
      let progressed = false;
      for (const batch of readProducerBatches(readBatches(offset, REPLAY_READ_BYTES)).batches) {
        if (batch.baseOffset >= logEndOffset) break;
        if (batch.baseOffset + batch.lastOffsetDelta < offset) continue;
        this.replayBatch(batch);
        replayed++;
        offset = batch.baseOffset + batch.lastOffsetDelta + 1;
        progressed = true;
      }
      if (!progressed) break;
    }
    if (this.mapEndOffsetValue < logEndOffset) this.mapEndOffsetValue = logEndOffset;
    return replayed;
  }

  /**
   * Checks the batches of one leader append against the producer state without changing it.
   * Batches of one append are checked in order, each against the state the earlier ones would
   * leave. Control batches (markers, written by the broker) are checked for their producer and
   * coordinator epochs, never for sequences; with origin 'coordinator' data batches are not
   * sequence-checked either (Kafka's AppendOrigin.COORDINATOR).
   */
  checkAndPrepare(batches: readonly ProducerBatchInfo[], origin: AppendOrigin = 'client'): ProducerCheckResult {
    const tentative = new Map<number, TentativeProducerState>();
    for (const batch of batches) {
      if (batch.producerId < 0) continue;
      const current = this.producers.get(batch.producerId);
      const state = tentative.get(batch.producerId) ?? {
        epoch: current?.producerEpoch ?? -1,
        lastSequence: lastSequenceOf(current),
        known: current !== undefined,
        coordinatorEpoch: current?.coordinatorEpoch ?? -1,
        inTxn: current !== undefined && current.currentTxnFirstOffset >= 0,
      };
      if (batch.isControl) {
        const marker = batch.endTxnMarker;
        if (marker === undefined || marker === null) continue;
        const error = checkEndTxnMarker(batch, marker, state);
        if (error !== null) return error;
        const lastSequence = batch.producerEpoch === state.epoch ? state.lastSequence : -1;
        tentative.set(batch.producerId, { epoch: batch.producerEpoch, lastSequence, known: true, coordinatorEpoch: marker.coordinatorEpoch, inTxn: false });
        continue;
      }
      const firstSequence = batch.baseSequence;
      const lastSequence = incrementSequence(firstSequence, batch.lastOffsetDelta);
      if (origin === 'client' && current !== undefined && current.producerEpoch === batch.producerEpoch) {
        const duplicate = current.batches.find(
          (cached) => cached.firstSequence === firstSequence && cached.lastSequence === lastSequence,
        );
        if (duplicate !== undefined) {
          return {
            errorCode: NONE,
            duplicateOf: { baseOffset: duplicate.firstOffset, lastOffset: duplicate.lastOffset, timestamp: duplicate.timestamp },
          };
        }
      }
      const error = origin === 'client' ? checkSequence(batch, state) : checkProducerEpoch(batch, state);
      if (error !== null) return error;
      if (state.inTxn && !batch.isTransactional) {
        return {
          errorCode: INVALID_TXN_STATE,
          errorMessage: `producer ${batch.producerId}: expected a transactional write (its transaction is open)`,
        };
      }
      tentative.set(batch.producerId, {
        epoch: batch.producerEpoch, lastSequence, known: true, coordinatorEpoch: state.coordinatorEpoch, inTxn: state.inTxn || batch.isTransactional,
      });
    }
    return { errorCode: NONE };
  }

  /**
   * Records batches just appended (offsets stamped), in offset order. Every batch of the append
   * must be passed, idempotent or not, so mapEndOffset follows the log end.
   */
  onAppended(batches: readonly ProducerBatchInfo[]): void {
    for (const batch of batches) this.apply(batch);
  }

  /** Applies one batch read back from the log during load; same as onAppended, without checks. */
  replayBatch(batch: ProducerBatchInfo): void {
    if (batch.baseOffset + batch.lastOffsetDelta < this.mapEndOffsetValue) return;
    this.apply(batch);
  }

  /** Moves mapEndOffset forward (e.g. to the log end after a replay that found no batches). */
  updateMapEndOffset(offset: number): void {
    assert(offset >= this.mapEndOffsetValue, 'mapEndOffset moves forward');
    this.mapEndOffsetValue = offset;
    this.changedSinceSnapshot = true;
  }

  /**
   * Writes `<mapEndOffset>.snapshot` atomically and durably (tmp file, fsync, rename, directory
   * fsync), then deletes all but the newest `maxSnapshots`. Returns whether a file was written.
   *
   * Nothing is written (each costs two fsyncs, which made a clean stop of 10,000 partitions take
   * over ten seconds) when the snapshot would tell the next load nothing new:
   * - the newest snapshot on disk is at mapEndOffset and the state has not changed since it was
   *   loaded or written (e.g. a partition without appends since the start);
   * - there are no producers, no snapshot on disk and the log is empty (mapEndOffset at the log
   *   start offset): the next load starts empty and has nothing to replay. (Kafka likewise only
   *   keeps snapshots where there is producer state or a log to skip.)
   * An empty snapshot is still written for a non-empty log, so the next load does not replay it.
   */
  takeSnapshot(): boolean {
    const offset = this.mapEndOffsetValue;
    if (!this.changedSinceSnapshot && this.lastSnapshotOffset === offset) return false;
    if (this.producers.size === 0 && this.lastSnapshotOffset < 0 && offset <= this.logStartOffsetValue) return false;
    const file = path.join(this.dir, snapshotFileName(offset));
    const temporary = `${file}.tmp`;
    const bytes = encodeProducerSnapshot(offset, this.producers.values());
    const fd = this.disk.open(temporary, 'create');
    try {
      if (this.disk.fileSize(fd) > 0) this.disk.truncate(fd, 0); // a stale temp file only (see writeFileAtomically)
      this.disk.write(fd, bytes, 0);
      this.disk.fsync(fd);
    } finally {
      this.disk.close(fd);
    }
    this.disk.rename(temporary, file);
    this.disk.fsyncDir(this.dir);
    this.lastSnapshotOffset = offset;
    this.changedSinceSnapshot = false;
    const offsets = this.snapshotOffsets();
    for (const old of offsets.slice(0, Math.max(0, offsets.length - this.maxSnapshots))) {
      this.disk.delete(path.join(this.dir, snapshotFileName(old)));
    }
    return true;
  }

  /**
   * The log start offset moved (retention, DeleteRecords): forgets producers whose last batch
   * is gone and deletes snapshots below the new start (Kafka's onLogStartOffsetIncremented +
   * deleteSnapshotsBefore).
   */
  truncateHead(logStartOffset: number): void {
    if (this.removeUnretainedProducers(logStartOffset) > 0) this.changedSinceSnapshot = true;
    for (const offset of this.snapshotOffsets()) {
      if (offset < logStartOffset) this.disk.delete(path.join(this.dir, snapshotFileName(offset)));
    }
    if (this.lastSnapshotOffset < logStartOffset) this.lastSnapshotOffset = -1;
    if (this.mapEndOffsetValue < logStartOffset) {
      this.mapEndOffsetValue = logStartOffset;
      this.changedSinceSnapshot = true;
    }
    this.logStartOffsetValue = logStartOffset;
  }

  /**
   * Whether a snapshot must be taken for a restart to know an open transaction: one starts below
   * the log start offset (DeleteRecords or retention moved past it) and no snapshot at or above
   * the log start offset exists. A restart loads the newest snapshot and replays only from the log
   * start offset, so without one the transaction's first offset would be lost and the last stable
   * offset would jump past the open transaction.
   */
  needsSnapshotForOpenTxns(): boolean {
    if (this.lastSnapshotOffset >= this.logStartOffsetValue) return false;
    for (const firstOffset of this.ongoingTxns.values()) if (firstOffset < this.logStartOffsetValue) return true;
    return false;
  }

  /** Deletes every snapshot file and forgets all state (the partition is deleted or emptied). */
  truncateFullyAndStartAt(offset: number): void {
    for (const snapshot of this.snapshotOffsets()) this.disk.delete(path.join(this.dir, snapshotFileName(snapshot)));
    this.producers = emptyMap();
    this.ongoingTxns = emptyMap();
    this.unreplicatedTxns = [];
    this.mapEndOffsetValue = offset;
    this.logStartOffsetValue = offset;
    this.lastSnapshotOffset = -1;
    this.changedSinceSnapshot = true;
  }

  /**
   * Forgets producers idle for longer than producer.id.expiration.ms (by their last batch
   * timestamp) and without an open transaction. Returns how many were removed.
   */
  removeExpiredProducers(nowMs: number): number {
    let removed = 0;
    for (const [producerId, entry] of this.producers) {
      if (entry.currentTxnFirstOffset < 0 && nowMs - entry.lastTimestamp >= this.producerIdExpirationMs) {
        this.writableProducers().delete(producerId);
        removed++;
      }
    }
    if (removed > 0) this.changedSinceSnapshot = true;
    return removed;
  }

  /**
   * Kafka's firstUnstableOffset: the smallest first offset of an open transaction or of a
   * completed one whose marker is at or above `highWatermark` (not replicated yet), or -1. The
   * last stable offset is min(this, high watermark) (the high watermark when -1).
   */
  firstUnstableOffset(highWatermark = Number.MAX_SAFE_INTEGER): number {
    while (this.unreplicatedTxns.length > 0 && this.unreplicatedTxns[0]!.lastOffset < highWatermark) this.unreplicatedTxns.shift();
    let first = -1;
    for (const txn of this.unreplicatedTxns) {
      if (first < 0 || txn.firstOffset < first) first = txn.firstOffset;
    }
    for (const firstOffset of this.ongoingTxns.values()) {
      if (first < 0 || firstOffset < first) first = firstOffset;
    }
    return first;
  }

  /** Open transactions (producer id -> first offset), read-only. */
  ongoingTransactions(): ReadonlyMap<number, number> {
    return this.ongoingTxns;
  }

  private apply(batch: ProducerBatchInfo): void {
    const lastOffset = batch.baseOffset + batch.lastOffsetDelta;
    assert(batch.baseOffset >= 0 && batch.lastOffsetDelta >= 0, 'applied batches carry stamped offsets');
    this.changedSinceSnapshot = true;
    if (batch.producerId >= 0) {
      let entry = this.producers.get(batch.producerId);
      if (entry === undefined) {
        entry = {
          producerId: batch.producerId,
          producerEpoch: batch.producerEpoch,
          coordinatorEpoch: -1,
          currentTxnFirstOffset: -1,
          lastTimestamp: batch.maxTimestamp,
          batches: [],
        };
        this.writableProducers().set(batch.producerId, entry);
      }
      if (batch.producerEpoch !== entry.producerEpoch) {
        // A new epoch restarts the sequence space: old batches can no longer be retried.
        entry.producerEpoch = batch.producerEpoch;
        entry.batches = [];
      }
      entry.lastTimestamp = batch.maxTimestamp;
      if (batch.isControl) {
        // A control batch without a marker (emptied by the cleaner) changes nothing (Kafka's).
        if (batch.endTxnMarker) this.completeTxn(entry, batch.baseOffset, batch.endTxnMarker);
      } else {
        if (batch.isTransactional && entry.currentTxnFirstOffset < 0) {
          entry.currentTxnFirstOffset = batch.baseOffset;
          this.writableOngoingTxns().set(batch.producerId, batch.baseOffset);
        }
        entry.batches.push({
          firstSequence: batch.baseSequence,
          lastSequence: incrementSequence(batch.baseSequence, batch.lastOffsetDelta),
          firstOffset: batch.baseOffset,
          lastOffset,
          timestamp: batch.maxTimestamp,
        });
        if (entry.batches.length > NUM_BATCHES_TO_RETAIN) entry.batches.shift();
      }
    }
    if (lastOffset + 1 > this.mapEndOffsetValue) this.mapEndOffsetValue = lastOffset + 1;
  }

  /** Applies a marker at `offset` to `entry` (Kafka's appendEndTxnMarker + completeTxn). */
  private completeTxn(entry: ProducerStateEntry, offset: number, marker: EndTxnMarker): void {
    entry.coordinatorEpoch = marker.coordinatorEpoch;
    const firstOffset = entry.currentTxnFirstOffset;
    if (firstOffset < 0) return;
    entry.currentTxnFirstOffset = -1;
    if (this.ongoingTxns.has(entry.producerId)) this.writableOngoingTxns().delete(entry.producerId);
    const completed: CompletedTxn = {
      producerId: entry.producerId, firstOffset, lastOffset: offset, isAborted: marker.controlType === ControlRecordType.ABORT,
    };
    let lastStableOffset = offset + 1;
    for (const other of this.ongoingTxns.values()) lastStableOffset = Math.min(lastStableOffset, other);
    this.unreplicatedTxns.push(completed);
    this.onCompletedTxn?.(completed, lastStableOffset);
  }

  /** The producers map to write to: this manager's own, made on the first write. */
  private writableProducers(): Map<number, ProducerStateEntry> {
    const own = ownMap(this.producers);
    this.producers = own;
    return own;
  }

  /** The open transactions map to write to: this manager's own, made on the first write. */
  private writableOngoingTxns(): Map<number, number> {
    const own = ownMap(this.ongoingTxns);
    this.ongoingTxns = own;
    return own;
  }

  /** Returns how many producers were forgotten. */
  private removeUnretainedProducers(logStartOffset: number): number {
    let removed = 0;
    for (const [producerId, entry] of this.producers) {
      // Producers with an open transaction stay: its markers must still find them. So do those
      // this log knows only from a marker (no data batch): the marker's epoch fences the
      // producer's older epoch here, and forgetting it at a restart let a fenced producer open
      // a transaction the coordinator never heard of (a hanging transaction). Producer-id
      // expiry removes them in time.
      if (entry.batches.length === 0) continue;
      const last = entry.batches[entry.batches.length - 1]!.lastOffset;
      if (last < logStartOffset && entry.currentTxnFirstOffset < 0) {
        this.writableProducers().delete(producerId);
        removed++;
      }
    }
    return removed;
  }

  private readFile(file: string): Buffer {
    const fd = this.disk.open(file, 'read');
    try {
      const size = this.disk.fileSize(fd);
      const buffer = Buffer.alloc(size);
      const read = this.disk.read(fd, buffer, 0, size, 0);
      return buffer.subarray(0, read);
    } finally {
      this.disk.close(fd);
    }
  }
}

/**
 * Reads the producer-state fields of the stored RecordBatch v2 header at `position` (layout:
 * host/wasm/batch-layout.ts). The caller guarantees RECORD_BATCH_OVERHEAD (61) bytes are there.
 */
export function readProducerBatchInfo(bytes: Uint8Array, position: number): ProducerBatchInfo {
  const view = new DataView(bytes.buffer, bytes.byteOffset + position, RECORD_BATCH_OVERHEAD);
  const attributes = view.getInt16(BatchLayout.ATTRIBUTES);
  return {
    baseOffset: Number(view.getBigInt64(BatchLayout.BASE_OFFSET)),
    lastOffsetDelta: view.getInt32(BatchLayout.LAST_OFFSET_DELTA),
    maxTimestamp: Number(view.getBigInt64(BatchLayout.MAX_TIMESTAMP)),
    producerId: Number(view.getBigInt64(BatchLayout.PRODUCER_ID)),
    producerEpoch: view.getInt16(BatchLayout.PRODUCER_EPOCH),
    baseSequence: view.getInt32(BatchLayout.BASE_SEQUENCE),
    isTransactional: (attributes & BatchAttributes.TRANSACTIONAL_FLAG_MASK) !== 0,
    isControl: (attributes & BatchAttributes.CONTROL_FLAG_MASK) !== 0,
  };
}

/**
 * Walks a blob of stored RecordBatch v2 batches (the log tail that {@link ProducerStateManager.recover}
 * replays; leader appends use the core's summaries instead) and reads each one's producer fields
 * with {@link readProducerBatchInfo}. Stops at the first batch
 * that is not whole, shorter than a header, or not magic 2: `complete` is false then. No CRC
 * check: this only peeks at headers.
 */
export function readProducerBatches(bytes: Uint8Array): { batches: ProducerBatchInfo[]; complete: boolean } {
  const batches: ProducerBatchInfo[] = [];
  let position = 0;
  while (position < bytes.length) {
    if (position + RECORD_BATCH_OVERHEAD > bytes.length) return { batches, complete: false };
    const size = BatchLayout.LOG_OVERHEAD + readInt32(bytes, position + BatchLayout.BATCH_LENGTH);
    if (size < RECORD_BATCH_OVERHEAD || position + size > bytes.length || bytes[position + BatchLayout.MAGIC] !== MAGIC_V2) {
      return { batches, complete: false };
    }
    const info = readProducerBatchInfo(bytes, position);
    if (info.isControl) info.endTxnMarker = readEndTxnMarker(bytes, position, size);
    batches.push(info);
    position += size;
  }
  return { batches, complete: true };
}

function readInt32(bytes: Uint8Array, position: number): number {
  return ((bytes[position]! << 24) | (bytes[position + 1]! << 16) | (bytes[position + 2]! << 8) | bytes[position + 3]!) | 0;
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}
