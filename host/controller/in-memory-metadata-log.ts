/**
 * A MetadataLog in memory, seen from node `localId`: for tests, simulations, and handler tests
 * elsewhere that want a real QuorumController without a disk.
 *
 * By default it behaves as the single-node log: `localId` leads epoch 1 from the start and every
 * append is committed (handleCommit) before append returns. With `commitOnAppend: false` a test
 * plays the quorum by hand: {@link commitUpTo} commits, {@link elect} / {@link resign} move the
 * leadership (dropping what was not committed, as a new leader without those entries would), and
 * {@link appendFromLeader} adds a batch written by another node's leader, as replication brings
 * it to a follower. `failNextAppends` injects storage failures.
 *
 * Several listeners may register (e.g. a controller and one restarted over the same log); each
 * hears every commit and leader change.
 */
import {
  type LeaderAndEpoch,
  type MetadataBatch,
  type MetadataLog,
  MetadataLogError,
  type MetadataLogListener,
  NOT_CONTROLLER_ERROR_CODE,
} from './metadata-log.js';

export interface InMemoryMetadataLogOptions {
  /** This node's id (the leader at the start). Default 1. */
  readonly localId?: number;
  /** Commit each batch inside append (the single-node behaviour). Default true. */
  readonly commitOnAppend?: boolean;
}

export class InMemoryMetadataLog implements MetadataLog {
  readonly localId: number;
  /** Whether appends commit at once; a test may switch it. */
  commitOnAppend: boolean;
  /** While > 0, each append fails with MetadataLogError (56) and decrements it. */
  failNextAppends = 0;
  private readonly batches: MetadataBatch[] = [];
  private readonly listeners: MetadataLogListener[] = [];
  private leader: LeaderAndEpoch;
  private committedEnd = 0;
  /** Index in `batches` of the first uncommitted batch. */
  private firstUncommitted = 0;

  constructor(options: InMemoryMetadataLogOptions = {}) {
    this.localId = options.localId ?? 1;
    this.commitOnAppend = options.commitOnAppend ?? true;
    this.leader = { leaderId: this.localId, epoch: 1 };
  }

  /** Batch boundaries: the offset of each stored batch's first record. */
  get batchBaseOffsets(): number[] {
    return this.batches.map((batch) => batch.baseOffset);
  }

  register(listener: MetadataLogListener): void {
    this.listeners.push(listener);
    listener.handleLeaderChange(this.leader);
  }

  append(epoch: number, values: readonly Uint8Array[]): number {
    if (this.leader.leaderId !== this.localId || epoch !== this.leader.epoch) {
      throw new MetadataLogError(`node ${this.localId} does not lead epoch ${epoch} (leader ${this.leader.leaderId}, epoch ${this.leader.epoch})`,
        { errorCode: NOT_CONTROLLER_ERROR_CODE });
    }
    if (this.failNextAppends > 0) {
      this.failNextAppends--;
      throw new MetadataLogError('injected metadata log failure');
    }
    return this.store(epoch, values);
  }

  /**
   * Adds a batch written by the current leader, another node (as replication brings it here);
   * committed at once when commitOnAppend. Returns its last offset.
   */
  appendFromLeader(values: readonly Uint8Array[]): number {
    if (this.leader.leaderId === this.localId || this.leader.leaderId < 0) throw new Error('appendFromLeader: another node must lead');
    return this.store(this.leader.epoch, values);
  }

  /**
   * Commits every stored batch whose last offset is at most `offset`, telling the listeners in
   * order. A batch is committed whole or not at all.
   */
  commitUpTo(offset: number): void {
    while (this.firstUncommitted < this.batches.length && this.batches[this.firstUncommitted]!.lastOffset <= offset) {
      const batch = this.batches[this.firstUncommitted++]!;
      this.committedEnd = batch.lastOffset + 1;
      for (const listener of [...this.listeners]) listener.handleCommit(batch);
    }
  }

  /** Commits everything stored. */
  commitAll(): void {
    this.commitUpTo(this.endOffset() - 1);
  }

  /**
   * `leaderId` (-1: none yet) now leads `epoch` (which must grow). Uncommitted batches are
   * dropped first (the new leader did not have them), then the listeners hear the change, unless
   * `options.tell` is false (the news is still on its way: {@link tellLeader} delivers it).
   */
  elect(leaderId: number, epoch: number, options: { tell?: boolean } = {}): void {
    if (epoch <= this.leader.epoch) throw new Error(`elect: epoch ${epoch} does not follow ${this.leader.epoch}`);
    this.batches.length = this.firstUncommitted;
    this.leader = { leaderId, epoch };
    if (options.tell ?? true) this.tellLeader();
  }

  /** Tells the listeners the current leader. */
  tellLeader(): void {
    for (const listener of [...this.listeners]) listener.handleLeaderChange(this.leader);
  }

  /** This node loses the leadership: epoch `newEpoch` has `newLeaderId` (default none yet). */
  resign(newEpoch: number, newLeaderId = -1): void {
    this.elect(newLeaderId, newEpoch);
  }

  highWatermark(): number {
    return this.committedEnd;
  }

  endOffset(): number {
    const last = this.batches[this.batches.length - 1];
    return last === undefined ? 0 : last.lastOffset + 1;
  }

  leaderAndEpoch(): LeaderAndEpoch {
    return this.leader;
  }

  readCommitted(fromOffset: number): Iterable<MetadataBatch> {
    return this.batches.filter((batch) => batch.lastOffset >= fromOffset && batch.lastOffset < this.committedEnd);
  }

  private store(epoch: number, values: readonly Uint8Array[]): number {
    if (values.length === 0) throw new Error('InMemoryMetadataLog: a batch has records');
    const baseOffset = this.endOffset();
    const batch: MetadataBatch = Object.freeze({
      baseOffset,
      lastOffset: baseOffset + values.length - 1,
      epoch,
      records: Object.freeze(values.map((value) => Uint8Array.from(value))),
    });
    this.batches.push(batch);
    if (this.commitOnAppend) this.commitUpTo(batch.lastOffset);
    return batch.lastOffset;
  }
}
