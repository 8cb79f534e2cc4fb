/**
 * Choosing a partition for a record, as Kafka's Java producer does:
 * - an explicit partition wins;
 * - a non-null key: murmur2(key) mod partition count (Java's BuiltInPartitioner.partitionForKey),
 *   so keys map like every Java-compatible client;
 * - a null key: the *sticky* partitioner (KIP-480): keep sending to one partition until its batch
 *   is closed (full or sent), then switch to another, so null-key records form big batches
 *   instead of one tiny batch per partition. Partitions with a leader are preferred.
 * A custom partitioner may be given; returning undefined falls back to these rules.
 */
import { murmur2Partition } from './murmur2.js';

export interface PartitionerArgs {
  topic: string;
  /** Serialized key (null = no key). */
  key: Uint8Array | null;
  value: Uint8Array | null;
  partitionCount: number;
  /** Partitions that currently have a leader (a subset of 0..partitionCount-1). */
  availablePartitions: number[];
}

/** A custom partitioner: a partition in [0, partitionCount), or undefined for the default rules. */
export type CustomPartitioner = (args: PartitionerArgs) => number | undefined;

export class DefaultPartitioner {
  private readonly sticky = new Map<string, number>();

  constructor(private readonly random: () => number = Math.random) {}

  /** The partition for a record without an explicit partition. */
  partition(args: PartitionerArgs): number {
    if (args.key !== null) return murmur2Partition(args.key, args.partitionCount);
    const current = this.sticky.get(args.topic);
    if (current !== undefined && current < args.partitionCount) return current;
    return this.pickSticky(args.topic, args.partitionCount, args.availablePartitions, -1);
  }

  /**
   * Called when the batch of `partition` closed (filled up or was drained for sending): if it was
   * the topic's sticky partition, move to another one (KIP-480's onNewBatch).
   */
  onBatchClosed(topic: string, partition: number, partitionCount: number, availablePartitions: number[]): void {
    if (this.sticky.get(topic) !== partition) return;
    this.pickSticky(topic, partitionCount, availablePartitions, partition);
  }

  private pickSticky(topic: string, partitionCount: number, available: number[], previous: number): number {
    const pool = (available.length > 0 ? available : Array.from({ length: partitionCount }, (_, i) => i))
      .filter((p) => p < partitionCount);
    const candidates = pool.length > 1 ? pool.filter((p) => p !== previous) : pool;
    const chosen = candidates[Math.floor(this.random() * candidates.length)] ?? 0;
    this.sticky.set(topic, chosen);
    return chosen;
  }
}
