/**
 * {@link MemoryRaftLog}: a {@link RaftLog} in memory that keeps the line between flushed and
 * unflushed data, so the simulator can crash a node and lose (or tear) its unflushed tail as a
 * real disk would.
 */
import { type LogBatch, type OffsetAndEpoch, type RaftLog, type RaftSnapshot, lastOffsetOf } from './raft-log.js';

interface EpochStart {
  readonly epoch: number;
  readonly startOffset: number;
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`MemoryRaftLog: ${message}`);
}

function recordBytes(batch: LogBatch): number {
  let total = 0;
  for (const record of batch.records) total += record.length;
  return total;
}

/** A {@link RaftLog} held in memory. Not thread-safe (nothing here is). */
export class MemoryRaftLog implements RaftLog {
  private batches: LogBatch[] = [];
  private logStartOffset = 0;
  private logEndOffset = 0;
  private flushedEndOffset = 0;
  private snapshot: RaftSnapshot | undefined;
  private epochStarts: EpochStart[] = [];

  startOffset(): number {
    return this.logStartOffset;
  }

  endOffset(): number {
    return this.logEndOffset;
  }

  flushedOffset(): number {
    return this.flushedEndOffset;
  }

  lastFetchedEpoch(): number {
    const last = this.batches[this.batches.length - 1];
    if (last !== undefined) return last.epoch;
    return this.snapshot?.id.epoch ?? 0;
  }

  append(epoch: number, records: readonly Uint8Array[], control: boolean): number {
    assert(records.length > 0, 'append of no records');
    this.appendBatch({ baseOffset: this.logEndOffset, epoch, control, records: [...records] });
    return this.logEndOffset - 1;
  }

  appendAsFollower(batches: readonly LogBatch[]): void {
    for (const batch of batches) {
      assert(batch.baseOffset === this.logEndOffset, `batch at ${batch.baseOffset} appended at end offset ${this.logEndOffset}`);
      this.appendBatch(batch);
    }
  }

  truncateTo(offset: number): void {
    assert(offset >= this.logStartOffset, `truncation to ${offset} below the log start ${this.logStartOffset}`);
    assert(offset <= this.logEndOffset, `truncation to ${offset} above the log end ${this.logEndOffset}`);
    if (offset === this.logEndOffset) return;
    const kept: LogBatch[] = [];
    for (const batch of this.batches) {
      if (lastOffsetOf(batch) < offset) kept.push(batch);
      else if (batch.baseOffset < offset) kept.push({ ...batch, records: batch.records.slice(0, offset - batch.baseOffset) });
      else break;
    }
    this.batches = kept;
    this.logEndOffset = offset;
    // Truncation is treated as durable at once (Kafka truncates the segment file in place).
    this.flushedEndOffset = Math.min(this.flushedEndOffset, offset);
    this.rebuildEpochStarts();
  }

  flush(): void {
    this.flushedEndOffset = this.logEndOffset;
  }

  endOffsetForEpoch(epoch: number): OffsetAndEpoch {
    const starts = this.knownEpochs();
    let found = -1;
    for (let i = 0; i < starts.length; i++) {
      if (starts[i]!.epoch <= epoch) found = i;
      else break;
    }
    if (found < 0) return { epoch: 0, offset: this.logStartOffset };
    const next = starts[found + 1];
    return { epoch: starts[found]!.epoch, offset: next === undefined ? this.logEndOffset : next.startOffset };
  }

  epochAt(offset: number): number {
    assert(offset >= this.logStartOffset && offset < this.logEndOffset, `epochAt(${offset}) outside [${this.logStartOffset}, ${this.logEndOffset})`);
    return this.batches[this.batchIndexOf(offset)]!.epoch;
  }

  read(fromOffset: number, maxBytes: number): LogBatch[] {
    assert(fromOffset >= this.logStartOffset && fromOffset <= this.logEndOffset, `read at ${fromOffset} outside [${this.logStartOffset}, ${this.logEndOffset}]`);
    if (fromOffset === this.logEndOffset) return [];
    const result: LogBatch[] = [];
    let bytes = 0;
    for (let i = this.batchIndexOf(fromOffset); i < this.batches.length; i++) {
      let batch = this.batches[i]!;
      if (batch.baseOffset < fromOffset) batch = { ...batch, baseOffset: fromOffset, records: batch.records.slice(fromOffset - batch.baseOffset) };
      const size = recordBytes(batch);
      if (result.length > 0 && bytes + size > maxBytes) break;
      result.push(batch);
      bytes += size;
    }
    return result;
  }

