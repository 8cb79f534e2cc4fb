/**
 * Interop with a real client (kcat 1.7.1 / librdkafka 2.0.2 from Debian) both ways, and our
 * partitioner against librdkafka's Java-compatible `murmur2_random` partitioner.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../host/clients/admin.js';
import { Consumer, type ConsumerRecord } from '../../host/clients/consumer.js';
import { Producer } from '../../host/clients/producer.js';
import { murmur2Partition } from '../../host/clients/producer/murmur2.js';
import { startTestBroker, type TestBroker } from './broker-harness.js';

const KCAT = '/usr/bin/kcat';
let broker: TestBroker;
let admin: Admin;

beforeAll(async () => {
  broker = await startTestBroker();
  admin = new Admin({ bootstrapServers: [broker.bootstrap] });
});

afterAll(async () => {
  await admin?.close();
  await broker?.stop();
});

function kcat(args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(KCAT, ['-b', broker.bootstrap, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`kcat ${args.join(' ')} timed out: ${stderr}`)); }, 30_000);
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
    child.stdin.end(input);
  });
}

async function readAll(topic: string, count: number): Promise<ConsumerRecord[]> {
  const consumer = new Consumer({ bootstrapServers: [broker.bootstrap] });
  try {
    const [info] = await consumer.cluster.topicMetadata([topic]);
    consumer.assign(info!.partitions.map((p) => ({ topic, partition: p.partition })));
    await consumer.seekToBeginning();
    const records: ConsumerRecord[] = [];
    const deadline = Date.now() + 20_000;
    while (records.length < count && Date.now() < deadline) records.push(...await consumer.poll(200));
    return records;
  } finally {
    await consumer.close();
  }
}

describe('interop with kcat (librdkafka)', () => {
  it.each(['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const)('kcat reads what our producer wrote with %s', async (codec) => {
    const topic = `interop-out-${codec}`;
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const producer = new Producer({ bootstrapServers: [broker.bootstrap], compression: codec });
    await producer.send({ topic, messages: Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, headers: { h: `x${i}` } })) });
    await producer.close();
    const result = await kcat(['-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%o|%k|%s|%h\\n']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(Array.from({ length: 5 }, (_, i) => `${i}|k${i}|v${i}|h=x${i}\n`).join(''));
  });

  it.each(['gzip', 'snappy', 'lz4', 'zstd'] as const)('our consumer reads what kcat produced with %s', async (codec) => {
    const topic = `interop-in-${codec}`;
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const lines = Array.from({ length: 20 }, (_, i) => `key${i}:value-${i}`).join('\n') + '\n';
    const result = await kcat(['-P', '-t', topic, '-K', ':', '-z', codec, '-H', 'origin=kcat'], lines);
    expect(result.code, result.stderr).toBe(0);
    const records = await readAll(topic, 20);
    expect(records.map((r) => `${r.key!.toString()}:${r.value!.toString()}`)).toEqual(Array.from({ length: 20 }, (_, i) => `key${i}:value-${i}`));
    expect(records[0]!.headers).toEqual([{ key: 'origin', value: Buffer.from('kcat') }]);
  });

  it('puts keyed records in the partitions librdkafka\'s murmur2_random partitioner (Java\'s) chooses', async () => {
    const topic = 'interop-partitioner';
    await admin.createTopics({ topics: [{ topic, numPartitions: 7 }] });
    const keys = ['21', 'foobar', 'a-little-bit-long-string', 'user-1', 'user-2', 'order-12345', 'ü-unicode', 'x', '', 'lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8'];
    const input = keys.filter((k) => k !== '').map((k) => `${k}\t${k}-value`).join('\n') + '\n';
    const result = await kcat(['-P', '-t', topic, '-K', '\t', '-X', 'topic.partitioner=murmur2_random'], input);
    expect(result.code, result.stderr).toBe(0);
    const records = await readAll(topic, keys.length - 1);
    expect(records.map((r) => r.key!.toString()).sort()).toEqual(keys.filter((k) => k !== '').sort());
    expect(new Set(records.map((r) => r.partition)).size).toBeGreaterThan(3);
    for (const record of records) {
      expect(record.partition, `key ${record.key!.toString()}`).toBe(murmur2Partition(record.key!, 7));
    }
    const producer = new Producer({ bootstrapServers: [broker.bootstrap] });
    const ours = await producer.send({ topic, messages: records.map((r) => ({ key: r.key!, value: 'again' })) });
    await producer.close();
    expect(ours.map((m) => m.partition)).toEqual(records.map((r) => r.partition));
  });
});
