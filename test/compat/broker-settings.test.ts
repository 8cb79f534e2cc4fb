/**
 * Real clients against a broker with non-default identity and topic policy:
 * `node.id=7` (clients route admin requests to the Metadata ControllerId and
 * group requests to the FindCoordinator node, so any hard-coded id 1 shows up
 * here) and `auto.create.topics.enable=false` (producers get
 * UNKNOWN_TOPIC_OR_PARTITION and nothing is created behind their back).
 */
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses, type BrokerProcess } from '../helpers/broker-process.js';
import { brokerTail, startCompatBroker } from './compat-broker.js';
import { formatRun, KCAT, killAllClientProcesses, run, runPython, uniqueName } from './processes.js';

const NODE_ID = 7;
let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startCompatBroker({ 'node.id': NODE_ID, 'auto.create.topics.enable': false, 'num.partitions': 2 });
});

afterAll(async () => {
  killAllClientProcesses();
  await stopAllBrokerProcesses();
});

async function topicNames(): Promise<string[]> {
  const result = await run(KCAT, ['-b', broker.bootstrap, '-m', '10', '-L', '-J'], { timeoutMs: 30_000 });
  expect(result.code, formatRun(result)).toBe(0);
  return (JSON.parse(result.stdout) as { topics: { topic: string }[] }).topics.map((t) => t.topic);
}

describe('broker with node.id=7 and auto.create.topics.enable=false', { timeout: 120_000 }, () => {
  it('is listed as broker 7 and controller 7 (kcat -L, kafka-python describe_cluster, kafkajs describeCluster)', async () => {
    const metadata = await run(KCAT, ['-b', broker.bootstrap, '-m', '10', '-L', '-J'], { timeoutMs: 30_000 });
    expect(JSON.parse(metadata.stdout)).toMatchObject({ controllerid: NODE_ID, brokers: [{ id: NODE_ID, name: broker.bootstrap }] });
    const cluster = await runPython<{ controller_id: number; brokers: { node_id: number }[] }>('kp_admin.py', { bootstrap: broker.bootstrap, op: 'describe_cluster' });
    expect(cluster).toEqual({ controller_id: NODE_ID, brokers: [{ node_id: NODE_ID, host: broker.host, port: broker.port }] });
    const admin = new Kafka({ clientId: 'settings', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      expect(await admin.describeCluster()).toMatchObject({ controller: NODE_ID, brokers: [{ nodeId: NODE_ID, host: broker.host, port: broker.port }] });
    } finally {
      await admin.disconnect();
    }
  });

  it('refuses to produce to an unknown topic instead of creating it (kcat, kafkajs, kafka-python)', async () => {
    const topic = uniqueName('settings-missing');
    const kcat = await run(KCAT, ['-b', broker.bootstrap, '-m', '5', '-P', '-t', topic, '-p', '0', '-X', 'message.timeout.ms=3000'], { input: 'lost\n', timeoutMs: 30_000 });
    expect(kcat.code, formatRun(kcat)).not.toBe(0);
    // librdkafka reports the broker's UNKNOWN_TOPIC_OR_PARTITION, or times the message out first
    expect(kcat.stderr).toMatch(/Delivery failed for message: (Broker: Unknown topic or partition|Local: Message timed out)/);

    const kafka = new Kafka({ clientId: 'settings', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 1, initialRetryTime: 100 } });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    try {
      const refused = await producer.send({ topic, messages: [{ value: 'lost' }] }).then(() => undefined, (error: unknown) => error);
      expect(String(refused)).toMatch(/does not host this topic-partition|UNKNOWN_TOPIC_OR_PARTITION|unknown topic/i);
    } finally {
      await producer.disconnect();
    }

    const python = await runPython<{ delivered: { error: string | null }[] }>('kp_produce.py', {
      bootstrap: broker.bootstrap, topic, messages: [{ value: 'lost' }], config: { max_block_ms: 3000 },
    }).then((result) => result, (error: unknown) => ({ delivered: [{ error: String(error) }] }));
    expect(python.delivered[0]?.error).toMatch(/KafkaTimeoutError|UnknownTopicOrPartition|not available|Failed to update metadata/);

    expect(await topicNames()).not.toContain(topic);
  });

  it('routes admin and group requests to node 7: create a topic with each admin client, then a kafka-python group reads and commits', async () => {
    const viaConfluent = uniqueName('settings-ck');
    const viaKafkaPython = uniqueName('settings-kp');
    const viaKafkajs = uniqueName('settings-kjs');
    const ck = await runPython<{ results: Record<string, string | null> }>('ck_admin.py', { bootstrap: broker.bootstrap, op: 'create_topics', topics: [{ name: viaConfluent, num_partitions: 2 }] });
    expect(ck.results).toEqual({ [viaConfluent]: null });
    const kp = await runPython<{ errors: [string, number][] }>('kp_admin.py', { bootstrap: broker.bootstrap, op: 'create_topics', topics: [{ name: viaKafkaPython, num_partitions: 2 }] });
    expect(kp.errors).toEqual([[viaKafkaPython, 0]]);
    const admin = new Kafka({ clientId: 'settings', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      expect(await admin.createTopics({ topics: [{ topic: viaKafkajs, numPartitions: 2 }], waitForLeaders: true })).toBe(true);
    } finally {
      await admin.disconnect();
    }
    expect((await topicNames()).filter((t) => t.startsWith('settings-')).sort()).toEqual([viaConfluent, viaKafkaPython, viaKafkajs].sort());

    const messages = Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, partition: i % 2 }));
    const produced = await runPython<{ delivered: { offset: number; error: string | null }[] }>('kp_produce.py', { bootstrap: broker.bootstrap, topic: viaKafkaPython, messages });
    expect(produced.delivered.map((d) => d.error)).toEqual(messages.map(() => null));
    const group = uniqueName('settings-group');
    const scenario = await runPython<{ records: unknown[]; offsets: Record<string, number>; described_live: { state: string } }>(
      'kp_group_scenario.py', { bootstrap: broker.bootstrap, topic: viaKafkaPython, group, count: 6, timeout_s: 25 }, { timeoutMs: 60_000 })
      .catch((error: unknown) => { throw new Error(`${String(error)}\n${brokerTail(broker)}`); });
    expect(scenario.records).toHaveLength(6);
    expect(scenario.described_live.state).toBe('Stable');
    expect(scenario.offsets).toEqual({ 0: 3, 1: 3 });
  });
});
