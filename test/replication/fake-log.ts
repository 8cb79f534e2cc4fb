import type { FollowerLogAppendResult, LogAppendResult, LogReadResult, PartitionLog } from '../../host/replication/partition-log.js';

/**
 * A tiny in-memory stand-in for UnifiedLog: each append of N bytes is one "batch" holding one
 * record. A blob starting with 0xff is refused as CORRUPT_MESSAGE (2). Reads return whole
 * batches from the one holding fetchOffset, below upperBoundOffset, within maxBytes (at least
 * one batch with minOneMessage). A follower append is one batch at the log end offset, its
 * partition leader epoch `followerEpoch` (tests of replication proper use a real UnifiedLog).
 */
export class FakeLog implements PartitionLog {
  readonly batches: Array<{ offset: number; bytes: Buffer }> = [];
  readonly leaderEpochs: number[] = [];
  logStartOffset = 0;
  highWatermark = 0;
  lastStableOffset: number | undefined = undefined;
  config = { minInsyncReplicas: 1 };
  throwOnNext: Error | null = null;
  followerEpoch = 0;

  constructor(readonly topic: string, readonly partition: number) {}

  get logEndOffset(): number {
    return this.logStartOffset + this.batches.length;
  }

  appendAsLeader(records: Uint8Array, leaderEpoch: number): LogAppendResult {
    this.maybeThrow();
    if (records.length === 0 || records[0] === 0xff) {
      return { errorCode: 2, baseOffset: -1, lastOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, batches: [] };
    }
    const offset = this.logEndOffset;
    this.batches.push({ offset, bytes: Buffer.from(records) });
    this.leaderEpochs.push(leaderEpoch);
    return {
      errorCode: 0,
      baseOffset: offset,
      lastOffset: offset,
      logAppendTimeMs: -1,
      logStartOffset: this.logStartOffset,
      batches: [{ sizeInBytes: records.length }],
    };
  }

  read(fetchOffset: number, maxBytes: number, upperBoundOffset: number, minOneMessage: boolean): LogReadResult {
    this.maybeThrow();
    const parts: Buffer[] = [];
    let size = 0;
    for (const batch of this.batches) {
      if (batch.offset < fetchOffset || batch.offset >= upperBoundOffset) continue;
      if (size + batch.bytes.length > maxBytes && !(minOneMessage && parts.length === 0)) break;
      parts.push(batch.bytes);
      size += batch.bytes.length;
    }
    return { errorCode: 0, records: Buffer.concat(parts) };
  }

  updateHighWatermark(offset: number): void {
    this.highWatermark = offset;
  }

  deleteRecordsBefore(offset: number): number {
    if (offset > this.highWatermark) return 1;
    while (this.logStartOffset < offset) {
      this.batches.shift();
      this.logStartOffset++;
    }
    return 0;
  }

  appendAsFollower(records: Uint8Array): FollowerLogAppendResult {
    this.maybeThrow();
    const offset = this.logEndOffset;
    this.batches.push({ offset, bytes: Buffer.from(records) });
    this.leaderEpochs.push(this.followerEpoch);
    const batch = {
      sizeInBytes: records.length, baseOffset: offset, lastOffsetDelta: 0, partitionLeaderEpoch: this.followerEpoch,
      maxTimestamp: -1, producerId: -1, producerEpoch: -1, baseSequence: -1, isTransactional: false, isControl: false,
    };
    return { errorCode: 0, baseOffset: offset, lastOffset: offset, batches: [batch] };
  }

  truncateTo(offset: number): void {
    while (this.logEndOffset > Math.max(offset, this.logStartOffset)) {
      this.batches.pop();
      this.leaderEpochs.pop();
    }
    this.highWatermark = Math.min(this.highWatermark, this.logEndOffset);
  }

  truncateFullyAndStartAt(offset: number): void {
    this.batches.length = 0;
    this.leaderEpochs.length = 0;
    this.logStartOffset = offset;
    this.highWatermark = offset;
  }

  private maybeThrow(): void {
    const error = this.throwOnNext;
    if (error === null) return;
    this.throwOnNext = null;
    throw error;
  }
}

/** A blob of `size` bytes standing for one batch. */
export function blob(size: number, fill = 1): Buffer {
  return Buffer.alloc(size, fill);
}
