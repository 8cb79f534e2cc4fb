/**
 * The counters the request path increments: the topic label budget (first come, first labelled; a
 * deleted topic frees its place; switched off, nothing per topic) and the per-API request totals
 * with their time buckets and error counts.
 */
import { describe, expect, it } from 'vitest';
import { BrokerTopicMetrics } from '../../host/metrics/broker-topic-metrics.js';
import { REQUEST_TIME_BUCKETS_MS, RequestMetrics } from '../../host/metrics/request-metrics.js';

describe('BrokerTopicMetrics', () => {
  it('labels the first topics up to the cap, counts the others broker-wide, and frees the place of a deleted topic', () => {
    const metrics = new BrokerTopicMetrics({ enabled: true, max: 1 });
    metrics.recordProduce('first', 0, 10, 1000);
    metrics.recordProduce('second', 0, 5, 500);
    metrics.recordFetch('second', 1, 0);
    expect(metrics.topic('first')).toMatchObject({ messagesIn: 10, bytesIn: 1000, produceRequests: 1 });
    expect(metrics.topic('second')).toBeUndefined();
    expect(metrics.allTopics).toMatchObject({ messagesIn: 15, bytesIn: 1500, produceRequests: 2, fetchRequests: 1, failedFetchRequests: 1 });
    expect(metrics.unlabelledTopics).toBe(1);

    metrics.retainTopics((topic) => topic !== 'first');
    expect(metrics.topic('first')).toBeUndefined();
    metrics.recordProduce('second', 2, 0, 0);
    expect(metrics.topic('second')).toMatchObject({ produceRequests: 1, failedProduceRequests: 1 });
    expect(metrics.unlabelledTopics).toBe(0);
  });

  it('keeps nothing per topic when labels are switched off', () => {
    const metrics = new BrokerTopicMetrics({ enabled: false, max: 500 });
    metrics.recordProduce('a', 0, 3, 300);
    expect(metrics.hasLabels('a')).toBe(false);
    expect([...metrics.topics()]).toEqual([]);
    expect(metrics.unlabelledTopics).toBe(0);
    expect(metrics.allTopics.messagesIn).toBe(3);
  });
});

describe('RequestMetrics', () => {
  it('counts requests per API with their time in the first bucket that holds it', () => {
    const metrics = new RequestMetrics();
    metrics.recordRequest(0, 0.5);
    metrics.recordRequest(0, 3);
    metrics.recordRequest(0, 1e9);
    metrics.recordRequest(1, 1);
    const [produce, fetch] = metrics.apis();
    expect(produce).toMatchObject({ apiKey: 0, requests: 3, totalTimeMsSum: 1e9 + 3.5 });
    expect(produce!.bucketCounts).toHaveLength(REQUEST_TIME_BUCKETS_MS.length + 1);
    expect(produce!.bucketCounts[0]).toBe(1); // <= 1 ms
    expect(produce!.bucketCounts[REQUEST_TIME_BUCKETS_MS.indexOf(5)]).toBe(1); // (2, 5] ms
    expect(produce!.bucketCounts[REQUEST_TIME_BUCKETS_MS.length]).toBe(1); // +Inf
    expect(fetch).toMatchObject({ apiKey: 1, requests: 1 });
    expect(fetch!.bucketCounts[0]).toBe(1);
  });

  it('counts error answers per API and error code, negative codes included', () => {
    const metrics = new RequestMetrics();
    metrics.recordError(1, 1);
    metrics.recordError(1, 1, 2);
    metrics.recordError(0, -1);
    expect(metrics.errorTotals()).toEqual(expect.arrayContaining([
      { apiKey: 1, errorCode: 1, count: 3 },
      { apiKey: 0, errorCode: -1, count: 1 },
    ]));
  });
});
