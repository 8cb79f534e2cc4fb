/**
 * Durability across broker restarts, observed only through real clients:
 * topics, topic configs, records and committed offsets survive a graceful
 * SIGTERM restart, and nothing acknowledged (acks=1 or acks=all) is lost when
 * the process is killed with SIGKILL: the default page-cache durability keeps
 * what was written (the process dies, the OS does not).
 *
 * Clients: confluent-kafka (produce with delivery reports, admin), kcat
 * (consume), kafkajs admin (set/fetch committed offsets).
 */
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, stopAllBrokerProcesses, type BrokerProcess } from '../helpers/broker-process.js';
import { brokerTail, startCompatBroker } from './compat-broker.js';
import { formatRun, JsonLineProcess, KCAT, killAllClientProcesses, run, runPython, uniqueName } from './processes.js';

interface Delivery { index: number; partition: number; offset: number; key: string | null; value: string | null; error: string | null }
interface KcatRecord { partition: number; offset: number; key: string | null; payload: string | null; headers?: string[] }

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startCompatBroker({ 'num.partitions': 1, 'auto.create.topics.enable': true });
});

afterAll(async () => {
  killAllClientProcesses();
  await stopAllBrokerProcesses();
});

async function withBrokerLog<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${brokerTail(broker)}`);
  }
}

async function createTopic(name: string, partitions: number, config: Record<string, string> = {}): Promise<void> {
  const created = await withBrokerLog(() => runPython<{ results: Record<string, string | null> }>('ck_admin.py',
    { bootstrap: broker.bootstrap, op: 'create_topics', topics: [{ name, num_partitions: partitions, config }] }));
  expect(created.results).toEqual({ [name]: null });
}

/** Produces with confluent-kafka and returns the acknowledged deliveries (asserting there were no errors). */
async function produceAcked(topic: string, count: number, partitions: number, tag: string, acks: string): Promise<Delivery[]> {
  const messages = Array.from({ length: count }, (_, i) => ({
    key: `${tag}-key-${i}`, value: `${tag}-value-${i}`, partition: i % partitions, headers: [['tag', tag]],
  }));
  const result = await withBrokerLog(() => runPython<{ delivered: (Delivery | null)[] }>('ck_produce.py',
    { bootstrap: broker.bootstrap, topic, messages, config: { acks } }, { timeoutMs: 40_000 }));
  const delivered = result.delivered.filter((d): d is Delivery => d !== null);
  expect(delivered.filter((d) => d.error !== null)).toEqual([]);
  expect(delivered).toHaveLength(count);
  return delivered;
}

async function consumeAll(topic: string): Promise<KcatRecord[]> {
  const result = await run(KCAT, ['-b', broker.bootstrap, '-m', '10', '-C', '-t', topic, '-o', 'beginning', '-e', '-J'], { timeoutMs: 30_000 });
  if (result.code !== 0) throw new Error(`kcat failed\n${formatRun(result)}\n${brokerTail(broker)}`);
  return result.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as KcatRecord);
}

async function withAdmin<T>(work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Kafka({ clientId: 'compat-restart', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } }).admin();
  await admin.connect();
  try {
    return await withBrokerLog(() => work(admin));
  } finally {
    await admin.disconnect();
  }
}

async function committedOffsets(groupId: string, topic: string): Promise<[number, string][]> {
  return withAdmin(async (admin) => {
    const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return (entry?.partitions ?? []).map((p): [number, string] => [p.partition, p.offset]).sort((a, b) => a[0] - b[0]);
  });
}

function expectAllAcknowledgedPresent(records: KcatRecord[], acknowledged: Delivery[]): void {
  const stored = new Map(records.map((r) => [`${r.partition}/${r.offset}`, r]));
  const missing = acknowledged.filter((d) => {
    const record = stored.get(`${d.partition}/${d.offset}`);
    return record === undefined || record.key !== d.key || record.payload !== d.value;
  });
  expect(missing, 'acknowledged records missing or different after restart').toEqual([]);
}

describe('restarts', { timeout: 150_000 }, () => {
  it('keeps topics, topic configs, records and committed offsets across a graceful SIGTERM restart', async () => {
    const topic = uniqueName('restart-term');
    const groupId = uniqueName('restart-term');
    await createTopic(topic, 3, { 'retention.ms': '123456789' });
    const acked = await produceAcked(topic, 30, 3, 'before', 'all');
    await withAdmin((admin) => admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '3' }, { partition: 1, offset: '5' }, { partition: 2, offset: '10' }] }));
    expect(await committedOffsets(groupId, topic)).toEqual([[0, '3'], [1, '5'], [2, '10']]);

    const exit = await broker.stop('SIGTERM');
    expect(exit, `graceful shutdown should exit 0\n${broker.outputTail(30)}`).toEqual({ code: 0, signal: null });
    await broker.restart();

    const listed = await withBrokerLog(() => runPython<{ topics: Record<string, { partitions: Record<string, unknown> }> }>('ck_admin.py', { bootstrap: broker.bootstrap, op: 'list_topics' }));
    expect(Object.keys(listed.topics[topic]?.partitions ?? {}).sort()).toEqual(['0', '1', '2']);
    const configs = await withBrokerLog(() => runPython<{ configs: Record<string, { value: string }> }>('ck_admin.py', { bootstrap: broker.bootstrap, op: 'describe_configs', topic }));
    expect(configs.configs['retention.ms']?.value).toBe('123456789');

    const records = await consumeAll(topic);
    expect(records).toHaveLength(30);
    expectAllAcknowledgedPresent(records, acked);
    expect(records.every((r) => JSON.stringify(r.headers) === JSON.stringify(['tag', 'before']))).toBe(true);
    expect(await committedOffsets(groupId, topic)).toEqual([[0, '3'], [1, '5'], [2, '10']]);

    // the log end offsets were recovered too: new records continue where the old ones stopped
    const after = await produceAcked(topic, 3, 3, 'after', 'all');
    expect(after.map((d) => [d.partition, d.offset])).toEqual([[0, 10], [1, 10], [2, 10]]);
  });

  it('loses no acknowledged record (acks=1 or acks=all), topic or committed offset when killed with SIGKILL', async () => {
    const topic = uniqueName('restart-kill');
    const groupId = uniqueName('restart-kill');
    await createTopic(topic, 3);
    const ackedAll = await produceAcked(topic, 60, 3, 'all', 'all');
    const ackedOne = await produceAcked(topic, 60, 3, 'one', '1');
    await withAdmin((admin) => admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '7' }, { partition: 1, offset: '20' }, { partition: 2, offset: '40' }] }));

    expect(await broker.kill9()).toEqual({ code: null, signal: 'SIGKILL' });
    await broker.restart();

    const records = await consumeAll(topic);
    expectAllAcknowledgedPresent(records, [...ackedAll, ...ackedOne]);
    expect(records).toHaveLength(120);
    for (const partition of [0, 1, 2]) {
      expect(records.filter((r) => r.partition === partition).map((r) => r.offset)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    }
    expect(await committedOffsets(groupId, topic)).toEqual([[0, '7'], [1, '20'], [2, '40']]);

    const after = await produceAcked(topic, 3, 3, 'after', 'all');
    expect(after.map((d) => [d.partition, d.offset])).toEqual([[0, 40], [1, 40], [2, 40]]);
  });

  it('recovers from two SIGKILLs in a row and still serves every acknowledged record', async () => {
    const topic = uniqueName('restart-twice');
    await createTopic(topic, 1);
    const first = await produceAcked(topic, 25, 1, 'first', 'all');
    await broker.kill9();
    await broker.restart();
    const second = await produceAcked(topic, 25, 1, 'second', '1');
    expect(second.map((d) => d.offset)).toEqual(Array.from({ length: 25 }, (_, i) => 25 + i));
    await broker.kill9();
    await broker.restart();
    const records = await consumeAll(topic);
    expect(records.map((r) => r.offset)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expectAllAcknowledgedPresent(records, [...first, ...second]);
  });

  it('loses no acknowledged record when killed with SIGKILL in the middle of a produce stream (acks=1)', async () => {
    const topic = uniqueName('restart-midstream');
    await createTopic(topic, 2);
    const messages = Array.from({ length: 3000 }, (_, i) => ({ key: `m${i}`, value: `stream-${i}`, partition: i % 2 }));
    const producer = JsonLineProcess.python('ck_produce.py', {
      bootstrap: broker.bootstrap, topic, messages, flush_every: 100, flush_timeout_s: 60, progress: true, pause_s: 0.05,
      config: { acks: '1', 'linger.ms': 5, 'message.timeout.ms': 60_000, 'reconnect.backoff.max.ms': 500, 'retry.backoff.ms': 100 },
    }, 120_000);
    try {
      await producer.waitFor('some records acknowledged', (e) => e.event === 'progress' && (e.acknowledged as number) >= 600, 60_000);
      expect(await broker.kill9()).toEqual({ code: null, signal: 'SIGKILL' });
      const acknowledgedAtKill = Math.max(...producer.eventsOf('progress').map((e) => e.acknowledged as number));
      expect(acknowledgedAtKill, 'the broker died in the middle of the stream').toBeLessThan(3000);
      await broker.restart();
      const exit = await producer.waitForExit(90_000);
      expect(exit.code, producer.describe()).toBe(0);
    } finally {
      producer.kill();
    }
    const final = producer.events.find((e) => Array.isArray(e.delivered)) as { delivered: (Delivery | null)[] } | undefined;
    const delivered = (final?.delivered ?? []).filter((d): d is Delivery => d !== null && d.error === null);
    expect(delivered.length, 'acknowledged records (the producer retries through the restart)').toBe(3000);
    const records = await consumeAll(topic);
    expectAllAcknowledgedPresent(records, delivered);
    for (const partition of [0, 1]) {
      const offsets = records.filter((r) => r.partition === partition).map((r) => r.offset);
      expect(offsets, `partition ${partition} offsets are contiguous from 0`).toEqual(offsets.map((_, i) => i));
    }
  });

  it('stops cleanly on SIGINT (Ctrl-C) with exit code 0 and restarts with its data', async () => {
    const topic = uniqueName('restart-int');
    await createTopic(topic, 1);
    const acked = await produceAcked(topic, 5, 1, 'int', 'all');
    expect(await broker.stop('SIGINT'), broker.outputTail(20)).toEqual({ code: 0, signal: null });
    await broker.restart();
    expectAllAcknowledgedPresent(await consumeAll(topic), acked);
  });

  // Kafka takes <log.dir>/.lock and refuses to start ("Failed to acquire lock on file .lock ... A Kafka
  // instance in another process or thread is using this directory"): two writers would corrupt the logs.
  // Kept last in the file: if the second broker does start, it writes into the first one's directory.
  it('refuses to start a second broker on log.dirs that a running broker holds', async () => {
    expect(broker.running).toBe(true);
    const second = startBrokerProcess({ logDir: broker.logDir, overrides: { 'group.initial.rebalance.delay.ms': 0 }, startTimeoutMs: 15_000 });
    const outcome = await second.then(async (intruder) => {
      await intruder.kill9();
      await intruder.close();
      return 'started';
    }, (error: unknown) => String(error));
    expect(outcome, 'a second broker started on the same log.dirs').toMatch(/exited before it was ready[\s\S]*(in use|lock)/i);
  });
});

