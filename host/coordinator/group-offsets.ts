import { CONSUMER_PROTOCOL_TYPE } from './consumer-protocol.js';
import type { OffsetAndMetadata, TopicPartitionOffset, TopicPartitionRef } from './coordinator-types.js';
import type { GroupMetadata } from './group-metadata.js';
import { GroupState } from './group-state.js';
import { TopicPartitionMap } from './topic-partition-map.js';

/**
 * The committed offsets of one group (what Kafka's OffsetMetadataManager keeps per group id),
 * and the commits whose records are being appended. Committed offsets change only through
 * replay of OffsetCommit records (loading, or an append that completed) and through removals
 * whose tombstones the caller writes.
 */
export class GroupOffsets {
  readonly offsets = new TopicPartitionMap<OffsetAndMetadata>();
  /** Offsets written to the log but not yet acknowledged (OffsetFetch RequireStable answers 88). */
  private readonly pendingOffsetCommits = new TopicPartitionMap<OffsetAndMetadata>();
  /**
   * Offsets committed in a transaction (TxnOffsetCommit), by producer id: invisible until the
   * transaction's COMMIT marker reaches `__consumer_offsets`, dropped by its ABORT marker
   * (Kafka's pendingTransactionalOffsetCommits). OffsetFetch RequireStable answers 88 for them.
   */
  private readonly pendingTransactionalOffsetCommits = new Map<number, TopicPartitionMap<OffsetAndMetadata>>();

  /** The committed offset of a partition; undefined when none. */
  offset(topic: string, partition: number): OffsetAndMetadata | undefined {
    return this.offsets.get(topic, partition);
  }

  get hasOffsets(): boolean {
    return this.offsets.size > 0 || this.pendingOffsetCommits.size > 0 || this.pendingTransactionalOffsetCommits.size > 0;
  }

  /** A commit of this partition is being appended, or waits for its transaction to end. */
  hasPendingOffsetCommit(topic: string, partition: number): boolean {
    if (this.pendingOffsetCommits.has(topic, partition)) return true;
    for (const pending of this.pendingTransactionalOffsetCommits.values()) if (pending.has(topic, partition)) return true;
    return false;
  }

  /** Producer ids with offsets pending in an open transaction. */
  get transactionalProducerIds(): number[] {
    return [...this.pendingTransactionalOffsetCommits.keys()];
  }

  /** A transactional commit written (or replayed): pending until its transaction ends. */
  replayTransactionalOffsetCommit(producerId: number, topic: string, partition: number, offsetAndMetadata: OffsetAndMetadata): void {
    let pending = this.pendingTransactionalOffsetCommits.get(producerId);
    if (pending === undefined) {
      pending = new TopicPartitionMap();
      this.pendingTransactionalOffsetCommits.set(producerId, pending);
    }
    pending.set(topic, partition, offsetAndMetadata);
  }

  /** The append of a transactional commit failed: it is dropped unless a later one replaced it. */
  failTransactionalOffsetWrite(producerId: number, topic: string, partition: number, offsetAndMetadata: OffsetAndMetadata): void {
    const pending = this.pendingTransactionalOffsetCommits.get(producerId);
    if (pending?.get(topic, partition) !== offsetAndMetadata) return;
    pending.delete(topic, partition);
    if (pending.size === 0) this.pendingTransactionalOffsetCommits.delete(producerId);
  }

  /**
   * The transaction of `producerId` ended (its marker on `__consumer_offsets`): on commit its
   * pending offsets become the committed ones, on abort they are dropped (Kafka's
   * completePendingTxnOffsetCommit). Returns how many were pending.
   */
  completeTransaction(producerId: number, commit: boolean): number {
    const pending = this.pendingTransactionalOffsetCommits.get(producerId);
    if (pending === undefined) return 0;
    this.pendingTransactionalOffsetCommits.delete(producerId);
    if (commit) for (const [topic, partition, offsetAndMetadata] of pending.entries()) this.offsets.set(topic, partition, offsetAndMetadata);
    return pending.size;
  }

  /** Number of committed offsets (staged commits not counted). */
  get size(): number {
    return this.offsets.size;
  }

  /** A committed offset read from __consumer_offsets (replay), or whose append completed. */
  replayOffsetCommit(topic: string, partition: number, offsetAndMetadata: OffsetAndMetadata): void {
    this.offsets.set(topic, partition, offsetAndMetadata);
  }

  /** A tombstone read from __consumer_offsets (replay): the offset is gone. */
  replayOffsetTombstone(topic: string, partition: number): void {
    this.offsets.delete(topic, partition);
  }

