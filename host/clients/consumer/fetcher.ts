/**
 * Kafka's Fetcher: per assigned partition a fetch position; Fetch requests (one in flight per
 * leader, sessionless, long-polling fetch.max.wait.ms) for partitions that have a position and are
 * not paused; decoded records buffered per partition and handed out in offset order, moving the
 * position past each record handed out. Prefetch (as librdkafka does): when an answer arrives, the
 * next fetch (from past its last batch) is sent before the answer is decoded, and at most two
 * answers per partition wait buffered.
 *
 * Batches are whole on the wire (a compressed batch may start before the fetch offset: records
 * below the position are skipped). Control batches (transaction markers) are never returned; with
 * read_committed, records of aborted transactions are dropped using the response's aborted
 * transaction list (Java's CompletedFetch.nextFetchedRecord).
 */
import { ApiKey } from '../../protocol/generated/api-keys.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { FetchResponse } from '../../protocol/generated/fetch.js';
import { BatchLayout, ControlRecordType, decodeRecords, iterateBatches, readBatchHeader, readControlRecordType, type KafkaRecord } from '../../record/records.js';
import type { Cluster } from '../cluster.js';
import { KafkaError } from '../errors.js';

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** A record as fetched, before deserialization. */
export interface FetchedRecord extends KafkaRecord {
  topic: string;
  partition: number;
  /** 0 CreateTime, 1 LogAppendTime. */
  timestampType: number;
  leaderEpoch: number;
}

export interface FetcherOptions {
  /** fetch.min.bytes. */
  minBytes: number;
  /** fetch.max.bytes. */
  maxBytes: number;
  /** fetch.max.wait.ms. */
  maxWaitMs: number;
  /** max.partition.fetch.bytes. */
  partitionMaxBytes: number;
  /** 0 read_uncommitted, 1 read_committed. */
  isolationLevel: number;
  /** check.crcs. */
  checkCrcs: boolean;
  /** client.rack. */
  rackId: string;
}

interface PartitionState {
  topic: string;
  partition: number;
  /** Next offset to hand out; null until initialized (committed offset or reset policy). */
  position: number | null;
  paused: boolean;
  /** Records fetched and not yet handed out, in offset order. */
  buffer: FetchedRecord[];
  /** Index of the next buffered record to hand out (records before it are spent). */
  bufferIndex: number;
  /** Position after the buffer is drained (past skipped control / aborted records too). */
  bufferEndOffset: number;
  highWatermark: number;
  logStartOffset: number;
  lastStableOffset: number;
  /**
   * Offset the next Fetch asks for: the position, or past what is already fetched (buffered or
   * being decoded) so the next fetch overlaps the caller's work on this one.
   */
  nextFetchOffset: number;
  /** Fetch answers with records buffered since the buffer was last empty (prefetch bound). */
  bufferedFetches: number;
  /** Set when the position was out of range and must be reset by the policy. */
  needsReset: boolean;
}

/** Where a fetch answer ends: past its last whole batch (-1 when it holds none). */
function fetchedEndOffset(records: Uint8Array): number {
  let end = -1;
  for (const bytes of iterateBatches(records)) {
    const lastOffset = bytes.readInt32BE(BatchLayout.BASE_OFFSET) * 4294967296 + bytes.readUInt32BE(BatchLayout.BASE_OFFSET + 4) + bytes.readInt32BE(BatchLayout.LAST_OFFSET_DELTA);
    if (lastOffset + 1 > end) end = lastOffset + 1;
  }
  return end;
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** Leadership errors after which metadata is refreshed and the fetch retried. */
const METADATA_ERRORS = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.UNKNOWN_LEADER_EPOCH, ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.REPLICA_NOT_AVAILABLE,
]);

