/**
 * Idempotent producer retries produce no duplicates. A {@link FaultProxy} sits
 * between the clients and the broker (the broker advertises the proxy) and
 * throws away the responses to some Produce requests after the broker has
 * appended them, closing the client's connection. The client must retry the
 * same batch (same producer id, epoch and sequence); the broker must recognise
 * the duplicate, acknowledge it without appending it again, and the log must
 * hold every message exactly once, in order.
 */
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses, type BrokerProcess } from '../helpers/broker-process.js';
import { brokerTail, startCompatBroker } from './compat-broker.js';
import { FaultProxy } from './fault-proxy.js';
import { formatRun, KCAT, killAllClientProcesses, run, runPython, uniqueName } from './processes.js';

const PRODUCE = 0;

interface Delivery { index: number; partition: number; offset: number; error: string | null }

let broker: BrokerProcess;
let proxy: FaultProxy;

beforeAll(async () => {
  proxy = await FaultProxy.start();
  broker = await startCompatBroker({ 'advertised.listeners': `PLAINTEXT://127.0.0.1:${proxy.port}`, 'auto.create.topics.enable': true });
  proxy.setTarget(broker.host, broker.port);
});

afterAll(async () => {
  killAllClientProcesses();
  await proxy?.close();
  await stopAllBrokerProcesses();
});

/** The Produce batches the proxy saw for `topic`, one line each, for failure messages. */
function batchesOf(topic: string): string {
  return ['--- Produce batches seen by the proxy (partition pid/epoch/seq count [response dropped]) ---',
    ...proxy.producedBatches.filter((b) => b.topic === topic).map((b) =>
      `p${b.partition} ${b.producerId}/${b.producerEpoch}/${b.baseSequence} x${b.recordCount}${b.responseDropped ? ' DROPPED' : ''}`),
  ].join('\n');
}

async function createTopic(name: string, partitions: number): Promise<void> {
  const created = await runPython<{ results: Record<string, string | null> }>('ck_admin.py',
    { bootstrap: `127.0.0.1:${proxy.port}`, op: 'create_topics', topics: [{ name, num_partitions: partitions }] });
  expect(created.results).toEqual({ [name]: null });
}

async function readPartition(topic: string, partition: number): Promise<{ offset: number; payload: string }[]> {
  const result = await run(KCAT, ['-b', broker.bootstrap, '-C', '-t', topic, '-p', String(partition), '-o', 'beginning', '-e', '-J'], { timeoutMs: 30_000 });
  if (result.code !== 0) throw new Error(`kcat failed\n${formatRun(result)}\n${brokerTail(broker)}`);
  return result.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { offset: number; payload: string });
}