  /** Stages commits whose records are being appended. */
  prepareOffsetCommit(offsets: readonly TopicPartitionOffset[]): void {
    for (const { topic, partition, offsetAndMetadata } of offsets) {
      this.pendingOffsetCommits.set(topic, partition, offsetAndMetadata);
    }
  }

  /**
   * The append of a commit succeeded: it becomes the committed offset unless the partition's
   * offset was deleted meanwhile (Kafka's onOffsetCommitAppend).
   */
  onOffsetCommitAppend(topic: string, partition: number, offsetAndMetadata: OffsetAndMetadata): void {
    const staged = this.pendingOffsetCommits.get(topic, partition);
    if (staged === undefined) return;
    this.replayOffsetCommit(topic, partition, offsetAndMetadata);
    if (staged === offsetAndMetadata) this.pendingOffsetCommits.delete(topic, partition);
  }

  /** The append of a commit failed: unstage it unless a later commit replaced it. */
  failPendingOffsetWrite(topic: string, partition: number, offsetAndMetadata: OffsetAndMetadata): void {
    if (this.pendingOffsetCommits.get(topic, partition) === offsetAndMetadata) {
      this.pendingOffsetCommits.delete(topic, partition);
    }
  }

  /** Removes the offsets of `partitions` (and staged commits for them); returns those that existed. */
  removeOffsets(partitions: readonly TopicPartitionRef[]): TopicPartitionOffset[] {
    const removed: TopicPartitionOffset[] = [];
    for (const { topic, partition } of partitions) {
      this.pendingOffsetCommits.delete(topic, partition);
      for (const [producerId, pending] of this.pendingTransactionalOffsetCommits) {
        if (pending.delete(topic, partition) && pending.size === 0) this.pendingTransactionalOffsetCommits.delete(producerId);
      }
      const offsetAndMetadata = this.offsets.get(topic, partition);
      if (offsetAndMetadata !== undefined) {
        this.offsets.delete(topic, partition);
        removed.push({ topic, partition, offsetAndMetadata });
      }
    }
    return removed;
  }

  /** Removes every committed offset (and the staged commits of those partitions); returns them. */
  removeAllOffsets(): TopicPartitionOffset[] {
    return this.removeOffsets([...this.offsets.entries()].map(([topic, partition]) => ({ topic, partition })));
  }

  /**
   * Removes and returns the offsets that expired at `nowMs` (Kafka 2.1+ semantics, KIP-211):
   * - Empty group with a protocol type: `retentionMs` after the group became Empty (or after the
   *   commit when that time is unknown);
   * - Stable `consumer` group with known subscriptions: offsets of topics nobody subscribes to,
   *   `retentionMs` after their commit;
   * - group used only for offset storage (no protocol type): `retentionMs` after the commit;
   * - offsets committed with an explicit retention (OffsetCommit v2-v4) expire at their
   *   expireTimestamp instead.
   * Offsets with a commit in flight never expire.
   */
  removeExpiredOffsets(group: GroupMetadata, nowMs: number, retentionMs: number): TopicPartitionOffset[] {
    const expired = (baseTimestamp: (offset: OffsetAndMetadata) => number, subscribed: ReadonlySet<string>) => {
      const result: TopicPartitionRef[] = [];
      for (const [topic, partition, offsetAndMetadata] of this.offsets.entries()) {
        if (subscribed.has(topic) || this.pendingOffsetCommits.has(topic, partition)) continue;
        const isExpired = offsetAndMetadata.expireTimestampMs === null
          ? nowMs - baseTimestamp(offsetAndMetadata) >= retentionMs
          : nowMs >= offsetAndMetadata.expireTimestampMs;
        if (isExpired) result.push({ topic, partition });
      }
      return result;
    };
    const none = new Set<string>();
    let partitions: TopicPartitionRef[];
    if (group.protocolType !== null && group.is(GroupState.Empty)) {
      const becameEmptyMs = group.currentStateTimestampMs;
      partitions = expired((offset) => becameEmptyMs ?? offset.commitTimestampMs, none);
    } else if (group.protocolType === CONSUMER_PROTOCOL_TYPE && group.subscribedTopics !== null && group.is(GroupState.Stable)) {
      partitions = expired((offset) => offset.commitTimestampMs, group.subscribedTopics);
    } else if (group.protocolType === null) {
      partitions = expired((offset) => offset.commitTimestampMs, none);
    } else {
      partitions = [];
    }
    return this.removeOffsets(partitions);
  }
}
