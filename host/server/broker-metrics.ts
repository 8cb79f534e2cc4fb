/**
 * The broker's metrics, as one object the BrokerServer owns (issue 14): the counters the request
 * path increments (BrokerTopicMetrics, RequestMetrics) and the `/metrics` endpoint over them and
 * over the broker's state. prom-client (about 90 CommonJS files, the largest import of a broker
 * start-up) loads only with `http.listeners`, and then after the broker is ready
 * ({@link BrokerMetrics.loadPrometheus} in the background) or with the first scrape, whichever
 * comes first: the route exists before.
 *
 * It also runs the ConsumerLagMonitor (lag in offsets and seconds, Burrow-style status of the
 * groups this broker coordinates), sampled on the broker's Time from start-up to shutdown.
 *
 * The typed accessors ({@link BrokerMetrics.topicMetrics}, {@link BrokerMetrics.requestMetrics},
 * {@link BrokerMetrics.consumerLag}) are the in-process API a console reads the same numbers
 * through, without parsing the text.
 */
import type { BrokerConfig } from '../config/broker-config.js';
import type { GroupCoordinator } from '../coordinator/group-coordinator.js';
import type { Environment } from '../io/environment.js';
import type { EventLoopDelayMonitor } from '../io/event-loop-delay.js';
import { ConsumerLagMonitor } from '../metrics/consumer-lag-monitor.js';
import type { UnifiedLog } from '../log/unified-log.js';
import { BrokerTopicMetrics } from '../metrics/broker-topic-metrics.js';
import type { BrokerMetricsSources, PartitionGaugeSource, PrometheusEndpoint } from '../metrics/prometheus-registry.js';
import { RequestMetrics } from '../metrics/request-metrics.js';
import type { MetricsRoute } from '../network/http-server.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { consumerLagSources } from './consumer-lag-sources.js';
import type { MetadataCache } from './metadata-cache.js';
import { LazyRemotePartitionLag } from './lazy-remote-partition-lag.js';

/** The broker state `/metrics` reads besides the counters. */
export interface BrokerMetricsState {
  readonly replicaManager: () => ReplicaManager<UnifiedLog> | null;
  readonly groupCoordinator: () => GroupCoordinator | null;
  /** The metadata cache (partition leaders, broker endpoints); null before start-up. */
  readonly metadata: () => MetadataCache | null;
  topicExists(topic: string): boolean;
  isActiveController(): boolean;
  connections(): readonly { listener: string; count: number }[];
  webSocketSessions(): readonly { route: string; count: number }[];
  /** The broker's event-loop delay monitor (shared with the watchdog); null before start-up or without one. */
  eventLoopDelay(): EventLoopDelayMonitor | null;
  /** Hears that the remote lag reads could not be imported (partitions led elsewhere then show no lag). */
  onRemoteLagLoadFailed?(error: unknown): void;
}

