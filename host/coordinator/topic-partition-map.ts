/** A map keyed by (topic, partition), kept as topic -> partition -> value. */
export class TopicPartitionMap<V> {
  private readonly byTopic = new Map<string, Map<number, V>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(topic: string, partition: number): V | undefined {
    return this.byTopic.get(topic)?.get(partition);
  }

  has(topic: string, partition: number): boolean {
    return this.byTopic.get(topic)?.has(partition) ?? false;
  }

  set(topic: string, partition: number, value: V): void {
    let partitions = this.byTopic.get(topic);
    if (partitions === undefined) {
      partitions = new Map();
      this.byTopic.set(topic, partitions);
    }
    if (!partitions.has(partition)) this.count++;
    partitions.set(partition, value);
  }

  delete(topic: string, partition: number): boolean {
    const partitions = this.byTopic.get(topic);
    if (partitions === undefined || !partitions.delete(partition)) return false;
    this.count--;
    if (partitions.size === 0) this.byTopic.delete(topic);
    return true;
  }

  clear(): void {
    this.byTopic.clear();
    this.count = 0;
  }

  /** Entries grouped by topic in insertion order. */
  *entries(): IterableIterator<[topic: string, partition: number, value: V]> {
    for (const [topic, partitions] of this.byTopic) {
      for (const [partition, value] of partitions) yield [topic, partition, value];
    }
  }
}
