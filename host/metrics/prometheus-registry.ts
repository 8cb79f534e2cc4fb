/**
 * The broker's `/metrics` (Prometheus text format 0.0.4) with prom-client: Kafka's MBeans named
 * the way the Prometheus JMX exporter's Kafka rules name them (lower-cased
 * `<domain>_<type>_<name>`, a `_total` suffix on counters), read lazily when scraped.
 *
 * Nothing here runs on the request path: every family computes its samples when scraped
 * (lazy-metrics.ts; the request-time histogram overrides `get()` the same way) from the plain
 * number fields the hot path increments (broker-topic-metrics.ts, request-metrics.ts) or reads the broker's state
 * (partitions, controller, connections) at scrape time. Families and labels are listed in
 * README.md ("Metrics"). Per-topic and per-partition series are bounded by the topic label budget
 * (metrics.topic.labels.enable / metrics.topic.labels.max, BrokerTopicMetrics.hasLabels).
 *
 * Loaded only when `http.listeners` is set (prom-client's import and default collectors cost
 * start-up time and a little memory a library broker without HTTP does not need).
 */
import { recompressionCounters } from '../log/batch-recompression.js';
import { Histogram, Registry } from 'prom-client';
import type { EventLoopDelayMonitor } from '../io/event-loop-delay.js';
import { apiKeyName } from '../protocol/generated/api-keys.js';
import { errorName } from '../protocol/generated/error-codes.js';
import type { BrokerTopicMetrics, TopicCounters } from './broker-topic-metrics.js';
import { registerConsumerLagMetrics, type ConsumerLagSource } from './consumer-lag-metrics.js';
import { registerDefaultMetrics } from './event-loop-lag-metrics.js';
import { type ChunkWriter, type LazyItem, registerLazyCounter, registerLazyGauge, renderChunks, renderInSlices, VISITED } from './lazy-metrics.js';
import { REQUEST_TIME_BUCKETS_MS, type RequestMetrics } from './request-metrics.js';

/**
 * One partition this broker holds, as the gauges need it. {@link BrokerMetricsSources.partitions}
 * may yield one object again and again, its fields changed: read it before asking for the next.
 */
export interface PartitionGaugeSource {
  readonly topic: string;
  readonly partition: number;
  readonly isLeader: boolean;
  readonly isrSize: number;
  readonly replicaCount: number;
  /** Bytes of the partition's segment files (Kafka's Log Size). */
  readonly sizeBytes: number;
}

/** What `/metrics` reads from the broker; each function is called once per scrape. */
export interface BrokerMetricsSources {
  readonly topicMetrics: BrokerTopicMetrics;
  readonly requestMetrics: RequestMetrics;
  /**
   * The partitions this broker holds (leaders and followers), as they are when each is reached:
   * a scrape reads them over several event-loop turns (metrics.render.max.series.per.turn).
   */
  partitions(): Iterable<PartitionGaugeSource>;
  /** Whether a topic still exists (deleted topics lose their series). */
  topicExists(topic: string): boolean;
  /** True when this node is the active controller. */
  isActiveController(): boolean;
  /** Open Kafka protocol TCP connections per listener. */
  connections(): readonly { listener: string; count: number }[];
  /** Open WebSockets of the HTTP gateway per route (`kafka`, `json`). */
  webSocketSessions(): readonly { route: string; count: number }[];
  /** Consumer lag of the groups this broker coordinates; absent: no consumer-group series. */
  readonly consumerLag?: ConsumerLagSource;
  /** metrics.consumer.groups.max: groups with series (default: all). */
  readonly maxConsumerGroups?: number;
  /** The broker's event-loop delay monitor (the watchdog's), read by `nodejs_eventloop_lag_*`; null: not created yet (figures 0). */
  eventLoopDelay(): EventLoopDelayMonitor | null;
  /** metrics.render.max.series.per.turn: series formatted per event-loop turn by `render()` (default {@link DEFAULT_RENDER_MAX_SERIES_PER_TURN}). */
  readonly renderMaxSeriesPerTurn?: number;
  /** Runs a task in a later event-loop turn (the broker's Time.defer), between the slices of a scrape; absent: a scrape is formatted at once. */
  readonly defer?: (task: () => void) => void;
}

