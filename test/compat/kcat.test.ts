/**
 * kcat 1.7.1 (librdkafka 2.0.2, Debian) against a Tributary broker process,
 * driven exactly as a user would from a shell: -P produce (keys -K:, headers
 * -H, partitions -p, codecs -z), -C consume (-o beginning/offset/end, -e),
 * -L metadata, -Q offsets by time, -G balanced consumer group.
 *
 * The broker auto-creates topics with num.partitions=3.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses, type BrokerProcess } from '../helpers/broker-process.js';
import { brokerTail, startCompatBroker } from './compat-broker.js';
import { eventually, formatRun, KCAT, killAllClientProcesses, run, sleep, uniqueName, type RunResult } from './processes.js';

/** One record as printed by `kcat -C -J` (headers are a flat [name, value, ...] array). */
interface KcatRecord {
  topic: string;
  partition: number;
  offset: number;
  tstype?: string;
  ts?: number;
  broker: number;
  headers?: (string | null)[];
  key: string | null;
  payload: string | null;
}

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startCompatBroker({ 'num.partitions': 3, 'auto.create.topics.enable': true });
});

afterAll(async () => {
  killAllClientProcesses();
  await stopAllBrokerProcesses();
});

/** Runs kcat against the broker; throws with kcat's and the broker's output unless it exits 0. */
async function kcat(args: string[], input?: string, timeoutMs = 30_000): Promise<RunResult> {
  const result = await run(KCAT, ['-b', broker.bootstrap, '-m', '10', ...args], { input, timeoutMs });
  if (result.code !== 0 || result.timedOut) {
    throw new Error(`kcat failed\n${formatRun(result)}\n${brokerTail(broker)}`);
  }
  return result;
}

/** `kcat -C -J ... -e` output → records in print order. */
function parseRecords(stdout: string): KcatRecord[] {
  return stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as KcatRecord);
}

async function consumeAll(topic: string, extra: string[] = []): Promise<KcatRecord[]> {
  const result = await kcat(['-C', '-t', topic, '-o', 'beginning', '-e', '-J', ...extra]);
  return parseRecords(result.stdout);
}

function byPartition(records: KcatRecord[]): Map<number, KcatRecord[]> {
  const map = new Map<number, KcatRecord[]>();
  for (const record of records) map.set(record.partition, [...(map.get(record.partition) ?? []), record]);
  return map;
}

/** CRC-32 (IEEE, zlib's): librdkafka's consistent_random partitioner is crc32(key) % partition count. */
function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** Reads Attributes (int16 at byte 21) of the first RecordBatch in partition 0's first segment. */
function firstBatchAttributes(topic: string): number {
  const dir = join(broker.logDir, `${topic}-0`);
  const segments = readdirSync(dir).filter((name) => name.endsWith('.log')).sort();
  expect(segments.length, `segments in ${dir}: ${readdirSync(dir).join(', ')}`).toBeGreaterThan(0);
  const bytes = readFileSync(join(dir, segments[0] ?? ''));
  expect(bytes.length, `${segments[0]} is too short to hold a batch header`).toBeGreaterThanOrEqual(61);
  expect(bytes.readInt8(16), 'magic of the stored batch').toBe(2);
  return bytes.readInt16BE(21);
}

