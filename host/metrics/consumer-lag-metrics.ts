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
 * Series with a topic label follow the topic label budget (BrokerTopicMetrics.hasLabels); only the
 * first metrics.consumer.groups.max groups by id have series at all. Partitions of unknown lag (no local replica) are left out.
 */
import type { Registry } from 'prom-client';
import type { BrokerTopicMetrics } from './broker-topic-metrics.js';
import type { GroupLagReport } from './consumer-lag-monitor.js';
import { CONSUMER_STATUSES } from './consumer-lag-status.js';
import { type LazyItem, registerLazyGauge, VISITED } from './lazy-metrics.js';

/** The monitor's reports, read once per gauge per scrape. */
export interface ConsumerLagSource {
  describeGroups(): readonly GroupLagReport[];
}

/** Registers the consumer-group families on `registry`. */
export function registerConsumerLagMetrics(registry: Registry, lag: ConsumerLagSource, topics: BrokerTopicMetrics, maxGroups: number): void {
  // The first `maxGroups` groups by id (describeGroups sorts them) get series.
  const source = { describeGroups: () => lag.describeGroups().slice(0, maxGroups) };
  const perPartition = (name: string, help: string, value: (p: GroupLagReport['partitions'][number]) => number | null): void => {
    registerLazyGauge(registry, {
      name, help, labelNames: ['consumergroup', 'topic', 'partition'],
      *samples(): Generator<LazyItem> {
        // One sample object, refilled per series (read before the next is asked for); a partition without a series is VISITED.
        const labels = { consumergroup: '', topic: '', partition: 0 };
        const sample = { labels, value: 0 };
        for (const group of source.describeGroups()) {
          for (const p of group.partitions) {
            const v = value(p);
            if (v === null || !topics.hasLabels(p.topic)) {
              yield VISITED;
              continue;
            }
            labels.consumergroup = group.groupId;
            labels.topic = p.topic;
            labels.partition = p.partition;
            sample.value = v;
            yield sample;
          }
        }
      },
    });
  };
  perPartition('kafka_consumergroup_current_offset', 'Committed offset of a group on a partition.', (p) => p.committedOffset);
  perPartition('kafka_consumergroup_lag', 'Lag of a group on a partition in offsets: last stable offset minus committed offset.', (p) => p.lag);
  perPartition('kafka_consumergroup_lag_seconds', 'Lag of a group on a partition in seconds: age of the oldest record it has not consumed (0 without lag).', (p) => p.lagSeconds);
  registerLazyGauge(registry, {
    name: 'kafka_consumergroup_lag_sum',
    help: 'Lag of a group in offsets, summed over the partitions of a topic (without a topic label: of every topic).',
    labelNames: ['consumergroup', 'topic'],
    *samples(): Generator<LazyItem> {
      for (const group of source.describeGroups()) {
        yield { labels: { consumergroup: group.groupId }, value: group.totalLag };
        const byTopic = new Map<string, number>();
        for (const p of group.partitions) {
          if (p.lag !== null) byTopic.set(p.topic, (byTopic.get(p.topic) ?? 0) + p.lag);
          yield VISITED;
        }
        for (const [topic, lag] of byTopic) if (topics.hasLabels(topic)) yield { labels: { consumergroup: group.groupId, topic }, value: lag };
      }
    },
  });
  registerLazyGauge(registry, {
    name: 'kafka_consumergroup_lag_seconds_max',
    help: 'The largest lag in seconds of a group over its partitions.',
    labelNames: ['consumergroup'],
    samples: () => source.describeGroups().map((group) => ({ labels: { consumergroup: group.groupId }, value: group.maxLagSeconds })),
  });
  registerLazyGauge(registry, {
    name: 'tributary_metrics_groups_unlabelled',
    help: 'Consumer groups of this coordinator without kafka_consumergroup_* series (metrics.consumer.groups.max reached).',
    samples: () => [{ labels: {}, value: Math.max(0, lag.describeGroups().length - maxGroups) }],
  });
  registerLazyGauge(registry, {
    name: 'kafka_consumergroup_status',
    help: 'Status of a group over consumer.lag.window.ms (1 for the current one): OK, WARNING (lag growing), STALLED (committed offsets not moving while lagging), STOPPED (no member while lagging).',
    labelNames: ['consumergroup', 'status'],
    samples: () => source.describeGroups().flatMap((group) =>
      CONSUMER_STATUSES.map((status) => ({ labels: { consumergroup: group.groupId, status }, value: group.status === status ? 1 : 0 }))),
  });
}
