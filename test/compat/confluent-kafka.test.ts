/**
 * confluent-kafka-python 1.7.0 (Debian, librdkafka 2.0.2) against a Tributary
 * broker process: producer with acks=all and delivery reports, AdminClient,
 * a 2-member consumer group over 4 partitions that rebalances when a member
 * leaves and resumes from committed offsets after a broker restart, and the
 * legacy group listing (ListGroups v0 + DescribeGroups v0).
 *
 * The client programs are test/compat/py/ck_*.py (JSON in, JSON out).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses, type BrokerProcess } from '../helpers/broker-process.js';
import { brokerTail, startCompatBroker } from './compat-broker.js';
import { eventually, JsonLineProcess, killAllClientProcesses, runPython, uniqueName } from './processes.js';

interface Delivery { index: number; partition: number; offset: number; key: string | null; value: string | null; error: string | null }
interface ProduceResult { delivered: (Delivery | null)[]; undelivered_after_flush: number; missing_reports: number[] }
interface ConsumedRecord { partition: number; offset: number; key: string | null; value: string | null; headers: [string, string | null][] | null; timestamp: number; timestamp_type: number }
interface ConsumeResult { records: ConsumedRecord[]; committed: { partition: number; offset: number }[] | null; assignment: number[] }
interface TopicListing {
  controller_id: number;
  brokers: Record<string, string>;
  topics: Record<string, { error: string | null; partitions: Record<string, { leader: number; replicas: number[]; isrs: number[]; error: string | null }> }>;
}
interface ConfigListing { configs: Record<string, { value: string | null; is_default: boolean; is_read_only: boolean; source: number }> }
interface GroupListing { groups: { id: string; state: string; protocol_type: string; protocol: string; error: string | null; members: { id: string; client_id: string; client_host: string }[] }[] }
interface Message { value: string; key?: string; headers?: [string, string][]; partition?: number }

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startCompatBroker({ 'num.partitions': 1, 'auto.create.topics.enable': true });
});

afterAll(async () => {
  killAllClientProcesses();
  await stopAllBrokerProcesses();
});

async function withBrokerLog<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${brokerTail(broker)}`);
  }
}

function admin<T>(args: Record<string, unknown>): Promise<T> {
  return withBrokerLog(runPython<T>('ck_admin.py', { bootstrap: broker.bootstrap, ...args }, { timeoutMs: 30_000 }));
}

async function produce(topic: string, messages: Message[], config: Record<string, unknown> = {}): Promise<Delivery[]> {
  const result = await withBrokerLog(runPython<ProduceResult>('ck_produce.py', { bootstrap: broker.bootstrap, topic, messages, config }, { timeoutMs: 40_000 }));
  expect(result.missing_reports, 'messages without a delivery report').toEqual([]);
  const delivered = result.delivered.filter((d): d is Delivery => d !== null);
  expect(delivered.filter((d) => d.error !== null), 'delivery errors').toEqual([]);
  return delivered;
}

function consume(args: Record<string, unknown>): Promise<ConsumeResult> {
  return withBrokerLog(runPython<ConsumeResult>('ck_consume.py', { bootstrap: broker.bootstrap, timeout_s: 25, ...args }, { timeoutMs: 40_000 }));
}

async function createTopic(name: string, partitions: number, config: Record<string, string> = {}): Promise<void> {
  const created = await admin<{ results: Record<string, string | null> }>({ op: 'create_topics', topics: [{ name, num_partitions: partitions, config }] });
  expect(created.results).toEqual({ [name]: null });
}

describe('confluent-kafka-python 1.7.0 (librdkafka 2.0.2)', { timeout: 180_000 }, () => {
  it('delivers keyed records with headers at acks=all, reporting each partition and offset, and reads them back', async () => {
    const topic = uniqueName('ck-produce');
    await createTopic(topic, 4);
    const messages: Message[] = Array.from({ length: 20 }, (_, i) => ({
      key: `key-${i}`,
      value: `value-${i}`,
      partition: i % 4,
      headers: [['seq', String(i)], ['source', 'confluent-kafka']],
    }));
    const delivered = await produce(topic, messages, { acks: 'all' });
    expect(delivered).toHaveLength(20);
    for (const d of delivered) {
      expect(d.partition).toBe(d.index % 4);
      expect(d.offset).toBe(Math.floor(d.index / 4));
      expect(d.key).toBe(`key-${d.index}`);
    }

    const consumed = await consume({ topic, count: 20, partitions: [0, 1, 2, 3] });
    const got = consumed.records
      .map((r) => ({ partition: r.partition, offset: r.offset, key: r.key, value: r.value, headers: r.headers }))
      .sort((a, b) => a.partition - b.partition || a.offset - b.offset);
    const expected = messages
      .map((m, i) => ({ partition: i % 4, offset: Math.floor(i / 4), key: m.key, value: m.value, headers: m.headers }))
      .sort((a, b) => a.partition - b.partition || a.offset - b.offset);
    expect(got).toEqual(expected);
    for (const record of consumed.records) expect(record.timestamp_type).toBe(1); // CreateTime
  });

  it('administers topics: create (and refuse a duplicate), list, add partitions, describe and alter configs, delete', async () => {
    const topic = uniqueName('ck-admin');
    await createTopic(topic, 2, { 'retention.ms': '3600000' });

    const duplicate = await admin<{ results: Record<string, string | null> }>({ op: 'create_topics', topics: [{ name: topic, num_partitions: 2 }] });
    expect(duplicate.results[topic]).toMatch(/TOPIC_ALREADY_EXISTS/);

    const listed = await admin<TopicListing>({ op: 'list_topics' });
    expect(Object.values(listed.brokers)).toEqual([broker.bootstrap]);
    expect(Object.keys(listed.brokers)).toEqual([String(listed.controller_id)]);
    const described = listed.topics[topic];
    expect(described?.error).toBeNull();
    expect(Object.keys(described?.partitions ?? {}).sort()).toEqual(['0', '1']);
    for (const partition of Object.values(described?.partitions ?? {})) {
      expect(partition).toEqual({ leader: listed.controller_id, replicas: [listed.controller_id], isrs: [listed.controller_id], error: null });
    }

    const grown = await admin<{ results: Record<string, string | null> }>({ op: 'create_partitions', topic, new_total: 5 });
    expect(grown.results).toEqual({ [topic]: null });
    const afterGrow = await admin<TopicListing>({ op: 'list_topics', topic });
    expect(Object.keys(afterGrow.topics[topic]?.partitions ?? {}).sort()).toEqual(['0', '1', '2', '3', '4']);

    const configs = await admin<ConfigListing>({ op: 'describe_configs', topic });
    expect(configs.configs['retention.ms']).toMatchObject({ value: '3600000', is_default: false });
    expect(configs.configs['cleanup.policy']).toMatchObject({ value: 'delete', is_default: true });
    expect(configs.configs['segment.bytes']?.value).toBe('1073741824');

    const altered = await admin<{ results: Record<string, string | null> }>({ op: 'alter_configs', topic, config: { 'retention.ms': '7200000', 'cleanup.policy': 'compact' } });
    expect(altered.results).toEqual({ [topic]: null });
    const reconfigured = await admin<ConfigListing>({ op: 'describe_configs', topic });
    expect(reconfigured.configs['retention.ms']).toMatchObject({ value: '7200000', is_default: false });
    expect(reconfigured.configs['cleanup.policy']).toMatchObject({ value: 'compact', is_default: false });

    const deleted = await admin<{ results: Record<string, string | null> }>({ op: 'delete_topics', topics: [topic] });
    expect(deleted.results).toEqual({ [topic]: null });
    await eventually(async () => {
      const after = await admin<TopicListing>({ op: 'list_topics' });
      expect(Object.keys(after.topics)).not.toContain(topic);
    });
  });

  it('balances 4 partitions over 2 members, moves all to the survivor when one leaves, and resumes from committed offsets after a broker restart', async () => {
    const topic = uniqueName('ck-group');
    const group = uniqueName('ck-group');
    await createTopic(topic, 4);
    const member = (clientId: string): JsonLineProcess =>
      JsonLineProcess.python('ck_group_member.py', { bootstrap: broker.bootstrap, topic, group, client_id: clientId }, 120_000);
    const lastAssignment = (m: JsonLineProcess): number[] | undefined =>
      m.eventsOf('assigned').at(-1)?.partitions as number[] | undefined;

    const a = member('member-a');
    await a.waitFor('member-a assigned all 4 partitions', (e) => e.event === 'assigned' && (e.partitions as number[]).length === 4);
    const b = member('member-b');
    try {
      await b.waitFor('member-b assigned 2 partitions', (e) => e.event === 'assigned' && (e.partitions as number[]).length === 2);
      await eventually(async () => {
        expect(lastAssignment(a)?.length, a.describe()).toBe(2);
      });
      const aParts = lastAssignment(a) ?? [];
      const bParts = lastAssignment(b) ?? [];
      expect([...aParts, ...bParts].sort()).toEqual([0, 1, 2, 3]);

      // the legacy listing (ListGroups v0 + DescribeGroups v0) sees the live group
      const groups = await admin<GroupListing>({ op: 'list_groups' });
      const listedGroup = groups.groups.find((g) => g.id === group);
      expect(listedGroup).toMatchObject({ state: 'Stable', protocol_type: 'consumer', protocol: 'range', error: null });
      expect(listedGroup?.members.map((m) => m.client_id)).toEqual(['member-a', 'member-b']);

      const firstRound: Message[] = Array.from({ length: 40 }, (_, i) => ({ key: `k${i}`, value: `round1-${i}`, partition: i % 4 }));
      await produce(topic, firstRound);
      const recordsOf = (m: JsonLineProcess): string[] => m.eventsOf('record').map((e) => e.value as string);
      await eventually(async () => {
        expect(recordsOf(a).length + recordsOf(b).length, `${a.describe()}\n${b.describe()}`).toBe(40);
      }, 30_000);
      for (const event of a.eventsOf('record')) expect(aParts).toContain(event.partition);
      for (const event of b.eventsOf('record')) expect(bParts).toContain(event.partition);
      expect([...recordsOf(a), ...recordsOf(b)].sort()).toEqual(firstRound.map((m) => m.value).sort());
      await eventually(async () => {
        expect(a.eventsOf('committed').length + b.eventsOf('committed').length).toBe(40);
      });

      b.send('close');
      const bClosed = await b.waitFor('member-b closed', (e) => e.event === 'closed');
      expect(bClosed.committed).toEqual(bParts.map((partition) => ({ partition, offset: 10 })));
      expect((await b.waitForExit()).code).toBe(0);
      await a.waitFor('member-a reassigned all 4 partitions after member-b left',
        (e) => e.event === 'assigned' && (e.partitions as number[]).length === 4 && a.eventsOf('assigned').indexOf(e) > 0);

      const secondRound: Message[] = Array.from({ length: 8 }, (_, i) => ({ key: `k${i}`, value: `round2-${i}`, partition: i % 4 }));
      await produce(topic, secondRound);
      await eventually(async () => {
        expect(recordsOf(a).filter((v) => v.startsWith('round2-')).sort(), a.describe()).toEqual(secondRound.map((m) => m.value).sort());
      }, 30_000);
      // member-b's partitions were taken over at member-b's committed offsets: nothing read twice
      expect(recordsOf(a).filter((v) => v.startsWith('round1-')).length + recordsOf(b).length).toBe(40);
      a.send('close');
      const aClosed = await a.waitFor('member-a closed', (e) => e.event === 'closed');
      expect(aClosed.committed).toEqual([0, 1, 2, 3].map((partition) => ({ partition, offset: 12 })));
    } finally {
      a.kill();
      b.kill();
    }

    await broker.restart();

    const thirdRound: Message[] = Array.from({ length: 8 }, (_, i) => ({ key: `k${i}`, value: `round3-${i}`, partition: i % 4 }));
    await produce(topic, thirdRound);
    const resumed = await consume({ topic, group, count: 8, commit: true });
    expect(resumed.assignment).toEqual([0, 1, 2, 3]);
    expect(resumed.records.map((r) => [r.partition, r.offset, r.value]).sort()).toEqual(
      thirdRound.map((m, i) => [i % 4, 12 + Math.floor(i / 4), m.value]).sort(),
    );
    expect(resumed.committed).toEqual([0, 1, 2, 3].map((partition) => ({ partition, offset: 14 })));
  });

  it('keeps an idempotent producer\'s records in order without duplicates (enable.idempotence=True)', async () => {
    const topic = uniqueName('ck-idempotent');
    await createTopic(topic, 2);
    const messages: Message[] = Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, value: `idem-${i}`, partition: i % 2 }));
    const delivered = await produce(topic, messages, { 'enable.idempotence': true, 'linger.ms': 2, 'batch.num.messages': 20 });
    expect(delivered).toHaveLength(300);
    const consumed = await consume({ topic, count: 300, partitions: [0, 1], timeout_s: 25 });
    for (const partition of [0, 1]) {
      const list = consumed.records.filter((r) => r.partition === partition);
      expect(list.map((r) => r.offset)).toEqual(list.map((_, i) => i));
      expect(list.map((r) => r.value)).toEqual(messages.filter((m) => m.partition === partition).map((m) => m.value));
    }
  });

  it('gives a crashed member\'s partitions to the survivor once session.timeout.ms expires (member killed with SIGKILL)', async () => {
    const topic = uniqueName('ck-expiry');
    const group = uniqueName('ck-expiry');
    await createTopic(topic, 4);
    const member = (clientId: string): JsonLineProcess =>
      JsonLineProcess.python('ck_group_member.py', { bootstrap: broker.bootstrap, topic, group, client_id: clientId }, 90_000);
    const survivor = member('survivor');
    const victim = member('victim');
    try {
      await survivor.waitFor('survivor started', (e) => e.event === 'started');
      await victim.waitFor('victim assigned 2 partitions', (e) => e.event === 'assigned' && (e.partitions as number[]).length === 2);
      await eventually(async () => {
        expect(survivor.eventsOf('assigned').at(-1)?.partitions, survivor.describe()).toHaveLength(2);
      });
      const victimPartitions = victim.eventsOf('assigned').at(-1)?.partitions as number[];
      victim.kill(); // no LeaveGroup: only the session timeout (6 s) can free its partitions
      const reassigned = await survivor.waitFor('survivor takes over all 4 partitions after the victim\'s session expires',
        (e) => e.event === 'assigned' && (e.partitions as number[]).length === 4, 40_000);
      expect(reassigned.partitions).toEqual([0, 1, 2, 3]);

      const messages: Message[] = Array.from({ length: 8 }, (_, i) => ({ key: `k${i}`, value: `after-crash-${i}`, partition: i % 4 }));
      await produce(topic, messages);
      await eventually(async () => {
        const values = survivor.eventsOf('record').map((e) => e.value as string).sort();
        expect(values, survivor.describe()).toEqual(messages.map((m) => m.value).sort());
      }, 30_000);
      expect(survivor.eventsOf('record').filter((e) => victimPartitions.includes(e.partition as number))).toHaveLength(4);
    } finally {
      survivor.kill();
      victim.kill();
    }
  });

  it('lets a static member (group.instance.id) crash and come back within the session timeout to its old partitions without rebalancing the others', async () => {
    const topic = uniqueName('ck-static');
    const group = uniqueName('ck-static');
    await createTopic(topic, 4);
    const member = (instance: string): JsonLineProcess =>
      JsonLineProcess.python('ck_group_member.py', {
        bootstrap: broker.bootstrap, topic, group, client_id: `static-${instance}`,
        config: { 'group.instance.id': `instance-${instance}`, 'session.timeout.ms': 10_000 },
      }, 90_000);
    const stay = member('stay');
    const bounce = member('bounce');
    let again: JsonLineProcess | undefined;
    try {
      await bounce.waitFor('bounce assigned 2 partitions', (e) => e.event === 'assigned' && (e.partitions as number[]).length === 2);
      await eventually(async () => {
        expect(stay.eventsOf('assigned').at(-1)?.partitions, stay.describe()).toHaveLength(2);
      });
      const bouncePartitions = bounce.eventsOf('assigned').at(-1)?.partitions as number[];
      const stayEventsBefore = stay.events.filter((e) => e.event === 'assigned' || e.event === 'revoked').length;

      bounce.kill();
      again = member('bounce');
      const rejoined = await again.waitFor('bounce (same group.instance.id) assigned again', (e) => e.event === 'assigned', 30_000);
      expect(rejoined.partitions).toEqual(bouncePartitions);

      const messages: Message[] = Array.from({ length: 8 }, (_, i) => ({ key: `k${i}`, value: `static-${i}`, partition: i % 4 }));
      await produce(topic, messages);
      const restarted = again;
      await eventually(async () => {
        const values = [...stay.eventsOf('record'), ...restarted.eventsOf('record')].map((e) => e.value as string).sort();
        expect(values, `${stay.describe()}\n${restarted.describe()}`).toEqual(messages.map((m) => m.value).sort());
      }, 30_000);
      for (const event of restarted.eventsOf('record')) expect(bouncePartitions).toContain(event.partition);
      expect(stay.events.filter((e) => e.event === 'assigned' || e.event === 'revoked').length, stay.describe()).toBe(stayEventsBefore);
    } finally {
      stay.kill();
      bounce.kill();
      again?.kill();
    }
  });

  it('rebalances onto new partitions after CreatePartitions grows a subscribed topic', async () => {
    const topic = uniqueName('ck-grow');
    const group = uniqueName('ck-grow');
    await createTopic(topic, 2);
    const consumer = JsonLineProcess.python('ck_group_member.py', {
      bootstrap: broker.bootstrap, topic, group, client_id: 'grower', config: { 'topic.metadata.refresh.interval.ms': 1000 },
    }, 90_000);
    try {
      await consumer.waitFor('assigned the 2 original partitions', (e) => e.event === 'assigned' && (e.partitions as number[]).length === 2);
      const grown = await admin<{ results: Record<string, string | null> }>({ op: 'create_partitions', topic, new_total: 4 });
      expect(grown.results).toEqual({ [topic]: null });
      const reassigned = await consumer.waitFor('assigned all 4 partitions after the topic grew',
        (e) => e.event === 'assigned' && (e.partitions as number[]).length === 4, 40_000);
      expect(reassigned.partitions).toEqual([0, 1, 2, 3]);
      const messages: Message[] = Array.from({ length: 4 }, (_, i) => ({ key: `k${i}`, value: `grown-${i}`, partition: i }));
      await produce(topic, messages);
      await eventually(async () => {
        expect(consumer.eventsOf('record').map((e) => [e.partition, e.offset, e.value]).sort(), consumer.describe())
          .toEqual(messages.map((m, i) => [i, 0, m.value]));
      }, 30_000);
    } finally {
      consumer.kill();
    }
  });

  it.each(['SIGTERM', 'SIGKILL'] as const)('keeps a live group member consuming through a %s broker restart: nothing lost, nothing committed read again', async (signal) => {
    const topic = uniqueName(`ck-rolling-${signal.toLowerCase()}`);
    const group = uniqueName('ck-rolling');
    await createTopic(topic, 2);
    const consumer = JsonLineProcess.python('ck_group_member.py', {
      bootstrap: broker.bootstrap, topic, group, client_id: 'rolling', config: { 'reconnect.backoff.max.ms': 500 },
    }, 120_000);
    try {
      await consumer.waitFor('assigned both partitions', (e) => e.event === 'assigned' && (e.partitions as number[]).length === 2);
      const before: Message[] = Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `before-${i}`, partition: i % 2 }));
      await produce(topic, before);
      await eventually(async () => expect(consumer.eventsOf('committed'), consumer.describe()).toHaveLength(10), 30_000);

      if (signal === 'SIGKILL') await broker.kill9();
      await broker.restart();

      const after: Message[] = Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `after-${i}`, partition: i % 2 }));
      await produce(topic, after);
      const values = (): string[] => consumer.eventsOf('record').map((e) => e.value as string);
      await eventually(async () => {
        expect([...new Set(values())].sort(), `${consumer.describe()}\n${brokerTail(broker)}`)
          .toEqual([...before, ...after].map((m) => m.value).sort());
      }, 60_000);
      expect(values().filter((v) => v.startsWith('before-')), 'records committed before the restart are not read again').toHaveLength(10);
      consumer.send('close');
      const closed = await consumer.waitFor('closed', (e) => e.event === 'closed');
      expect(closed.committed).toEqual([{ partition: 0, offset: 10 }, { partition: 1, offset: 10 }]);
    } finally {
      consumer.kill();
    }
  });

  it('describes the broker\'s own configs with Kafka names (DescribeConfigs on a BROKER resource)', async () => {
    const listed = await admin<TopicListing>({ op: 'list_topics' });
    const configs = await admin<ConfigListing>({ op: 'describe_broker_configs', broker_id: String(listed.controller_id) });
    expect(configs.configs['num.partitions']?.value).toBe('1');
    expect(configs.configs['auto.create.topics.enable']?.value).toBe('true');
    expect(configs.configs['group.initial.rebalance.delay.ms']?.value).toBe('0');
    expect(configs.configs['log.dirs']?.value).toBe(broker.logDir);
    expect(configs.configs['message.max.bytes']?.value).toMatch(/^\d+$/);
  });

  it('keeps order and offsets when librdkafka pipelines thousands of small Produce requests on one connection', async () => {
    const topic = uniqueName('ck-pipeline');
    await createTopic(topic, 3);
    const messages: Message[] = Array.from({ length: 6000 }, (_, i) => ({ key: `p${i}`, value: `pipelined-${i}`, partition: i % 3 }));
    const delivered = await produce(topic, messages, { acks: 'all', 'linger.ms': 0, 'batch.num.messages': 5, 'max.in.flight.requests.per.connection': 1000 });
    expect(delivered).toHaveLength(6000);
    for (const partition of [0, 1, 2]) {
      const mine = delivered.filter((d) => d.partition === partition).sort((a, b) => a.index - b.index);
      expect(mine.map((d) => d.offset), `partition ${partition}: offsets follow send order`).toEqual(mine.map((_, i) => i));
    }
  });

  it('reads every record of 8 partitions with a fetch.max.bytes far below their total size (no partition starves)', async () => {
    const topic = uniqueName('ck-fetch-limits');
    await createTopic(topic, 8);
    const messages: Message[] = Array.from({ length: 800 }, (_, i) => ({ key: `f${i}`, value: `${i}:${'v'.repeat(300)}`, partition: i % 8 }));
    await produce(topic, messages, { 'linger.ms': 0, 'batch.num.messages': 10 });
    const consumed = await consume({
      topic, count: 800, partitions: [0, 1, 2, 3, 4, 5, 6, 7], timeout_s: 30,
      config: { 'fetch.max.bytes': 8192, 'message.max.bytes': 4096, 'fetch.message.max.bytes': 4096 },
    });
    expect(consumed.records).toHaveLength(800);
    for (let partition = 0; partition < 8; partition++) {
      const list = consumed.records.filter((r) => r.partition === partition);
      expect(list.map((r) => r.offset)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(list.map((r) => r.value)).toEqual(messages.filter((m) => m.partition === partition).map((m) => m.value));
    }
  });

  it('serves a 64-partition topic: metadata lists every partition and a record sent to each comes back from each', async () => {
    const topic = uniqueName('ck-wide');
    await createTopic(topic, 64);
    const listed = await admin<TopicListing>({ op: 'list_topics', topic });
    expect(Object.keys(listed.topics[topic]?.partitions ?? {}).map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 64 }, (_, i) => i));
    const messages: Message[] = Array.from({ length: 64 }, (_, i) => ({ key: `w${i}`, value: `wide-${i}`, partition: i }));
    const delivered = await produce(topic, messages);
    expect(delivered.map((d) => [d.partition, d.offset])).toEqual(messages.map((_, i) => [i, 0]));
    const consumed = await consume({ topic, count: 64, partitions: Array.from({ length: 64 }, (_, i) => i) });
    expect(consumed.records.map((r) => [r.partition, r.offset, r.value]).sort((a, b) => (a[0] as number) - (b[0] as number)))
      .toEqual(messages.map((m, i) => [i, 0, m.value]));
  });
});