describe('kcat (librdkafka 2.0.2)', { timeout: 120_000 }, () => {
  it('lists the broker as controller and an auto-created topic with 3 partitions led by it (-L)', async () => {
    const topic = uniqueName('kcat-meta');
    await kcat(['-P', '-t', topic, '-p', '0'], 'hello\n');
    const result = await kcat(['-L', '-J', '-t', topic]);
    const metadata = JSON.parse(result.stdout) as {
      controllerid: number;
      brokers: { id: number; name: string }[];
      topics: { topic: string; error?: string; partitions: { partition: number; error?: string; leader: number; replicas: { id: number }[]; isrs: { id: number }[] }[] }[];
    };
    expect(metadata.brokers).toHaveLength(1);
    const [self] = metadata.brokers;
    expect(self?.name).toBe(broker.bootstrap);
    expect(metadata.controllerid).toBe(self?.id);
    expect(metadata.topics.map((t) => t.topic)).toEqual([topic]);
    const [described] = metadata.topics;
    expect(described?.error).toBeUndefined();
    expect(described?.partitions.map((p) => p.partition).sort()).toEqual([0, 1, 2]);
    for (const partition of described?.partitions ?? []) {
      expect(partition.error).toBeUndefined();
      expect(partition.leader).toBe(self?.id);
      expect(partition.replicas).toEqual([{ id: self?.id }]);
      expect(partition.isrs).toEqual([{ id: self?.id }]);
    }
  });

  it('produces keyed records with headers into each of 3 partitions and consumes them back exactly (-P -K: -H -p, -C -o beginning -e)', async () => {
    const topic = uniqueName('kcat-keys');
    const perPartition = 4;
    for (let partition = 0; partition < 3; partition++) {
      const lines = Array.from({ length: perPartition }, (_, i) => `key-${partition}-${i}:value ${partition}/${i}`);
      await kcat(['-P', '-t', topic, '-p', String(partition), '-K', ':', '-H', 'trace=t-1', '-H', 'origin=kcat'], `${lines.join('\n')}\n`);
    }
    const records = await consumeAll(topic);
    const brokerId = (JSON.parse((await kcat(['-L', '-J'])).stdout) as { brokers: { id: number }[] }).brokers[0]?.id;
    expect(records).toHaveLength(3 * perPartition);
    const partitions = byPartition(records);
    expect([...partitions.keys()].sort()).toEqual([0, 1, 2]);
    for (const [partition, list] of partitions) {
      expect(list.map((r) => r.offset)).toEqual([0, 1, 2, 3]);
      expect(list.map((r) => r.key)).toEqual(Array.from({ length: perPartition }, (_, i) => `key-${partition}-${i}`));
      expect(list.map((r) => r.payload)).toEqual(Array.from({ length: perPartition }, (_, i) => `value ${partition}/${i}`));
      for (const record of list) {
        expect(record.headers).toEqual(['trace', 't-1', 'origin', 'kcat']);
        expect(record.tstype).toBe('create');
        expect(record.broker).toBe(brokerId);
      }
    }
  });

  it('spreads keys over all 3 partitions with librdkafka\'s consistent_random partitioner (crc32(key) % 3)', async () => {
    const topic = uniqueName('kcat-partitioner');
    const keys = Array.from({ length: 30 }, (_, i) => `user-${i}`);
    await kcat(['-P', '-t', topic, '-K', ':'], `${keys.map((key) => `${key}:payload-of-${key}`).join('\n')}\n`);
    const records = await consumeAll(topic);
    expect(records.map((r) => r.key).sort()).toEqual([...keys].sort());
    for (const record of records) {
      expect(record.payload).toBe(`payload-of-${record.key}`);
      expect(record.partition, `partition of key ${record.key}`).toBe(crc32(Buffer.from(record.key ?? '')) % 3);
    }
    expect(new Set(records.map((r) => r.partition)).size).toBe(3);
    for (const list of byPartition(records).values()) {
      expect(list.map((r) => r.offset)).toEqual(list.map((_, i) => i));
    }
  });

  it.each([
    ['gzip', 1],
    ['snappy', 2],
    ['lz4', 3],
    ['zstd', 4],
  ])('round-trips a %s-compressed batch and stores it as received (codec %i in the batch attributes)', async (codec, codecId) => {
    const topic = uniqueName(`kcat-${codec}`);
    const lines = Array.from({ length: 200 }, (_, i) => `k${i}:${codec} record ${i} ${'abcdefgh'.repeat(8)}`);
    await kcat(['-P', '-t', topic, '-p', '0', '-K', ':', '-z', codec, '-X', 'linger.ms=500'], `${lines.join('\n')}\n`);
    const records = await consumeAll(topic, ['-p', '0']);
    expect(records.map((r) => `${r.key}:${r.payload}`)).toEqual(lines);
    expect(records.map((r) => r.offset)).toEqual(lines.map((_, i) => i));
    expect(firstBatchAttributes(topic) & 0x07).toBe(codecId);
  });

  it('starts at an absolute offset, at the end, or N from the end (-o 3, -o end, -o -2)', async () => {
    const topic = uniqueName('kcat-offsets');
    const lines = Array.from({ length: 6 }, (_, i) => `line-${i}`);
    await kcat(['-P', '-t', topic, '-p', '0'], `${lines.join('\n')}\n`);
    const fromThree = parseRecords((await kcat(['-C', '-t', topic, '-p', '0', '-o', '3', '-e', '-J'])).stdout);
    expect(fromThree.map((r) => [r.offset, r.payload])).toEqual([[3, 'line-3'], [4, 'line-4'], [5, 'line-5']]);
    const fromEnd = parseRecords((await kcat(['-C', '-t', topic, '-p', '0', '-o', 'end', '-e', '-J'])).stdout);
    expect(fromEnd).toEqual([]);
    const lastTwo = parseRecords((await kcat(['-C', '-t', topic, '-p', '0', '-o', '-2', '-e', '-J'])).stdout);
    expect(lastTwo.map((r) => [r.offset, r.payload])).toEqual([[4, 'line-4'], [5, 'line-5']]);
  });

  it('finds the first offset at or after a timestamp (-Q -t topic:partition:ts)', async () => {
    const topic = uniqueName('kcat-times');
    await kcat(['-P', '-t', topic, '-p', '0'], 'early-0\nearly-1\nearly-2\n');
    const early = await consumeAll(topic, ['-p', '0']);
    const earlyMax = Math.max(...early.map((r) => r.ts ?? 0));
    while (Date.now() <= earlyMax + 5) await sleep(10);
    await kcat(['-P', '-t', topic, '-p', '0'], 'late-3\nlate-4\n');
    const all = await consumeAll(topic, ['-p', '0']);
    expect(all.map((r) => r.payload)).toEqual(['early-0', 'early-1', 'early-2', 'late-3', 'late-4']);
    const lateFirstTs = all[3]?.ts ?? 0;
    expect(lateFirstTs).toBeGreaterThan(earlyMax);

    const query = async (ts: number): Promise<number> => {
      const result = await kcat(['-Q', '-J', '-t', `${topic}:0:${ts}`]);
      const parsed = JSON.parse(result.stdout) as Record<string, Record<string, { partition: number; offset: number; error?: string }>>;
      const entry = parsed[topic]?.['0'];
      expect(entry?.error, `-Q answer: ${result.stdout}`).toBeUndefined();
      return entry?.offset ?? Number.NaN;
    };
    expect(await query(early[0]?.ts ?? 0)).toBe(0);
    expect(await query(lateFirstTs)).toBe(3);
    expect(await query(earlyMax + 1)).toBe(3);
    // Kafka answers offset -1 when no record has a timestamp >= the target.
    expect(await query(Math.max(...all.map((r) => r.ts ?? 0)) + 60_000)).toBe(-1);
  });

  it('consumes as a balanced consumer group, commits on close, and resumes from the committed offsets (-G)', async () => {
    const topic = uniqueName('kcat-group');
    const group = uniqueName('kcat-group');
    for (let partition = 0; partition < 3; partition++) {
      await kcat(['-P', '-t', topic, '-p', String(partition), '-K', ':'], `a${partition}:first-${partition}-0\nb${partition}:first-${partition}-1\n`);
    }
    const groupArgs = ['-G', group, '-X', 'topic.auto.offset.reset=earliest', '-X', 'enable.partition.eof=true', '-X', 'session.timeout.ms=6000', '-e', '-J', topic];
    const first = parseRecords((await kcat(groupArgs, undefined, 30_000)).stdout);
    expect(first.map((r) => r.payload).sort()).toEqual(
      ['first-0-0', 'first-0-1', 'first-1-0', 'first-1-1', 'first-2-0', 'first-2-1'],
    );

    for (let partition = 0; partition < 3; partition++) {
      await kcat(['-P', '-t', topic, '-p', String(partition), '-K', ':'], `c${partition}:second-${partition}\n`);
    }
    const second = parseRecords((await kcat(groupArgs, undefined, 30_000)).stdout);
    expect(second.map((r) => [r.partition, r.offset, r.key, r.payload]).sort()).toEqual([
      [0, 2, 'c0', 'second-0'],
      [1, 2, 'c1', 'second-1'],
      [2, 2, 'c2', 'second-2'],
    ]);
  });

  it('does not auto-create a topic for a consumer\'s metadata request (Metadata v4 AllowAutoTopicCreation=false)', async () => {
    const topic = uniqueName('kcat-not-created');
    // librdkafka consumer handles ask with AllowAutoTopicCreation=false; kcat gives up on the unknown topic
    const consumer = await run(KCAT, ['-b', broker.bootstrap, '-m', '3', '-C', '-t', topic, '-p', '0', '-o', 'beginning', '-e'], { timeoutMs: 20_000 });
    expect(consumer.timedOut, formatRun(consumer)).toBe(false);
    const all = await kcat(['-L', '-J']);
    const topics = (JSON.parse(all.stdout) as { topics: { topic: string }[] }).topics.map((t) => t.topic);
    expect(topics).not.toContain(topic);
  });

  it('starts in the middle of a compressed batch: the broker returns the whole batch and the client skips to the offset (-z gzip, -o 5)', async () => {
    const topic = uniqueName('kcat-mid-batch');
    // compressible payloads and a long linger: librdkafka sends a batch uncompressed when gzip would not
    // make it smaller, which a lone short record (split off by a slow, loaded machine) would trigger
    const lines = Array.from({ length: 10 }, (_, i) => `in-batch-${i}-${'x'.repeat(200)}`);
    await kcat(['-P', '-t', topic, '-p', '0', '-z', 'gzip', '-X', 'linger.ms=500'], `${lines.join('\n')}\n`);
    expect(firstBatchAttributes(topic) & 0x07).toBe(1);
    const fromFive = parseRecords((await kcat(['-C', '-t', topic, '-p', '0', '-o', '5', '-e', '-J'])).stdout);
    expect(fromFive.map((r) => [r.offset, r.payload])).toEqual(lines.slice(5).map((line, i) => [5 + i, line]));
  });

  it('delivers a record larger than the consumer\'s per-partition fetch size (the first batch is always returned whole)', async () => {
    const topic = uniqueName('kcat-big');
    const big = `big-${'0123456789'.repeat(20_000)}`; // ~200 KB
    await kcat(['-P', '-t', topic, '-p', '0'], `${big}\nsmall-after\n`);
    const records = parseRecords((await kcat(['-C', '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-J',
      '-X', 'fetch.message.max.bytes=1024', '-X', 'fetch.max.bytes=4096', '-X', 'message.max.bytes=2048'])).stdout);
    expect(records.map((r) => r.payload?.length)).toEqual([big.length, 'small-after'.length]);
    expect(records[0]?.payload).toBe(big);
  });

  it('resets to the log start offset after OFFSET_OUT_OF_RANGE when asked for an offset below it (after DeleteRecords)', async () => {
    const topic = uniqueName('kcat-out-of-range');
    const lines = Array.from({ length: 8 }, (_, i) => `kept-or-deleted-${i}`);
    await kcat(['-P', '-t', topic, '-p', '0'], `${lines.join('\n')}\n`);
    const admin = new Kafka({ clientId: 'compat-kcat-admin', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      await admin.fetchTopicMetadata({ topics: [topic] }); // kafkajs' deleteTopicRecords needs it cached
      await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '5' }] });
    } finally {
      await admin.disconnect();
    }
    const records = parseRecords((await kcat(['-C', '-t', topic, '-p', '0', '-o', '2', '-e', '-J', '-X', 'topic.auto.offset.reset=earliest'])).stdout);
    expect(records.map((r) => [r.offset, r.payload])).toEqual([[5, lines[5]], [6, lines[6]], [7, lines[7]]]);
  });

  it('reads a compacted topic (cleanup.policy=compact) with offset gaps: the latest value of every key survives, tombstones included', async () => {
    const topic = uniqueName('kcat-compact');
    const admin = new Kafka({ clientId: 'compat-kcat-admin', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [
        { name: 'cleanup.policy', value: 'compact' }, { name: 'segment.bytes', value: '1024' },
        { name: 'min.cleanable.dirty.ratio', value: '0.01' }, { name: 'min.compaction.lag.ms', value: '0' },
      ] }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
    const lines: string[] = [];
    for (let round = 0; round < 10; round++) {
      for (let key = 0; key < 10; key++) lines.push(`key${key}:round${round}-${'c'.repeat(40)}`);
    }
    lines.push('key0:'); // with -Z an empty value is sent as NULL: a tombstone
    // small batches: a batch larger than segment.bytes would be refused (RECORD_LIST_TOO_LARGE)
    await kcat(['-P', '-t', topic, '-p', '0', '-K', ':', '-Z', '-X', 'batch.num.messages=5', '-X', 'linger.ms=0'], `${lines.join('\n')}\n`);

    const records = await eventually(async () => {
      const all = await consumeAll(topic, ['-p', '0', '-Z']);
      expect(all.length, `still ${all.length} records: the cleaner has not compacted yet\n${brokerTail(broker, 20)}`).toBeLessThan(lines.length);
      return all;
    }, 40_000, 1_000);
    const offsets = records.map((r) => r.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(new Set(offsets).size).toBe(offsets.length);
    expect(Math.max(...offsets)).toBe(lines.length - 1);
    for (let key = 0; key < 10; key++) {
      const values = records.filter((r) => r.key === `key${key}`).map((r) => r.payload);
      const last = values.at(-1);
      expect(last, `latest value of key${key}`).toBe(key === 0 ? null : `round9-${'c'.repeat(40)}`);
      const rounds = values.filter((v): v is string => v !== null).map((v) => Number(/^round(\d+)/.exec(v)?.[1]));
      expect(rounds, `key${key} keeps its order`).toEqual([...rounds].sort((a, b) => a - b));
    }
  });
});

