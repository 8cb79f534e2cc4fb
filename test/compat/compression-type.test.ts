/**
 * compression.type on a topic (issue 13): the leader recompresses what each client sends to the
 * topic's codec, as Kafka's LogValidator does, and every client reads the result back.
 *
 * kcat (librdkafka 2.0.2), confluent-kafka 1.7.0, kafka-python 2.0.2 (with python3-lz4) and
 * kafkajs 2.2.4 (with an LZ4 codec registered over lz4-napi, as kafkajs users do with
 * kafkajs-lz4) each produce uncompressed and gzip batches to a `compression.type=lz4` topic;
 * every client reads all records back with identical keys, values and headers, and the segment
 * file holds only lz4 batches whose CRC-32C is valid. The admin calls set and show the configs
 * (CreateTopics, DescribeConfigs, AlterConfigs with the level configs) from each admin client.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompressionCodecs, CompressionTypes, ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compress, decompress } from '../../host/record/compression.js';
import { iterateBatches, readBatch } from '../../host/record/records.js';
import { getCore } from '../../host/wasm/core.js';
import { stopAllBrokerProcesses, type BrokerProcess } from '../helpers/broker-process.js';
import { brokerTail, startCompatBroker } from './compat-broker.js';
import { formatRun, KCAT, killAllClientProcesses, run, runPython, uniqueName } from './processes.js';

/** One record as the tests compare it: key, value and headers in order. */
interface Seen {
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
}

let broker: BrokerProcess;
let kafka: Kafka;

// kafkajs ships no LZ4 codec; users register one (kafkajs-lz4 does exactly this).
CompressionCodecs[CompressionTypes.LZ4] = () => ({
  compress: async (encoder: { buffer: Buffer }) => compress(3, encoder.buffer),
  decompress: async (buffer: Buffer) => decompress(3, buffer),
});

