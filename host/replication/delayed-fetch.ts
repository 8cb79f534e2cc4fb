import { DelayedOperation } from './delayed-operation.js';
import { partitionKey } from './partition.js';
import type { FetchParams, FetchPartitionResult } from './replication-types.js';

/** Fetches of up to this many partitions find a key by linear search. */
const MAX_LINEAR_SEARCH_KEYS = 16;

/**
 * What woke a DelayedFetch: bytes that just became readable in one partition, for consumers
 * (below the high watermark) and for followers (appended: followers read up to the log end).
 */
export interface FetchWakeEvent {
  newlyVisibleBytes: number;
  newlyAppendedBytes: number;
}

/**
 * Kafka's DelayedFetch: a Fetch that had fewer than `minBytes` to return waits until enough
 * bytes become readable in the partitions it asked for, or `maxWaitMs` passes, then reads all
 * its partitions again and responds.
 *
 * Bytes are counted from wake events (the size of batches made visible by an append / a high
 * watermark move), each partition's share capped at its partitionMaxBytes, so waiting costs no
 * log reads; the one real read happens at completion. A partition that disappears (deleted,
 * leadership lost) completes the fetch at once so the client learns the error.
 */
export class DelayedFetch extends DelayedOperation<FetchWakeEvent> {
  /** Distinct partition keys; `caps` and `bytes` are indexed alike (arrays, not Maps: one of these
   * is made per long poll, thousands a second, and most watch one partition). */
  private readonly watchedKeys: string[];
  private readonly caps: number[];
  private readonly bytes: number[];
  /** Key → index, only for fetches of many partitions (a linear search serves the rest). */
  private readonly indexByKey: Map<string, number> | null;
  private accumulatedBytes: number;
  /** A follower's fetch counts appended bytes, a consumer's visible ones. */
  private readonly fromFollower: boolean;

  /**
   * @param params the Fetch being answered
   * @param bytesAlreadyReadable what the first read found (less than params.minBytes)
   * @param partitionExists whether a partition is still led here
   * @param read reads every partition of `params` (ReplicaManager.readFromLocalLog; for many
   *   partitions a promise of the read done in slices across event-loop turns)
   * @param respond delivers the response (or its promise), exactly once
   */
  constructor(
    private readonly params: FetchParams,
    bytesAlreadyReadable: number,
    private readonly partitionExists: (topic: string, partition: number) => boolean,
    private readonly read: (params: FetchParams) => FetchPartitionResult[] | Promise<FetchPartitionResult[]>,
    private readonly respond: (results: FetchPartitionResult[] | Promise<FetchPartitionResult[]>) => void,
  ) {
    super(Math.max(0, params.maxWaitMs));
    this.accumulatedBytes = bytesAlreadyReadable;
    this.fromFollower = (params.replicaId ?? -1) >= 0;
    // Exact-size arrays (map), not grown ones (push), for the usual request without repeats.
    this.watchedKeys = params.partitions.map((p) => partitionKey(p.topic, p.partition));
    this.caps = params.partitions.map((p) => p.partitionMaxBytes);
    if (this.watchedKeys.length > 1 && new Set(this.watchedKeys).size < this.watchedKeys.length) {
      // A partition asked for twice: one entry, with the larger cap.
      const capByKey = new Map<string, number>();
      this.watchedKeys.forEach((key, i) => capByKey.set(key, Math.max(capByKey.get(key) ?? 0, this.caps[i]!)));
      this.watchedKeys = [...capByKey.keys()];
      this.caps = [...capByKey.values()];
    }
    this.bytes = this.caps.map(() => 0);
    this.indexByKey = this.watchedKeys.length > MAX_LINEAR_SEARCH_KEYS ? new Map(this.watchedKeys.map((key, i) => [key, i])) : null;
  }

  /** Keys (`topic-partition`) to watch. */
  get keys(): readonly string[] {
    return this.watchedKeys;
  }

  private indexOf(key: string): number {
    return this.indexByKey === null ? this.watchedKeys.indexOf(key) : this.indexByKey.get(key) ?? -1;
  }

  tryComplete(key?: string, event?: FetchWakeEvent): boolean {
    if (this.isCompleted) return true;
    const newBytes = event === undefined ? 0 : this.fromFollower ? event.newlyAppendedBytes : event.newlyVisibleBytes;
    if (key !== undefined && newBytes > 0) {
      const index = this.indexOf(key);
      if (index >= 0) {
        const before = this.bytes[index]!;
        const after = Math.min(this.caps[index]!, before + newBytes);
        this.bytes[index] = after;
        this.accumulatedBytes += after - before;
      }
    }
    for (const p of this.params.partitions) {
      if (!this.partitionExists(p.topic, p.partition)) {
        this.forceComplete();
        return true;
      }
    }
    if (this.accumulatedBytes >= this.params.minBytes) {
      this.forceComplete();
      return true;
    }
    return false;
  }

  protected onComplete(): void {
    this.respond(this.read(this.params));
  }
}
