/**
 * BrokersToIsrs (Kafka's name, org.apache.kafka.controller.BrokersToIsrs): which partitions have
 * a broker in their ISR, and which partitions a broker leads (broker -1: the partitions without a
 * leader), kept up to date as the MetadataImage replays partition records. Fencing, unfencing,
 * controlled shutdown and unregistering a broker then touch the partitions concerned only,
 * instead of walking every partition of the cluster (issue 15: no request does work proportional
 * to the cluster's size when it concerns a few partitions).
 *
 * ```
 * isrMembers: brokerId → topicId → partition ids whose ISR holds brokerId
 * leaders:    brokerId (or -1) → topicId → partition ids it leads (-1: led by nobody)
 * ```
 * Each update is O(replicas of the partition); queries are O(answer), plus one 32-bit word per 32
 * partition ids of each topic concerned (the partition id sets are bitmaps).
 */
import type { PartitionRegistration } from './metadata-image.js';

/** One partition named by its topic id. */
export interface TopicIdPartition {
  readonly topicId: string;
  readonly partitionId: number;
}

/**
 * A set of one topic's partition ids (dense non-negative integers) as a growable bitmap: add and
 * delete are O(1) without the rehashing a Set does while a topic's thousands of partitions are
 * added one by one, and it takes one bit per partition; iteration is in ascending id order.
 */
class PartitionIdSet {
  private words: Uint32Array;
  /** Ids in the set. */
  size = 0;

  constructor(words = new Uint32Array(2), size = 0) {
    this.words = words;
    this.size = size;
  }

  add(partitionId: number): void {
    const word = partitionId >>> 5;
    if (word >= this.words.length) {
      const grown = new Uint32Array(Math.max(word + 1, this.words.length * 2));
      grown.set(this.words);
      this.words = grown;
    }
    const bit = 1 << (partitionId & 31);
    if ((this.words[word]! & bit) !== 0) return;
    this.words[word]! |= bit;
    this.size++;
  }

  delete(partitionId: number): void {
    const word = partitionId >>> 5;
    const bit = 1 << (partitionId & 31);
    if (word >= this.words.length || (this.words[word]! & bit) === 0) return;
    this.words[word]! &= ~bit;
    this.size--;
  }

  /** Calls `visit` with every id, ascending. */
  forEach(visit: (partitionId: number) => void): void {
    const words = this.words;
    for (let word = 0; word < words.length; word++) {
      let bits = words[word]!;
      while (bits !== 0) {
        const low = bits & -bits;
        visit(word * 32 + 31 - Math.clz32(low));
        bits ^= low;
      }
    }
  }

  copy(): PartitionIdSet {
    return new PartitionIdSet(this.words.slice(), this.size);
  }
}

type Index = Map<number, Map<string, PartitionIdSet>>;

function add(index: Index, brokerId: number, topicId: string, partitionId: number): void {
  let topics = index.get(brokerId);
  if (topics === undefined) index.set(brokerId, (topics = new Map()));
  let partitions = topics.get(topicId);
  if (partitions === undefined) topics.set(topicId, (partitions = new PartitionIdSet()));
  partitions.add(partitionId);
}

function remove(index: Index, brokerId: number, topicId: string, partitionId: number): void {
  const topics = index.get(brokerId);
  const partitions = topics?.get(topicId);
  if (partitions === undefined) return;
  partitions.delete(partitionId);
  if (partitions.size > 0) return;
  topics!.delete(topicId);
  if (topics!.size === 0) index.delete(brokerId);
}

function list(index: Index, brokerId: number): TopicIdPartition[] {
  const result: TopicIdPartition[] = [];
  for (const [topicId, partitions] of index.get(brokerId) ?? []) {
    partitions.forEach((partitionId) => result.push({ topicId, partitionId }));
  }
  return result;
}

function copyIndex(index: Index): Index {
  const copy: Index = new Map();
  for (const [brokerId, topics] of index) {
    const topicsCopy = new Map<string, PartitionIdSet>();
    for (const [topicId, partitions] of topics) topicsCopy.set(topicId, partitions.copy());
    copy.set(brokerId, topicsCopy);
  }
  return copy;
}

/** The two indexes of the file header, kept by MetadataImage's replay through {@link BrokersToIsrs.update}. */
export class BrokersToIsrs {
  private isrMembers: Index = new Map();
  private leaders: Index = new Map();

  /**
   * Moves one partition from its `previous` registration (undefined: new) to `next` (undefined:
   * removed with its topic).
   */
  update(topicId: string, partitionId: number, previous: PartitionRegistration | undefined, next: PartitionRegistration | undefined): void {
    if (previous !== undefined) {
      for (const brokerId of previous.isr) if (next === undefined || !next.isr.includes(brokerId)) remove(this.isrMembers, brokerId, topicId, partitionId);
      if (next === undefined || next.leader !== previous.leader) remove(this.leaders, previous.leader, topicId, partitionId);
    }
    if (next !== undefined) {
      for (const brokerId of next.isr) add(this.isrMembers, brokerId, topicId, partitionId);
      add(this.leaders, next.leader, topicId, partitionId);
    }
  }

  /** The partitions whose ISR holds `brokerId`, in no particular order. */
  partitionsWithBrokerInIsr(brokerId: number): TopicIdPartition[] {
    return list(this.isrMembers, brokerId);
  }

  /** The partitions `brokerId` leads (-1: those without a leader), in no particular order. */
  partitionsLedBy(brokerId: number): TopicIdPartition[] {
    return list(this.leaders, brokerId);
  }

  /** True when `brokerId` leads at least one partition. O(1). */
  leadsAny(brokerId: number): boolean {
    return this.leaders.has(brokerId);
  }

  /** An independent copy (MetadataImage.copy). */
  copy(): BrokersToIsrs {
    const copy = new BrokersToIsrs();
    copy.isrMembers = copyIndex(this.isrMembers);
    copy.leaders = copyIndex(this.leaders);
    return copy;
  }

  /** Takes `other`'s content (MetadataImage.assign). */
  assign(other: BrokersToIsrs): void {
    this.isrMembers = copyIndex(other.isrMembers);
    this.leaders = copyIndex(other.leaders);
  }
}
