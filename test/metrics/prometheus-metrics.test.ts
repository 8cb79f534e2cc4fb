/**
 * `/metrics` as Prometheus scrapes it: the text is parsed by a Prometheus text-format parser
 * (parse-prometheus-text-format) and its numbers checked against what real clients did (kcat
 * produces and consumes) and what the broker holds.
 */
import { execFile } from 'node:child_process';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Producer } from '../../host/clients/producer.js';
import { startTestBroker, type TestBroker } from '../integration/in-process-broker.js';

interface Sample { value?: string; labels?: Record<string, string>; count?: string; sum?: string; buckets?: Record<string, string> }
interface Family { name: string; type: string; metrics: Sample[] }

async function scrape(port: number): Promise<Map<string, Family>> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseText(await response.text());
}

function parseText(text: string): Map<string, Family> {
  const families = (parsePrometheusTextFormat as (text: string) => Family[])(text);
  return new Map(families.map((family) => [family.name, family]));
}

/** The value of the sample of `name` whose labels are exactly `labels`. */
function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = families.get(name);
  const sample = family?.metrics.find((m) => JSON.stringify(m.labels ?? {}) === JSON.stringify(labels));
  return sample?.value === undefined ? undefined : Number(sample.value);
}

/** Runs kcat (asynchronously: the broker answers it from this process's event loop). */
function kcat(args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('kcat', args, { encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`kcat ${args.join(' ')}: ${error.message} ${stderr}`));
      else resolve(stdout);
    });
    child.stdin!.end(input ?? '');
  });
}

