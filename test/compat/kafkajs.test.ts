/**
 * kafkajs 2.2.4 (npm) against a Tributary broker process, used in-process the
 * way a Node application would: admin (createTopics, fetchTopicMetadata,
 * fetchOffsets, describeGroups, deleteTopics), producer (keys, headers, gzip),
 * a 2-member consumer group with eachBatch, and the idempotent producer.
 */
import { AssignerProtocol, CompressionTypes, ConfigResourceTypes, Kafka, KafkaJSProtocolError, logLevel, type Admin, type Consumer, type LogEntry, type Producer } from 'kafkajs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses, type BrokerProcess } from '../helpers/broker-process.js';
import { startCompatBroker } from './compat-broker.js';
import { eventually, uniqueName } from './processes.js';

let broker: BrokerProcess;
let kafka: Kafka;
const clientLog: string[] = [];
const toClose: { disconnect(): Promise<void> }[] = [];

beforeAll(async () => {
  broker = await startCompatBroker({ 'num.partitions': 1, 'auto.create.topics.enable': true, 'log.retention.check.interval.ms': 300, 'log.initial.task.delay.ms': 0 });
  kafka = new Kafka({
    clientId: 'compat-kafkajs',
    brokers: [broker.bootstrap],
    logLevel: logLevel.WARN,
    // keep kafkajs' own complaints for failure messages instead of flooding the console
    logCreator: () => ({ namespace, level, log }: LogEntry) => {
      clientLog.push(`${logLevel[level]} ${namespace} ${log.message} ${JSON.stringify({ ...log, message: undefined, timestamp: undefined, logger: undefined })}`);
    },
    retry: { retries: 5, initialRetryTime: 100 },
  });
});

afterEach(async () => {
  await Promise.allSettled(toClose.splice(0).map((client) => client.disconnect()));
});

afterAll(async () => {
  await stopAllBrokerProcesses();
});

/** kafkajs and broker logs, for assertion messages. */
function context(): string {
  return ['--- kafkajs log (last 40) ---', ...clientLog.slice(-40), broker.outputTail(40)].join('\n');
}

async function connected<T extends Admin | Producer | Consumer>(client: T): Promise<T> {
  toClose.push(client);
  await client.connect();
  return client;
}