/** The Prometheus text exposition format 0.0.4, as prom-client's Registry.contentType names it. */
const PROMETHEUS_TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export class BrokerMetrics {
  /** Messages and bytes in/out, produce and fetch requests, per topic and broker-wide. */
  readonly topicMetrics: BrokerTopicMetrics;
  /** Requests, total time and errors per API. */
  readonly requestMetrics = new RequestMetrics();
  /** Lag in offsets and seconds and the status of the groups this broker coordinates ({@link ConsumerLagMonitor.describeGroups}). */
  readonly consumerLag: ConsumerLagMonitor;
  private endpoint: PrometheusEndpoint | null = null;

  private readonly maxConsumerGroups: number;
  private readonly renderMaxSeriesPerTurn: number;
  private readonly defer: (task: () => void) => void;
  /** The lag reads of partitions led elsewhere, with their inter-broker connections: loaded with the first such partition. */
  private readonly remoteLag: LazyRemotePartitionLag;

  constructor(config: BrokerConfig, environment: Environment, private readonly state: BrokerMetricsState) {
    const time = environment.time;
    this.maxConsumerGroups = config.metricsConsumerGroupsMax;
    this.renderMaxSeriesPerTurn = config.metricsRenderMaxSeriesPerTurn;
    this.defer = (task) => time.defer(task);
    this.topicMetrics = new BrokerTopicMetrics({ enabled: config.metricsTopicLabelsEnable, max: config.metricsTopicLabelsMax });
    this.remoteLag = new LazyRemotePartitionLag(async () => (await import('./remote-partition-lag.js')).createRemotePartitionLag({
      clientId: `broker-${config.nodeId}-consumer-lag`,
      time,
      random: environment.random,
      network: environment.network,
      nodeId: config.nodeId,
      leaderOf: (topic, partition) => state.metadata()?.leaderId(topic, partition),
      endpointOf: (brokerId) => {
        const found = state.metadata()?.broker(brokerId)?.endpoints.find((candidate) => candidate.name === config.interBrokerListenerName);
        return found === undefined ? undefined : { host: found.host, port: found.port };
      },
      sampleIntervalMs: config.consumerLagSampleIntervalMs,
      maxPartitions: config.consumerLagRemoteMaxPartitions,
    }), (error) => state.onRemoteLagLoadFailed?.(error));
    this.consumerLag = new ConsumerLagMonitor({
      time,
      sources: consumerLagSources(state.groupCoordinator, state.replicaManager, () => this.remoteLag),
      sampleIntervalMs: config.consumerLagSampleIntervalMs,
      windowMs: config.consumerLagWindowMs,
      maxTimestampReads: config.consumerLagMaxTimestampReads,
      maxPartitionsPerTurn: config.consumerLagMaxPartitionsPerTurn,
      defer: (task) => time.defer(task),
    });
  }

  /** Stops the lag monitor and closes its inter-broker connections. */
  stopConsumerLag(): void {
    this.consumerLag.stop();
    this.remoteLag.close();
  }

  /** The Prometheus endpoint once loaded ({@link loadPrometheus}); null before, or without `http.listeners`. */
  get prometheus(): PrometheusEndpoint | null {
    return this.endpoint;
  }

  /**
   * `/metrics` before prom-client is loaded: the first scrape loads it ({@link loadPrometheus}),
   * if the broker has not yet done so after start-up.
   */
  metricsRoute(): MetricsRoute {
    const metrics = this;
    return {
      get contentType(): string {
        return metrics.endpoint?.contentType ?? PROMETHEUS_TEXT_CONTENT_TYPE;
      },
      renderChunks: async (write) => (await metrics.loadPrometheus()).renderChunks(write),
    };
  }

  /** Loads prom-client and builds the registry (once; later calls return the same endpoint). */
  async loadPrometheus(): Promise<PrometheusEndpoint> {
    if (this.endpoint !== null) return this.endpoint;
    const { createPrometheusEndpoint } = await import('../metrics/prometheus-registry.js');
    this.endpoint ??= createPrometheusEndpoint(this.sources());
    return this.endpoint;
  }

  private sources(): BrokerMetricsSources {
    const state = this.state;
    return {
      topicMetrics: this.topicMetrics,
      requestMetrics: this.requestMetrics,
      partitions: () => partitionGauges(state.replicaManager()),
      topicExists: (topic) => state.topicExists(topic),
      isActiveController: () => state.isActiveController(),
      connections: () => state.connections(),
      webSocketSessions: () => state.webSocketSessions(),
      consumerLag: this.consumerLag,
      maxConsumerGroups: this.maxConsumerGroups,
      renderMaxSeriesPerTurn: this.renderMaxSeriesPerTurn,
      defer: this.defer,
      eventLoopDelay: () => state.eventLoopDelay(),
    };
  }
}

/**
 * The partitions of `replicaManager` for the gauges, as one object refilled per partition (the
 * gauges read it before asking for the next: no object per partition and scrape), walked without
 * a list of them all (ReplicaManager.eachPartition): each is read when reached, a scrape
 * spanning turns.
 */
function* partitionGauges(replicaManager: ReplicaManager<UnifiedLog> | null): Iterable<PartitionGaugeSource> {
  if (replicaManager === null) return;
  const view = { topic: '', partition: 0, isLeader: false, isrSize: 0, replicaCount: 0, sizeBytes: 0 };
  for (const partition of replicaManager.eachPartition()) {
    view.topic = partition.topic;
    view.partition = partition.partition;
    view.isLeader = partition.isLeader;
    view.isrSize = partition.isrSize;
    view.replicaCount = partition.replicas.length;
    view.sizeBytes = partition.log.size;
    yield view;
  }
}
