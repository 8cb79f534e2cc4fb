import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../host/clients/admin.js';
import { Consumer, type ConsumerOptions, type ConsumerRecord } from '../../host/clients/consumer.js';
import { Producer } from '../../host/clients/producer.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from './broker-harness.js';

let broker: TestBroker;
let admin: Admin;
let producer: Producer;
const consumers: Consumer[] = [];

beforeAll(async () => {
  broker = await startTestBroker();
  admin = new Admin({ bootstrapServers: [broker.bootstrap] });
  producer = new Producer({ bootstrapServers: [broker.bootstrap], lingerMs: 0 });
});

afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.close().catch(() => undefined)));
});

afterAll(async () => {
  await producer?.close();
  await admin?.close();
  await broker?.stop();
});

function consumer(options: Partial<ConsumerOptions> = {}): Consumer {
  const c = new Consumer({ bootstrapServers: [broker.bootstrap], heartbeatIntervalMs: 100, sessionTimeoutMs: 10_000, ...options });
  consumers.push(c);
  return c;
}

async function createTopic(topic: string, numPartitions: number): Promise<void> {
  await admin.createTopics({ topics: [{ topic, numPartitions }] });
}

async function produce(topic: string, count: number, prefix = 'v', partition?: number): Promise<void> {
  await producer.send({ topic, messages: Array.from({ length: count }, (_, i) => ({ key: `k${i}`, value: `${prefix}${i}`, ...(partition === undefined ? {} : { partition }) })) });
}