describe('/metrics on the HTTP listener', () => {
  let broker: TestBroker;
  let port: number;
  beforeAll(async () => {
    broker = await startTestBroker({ 'http.listeners': '127.0.0.1:0', 'num.partitions': 3 });
    port = broker.broker.httpListeners[0]!.port;
  });
  afterAll(async () => {
    await broker.close();
  });

  it('counts every record kcat produced in messages-in, and the bytes in as the log holds them', async () => {
    const lines = Array.from({ length: 25 }, (_, i) => `key-${i}:value-${i}`).join('\n') + '\n';
    await kcat(['-P', '-b', broker.broker.bootstrap, '-t', 'metered', '-K:'], lines);
    const consumed = await kcat(['-C', '-b', broker.broker.bootstrap, '-t', 'metered', '-e', '-q', '-f', '%s\n']);
    expect(consumed.trim().split('\n')).toHaveLength(25);

    const families = await scrape(port);
    expect(value(families, 'kafka_server_brokertopicmetrics_messagesin_total', { topic: 'metered' })).toBe(25);
    expect(value(families, 'kafka_server_brokertopicmetrics_messagesin_total')).toBe(25);
    const bytesIn = value(families, 'kafka_server_brokertopicmetrics_bytesin_total', { topic: 'metered' })!;
    const logSizes = families.get('kafka_log_log_size')!.metrics.filter((m) => m.labels?.topic === 'metered');
    expect(logSizes).toHaveLength(3);
    expect(logSizes.reduce((sum, m) => sum + Number(m.value), 0)).toBe(bytesIn);
    expect(value(families, 'kafka_server_brokertopicmetrics_bytesout_total', { topic: 'metered' })).toBeGreaterThanOrEqual(bytesIn);
    expect(value(families, 'kafka_server_brokertopicmetrics_failedproducerequests_total', { topic: 'metered' })).toBe(0);
    // The typed in-process API gives the same numbers.
    expect(broker.broker.metrics.topicMetrics.topic('metered')).toMatchObject({ messagesIn: 25, bytesIn });
  });

  it('gives request counts and a latency histogram per API, and the broker\'s partition, controller and connection gauges', async () => {
    const families = await scrape(port);
    const produceRequests = value(families, 'kafka_network_requestmetrics_requests_total', { request: 'Produce' })!;
    expect(produceRequests).toBeGreaterThanOrEqual(1);
    expect(value(families, 'kafka_network_requestmetrics_requests_total', { request: 'Fetch' })).toBeGreaterThanOrEqual(1);
    expect(families.get('kafka_network_requestmetrics_totaltimems')!.type).toBe('HISTOGRAM');
    // parse-prometheus-text-format folds a histogram's labelled series into one, so the per-API
    // series are read back from the registry itself.
    const registry = broker.broker.metrics.prometheus!.registry;
    const histogram = (await registry.getMetricsAsJSON()).find((m) => m.name === 'kafka_network_requestmetrics_totaltimems')!;
    const produceTimes = (histogram as unknown as { values: { metricName: string; labels: Record<string, string | number>; value: number }[] }).values
      .filter((v) => v.labels.request === 'Produce');
    expect(produceTimes.find((v) => v.metricName.endsWith('_count'))!.value).toBe(produceRequests);
    expect(produceTimes.find((v) => v.labels.le === '+Inf')!.value).toBe(produceRequests);
    const buckets = produceTimes.filter((v) => v.metricName.endsWith('_bucket')).map((v) => v.value);
    expect(buckets).toEqual([...buckets].sort((x, y) => x - y));
    expect(value(families, 'kafka_server_replicamanager_partitioncount')).toBe(3);
    expect(value(families, 'kafka_server_replicamanager_leadercount')).toBe(3);
    expect(value(families, 'kafka_server_replicamanager_underreplicatedpartitions')).toBe(0);
    expect(value(families, 'kafka_controller_kafkacontroller_activecontrollercount')).toBe(1);
    // A long poll of the consumer that just left may still be waiting out its max.wait.ms.
    expect(value(families, 'kafka_network_requestchannel_requestqueuesize')).toBeGreaterThanOrEqual(0);
    expect(value(families, 'kafka_server_socket_server_metrics_connection_count', { listener: 'PLAINTEXT' })).toBeGreaterThanOrEqual(0);
    expect(value(families, 'tributary_websocket_sessions', { route: 'kafka' })).toBe(0);
    expect(value(families, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(families.has('nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('counts partition errors by API and error name', async () => {
    // A Fetch far beyond the log end answers OFFSET_OUT_OF_RANGE for that partition.
    await kcat(['-C', '-b', broker.broker.bootstrap, '-t', 'metered', '-p', '0', '-o', '1000000', '-e', '-q', '-X', 'auto.offset.reset=error']).catch(() => '');
    const families = await scrape(port);
    expect(value(families, 'kafka_network_requestmetrics_errors_total', { request: 'Fetch', error: 'OFFSET_OUT_OF_RANGE' })).toBeGreaterThanOrEqual(1);
    expect(value(families, 'kafka_server_brokertopicmetrics_failedfetchrequests_total', { topic: 'metered' })).toBeGreaterThanOrEqual(1);
  });
});

describe('per-topic labels', () => {
  async function produceTo(bootstrap: string, topics: string[]): Promise<void> {
    const producer = new Producer({ bootstrapServers: [bootstrap] });
    try {
      for (const topic of topics) await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }] });
    } finally {
      await producer.close();
    }
  }

  it('are capped by metrics.topic.labels.max: later topics count only in the broker-wide series', async () => {
    const broker = await startTestBroker({ 'metrics.topic.labels.max': 1 });
    try {
      await produceTo(broker.broker.bootstrap, ['first', 'second']);
      const families = parseText(await (await broker.broker.metrics.loadPrometheus()).render());
      expect(value(families, 'kafka_server_brokertopicmetrics_messagesin_total', { topic: 'first' })).toBe(2);
      expect(value(families, 'kafka_server_brokertopicmetrics_messagesin_total', { topic: 'second' })).toBeUndefined();
      expect(value(families, 'kafka_server_brokertopicmetrics_messagesin_total')).toBe(4);
      expect(value(families, 'tributary_metrics_topics_unlabelled')).toBe(1);
      expect(families.get('kafka_log_log_size')!.metrics.every((m) => m.labels?.topic === 'first')).toBe(true);
    } finally {
      await broker.close();
    }
  });

  it('are switched off by metrics.topic.labels.enable=false, leaving the broker-wide series', async () => {
    const broker = await startTestBroker({ 'metrics.topic.labels.enable': false });
    try {
      await produceTo(broker.broker.bootstrap, ['quiet']);
      const text = await (await broker.broker.metrics.loadPrometheus()).render();
      expect(text).not.toMatch(/topic="/);
      expect(value(parseText(text), 'kafka_server_brokertopicmetrics_messagesin_total')).toBe(2);
    } finally {
      await broker.close();
    }
  });
});