beforeAll(async () => {
  broker = await startCompatBroker({ 'num.partitions': 1, 'auto.create.topics.enable': false });
  kafka = new Kafka({ clientId: 'compat-compression', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
});

afterAll(async () => {
  killAllClientProcesses();
  await stopAllBrokerProcesses();
});

async function kcat(args: string[], input?: string): Promise<string> {
  const result = await run(KCAT, ['-b', broker.bootstrap, '-m', '10', ...args], { input, timeoutMs: 30_000 });
  if (result.code !== 0 || result.timedOut) throw new Error(`kcat failed\n${formatRun(result)}\n${brokerTail(broker)}`);
  return result.stdout;
}

function records(client: string, codec: string, count = 4): Seen[] {
  return Array.from({ length: count }, (_, i) => ({
    key: `${client}-${codec}-k${i}`,
    value: `${client} ${codec} value ${i} ${'lz4 me '.repeat(10)}`,
    headers: [['client', client], ['index', String(i)]],
  }));
}

/** Every batch of partition 0's segments: codec and CRC checked, records decoded. */
function storedBatches(topic: string): { codec: number; crcValid: boolean; records: Seen[] }[] {
  const dir = join(broker.logDir, `${topic}-0`);
  const out: { codec: number; crcValid: boolean; records: Seen[] }[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.log')).sort()) {
    for (const batch of iterateBatches(readFileSync(join(dir, name)))) {
      const crcValid = getCore().crc32c(batch.subarray(21)) === batch.readUInt32BE(17);
      const { header, records: decoded } = readBatch(batch);
      out.push({
        codec: header.compression,
        crcValid,
        records: decoded.map((r) => ({
          key: r.key?.toString() ?? null,
          value: r.value?.toString() ?? null,
          headers: r.headers.map((h) => [h.key, h.value?.toString() ?? null] as [string, string | null]),
        })),
      });
    }
  }
  return out;
}

async function produceWithEveryClient(topic: string): Promise<Seen[]> {
  const expected: Seen[] = [];
  for (const [codec, kcatCodec] of [['none', 'none'], ['gzip', 'gzip']] as const) {
    const sent = records('kcat', codec);
    const lines = sent.map((r) => `${r.key}\t${r.value}`).join('\n');
    await kcat(['-P', '-t', topic, '-p', '0', '-K', '\t', '-z', kcatCodec, '-H', 'client=kcat', '-X', 'linger.ms=200'], `${lines}\n`);
    // kcat gives every line of one run the same -H headers; the expectation says so.
    expected.push(...sent.map((r) => ({ ...r, headers: [['client', 'kcat']] as [string, string | null][] })));
  }
  for (const codec of ['none', 'gzip']) {
    const sent = records('confluent', codec);
    const out = await runPython<{ delivered: { error: string | null }[] }>('ck_produce.py', {
      bootstrap: broker.bootstrap, topic, messages: sent.map((r) => ({ ...r, partition: 0 })),
      config: { 'compression.codec': codec, 'linger.ms': 50 },
    });
    expect(out.delivered.map((d) => d.error)).toEqual(sent.map(() => null));
    expected.push(...sent);
  }
  for (const codec of ['none', 'gzip']) {
    const sent = records('kafka-python', codec);
    const out = await runPython<{ delivered: { error: string | null }[] }>('kp_produce.py', {
      bootstrap: broker.bootstrap, topic, messages: sent.map((r) => ({ ...r, partition: 0 })),
      config: { compression_type: codec === 'none' ? null : codec, linger_ms: 50, acks: 'all' },
    });
    expect(out.delivered.map((d) => d.error)).toEqual(sent.map(() => null));
    expected.push(...sent);
  }
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (const [codec, compression] of [['none', CompressionTypes.None], ['gzip', CompressionTypes.GZIP]] as const) {
      const sent = records('kafkajs', codec);
      await producer.send({
        topic, acks: -1, compression,
        messages: sent.map((r) => ({ partition: 0, key: r.key, value: r.value, headers: Object.fromEntries(r.headers) })),
      });
      expected.push(...sent);
    }
  } finally {
    await producer.disconnect();
  }
  return expected;
}

async function readWithKcat(topic: string, count: number): Promise<Seen[]> {
  const out = await kcat(['-C', '-t', topic, '-p', '0', '-o', 'beginning', '-c', String(count), '-e', '-J']);
  return out.split('\n').filter((l) => l.startsWith('{')).map((line) => {
    const r = JSON.parse(line) as { key: string | null; payload: string | null; headers?: string[] };
    const flat = r.headers ?? [];
    const headers: [string, string | null][] = [];
    for (let i = 0; i < flat.length; i += 2) headers.push([flat[i]!, flat[i + 1] ?? null]);
    return { key: r.key, value: r.payload, headers };
  });
}

async function readWithPython(script: 'ck_consume.py' | 'kp_consume.py', topic: string, count: number): Promise<Seen[]> {
  const out = await runPython<{ records: { key: string | null; value: string | null; headers: [string, string][] | null }[] }>(
    script, { bootstrap: broker.bootstrap, topic, partitions: [0], count, timeout_s: 30 });
  return out.records.map((r) => ({ key: r.key, value: r.value, headers: r.headers ?? [] }));
}

async function readWithKafkajs(topic: string, count: number): Promise<Seen[]> {
  const consumer = kafka.consumer({ groupId: uniqueName('compression-reader'), maxWaitTimeInMs: 100 });
  const seen: Seen[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`kafkajs read ${seen.length} of ${count}`)), 30_000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push({
            key: message.key?.toString() ?? null,
            value: message.value?.toString() ?? null,
            headers: Object.entries(message.headers ?? {}).map(([k, v]) => [k, v === undefined ? null : v.toString()]),
          });
          if (seen.length >= count) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

describe('compression.type=lz4: every client writes, the leader recompresses, every client reads', () => {
  it('the admin clients create, describe and alter compression.type and the level configs', async () => {
    const topic = uniqueName('ck-created-lz4');
    const created = await runPython<{ results: Record<string, string | null> }>('ck_admin.py', {
      bootstrap: broker.bootstrap, op: 'create_topics', topics: [{ name: topic, num_partitions: 1, config: { 'compression.type': 'lz4' } }],
    });
    expect(created.results[topic]).toBeNull();
    const described = await runPython<{ configs: Record<string, string> }>('kp_admin.py', { bootstrap: broker.bootstrap, op: 'describe_configs', topic });
    expect(described.configs['compression.type']).toBe('lz4');
    expect(described.configs['compression.zstd.level']).toBe('3');

    const refused = await runPython<{ results: Record<string, string | null> }>('ck_admin.py', {
      bootstrap: broker.bootstrap, op: 'alter_configs', topic, config: { 'compression.type': 'brotli' },
    });
    expect(refused.results[topic]).toContain('INVALID_CONFIG');
    const altered = await runPython<{ results: Record<string, string | null> }>('ck_admin.py', {
      bootstrap: broker.bootstrap, op: 'alter_configs', topic, config: { 'compression.type': 'zstd', 'compression.zstd.level': '7' },
    });
    expect(altered.results[topic]).toBeNull();
    const admin = kafka.admin();
    await admin.connect();
    try {
      const answer = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
      const entries = new Map(answer.resources[0]!.configEntries.map((e) => [e.configName, e]));
      expect(entries.get('compression.type')).toMatchObject({ configValue: 'zstd', isDefault: false });
      expect(entries.get('compression.zstd.level')).toMatchObject({ configValue: '7', isDefault: false });
      expect(entries.get('compression.gzip.level')).toMatchObject({ configValue: '-1', isDefault: true });
    } finally {
      await admin.disconnect();
    }
    // The altered codec applies to the next append: kcat's uncompressed batch is stored as zstd.
    await kcat(['-P', '-t', topic, '-p', '0', '-z', 'none'], 'after-alter\n');
    expect(storedBatches(topic).map((b) => [b.codec, b.crcValid, b.records.map((r) => r.value)])).toEqual([[4, true, ['after-alter']]]);
  });

  it('uncompressed and gzip batches from kcat, confluent-kafka, kafka-python and kafkajs are stored as lz4 and read back by all', async () => {
    const topic = uniqueName('lz4-topic');
    const admin = kafka.admin();
    await admin.connect();
    try {
      expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'compression.type', value: 'lz4' }] }] })).toBe(true);
    } finally {
      await admin.disconnect();
    }
    const expected = await produceWithEveryClient(topic);
    expect(expected).toHaveLength(32);

    const stored = storedBatches(topic);
    expect(stored.length).toBeGreaterThanOrEqual(8);
    expect(stored.map((b) => b.codec)).toEqual(stored.map(() => 3));
    expect(stored.every((b) => b.crcValid)).toBe(true);
    expect(stored.flatMap((b) => b.records)).toEqual(expected);

    expect(await readWithKcat(topic, expected.length)).toEqual(expected);
    expect(await readWithPython('ck_consume.py', topic, expected.length)).toEqual(expected);
    expect(await readWithPython('kp_consume.py', topic, expected.length)).toEqual(expected);
    expect(await readWithKafkajs(topic, expected.length)).toEqual(expected);
  });
});
