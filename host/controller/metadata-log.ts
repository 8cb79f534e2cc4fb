/**
 * The metadata log as the controller sees it, shaped like Kafka's RaftClient: the active
 * controller proposes batches of metadata record values (framed as in metadata-records.ts) with
 * {@link MetadataLog.append}, which answers at once with the offsets they will have; the log later
 * reports each batch *committed* (on every node, whoever wrote it) through
 * {@link MetadataLogListener.handleCommit}, in offset order, and tells who leads through
 * {@link MetadataLogListener.handleLeaderChange}.
 *
 * ```
 * active controller ──append(epoch, values)──► log ──(replicated to a majority)──► handleCommit
 *                   ◄──────── last offset ─────┘                                  on every node
 * ```
 *
 * Implementations: UnifiedLogMetadataLog (the embedded single node: a one-voter quorum over
 * `__cluster_metadata-0`, committed as soon as the batch is durable), InMemoryMetadataLog (tests:
 * commits and leader changes on command); a Raft client (host/raft) fits behind the same shape.
 */

/** One committed batch as the log hands it to its listeners (Kafka's Batch). */
export interface MetadataBatch {
  /** Offset of the first record. */
  readonly baseOffset: number;
  /** Offset of the last record (baseOffset + records.length - 1). */
  readonly lastOffset: number;
  /** The leader epoch the batch was written in. */
  readonly epoch: number;
  /** The record values, in offset order (framed metadata records). */
  readonly records: readonly Uint8Array[];
}

/** Who leads the quorum (Kafka's LeaderAndEpoch). */
export interface LeaderAndEpoch {
  /** Node id of the leader; -1 while there is none (an election is running). */
  readonly leaderId: number;
  /** The leader epoch (Raft term); grows with every election, 0 before the first. */
  readonly epoch: number;
}

/**
 * Hears the log (Kafka's RaftClient.Listener). Calls come in order and never overlap; an
 * implementation may make them inside {@link MetadataLog.append} (the single-node logs commit
 * there) or later.
 */
export interface MetadataLogListener {
  /**
   * `batch` is committed: it will never be lost or replaced. Batches come in offset order, each
   * once, from the high watermark at {@link MetadataLog.register} on; a log may also hand again
   * batches that {@link MetadataLog.readCommitted} gave (a Raft client replays from its start),
   * which the listener skips by offset.
   */
  handleCommit(batch: MetadataBatch): void;
  /**
   * The leader changed (or became known). A log names this node leader of an epoch only after
   * every batch of earlier epochs that the new epoch keeps was handed to handleCommit, so a new
   * leader starts from the whole committed state.
   */
  handleLeaderChange(leader: LeaderAndEpoch): void;
  /**
   * The log starts at a snapshot (start-up from the latest `.checkpoint`, or a follower so far
   * behind that the leader sent its snapshot): the state becomes the snapshot's `records` (each an
   * encoded metadata record) and commits continue at `endOffset`. Logs without snapshots never call it.
   */
  handleLoadSnapshot?(endOffset: number, records: readonly Uint8Array[]): void;
}

export interface MetadataLog {
  /**
   * Starts telling `listener` the current leader (handleLeaderChange: the single-node logs call
   * it at once, a Raft client on its next turn) and every batch committed from now on
   * (handleCommit). Read what is committed already with {@link readCommitted} first.
   */
  register(listener: MetadataLogListener): void;
  /**
   * Proposes `values` as one atomic batch (all or nothing, also across a crash) written in leader
   * epoch `epoch`, and returns the offset its last record gets; offsets are consecutive. The
   * batch is not committed on return: handleCommit says when it is.
   * @throws MetadataLogError NOT_CONTROLLER (41) when this node does not lead epoch `epoch`
   *   (a stale epoch or no leadership): nothing was appended
   * @throws MetadataLogError KAFKA_STORAGE_ERROR (56) when the batch cannot be stored (disk
   *   failure): nothing was appended as far as this process knows; the controller stops
   *   accepting changes
   * @throws MetadataLogError with the log's refusal (e.g. MESSAGE_TOO_LARGE 10): nothing was
   *   appended and the log is still usable
   */
  append(epoch: number, values: readonly Uint8Array[]): number;
  /** The offset after the last committed record (Kafka's high watermark); 0 for none. */
  highWatermark(): number;
  /** The offset the next appended record gets, committed or not (Kafka's logEndOffset). */
  endOffset(): number;
  /** The current leader and epoch. */
  leaderAndEpoch(): LeaderAndEpoch;
  /**
   * The committed batches with records at or after `fromOffset`, in offset order, up to the
   * high watermark when called (start-up replay; later commits come through handleCommit). A log
   * whose register replays everything from its start may return none.
   * @throws MetadataLogError (56) when the log cannot be read
   */
  readCommitted(fromOffset: number): Iterable<MetadataBatch>;
  /**
   * Stores a snapshot of the state after every record below `endOffset` (committed) and deletes
   * the log before it; absent where the log keeps everything (the single-node logs).
   */
  createSnapshot?(endOffset: number, records: readonly Uint8Array[]): void;
}

/**
 * The metadata log could not take or give a batch. `errorCode` is KAFKA_STORAGE_ERROR (56) for
 * disk failures (the default); NOT_CONTROLLER (41) when this node does not lead the epoch the
 * batch was proposed in; or the log's refusal of a batch (e.g. MESSAGE_TOO_LARGE 10), after which
 * nothing was written and the log is still usable.
 */
export class MetadataLogError extends Error {
  readonly errorCode: number;
  constructor(message: string, options?: { cause?: unknown; errorCode?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MetadataLogError';
    this.errorCode = options?.errorCode ?? 56;
  }
}

/** NOT_CONTROLLER (41): the error a log throws for an append outside this node's leadership. */
export const NOT_CONTROLLER_ERROR_CODE = 41;