  latestSnapshot(): RaftSnapshot | undefined {
    return this.snapshot;
  }

  storeSnapshot(snapshot: RaftSnapshot): void {
    const endOffset = snapshot.id.endOffset;
    assert(endOffset >= this.logStartOffset && endOffset <= this.logEndOffset, `snapshot at ${endOffset} outside [${this.logStartOffset}, ${this.logEndOffset}]`);
    if (this.snapshot !== undefined && this.snapshot.id.endOffset >= endOffset) return;
    this.snapshot = snapshot;
    this.batches = this.read(endOffset, Number.MAX_SAFE_INTEGER);
    this.logStartOffset = endOffset;
    this.flushedEndOffset = Math.max(this.flushedEndOffset, endOffset);
    this.rebuildEpochStarts();
  }

  installSnapshot(snapshot: RaftSnapshot): void {
    this.snapshot = snapshot;
    this.batches = [];
    this.logStartOffset = snapshot.id.endOffset;
    this.logEndOffset = snapshot.id.endOffset;
    this.flushedEndOffset = snapshot.id.endOffset;
    this.epochStarts = [];
  }

  /** Batches not yet flushed (what a crash may lose). */
  unflushedBatchCount(): number {
    let count = 0;
    for (let i = this.batches.length - 1; i >= 0 && lastOffsetOf(this.batches[i]!) >= this.flushedEndOffset; i--) count++;
    return count;
  }

  /**
   * A crash: the unflushed tail is lost, except its first `keepUnflushedBatches` batches, which
   * reached the disk before the crash (a torn tail: a batch cut in the middle fails its CRC on
   * recovery and is dropped whole, so only whole batches survive). What survives is durable.
   */
  crash(keepUnflushedBatches = 0): void {
    let keepEnd = this.flushedEndOffset;
    let kept = 0;
    for (const batch of this.batches) {
      if (lastOffsetOf(batch) < this.flushedEndOffset) continue;
      if (kept >= keepUnflushedBatches) break;
      keepEnd = lastOffsetOf(batch) + 1;
      kept++;
    }
    this.truncateTo(Math.max(keepEnd, this.logStartOffset));
    this.flush();
  }

  private appendBatch(batch: LogBatch): void {
    assert(batch.records.length > 0, 'empty batch');
    const lastEpoch = this.lastFetchedEpoch();
    assert(batch.epoch >= lastEpoch, `append in epoch ${batch.epoch} after epoch ${lastEpoch}`);
    if (batch.epoch > lastEpoch || this.epochStarts.length === 0) this.epochStarts.push({ epoch: batch.epoch, startOffset: batch.baseOffset });
    this.batches.push(batch);
    this.logEndOffset = lastOffsetOf(batch) + 1;
  }

  /** The epochs the log knows with their start offsets, the snapshot's epoch first. */
  private knownEpochs(): readonly EpochStart[] {
    const snapshot = this.snapshot;
    if (snapshot === undefined) return this.epochStarts;
    const first = this.epochStarts[0];
    if (first !== undefined && first.epoch === snapshot.id.epoch) return this.epochStarts;
    return [{ epoch: snapshot.id.epoch, startOffset: this.logStartOffset }, ...this.epochStarts];
  }

  private rebuildEpochStarts(): void {
    this.epochStarts = [];
    for (const batch of this.batches) {
      const last = this.epochStarts[this.epochStarts.length - 1];
      if (last === undefined || batch.epoch > last.epoch) this.epochStarts.push({ epoch: batch.epoch, startOffset: batch.baseOffset });
    }
  }

  /** Index of the batch holding `offset` (binary search; offsets are contiguous). */
  private batchIndexOf(offset: number): number {
    let low = 0;
    let high = this.batches.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.batches[middle]!.baseOffset <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}
