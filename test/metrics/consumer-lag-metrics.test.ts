/**
 * The kafka_consumergroup_* families from lag reports: values, the status state set, and the
 * bounds (metrics.consumer.groups.max, the topic label budget); a group's partitions are read a
 * bounded number per event-loop turn (metrics.render.max.series.per.turn), with or without series.
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BrokerTopicMetrics } from '../../host/metrics/broker-topic-metrics.js';
import type { GroupLagReport } from '../../host/metrics/consumer-lag-monitor.js';
import { registerConsumerLagMetrics } from '../../host/metrics/consumer-lag-metrics.js';
import { renderChunks } from '../../host/metrics/lazy-metrics.js';

interface Family { name: string; metrics: { value: string; labels?: Record<string, string> }[] }

function report(groupId: string, status: GroupLagReport['status']): GroupLagReport {
  return {
    groupId, state: 'Stable', status, totalLag: 7, maxLagSeconds: 12.5, sampledAtMs: 0, windowMs: 1000,
    partitions: [
      { topic: 'orders', partition: 0, committedOffset: 3, endOffset: 10, lag: 7, lagSeconds: 12.5, status },
      { topic: 'audit', partition: 0, committedOffset: 1, endOffset: null, lag: null, lagSeconds: null, status: 'OK' },
    ],
  };
}

async function render(reports: GroupLagReport[], maxGroups: number, topics = new BrokerTopicMetrics({ enabled: true, max: 10 })): Promise<Map<string, Family>> {
  const registry = new Registry();
  registerConsumerLagMetrics(registry, { describeGroups: () => reports }, topics, maxGroups);
  const families = (parsePrometheusTextFormat as (text: string) => Family[])(await registry.metrics());
  return new Map(families.map((f) => [f.name, f]));
}

describe('kafka_consumergroup_* series', () => {
  it('give lag, lag seconds, committed offsets, sums and a status state set per group', async () => {
    const families = await render([report('billing', 'STALLED')], 10);
    const lag = families.get('kafka_consumergroup_lag')!.metrics;
    expect(lag).toEqual([{ value: '7', labels: { consumergroup: 'billing', topic: 'orders', partition: '0' } }]);
    expect(families.get('kafka_consumergroup_lag_seconds')!.metrics[0]!.value).toBe('12.5');
    expect(families.get('kafka_consumergroup_current_offset')!.metrics.map((m) => m.labels!.topic)).toEqual(['orders', 'audit']);
    expect(families.get('kafka_consumergroup_lag_sum')!.metrics).toEqual([
      { value: '7', labels: { consumergroup: 'billing' } },
      { value: '7', labels: { consumergroup: 'billing', topic: 'orders' } },
    ]);
    const status = families.get('kafka_consumergroup_status')!.metrics;
    expect(status.map((m) => [m.labels!.status, m.value])).toEqual([['OK', '0'], ['WARNING', '0'], ['STALLED', '1'], ['STOPPED', '0']]);
  });

  it('cover only the first metrics.consumer.groups.max groups, and only topics with labels', async () => {
    const capped = await render([report('a', 'OK'), report('b', 'WARNING')], 1);
    expect(new Set(capped.get('kafka_consumergroup_status')!.metrics.map((m) => m.labels!.consumergroup))).toEqual(new Set(['a']));
    expect(capped.get('tributary_metrics_groups_unlabelled')!.metrics[0]!.value).toBe('1');
    const unlabelled = await render([report('a', 'OK')], 10, new BrokerTopicMetrics({ enabled: false, max: 10 }));
    expect(unlabelled.get('kafka_consumergroup_lag')?.metrics ?? []).toEqual([]);
    expect(unlabelled.get('kafka_consumergroup_lag_sum')!.metrics).toEqual([{ value: '7', labels: { consumergroup: 'a' } }]);
  });
});

describe('kafka_consumergroup_* reading', () => {
  it('reads a group of 10,000 partitions at most metrics.render.max.series.per.turn per turn, those without labels included, as prom-client writes them', async () => {
    const partitions = Array.from({ length: 10_000 }, (_, i) => ({
      topic: `t-${i % 40}`, partition: i, committedOffset: i, endOffset: i + 5, lag: 5, lagSeconds: 1, status: 'OK' as const,
    }));
    const big: GroupLagReport = { ...report('big', 'OK'), totalLag: 50_000, partitions };
    // 10 of the 40 topics have labels: 2,500 partitions with series per per-partition family, 7,500 read without.
    const topics = new BrokerTopicMetrics({ enabled: true, max: 10 });
    const registry = new Registry();
    registerConsumerLagMetrics(registry, { describeGroups: () => [big] }, topics, 10);
    const expected = await registry.metrics();
    let turns = 0;
    const chunks: string[] = [];
    await renderChunks(registry, 500, (chunk) => chunks.push(chunk) > 0, (task) => {
      turns++;
      setImmediate(task);
    });
    expect(chunks.join('')).toBe(expected);
    expect(expected.split('\n').filter((line) => line.startsWith('kafka_consumergroup_lag{'))).toHaveLength(2_500);
    // Three per-partition families and the sums each read 10,000 partitions: at least 80 turns of 500.
    expect(turns).toBeGreaterThanOrEqual(4 * 10_000 / 500);
  });
});
