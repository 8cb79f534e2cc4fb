import { DelayedOperation } from './delayed-operation.js';
import { partitionKey } from './partition.js';
import type { FetchParams, FetchPartitionResult } from './replica-manager.js';

/** What woke a DelayedFetch: bytes that just became readable for a consumer in one partition. */
export interface FetchWakeEvent {
  newlyVisibleBytes: number;
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
  private readonly bytesByKey = new Map<string, number>();
  private readonly maxBytesByKey = new Map<string, number>();
  private accumulatedBytes: number;

  /**
   * @param params the Fetch being answered
   * @param bytesAlreadyReadable what the first read found (less than params.minBytes)
   * @param partitionExists whether a partition is still led here
   * @param read reads every partition of `params` (ReplicaManager.readFromLocalLog)
   * @param respond delivers the response, exactly once
   */
  constructor(
    private readonly params: FetchParams,
    bytesAlreadyReadable: number,
    private readonly partitionExists: (topic: string, partition: number) => boolean,
    private readonly read: (params: FetchParams) => FetchPartitionResult[],
    private readonly respond: (results: FetchPartitionResult[]) => void,
  ) {
    super(Math.max(0, params.maxWaitMs));
    this.accumulatedBytes = bytesAlreadyReadable;
    for (const p of params.partitions) {
      const key = partitionKey(p.topic, p.partition);
      this.maxBytesByKey.set(key, Math.max(this.maxBytesByKey.get(key) ?? 0, p.partitionMaxBytes));
    }
  }

  /** Keys (`topic-partition`) to watch. */
  get keys(): string[] {
    return [...this.maxBytesByKey.keys()];
  }

  tryComplete(key?: string, event?: FetchWakeEvent): boolean {
    if (this.isCompleted) return true;
    if (key !== undefined && event !== undefined && event.newlyVisibleBytes > 0) {
      const cap = this.maxBytesByKey.get(key);
      if (cap !== undefined) {
        const before = this.bytesByKey.get(key) ?? 0;
        const after = Math.min(cap, before + event.newlyVisibleBytes);
        this.bytesByKey.set(key, after);
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
