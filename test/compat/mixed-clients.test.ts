/**
 * Different real clients in the same consumer group, as happens when services
 * written in different languages share a group id:
 * - librdkafka (JoinGroup v5, `range`) and kafka-python (JoinGroup v2, `range`)
 *   share one group: the coordinator must mix request versions (MEMBER_ID_REQUIRED
 *   only for v4+) and pick the common protocol.
 * - librdkafka (`range`) and kafkajs (`RoundRobinAssigner`) have no protocol in
 *   common: the second one must be refused with INCONSISTENT_GROUP_PROTOCOL (23)
 *   while the first keeps its partitions.
 */
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses, type BrokerProcess } from '../helpers/broker-process.js';
import { brokerTail, startCompatBroker } from './compat-broker.js';
import { eventually, JsonLineProcess, killAllClientProcesses, runPython, uniqueName } from './processes.js';

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startCompatBroker({ 'num.partitions': 1, 'auto.create.topics.enable': true });
});

afterAll(async () => {
  killAllClientProcesses();
  await stopAllBrokerProcesses();
});

async function createTopic(name: string, partitions: number): Promise<void> {
  const created = await runPython<{ results: Record<string, string | null> }>('ck_admin.py',
    { bootstrap: broker.bootstrap, op: 'create_topics', topics: [{ name, num_partitions: partitions }] });
  expect(created.results).toEqual({ [name]: null });
}

async function produce(topic: string, values: string[], partitions: number): Promise<void> {
  const result = await runPython<{ delivered: { error: string | null }[] }>('ck_produce.py', {
    bootstrap: broker.bootstrap, topic, messages: values.map((value, i) => ({ value, key: `k${i}`, partition: i % partitions })),
  }, { timeoutMs: 40_000 });
  expect(result.delivered.filter((d) => d.error !== null)).toEqual([]);
}

const lastAssignment = (m: JsonLineProcess): number[] | undefined => m.eventsOf('assigned').at(-1)?.partitions as number[] | undefined;

