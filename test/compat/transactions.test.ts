/**
 * Transactions (issue 12) with unmodified clients against a Tributary broker process:
 * confluent-kafka-python 1.7.0 (librdkafka 2.0.2) and kafkajs 2.2.4 commit and abort, and
 * read_committed consumers see exactly the committed records; a confluent-kafka
 * consume-transform-produce process SIGKILLed in the middle of a transaction is replaced by a new
 * instance with the same transactional.id, which fences the zombie (its open transaction aborted,
 * its offsets dropped) and finishes: the output holds every input exactly once. kafkajs does the
 * same with sendOffsets, its zombie fenced with a PRODUCER_FENCED error.
 */
import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses, type BrokerProcess } from '../helpers/broker-process.js';
import { brokerTail, startCompatBroker } from './compat-broker.js';
import { eventually, JsonLineProcess, killAllClientProcesses, runPython, uniqueName } from './processes.js';

interface ConsumedRecord { partition: number; offset: number; key: string | null; value: string | null }
interface ConsumeResult { records: ConsumedRecord[] }

let broker: BrokerProcess;
let kafka: Kafka;
const clientLog: string[] = [];

beforeAll(async () => {
  broker = await startCompatBroker({ 'num.partitions': 1, 'auto.create.topics.enable': true, 'transaction.state.log.num.partitions': 5 });
  kafka = new Kafka({
    clientId: 'compat-kafkajs-txn',
    brokers: [broker.bootstrap],
    logLevel: logLevel.WARN,
    logCreator: () => ({ namespace, level, log }: LogEntry) => {
      clientLog.push(`${logLevel[level]} ${namespace} ${log.message}`);
    },
    retry: { retries: 8, initialRetryTime: 100 },
  });
});

afterAll(async () => {
  killAllClientProcesses();
  await stopAllBrokerProcesses();
});

async function withBrokerLog<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${clientLog.slice(-30).join('\n')}\n${brokerTail(broker)}`);
  }
}

async function createTopics(...names: string[]): Promise<void> {
  const created = await withBrokerLog(runPython<{ results: Record<string, string | null> }>('ck_admin.py',
    { bootstrap: broker.bootstrap, op: 'create_topics', topics: names.map((name) => ({ name, num_partitions: 1 })) }, { timeoutMs: 30_000 }));
  expect(Object.values(created.results)).toEqual(names.map(() => null));
}

/** Every record of `topic` partition 0 as confluent-kafka reads it with `isolation.level`. */
async function readAll(topic: string, isolation: 'read_committed' | 'read_uncommitted', count: number): Promise<string[]> {
  const result = await withBrokerLog(runPython<ConsumeResult>('ck_consume.py', {
    bootstrap: broker.bootstrap, topic, count, timeout_s: 8, config: { 'isolation.level': isolation },
  }, { timeoutMs: 30_000 }));
  return result.records.map((record) => record.value ?? '<null>');
}

describe('transactions with real clients', { timeout: 180_000 }, () => {
  it('confluent-kafka commits and aborts; read_committed readers see exactly the committed records', async () => {
    const topic = uniqueName('ck-txn');
    await createTopics(topic);
    const result = await withBrokerLog(runPython<{ results: { commit: boolean; error: string | null }[] }>('ck_transactions.py', {
      bootstrap: broker.bootstrap, topic, transactional_id: uniqueName('ck-tx'),
      transactions: [
        { values: ['c1', 'c2'], commit: true },
        { values: ['a1', 'a2', 'a3'], commit: false },
        { values: ['c3'], commit: true },
      ],
    }, { timeoutMs: 90_000 }));
    expect(result.results.map((r) => r.error)).toEqual([null, null, null]);
    expect(await readAll(topic, 'read_committed', 100)).toEqual(['c1', 'c2', 'c3']);
    expect(await readAll(topic, 'read_uncommitted', 100)).toEqual(['c1', 'c2', 'a1', 'a2', 'a3', 'c3']);
  });

  it('confluent-kafka consume-transform-produce killed mid-transaction: the next instance fences it and the output holds every input once', async () => {
    const input = uniqueName('ck-etl-in');
    const output = uniqueName('ck-etl-out');
    await createTopics(input, output);
    const count = 200;
    const messages = Array.from({ length: count }, (_, i) => ({ key: `k${i}`, value: `v${String(i).padStart(3, '0')}` }));
    await withBrokerLog(runPython('ck_produce.py', { bootstrap: broker.bootstrap, topic: input, messages }, { timeoutMs: 40_000 }));
    const args = { bootstrap: broker.bootstrap, input, output, group: uniqueName('ck-etl'), transactional_id: uniqueName('ck-etl-tx'), batch: 40, expected_end: count };

    const zombie = JsonLineProcess.python('ck_transactional_etl.py', { ...args, crash_in_batch: 2 });
    await withBrokerLog(zombie.waitFor('the crash point', (event) => event.event === 'crashing', 60_000));
    zombie.kill();
    await zombie.waitForExit();

    const successor = JsonLineProcess.python('ck_transactional_etl.py', args);
    const done = await withBrokerLog(successor.waitFor('the end of the input', (event) => event.event === 'done', 90_000));
    expect(done.records).toBe(count - 40);

    const out = await readAll(output, 'read_committed', count + 100);
    expect(out).toHaveLength(count);
    expect([...out].sort()).toEqual(messages.map((m) => `out-${m.value}`));
    // The zombie's second batch is in the log, aborted.
    expect(await readAll(output, 'read_uncommitted', count + 100)).toHaveLength(count + 40);
  });

  it('kafkajs commits and aborts, sendOffsets moves the group only on commit, and a zombie producer is fenced', async () => {
    const input = uniqueName('kjs-txn-in');
    const output = uniqueName('kjs-txn-out');
    await createTopics(input, output);
    const groupId = uniqueName('kjs-txn-group');
    const transactionalId = uniqueName('kjs-tx');
    const zombie = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
    await zombie.connect();
    const admin = kafka.admin();
    await admin.connect();
    try {
      const committed = await zombie.transaction();
      await committed.send({ topic: output, messages: [{ value: 'k1' }, { value: 'k2' }] });
      await committed.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: input, partitions: [{ partition: 0, offset: '5' }] }] });
      await committed.commit();
      const aborted = await zombie.transaction();
      await aborted.send({ topic: output, messages: [{ value: 'gone' }] });
      await aborted.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: input, partitions: [{ partition: 0, offset: '9' }] }] });
      await aborted.abort();
      await eventually(async () => {
        const offsets = await admin.fetchOffsets({ groupId, topics: [input] });
        expect(offsets[0]!.partitions[0]!.offset).toBe('5');
      });

      const open = await zombie.transaction();
      await open.send({ topic: output, messages: [{ value: 'zombie' }] });
      const successor = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
      await successor.connect();
      try {
        const next = await successor.transaction();
        await next.send({ topic: output, messages: [{ value: 'k3' }] });
        await next.commit();
        await expect(open.commit()).rejects.toThrow(/fenced|epoch/i);
      } finally {
        await successor.disconnect();
      }
      await eventually(async () => expect(await readAll(output, 'read_committed', 100)).toEqual(['k1', 'k2', 'k3']), 30_000);
    } finally {
      await zombie.disconnect().catch(() => undefined);
      await admin.disconnect();
    }
  });
});