/** Polls until `count` records arrived (fails the test after 20 s). */
async function pollAtLeast(c: Consumer, count: number): Promise<ConsumerRecord[]> {
  const records: ConsumerRecord[] = [];
  const deadline = Date.now() + 20_000;
  while (records.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${records.length} of ${count} records arrived`);
    records.push(...(await c.poll(200)));
  }
  return records;
}

const values = (records: ConsumerRecord[]): string[] => records.map((r) => r.value!.toString());

async function waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('Consumer against an in-process broker', () => {
  it.each(['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const)('round-trips keys, values and headers compressed with %s', async (codec) => {
    const topic = `c-codec-${codec}`;
    await createTopic(topic, 1);
    const p = new Producer({ bootstrapServers: [broker.bootstrap], compression: codec, lingerMs: 20 });
    await p.send({ topic, messages: Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `value-${i}`.repeat(5), headers: { n: String(i) } })) });
    await p.close();
    const c = consumer();
    c.assign([{ topic, partition: 0 }]);
    await c.seekToBeginning();
    const records = await pollAtLeast(c, 30);
    expect(records.map((r) => r.offset)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(records.map((r) => r.key!.toString())).toEqual(Array.from({ length: 30 }, (_, i) => `k${i}`));
    expect(values(records)).toEqual(Array.from({ length: 30 }, (_, i) => `value-${i}`.repeat(5)));
    expect(records[7]!.headers).toEqual([{ key: 'n', value: Buffer.from('7') }]);
  });

  it('starts at the end by default and at the beginning with auto.offset.reset=earliest', async () => {
    await createTopic('c-reset', 1);
    await produce('c-reset', 3, 'old');
    const latest = consumer({ groupId: 'c-reset-latest' });
    latest.subscribe(['c-reset']);
    expect(await latest.poll(500)).toEqual([]);
    await produce('c-reset', 2, 'new');
    expect(values(await pollAtLeast(latest, 2))).toEqual(['new0', 'new1']);
    const earliest = consumer({ groupId: 'c-reset-earliest', autoOffsetReset: 'earliest' });
    earliest.subscribe(['c-reset']);
    expect(values(await pollAtLeast(earliest, 5))).toEqual(['old0', 'old1', 'old2', 'new0', 'new1']);
  });

  it('fails poll with OFFSET_OUT_OF_RANGE when auto.offset.reset is none and nothing is committed', async () => {
    await createTopic('c-reset-none', 1);
    const c = consumer({ groupId: 'c-reset-none', autoOffsetReset: 'none' });
    c.subscribe(['c-reset-none']);
    await expect(c.poll(500)).rejects.toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE });
  });

  it('commits on close and a new member resumes after the committed offsets', async () => {
    await createTopic('c-resume', 2);
    await produce('c-resume', 10);
    const first = consumer({ groupId: 'c-resume', autoOffsetReset: 'earliest' });
    first.subscribe(['c-resume']);
    const firstRecords = await pollAtLeast(first, 10);
    await first.close();
    const committed = await admin.fetchOffsets({ groupId: 'c-resume' });
    expect(committed.reduce((sum, c) => sum + c.offset, 0)).toBe(10);
    await produce('c-resume', 4, 'later');
    const second = consumer({ groupId: 'c-resume', autoOffsetReset: 'earliest' });
    second.subscribe(['c-resume']);
    const secondRecords = await pollAtLeast(second, 4);
    expect(values(secondRecords).sort()).toEqual(['later0', 'later1', 'later2', 'later3']);
    expect(firstRecords).toHaveLength(10);
  });

  it('commitSync stores the given offsets and committed() reads them back', async () => {
    await createTopic('c-commit', 1);
    await produce('c-commit', 5);
    const c = consumer({ groupId: 'c-commit', autoOffsetReset: 'earliest', enableAutoCommit: false });
    c.subscribe(['c-commit']);
    await pollAtLeast(c, 5);
    await c.commitSync([{ topic: 'c-commit', partition: 0, offset: 3 }]);
    expect(await c.committed([{ topic: 'c-commit', partition: 0 }])).toEqual([{ topic: 'c-commit', partition: 0, offset: 3 }]);
    await c.commitSync();
    expect(await c.committed([{ topic: 'c-commit', partition: 0 }])).toEqual([{ topic: 'c-commit', partition: 0, offset: 5 }]);
    const asyncResult = await new Promise<Error | null>((resolve) => void c.commitAsync([{ topic: 'c-commit', partition: 0, offset: 4 }], resolve));
    expect(asyncResult).toBeNull();
    expect((await c.committed([{ topic: 'c-commit', partition: 0 }]))[0]!.offset).toBe(4);
  });

  it('seeks to an offset, to the beginning, to the end and to a timestamp', async () => {
    await createTopic('c-seek', 1);
    await producer.send({ topic: 'c-seek', messages: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}`, timestamp: 1_000_000 + i * 1000 })) });
    const c = consumer();
    const tp = { topic: 'c-seek', partition: 0 };
    c.assign([tp]);
    c.seek(tp, 6);
    expect(values(await pollAtLeast(c, 4))).toEqual(['v6', 'v7', 'v8', 'v9']);
    await c.seekToBeginning();
    expect((await pollAtLeast(c, 1))[0]!.offset).toBe(0);
    await c.seekToTimestamp(1_004_500);
    expect((await pollAtLeast(c, 1))[0]!.offset).toBe(5);
    await c.seekToEnd();
    expect(await c.position(tp)).toBe(10);
    expect(await c.poll(300)).toEqual([]);
  });

  it('pauses and resumes partitions', async () => {
    await createTopic('c-pause', 2);
    await produce('c-pause', 5, 'a', 0);
    await produce('c-pause', 5, 'b', 1);
    const c = consumer();
    c.assign([{ topic: 'c-pause', partition: 0 }, { topic: 'c-pause', partition: 1 }]);
    await c.seekToBeginning();
    c.pause([{ topic: 'c-pause', partition: 1 }]);
    expect(c.paused()).toEqual([{ topic: 'c-pause', partition: 1 }]);
    const first = await pollAtLeast(c, 5);
    expect(new Set(first.map((r) => r.partition))).toEqual(new Set([0]));
    expect(await c.poll(300)).toEqual([]);
    c.resume([{ topic: 'c-pause', partition: 1 }]);
    expect(values(await pollAtLeast(c, 5))).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
  });

  it('rebalances a group of three consumers over six partitions as members join and leave', async () => {
    await createTopic('c-group', 6);
    const members = [0, 1, 2].map(() => consumer({ groupId: 'c-group', autoOffsetReset: 'earliest' }));
    const seen = members.map(() => new Set<string>());
    const runs: Promise<void>[] = [];
    const start = (i: number): void => {
      members[i]!.subscribe(['c-group']);
      runs.push(members[i]!.run({ pollTimeoutMs: 100, eachMessage: ({ message }) => { seen[i]!.add(message.value!.toString()); } }));
    };
    const partitionsOf = (i: number): number[] => members[i]!.assignment().map((p) => p.partition).sort();
    start(0);
    await waitFor(() => partitionsOf(0).length === 6, 'the first member to own all six partitions');
    start(1);
    await waitFor(() => partitionsOf(0).length === 3 && partitionsOf(1).length === 3, 'two members with three partitions each');
    start(2);
    await waitFor(() => [0, 1, 2].every((i) => partitionsOf(i).length === 2), 'three members with two partitions each');
    expect([0, 1, 2].flatMap(partitionsOf).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    await produce('c-group', 60);
    await waitFor(() => seen.reduce((n, s) => n + s.size, 0) >= 60, 'all 60 records consumed');
    const described = await admin.describeGroups(['c-group']);
    expect(described[0]!.state).toBe('Stable');
    expect(described[0]!.members).toHaveLength(3);
    await members[0]!.close();
    await waitFor(() => partitionsOf(1).length === 3 && partitionsOf(2).length === 3, 'the two remaining members to take over');
    await produce('c-group', 30, 'after');
    await waitFor(() => [1, 2].reduce((n, i) => n + [...seen[i]!].filter((v) => v.startsWith('after')).length, 0) >= 30, 'records after the leave');
    for (const m of members.slice(1)) m.stop();
    await Promise.all(runs);
  });

  it('uses the round-robin assignor when every member prefers it', async () => {
    await admin.createTopics({ topics: [{ topic: 'c-rr-a', numPartitions: 2 }, { topic: 'c-rr-b', numPartitions: 2 }] });
    const a = consumer({ groupId: 'c-rr', partitionAssignors: ['roundrobin'] });
    const b = consumer({ groupId: 'c-rr', partitionAssignors: ['roundrobin'] });
    a.subscribe(['c-rr-a', 'c-rr-b']);
    b.subscribe(['c-rr-a', 'c-rr-b']);
    const runs = [a.run({ pollTimeoutMs: 100, eachMessage: () => {} }), b.run({ pollTimeoutMs: 100, eachMessage: () => {} })];
    await waitFor(() => a.assignment().length === 2 && b.assignment().length === 2, 'two partitions each');
    const [described] = await admin.describeGroups(['c-rr']);
    expect(described!.protocol).toBe('roundrobin');
    expect(a.assignment().map((p) => p.topic).sort()).toEqual(['c-rr-a', 'c-rr-b']);
    a.stop();
    b.stop();
    await Promise.all(runs);
  });

  it('hands each partition\'s records to eachBatch', async () => {
    await createTopic('c-batch', 2);
    await produce('c-batch', 20);
    const c = consumer({ groupId: 'c-batch', autoOffsetReset: 'earliest' });
    c.subscribe(['c-batch']);
    const got: { partition: number; count: number; highWatermark: number }[] = [];
    let total = 0;
    const run = c.run({ pollTimeoutMs: 100, eachBatch: ({ partition, messages, highWatermark }) => {
      got.push({ partition, count: messages.length, highWatermark });
      total += messages.length;
      if (total >= 20) c.stop();
    } });
    await run;
    expect(total).toBe(20);
    expect(got.every((b) => b.highWatermark > 0)).toBe(true);
  });

  it('redelivers from the failed record when eachMessage throws', async () => {
    await createTopic('c-retry', 1);
    await produce('c-retry', 5);
    const c = consumer({ groupId: 'c-retry', autoOffsetReset: 'earliest' });
    c.subscribe(['c-retry']);
    const processed: string[] = [];
    await expect(c.run({ pollTimeoutMs: 100, eachMessage: ({ message }) => {
      if (message.offset === 2) throw new Error('boom');
      processed.push(message.value!.toString());
    } })).rejects.toThrow('boom');
    expect(processed).toEqual(['v0', 'v1']);
    const after = await pollAtLeast(c, 3);
    expect(values(after)).toEqual(['v2', 'v3', 'v4']);
  });

  it('rewinds records not yet yielded when the async iterator is left early', async () => {
    await createTopic('c-iterator', 1);
    await produce('c-iterator', 10);
    const c = consumer({ groupId: 'c-iterator', autoOffsetReset: 'earliest' });
    c.subscribe(['c-iterator']);
    const taken: string[] = [];
    for await (const record of c) {
      taken.push(record.value!.toString());
      if (taken.length === 4) break;
    }
    expect(taken).toEqual(['v0', 'v1', 'v2', 'v3']);
    await c.close();
    expect(await admin.fetchOffsets({ groupId: 'c-iterator' })).toEqual([{ topic: 'c-iterator', partition: 0, offset: 4, metadata: '' }]);
  });

  it('rebalances incrementally with cooperative-sticky: a member keeps consuming what it keeps', async () => {
    await createTopic('c-coop', 4);
    const revokedFromFirst: string[] = [];
    const first = consumer({ groupId: 'c-coop', partitionAssignors: ['cooperative-sticky'], autoOffsetReset: 'earliest' });
    const second = consumer({ groupId: 'c-coop', partitionAssignors: ['cooperative-sticky'], autoOffsetReset: 'earliest' });
    first.subscribe({ topics: ['c-coop'], listener: { onPartitionsRevoked: (tps) => { revokedFromFirst.push(...tps.map((tp) => String(tp.partition))); } } });
    const runs = [first.run({ pollTimeoutMs: 100, eachMessage: () => {} })];
    await waitFor(() => first.assignment().length === 4, 'the first member to own all four partitions');
    second.subscribe(['c-coop']);
    runs.push(second.run({ pollTimeoutMs: 100, eachMessage: () => {} }));
    await waitFor(() => first.assignment().length === 2 && second.assignment().length === 2, 'two partitions each');
    const kept = first.assignment().map((tp) => String(tp.partition));
    expect(revokedFromFirst.sort()).toEqual(['0', '1', '2', '3'].filter((p) => !kept.includes(p)));
    const [described] = await admin.describeGroups(['c-coop']);
    expect(described!.protocol).toBe('cooperative-sticky');
    first.stop();
    second.stop();
    await Promise.all(runs);
  });

  it('rebalances when partitions are added to a subscribed topic (leader metadata check)', async () => {
    await createTopic('c-grow', 2);
    const c = consumer({ groupId: 'c-grow', metadataMaxAgeMs: 200, autoOffsetReset: 'earliest' });
    c.subscribe(['c-grow']);
    const run = c.run({ pollTimeoutMs: 100, eachMessage: () => {} });
    await waitFor(() => c.assignment().length === 2, 'two partitions');
    await admin.createPartitions({ topicPartitions: [{ topic: 'c-grow', count: 4 }] });
    await waitFor(() => c.assignment().length === 4, 'the new partitions to be assigned');
    c.stop();
    await run;
  });

  it('leaves the group when the application stops polling for max.poll.interval.ms, and rejoins on the next poll', async () => {
    await createTopic('c-stuck', 2);
    const stuck = consumer({ groupId: 'c-stuck', maxPollIntervalMs: 1_500 });
    const healthy = consumer({ groupId: 'c-stuck', maxPollIntervalMs: 30_000 });
    stuck.subscribe(['c-stuck']);
    healthy.subscribe(['c-stuck']);
    const run = healthy.run({ pollTimeoutMs: 100, eachMessage: () => {} });
    await waitFor(() => healthy.assignment().length > 0, 'the healthy member to join');
    const polling = (async () => { while (stuck.assignment().length === 0) await stuck.poll(100); })();
    await waitFor(() => healthy.assignment().length === 1, 'one partition each');
    await polling;
    await waitFor(() => healthy.assignment().length === 2, 'the stuck member to leave');
    await stuck.poll(100);
    await waitFor(() => healthy.assignment().length === 1, 'the stuck member to rejoin');
    healthy.stop();
    await run;
  });

  it('reads batches larger than max.partition.fetch.bytes (the broker returns at least one whole batch)', async () => {
    await createTopic('c-big', 1);
    const big = 'x'.repeat(20_000);
    await producer.send({ topic: 'c-big', messages: [{ value: big }, { value: big }] });
    const c = consumer({ maxPartitionFetchBytes: 1_000, fetchMaxBytes: 1_000 });
    c.assign([{ topic: 'c-big', partition: 0 }]);
    await c.seekToBeginning();
    const records = await pollAtLeast(c, 2);
    expect(records.map((r) => r.value!.length)).toEqual([20_000, 20_000]);
  });

  it('resets to the log start by auto.offset.reset after the records at its position were deleted', async () => {
    await createTopic('c-deleted', 1);
    await produce('c-deleted', 10);
    const c = consumer({ autoOffsetReset: 'earliest' });
    c.assign([{ topic: 'c-deleted', partition: 0 }]);
    c.seek({ topic: 'c-deleted', partition: 0 }, 2);
    await admin.deleteRecords({ topic: 'c-deleted', partitions: [{ partition: 0, offset: 5 }] });
    const records = await pollAtLeast(c, 5);
    expect(records.map((r) => r.offset)).toEqual([5, 6, 7, 8, 9]);
  });

  it('applies producer serializers and consumer deserializers', async () => {
    await createTopic('c-serde', 1);
    const typed = new Producer<number, { n: number }>({
      bootstrapServers: [broker.bootstrap],
      keySerializer: (key) => Buffer.from(String(key)),
      valueSerializer: (value) => Buffer.from(JSON.stringify(value)),
    });
    await typed.send({ topic: 'c-serde', messages: [{ key: 7, value: { n: 1 } }, { key: 8, value: { n: 2 } }] });
    await typed.close();
    const c = new Consumer<number, { n: number } | null>({
      bootstrapServers: [broker.bootstrap],
      keyDeserializer: (bytes) => Number(bytes!.toString()),
      valueDeserializer: (bytes) => (bytes === null ? null : JSON.parse(bytes.toString()) as { n: number }),
    });
    try {
      c.assign([{ topic: 'c-serde', partition: 0 }]);
      await c.seekToBeginning();
      const records: ConsumerRecord<number, { n: number } | null>[] = [];
      while (records.length < 2) records.push(...await c.poll(200));
      expect(records.map((r) => [r.key, r.value])).toEqual([[7, { n: 1 }], [8, { n: 2 }]]);
    } finally {
      await c.close();
    }
  });
});