describe('idempotent producer retries through lost responses', { timeout: 150_000 }, () => {
  it('confluent-kafka (enable.idempotence=True) retries after 3 lost Produce responses and the log holds each message once, in order', async () => {
    const topic = uniqueName('idem-ck');
    await createTopic(topic, 2);
    const messages = Array.from({ length: 120 }, (_, i) => ({ key: `k${i}`, value: `ck-${i}`, partition: i % 2 }));
    const droppedBefore = proxy.dropped;
    proxy.dropResponses(PRODUCE, 3);
    let result: { delivered: (Delivery | null)[] };
    try {
      result = await runPython<{ delivered: (Delivery | null)[] }>('ck_produce.py', {
        bootstrap: `127.0.0.1:${proxy.port}`,
        topic,
        messages,
        flush_every: 10,
        config: { 'enable.idempotence': true, 'linger.ms': 1, 'retry.backoff.ms': 50 },
      }, { timeoutMs: 60_000 });
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${brokerTail(broker)}`);
    }
    // the 3 armed requests were all sent; a response still in flight on a connection the proxy
    // already closed for an earlier drop is lost without being counted, so at least 1 is counted
    expect(proxy.pendingDropsFor(PRODUCE), 'armed drops consumed').toBe(0);
    expect(proxy.dropped - droppedBefore, 'Produce responses actually dropped').toBeGreaterThanOrEqual(1);
    const delivered = result.delivered.filter((d): d is Delivery => d !== null);
    expect(delivered.filter((d) => d.error !== null)).toEqual([]);
    expect(delivered).toHaveLength(120);
    for (const partition of [0, 1]) {
      const stored = await readPartition(topic, partition);
      const expected = messages.filter((m) => m.partition === partition).map((m) => m.value);
      expect(stored.map((r) => r.payload), `partition ${partition}\n${batchesOf(topic)}\n${brokerTail(broker)}`).toEqual(expected);
      expect(stored.map((r) => r.offset)).toEqual(expected.map((_, i) => i));
      const reported = delivered.filter((d) => d.partition === partition).map((d) => d.offset).sort((a, b) => a - b);
      expect(reported, 'offsets reported in delivery reports').toEqual(expected.map((_, i) => i));
    }
  });

  it('kafkajs (idempotent: true) retries after 2 lost Produce responses and the log holds each message once, in order', async () => {
    const topic = uniqueName('idem-kjs');
    await createTopic(topic, 1);
    const kafka = new Kafka({ clientId: 'compat-idem', brokers: [`127.0.0.1:${proxy.port}`], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const droppedBefore = proxy.dropped;
    try {
      for (let round = 0; round < 8; round++) {
        if (round === 2 || round === 5) proxy.dropResponses(PRODUCE, 1);
        const [result] = await producer.send({ topic, messages: Array.from({ length: 5 }, (_, i) => ({ value: `kjs-${round}-${i}` })) });
        expect(result, `round ${round}\n${batchesOf(topic)}\n${brokerTail(broker)}`).toMatchObject({ errorCode: 0, baseOffset: String(round * 5) });
      }
    } finally {
      await producer.disconnect();
    }
    expect(proxy.dropped - droppedBefore).toBe(2);
    const stored = await readPartition(topic, 0);
    expect(stored.map((r) => r.payload)).toEqual(Array.from({ length: 40 }, (_, i) => `kjs-${Math.floor(i / 5)}-${i % 5}`));
  });

  it.each(['SIGKILL', 'SIGTERM'] as const)('confluent-kafka: a batch appended just before a %s restart and retried after it is still recognised as a duplicate', async (signal) => {
    const topic = uniqueName(`idem-${signal.toLowerCase()}`);
    await createTopic(topic, 1);
    const messages = Array.from({ length: 60 }, (_, i) => ({ key: `k${i}`, value: `${signal}-${i}`, partition: 0 }));
    let restart: Promise<void> | undefined;
    proxy.onDrop = () => {
      proxy.onDrop = undefined;
      restart = (signal === 'SIGKILL' ? broker.kill9() : broker.stop('SIGTERM')).then(() => broker.restart());
    };
    // lose the response to the 3rd Produce request: it was appended, then the broker goes down before the retry
    proxy.dropResponseToNth(PRODUCE, 3);
    const producing = runPython<{ delivered: (Delivery | null)[] }>('ck_produce.py', {
      bootstrap: `127.0.0.1:${proxy.port}`,
      topic,
      messages,
      flush_every: 10,
      config: { 'enable.idempotence': true, 'linger.ms': 1, 'retry.backoff.ms': 100, 'reconnect.backoff.max.ms': 1000 },
      flush_timeout_s: 60,
    }, { timeoutMs: 90_000 });
    let result: { delivered: (Delivery | null)[] };
    try {
      result = await producing;
      await restart;
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${brokerTail(broker, 80)}`);
    } finally {
      proxy.onDrop = undefined;
    }
    expect(restart, 'the broker was restarted between append and retry').toBeDefined();
    const delivered = result.delivered.filter((d): d is Delivery => d !== null);
    expect(delivered.filter((d) => d.error !== null)).toEqual([]);
    expect(delivered.map((d) => d.offset).sort((a, b) => a - b)).toEqual(messages.map((_, i) => i));
    const stored = await readPartition(topic, 0);
    expect(stored.map((r) => r.payload), `${batchesOf(topic)}\n${brokerTail(broker, 80)}`).toEqual(messages.map((m) => m.value));
  });
});
