/**
 * The client library's broker scenarios run once over TCP and once over the WebSocket gateway
 * (`/kafka`, Node's `ws`): the same Admin, Producer and Consumer code, only the transport differs.
 * Scenarios follow the client's own tests (test/clients/) and the list: every codec,
 * a group of three rebalancing, commits, seek, pause/resume, idempotent retries.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../host/clients/admin.js';
import { Consumer, type ConsumerOptions, type ConsumerRecord } from '../../host/clients/consumer.js';
import { Producer, type ProducerOptions } from '../../host/clients/producer.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { ResponseDropper } from '../clients/fault-transport.js';
import { startGatewayBroker, TCP, WEBSOCKET, type GatewayBroker, type TransportUnderTest } from './gateway-broker.js';

let broker: GatewayBroker;

beforeAll(async () => {
  broker = await startGatewayBroker();
});

afterAll(async () => {
  await broker?.stop();
});

async function waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Polls until `count` records arrived (fails after 20 s). */
async function pollAtLeast(consumer: Consumer, count: number): Promise<ConsumerRecord[]> {
  const records: ConsumerRecord[] = [];
  const deadline = Date.now() + 20_000;
  while (records.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${records.length} of ${count} records arrived`);
    records.push(...(await consumer.poll(200)));
  }
  return records;
}

const values = (records: ConsumerRecord[]): string[] => records.map((r) => r.value!.toString());

describe.each([TCP, WEBSOCKET])('The client over $name', (transport: TransportUnderTest) => {
  let admin: Admin;
  let producer: Producer;
  const closing: { close(): Promise<void> }[] = [];
  // Topic and group names per transport: both suites share one broker.
  const name = (base: string): string => `${transport.name}-${base}`;

  const connection = () => ({ bootstrapServers: transport.bootstrapServers(broker), transportFactory: transport.factory(broker) });
  const newProducer = (options: Partial<ProducerOptions> = {}): Producer => {
    const p = new Producer({ ...connection(), lingerMs: 0, ...options });
    closing.push(p);
    return p;
  };
  const newConsumer = (options: Partial<ConsumerOptions> = {}): Consumer => {
    const c = new Consumer({ ...connection(), heartbeatIntervalMs: 100, sessionTimeoutMs: 10_000, ...options });
    closing.push(c);
    return c;
  };
  const produce = async (topic: string, count: number, prefix = 'v', partition?: number): Promise<void> => {
    await producer.send({ topic, messages: Array.from({ length: count }, (_, i) => ({ key: `k${i}`, value: `${prefix}${i}`, ...(partition === undefined ? {} : { partition }) })) });
  };

  beforeAll(() => {
    admin = new Admin(connection());
    producer = new Producer({ ...connection(), lingerMs: 0 });
  });

  afterEach(async () => {
    await Promise.all(closing.splice(0).map((client) => client.close().catch(() => undefined)));
  });

  afterAll(async () => {
    await producer?.close();
    await admin?.close();
  });

  it('creates, describes and deletes topics with Admin', async () => {
    const topic = name('admin');
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] });
    const [described] = await admin.describeTopics({ topics: [topic] });
    expect(described!.partitions).toHaveLength(3);
    const cluster = await admin.describeCluster();
    expect(cluster.brokers.map((b) => b.nodeId)).toEqual([broker.broker.nodeId]);
    await admin.deleteTopics({ topics: [topic] });
    expect(await admin.listTopics()).not.toContain(topic);
  });

  it.each(['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const)('produces and consumes records compressed with %s', async (codec) => {
    const topic = name(`codec-${codec}`);
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const p = newProducer({ compression: codec, lingerMs: 20 });
    const sent = await p.send({ topic, messages: Array.from({ length: 25 }, (_, i) => ({ key: `k${i}`, value: `value-${i}`.repeat(4), headers: { n: String(i) } })) });
    expect(sent.map((m) => m.offset)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    const c = newConsumer();
    c.assign([{ topic, partition: 0 }]);
    await c.seekToBeginning();
    const records = await pollAtLeast(c, 25);
    expect(records.map((r) => r.key!.toString())).toEqual(Array.from({ length: 25 }, (_, i) => `k${i}`));
    expect(values(records)).toEqual(Array.from({ length: 25 }, (_, i) => `value-${i}`.repeat(4)));
    expect(records[9]!.headers).toEqual([{ key: 'n', value: Buffer.from('9') }]);
  });

  it('rebalances a group of three consumers and commits what they consumed', async () => {
    const topic = name('group');
    const groupId = name('group');
    await admin.createTopics({ topics: [{ topic, numPartitions: 6 }] });
    const members = [0, 1, 2].map(() => newConsumer({ groupId, autoOffsetReset: 'earliest' }));
    const seen = members.map(() => new Set<string>());
    const runs: Promise<void>[] = [];
    const start = (i: number): void => {
      members[i]!.subscribe([topic]);
      runs.push(members[i]!.run({ pollTimeoutMs: 100, eachMessage: ({ message }) => { seen[i]!.add(message.value!.toString()); } }));
    };
    const partitionsOf = (i: number): number[] => members[i]!.assignment().map((p) => p.partition).sort();
    start(0);
    await waitFor(() => partitionsOf(0).length === 6, 'the first member to own all six partitions');
    start(1);
    start(2);
    await waitFor(() => [0, 1, 2].every((i) => partitionsOf(i).length === 2), 'three members with two partitions each');
    expect([0, 1, 2].flatMap(partitionsOf).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    await produce(topic, 60);
    await waitFor(() => seen.reduce((n, s) => n + s.size, 0) >= 60, 'all 60 records consumed');
    expect(seen.every((s) => s.size > 0)).toBe(true);
    await members[0]!.close();
    await waitFor(() => partitionsOf(1).length === 3 && partitionsOf(2).length === 3, 'the two remaining members to take over');
    for (const member of members.slice(1)) member.stop();
    await Promise.all(runs);
    await Promise.all(members.slice(1).map((member) => member.close()));
    const committed = await admin.fetchOffsets({ groupId });
    expect(committed.reduce((sum, c) => sum + c.offset, 0)).toBe(60);
  });

  it('commits offsets with commitSync and commitAsync and reads them back', async () => {
    const topic = name('commit');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await produce(topic, 5);
    const c = newConsumer({ groupId: name('commit'), autoOffsetReset: 'earliest', enableAutoCommit: false });
    c.subscribe([topic]);
    await pollAtLeast(c, 5);
    await c.commitSync([{ topic, partition: 0, offset: 3 }]);
    expect(await c.committed([{ topic, partition: 0 }])).toEqual([{ topic, partition: 0, offset: 3 }]);
    const asyncResult = await new Promise<Error | null>((resolve) => void c.commitAsync([{ topic, partition: 0, offset: 4 }], resolve));
    expect(asyncResult).toBeNull();
    expect((await c.committed([{ topic, partition: 0 }]))[0]!.offset).toBe(4);
  });

  it('seeks, pauses and resumes partitions', async () => {
    const topic = name('seek');
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    await produce(topic, 5, 'a', 0);
    await produce(topic, 5, 'b', 1);
    const c = newConsumer();
    const first = { topic, partition: 0 };
    const second = { topic, partition: 1 };
    c.assign([first, second]);
    c.seek(first, 3);
    c.seek(second, 0);
    c.pause([second]);
    expect(values(await pollAtLeast(c, 2))).toEqual(['a3', 'a4']);
    expect(await c.poll(300)).toEqual([]);
    c.resume([second]);
    expect(values(await pollAtLeast(c, 5))).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
    await c.seekToBeginning([first]);
    expect((await pollAtLeast(c, 1))[0]!.value!.toString()).toBe('a0');
  });

  it('retries produces whose responses were lost without writing duplicates', async () => {
    const topic = name('idempotent');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const faults = new ResponseDropper(transport.factory(broker));
    const p = newProducer({ transportFactory: faults.factory, retryBackoffMs: 10 });
    await p.send({ topic, messages: [{ value: 'warm-up' }] });
    faults.dropResponses(ApiKey.Produce, 2);
    const metadata = await p.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` })) });
    expect(faults.sent.get(ApiKey.Produce)).toBeGreaterThanOrEqual(4);
    expect(metadata.map((m) => m.offset)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    const c = newConsumer();
    c.assign([{ topic, partition: 0 }]);
    await c.seekToBeginning();
    const records = await pollAtLeast(c, 11);
    expect(values(records)).toEqual(['warm-up', ...Array.from({ length: 10 }, (_, i) => `v${i}`)]);
    expect(await c.poll(300)).toEqual([]);
  });
});