/** metrics.render.max.series.per.turn's default. */
export const DEFAULT_RENDER_MAX_SERIES_PER_TURN = 2000;

/** A registry ready to scrape. */
export interface PrometheusEndpoint {
  /** `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string;
  /** The exposition text, formatted over several event-loop turns when it is long (lazy-metrics.ts renderInSlices). */
  render(): Promise<string>;
  /**
   * The same text written to `write` one chunk per event-loop turn as it is formatted
   * (lazy-metrics.ts renderChunks; `/metrics` sends each chunk as it comes); resolves false when
   * `write` asked to stop.
   */
  renderChunks(write: ChunkWriter): Promise<boolean>;
  /** The underlying prom-client registry (tests, and a console that wants the same numbers). */
  readonly registry: Registry;
}

/**
 * Builds the registry over `sources`, with prom-client's default process and Node.js metrics (the
 * event-loop lag families read from `sources.eventLoopDelay`, event-loop-lag-metrics.ts).
 */
export function createPrometheusEndpoint(sources: BrokerMetricsSources): PrometheusEndpoint {
  const registry = new Registry();
  registerDefaultMetrics(registry, () => sources.eventLoopDelay());
  registerTopicCounters(registry, sources);
  registerRequestMetrics(registry, sources.requestMetrics);
  registerReplicaGauges(registry, sources);
  registerNetworkGauges(registry, sources);
  if (sources.consumerLag !== undefined) registerConsumerLagMetrics(registry, sources.consumerLag, sources.topicMetrics, sources.maxConsumerGroups ?? Number.MAX_SAFE_INTEGER);
  const maxSeriesPerTurn = sources.renderMaxSeriesPerTurn ?? DEFAULT_RENDER_MAX_SERIES_PER_TURN;
  return {
    contentType: registry.contentType,
    render: () => renderInSlices(registry, maxSeriesPerTurn, sources.defer),
    renderChunks: (write) => renderChunks(registry, maxSeriesPerTurn, write, sources.defer),
    registry,
  };
}

/** kafka.server:type=BrokerTopicMetrics: one series without labels (all topics), one per labelled topic. */
function registerTopicCounters(registry: Registry, sources: BrokerMetricsSources): void {
  const families: [string, keyof TopicCounters, string][] = [
    ['messagesin', 'messagesIn', 'Records appended by Produce (MessagesInPerSec).'],
    ['bytesin', 'bytesIn', 'Bytes of record batches appended by Produce (BytesInPerSec).'],
    ['bytesout', 'bytesOut', 'Bytes of record batches sent to consumers by Fetch, followers excluded (BytesOutPerSec).'],
    ['totalproducerequests', 'produceRequests', 'Partition appends of Produce requests (TotalProduceRequestsPerSec).'],
    ['totalfetchrequests', 'fetchRequests', 'Partition reads of consumer Fetch requests (TotalFetchRequestsPerSec).'],
    ['failedproducerequests', 'failedProduceRequests', 'Produce partition appends answered with an error (FailedProduceRequestsPerSec).'],
    ['failedfetchrequests', 'failedFetchRequests', 'Consumer Fetch partition reads answered with an error (FailedFetchRequestsPerSec).'],
  ];
  const topics = sources.topicMetrics;
  for (const [name, field, help] of families) {
    registerLazyCounter(registry, {
      name: `kafka_server_brokertopicmetrics_${name}_total`,
      help: `${help} No topic label: every topic.`,
      labelNames: ['topic'],
      *samples(): Generator<LazyItem> {
        topics.retainTopics((topic) => sources.topicExists(topic));
        yield { labels: {}, value: topics.allTopics[field] };
        for (const [topic, counters] of topics.topics()) yield { labels: { topic }, value: counters[field] };
      },
    });
  }
  registerLazyCounter(registry, {
    name: 'kafka_server_brokertopicmetrics_producemessageconversions_total',
    help: 'Records whose batch the leader recompressed to the topic\'s compression.type (ProduceMessageConversionsPerSec); every leader of this process, no topic label.',
    labelNames: ['topic'],
    samples: () => [{ labels: {}, value: recompressionCounters.records }],
  });
  registerLazyGauge(registry, {
    name: 'tributary_metrics_topics_unlabelled',
    help: 'Topics counted only in the series without a topic label (metrics.topic.labels.max reached).',
    samples: () => [{ labels: {}, value: topics.unlabelledTopics }],
  });
}

