/**
 * Fakes for the replica fetcher's tests: an in-memory follower replica ({@link FakeReplica}) and a
 * leader ({@link FakeLeader}) that answers replica Fetch with Kafka's rules (leader epoch checks,
 * KIP-320 divergence from last_fetched_epoch, OFFSET_OUT_OF_RANGE, the high watermark) over the
 * same kind of log. A fake batch is 16 bytes: int64 base offset, int32 record count, int32 leader
 * epoch; a records blob is batches back to back, so "byte for byte" comparisons are meaningful.
 */
import type { ManualTime } from '../../host/io/time.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import type {
  LeaderEndPoint, LeaderOffset, LeaderResult, ReplicaFetchPartitionData, ReplicaFetchRequest, ReplicaFetchResponse,
} from '../../host/replication/leader-end-point.js';
import type { FetcherPartition } from '../../host/replication/partition-fetch-state.js';

export interface FakeBatch {
  readonly baseOffset: number;
  readonly count: number;
  readonly epoch: number;
}

export function encodeBatches(batches: readonly FakeBatch[]): Uint8Array {
  const bytes = new Uint8Array(16 * batches.length);
  const view = new DataView(bytes.buffer);
  batches.forEach((batch, i) => {
    view.setBigInt64(i * 16, BigInt(batch.baseOffset));
    view.setInt32(i * 16 + 8, batch.count);
    view.setInt32(i * 16 + 12, batch.epoch);
  });
  return bytes;
}

export function decodeBatches(bytes: Uint8Array): FakeBatch[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const batches: FakeBatch[] = [];
  for (let at = 0; at + 16 <= bytes.length; at += 16) {
    batches.push({ baseOffset: Number(view.getBigInt64(at)), count: view.getInt32(at + 8), epoch: view.getInt32(at + 12) });
  }
  return batches;
}

/** A log of fake batches with Kafka's offset rules and an epoch cache derived from the batches. */
export class FakeLogState {
  batches: FakeBatch[] = [];
  logStartOffset = 0;
  private emptyEnd = 0;
  highWatermark = 0;

  get logEndOffset(): number {
    const last = this.batches[this.batches.length - 1];
    return last === undefined ? this.emptyEnd : last.baseOffset + last.count;
  }

  /** Appends `count` records in one batch of `epoch`. */
  appendBatch(count: number, epoch: number): void {
    this.batches.push({ baseOffset: this.logEndOffset, count, epoch });
  }

  latestEpoch(): number {
    return this.batches[this.batches.length - 1]?.epoch ?? -1;
  }

  endOffsetForEpoch(epoch: number): { epoch: number; endOffset: number } | null {
    let found: FakeBatch | undefined;
    for (const batch of this.batches) if (batch.epoch <= epoch) found = batch;
    if (found === undefined) return null;
    const next = this.batches.find((batch) => batch.epoch > found!.epoch);
    return { epoch: found.epoch, endOffset: next === undefined ? this.logEndOffset : next.baseOffset };
  }

  truncateTo(offset: number): void {
    this.batches = this.batches.filter((batch) => batch.baseOffset + batch.count <= offset);
    if (this.batches.length === 0) this.emptyEnd = Math.min(this.emptyEnd, offset);
    this.highWatermark = Math.min(this.highWatermark, this.logEndOffset);
    this.logStartOffset = Math.min(this.logStartOffset, this.logEndOffset);
  }

  truncateFullyAndStartAt(offset: number): void {
    this.batches = [];
    this.emptyEnd = offset;
    this.logStartOffset = offset;
    this.highWatermark = offset;
  }
}

/** A follower replica over a {@link FakeLogState}. */
export class FakeReplica implements FetcherPartition {
  readonly log = new FakeLogState();
  appendError = ErrorCode.NONE;
  readonly calls: string[] = [];

  constructor(readonly topic: string, readonly partition: number) {}

  get logStartOffset(): number {
    return this.log.logStartOffset;
  }

  get logEndOffset(): number {
    return this.log.logEndOffset;
  }

  get highWatermark(): number {
    return this.log.highWatermark;
  }

  get latestEpoch(): number {
    return this.log.latestEpoch();
  }

  endOffsetForEpoch(epoch: number): { leaderEpoch: number; endOffset: number } | null {
    const found = this.log.endOffsetForEpoch(epoch);
    return found === null ? null : { leaderEpoch: found.epoch, endOffset: found.endOffset };
  }

