/**
 * The per-partition reading of `/metrics` (prometheus-registry.ts, issue 15): the three
 * ReplicaManager counts come from one pass over the partitions per scrape (not three), the log
 * sizes from a second, each read a bounded number of partitions per event-loop turn
 * (metrics.render.max.series.per.turn), partitions without a topic label included; the text is
 * prom-client's for the same registry, with the partitions yielded as one refilled object.
 */
import { describe, expect, it } from 'vitest';
import { BrokerTopicMetrics } from '../../host/metrics/broker-topic-metrics.js';
import { type BrokerMetricsSources, createPrometheusEndpoint, type PartitionGaugeSource } from '../../host/metrics/prometheus-registry.js';
import { RequestMetrics } from '../../host/metrics/request-metrics.js';

interface Counted {
  /** Calls of sources.partitions() (passes begun). */
  passes: number;
  /** Partitions yielded, over all passes. */
  reads: number;
}

/**
 * Sources over `topics` topics of `perTopic` partitions: partition p of a topic leads when p is
 * even, and is under-replicated when p % 4 == 0 (ISR 1 of 3). At most `labelled` topics get labels.
 */
function sources(topics: number, perTopic: number, labelled: number, maxPerTurn: number, defer: (task: () => void) => void): { sources: BrokerMetricsSources; counted: Counted } {
  const counted: Counted = { passes: 0, reads: 0 };
  const topicMetrics = new BrokerTopicMetrics({ enabled: true, max: labelled });
  return {
    counted,
    sources: {
      topicMetrics,
      requestMetrics: new RequestMetrics(),
      *partitions(): Generator<PartitionGaugeSource> {
        counted.passes++;
        const view = { topic: '', partition: 0, isLeader: false, isrSize: 0, replicaCount: 3, sizeBytes: 0 };
        for (let t = 0; t < topics; t++) {
          for (let p = 0; p < perTopic; p++) {
            counted.reads++;
            view.topic = `topic-${t}`;
            view.partition = p;
            view.isLeader = p % 2 === 0;
            view.isrSize = p % 4 === 0 ? 1 : 3;
            view.sizeBytes = t * 1000 + p;
            yield view;
          }
        }
      },
      topicExists: () => true,
      isActiveController: () => true,
      connections: () => [],
      webSocketSessions: () => [],
      eventLoopDelay: () => null,
      renderMaxSeriesPerTurn: maxPerTurn,
      defer,
    },
  };
}

describe('the partition gauges of /metrics', () => {
  it('count partitions, leaders and under-replicated partitions in one pass, and read the log sizes in a second, sliced, as prom-client would write them', async () => {
    const turns = { count: 0 };
    const { sources: s, counted } = sources(6, 500, 4, 250, (task) => {
      turns.count++;
      setImmediate(task);
    });
    const endpoint = createPrometheusEndpoint(s);
    await endpoint.render(); // the first scrape gives topics their labels as it reaches them
    counted.passes = 0;
    counted.reads = 0;
    turns.count = 0;
    const text = await endpoint.render();
    expect(counted.passes).toBe(2);
    expect(counted.reads).toBe(2 * 3000);
    // 6,000 partitions read (and a few dozen other series) in turns of 250.
    expect(turns.count).toBeGreaterThanOrEqual(6000 / 250 - 1);
    expect(text).toContain('\nkafka_server_replicamanager_partitioncount 3000\n');
    expect(text).toContain('\nkafka_server_replicamanager_leadercount 1500\n');
    expect(text).toContain('\nkafka_server_replicamanager_underreplicatedpartitions 750\n');
    const sizes = text.split('\n').filter((line) => line.startsWith('kafka_log_log_size{'));
    // The first 4 topics seen get labels (metrics.topic.labels.max): 2,000 series; the other 1,000 partitions are read and left out.
    expect(sizes).toHaveLength(2000);
    expect(new Set(sizes).size).toBe(2000);
    expect(text).toContain('\ntributary_metrics_topics_unlabelled 2\n');
    expect(text).toContain('\nkafka_log_log_size{topic="topic-1",partition="7"} 1007\n');
    // prom-client's own formatting of the same families (its get() copies each refilled sample).
    const withoutProcessFamilies = (whole: string): string => whole.split('\n\n').filter((family) => /# HELP (kafka|tributary)_/.test(family)).join('\n\n');
    counted.passes = 0;
    expect(withoutProcessFamilies(text)).toBe(withoutProcessFamilies(await endpoint.registry.metrics()));
    expect(counted.passes).toBe(2);
  });
});
