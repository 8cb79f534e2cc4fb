/**
 * A group whose consumer stops committing turns STALLED, with its lag in offsets and seconds, in
 * the broker's typed API, in `/metrics` and in `tributary group describe`; once the consumer
 * leaves, the lagging group is STOPPED. A kafkajs consumer plays the group member. The window is
 * short (consumer.lag.window.ms=1500): the test waits for the status the broker computes on its
 * own clock, the deadline of the wait is a guard against hanging, not a timing assertion.
 */
import { Kafka, logLevel } from 'kafkajs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import { runInProcess } from '../cli/commands/cli-harness.js';
import { startTestBroker, type TestBroker } from '../integration/in-process-broker.js';
import { findFreePort } from '../helpers/broker-process.js';

interface Family { name: string; metrics: { value: string; labels?: Record<string, string> }[] }

async function scrape(port: number): Promise<Family[]> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return (parsePrometheusTextFormat as (text: string) => Family[])(text);
}

function sample(families: Family[], name: string, labels: Record<string, string>): number | undefined {
  const found = families.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found === undefined ? undefined : Number(found.value);
}

describe('a consumer that stops committing', () => {
  let broker: TestBroker;
  let port: number;
  let kafka: Kafka;
  beforeAll(async () => {
    // A fixed port: the CLI finds it with DescribeConfigs http.listeners (port 0 would not tell it).
    broker = await startTestBroker({
      'http.listeners': `127.0.0.1:${await findFreePort()}`,
      'consumer.lag.sample.interval.ms': 100,
      'consumer.lag.window.ms': 1500,
    });
    port = broker.broker.httpListeners[0]!.port;
    kafka = new Kafka({ clientId: 'lag-test', brokers: [broker.broker.bootstrap], logLevel: logLevel.NOTHING });
  });
  afterAll(async () => {
    await broker.close();
  });

  it('is STALLED with its lag in offsets and seconds, in the typed API, /metrics and the CLI; STOPPED once it left', async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'lagging', messages: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` })) });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId: 'stalled-group', heartbeatInterval: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'lagging', fromBeginning: true });
    let seen = 0;
    await consumer.run({ autoCommit: false, eachMessage: async () => { seen++; } });
    await waitFor('the consumer to read the 10 records', () => (seen >= 10 ? true : undefined));
    // It commits once, at offset 4, then never again while it stays in the group.
    await consumer.commitOffsets([{ topic: 'lagging', partition: 0, offset: '4' }]);

    const stalled = await waitFor('the group to turn STALLED', () => {
      const report = broker.broker.metrics.consumerLag.describeGroup('stalled-group');
      return report?.status === 'STALLED' ? report : undefined;
    });
    expect(stalled.state).toBe('Stable');
    expect(stalled.partitions).toEqual([expect.objectContaining({ topic: 'lagging', partition: 0, committedOffset: 4, endOffset: 10, lag: 6, status: 'STALLED' })]);
    expect(stalled.partitions[0]!.lagSeconds).toBeGreaterThan(0);

    const families = await scrape(port);
    const group = { consumergroup: 'stalled-group' };
    expect(sample(families, 'kafka_consumergroup_status', { ...group, status: 'STALLED' })).toBe(1);
    expect(sample(families, 'kafka_consumergroup_status', { ...group, status: 'OK' })).toBe(0);
    expect(sample(families, 'kafka_consumergroup_lag', { ...group, topic: 'lagging', partition: '0' })).toBe(6);
    expect(sample(families, 'kafka_consumergroup_current_offset', { ...group, topic: 'lagging', partition: '0' })).toBe(4);
    expect(sample(families, 'kafka_consumergroup_lag_seconds', { ...group, topic: 'lagging', partition: '0' })).toBeGreaterThan(0);
    expect(sample(families, 'kafka_consumergroup_lag_seconds_max', group)).toBeGreaterThan(0);

    // No --http: the CLI asks the coordinator's DescribeConfigs for http.listeners.
    const cliArgs = ['--brokers', broker.broker.bootstrap];
    const json = JSON.parse((await runInProcess(['group', 'describe', 'stalled-group', '--json', ...cliArgs])).out)[0];
    expect(json.status).toBe('STALLED');
    expect(json.offsets[0]).toMatchObject({ topic: 'lagging', partition: 0, committedOffset: 4, lag: 6, status: 'STALLED' });
    expect(json.offsets[0].lagSeconds).toBeGreaterThan(0);
    const human = await runInProcess(['group', 'describe', 'stalled-group', ...cliArgs]);
    expect(human.err).toBe('');
    expect(human.out).toMatch(/lagging\s+0\s+4\s+10\s+6\s+\d+\.\d\s+STALLED/);

    await consumer.disconnect();
    const stopped = await waitFor('the group to turn STOPPED', () => {
      const report = broker.broker.metrics.consumerLag.describeGroup('stalled-group');
      return report?.status === 'STOPPED' ? report : undefined;
    });
    expect(stopped.state).toBe('Empty');
  });

  it('tells on stderr why the lag in seconds is missing when the HTTP listener does not answer (--http overrides the one found)', async () => {
    const unreachable = await runInProcess(['group', 'describe', 'stalled-group', '--brokers', broker.broker.bootstrap, '--http', '127.0.0.1:1']);
    expect(unreachable.err).toMatch(/note: no lag in seconds or status: .*127\.0\.0\.1:1.*did not answer/);
    expect(unreachable.out).toMatch(/lagging\s+0\s+4\s+10\s+6/);
  });
});