  appendRecordsAsFollower(records: Uint8Array): { errorCode: number } {
    if (this.appendError !== ErrorCode.NONE) return { errorCode: this.appendError };
    const batches = decodeBatches(records);
    if (batches[0]!.baseOffset < this.log.logEndOffset) return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE };
    this.calls.push(`append ${batches[0]!.baseOffset}`);
    this.log.batches.push(...batches);
    return { errorCode: ErrorCode.NONE };
  }

  truncateTo(offset: number): void {
    this.calls.push(`truncateTo ${offset}`);
    this.log.truncateTo(offset);
  }

  truncateFullyAndStartAt(offset: number): void {
    this.calls.push(`truncateFullyAndStartAt ${offset}`);
    this.log.truncateFullyAndStartAt(offset);
  }

  updateFollowerHighWatermark(leaderHighWatermark: number): void {
    this.log.highWatermark = Math.max(this.log.highWatermark, Math.min(leaderHighWatermark, this.log.logEndOffset));
  }
}

type Scripted = LeaderResult<ReplicaFetchResponse> | ((request: ReplicaFetchRequest) => LeaderResult<ReplicaFetchResponse>);

/** A leader broker with one log per partition, answering as Kafka's leader would. */
export class FakeLeader implements LeaderEndPoint {
  readonly logs = new Map<string, FakeLogState>();
  readonly epochs = new Map<string, number>();
  readonly requests: ReplicaFetchRequest[] = [];
  readonly listOffsets: string[] = [];
  /** Answers used before the honest ones, first first. */
  readonly script: Scripted[] = [];
  /** The latest offset ListOffsets gives (default the log end offset). */
  latestOffsetOverride: number | null = null;

  constructor(readonly brokerId: number) {}

  /** The leader's log of `topic-partition`, created at `epoch`. */
  log(topic: string, partition: number, epoch = 0): FakeLogState {
    const key = `${topic}-${partition}`;
    let log = this.logs.get(key);
    if (log === undefined) {
      log = new FakeLogState();
      this.logs.set(key, log);
      this.epochs.set(key, epoch);
    }
    return log;
  }

  fetch(request: ReplicaFetchRequest): Promise<LeaderResult<ReplicaFetchResponse>> {
    this.requests.push(request);
    const scripted = this.script.shift();
    if (scripted !== undefined) return Promise.resolve(typeof scripted === 'function' ? scripted(request) : scripted);
    return Promise.resolve({ kind: 'response', body: { errorCode: 0, partitions: request.partitions.map((p) => this.answer(p)) } });
  }

  fetchEarliestOffset(topic: string, partition: number): Promise<LeaderResult<LeaderOffset>> {
    this.listOffsets.push(`earliest ${topic}-${partition}`);
    return Promise.resolve({ kind: 'response', body: { errorCode: 0, offset: this.log(topic, partition).logStartOffset } });
  }

  fetchLatestOffset(topic: string, partition: number): Promise<LeaderResult<LeaderOffset>> {
    this.listOffsets.push(`latest ${topic}-${partition}`);
    return Promise.resolve({ kind: 'response', body: { errorCode: 0, offset: this.latestOffsetOverride ?? this.log(topic, partition).logEndOffset } });
  }

  private answer(p: ReplicaFetchRequest['partitions'][number]): ReplicaFetchPartitionData {
    const key = `${p.topic}-${p.partition}`;
    const log = this.logs.get(key);
    const none = { topic: p.topic, partition: p.partition, highWatermark: -1, logStartOffset: -1, divergingEpoch: null, records: null };
    if (log === undefined) return { ...none, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
    const epoch = this.epochs.get(key)!;
    if (p.currentLeaderEpoch < epoch) return { ...none, errorCode: ErrorCode.FENCED_LEADER_EPOCH };
    if (p.currentLeaderEpoch > epoch) return { ...none, errorCode: ErrorCode.UNKNOWN_LEADER_EPOCH };
    const base = { topic: p.topic, partition: p.partition, errorCode: 0, highWatermark: log.highWatermark, logStartOffset: log.logStartOffset };
    if (p.lastFetchedEpoch >= 0) {
      const end = log.endOffsetForEpoch(p.lastFetchedEpoch);
      const diverging = end === null ? { epoch: -1, endOffset: -1 } : end;
      if (end === null || end.epoch !== p.lastFetchedEpoch || end.endOffset < p.fetchOffset) {
        return { ...base, divergingEpoch: diverging, records: null };
      }
    }
    if (p.fetchOffset < log.logStartOffset || p.fetchOffset > log.logEndOffset) return { ...none, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE };
    const batches = log.batches.filter((batch) => batch.baseOffset + batch.count > p.fetchOffset).slice(0, Math.max(1, Math.floor(p.partitionMaxBytes / 16)));
    return { ...base, divergingEpoch: null, records: encodeBatches(batches) };
  }
}

/** Lets a fetcher run `rounds` rounds under a ManualTime (microtasks, then its deferred yield). */
export async function pump(time: ManualTime, rounds = 1): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    time.runDeferred();
    await new Promise((resolve) => setImmediate(resolve));
  }
}