/**
 * kafka.network:type=RequestMetrics per request (Kafka's API name): RequestsPerSec, TotalTimeMs as
 * a Prometheus histogram in milliseconds, ErrorsPerSec per error name; RequestChannel's queue.
 */
function registerRequestMetrics(registry: Registry, metrics: RequestMetrics): void {
  const requestName = (apiKey: number): string => apiKeyName(apiKey) ?? String(apiKey);
  registerLazyCounter(registry, {
    name: 'kafka_network_requestmetrics_requests_total',
    help: 'Requests answered, per API (RequestsPerSec).',
    labelNames: ['request'],
    samples: () => metrics.apis().map((api) => ({ labels: { request: requestName(api.apiKey) }, value: api.requests })),
  });
  registry.registerMetric(new RequestTimeHistogram(metrics, requestName));
  registerLazyCounter(registry, {
    name: 'kafka_network_requestmetrics_errors_total',
    help: 'Error answers per API and Kafka error name (ErrorsPerSec): request-level errors and each partition answered with an error (Produce, Fetch).',
    labelNames: ['request', 'error'],
    samples: () => metrics.errorTotals().map((e) => ({ labels: { request: requestName(e.apiKey), error: errorName(e.errorCode) ?? String(e.errorCode) }, value: e.count })),
  });
  registerLazyGauge(registry, {
    name: 'kafka_network_requestchannel_requestqueuesize',
    help: 'Requests handed to their handler and not answered yet (long polls and acks=all produces included).',
    samples: () => [{ labels: {}, value: metrics.inFlight }],
  });
}

/**
 * TotalTimeMs per API as a histogram, built from RequestMetrics' bucket counts at scrape time
 * (prom-client's own Histogram would be observed per request, with a label lookup each time).
 */
const REQUEST_TIME_NAME = 'kafka_network_requestmetrics_totaltimems';
const REQUEST_TIME_HELP = 'Time from a request\'s arrival at its handler to its answer, ms, per API (TotalTimeMs).';

class RequestTimeHistogram extends Histogram<'request'> {
  constructor(private readonly metrics: RequestMetrics, private readonly requestName: (apiKey: number) => string) {
    super({
      name: REQUEST_TIME_NAME,
      help: REQUEST_TIME_HELP,
      labelNames: ['request'],
      buckets: [...REQUEST_TIME_BUCKETS_MS],
      registers: [],
    });
  }

  override async get(): Promise<Awaited<ReturnType<Histogram<'request'>['get']>>> {
    const values: { value: number; labels: Record<string, string | number>; metricName: string }[] = [];
    const name = REQUEST_TIME_NAME;
    for (const api of this.metrics.apis()) {
      const request = this.requestName(api.apiKey);
      let cumulative = 0;
      api.bucketCounts.forEach((count, i) => {
        cumulative += count;
        const le = i < REQUEST_TIME_BUCKETS_MS.length ? REQUEST_TIME_BUCKETS_MS[i]! : '+Inf';
        values.push({ value: cumulative, labels: { request, le }, metricName: `${name}_bucket` });
      });
      values.push({ value: api.totalTimeMsSum, labels: { request }, metricName: `${name}_sum` });
      values.push({ value: api.requests, labels: { request }, metricName: `${name}_count` });
    }
    return { name, help: REQUEST_TIME_HELP, type: 'histogram', values, aggregator: 'sum' } as unknown as Awaited<ReturnType<Histogram<'request'>['get']>>;
  }
}

