/**
 * Kafka's BrokerTopicMetrics (kafka.server:type=BrokerTopicMetrics): messages and bytes in,
 * bytes out, produce and fetch requests and their failures, broker-wide and per topic.
 *
 * Cost on the hot path: the Produce and Fetch handlers call {@link recordProduce} /
 * {@link recordFetch} once per partition of a request (never per record): a few additions to
 * plain number fields and one Map lookup by topic name. Nothing is formatted or allocated there;
 * `/metrics` reads these fields when it is scraped (prometheus-registry.ts).
 *
 * Per-topic counters are bounded (metrics.topic.labels.enable, metrics.topic.labels.max): a topic
 * gets its own counters the first time it is seen while there is room, keeps them until it is
 * deleted ({@link retainTopics}), and a topic without room counts only in {@link allTopics} (as
 * Kafka's all-topics meter, which has no topic tag). {@link unlabelledTopics} counts those.
 */

/** One topic's counters (or the broker-wide ones): totals since the broker started. */
export interface TopicCounters {
  /** Records appended by Produce (Kafka's MessagesInPerSec). */
  messagesIn: number;
  /** Bytes of record batches appended by Produce (BytesInPerSec). */
  bytesIn: number;
  /** Bytes of record batches returned to consumers by Fetch; followers not counted (BytesOutPerSec). */
  bytesOut: number;
  /** Partition appends of Produce requests (TotalProduceRequestsPerSec, counted per partition as Kafka does). */
  produceRequests: number;
  /** Partition reads of consumer Fetch requests (TotalFetchRequestsPerSec). */
  fetchRequests: number;
  /** Produce partition appends answered with an error (FailedProduceRequestsPerSec). */
  failedProduceRequests: number;
  /** Consumer Fetch partition reads answered with an error (FailedFetchRequestsPerSec). */
  failedFetchRequests: number;
}

/** Counters at zero. */
export function emptyTopicCounters(): TopicCounters {
  return { messagesIn: 0, bytesIn: 0, bytesOut: 0, produceRequests: 0, fetchRequests: 0, failedProduceRequests: 0, failedFetchRequests: 0 };
}

/** How many topics get labels: metrics.topic.labels.enable and metrics.topic.labels.max. */
export interface TopicLabelLimits {
  readonly enabled: boolean;
  readonly max: number;
}

export class BrokerTopicMetrics {
  /** Every topic together (the series without a topic label). */
  readonly allTopics: TopicCounters = emptyTopicCounters();
  private readonly byTopic = new Map<string, TopicCounters>();
  /** Topics seen without room for their own counters. */
  private readonly unlabelled = new Set<string>();
  private readonly maxTopics: number;

  constructor(limits: TopicLabelLimits) {
    this.maxTopics = limits.enabled ? Math.max(0, limits.max) : 0;
  }

  /**
   * One partition of a Produce request: `records` appended (0 on error or for a retried
   * duplicate), `bytes` written, `errorCode` its answer.
   */
  recordProduce(topic: string, errorCode: number, records: number, bytes: number): void {
    const all = this.allTopics;
    all.produceRequests++;
    all.messagesIn += records;
    all.bytesIn += bytes;
    if (errorCode !== 0) all.failedProduceRequests++;
    const counters = this.countersOf(topic);
    if (counters === null) return;
    counters.produceRequests++;
    counters.messagesIn += records;
    counters.bytesIn += bytes;
    if (errorCode !== 0) counters.failedProduceRequests++;
  }

  /** One partition of a consumer Fetch: `bytes` of batches returned, `errorCode` its answer. */
  recordFetch(topic: string, errorCode: number, bytes: number): void {
    const all = this.allTopics;
    all.fetchRequests++;
    all.bytesOut += bytes;
    if (errorCode !== 0) all.failedFetchRequests++;
    const counters = this.countersOf(topic);
    if (counters === null) return;
    counters.fetchRequests++;
    counters.bytesOut += bytes;
    if (errorCode !== 0) counters.failedFetchRequests++;
  }

  /** The labelled topics and their counters (read-only views; in first-seen order). */
  topics(): IterableIterator<[string, Readonly<TopicCounters>]> {
    return this.byTopic.entries();
  }

  /** Counters of `topic` when it has its own, else undefined. */
  topic(topic: string): Readonly<TopicCounters> | undefined {
    return this.byTopic.get(topic);
  }

  /**
   * True when `topic` has (or, room permitting, now gets) its own labels: the one budget of
   * per-topic series, shared by the counters here and the gauges of `/metrics` (log size, lag).
   */
  hasLabels(topic: string): boolean {
    return this.countersOf(topic) !== null;
  }

  /** Topics counted only broker-wide for want of room (0 when labels are switched off). */
  get unlabelledTopics(): number {
    return this.unlabelled.size;
  }

  /**
   * Drops the counters of topics that no longer exist (Kafka removes a deleted topic's metrics),
   * freeing their places. Called when metrics are collected, not on the hot path.
   */
  retainTopics(exists: (topic: string) => boolean): void {
    for (const topic of this.byTopic.keys()) if (!exists(topic)) this.byTopic.delete(topic);
    for (const topic of this.unlabelled) if (!exists(topic)) this.unlabelled.delete(topic);
  }

  private countersOf(topic: string): TopicCounters | null {
    const counters = this.byTopic.get(topic);
    if (counters !== undefined) return counters;
    if (this.byTopic.size >= this.maxTopics) {
      // With labels switched off nothing is tracked per topic, not even the count.
      if (this.maxTopics > 0) this.unlabelled.add(topic);
      return null;
    }
    const created = emptyTopicCounters();
    this.byTopic.set(topic, created);
    this.unlabelled.delete(topic);
    return created;
  }
}
