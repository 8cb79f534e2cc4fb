/**
 * kafka-python 2.0.2 (Debian) against a Tributary broker process. This client
 * never negotiates: it infers a broker version from ApiVersions v0 and then
 * sends fixed old versions (Metadata v1, Produce v7, Fetch v4, JoinGroup v2,
 * OffsetCommit v2, ...), so it exercises the oldest request versions we serve.
 *
 * The client programs are test/compat/py/kp_*.py (JSON in, JSON out).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses, type BrokerProcess } from '../helpers/broker-process.js';
import { brokerTail, startCompatBroker } from './compat-broker.js';
import { eventually, formatRun, KCAT, killAllClientProcesses, run, runPython, uniqueName } from './processes.js';

const TOPIC_ALREADY_EXISTS = 36;

interface ReadRecord { partition: number; offset: number; key: string | null; value: string | null; timestamp: number; timestamp_type: number }

interface GroupDescription {
  group: string;
  state: string;
  protocol_type: string;
  protocol: string;
  error_code: number;
  members: { member_id: string; client_id: string; client_host: string; assignment: Record<string, number[]> | null }[];
}
interface GroupScenario {
  records: { partition: number; offset: number; key: string | null; value: string | null; headers: [string, string][] | null }[];
  assignment: number[];
  listed: [string, string][];
  described_live: GroupDescription;
  offsets: Record<string, number>;
  described_after_close: GroupDescription;
}

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startCompatBroker({ 'num.partitions': 1, 'auto.create.topics.enable': true });
});

afterAll(async () => {
  killAllClientProcesses();
  await stopAllBrokerProcesses();
});

async function py<T>(script: string, args: Record<string, unknown>, timeoutMs = 40_000): Promise<T> {
  try {
    return await runPython<T>(script, { bootstrap: broker.bootstrap, ...args }, { timeoutMs });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${brokerTail(broker)}`);
  }
}

describe('kafka-python 2.0.2', { timeout: 120_000 }, () => {
  it('KafkaAdminClient creates (and refuses a duplicate), describes, grows and deletes topics, and finds the controller', async () => {
    const topic = uniqueName('kp-admin');
    const created = await py<{ errors: [string, number][] }>('kp_admin.py', { op: 'create_topics', topics: [{ name: topic, num_partitions: 3, config: { 'retention.ms': '86400000' } }] });
    expect(created.errors).toEqual([[topic, 0]]);
    const again = await py<{ errors: [string, number][] }>('kp_admin.py', { op: 'create_topics', topics: [{ name: topic, num_partitions: 3 }] });
    expect(again.errors).toEqual([[topic, TOPIC_ALREADY_EXISTS]]);

    const cluster = await py<{ controller_id: number; brokers: { node_id: number; host: string; port: number }[] }>('kp_admin.py', { op: 'describe_cluster' });
    expect(cluster.brokers).toEqual([{ node_id: cluster.controller_id, host: broker.host, port: broker.port }]);

    const listed = await py<{ topics: string[] }>('kp_admin.py', { op: 'list_topics' });
    expect(listed.topics).toContain(topic);
    const described = await py<{ topics: { topic: string; error_code: number; partitions: { partition: number; leader: number; replicas: number[]; isr: number[]; error_code: number }[] }[] }>(
      'kp_admin.py', { op: 'describe_topics', topics: [topic] });
    expect(described.topics).toEqual([{
      topic,
      error_code: 0,
      partitions: [0, 1, 2].map((partition) => ({
        partition, leader: cluster.controller_id, replicas: [cluster.controller_id], isr: [cluster.controller_id], error_code: 0,
      })),
    }]);

    const configs = await py<{ configs: Record<string, string | null> }>('kp_admin.py', { op: 'describe_configs', topic });
    expect(configs.configs['retention.ms']).toBe('86400000');
    expect(configs.configs['cleanup.policy']).toBe('delete');

    const grown = await py<{ errors: [string, number][] }>('kp_admin.py', { op: 'create_partitions', topic, new_total: 4 });
    expect(grown.errors).toEqual([[topic, 0]]);
    const regrown = await py<{ topics: { partitions: { partition: number }[] }[] }>('kp_admin.py', { op: 'describe_topics', topics: [topic] });
    expect(regrown.topics[0]?.partitions.map((p) => p.partition)).toEqual([0, 1, 2, 3]);

    const deleted = await py<{ errors: [string, number][] }>('kp_admin.py', { op: 'delete_topics', topics: [topic] });
    expect(deleted.errors).toEqual([[topic, 0]]);
    await eventually(async () => {
      const after = await py<{ topics: string[] }>('kp_admin.py', { op: 'list_topics' });
      expect(after.topics).not.toContain(topic);
    });
  });

  it('KafkaProducer sends keyed records with headers; a KafkaConsumer group member reads them, commits, and shows up in list/describe until it leaves', async () => {
    const topic = uniqueName('kp-group');
    const group = uniqueName('kp-group');
    const created = await py<{ errors: [string, number][] }>('kp_admin.py', { op: 'create_topics', topics: [{ name: topic, num_partitions: 3 }] });
    expect(created.errors).toEqual([[topic, 0]]);

    const messages = Array.from({ length: 12 }, (_, i) => ({
      key: `key-${i}`, value: `value-${i}`, partition: i % 3, headers: [['n', String(i)]],
    }));
    const produced = await py<{ delivered: { index: number; partition: number; offset: number; error: string | null }[] }>(
      'kp_produce.py', { topic, messages });
    expect(produced.delivered).toEqual(messages.map((_, i) => ({ index: i, partition: i % 3, offset: Math.floor(i / 3), error: null })));

    const scenario = await py<GroupScenario>('kp_group_scenario.py', { topic, group, count: 12, timeout_s: 25 }, 60_000);
    expect(scenario.records.map((r) => [r.partition, r.offset, r.key, r.value, r.headers]).sort()).toEqual(
      messages.map((m, i) => [i % 3, Math.floor(i / 3), m.key, m.value, m.headers]).sort(),
    );
    expect(scenario.assignment).toEqual([0, 1, 2]);
    expect(scenario.listed).toContainEqual([group, 'consumer']);
    expect(scenario.described_live).toMatchObject({ group, state: 'Stable', protocol_type: 'consumer', protocol: 'range', error_code: 0 });
    expect(scenario.described_live.members).toHaveLength(1);
    expect(scenario.described_live.members[0]).toMatchObject({ client_id: 'compat-kp-consumer', assignment: { [topic]: [0, 1, 2] } });
    expect(scenario.described_live.members[0]?.member_id).toMatch(/.+/);
    expect(scenario.offsets).toEqual({ 0: 4, 1: 4, 2: 4 });
    expect(scenario.described_after_close).toMatchObject({ group, state: 'Empty', error_code: 0, members: [] });
  });

  it('KafkaProducer with gzip and acks=all: the records come back intact through a KafkaConsumer group', async () => {
    const topic = uniqueName('kp-gzip');
    const group = uniqueName('kp-gzip');
    const created = await py<{ errors: [string, number][] }>('kp_admin.py', { op: 'create_topics', topics: [{ name: topic, num_partitions: 1 }] });
    expect(created.errors).toEqual([[topic, 0]]);
    const messages = Array.from({ length: 50 }, (_, i) => ({ key: `g${i}`, value: `gzip-${i}-${'x'.repeat(100)}`, partition: 0 }));
    const produced = await py<{ delivered: { offset: number; error: string | null }[] }>(
      'kp_produce.py', { topic, messages, config: { compression_type: 'gzip', acks: 'all', linger_ms: 50 } });
    expect(produced.delivered.map((d) => [d.offset, d.error])).toEqual(messages.map((_, i) => [i, null]));
    // kafka-python inferred a broker >= 0.11 from ApiVersions v0 (CLIENTS.md K2): magic-2 batches, gzip codec
    const dir = join(broker.logDir, `${topic}-0`);
    const segment = readFileSync(join(dir, readdirSync(dir).filter((name) => name.endsWith('.log')).sort()[0] ?? ''));
    expect(segment.readInt8(16), 'magic of the first stored batch').toBe(2);
    expect(segment.readInt16BE(21) & 0x07, 'codec of the first stored batch').toBe(1);
    const scenario = await py<GroupScenario>('kp_group_scenario.py', { topic, group, count: 50, timeout_s: 25 }, 60_000);
    expect(scenario.records.map((r) => [r.offset, r.key, r.value])).toEqual(messages.map((m, i) => [i, m.key, m.value]));
    expect(scenario.offsets).toEqual({ 0: 50 });
  });

  it('KafkaConsumer (CRC checks on) reads gzip batches written by librdkafka, and LogAppendTime batches the broker re-stamped', async () => {
    const gzipTopic = uniqueName('kp-from-kcat');
    const appendTimeTopic = uniqueName('kp-append-time');
    const created = await py<{ errors: [string, number][] }>('kp_admin.py', { op: 'create_topics', topics: [
      { name: gzipTopic, num_partitions: 1 },
      { name: appendTimeTopic, num_partitions: 1, config: { 'message.timestamp.type': 'LogAppendTime' } },
    ] });
    expect(created.errors).toEqual([[appendTimeTopic, 0], [gzipTopic, 0]].sort());

    const lines = Array.from({ length: 30 }, (_, i) => `key${i}:librdkafka gzip ${i} ${'z'.repeat(50)}`);
    const produced = await run(KCAT, ['-b', broker.bootstrap, '-P', '-t', gzipTopic, '-p', '0', '-K', ':', '-z', 'gzip'], { input: `${lines.join('\n')}\n`, timeoutMs: 30_000 });
    expect(produced.code, formatRun(produced)).toBe(0);
    const fromKcat = await py<{ records: ReadRecord[] }>('kp_consume.py', { topic: gzipTopic, count: 30 });
    expect(fromKcat.records.map((r) => `${r.key}:${r.value}`)).toEqual(lines);
    expect(fromKcat.records.map((r) => r.offset)).toEqual(lines.map((_, i) => i));

    const ancient = 1_000_000; // a CreateTime from 1970 that the broker must replace
    const before = Date.now();
    const stamped = await py<{ delivered: { offset: number; error: string | null }[] }>('kp_produce.py', {
      topic: appendTimeTopic,
      messages: Array.from({ length: 5 }, (_, i) => ({ key: `t${i}`, value: `append-${i}`, partition: 0, timestamp_ms: ancient })),
      config: { linger_ms: 20 },
    });
    expect(stamped.delivered.map((d) => [d.offset, d.error])).toEqual([[0, null], [1, null], [2, null], [3, null], [4, null]]);
    const read = await py<{ records: ReadRecord[] }>('kp_consume.py', { topic: appendTimeTopic, count: 5 });
    expect(read.records.map((r) => r.value)).toEqual(['append-0', 'append-1', 'append-2', 'append-3', 'append-4']);
    for (const record of read.records) {
      expect(record.timestamp_type, 'LogAppendTime').toBe(1);
      expect(record.timestamp).toBeGreaterThanOrEqual(before - 1_000);
    }
  });

  it('KafkaProducer with acks=0 gets no response from the broker (kafka-python matches responses FIFO) and every record is stored', async () => {
    const topic = uniqueName('kp-acks0');
    const created = await py<{ errors: [string, number][] }>('kp_admin.py', { op: 'create_topics', topics: [{ name: topic, num_partitions: 1 }] });
    expect(created.errors).toEqual([[topic, 0]]);
    const messages = Array.from({ length: 20 }, (_, i) => ({ key: `z${i}`, value: `fire-and-forget-${i}`, partition: 0 }));
    const produced = await py<{ delivered: { offset: number; error: string | null }[]; client_warnings: string[] }>(
      'kp_produce.py', { topic, messages, config: { acks: 0, linger_ms: 0, max_in_flight_requests_per_connection: 5 }, settle_s: 1 });
    expect(produced.client_warnings, 'a response to an acks=0 Produce breaks kafka-python\'s FIFO matching').toEqual([]);
    expect(produced.delivered.map((d) => d.error)).toEqual(messages.map(() => null));
    const read = await py<{ records: ReadRecord[] }>('kp_consume.py', { topic, count: 20 });
    expect(read.records.map((r) => [r.offset, r.value])).toEqual(messages.map((m, i) => [i, m.value]));
  });

  it('looks up offsets by time inside batches with out-of-order CreateTimes, and the earliest and latest offsets (ListOffsets v1)', async () => {
    const topic = uniqueName('kp-times');
    const created = await py<{ errors: [string, number][] }>('kp_admin.py', { op: 'create_topics', topics: [{ name: topic, num_partitions: 1 }] });
    expect(created.errors).toEqual([[topic, 0]]);
    // an hour ago: explicit CreateTimes older than retention.ms (7 days) would be deleted by retention
    const base = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
    // one batch (linger) whose timestamps are not monotonic: the answer is the FIRST offset with timestamp >= target
    const timestamps = [base + 1000, base + 5000, base + 2000, base + 3000, base + 4000, base + 6000];
    const produced = await py<{ delivered: { offset: number; error: string | null }[] }>('kp_produce.py', {
      topic, messages: timestamps.map((ts, i) => ({ key: `t${i}`, value: `at-${ts - base}`, partition: 0, timestamp_ms: ts })), config: { linger_ms: 50 },
    });
    expect(produced.delivered.map((d) => [d.offset, d.error])).toEqual(timestamps.map((_, i) => [i, null]));
    const lookup = await py<{ beginning: Record<string, number>; end: Record<string, number>; for_times: Record<string, Record<string, [number, number] | null>> }>(
      'kp_offsets.py', { topic, partitions: [0], times: [base, base + 2500, base + 5000, base + 5500, base + 7000] });
    expect(lookup.beginning).toEqual({ 0: 0 });
    expect(lookup.end).toEqual({ 0: 6 });
    expect(lookup.for_times).toEqual({
      [String(base)]: { 0: [0, base + 1000] },
      [String(base + 2500)]: { 0: [1, base + 5000] },
      [String(base + 5000)]: { 0: [1, base + 5000] },
      [String(base + 5500)]: { 0: [5, base + 6000] },
      [String(base + 7000)]: { 0: null },
    });
  });

  it('finds offsets by time across many small segments (time index per segment)', async () => {
    const topic = uniqueName('kp-times-segments');
    const created = await py<{ errors: [string, number][] }>('kp_admin.py', { op: 'create_topics', topics: [
      { name: topic, num_partitions: 1, config: { 'segment.bytes': '1024', 'index.interval.bytes': '100' } },
    ] });
    expect(created.errors).toEqual([[topic, 0]]);
    // an hour ago: explicit CreateTimes older than retention.ms (7 days) would be deleted by retention
    const base = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
    const count = 60;
    // one record per batch (batch_size below two records: a batch over segment.bytes is refused with
    // RECORD_LIST_TOO_LARGE, as in Kafka): ~60 batches of ~190 bytes roll a 1 KiB segment every few batches
    const produced = await py<{ delivered: { offset: number; error: string | null }[] }>('kp_produce.py', {
      topic, messages: Array.from({ length: count }, (_, i) => ({ key: `s${i}`, value: `${i}:${'s'.repeat(100)}`, partition: 0, timestamp_ms: base + i * 1000 })),
      config: { linger_ms: 0, batch_size: 160, max_in_flight_requests_per_connection: 1 },
    });
    expect(produced.delivered.map((d) => d.error)).toEqual(Array.from({ length: count }, () => null));
    const segments = readdirSync(join(broker.logDir, `${topic}-0`)).filter((name) => name.endsWith('.log'));
    expect(segments.length, `segments: ${segments.join(', ')}`).toBeGreaterThanOrEqual(5);
    const targets = [0, 1, 7, 23, 24, 41, 59].map((i) => base + i * 1000 - 500);
    const lookup = await py<{ end: Record<string, number>; for_times: Record<string, Record<string, [number, number] | null>> }>(
      'kp_offsets.py', { topic, partitions: [0], times: targets });
    expect(lookup.end).toEqual({ 0: count });
    for (const [index, target] of targets.entries()) {
      const expectedOffset = [0, 1, 7, 23, 24, 41, 59][index]!;
      expect(lookup.for_times[String(target)], `target ${target - base}`).toEqual({ 0: [expectedOffset, base + expectedOffset * 1000] });
    }
  });
});