/** The partition counts of one pass over the partitions (the ReplicaManager gauges). */
interface PartitionCounts {
  partitions: number;
  leaders: number;
  underReplicated: number;
}

/**
 * kafka.server:type=ReplicaManager, kafka.log:type=Log,name=Size, kafka.controller:type=KafkaController.
 * The three counts come from one pass over the partitions, made by the first of them
 * (partitioncount) and read by the next two, which a scrape formats right after it (registration
 * order); the pass yields {@link VISITED} per partition, so it is sliced like the series.
 */
function registerReplicaGauges(registry: Registry, sources: BrokerMetricsSources): void {
  let counted: PartitionCounts | null = null;
  function* countPartitions(): Generator<LazyItem, PartitionCounts> {
    const counts: PartitionCounts = { partitions: 0, leaders: 0, underReplicated: 0 };
    for (const p of sources.partitions()) {
      counts.partitions++;
      if (p.isLeader) {
        counts.leaders++;
        if (p.isrSize < p.replicaCount) counts.underReplicated++;
      }
      yield VISITED;
    }
    counted = counts;
    return counts;
  }
  registerLazyGauge(registry, {
    name: 'kafka_server_replicamanager_partitioncount',
    help: 'Partitions this broker holds, leader or follower (PartitionCount).',
    *samples(): Generator<LazyItem> {
      yield { labels: {}, value: (yield* countPartitions()).partitions };
    },
  });
  const counts = function* (figure: (counts: PartitionCounts) => number): Generator<LazyItem> {
    yield { labels: {}, value: figure(counted ?? (yield* countPartitions())) };
  };
  registerLazyGauge(registry, {
    name: 'kafka_server_replicamanager_leadercount',
    help: 'Partitions this broker leads (LeaderCount).',
    samples: () => counts((c) => c.leaders),
  });
  registerLazyGauge(registry, {
    name: 'kafka_server_replicamanager_underreplicatedpartitions',
    help: 'Partitions this broker leads whose ISR is smaller than their replica list (UnderReplicatedPartitions).',
    samples: () => counts((c) => c.underReplicated),
  });
  registerLazyGauge(registry, {
    name: 'kafka_log_log_size',
    help: 'Bytes of a partition\'s segment files on this broker (kafka.log:type=Log,name=Size), for topics with labels.',
    labelNames: ['topic', 'partition'],
    *samples(): Generator<LazyItem> {
      // One sample object, refilled per partition (read before the next is asked for).
      const labels = { topic: '', partition: 0 };
      const sample = { labels, value: 0 };
      for (const p of sources.partitions()) {
        if (!sources.topicMetrics.hasLabels(p.topic)) {
          yield VISITED;
          continue;
        }
        labels.topic = p.topic;
        labels.partition = p.partition;
        sample.value = p.sizeBytes;
        yield sample;
      }
    },
  });
  registerLazyGauge(registry, {
    name: 'kafka_controller_kafkacontroller_activecontrollercount',
    help: '1 on the active controller, 0 elsewhere (ActiveControllerCount).',
    samples: () => [{ labels: {}, value: sources.isActiveController() ? 1 : 0 }],
  });
}

/** Connections per listener (Kafka's socket-server-metrics connection-count) and WebSocket sessions. */
function registerNetworkGauges(registry: Registry, sources: BrokerMetricsSources): void {
  registerLazyGauge(registry, {
    name: 'kafka_server_socket_server_metrics_connection_count',
    help: 'Open Kafka protocol TCP connections per listener (connection-count); WebSockets are tributary_websocket_sessions.',
    labelNames: ['listener'],
    samples: () => sources.connections().map(({ listener, count }) => ({ labels: { listener }, value: count })),
  });
  registerLazyGauge(registry, {
    name: 'tributary_websocket_sessions',
    help: 'Open WebSockets of the HTTP gateway per route (kafka: Kafka frames, json: the JSON subprotocol).',
    labelNames: ['route'],
    samples: () => sources.webSocketSessions().map(({ route, count }) => ({ labels: { route }, value: count })),
  });
}
