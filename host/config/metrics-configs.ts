/**
 * The broker's metrics and consumer-lag configs (issue 14), all Tributary-only: how many topics
 * get their own label in `/metrics` (host/metrics/topic-labels.ts) and how the broker samples
 * consumer groups to compute lag in offsets and seconds and a Burrow-style status
 * (host/metrics/consumer-lag-monitor.ts). Kept apart from broker-config.ts, which spreads these
 * definitions into its list and these values into the BrokerConfig.
 */
import type { ConfigDef, ConfigValue } from './config-def.js';

export const METRICS_CONFIG_DEFS: readonly ConfigDef[] = [
  { name: 'metrics.topic.labels.enable', type: 'BOOLEAN', defaultValue: 'true',
    doc: 'Tributary-only: /metrics carries per-topic and per-partition series (topic, partition labels: messages and bytes in/out, log size, consumer lag); false keeps only the broker-wide series, for clusters with very many partitions.' },
  { name: 'metrics.topic.labels.max', type: 'INT', defaultValue: '500', min: 0,
    doc: 'Tributary-only: the most topics with their own labels in /metrics; topics beyond it (first come, first labelled; a deleted topic frees its place) count only in the broker-wide series, and tributary_metrics_topics_unlabelled says how many there are.' },
  { name: 'metrics.render.max.series.per.turn', type: 'INT', defaultValue: '2000', min: 1,
    doc: 'Tributary-only: series of /metrics formatted, or partitions read for them (the partition counts, partitions without a topic label), per event-loop turn; a longer scrape (per-partition log sizes and consumer lag: 50,000 series at max.partitions\' default) is read and formatted over several turns, other clients being served between them, and each turn\'s text is sent as it is formatted (chunked), never held whole.' },
  { name: 'metrics.consumer.groups.max', type: 'INT', defaultValue: '1000', min: 0,
    doc: 'Tributary-only: the most consumer groups with series in /metrics (kafka_consumergroup_*), by group id order; the others are left out and counted in tributary_metrics_groups_unlabelled; 0 leaves out every group series (the lag is still in GET /consumer-lag and tributary group describe).' },
  { name: 'consumer.lag.sample.interval.ms', type: 'INT', defaultValue: '10000', min: 10,
    doc: 'Tributary-only: how often the group coordinator samples its groups\' committed offsets, the high watermarks and the timestamp of the oldest unconsumed record, for consumer lag and group status.' },
  { name: 'consumer.lag.window.ms', type: 'INT', defaultValue: '120000', min: 1,
    doc: 'Tributary-only: the sliding window of the group status: WARNING when a partition\'s lag grew over the whole window, STALLED when its committed offset has not moved for the window while its lag is above zero.' },
  { name: 'consumer.lag.max.timestamp.reads', type: 'INT', defaultValue: '1000', min: 1,
    doc: 'Tributary-only: the most record-batch headers one lag sample reads from the logs (one per partition whose committed offset moved); partitions beyond it keep their previous lag in seconds until a later sample.' },
  { name: 'consumer.lag.max.partitions.per.turn', type: 'INT', defaultValue: '5000', min: 1,
    doc: 'Tributary-only: the group partitions (a group\'s committed offsets, each partition\'s lag and status) after which one lag sample ends its event-loop turn (a group is sampled whole, so a turn may pass it by one group); a broker coordinating more samples over several turns, other clients being served between them, and the previous sample\'s lag stays in GET /consumer-lag, /metrics and the console until the last (Tributary default 5000).' },
  { name: 'consumer.lag.max.page.partitions', type: 'INT', defaultValue: '5000', min: 1,
    doc: 'Tributary-only: the partitions of one page of GET /consumer-lag (all groups): groups in id order until their partitions reach this many (a group with more is a page of its own); the answer\'s nextOffset is the ?offset= of the next page, null after the last (GET /consumer-lag?group=ID answers one group whole). Without pages 1,000 groups of 500 partitions were one 75 MB answer built in one event-loop turn (Tributary default 5000).' },
  { name: 'consumer.lag.remote.max.partitions', type: 'INT', defaultValue: '10000', min: 1,
    doc: 'Tributary-only: in a cluster, the most partitions led by other brokers whose offsets (ListOffsets) and oldest unconsumed record timestamp (a Fetch of one batch) the group coordinator asks their leaders for after each lag sample, in the background; those refreshed longest ago go first, the others wait for a later sample.' },
];

/** The BrokerConfig fields these configs set. */
export interface MetricsConfig {
  readonly metricsTopicLabelsEnable: boolean;
  readonly metricsTopicLabelsMax: number;
  readonly metricsConsumerGroupsMax: number;
  /** metrics.render.max.series.per.turn. */
  readonly metricsRenderMaxSeriesPerTurn: number;
  readonly consumerLagSampleIntervalMs: number;
  readonly consumerLagWindowMs: number;
  readonly consumerLagMaxTimestampReads: number;
  /** consumer.lag.max.page.partitions: partitions of one GET /consumer-lag page. */
  readonly consumerLagMaxPagePartitions: number;
  /** consumer.lag.max.partitions.per.turn: group partitions one lag sample works through per event-loop turn. */
  readonly consumerLagMaxPartitionsPerTurn: number;
  readonly consumerLagRemoteMaxPartitions: number;
}

/** The fields, from the parsed values. */
export function metricsConfig(get: <T extends ConfigValue>(name: string) => T): MetricsConfig {
  return {
    metricsTopicLabelsEnable: get('metrics.topic.labels.enable'),
    metricsTopicLabelsMax: get('metrics.topic.labels.max'),
    metricsConsumerGroupsMax: get('metrics.consumer.groups.max'),
    metricsRenderMaxSeriesPerTurn: get('metrics.render.max.series.per.turn'),
    consumerLagSampleIntervalMs: get('consumer.lag.sample.interval.ms'),
    consumerLagWindowMs: get('consumer.lag.window.ms'),
    consumerLagMaxTimestampReads: get('consumer.lag.max.timestamp.reads'),
    consumerLagMaxPagePartitions: get('consumer.lag.max.page.partitions'),
    consumerLagMaxPartitionsPerTurn: get('consumer.lag.max.partitions.per.turn'),
    consumerLagRemoteMaxPartitions: get('consumer.lag.remote.max.partitions'),
  };
}