describe('kafkajs 2.2.4', { timeout: 120_000 }, () => {
  it('admin creates a topic (and returns false for a duplicate), fetches its metadata, and deletes it', async () => {
    const admin = await connected(kafka.admin());
    const topic = uniqueName('kjs-admin');
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 3, configEntries: [{ name: 'retention.ms', value: '600000' }] }], waitForLeaders: true })).toBe(true);
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] })).toBe(false);
    expect(await admin.listTopics()).toContain(topic);

    const cluster = await admin.describeCluster();
    expect(cluster.brokers).toEqual([{ nodeId: cluster.controller, host: broker.host, port: broker.port }]);
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(metadata.topics).toHaveLength(1);
    expect(metadata.topics[0]?.name).toBe(topic);
    expect(metadata.topics[0]?.partitions.map((p) => ({ ...p })).sort((a, b) => a.partitionId - b.partitionId)).toEqual(
      [0, 1, 2].map((partitionId) => ({
        partitionErrorCode: 0, partitionId, leader: cluster.controller, replicas: [cluster.controller], isr: [cluster.controller], offlineReplicas: [],
      })),
    );

    await admin.createPartitions({ topicPartitions: [{ topic, count: 4 }] }); // resolves undefined (despite its .d.ts)
    const grown = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(grown.topics[0]?.partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2, 3]);

    await admin.deleteTopics({ topics: [topic], timeout: 10_000 });
    await eventually(async () => expect(await admin.listTopics()).not.toContain(topic));
  });

  it('produces keyed records with headers (plain and gzip) and reports base offsets and high watermarks', async () => {
    const admin = await connected(kafka.admin());
    const producer = await connected(kafka.producer({ allowAutoTopicCreation: false }));
    const topic = uniqueName('kjs-produce');
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });

    const first = await producer.send({
      topic,
      acks: -1,
      messages: Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, partition: i % 2, headers: { n: String(i), origin: 'kafkajs' } })),
    });
    expect(first.map((m) => [m.partition, m.errorCode, m.baseOffset]).sort()).toEqual([[0, 0, '0'], [1, 0, '0']]);
    const second = await producer.send({
      topic,
      compression: CompressionTypes.GZIP,
      messages: Array.from({ length: 4 }, (_, i) => ({ key: `z${i}`, value: `gz${i}`.repeat(20), partition: 0 })),
    });
    expect(second.map((m) => [m.partition, m.errorCode, m.baseOffset])).toEqual([[0, 0, '3']]);

    const offsets = await admin.fetchTopicOffsets(topic);
    expect(offsets.map((o) => ({ partition: o.partition, low: o.low, high: o.high, offset: o.offset })).sort((a, b) => a.partition - b.partition))
      .toEqual([{ partition: 0, low: '0', high: '7', offset: '7' }, { partition: 1, low: '0', high: '3', offset: '3' }]);

    const consumer = await connected(kafka.consumer({ groupId: uniqueName('kjs-reader'), sessionTimeout: 6000, heartbeatInterval: 500, maxWaitTimeInMs: 200 }));
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen: { partition: number; offset: string; key: string; value: string; headers: Record<string, string> }[] = [];
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        seen.push({
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? '',
          value: message.value?.toString() ?? '',
          headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])),
        });
      },
    });
    await eventually(async () => expect(seen.length, context()).toBe(10), 30_000);
    const p0 = seen.filter((m) => m.partition === 0);
    expect(p0.map((m) => [m.offset, m.key, m.value])).toEqual([
      ['0', 'k0', 'v0'], ['1', 'k2', 'v2'], ['2', 'k4', 'v4'],
      ['3', 'z0', 'gz0'.repeat(20)], ['4', 'z1', 'gz1'.repeat(20)], ['5', 'z2', 'gz2'.repeat(20)], ['6', 'z3', 'gz3'.repeat(20)],
    ]);
    expect(p0[1]?.headers).toEqual({ n: '2', origin: 'kafkajs' });
    expect(seen.filter((m) => m.partition === 1).map((m) => [m.offset, m.key, m.headers.n])).toEqual([['0', 'k1', '1'], ['1', 'k3', '3'], ['2', 'k5', '5']]);
  });

  it('runs a 2-member consumer group with eachBatch, commits, and is described with members, assignments and offsets', async () => {
    const admin = await connected(kafka.admin());
    const topic = uniqueName('kjs-group');
    const groupId = uniqueName('kjs-group');
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true });

    const batches: { member: string; partition: number; offsets: string[]; values: string[] }[] = [];
    const startMember = async (member: string): Promise<Consumer> => {
      const consumer = await connected(kafka.consumer({ groupId, sessionTimeout: 6000, rebalanceTimeout: 10_000, heartbeatInterval: 300, maxWaitTimeInMs: 200 }));
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
          batches.push({ member, partition: batch.partition, offsets: batch.messages.map((m) => m.offset), values: batch.messages.map((m) => m.value?.toString() ?? '') });
          for (const message of batch.messages) resolveOffset(message.offset);
          await heartbeat();
        },
      });
      return consumer;
    };
    await startMember('one');
    await startMember('two');

    const describeGroup = async () => (await admin.describeGroups([groupId])).groups[0];
    const stable = await eventually(async () => {
      const group = await describeGroup();
      expect(group?.state, context()).toBe('Stable');
      expect(group?.members).toHaveLength(2);
      const assigned = (group?.members ?? []).map((m) => AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment[topic] ?? []);
      expect(assigned.map((p) => p.length)).toEqual([2, 2]);
      expect(assigned.flat().sort()).toEqual([0, 1, 2, 3]);
      return group;
    }, 40_000);
    expect(stable?.protocolType).toBe('consumer');
    expect(stable?.protocol).toBe('RoundRobinAssigner');
    expect(stable?.members.map((m) => m.clientId)).toEqual(['compat-kafkajs', 'compat-kafkajs']);

    const producer = await connected(kafka.producer());
    const values = Array.from({ length: 24 }, (_, i) => `message-${i}`);
    await producer.send({ topic, messages: values.map((value, i) => ({ value, partition: i % 4 })) });

    await eventually(async () => expect(batches.flatMap((b) => b.values).length, context()).toBe(24), 30_000);
    expect(batches.flatMap((b) => b.values).sort()).toEqual([...values].sort());
    for (const partition of [0, 1, 2, 3]) {
      const owners = new Set(batches.filter((b) => b.partition === partition).map((b) => b.member));
      expect(owners.size, `partition ${partition} read by ${[...owners].join(',')}`).toBe(1);
      expect(batches.filter((b) => b.partition === partition).flatMap((b) => b.offsets)).toEqual(['0', '1', '2', '3', '4', '5']);
    }

    await eventually(async () => {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      expect(committed?.partitions.map((p) => [p.partition, p.offset]).sort()).toEqual([[0, '6'], [1, '6'], [2, '6'], [3, '6']]);
    }, 20_000);

    // a group with live members cannot be deleted: GROUP_NOT_EMPTY (68)
    const notDeleted = await admin.deleteGroups([groupId]).then(() => undefined, (error: unknown) => error);
    expect((notDeleted as { groups?: { groupId: string; errorCode?: number }[] } | undefined)?.groups?.map((g) => [g.groupId, g.errorCode]), String(notDeleted))
      .toEqual([[groupId, 68]]);

    await Promise.allSettled(toClose.splice(0).filter((c) => c !== admin).map((c) => c.disconnect()));
    toClose.push(admin);
    await eventually(async () => {
      const group = await describeGroup();
      expect(group?.state).toBe('Empty');
      expect(group?.members).toEqual([]);
    });
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(committed?.partitions.map((p) => p.offset)).toEqual(['6', '6', '6', '6']);
  });

  it('an idempotent producer appends each message once, in order', async () => {
    const admin = await connected(kafka.admin());
    const topic = uniqueName('kjs-idempotent');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const producer = await connected(kafka.producer({ idempotent: true, maxInFlightRequests: 1 }));
    for (let round = 0; round < 5; round++) {
      const [result] = await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ key: `r${round}`, value: `${round}-${i}` })) });
      expect(result).toMatchObject({ partition: 0, errorCode: 0, baseOffset: String(round * 10) });
    }
    const [offsets] = await admin.fetchTopicOffsets(topic);
    expect(offsets?.high).toBe('50');
  });

  it('a producer sending to 250 new topics at once gets them all: the broker auto-creates 100 per Metadata request, kafkajs retries LEADER_NOT_AVAILABLE', async () => {
    const prefix = uniqueName('kjs-many');
    const topics = Array.from({ length: 250 }, (_, i) => `${prefix}-${i}`);
    const producer = await connected(kafka.producer());
    const results = await producer.sendBatch({ topicMessages: topics.map((topic) => ({ topic, messages: [{ value: topic }] })) });
    expect(results.map((result) => [result.topicName, result.errorCode]).sort()).toEqual(topics.map((topic) => [topic, 0]).sort());
    const admin = await connected(kafka.admin());
    expect(await admin.listTopics()).toEqual(expect.arrayContaining(topics));
  });

  it('admin describes and alters topic configs, deletes records below an offset, and lists and deletes an empty group', async () => {
    const admin = await connected(kafka.admin());
    const topic = uniqueName('kjs-ops');
    const groupId = uniqueName('kjs-ops');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '600000' }] }], waitForLeaders: true });

    const configValue = async (name: string): Promise<string | undefined> => {
      const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: [name] }], includeSynonyms: false });
      expect(described.resources[0]?.errorCode).toBe(0);
      return described.resources[0]?.configEntries.find((entry) => entry.configName === name)?.configValue;
    };
    expect(await configValue('retention.ms')).toBe('600000');
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'retention.ms', value: '1234567' }] }] });
    expect(await configValue('retention.ms')).toBe('1234567');

    const producer = await connected(kafka.producer());
    await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `r${i}` })) });
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '4' }] });
    const [offsets] = await admin.fetchTopicOffsets(topic);
    expect({ low: offsets?.low, high: offsets?.high }).toEqual({ low: '4', high: '10' });

    const consumer = await connected(kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 300, maxWaitTimeInMs: 200 }));
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => { seen.push(`${message.offset}:${message.value?.toString()}`); } });
    await eventually(async () => expect(seen, context()).toEqual(['4:r4', '5:r5', '6:r6', '7:r7', '8:r8', '9:r9']), 30_000);
    await eventually(async () => {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      expect(committed?.partitions.map((p) => p.offset)).toEqual(['10']);
    });
    await consumer.disconnect();

    expect((await admin.listGroups()).groups).toContainEqual({ groupId, protocolType: 'consumer' });
    expect(await admin.deleteGroups([groupId])).toEqual([{ groupId, errorCode: 0 }]);
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain(groupId);
    const [afterDelete] = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(afterDelete?.partitions.map((p) => p.offset)).toEqual(['-1']);
    // Kafka describes a group it does not know as Dead with no members, not as an error
    const [unknown] = (await admin.describeGroups([groupId])).groups;
    expect(unknown).toMatchObject({ groupId, state: 'Dead', protocol: '', protocolType: '', members: [], errorCode: 0 });
  });

  it('refuses a record larger than the topic\'s max.message.bytes with MESSAGE_TOO_LARGE and keeps accepting smaller ones', async () => {
    const admin = await connected(kafka.admin());
    const topic = uniqueName('kjs-too-large');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: '1024' }] }], waitForLeaders: true });
    const producer = await connected(kafka.producer({ retry: { retries: 0 } }));
    const refused = await producer.send({ topic, messages: [{ value: 'x'.repeat(4000) }] }).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(KafkaJSProtocolError);
    expect((refused as KafkaJSProtocolError).type).toBe('MESSAGE_TOO_LARGE');
    const [accepted] = await producer.send({ topic, messages: [{ value: 'small' }] });
    expect(accepted).toMatchObject({ errorCode: 0, baseOffset: '0' });
  });

  it('recreates a deleted topic empty: no records, offsets or partitions of the old one come back', async () => {
    const admin = await connected(kafka.admin());
    const producer = await connected(kafka.producer());
    const topic = uniqueName('kjs-recreate');
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
    await producer.send({ topic, messages: Array.from({ length: 9 }, (_, i) => ({ value: `old-${i}`, partition: i % 3 })) });
    await admin.deleteTopics({ topics: [topic], timeout: 10_000 });
    await eventually(async () => expect(await admin.listTopics()).not.toContain(topic));

    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })).toBe(true);
    const offsets = await admin.fetchTopicOffsets(topic);
    expect(offsets.map((o) => [o.partition, o.low, o.high])).toEqual([[0, '0', '0']]);
    const [sent] = await producer.send({ topic, messages: [{ value: 'new-0' }] });
    expect(sent).toMatchObject({ partition: 0, errorCode: 0, baseOffset: '0' });
  });

  it('carries bytes untouched: binary keys and values, null keys, null values (tombstones), empty values, repeated and UTF-8 headers', async () => {
    const admin = await connected(kafka.admin());
    const producer = await connected(kafka.producer());
    const topic = uniqueName('kjs-bytes');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    await producer.send({ topic, messages: [
      { key: binary, value: Buffer.concat([binary, binary]) },
      { key: null, value: 'no key' },
      { key: 'tombstone', value: null },
      { key: 'empty', value: '' },
      { key: 'headers', value: 'h', headers: { repeated: ['one', 'two'], utf8: 'ünïcødé ✓' } },
    ] });
    const consumer = await connected(kafka.consumer({ groupId: uniqueName('kjs-bytes'), maxWaitTimeInMs: 200 }));
    await consumer.subscribe({ topic, fromBeginning: true });
    const got: { key: Buffer | null; value: Buffer | null; headers: Record<string, unknown> }[] = [];
    await consumer.run({ eachMessage: async ({ message }) => { got.push({ key: message.key, value: message.value, headers: message.headers ?? {} }); } });
    await eventually(async () => expect(got.length, context()).toBe(5), 30_000);
    expect(got[0]?.key?.equals(binary)).toBe(true);
    expect(got[0]?.value?.equals(Buffer.concat([binary, binary]))).toBe(true);
    expect([got[1]?.key, got[1]?.value?.toString()]).toEqual([null, 'no key']);
    expect([got[2]?.key?.toString(), got[2]?.value]).toEqual(['tombstone', null]);
    expect([got[3]?.key?.toString(), got[3]?.value?.length]).toEqual(['empty', 0]);
    const headers = got[4]?.headers ?? {};
    expect((headers.repeated as Buffer[]).map(String)).toEqual(['one', 'two']);
    expect(String(headers.utf8)).toBe('ünïcødé ✓');
  });

  it('refuses acks=all with NOT_ENOUGH_REPLICAS when min.insync.replicas exceeds the ISR, and accepts acks=1', async () => {
    const admin = await connected(kafka.admin());
    const topic = uniqueName('kjs-min-isr');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }], waitForLeaders: true });
    const producer = await connected(kafka.producer({ retry: { retries: 0 } }));
    const refused = await producer.send({ topic, acks: -1, messages: [{ value: 'needs two replicas' }] }).then(() => undefined, (error: unknown) => error);
    // retriable, so kafkajs wraps it: KafkaJSNumberOfRetriesExceeded { cause: KafkaJSProtocolError }
    const cause = (refused as { cause?: KafkaJSProtocolError } | undefined)?.cause;
    expect(cause?.type, String(refused)).toBe('NOT_ENOUGH_REPLICAS');
    const [accepted] = await producer.send({ topic, acks: 1, messages: [{ value: 'leader only' }] });
    expect(accepted).toMatchObject({ errorCode: 0, baseOffset: '0' });
  });

  it('deletes whole old segments past retention.bytes: the log start offset moves up and a consumer from the beginning starts there', async () => {
    const admin = await connected(kafka.admin());
    const producer = await connected(kafka.producer());
    const topic = uniqueName('kjs-retention');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [
      { name: 'segment.bytes', value: '1024' }, { name: 'retention.bytes', value: '2048' },
    ] }], waitForLeaders: true });
    for (let i = 0; i < 40; i++) await producer.send({ topic, messages: [{ value: `${i}`.padStart(3, '0') + 'r'.repeat(200) }] });
    const low = await eventually(async () => {
      const [offsets] = await admin.fetchTopicOffsets(topic);
      expect(offsets?.high).toBe('40');
      expect(Number(offsets?.low), 'log start offset after the retention check').toBeGreaterThan(0);
      return Number(offsets?.low);
    }, 20_000, 300);
    expect(low).toBeLessThan(40);
    const consumer = await connected(kafka.consumer({ groupId: uniqueName('kjs-retention'), maxWaitTimeInMs: 200 }));
    await consumer.subscribe({ topic, fromBeginning: true });
    const offsets: number[] = [];
    await consumer.run({ eachMessage: async ({ message }) => { offsets.push(Number(message.offset)); } });
    await eventually(async () => expect(offsets.at(-1), context()).toBe(39), 30_000);
    expect(offsets[0]).toBeGreaterThanOrEqual(low);
    // Retention runs every 300 ms here and may move the log start again while the consumer reads
    // (kafkajs then resets to the new earliest offset, as Kafka's consumers do): offsets only go up,
    // and every record from the final log start on is read, in order.
    expect(offsets.every((offset, i) => i === 0 || offset > offsets[i - 1]!), String(offsets)).toBe(true);
    const [final] = await admin.fetchTopicOffsets(topic);
    const finalLow = Number(final?.low);
    expect(offsets.filter((offset) => offset >= finalLow)).toEqual(Array.from({ length: 40 - finalLow }, (_, i) => finalLow + i));
  });

  it('a consumer group member and a producer keep working through a graceful broker restart', async () => {
    const admin = await connected(kafka.admin());
    const topic = uniqueName('kjs-restart');
    const groupId = uniqueName('kjs-restart');
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    await admin.disconnect();
    const producer = await connected(kafka.producer());
    const consumer = await connected(kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 300, maxWaitTimeInMs: 200 }));
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => { seen.push(message.value?.toString() ?? ''); } });

    await producer.send({ topic, messages: Array.from({ length: 6 }, (_, i) => ({ value: `before-${i}`, partition: i % 2 })) });
    await eventually(async () => expect(seen.length, context()).toBe(6), 30_000);

    await broker.restart();

    await eventually(async () => {
      await producer.send({ topic, messages: [{ value: 'after-0', partition: 0 }, { value: 'after-1', partition: 1 }] });
    }, 30_000, 500);
    await eventually(async () => expect([...new Set(seen.filter((v) => v.startsWith('after-')))].sort(), context()).toEqual(['after-0', 'after-1']), 60_000);
    expect([...new Set(seen)].filter((v) => v.startsWith('before-')).sort()).toEqual(['before-0', 'before-1', 'before-2', 'before-3', 'before-4', 'before-5']);
  });
});