describe('mixed clients in one consumer group', { timeout: 120_000 }, () => {
  it('librdkafka (JoinGroup v5) and kafka-python (JoinGroup v2) members split 4 partitions, each reads only its own, and librdkafka takes over when kafka-python leaves', async () => {
    const topic = uniqueName('mixed-range');
    const group = uniqueName('mixed-range');
    await createTopic(topic, 4);
    const librdkafka = JsonLineProcess.python('ck_group_member.py', { bootstrap: broker.bootstrap, topic, group, client_id: 'mixed-librdkafka' }, 90_000);
    const kafkaPython = JsonLineProcess.python('kp_group_member.py', { bootstrap: broker.bootstrap, topic, group, client_id: 'mixed-kafka-python' }, 90_000);
    try {
      await eventually(async () => {
        const a = lastAssignment(librdkafka) ?? [];
        const b = lastAssignment(kafkaPython) ?? [];
        expect([a.length, b.length], `${librdkafka.describe()}\n${kafkaPython.describe()}\n${brokerTail(broker)}`).toEqual([2, 2]);
        expect([...a, ...b].sort()).toEqual([0, 1, 2, 3]);
      }, 40_000);
      const values = Array.from({ length: 16 }, (_, i) => `mixed-${i}`);
      await produce(topic, values, 4);
      await eventually(async () => {
        const read = [...librdkafka.eventsOf('record'), ...kafkaPython.eventsOf('record')].map((e) => e.value as string);
        expect(read.sort(), `${librdkafka.describe()}\n${kafkaPython.describe()}`).toEqual([...values].sort());
      }, 30_000);
      for (const [member, other] of [[librdkafka, kafkaPython], [kafkaPython, librdkafka]] as const) {
        const own = lastAssignment(member) ?? [];
        expect(member.eventsOf('record').every((e) => own.includes(e.partition as number))).toBe(true);
        expect(lastAssignment(other)?.some((p) => own.includes(p))).toBe(false);
      }

      // kafka-python leaves (LeaveGroup v1): librdkafka takes over all 4 partitions at the committed offsets
      kafkaPython.send('close');
      await kafkaPython.waitFor('kafka-python member closed', (e) => e.event === 'closed');
      await librdkafka.waitFor('librdkafka member assigned all 4 partitions',
        (e) => e.event === 'assigned' && (e.partitions as number[]).length === 4, 30_000);
      const more = Array.from({ length: 4 }, (_, i) => `more-${i}`);
      await produce(topic, more, 4);
      await eventually(async () => {
        const read = librdkafka.eventsOf('record').map((e) => e.value as string).filter((v) => v.startsWith('more-'));
        expect(read.sort(), librdkafka.describe()).toEqual(more);
      }, 30_000);
      const readTwice = librdkafka.eventsOf('record').map((e) => e.value as string).filter((v) => kafkaPython.eventsOf('record').some((k) => k.value === v));
      expect(readTwice, 'records kafka-python committed are not read again by librdkafka').toEqual([]);
    } finally {
      librdkafka.kill();
      kafkaPython.kill();
    }
  });

  it('refuses a kafkajs member (RoundRobinAssigner) in a librdkafka group (range) with INCONSISTENT_GROUP_PROTOCOL and leaves the first member alone', async () => {
    const topic = uniqueName('mixed-inconsistent');
    const group = uniqueName('mixed-inconsistent');
    await createTopic(topic, 2);
    const librdkafka = JsonLineProcess.python('ck_group_member.py', { bootstrap: broker.bootstrap, topic, group, client_id: 'mixed-librdkafka' }, 90_000);
    const kafka = new Kafka({ clientId: 'mixed-kafkajs', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
    const consumer = kafka.consumer({ groupId: group, sessionTimeout: 6000, heartbeatInterval: 300, retry: { retries: 0 } });
    try {
      await librdkafka.waitFor('librdkafka member assigned both partitions', (e) => e.event === 'assigned' && (e.partitions as number[]).length === 2, 30_000);
      const crashed = new Promise<unknown>((resolve) => {
        consumer.on(consumer.events.CRASH, (event) => resolve(event.payload.error));
      });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ eachMessage: async () => {} });
      const error = await crashed;
      expect((error as { type?: string }).type, String(error)).toBe('INCONSISTENT_GROUP_PROTOCOL');
      expect(librdkafka.eventsOf('revoked'), librdkafka.describe()).toEqual([]);
      expect(lastAssignment(librdkafka)).toEqual([0, 1]);
    } finally {
      await consumer.disconnect().catch(() => undefined);
      librdkafka.kill();
    }
  });

  it('selects the one protocol every member supports: librdkafka (roundrobin only) with kafka-python (range, roundrobin) gets a roundrobin split', async () => {
    const topic = uniqueName('mixed-select');
    const group = uniqueName('mixed-select');
    await createTopic(topic, 4);
    const librdkafka = JsonLineProcess.python('ck_group_member.py', {
      bootstrap: broker.bootstrap, topic, group, client_id: 'select-librdkafka', config: { 'partition.assignment.strategy': 'roundrobin' },
    }, 90_000);
    const kafkaPython = JsonLineProcess.python('kp_group_member.py', { bootstrap: broker.bootstrap, topic, group, client_id: 'select-kafka-python' }, 90_000);
    try {
      await eventually(async () => {
        const split = [lastAssignment(librdkafka) ?? [], lastAssignment(kafkaPython) ?? []].map((p) => p.join(',')).sort();
        // range would give 0,1 / 2,3; roundrobin over sorted partitions alternates members
        expect(split, `${librdkafka.describe()}\n${kafkaPython.describe()}`).toEqual(['0,2', '1,3']);
      }, 40_000);
      const groups = await runPython<{ groups: { id: string; state: string; protocol: string }[] }>('ck_admin.py', { bootstrap: broker.bootstrap, op: 'list_groups' });
      expect(groups.groups.find((g) => g.id === group)).toMatchObject({ state: 'Stable', protocol: 'roundrobin' });
    } finally {
      librdkafka.kill();
      kafkaPython.kill();
    }
  });
});

