/**
 * Consumer-group lag in `/metrics`, from the ConsumerLagMonitor's last sample, named as the
 * widely used Kafka exporter (danielqsj/kafka_exporter) names its group series, with the label
 * `consumergroup`, plus lag in seconds and the Burrow-style status:
 *
 * - `kafka_consumergroup_current_offset{consumergroup,topic,partition}`: the committed offset;
 * - `kafka_consumergroup_lag{consumergroup,topic,partition}`: lag in offsets;
 * - `kafka_consumergroup_lag_seconds{consumergroup,topic,partition}`: age of the oldest unconsumed record;
 * - `kafka_consumergroup_lag_sum{consumergroup[,topic]}`: lag summed over partitions (without a
 *   topic label: over every topic);
 * - `kafka_consumergroup_lag_seconds_max{consumergroup}`: the group's largest lag in seconds;
 * - `kafka_consumergroup_status{consumergroup,status}`: 1 for the group's status, 0 for the
 *   others (OK, WARNING, STALLED, STOPPED), so an alert is `kafka_consumergroup_status{status="STALLED"} == 1`.
 *
 * Series with a topic label follow the topic label budget (BrokerTopicMetrics.hasLabels); the
 * per-group ones are always there. Partitions of unknown lag (no local replica) are left out.
 */
import { Gauge, type Registry } from 'prom-client';
import type { BrokerTopicMetrics } from './broker-topic-metrics.js';
import type { GroupLagReport } from './consumer-lag-monitor.js';
import { CONSUMER_STATUSES } from './consumer-lag-status.js';

/** The monitor's reports, read once per gauge per scrape. */
export interface ConsumerLagSource {
  describeGroups(): readonly GroupLagReport[];
}

/** Registers the consumer-group families on `registry`. */
export function registerConsumerLagMetrics(registry: Registry, source: ConsumerLagSource, topics: BrokerTopicMetrics): void {
  const perPartition = (name: string, help: string, value: (p: GroupLagReport['partitions'][number]) => number | null): void => {
    registry.registerMetric(new Gauge({
      name, help, labelNames: ['consumergroup', 'topic', 'partition'], registers: [],
      collect() {
        this.reset();
        for (const group of source.describeGroups()) {
          for (const p of group.partitions) {
            const v = value(p);
            if (v !== null && topics.hasLabels(p.topic)) this.set({ consumergroup: group.groupId, topic: p.topic, partition: p.partition }, v);
          }
        }
      },
    }));
  };
  perPartition('kafka_consumergroup_current_offset', 'Committed offset of a group on a partition.', (p) => p.committedOffset);
  perPartition('kafka_consumergroup_lag', 'Lag of a group on a partition in offsets: last stable offset minus committed offset.', (p) => p.lag);
  perPartition('kafka_consumergroup_lag_seconds', 'Lag of a group on a partition in seconds: age of the oldest record it has not consumed (0 without lag).', (p) => p.lagSeconds);
  registry.registerMetric(new Gauge({
    name: 'kafka_consumergroup_lag_sum',
    help: 'Lag of a group in offsets, summed over the partitions of a topic (without a topic label: of every topic).',
    labelNames: ['consumergroup', 'topic'], registers: [],
    collect() {
      this.reset();
      for (const group of source.describeGroups()) {
        this.set({ consumergroup: group.groupId }, group.totalLag);
        const byTopic = new Map<string, number>();
        for (const p of group.partitions) if (p.lag !== null) byTopic.set(p.topic, (byTopic.get(p.topic) ?? 0) + p.lag);
        for (const [topic, lag] of byTopic) if (topics.hasLabels(topic)) this.set({ consumergroup: group.groupId, topic }, lag);
      }
    },
  }));
  registry.registerMetric(new Gauge({
    name: 'kafka_consumergroup_lag_seconds_max',
    help: 'The largest lag in seconds of a group over its partitions.',
    labelNames: ['consumergroup'], registers: [],
    collect() {
      this.reset();
      for (const group of source.describeGroups()) this.set({ consumergroup: group.groupId }, group.maxLagSeconds);
    },
  }));
  registry.registerMetric(new Gauge({
    name: 'kafka_consumergroup_status',
    help: 'Status of a group over consumer.lag.window.ms (1 for the current one): OK, WARNING (lag growing), STALLED (committed offsets not moving while lagging), STOPPED (no member while lagging).',
    labelNames: ['consumergroup', 'status'], registers: [],
    collect() {
      this.reset();
      for (const group of source.describeGroups()) {
        for (const status of CONSUMER_STATUSES) this.set({ consumergroup: group.groupId, status }, group.status === status ? 1 : 0);
      }
    },
  }));
}