export class Fetcher {
  private readonly states = new Map<string, PartitionState>();
  private readonly inFlightNodes = new Set<number>();
  private readonly waiters: (() => void)[] = [];
  /** Non-retriable errors to surface from the next poll. */
  private readonly errors: Error[] = [];
  private metadataRefresh: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly cluster: Cluster, private readonly options: FetcherOptions) {}

  /** Replaces the assigned partitions, keeping the state of partitions that stay. */
  setAssignment(partitions: TopicPartition[]): void {
    const next = new Map<string, PartitionState>();
    for (const { topic, partition } of partitions) {
      const key = partitionKey(topic, partition);
      next.set(key, this.states.get(key) ?? {
        topic, partition, position: null, paused: false, buffer: [], bufferIndex: 0, bufferEndOffset: -1, nextFetchOffset: -1, bufferedFetches: 0,
        highWatermark: -1, logStartOffset: -1, lastStableOffset: -1, needsReset: false,
      });
    }
    this.states.clear();
    for (const [key, state] of next) this.states.set(key, state);
  }

  assignment(): TopicPartition[] {
    return [...this.states.values()].map(({ topic, partition }) => ({ topic, partition }));
  }

  isAssigned(topic: string, partition: number): boolean {
    return this.states.has(partitionKey(topic, partition));
  }

  private state(topic: string, partition: number): PartitionState {
    const state = this.states.get(partitionKey(topic, partition));
    if (state === undefined) throw new RangeError(`${topic}-${partition} is not assigned to this consumer`);
    return state;
  }

  /** Partitions without a position (need the committed offset or the reset policy). */
  partitionsNeedingPosition(): TopicPartition[] {
    return [...this.states.values()].filter((s) => s.position === null).map(({ topic, partition }) => ({ topic, partition }));
  }

  /** Partitions whose position fell out of range. */
  partitionsNeedingReset(): TopicPartition[] {
    return [...this.states.values()].filter((s) => s.needsReset).map(({ topic, partition }) => ({ topic, partition }));
  }

  /** Sets the next offset to read and drops what was buffered. @throws RangeError when not assigned */
  seek(topic: string, partition: number, offset: number): void {
    const state = this.state(topic, partition);
    state.position = offset;
    state.nextFetchOffset = offset;
    state.bufferedFetches = 0;
    state.needsReset = false;
    state.buffer = [];
    state.bufferIndex = 0;
    state.bufferEndOffset = -1;
    this.wake();
  }

  /** The next offset to read (null before it is known). @throws RangeError when not assigned */
  position(topic: string, partition: number): number | null {
    return this.state(topic, partition).position;
  }

  /** Positions of assigned partitions that have one (what a commit of "everything consumed" sends). */
  positions(): { topic: string; partition: number; offset: number }[] {
    const result: { topic: string; partition: number; offset: number }[] = [];
    for (const s of this.states.values()) if (s.position !== null) result.push({ topic: s.topic, partition: s.partition, offset: s.position });
    return result;
  }

  /** High watermark and lag of a partition as of the last fetch (-1 when unknown). */
  lag(topic: string, partition: number): { highWatermark: number; lag: number } {
    const s = this.state(topic, partition);
    return { highWatermark: s.highWatermark, lag: s.highWatermark < 0 || s.position === null ? -1 : Math.max(0, s.highWatermark - s.position) };
  }

  setPaused(topic: string, partition: number, paused: boolean): void {
    this.state(topic, partition).paused = paused;
    if (!paused) this.wake();
  }

  pausedPartitions(): TopicPartition[] {
    return [...this.states.values()].filter((s) => s.paused).map(({ topic, partition }) => ({ topic, partition }));
  }

  /** Errors to throw from poll (taken once). */
  takeError(): Error | undefined {
    return this.errors.shift();
  }

  /**
   * Hands out up to `max` buffered records of unpaused partitions, moving positions past them.
   */
  drain(max: number): FetchedRecord[] {
    const out: FetchedRecord[] = [];
    for (const state of this.states.values()) {
      if (out.length >= max) break;
      if (state.paused || state.position === null) continue;
      while (state.bufferIndex < state.buffer.length && out.length < max) {
        const record = state.buffer[state.bufferIndex++]!;
        if (record.offset < state.position) continue;
        out.push(record);
        state.position = record.offset + 1;
      }
      if (state.bufferIndex >= state.buffer.length) {
        if (state.bufferEndOffset > state.position) state.position = state.bufferEndOffset;
        state.bufferedFetches = 0;
        state.buffer = [];
        state.bufferIndex = 0;
        state.bufferEndOffset = -1;
      }
    }
    return out;
  }

  /** True when some unpaused partition has records buffered. */
  hasBufferedRecords(): boolean {
    for (const state of this.states.values()) if (!state.paused && state.bufferIndex < state.buffer.length) return true;
    return false;
  }

  /** Resolves on the next fetch answer, seek, resume or wake(). */
  waitForData(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(done);
    });
  }

  /** Wakes waitForData (rebalance needed, close). */
  wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Sends Fetch requests to every leader that has fetchable partitions and no fetch in flight. */
  sendFetches(): void {
    const byLeader = new Map<number, PartitionState[]>();
    const missingLeader = new Set<string>();
    for (const state of this.states.values()) {
      // One answer may wait buffered while the next is fetched (prefetch); two is enough.
      if (state.position === null || state.paused || state.needsReset || state.bufferedFetches >= 2) continue;
      const leader = this.cluster.leaderFor(state.topic, state.partition);
      if (leader < 0 || !this.cluster.brokers.has(leader)) {
        missingLeader.add(state.topic);
        continue;
      }
      if (this.inFlightNodes.has(leader)) continue;
      // push, not a copy per partition (n²/2 for n partitions of one leader)
      const list = byLeader.get(leader);
      if (list === undefined) byLeader.set(leader, [state]);
      else list.push(state);
    }
    if (missingLeader.size > 0) this.refreshMetadata([...missingLeader]);
    for (const [leader, states] of byLeader) void this.fetchFrom(leader, states);
  }

  private refreshMetadata(topics: string[]): void {
    if (this.metadataRefresh !== null) return;
    this.metadataRefresh = this.cluster.refreshMetadata(topics).then(() => undefined, () => undefined)
      .finally(() => {
        this.metadataRefresh = null;
        this.wake();
      });
  }

  private async fetchFrom(leader: number, states: PartitionState[]): Promise<void> {
    this.inFlightNodes.add(leader);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.inFlightNodes.delete(leader);
    };
    const fetchOffsets = new Map(states.map((s) => [partitionKey(s.topic, s.partition), s.nextFetchOffset]));
    const byTopic = new Map<string, PartitionState[]>();
    for (const s of states) {
      const list = byTopic.get(s.topic);
      if (list === undefined) byTopic.set(s.topic, [s]);
      else list.push(s);
    }
    try {
      const connection = await this.cluster.connectionTo(leader, 'fetch');
      const response = await connection.request(ApiKey.Fetch, {
        replicaId: -1,
        maxWaitMs: this.options.maxWaitMs,
        minBytes: this.options.minBytes,
        maxBytes: this.options.maxBytes,
        isolationLevel: this.options.isolationLevel,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [...byTopic].map(([topic, list]) => ({
          topic,
          partitions: list.map((s) => ({
            partition: s.partition, currentLeaderEpoch: -1, fetchOffset: s.nextFetchOffset, logStartOffset: -1,
            partitionMaxBytes: this.options.partitionMaxBytes,
          })),
        })),
        forgottenTopicsData: [],
        rackId: this.options.rackId,
      }, { timeoutMs: this.cluster.options.requestTimeoutMs + this.options.maxWaitMs });
      // The node may take the next fetch (the prefetch sent from handleResponse) from here on.
      release();
      this.handleResponse(response, fetchOffsets);
    } catch {
      // Lost connection or timeout: the metadata may be stale; the next round retries.
      this.cluster.invalidate();
      this.refreshMetadata([...byTopic.keys()]);
    } finally {
      release();
      this.wake();
    }
  }

  private handleResponse(response: FetchResponse, fetchOffsets: Map<string, number>): void {
    if (response.errorCode !== ErrorCode.NONE) {
      this.errors.push(new KafkaError(response.errorCode, 'Fetch'));
      return;
    }
    const toDecode: { state: PartitionState; fetchOffset: number; records: Uint8Array; aborted: { producerId: number; firstOffset: number }[] }[] = [];
    for (const topic of response.responses) {
      for (const data of topic.partitions) {
        const key = partitionKey(topic.topic, data.partitionIndex);
        const state = this.states.get(key);
        // Unassigned, sought or reset since the request went out: the answer is stale.
        if (state === undefined || state.position === null || state.nextFetchOffset !== fetchOffsets.get(key)) continue;
        if (data.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
          state.needsReset = true;
          continue;
        }
        if (METADATA_ERRORS.has(data.errorCode)) {
          this.cluster.invalidate();
          this.refreshMetadata([topic.topic]);
          continue;
        }
        if (data.errorCode !== ErrorCode.NONE) {
          this.errors.push(new KafkaError(data.errorCode, `Fetch ${topic.topic}-${data.partitionIndex}`));
          continue;
        }
        state.highWatermark = data.highWatermark;
        state.logStartOffset = data.logStartOffset;
        state.lastStableOffset = data.lastStableOffset;
        const records = data.records;
        if (records === null || records.length === 0) continue;
        // Batch headers alone tell where the next fetch starts; it goes out before decoding.
        const endOffset = fetchedEndOffset(records);
        if (endOffset > state.nextFetchOffset) {
          state.nextFetchOffset = endOffset;
          state.bufferedFetches++;
        }
        toDecode.push({ state, fetchOffset: fetchOffsets.get(key)!, records, aborted: data.abortedTransactions ?? [] });
      }
    }
    if (toDecode.length === 0) return;
    if (!this.closed) this.sendFetches();
    for (const { state, fetchOffset, records, aborted } of toDecode) {
      try {
        this.decode(state, fetchOffset, records, aborted);
      } catch (error) {
        // Refetch from the first record not handed out (answers to the prefetch are now stale),
        // so the error repeats rather than being skipped.
        const remaining = state.buffer.length - state.bufferIndex;
        state.nextFetchOffset = remaining > 0 ? state.buffer[state.buffer.length - 1]!.offset + 1 : state.position!;
        state.bufferEndOffset = -1;
        this.errors.push(error as Error);
      }
    }
  }

  /** Stops prefetching (the consumer is closing). */
  close(): void {
    this.closed = true;
  }

  /** Buffers the records of one answer fetched from `position` (the fetch offset). */
  private decode(state: PartitionState, position: number, records: Uint8Array, aborted: { producerId: number; firstOffset: number }[]): void {
    const readCommitted = this.options.isolationLevel === 1;
    const pendingAborts = [...aborted].sort((a, b) => a.firstOffset - b.firstOffset);
    const abortedProducers = new Set<number>();
    let endOffset = position;
    if (state.bufferIndex > 0) {
      // Records already handed out go before more are appended.
      state.buffer = state.buffer.slice(state.bufferIndex);
      state.bufferIndex = 0;
    }
    const buffer = state.buffer;
    const { topic, partition } = state;
    const verify = { verifyCrc: this.options.checkCrcs };
    for (const bytes of iterateBatches(records)) {
      const peek = readBatchHeader(bytes);
      if (readCommitted && peek.lastOffset >= position) {
        while (pendingAborts.length > 0 && pendingAborts[0]!.firstOffset <= peek.lastOffset) abortedProducers.add(pendingAborts.shift()!.producerId);
      }
      // Batches below the position or of aborted transactions are still decoded (and so checked),
      // but none of their records is kept.
      const keep = !peek.isControl && peek.lastOffset >= position &&
        !(readCommitted && peek.isTransactional && abortedProducers.has(peek.producerId));
      const { timestampType, partitionLeaderEpoch: leaderEpoch } = peek;
      let controlType: number | null | undefined;
      const mark = buffer.length;
      try {
        decodeRecords(bytes, verify, (offset, timestamp, key, value, headers) => {
          if (keep) {
            // One object per record, shaped like ConsumerRecord so it can be handed out as is.
            if (offset >= position) buffer.push({ topic, partition, offset, timestamp, timestampType, key, value, headers, leaderEpoch });
          } else if (peek.isControl && controlType === undefined) {
            controlType = readControlRecordType({ offset, timestamp, key, value, headers });
          }
        });
      } catch (error) {
        // A batch is handed out whole or not at all.
        buffer.length = mark;
        throw error;
      }
      if (peek.lastOffset < position) continue;
      endOffset = Math.max(endOffset, peek.lastOffset + 1);
      if (peek.isControl && readCommitted && controlType === ControlRecordType.ABORT) abortedProducers.delete(peek.producerId);
    }
    if (state.buffer.length === 0) {
      // Only control batches or aborted records: move past them so the next fetch makes progress.
      state.position = endOffset;
      state.bufferEndOffset = -1;
    } else {
      state.bufferEndOffset = endOffset;
    }
  }
}
